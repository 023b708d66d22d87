import Foundation

/// Writes stream records as JSON Lines: one compact JSON object (sorted keys) per line, written straight to a
/// `FileHandle` (standard output by default) so each line reaches a pipe immediately (`print` is block-buffered).
public final class StreamWriter {
    private let handle: FileHandle
    private let encoder: JSONEncoder

    /// A writer to `handle` (default: standard output).
    public init(handle: FileHandle = .standardOutput) {
        self.handle = handle
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    /// The JSON line of a record, without the newline.
    public func encode(_ record: any StreamRecord) throws -> Data { try encoder.encode(record) }

    /// Writes one record and its newline.
    public func write(_ record: any StreamRecord) throws {
        var data = try encode(record)
        data.append(0x0A)
        try handle.write(contentsOf: data)
    }

    /// Writes records in order.
    public func write(_ records: [any StreamRecord]) throws {
        for r in records { try write(r) }
    }
}
