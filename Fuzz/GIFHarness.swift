#if FUZZING
    import MediaTypes

    /// The GIF block walker: every input is made to start like a GIF, so the fuzzer spends its
    /// time in the logical screen descriptor, the extensions and the image-data sub-blocks.
    let gifHarness = Harness(name: "gif") { bytes in
        let magic: [UInt8] = Array("GIF89a".utf8)
        let input = bytes.starts(with: Array("GIF8".utf8)) ? bytes : magic + bytes
        _ = try? Sniffer.sniff(input)
    }
#endif
