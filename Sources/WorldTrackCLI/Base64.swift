/// Standard base64 (RFC 4648 alphabet, `=` padding), written straight into a caller's buffer: JSON channels carry
/// byte fields (images, point data) as base64, and an image's few hundred kilobytes need no intermediate copy.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Characters the encoding of `count` bytes takes.
    static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// The two characters of every 12-bit value, first character in the low byte.
    private static let pairs: [UInt16] = (0..<4096).map { UInt16(alphabet[$0 >> 6]) | UInt16(alphabet[$0 & 63]) << 8 }

    /// Writes the encoding of `source` into `destination`, which must hold exactly `encodedCount(source.count)` bytes.
    static func encode(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer) {
        precondition(destination.count == encodedCount(source.count))
        guard let s = source.baseAddress, let d = destination.baseAddress else { return }
        pairs.withUnsafeBufferPointer { t in
            let t = t.baseAddress!
            var i = 0, o = 0
            let n = source.count
            while i + 3 <= n {
                let v = Int(s.load(fromByteOffset: i, as: UInt8.self)) << 16
                    | Int(s.load(fromByteOffset: i + 1, as: UInt8.self)) << 8
                    | Int(s.load(fromByteOffset: i + 2, as: UInt8.self))
                d.storeBytes(of: t[v >> 12].littleEndian, toByteOffset: o, as: UInt16.self)
                d.storeBytes(of: t[v & 0xFFF].littleEndian, toByteOffset: o + 2, as: UInt16.self)
                i += 3; o += 4
            }
            let left = n - i
            guard left > 0 else { return }
            var v = Int(s.load(fromByteOffset: i, as: UInt8.self)) << 16
            if left == 2 { v |= Int(s.load(fromByteOffset: i + 1, as: UInt8.self)) << 8 }
            d.storeBytes(of: alphabet[v >> 18], toByteOffset: o, as: UInt8.self)
            d.storeBytes(of: alphabet[(v >> 12) & 63], toByteOffset: o + 1, as: UInt8.self)
            d.storeBytes(of: left == 2 ? alphabet[(v >> 6) & 63] : UInt8(ascii: "="), toByteOffset: o + 2, as: UInt8.self)
            d.storeBytes(of: UInt8(ascii: "="), toByteOffset: o + 3, as: UInt8.self)
        }
    }

    /// The encoding of `bytes` as a string.
    static func encode(_ bytes: [UInt8]) -> String {
        let count = encodedCount(bytes.count)
        return String(unsafeUninitializedCapacity: count) { out in
            bytes.withUnsafeBytes { encode($0, into: UnsafeMutableRawBufferPointer(out)) }
            return count
        }
    }
}
