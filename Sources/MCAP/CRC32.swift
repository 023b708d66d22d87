/// CRC-32 as MCAP, zlib and PNG use it (reflected polynomial 0xEDB88320, initial value and final XOR 0xFFFFFFFF).
///
/// Table-driven, sixteen bytes per step ("slicing-by-16"). `combine` joins the checksums of two consecutive byte
/// ranges without reading the bytes again (zlib's `crc32_combine`), so a writer can checksum each byte once
/// even where two checksums cover it (a chunk's records and the whole data section).
///
/// ```swift
/// var crc = CRC32()
/// crc.update(Array("123456789".utf8))
/// crc.value   // 0xCBF43926
/// ```
public struct CRC32: Sendable, Equatable {
    /// The checksum of the bytes given so far (0 for none).
    public private(set) var value: UInt32 = 0

    /// The checksum of no bytes.
    public init() {}

    /// A checksum that continues from `value` (the checksum of bytes given elsewhere).
    public init(value: UInt32) { self.value = value }

    /// The checksum of `bytes`.
    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// Adds `bytes` to the checksum.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds the bytes of `buffer` to the checksum.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard var p = buffer.baseAddress, buffer.count > 0 else { return }
        var n = buffer.count
        var c = ~value
        CRC32.tables.withUnsafeBufferPointer { t in
            let t = t.baseAddress!
            while n >= 16 {
                let w0 = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
                let w1 = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                let a = c ^ UInt32(truncatingIfNeeded: w0), b = UInt32(truncatingIfNeeded: w0 >> 32)
                let d = UInt32(truncatingIfNeeded: w1), e = UInt32(truncatingIfNeeded: w1 >> 32)
                c = t[15 * 256 + Int(a & 0xFF)] ^ t[14 * 256 + Int((a >> 8) & 0xFF)]
                    ^ t[13 * 256 + Int((a >> 16) & 0xFF)] ^ t[12 * 256 + Int(a >> 24)]
                    ^ t[11 * 256 + Int(b & 0xFF)] ^ t[10 * 256 + Int((b >> 8) & 0xFF)]
                    ^ t[9 * 256 + Int((b >> 16) & 0xFF)] ^ t[8 * 256 + Int(b >> 24)]
                    ^ t[7 * 256 + Int(d & 0xFF)] ^ t[6 * 256 + Int((d >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((d >> 16) & 0xFF)] ^ t[4 * 256 + Int(d >> 24)]
                    ^ t[3 * 256 + Int(e & 0xFF)] ^ t[2 * 256 + Int((e >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((e >> 16) & 0xFF)] ^ t[Int(e >> 24)]
                p += 16; n -= 16
            }
            while n >= 8 {
                let word = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
                let lo = c ^ UInt32(truncatingIfNeeded: word), hi = UInt32(truncatingIfNeeded: word >> 32)
                c = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((lo >> 16) & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
                    ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                p += 8; n -= 8
            }
            while n > 0 {
                c = t[Int((c ^ UInt32(p.load(as: UInt8.self))) & 0xFF)] ^ (c >> 8)
                p += 1; n -= 1
            }
        }
        value = ~c
    }

    /// The checksum of the bytes of `first` followed by `length` bytes whose checksum is `second`.
    public static func combine(_ first: UInt32, _ second: UInt32, length: Int) -> UInt32 {
        // zlib's method: appending n zero bits to a CRC register is a linear map over GF(2); build the map for
        // `length` zero bytes by repeated squaring of the one-zero-bit operator, apply it to `first`, add `second`.
        guard length > 0 else { return first }
        var odd = [UInt32](repeating: 0, count: 32)   // operator for one zero bit
        odd[0] = 0xEDB8_8320
        var row: UInt32 = 1
        for i in 1..<32 { odd[i] = row; row <<= 1 }
        var even = square(odd)                          // two zero bits
        odd = square(even)                              // four zero bits
        var crc = first, len = length
        repeat {
            even = square(odd)                          // first pass: one zero byte
            if len & 1 != 0 { crc = times(even, crc) }
            len >>= 1
            if len == 0 { break }
            odd = square(even)
            if len & 1 != 0 { crc = times(odd, crc) }
            len >>= 1
        } while len != 0
        return crc ^ second
    }

    private static func times(_ matrix: [UInt32], _ vector: UInt32) -> UInt32 {
        var sum: UInt32 = 0, v = vector, i = 0
        while v != 0 {
            if v & 1 != 0 { sum ^= matrix[i] }
            v >>= 1; i += 1
        }
        return sum
    }

    private static func square(_ matrix: [UInt32]) -> [UInt32] { matrix.map { times(matrix, $0) } }

    /// Sixteen 256-entry tables: `tables[k * 256 + b]` is the CRC register after byte b followed by k zero bytes.
    private static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 16 * 256)
        for b in 0..<256 {
            var c = UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            t[b] = c
        }
        for k in 1..<16 {
            for b in 0..<256 {
                let prev = t[(k - 1) * 256 + b]
                t[k * 256 + b] = t[Int(prev & 0xFF)] ^ (prev >> 8)
            }
        }
        return t
    }()
}
