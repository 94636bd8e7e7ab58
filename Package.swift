// swift-tools-version:6.0
// PushAttach: turns rich-push media URLs into attachment files iOS accepts.
// No package dependencies: the toolchain plus Debian's C codecs and libcurl.
import PackageDescription

let package = Package(
    name: "PushAttach",
    // iOS for PushAttachExtension (and the pure-Swift modules under it), the one product an app
    // builds: the others need Debian's C libraries.
    platforms: [.macOS(.v14), .iOS(.v16)],
    products: [
        .executable(name: "pushattach", targets: ["pushattach"]),
        .executable(name: "pushattach-bench", targets: ["PushAttachBench"]),
        .library(name: "PushAttach", targets: ["PushAttach"]),
        .library(name: "PushAttachBatch", targets: ["PushAttachBatch"]),
        .library(name: "AttachmentServer", targets: ["AttachmentServer"]),
        .library(name: "PushAttachExtension", targets: ["PushAttachExtension"]),
    ],
    targets: [
        // C libraries from Debian, seen only by the codec and fetch layers.
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // ISA-L's streaming inflate and level-1 deflate, for the PNG reader in CPNGShim (fast.c) and
        // the writer; libdeflate's deflate and CRC-32, for small PNGs, the chunk walk and iCCP/XMP.
        .systemLibrary(name: "CISAL", pkgConfig: "libisal", providers: [.apt(["libisal-dev"])]),
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        // HEIC and AVIF (libheif, with libde265 and dav1d/aom), GIF reading and writing (giflib),
        // palette quantisation (libimagequant), colour management (lcms2).
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CGIF", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CImageQuant", pkgConfig: "imagequant", providers: [.apt(["libimagequant-dev"])]),
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        // libwebp's encoders (still and WebPAnimEncoder), for generated test inputs only (EngineFuzzKit).
        .systemLibrary(name: "CWebPMux", pkgConfig: "libwebpmux", providers: [.apt(["libwebp-dev"])]),
        // libmicrohttpd, seen only by the server's HTTP layer (AttachmentServer/HTTP).
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // libcrypto (OpenSSL 3, which libcurl loads anyway), seen only by SystemSupport's hashing:
        // SHA-256, SHA-1 and HMAC-SHA256.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        // libmicrohttpd's variadic start and connection-info calls, and the listening socket.
        .target(name: "CMicroHTTPDShim", dependencies: ["CMicroHTTPD"]),
        // setjmp/longjmp error handling of libjpeg's scanline API and libpng's row API, kept in C;
        // CPNGShim also reads the common PNG's rows itself (fast.c) and filters rows for the writer.
        .target(name: "CJPEGShim", dependencies: ["CJPEG"]),
        .target(name: "CPNGShim", dependencies: ["CPNG", "CISAL"]),
        // The default CMYK ICC profile (public domain): ChemicalProof.icc, compiled in as a C array
        // by #embed (profile.c), so the binary carries it with no resource bundle to find.
        .target(name: "CDefaultCMYKProfile", exclude: ["ChemicalProof.icc", "LICENSE.txt"]),

        // Stages, in the direction data flows.
        .target(name: "MediaTypes"),
        .target(
            name: "ImageCodecs",
            dependencies: [
                "MediaTypes", "CTurboJPEG", "CJPEGShim", "CPNG", "CPNGShim", "CDeflate", "CISAL", "CWebP", "CHeif", "CGIF",
                "CImageQuant", "CLCMS2", "CDefaultCMYKProfile",
            ]),
        .target(name: "ImageEngine", dependencies: ["MediaTypes", "ImageCodecs"]),
        .target(name: "Verification", dependencies: ["MediaTypes", "ImageCodecs", "ImageEngine"]),
        .target(name: "Fetch", dependencies: ["MediaTypes", "PushPayloads", "SystemSupport", "CCurlShim"]),
        // System calls on the container (one wrapper), atomic writes, hashing, the memory budget
        // and the worker threads: what the per-item path and the batch runner both stand on.
        .target(name: "SystemSupport", dependencies: ["MediaTypes", "CCrypto"]),
        // Where push payloads put their media and what the file is called: the conventions table
        // `prepare` reads payloads by (and the cache keys URLs by), serve links told by their
        // shape, the attachment file names, the allowed-host patterns. Foundation only, no C, so
        // a Notification Service Extension can share it.
        .target(name: "PushPayloads"),
        // The library a server calls: the per-item path every caller takes (download, plan,
        // engine, check, atomic write into the container), one call per job, one error type.
        .target(
            name: "PushAttach",
            dependencies: [
                "MediaTypes", "ImageCodecs", "ImageEngine", "Verification", "Fetch", "SystemSupport", "PushPayloads",
            ]),
        // The batch runner, built on the library (its public API and, for now, the per-item path's
        // package declarations): inputs (URL lists, JSON lines, payloads),
        // the manifest and its journal, resume, shards, merge, the HTML report, payload rewriting.
        // The report's style sheet and script are files of their own, compiled in as bytes
        // (`PackageResources`): the binary carries them, no resource bundle to find.
        .target(
            name: "PushAttachBatch", dependencies: ["PushAttach", "MediaTypes", "Fetch", "SystemSupport", "PushPayloads"],
            resources: [.embedInCode("Report/report.css"), .embedInCode("Report/report.js")]),
        // The device side: a Notification Service Extension's loader (the payload conventions,
        // a bounded URLSession download, the bytes judged by Apple's rules) and its
        // UserNotifications glue. No C at all, so it builds for iOS
        // (Scripts/extension-imports-check proves it).
        .target(name: "PushAttachExtension", dependencies: ["MediaTypes", "PushPayloads"]),
        // `pushattach serve`'s server: the second face over the library, on libmicrohttpd.
        .target(name: "AttachmentServer", dependencies: ["PushAttach", "CMicroHTTPD", "CMicroHTTPDShim"]),
        // The command line: a face over the public library (`PushAttach`, `PushAttachBatch`, and
        // `AttachmentServer` for `serve`). `pushattach bench` runs `pushattach-bench`, beside it.
        .executableTarget(name: "pushattach", dependencies: ["PushAttach", "PushAttachBatch", "AttachmentServer"]),
        .executableTarget(
            name: "PushAttachBench", dependencies: ["BenchmarkKit"], path: "Benchmarks/pushattach-bench"),
        .target(
            name: "BenchmarkKit", dependencies: ["MediaTypes", "ImageCodecs", "ImageEngine"],
            path: "Benchmarks/BenchmarkKit"),
        // libFuzzer harnesses: a stub unless built by `make fuzz` (-DFUZZING).
        .executableTarget(
            name: "PushAttachFuzz",
            dependencies: [
                "MediaTypes", "ImageCodecs", "ImageEngine", "Verification", "Fetch", "SystemSupport", "PushAttach", "PushAttachBatch",
                "EngineFuzzKit",
            ],
            path: "Fuzz", exclude: ["seeds"]),
        // Generative whole-engine fuzzing (docs/ROBUSTNESS.md): images generated from a seed, written by
        // the project's encoders or small hand-written writers, checked after `prepare`'s per-item call.
        // Used by the fuzz target's `engine` mode and by PipelineTests' seeded slice.
        .target(
            name: "EngineFuzzKit",
            dependencies: ["MediaTypes", "ImageCodecs", "ImageEngine", "Verification", "CTurboJPEG", "CWebPMux"],
            path: "Tests/EngineFuzzKit"),

        // Tests.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "MediaTypesTests", dependencies: ["MediaTypes", "TestSupport"]),
        .testTarget(name: "PushPayloadsTests", dependencies: ["PushPayloads"]),
        .testTarget(name: "PushAttachExtensionTests", dependencies: ["PushAttachExtension", "PushPayloads", "TestSupport"]),
        .testTarget(
            name: "ImageCodecsTests",
            dependencies: ["ImageCodecs", "MediaTypes", "TestSupport", "CPNG", "CTurboJPEG", "CJPEGShim", "CGIF", "CLCMS2"]),
        .testTarget(name: "ImageEngineTests", dependencies: ["ImageEngine", "ImageCodecs", "MediaTypes", "Verification", "TestSupport"]),
        .testTarget(name: "VerificationTests", dependencies: ["Verification", "MediaTypes", "TestSupport"]),
        .testTarget(name: "FetchTests", dependencies: ["Fetch", "TestSupport"]),
        .testTarget(
            name: "PipelineTests",
            dependencies: [
                "PushAttach", "PushAttachBatch", "Fetch", "ImageCodecs", "ImageEngine", "MediaTypes", "Verification", "SystemSupport",
                "PushPayloads", "TestSupport", "EngineFuzzKit",
            ]),
        .testTarget(name: "PushAttachTests", dependencies: ["PushAttach", "PushAttachBatch", "PushPayloads", "TestSupport"]),
        .testTarget(name: "AttachmentServerTests", dependencies: ["AttachmentServer", "PushAttach", "TestSupport"]),
        .testTarget(
            name: "CLITests", dependencies: ["pushattach", "PushAttachBench", "PushAttach", "PushAttachBatch", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
