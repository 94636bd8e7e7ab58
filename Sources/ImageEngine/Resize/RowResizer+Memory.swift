import MediaTypes
import ImageCodecs

extension RowResizer {
    /// Bytes the scratch buffers hold now: the ring and the rows of the largest resize so far
    /// (they are reused, and only grow).
    package var scratchBytes: Int {
        sourceRow.bytes + sums.bytes + planeRow.bytes + ring8.bytes + ring16.bytes + row16.bytes + accumulator.bytes
            + floatRow.bytes
    }

    /// The most a `resize` of `source`-sized rows of `channels` to the **stored** size `stored`
    /// holds: the output frame plus the scratch the path it takes needs (`scratchBytes`).
    ///
    ///     RowResizer.workingMemory(source: Size(width: 2304, height: 1728), channels: 3,
    ///                              to: Size(width: 2048, height: 1536))
    ///     // 9.4 MB output + 17 ring rows of 2304 × 3 + a few rows
    ///
    /// - Complexity: O(1); no weight table is built.
    package static func workingMemory(source: Size, channels c: Int, to stored: Size) -> Int {
        let output = stored.width * stored.height * c
        guard stored != source else { return output + source.width * c * 5 }
        let fx = BoxReduce.factor(source: source.width, destination: stored.width)
        let fy = BoxReduce.factor(source: source.height, destination: stored.height)
        let pw = BoxReduce.reducedLength(source.width, factor: fx)
        let ph = BoxReduce.reducedLength(source.height, factor: fy)
        // One source row and its UInt32 sums, one plane row.
        var scratch = source.width * c * 5 + pw * c
        // The horizontal pass's Float rows: two (`ResamplePasses.rowFloats`).
        let floats = 2 * (max(pw, stored.width) * c + 8) * 4
        switch (stored.width != pw, stored.height != ph) {
        case (true, true) where stored.height < ph:
            // Output rows in twos (`verticalFirst`): `taps + maxStep` ring rows, two 16-bit rows.
            let rows =
                ResampleWeights.taps(source: ph, destination: stored.height)
                + ResampleWeights.maxStep(source: ph, destination: stored.height)
            scratch += rows * pw * c + pw * c * (4 + 4) + floats + ResamplePasses.pairSums(channels: c) * 4
        case (true, true):
            let taps = ResampleWeights.taps(source: ph, destination: stored.height)
            scratch += taps * stored.width * c * 2 + stored.width * c * 4 + floats
        case (true, false):
            scratch += floats
        case (false, true):
            let rows =
                ResampleWeights.taps(source: ph, destination: stored.height)
                + ResampleWeights.maxStep(source: ph, destination: stored.height)
            scratch += rows * pw * c + pw * c * 4 + ResamplePasses.pairSums(channels: c) * 4
        case (false, false):
            break
        }
        return output + scratch
    }
}
