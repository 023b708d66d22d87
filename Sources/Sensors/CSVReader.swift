import Foundation

/// One data row of a CSV file: its 1-based line number and its fields, trimmed of blanks.
struct CSVRow {
    let line: Int
    let fields: [String]
}

/// The one line splitter for the text files WorldTrack reads (ASL CSVs, TUM and ASL trajectories, JSON
/// Lines streams): `#` (and optionally other marks) starts a comment line, blank lines are skipped,
/// `\r\n`, `\n` and `\r` line ends are all accepted, lines are trimmed of spaces and tabs.
///
/// Works on bytes (not `Character`s) so a 30 000-row IMU file reads in milliseconds.
enum CSVReader {
    /// The data rows of the file at `path`, or `nil` when the file cannot be read.
    static func rows(path: String) -> [CSVRow]? {
        var rows: [CSVRow] = []
        guard forEachRow(path: path, { rows.append($0) }) else { return nil }
        return rows
    }

    /// Calls `body` with each data row of the file at `path`, without keeping the rows (so a large
    /// file costs its bytes plus one row); `false` when the file cannot be read.
    @discardableResult
    static func forEachRow(path: String, _ body: (CSVRow) -> Void) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { return false }
        forEachRow(bytes: [UInt8](data), body)
        return true
    }

    /// The data rows of `text`.
    static func rows(text: String) -> [CSVRow] {
        var rows: [CSVRow] = []
        forEachRow(bytes: Array(text.utf8)) { rows.append($0) }
        return rows
    }

    /// Calls `body` with each data row of UTF-8 `bytes`.
    static func forEachRow(bytes: [UInt8], _ body: (CSVRow) -> Void) {
        forEachDataLine(bytes: bytes) { line, range in body(parseLine(bytes, range.lowerBound, range.upperBound, line)) }
    }

    /// Calls `body` with the 1-based number and the byte range (trimmed of spaces and tabs) of each line of
    /// `bytes` that is not blank and does not start with one of `commentMarks`.
    static func forEachDataLine(bytes: [UInt8], commentMarks: [UInt8] = [UInt8(ascii: "#")],
                                _ body: (Int, Range<Int>) -> Void) {
        var lineNumber = 0
        var start = 0
        let n = bytes.count
        while start <= n {
            var end = start
            while end < n, bytes[end] != 10, bytes[end] != 13 { end += 1 }
            lineNumber += 1
            var a = start, b = end
            while a < b, isBlank(bytes[a]) { a += 1 }
            while b > a, isBlank(bytes[b - 1]) { b -= 1 }
            if a < b, !commentMarks.contains(bytes[a]) { body(lineNumber, a..<b) }
            if end >= n { break }
            // "\r\n" is one line end.
            start = (bytes[end] == 13 && end + 1 < n && bytes[end + 1] == 10) ? end + 2 : end + 1
        }
    }

    /// The data lines of `text` (see ``forEachDataLine(bytes:commentMarks:_:)``) with their 1-based numbers.
    static func dataLines(_ text: String, commentMarks: [UInt8] = [UInt8(ascii: "#")]) -> [(Int, Substring)] {
        let bytes = Array(text.utf8)
        var lines: [(Int, Substring)] = []
        forEachDataLine(bytes: bytes, commentMarks: commentMarks) { line, range in
            lines.append((line, Substring(String(decoding: bytes[range], as: UTF8.self))))
        }
        return lines
    }

    private static func isBlank(_ b: UInt8) -> Bool { b == 32 || b == 9 }

    /// The fields of the (trimmed, non-comment) line `bytes[a..<b]`.
    private static func parseLine(_ bytes: [UInt8], _ a: Int, _ b: Int, _ line: Int) -> CSVRow {
        var fields: [String] = []
        var fieldStart = a
        var i = a
        while i <= b {
            if i == b || bytes[i] == UInt8(ascii: ",") {
                var fa = fieldStart, fb = i
                while fa < fb, isBlank(bytes[fa]) { fa += 1 }
                while fb > fa, isBlank(bytes[fb - 1]) { fb -= 1 }
                fields.append(String(decoding: bytes[fa..<fb], as: UTF8.self))
                fieldStart = i + 1
            }
            i += 1
        }
        return CSVRow(line: line, fields: fields)
    }
}
