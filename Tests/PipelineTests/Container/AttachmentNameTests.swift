import Foundation
import PushPayloads
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

@Suite("Attachment names", .tags(.slow), .notInFastTier)
struct AttachmentNameTests {
    @Test(arguments: [
        ("../../etc/passwd", "passwd"),
        ("..\\..\\windows\\system.ini", "system"),
        ("cat.jpg", "cat"),
        ("My Cat  Photo.webp", "My-Cat-Photo"),
        (".hidden.png", "hidden"),
        ("...", "attachment"),
        ("--rf.gif", "rf"),
        ("", "attachment"),
        ("a\u{0}b\u{7}c\u{7F}d\u{85}e.jpg", "abcde"),
        ("\u{202E}gpj.exe", "gpj"),
        ("evil\u{2066}name\u{2069}.png", "evilname"),
        ("a..b.jpg", "a.b"),
        ("tab\tand\nnewline.png", "tab-and-newline"),
        ("party 😀😀 time.gif", "party-time"),
        ("café ñ 日本.jpg", "café-ñ-日本"),
        ("a:b*c?d.jpg", "a_b_c_d"),
    ])
    func sanitises(_ raw: String, _ expected: String) {
        #expect(NameSanitizer.baseName(raw) == expected)
    }

    @Test func fileNameShape() {
        let uuid = UUID(uuidString: "0AF39F86-695F-5B4F-8503-15EF9F8EA23C")!
        let name = AttachmentName(uuid: uuid, suggestedFilename: "photo.webp", fileExtension: "jpg")
        #expect(name.fileName == "0AF39F86-695F-5B4F-8503-15EF9F8EA23C-photo.jpg")
        #expect(name.identifier == "0AF39F86-695F-5B4F-8503-15EF9F8EA23C")
    }

    @Test func nameFromURLPercentDecoded() {
        let name = AttachmentName(url: "https://x.test/media/My%20Cat.webp?size=big#top", fileExtension: "jpg")
        #expect(name.baseName == "My-Cat")
        #expect(name.fileName.hasSuffix("-My-Cat.jpg"))
    }

    @Test func nameFallsBackWithoutPath() {
        #expect(AttachmentName(url: "https://x.test/", fileExtension: "png").baseName == "attachment")
        #expect(AttachmentName(url: "https://x.test", fileExtension: "png").baseName == "attachment")
        // An encoded slash must not smuggle a directory in.
        #expect(
            AttachmentName(url: "https://x.test/a/..%2F..%2Fetc%2Fpasswd", fileExtension: "png").baseName == "passwd")
    }

    @Test func contentDispositionWinsOverURL() {
        let name = AttachmentName(
            url: "https://x.test/a.jpg", suggestedFilename: "../../etc/passwd", fileExtension: "jpg")
        #expect(name.baseName == "passwd")
    }

    @Test func stableNamesRepeat() {
        let url = "https://example.com/a.jpg"
        let a = AttachmentName(url: url, fileExtension: "jpg", naming: .stable)
        let b = AttachmentName(url: url, fileExtension: "jpg", naming: .stable)
        #expect(a == b)
        #expect(a.identifier == "0AF39F86-695F-5B4F-8503-15EF9F8EA23C")
        let r1 = AttachmentName(url: url, fileExtension: "jpg")
        let r2 = AttachmentName(url: url, fileExtension: "jpg")
        #expect(r1.identifier != r2.identifier)
    }

    @Test(arguments: ["é", "日", "𐐀", "a", "e\u{301}"])
    func longUnicodeNamesFitNameMax(_ unit: String) {
        let long = String(repeating: unit, count: 300)
        let name = AttachmentName(uuid: UUID(), suggestedFilename: long + ".png", fileExtension: "jpeg")
        #expect(name.fileName.utf8.count <= AttachmentName.nameMax)
        #expect(name.fileName.hasSuffix(".jpeg"))
        #expect(name.baseName.count > 10)
        // Cut on a character boundary: every kept character is a whole unit.
        #expect(name.baseName.allSatisfy { String($0) == unit.precomposedStringWithCanonicalMapping })
        // And the temp name made from it fits too.
        #expect(AtomicWriter.temporaryName(for: name.fileName).utf8.count <= AttachmentName.nameMax)
    }

    @Test func extensionIsCleaned() {
        let name = AttachmentName(uuid: UUID(), suggestedFilename: "x", fileExtension: "../JPG")
        #expect(name.fileExtension == "jpg")
    }
}
