/// MPEG-TS: a 0x47 sync byte every 188 bytes.
///
///     MPEGTransportStream.matches(bytes)
enum MPEGTransportStream {
    static let packetSize = 188

    /// Checks up to five packets: every packet start present must hold the sync byte, and the
    /// first header must be plausible (no transport error, adaptation-field control not the
    /// reserved 0). A lone packet (a short prefix) must also be the PAT (PID 0) that streams
    /// open with, so short text starting with "G" is not taken for a stream.
    static func matches(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4, bytes[0] == 0x47, bytes[1] & 0x80 == 0, bytes[3] & 0x30 != 0 else { return false }
        let packets = min(5, (bytes.count - 1) / packetSize + 1)
        if packets < 2 { return bytes[1] & 0x1F == 0 && bytes[2] == 0 }
        return (0..<packets).allSatisfy { bytes[$0 * packetSize] == 0x47 }
    }
}
