import Foundation
import MediaTypes

/// Encoded images read into memory before any timing starts.
///
///     let set = ImageSet.load(folder: URL(fileURLWithPath: "TestImages"))
///     set.images.count
public struct ImageSet: Sendable {
    public struct Image: Sendable {
        public var name: String
        public var data: Data
        public var sniffed: SniffedType
        public var megapixels: Double { Double(sniffed.width ?? 0) * Double(sniffed.height ?? 0) / 1_000_000 }
    }

    public var folder: URL
    public var images: [Image]

    /// The formats W1-W5 read: JPEG, PNG, WebP, HEIC/HEIF and AVIF.
    public static let benchFormats: Set<MediaFormat> = [.jpeg, .png, .webp, .heic, .heif, .avif]

    /// Every JPEG, PNG, WebP, HEIC/HEIF and AVIF file under `folder` (recursive, sorted, hidden files skipped),
    /// sniffed from its bytes, or those of `formats` (A1 adds GIF). Other files are ignored.
    public static func load(folder: URL, formats: Set<MediaFormat> = benchFormats) -> ImageSet {
        var images: [Image] = []
        for url in files(under: folder) {
            guard let data = try? Data(contentsOf: url), let sniffed = try? Sniffer.sniff(data),
                formats.contains(sniffed.format), sniffed.width != nil
            else { continue }
            let name =
                url.path.hasPrefix(folder.path)
                ? String(url.path.dropFirst(folder.path.count + 1)) : url.lastPathComponent
            images.append(Image(name: name, data: data, sniffed: sniffed))
        }
        return ImageSet(folder: folder, images: images)
    }

    public func only(_ format: MediaFormat) -> [Image] { images.filter { $0.sniffed.format == format } }

    private static func files(under folder: URL) -> [URL] {
        guard
            let walker = FileManager.default.enumerator(
                at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { return [] }
        var out: [URL] = []
        for case let url as URL in walker
        where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            out.append(url)
        }
        return out.sorted { $0.path < $1.path }
    }
}
