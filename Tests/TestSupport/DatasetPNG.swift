import Foundation
import Sensors

/// Writes 8-bit gray PNG files in pure Swift, for test fixtures: the image data is a zlib stream of
/// *stored* (uncompressed) deflate blocks, so no compressor is needed; chunks carry real CRC-32s.
public enum DatasetPNG {
    /// The PNG bytes of a gray image (`pixels.count == width * height`, row-major).
    public static func encodeGray(width: Int, height: Int, pixels: [UInt8]) -> [UInt8] {
        precondition(pixels.count == width * height, "DatasetPNG: pixel count mismatch")
        var raw: [UInt8] = []
        raw.reserveCapacity((width + 1) * height)
        for y in 0..<height {
            raw.append(0) // filter type None
            raw += pixels[(y * width)..<((y + 1) * width)]
        }
        var out = PNGHeader.signature
        var ihdr: [UInt8] = []
        ihdr += be32(UInt32(width)) + be32(UInt32(height))
        ihdr += [8, 0, 0, 0, 0] // bit depth 8, gray, deflate, adaptive filter, no interlace
        out += chunk("IHDR", ihdr)
        out += chunk("IDAT", zlibStored(raw))
        out += chunk("IEND", [])
        return out
    }

    /// A gray test image with a gradient and a checker pattern (textured, not flat).
    public static func testPattern(width: Int, height: Int, seed: Int = 0) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let checker = ((x / 2 + y / 2 + seed) % 2) * 100
                pixels[y * width + x] = UInt8((x * 7 + y * 3 + checker + seed * 13) % 256)
            }
        }
        return pixels
    }

    /// Writes a test-pattern PNG to `path`.
    public static func write(path: String, width: Int, height: Int, seed: Int = 0) throws {
        let bytes = encodeGray(width: width, height: height, pixels: testPattern(width: width, height: height, seed: seed))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeAndData = Array(type.utf8) + data
        return be32(UInt32(data.count)) + typeAndData + be32(PNGHeader.crc32(typeAndData))
    }

    /// A zlib stream (RFC 1950) of stored deflate blocks (RFC 1951, BTYPE 00) with its Adler-32.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, data.count - offset)
            let final: UInt8 = offset + n == data.count ? 1 : 0
            out.append(final)
            out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[offset..<(offset + n)]
            offset += n
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + be32(b << 16 | a)
    }
}
