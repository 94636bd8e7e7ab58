import Testing

@testable import MediaTypes

@Suite("Type hints")
struct TypeHintTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let raw: String
        let form: TypeHint.Form
        let category: MediaCategory?
        let formats: Set<MediaFormat>
        var testDescription: String { "'\(raw)'" }
    }

    static let cases: [Case] = [
        // coarse
        .init(raw: "image", form: .coarse, category: .image, formats: []),
        .init(raw: "IMAGE", form: .coarse, category: .image, formats: []),
        .init(raw: " video ", form: .coarse, category: .movie, formats: []),
        .init(raw: "movie", form: .coarse, category: .movie, formats: []),
        .init(raw: "Audio", form: .coarse, category: .audio, formats: []),
        .init(raw: "gif", form: .coarse, category: .image, formats: [.gif]),
        // MIME
        .init(raw: "image/jpeg", form: .mime, category: .image, formats: [.jpeg]),
        .init(raw: "image/JPG", form: .mime, category: .image, formats: [.jpeg]),
        .init(raw: "Image/PNG; charset=binary", form: .mime, category: .image, formats: [.png]),
        .init(raw: "audio/mpeg", form: .mime, category: .audio, formats: [.mp3]),
        .init(raw: "audio/mp3", form: .mime, category: .audio, formats: [.mp3]),
        .init(raw: "video/mp4", form: .mime, category: .movie, formats: [.mp4, .m4v]),
        .init(raw: "video/quicktime", form: .mime, category: .movie, formats: [.mov]),
        .init(raw: "image/webp", form: .mime, category: .image, formats: [.webp]),
        .init(raw: "image/*", form: .mime, category: .image, formats: []),
        // UTI
        .init(raw: "public.jpeg", form: .uti, category: .image, formats: [.jpeg]),
        .init(raw: "com.compuserve.gif", form: .uti, category: .image, formats: [.gif]),
        .init(raw: "PUBLIC.PNG", form: .uti, category: .image, formats: [.png]),
        .init(raw: "public.mpeg-2-video", form: .uti, category: .movie, formats: [.mpeg]),
        .init(raw: "public.mp3", form: .uti, category: .audio, formats: [.mp3]),
        .init(raw: "public.movie", form: .uti, category: .movie, formats: []),
        // extension
        .init(raw: "jpg", form: .fileExtension, category: .image, formats: [.jpeg]),
        .init(raw: ".JPG", form: .fileExtension, category: .image, formats: [.jpeg]),
        .init(raw: "jpeg", form: .fileExtension, category: .image, formats: [.jpeg]),
        .init(raw: "png", form: .fileExtension, category: .image, formats: [.png]),
        .init(raw: "m4a", form: .fileExtension, category: .audio, formats: [.m4a]),
        .init(raw: ".m2v", form: .fileExtension, category: .movie, formats: [.mpeg]),
        .init(raw: "3gp", form: .fileExtension, category: .movie, formats: [.mp4]),
    ]

    @Test("parses all four forms, case-insensitively", arguments: cases)
    func parses(_ c: Case) throws {
        let hint = try #require(TypeHint.parse(c.raw))
        #expect(hint.raw == c.raw)
        #expect(hint.form == c.form)
        #expect(hint.category == c.category)
        #expect(hint.formats == c.formats)
    }

    @Test(
        "unrecognised values give nil",
        arguments: ["", "   ", "banana", "image/x-banana", "com.example.thing", ".zzz", "application/octet-stream"])
    func unrecognised(_ raw: String) {
        #expect(TypeHint.parse(raw) == nil)
    }

    @Test("admits: formats when named, else the category")
    func admits() throws {
        let video = try #require(TypeHint.parse("video"))
        #expect(video.admits(.mp4) && video.admits(.mov))
        #expect(!video.admits(.jpeg))
        let jpeg = try #require(TypeHint.parse("image/jpeg"))
        #expect(jpeg.admits(.jpeg))
        #expect(!jpeg.admits(.png))
        #expect(try #require(TypeHint.parse("gif")).admits(.gif))
        #expect(!(try #require(TypeHint.parse("gif")).admits(.png)))
    }
}
