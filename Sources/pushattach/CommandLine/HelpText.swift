/// Renders a `CommandDoc` as `--help` text: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, notes,
/// EXIT STATUS and EXAMPLES, with prose wrapped to `width` columns.
///
///     print(HelpText.render(PrepareCommand.doc))
enum HelpText {
    static let width = 100
    /// Labels longer than this get a line of their own, their text starting on the next.
    static let widestInlineLabel = 22

    static func render(_ doc: CommandDoc) -> String {
        var sections = [wrap("OVERVIEW: " + doc.summary, width: width)]
        sections += doc.overview.map { block($0) }
        sections.append("USAGE: \(doc.usage)")
        if !doc.arguments.isEmpty {
            sections.append("ARGUMENTS:\n" + table(doc.arguments.map { ($0.name, $0.help) }))
        }
        sections.append("OPTIONS:\n" + table(doc.options.map { ($0.label, $0.helpWithDefault) }))
        sections += doc.notes.map { block($0) }
        if let exitStatus = doc.exitStatus { sections.append(wrap("EXIT STATUS: " + exitStatus, width: width)) }
        if !doc.examples.isEmpty {
            sections.append("EXAMPLES:\n" + doc.examples.map { "  " + $0 }.joined(separator: "\n"))
        }
        return sections.joined(separator: "\n\n")
    }

    static func block(_ block: TextBlock) -> String {
        switch block {
        case .paragraph(let text): wrap(text, width: width)
        case .definitions(let items): table(items.map { ($0.term, $0.text) }, indent: 2, gap: 2)
        }
    }

    /// Two columns: each label, then its text wrapped beside it.
    static func table(_ rows: [(label: String, text: String)], indent: Int = 2, gap: Int = 3) -> String {
        let fitting = rows.map { $0.label.count }.filter { $0 <= widestInlineLabel }
        let column = indent + (fitting.max() ?? widestInlineLabel) + gap
        let lead = String(repeating: " ", count: indent)
        let hang = String(repeating: " ", count: column)
        var lines: [String] = []
        for row in rows {
            let text = wrap(row.text, width: width - column).split(separator: "\n", omittingEmptySubsequences: false)
            var first = lead + row.label
            if first.count + 1 > column {
                lines.append(first)
                first = hang
            } else {
                first += String(repeating: " ", count: column - first.count)
            }
            for (i, line) in text.enumerated() { lines.append((i == 0 ? first : hang) + line) }
        }
        return lines.joined(separator: "\n")
    }

    /// `text` filled to `width` columns, breaking at spaces; a word longer than a line stays whole.
    static func wrap(_ text: String, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}
