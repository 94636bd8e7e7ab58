import Foundation
import PushAttach
import SystemSupport

/// The fixed parts of `report.html`: its style sheet (`report.css`) and its script (`report.js`),
/// both beside this file and compiled in, inline in the page (it opens from disk and loads
/// nothing from anywhere), and the Content-Security-Policy that allows exactly those two, by
/// hash, and pictures, sound and video from the container. The fixed text is ASCII.
///
/// The script reads the entries from the `<script type="application/json" id="entries">` block
/// and shows one page of cards (`ReportWriter.pageSize` unless the link says otherwise). The state
/// is in `location.hash`, so a view is a link:
/// `#status=rejected&q=webp&sort=size&group=reason&key=...&fold=0&page=2&per=50`.
/// - `status`, `q`: the status chips and the search box (`per=all` shows every match on one page).
/// - `sort`: input order (default), `size` (largest first), `time` (slowest first), `name`.
/// - `group`: `status`, or `reason` (status, UNErrorCode and the reason's first clause, the
///   page's `reason_key`); headings with counts, and a row of group links; `key` shows one group.
/// - `fold`: items naming the same URL with the same outcome are one card with a count
///   (default); `fold=0` shows each.
/// Prepared audio and video play inline; a refused item shows what was sniffed and its first
/// bytes (`first_bytes`), as text with `\xHH` escapes and as hex. Cards are built with
/// `textContent`, never markup. On `<body>` it records what it shows, for tests: `data-total`,
/// `data-matching` (items), `data-cards` (after folding), `data-shown`, `data-page`,
/// `data-pages`, `data-status`, `data-sort`, `data-group`, and `data-rendered-ms`:
/// `performance.now()` once the first page is laid out.
enum ReportPage {
    /// `default-src 'none'`: no network, no plug-ins, no frames; the style and script by hash;
    /// pictures, sound and video from the container only.
    static let contentSecurityPolicy =
        "default-src 'none'; img-src 'self' file:; media-src 'self' file:; style-src '\(hash(style))'; "
        + "script-src '\(hash(script))'; base-uri 'none'; form-action 'none'"

    /// `sha256-<base64>` of `text`, as a CSP source.
    static func hash(_ text: String) -> String {
        "sha256-" + Data(SHA256.hash(Data(text.utf8))).base64EncodedString()
    }

    /// The style sheet, after a line break (`<style>` then the file's first line).
    static let style = "\n" + String(decoding: PackageResources.report_css, as: UTF8.self)

    /// The script, after a line break.
    static let script = "\n" + String(decoding: PackageResources.report_js, as: UTF8.self)
}
