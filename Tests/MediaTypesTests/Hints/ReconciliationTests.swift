import Testing

@testable import MediaTypes

@Suite("Reconciliation")
struct ReconciliationTests {
    @Test("hint 'video' on a JPEG warns, naming both; the bytes win")
    func videoOnJPEG() throws {
        let r = try TypeReconciler.reconcile(.jpeg, claims: [TypeClaim(.mediaType, "video")], strict: false)
        #expect(r.format == .jpeg)
        #expect(r.mismatches.count == 1)
        #expect(r.warnings == ["media_type \"video\" says movie, but the bytes are JPEG (image); using jpeg"])
    }

    @Test("strict makes the mismatch an error")
    func strictThrows() {
        let error = #expect(throws: TypeMismatch.self) {
            try TypeReconciler.reconcile(.jpeg, claims: [TypeClaim(.mediaType, "video")], strict: true)
        }
        #expect(error?.claim == TypeClaim(.mediaType, "video"))
        #expect(error?.sniffed == .jpeg)
        #expect(error?.description.contains("JPEG") == true)
    }

    @Test(
        "octet-stream and empty values make no claim",
        arguments: ["application/octet-stream", "binary/octet-stream", "Application/Octet-Stream; charset=x", "", "  "])
    func noClaim(_ value: String) throws {
        let r = try TypeReconciler.reconcile(
            .png, claims: [TypeClaim(.contentType, value), TypeClaim(.mediaType, value)], strict: true)
        #expect(r.warnings.isEmpty)
        #expect(r.mismatches.isEmpty)
    }

    @Test("an unrecognised value is a warning, not a mismatch, even when strict")
    func unrecognised() throws {
        let r = try TypeReconciler.reconcile(.png, claims: [TypeClaim(.mediaType, "x")], strict: true)
        #expect(r.mismatches.isEmpty)
        #expect(r.warnings.count == 1)
        #expect(r.warnings[0].hasPrefix("unrecognised media_type 'x'"))
    }

    @Test("all four sources are checked, agreeing claims are silent")
    func allSources() throws {
        let claims = [
            TypeClaim(.mediaType, "image"), TypeClaim(.contentType, "image/png"),
            TypeClaim(.urlExtension, "gif"), TypeClaim(.fileExtension, ".jpg"),
        ]
        let r = try TypeReconciler.reconcile(.jpeg, claims: claims, strict: false)
        #expect(r.format == .jpeg)
        #expect(r.mismatches.map(\.claim.source) == [.contentType, .urlExtension])
        #expect(r.warnings[0] == "Content-Type \"image/png\" says PNG, but the bytes are JPEG (image); using jpeg")
        #expect(r.warnings[1].hasPrefix("URL extension \"gif\" says GIF"))
    }

    @Test("a claim on unrecognised bytes is a mismatch")
    func unknownBytes() throws {
        let r = try TypeReconciler.reconcile(.unknown, claims: [TypeClaim(.mediaType, "public.jpeg")], strict: false)
        #expect(r.format == .unknown)
        #expect(
            r.warnings == [
                "media_type \"public.jpeg\" says JPEG, but the bytes are not a format we recognise; using unknown"
            ])
    }
}
