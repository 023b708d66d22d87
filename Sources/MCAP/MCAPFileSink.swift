import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The file an ``MCAPWriter`` writes: `write(2)` straight to a descriptor (nothing buffered in user space, so
/// what was written survives the process), the byte position, and the running CRC of the data section.
final class MCAPFileSink {
    let path: String
    private var fd: Int32
    /// Bytes written so far (the offset of the next byte).
    private(set) var position: UInt64 = 0
    /// CRC-32 of every byte written while `checksumming` (the data section, from the leading magic).
    var dataCRC = CRC32()
    var checksumming = true

    /// Creates the file: refuses an existing one unless `replace` (which truncates it).
    init(path: String, replace: Bool) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (replace ? O_TRUNC : O_EXCL), 0o644)
        if fd < 0 {
            let code = errno
            let reason = code == EEXIST ? "it exists" : String(cString: strerror(code))
            throw MCAPError.cannotCreate(path: path, reason: reason, exists: code == EEXIST)
        }
    }

    /// Writes all of `bytes`, retrying on `EINTR` and short writes.
    func write(_ bytes: UnsafeRawBufferPointer, checksum: Bool = true) throws {
        guard fd >= 0 else { throw MCAPError.closed }
        if checksumming && checksum { dataCRC.update(bytes) }
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(fd, base, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw MCAPError.writeFailed(path: path, reason: String(cString: strerror(errno)))
            }
            left -= n; base += n
        }
        position += UInt64(bytes.count)
    }

    func write(_ bytes: [UInt8], checksum: Bool = true) throws {
        try bytes.withUnsafeBytes { try write($0, checksum: checksum) }
    }

    /// Closes the descriptor (once).
    func close() throws {
        guard fd >= 0 else { return }
        let result = Glibc.close(fd)
        fd = -1
        if result != 0 { throw MCAPError.writeFailed(path: path, reason: String(cString: strerror(errno))) }
    }

    deinit { if fd >= 0 { _ = Glibc.close(fd) } }
}
