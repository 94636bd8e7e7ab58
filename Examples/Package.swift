// swift-tools-version:6.0
// Examples of the PushAttach library: each executable is one job a server does.
// Depends on the checkout above by path (the package is not published), so it resolves offline.
import PackageDescription

let package = Package(
    name: "PushAttachExamples",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "PushAttach", path: "..")
    ],
    targets: [
        // Argument parsing and printing shared by the examples (not part of the library).
        .target(name: "ExampleSupport", dependencies: [.product(name: "PushAttach", package: "PushAttach")]),
        .executableTarget(
            name: "one-url", dependencies: [.product(name: "PushAttach", package: "PushAttach"), "ExampleSupport"]),
        .executableTarget(
            name: "batch-progress",
            dependencies: [.product(name: "PushAttach", package: "PushAttach"), "ExampleSupport"]),
        .executableTarget(
            name: "batch-manifest",
            dependencies: [
                .product(name: "PushAttach", package: "PushAttach"),
                .product(name: "PushAttachBatch", package: "PushAttach"), "ExampleSupport",
            ]),
        .executableTarget(
            name: "verify-folder",
            dependencies: [.product(name: "PushAttach", package: "PushAttach"), "ExampleSupport"]),
        .executableTarget(
            name: "thumbnail", dependencies: [.product(name: "PushAttach", package: "PushAttach"), "ExampleSupport"]),
        .executableTarget(
            name: "concurrent-requests",
            dependencies: [.product(name: "PushAttach", package: "PushAttach"), "ExampleSupport"]),
        .executableTarget(
            name: "http-endpoint",
            dependencies: [.product(name: "PushAttach", package: "PushAttach"), "ExampleSupport"]),
        // A Notification Service Extension's loader, on the PushAttachExtension product alone.
        .executableTarget(
            name: "extension-loader",
            dependencies: [.product(name: "PushAttachExtension", package: "PushAttach")]),
        // The Swift samples of README.md, the DocC catalogs and docs/, verbatim, compiled (never
        // run) to prove they build (Scripts/doc-snippets-check finds each sample here).
        .target(
            name: "DocSnippets",
            dependencies: [
                .product(name: "PushAttach", package: "PushAttach"),
                .product(name: "PushAttachBatch", package: "PushAttach"),
                .product(name: "AttachmentServer", package: "PushAttach"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
