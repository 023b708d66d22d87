import Foundation
import StreamFormat
#if canImport(Glibc)
import Glibc
#endif

/// Why a ``StreamWriter`` (or another line writer of a run) could not write.
public enum StreamWriteError: Error, Equatable, CustomStringConvertible {
    /// The reader closed its end (`EPIPE`): `… | head -1`, or a `--pipe` program that exited.
    /// Only reported when `SIGPIPE` is ignored (`worldtrack run` ignores it); otherwise the process is killed.
    case readerGone
    /// Any other write error (`errno` and its text), e.g. a full disk.
    case failed(errno: Int32, message: String)

    /// A one-line message.
    public var description: String {
        switch self {
        case .readerGone: return "the reader closed its end of the pipe"
        case let .failed(code, message): return "write failed: \(message) (errno \(code))"
        }
    }
}

/// Writes stream records as JSON Lines: one compact JSON object (sorted keys) per line, written straight to a
/// file descriptor (standard output by default) so each line reaches a pipe immediately (`print` is block-buffered).
///
/// Each line goes out in one `write(2)` (looping only on short writes), so a reader sees whole lines. A closed
/// reader throws ``StreamWriteError/readerGone`` (when `SIGPIPE` is ignored), any other failure
/// ``StreamWriteError/failed(errno:message:)`` — never a raw Foundation error.
public final class StreamWriter {
    private let fd: Int32
    private let handle: FileHandle?
    private let encoder: JSONEncoder

    /// A writer to `handle` (default: standard output). The handle is kept alive as long as the writer.
    public init(handle: FileHandle = .standardOutput) {
        self.handle = handle
        fd = handle.fileDescriptor
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    /// Called with each record and its JSON line (without the newline) once the line is written: a second
    /// destination for the same bytes (`run --mcap` records them in its file without encoding them again).
    public var onLine: ((any StreamRecord, Data) -> Void)?

    /// The JSON line of a record, without the newline.
    public func encode(_ record: any StreamRecord) throws -> Data { try encoder.encode(record) }

    /// Writes one record and its newline.
    public func write(_ record: any StreamRecord) throws {
        var data = try encode(record)
        data.append(0x0A)
        try data.withUnsafeBytes { try FileDescriptorWriter.writeAll(fd: fd, $0) }
        onLine?(record, data.prefix(data.count - 1))
    }

    /// Writes one line as given (already encoded, without its newline) and a newline, in one `write(2)`.
    public func write(line: Data) throws {
        var data = line
        data.append(0x0A)
        try data.withUnsafeBytes { try FileDescriptorWriter.writeAll(fd: fd, $0) }
    }

    /// Writes records in order.
    public func write(_ records: [any StreamRecord]) throws {
        for r in records { try write(r) }
    }
}

/// `write(2)` of a whole buffer to a file descriptor, retrying on `EINTR` and short writes; errors are typed.
public enum FileDescriptorWriter {
    /// Writes every byte of `bytes` to `fd`.
    /// - Throws: ``StreamWriteError/readerGone`` on `EPIPE`, ``StreamWriteError/failed(errno:message:)`` otherwise.
    public static func writeAll(fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(fd, base, left)
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EPIPE { throw StreamWriteError.readerGone }
                throw StreamWriteError.failed(errno: code, message: String(cString: strerror(code)))
            }
            left -= n
            base += n
        }
    }
}
