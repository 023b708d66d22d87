/// A plain-text table with left-aligned columns, for human-readable command output.
struct OutputTable {
    private var rows: [[String]] = []
    /// Spaces before each line.
    var indent = 2

    /// A table whose first row is `header`.
    init(header: [String]) { rows.append(header) }

    mutating func add(_ row: [String]) { rows.append(row) }

    /// The table, one line per row, columns padded to their widest cell (trailing spaces trimmed).
    var text: String {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            var line = String(repeating: " ", count: indent)
            for (i, cell) in row.enumerated() {
                line += i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count + 2)
            }
            return line
        }.joined(separator: "\n")
    }
}
