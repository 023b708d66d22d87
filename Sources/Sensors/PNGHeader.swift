import Foundation

/// A fast structural check of a PNG file, in pure Swift: the signature, the `IHDR` chunk (with its
/// CRC) and that the file ends with an `IEND` chunk. Reads 45 bytes of the file, not the pixels, so
/// a truncated or corrupt image is found in microseconds; full decoding happens at load time.
public struct PNGHeader: Equatable, Sendable {
    /// Image width and height from `IHDR`, pixels.
    public var width: Int, height: Int
    /// Bits per sample (1, 2, 4, 8 or 16).
    public var bitDepth: Int
    /// PNG colour type: 0 gray, 2 RGB, 3 palette, 4 gray + alpha, 6 RGBA.
    public var colorType: Int

    /// A header with these values.
    public init(width: Int, height: Int, bitDepth: Int, colorType: Int) {
        self.width = width; self.height = height; self.bitDepth = bitDepth; self.colorType = colorType
    }

    /// The 8-byte PNG signature.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Reads and checks the header of the PNG file at `path`.
    /// - Throws: `PNGHeaderError` saying what is wrong (unreadable, not a PNG, corrupt header, truncated).
    public static func read(path: String) throws -> PNGHeader {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw PNGHeaderError.unreadable }
        defer { try? handle.close() }
        let head: [UInt8]
        let size: UInt64
        let tail: [UInt8]
        do {
            head = [UInt8](try handle.read(upToCount: 33) ?? Data())
            size = try handle.seekToEnd()
            if size >= 45 {
                try handle.seek(toOffset: size - 12)
                tail = [UInt8](try handle.read(upToCount: 12) ?? Data())
            } else {
                tail = []
            }
        } catch {
            throw PNGHeaderError.unreadable
        }
        return try parse(head: head, tail: tail, fileSize: Int(size))
    }

    /// Checks the first 33 bytes (`head`) and last 12 bytes (`tail`) of a PNG file of `fileSize` bytes.
    static func parse(head: [UInt8], tail: [UInt8], fileSize: Int) throws -> PNGHeader {
        guard head.count >= 8, Array(head[0..<8]) == signature else {
            throw fileSize == 0 ? PNGHeaderError.empty : PNGHeaderError.notPNG
        }
        guard head.count == 33, fileSize >= 45 else { throw PNGHeaderError.truncated(fileSize: fileSize) }
        let length = be32(head, 8)
        guard length == 13, Array(head[12..<16]) == Array("IHDR".utf8) else { throw PNGHeaderError.corruptHeader("the first chunk is not a 13-byte IHDR") }
        guard crc32(head[12..<29]) == be32(head, 29) else { throw PNGHeaderError.corruptHeader("IHDR checksum does not match") }
        let width = Int(be32(head, 16)), height = Int(be32(head, 20))
        guard width > 0, height > 0 else { throw PNGHeaderError.corruptHeader("image size \(width)×\(height)") }
        let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        guard tail == iend else { throw PNGHeaderError.truncated(fileSize: fileSize) }
        return PNGHeader(width: width, height: height, bitDepth: Int(head[24]), colorType: Int(head[25]))
    }

    private static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    /// The CRC-32 (ISO 3309, as PNG and zlib's `crc32` compute it) of `bytes`.
    public static func crc32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    private static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}

/// What `PNGHeader.read` found wrong with a file.
public enum PNGHeaderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file cannot be opened or read.
    case unreadable
    /// The file is empty (0 bytes).
    case empty
    /// The file does not start with the PNG signature.
    case notPNG
    /// The `IHDR` chunk is missing, has a wrong checksum or an invalid size.
    case corruptHeader(String)
    /// The file ends before its `IEND` chunk (an interrupted copy or write).
    case truncated(fileSize: Int)

    public var description: String {
        switch self {
        case .unreadable: return "cannot read the image file"
        case .empty: return "empty image file (0 bytes)"
        case .notPNG: return "not a PNG file (wrong signature)"
        case .corruptHeader(let why): return "corrupt PNG header: \(why)"
        case .truncated(let size): return "truncated PNG (\(size) bytes, no IEND chunk at the end)"
        }
    }
}
