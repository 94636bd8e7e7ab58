import Foundation
import PushAttach

/// The human-readable form of verify's output: a table with a header row, every column as wide
/// as its widest cell (nothing is cut), each file's reason and warnings on indented lines below
/// it, then a summary. Paths, reasons and warnings can hold text from outside (a file's name,
/// bytes quoted from it): they are escaped (`DisplayText`).
///
///     var table = VerifyTable()
///     table.count(report); table.rows.append(report)
///     print(table.rendered()); print(table.summary())
struct VerifyTable {
    /// `verdict` and `action`: what `prepare` will do (the plan it runs); the reason below a row
    /// says what iOS would do with the file as it is.
    static let header = ["verdict", "action", "format", "uti", "size", "dimensions", "path"]
    /// Columns aligned to the right (numbers).
    static let rightAligned: Set<Int> = [4]

    /// The files to show, in order.
    var rows: [AttachmentReport] = []
    private(set) var total = 0
    private(set) var counts: [String: Int] = [:]
    private(set) var reasons: [String: Int] = [:]

    var accepted: Int { counts["accepted"] ?? 0 }

    /// Counts `report` for the summary (shown or not).
    mutating func count(_ report: AttachmentReport) {
        total += 1
        counts[report.verdict.rawValue, default: 0] += 1
        if let reason = report.reason, report.verdict == .rejected {
            reasons[ReasonSummary.key(reason), default: 0] += 1
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
            "\(total) file\(total == 1 ? "" : "s"): \(counts["accepted"] ?? 0) accepted, \(counts["transcode"] ?? 0) transcode, \(counts["rejected"] ?? 0) rejected"
        let top = reasons.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(5)
        if !top.isEmpty {
            text += "\ntop reasons for rejection:"
            for (reason, n) in top { text += "\n  \(n) x \(DisplayText.escaped(reason))" }
        }
        return text
    }

    static func cells(_ r: AttachmentReport) -> [String] {
        var dimensions = r.pixelSize.map { "\($0.width)x\($0.height)" } ?? "-"
        if let frames = r.frames, frames > 1 { dimensions += ", \(frames) frames" }
        return [
            r.verdict.rawValue, r.action.rawValue, r.format.rawValue, r.typeHint ?? "-", formatBytes(r.byteCount), dimensions,
            DisplayText.escaped(r.path ?? "-"),
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

    static func formatBytes(_ n: Int) -> String {
        if n >= 1_000_000 { return String(format: "%.1f MB", Double(n) / 1e6) }
        if n >= 1_000 { return String(format: "%.1f kB", Double(n) / 1e3) }
        return "\(n) B"
    }
}

/// Groups reasons for the summary by their first clause, so per-file details don't split them.
enum ReasonSummary {
    static func key(_ reason: String) -> String {
        let cut = reason.firstIndex(where: { $0 == ":" || $0 == ";" }) ?? reason.endIndex
        return String(reason[..<cut])
    }
}
