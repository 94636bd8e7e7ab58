import Foundation
import PushAttach

/// The human-readable form of verify's output: a table with a header row, every column as wide
/// as its widest cell (nothing is cut), each file's reason and warnings on indented lines below
/// it, then a summary. Paths, reasons and warnings can hold text from outside (a file's name):
/// they are escaped (`DisplayText`).
///
///     var table = VerifyTable()
///     table.count(report); table.rows.append(report)
///     print(table.rendered()); print(table.summary())
struct VerifyTable {
    /// Both halves: `verdict` and `action` are what `prepare` will do (the plan it carries out),
    /// `ios` what iOS does with the file as it is.
    static let header = ["verdict", "action", "ios", "format", "uti", "size", "dimensions", "path"]
    /// Columns aligned to the right (numbers).
    static let rightAligned: Set<Int> = [5]

    /// The files to show, in order.
    var rows: [AttachmentReport] = []
    private(set) var total = 0
    private(set) var counts: [AttachmentReport.Verdict: Int] = [:]
    /// Files iOS would refuse as they are.
    private(set) var refusedByIOS = 0
    /// Refusals by their group: the code and the word for the refusal.
    private(set) var reasons: [String: Int] = [:]

    var accepted: Int { counts[.accepted] ?? 0 }

    /// Counts `report` for the summary (shown or not).
    mutating func count(_ report: AttachmentReport) {
        total += 1
        counts[report.verdict, default: 0] += 1
        if report.iosErrorCode != nil { refusedByIOS += 1 }
        if let refusal = report.refusal {
            reasons["\(refusal.code.map { "\($0.rawValue) " } ?? "")\(refusal.kind.rawValue)", default: 0] += 1
        }
    }

    /// The header and one line per row, plus its detail lines; empty when there are no rows.
    func rendered() -> String {
        guard !rows.isEmpty else { return "" }
        let cells = rows.map(Self.cells)
        var widths = Self.header.map(\.count)
        for row in cells { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        var lines = [Self.line(Self.header, widths: widths)]
        for (report, row) in zip(rows, cells) {
            lines.append(Self.line(row, widths: widths))
            lines += Self.details(report)
        }
        return lines.joined(separator: "\n")
    }

    func summary() -> String {
        var text =
            "\(total) file\(total == 1 ? "" : "s"): \(counts[.accepted] ?? 0) accepted, \(counts[.transcode] ?? 0) transcode, \(counts[.rejected] ?? 0) rejected"
        if let failed = counts[.failed], failed > 0 { text += ", \(failed) unreadable" }
        if total > 0 {
            text += "\nas they are, iOS would take \(total - refusedByIOS) and refuse \(refusedByIOS)"
        }
        let top = reasons.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(5)
        if !top.isEmpty {
            text += "\ntop reasons for rejection:"
            for (reason, n) in top { text += "\n  \(n) x \(reason)" }
        }
        return text
    }

    static func cells(_ r: AttachmentReport) -> [String] {
        var dimensions = r.pixelSize.map { "\($0.width)x\($0.height)" } ?? "-"
        if let frames = r.frames, frames > 1 { dimensions += ", \(frames) frames" }
        let ios = r.iosErrorCode.map { "rejected \($0.rawValue)" } ?? "accepted"
        return [
            r.verdict.rawValue, r.action.rawValue, ios, r.format.rawValue, r.typeHint ?? "-", ByteSize.text(r.byteCount),
            dimensions, DisplayText.escaped(r.path ?? "-"),
        ]
    }

    /// The reason (with its UNErrorCode) and the warnings, indented under the row.
    static func details(_ r: AttachmentReport) -> [String] {
        var lines: [String] = []
        if let reason = r.reason {
            lines.append("  \(r.errorCode.map { "[\($0.rawValue)] " } ?? "")\(DisplayText.escaped(reason))")
        }
        for warning in r.warnings { lines.append("  warning: \(DisplayText.escaped(warning))") }
        return lines
    }

    /// Cells padded to `widths`, two spaces apart; the last column is not padded.
    static func line(_ cells: [String], widths: [Int]) -> String {
        var parts: [String] = []
        for (i, cell) in cells.enumerated() {
            let pad = String(repeating: " ", count: max(0, widths[i] - cell.count))
            if rightAligned.contains(i) {
                parts.append(pad + cell)
            } else {
                parts.append(i == cells.count - 1 ? cell : cell + pad)
            }
        }
        return parts.joined(separator: "  ")
    }
}
