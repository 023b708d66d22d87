import Testing
@testable import MCAP

/// CRC-32 against published check values and a bit-at-a-time reference, and `combine`.
struct CRC32Tests {
    /// The textbook bitwise CRC-32 (reflected 0xEDB88320), written independently of the table code.
    static func reference(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c >> 1) ^ (c & 1 == 0 ? 0 : 0xEDB8_8320) }
        }
        return ~c
    }

    @Test func knownVectors() {
        // The CRC catalogue's check value, and values zlib.crc32 gives.
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
        #expect(CRC32.checksum(Array("a".utf8)) == 0xE8B7_BE43)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
        #expect(CRC32.checksum([UInt8](repeating: 0, count: 32)) == 0x190A_55AD)
        #expect(CRC32.checksum([UInt8](repeating: 0xFF, count: 32)) == 0xFF6C_AB0B)
    }

    @Test func matchesBitwiseReferenceAtEveryLengthAndAlignment() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let data: [UInt8] = (0..<1100).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        // Every length 0…40 at every start 0…7 exercises the 8-byte loop, its tail and unaligned loads.
        for start in 0..<8 {
            for length in 0...40 {
                let slice = Array(data[start..<start + length])
                #expect(CRC32.checksum(slice) == Self.reference(slice), "start \(start), length \(length)")
            }
        }
        #expect(CRC32.checksum(data) == Self.reference(data))
        // Incremental updates in uneven pieces give the whole-buffer value.
        var crc = CRC32()
        var at = 0
        for piece in [1, 7, 8, 9, 100, 3, 972] { crc.update(Array(data[at..<at + piece])); at += piece }
        #expect(at == data.count)
        #expect(crc.value == Self.reference(data))
    }

    @Test func combineEqualsChecksumOfConcatenation() {
        let a = Array("chunk header bytes, then ".utf8)
        for length in [0, 1, 5, 8, 63, 64, 1000, 4097] {
            let b = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let combined = CRC32.combine(CRC32.checksum(a), CRC32.checksum(b), length: b.count)
            #expect(combined == Self.reference(a + b), "length \(length)")
        }
    }
}
