import Foundation
import Testing
import TestSupport

/// Debian's `chromium`, headless, for tests that look at a page in a real browser: the DOM after
/// its scripts ran (`--dump-dom`), and screenshots. One browser process per call, each with a
/// fresh profile folder, under `timeout` so a hung browser fails the test instead of the run.
///
///     let browser = try HeadlessChromium()
///     let page = try browser.dumpDOM(reportURL, hash: "status=rejected")
///     page.body["data-rendered-ms"]   // "312"
///
/// `make test` installs chromium (the Makefile's DEBS); `PUSHATTACH_CHROMIUM` names another binary.
struct HeadlessChromium {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The DOM as `--dump-dom` printed it, and the `<body>` tag's attributes.
    struct Page {
        var html: String
        var body: [String: String]
        /// How long the browser process ran, launch to exit.
        var seconds: Double
    }

    static let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]

    /// Whether the browser tests run: a browser is installed, or `PUSHATTACH_REQUIRE_CHROMIUM` is
    /// set (`make test` sets it, after installing chromium, so a missing browser fails there
    /// instead of skipping).
    static var shouldRun: Bool {
        let environment = ProcessInfo.processInfo.environment
        if environment["PUSHATTACH_REQUIRE_CHROMIUM"] != nil { return true }
        let paths = (environment["PUSHATTACH_CHROMIUM"].map { [$0] } ?? []) + candidates
        return paths.contains(where: FileManager.default.isExecutableFile)
    }

    /// The reason a skipped browser test shows.
    static let skipReason: Comment =
        "skipped: no chromium installed (apt-get install chromium, or set PUSHATTACH_CHROMIUM); make test installs it and runs these"
    let executable: URL
    /// Seconds a browser process may run before `timeout` stops it.
    var deadline = 120

    init() throws {
        let environment = ProcessInfo.processInfo.environment["PUSHATTACH_CHROMIUM"].map { [$0] } ?? []
        guard let path = (environment + Self.candidates).first(where: FileManager.default.isExecutableFile) else {
            throw Failure(
                description:
                    "no chromium at \(Self.candidates.joined(separator: ", ")): run 'apt-get install chromium' (make test does), or set PUSHATTACH_CHROMIUM"
            )
        }
        executable = URL(fileURLWithPath: path)
    }

    /// The page at `file` (with `#hash` when given) after its scripts ran.
    func dumpDOM(_ file: URL, hash: String? = nil) throws -> Page {
        let started = Date()
        let result = try run(["--dump-dom", Self.address(file, hash: hash)])
        let seconds = Date().timeIntervalSince(started)
        guard result.status == 0, result.stdout.contains("</body>") else {
            throw Failure(description: "chromium --dump-dom exited \(result.status): \(Self.tail(result.stderr))")
        }
        return Page(html: result.stdout, body: Self.bodyAttributes(result.stdout), seconds: seconds)
    }

    /// A `width` x `height` PNG of the page's first screen.
    func screenshot(_ file: URL, hash: String? = nil, to png: URL, width: Int = 1280, height: Int = 900) throws {
        try? FileManager.default.removeItem(at: png)
        let result = try run([
            "--screenshot=\(png.path)", "--window-size=\(width),\(height)", "--hide-scrollbars",
            Self.address(file, hash: hash),
        ])
        guard result.status == 0, FileManager.default.fileExists(atPath: png.path) else {
            throw Failure(description: "chromium --screenshot exited \(result.status): \(Self.tail(result.stderr))")
        }
    }

    private func run(_ arguments: [String]) throws -> ProcessRunner.Result {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        // --no-sandbox: the tests may run as root, where chromium refuses its sandbox.
        let flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--disable-background-networking", "--mute-audio", "--user-data-dir=\(profile.path)",
        ]
        return try ProcessRunner.runExecutable(
            URL(fileURLWithPath: "/usr/bin/timeout"),
            ["--kill-after=5", "\(deadline)", executable.path] + flags + arguments,
            environment: ["HOME": profile.path])
    }

    static func address(_ file: URL, hash: String?) -> String {
        file.absoluteURL.absoluteString + (hash.map { "#" + $0 } ?? "")
    }

    /// `<body a="1" b="x">` as ["a": "1", "b": "x"] (values as the DOM serialiser writes them).
    static func bodyAttributes(_ html: String) -> [String: String] {
        guard let tag = html.firstMatch(of: /<body([^>]*)>/) else { return [:] }
        var attributes: [String: String] = [:]
        for match in tag.1.matches(of: /([a-z-]+)="([^"]*)"/) { attributes[String(match.1)] = String(match.2) }
        return attributes
    }

    private static func tail(_ text: String) -> String {
        text.split(separator: "\n").filter { !$0.contains("dbus") }.suffix(5).joined(separator: "\n")
    }
}
