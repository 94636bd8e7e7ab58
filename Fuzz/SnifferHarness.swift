#if FUZZING
    import MediaTypes

    /// `Sniffer.sniff` on any bytes: format detection and every header parser.
    let snifferHarness = Harness(name: "sniffer") { bytes in
        _ = Sniffer.identify(prefix: Array(bytes.prefix(Sniffer.identifyPrefixLength)))
        guard let sniffed = try? Sniffer.sniff(bytes) else { return }
        precondition(sniffed.format == .unknown || sniffed.width ?? 1 > 0, "sniffer accepted a zero width")
    }
#endif
