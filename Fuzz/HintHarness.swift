#if FUZZING
    import MediaTypes

    /// The hint parser and the reconciler: the text is parsed as a hint, and used as every kind
    /// of claim against a format picked by the first byte.
    let hintHarness = Harness(name: "hint") { bytes in
        let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        _ = TypeHint.parse(text)
        let formats = MediaFormat.allCases
        let sniffed = formats[Int(bytes.first ?? 0) % formats.count]
        let parts = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
        let sources: [TypeClaim.Source] = [.mediaType, .contentType, .urlExtension, .fileExtension]
        let claims = zip(sources, parts).map { TypeClaim($0, $1) }
        for strict in [false, true] {
            _ = try? TypeReconciler.reconcile(sniffed, claims: claims, strict: strict)
        }
    }
#endif
