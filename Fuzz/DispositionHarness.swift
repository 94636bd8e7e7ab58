#if FUZZING
    import Fetch
    import Foundation
    import PushAttach
    import PushAttachBatch

    /// Content-Disposition (Fetch's parser) and what the container does with its filename.
    let dispositionHarness = Harness(name: "disposition") { bytes in
        let header = String(decoding: bytes, as: UTF8.self)
        _ = Fetch.ContentDisposition.type(of: header)
        let suggested = Fetch.ContentDisposition.filename(from: header)
        let name = AttachmentName(
            uuid: UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)),
            suggestedFilename: suggested, fileExtension: "jpg")
        checkFileName(name)
    }

    /// The filename sanitizer and `AttachmentName` on any text, as a URL's last component too.
    let filenameHarness = Harness(name: "filename") { bytes in
        let raw = String(decoding: bytes, as: UTF8.self)
        let base = NameSanitizer.baseName(raw)
        precondition(!base.isEmpty && !base.contains("/") && !base.hasPrefix("."), "unsafe base name '\(base)'")
        checkFileName(AttachmentName(url: "https://x.test/" + raw, fileExtension: "png", naming: .stable))
        checkFileName(AttachmentName(url: raw, suggestedFilename: raw, fileExtension: raw, naming: .random))
    }

    /// A file name the container may create: one component, no `..`, at most NAME_MAX bytes.
    func checkFileName(_ name: AttachmentName) {
        let fileName = name.fileName
        precondition(fileName.utf8.count <= AttachmentName.nameMax, "name too long: \(fileName.utf8.count) bytes")
        precondition(!fileName.contains("/") && !fileName.contains("\0"), "name has a separator: '\(fileName)'")
        precondition(!fileName.contains(".."), "name has '..': '\(fileName)'")
    }
#endif
