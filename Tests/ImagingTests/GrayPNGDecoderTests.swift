import Foundation
import Testing
@testable import Imaging

/// The fast grayscale PNG decoder behind `ImageCodec.decodeGray` against libpng called as OpenCV's decoder called it
/// (the reference, `decodeGrayWithLibpng`; `CodecReferenceTests` ties that path to OpenCV's own results) and against
/// known pixels.
@Suite struct GrayPNGDecoderTests {
    /// 8-bit images with every PNG filter type (None, Sub, Up, Average, Paeth) decode to the pixels written,
    /// exactly as libpng decodes them.
    /// Encodes `samples` once per filter list (the row filters cycle through it) and expects our decoder to give
    /// `expected`, and the same pixels as the libpng path.
    func expectEveryFilterDecodes(_ samples: [UInt16], width: Int, height: Int, bitDepth: UInt8, to expected: GrayImage,
                                  filters: [[UInt8]]) throws {
        for f in filters {
            let png = PNGWriter.gray(width: width, height: height, samples: samples, bitDepth: bitDepth, filters: f)
            let fast = try ImageCodec.decodeGray(data: png)
            #expect(fast == expected, "filters \(f)")
            #expect(fast == (try ImageCodec.decodeGrayWithLibpng(data: png)), "filters \(f)")
        }
    }

    @Test func eightBitEveryFilterMatchesLibpng() throws {
        let (w, h) = (53, 37)
        let values = SyntheticImages.quantise(SyntheticImages.texture(width: w, height: h, seed: 11), width: w, height: h)
        let samples = values.pixels.map { UInt16($0) }
        try expectEveryFilterDecodes(samples, width: w, height: h, bitDepth: 8, to: values,
                                     filters: [[0], [1], [2], [3], [4], [0, 1, 2, 3, 4]])
    }

    /// 16-bit images (TUM-VI's format) decode to the high byte of each sample, as the libpng path (OpenCV's
    /// png_set_strip_16) does; the samples are chosen so that rounding instead of truncating would differ (low byte ≥ 128).
    @Test func sixteenBitKeepsTheHighByteLikeLibpng() throws {
        let (w, h) = (41, 29)
        var rng = SyntheticImages.LCG(seed: 5)
        let samples = (0..<(w * h)).map { _ in UInt16(truncatingIfNeeded: rng.next() >> 20) }
        let expected = GrayImage(width: w, height: h, pixels: samples.map { UInt8($0 >> 8) })
        #expect(samples.contains { $0 & 0xFF >= 128 })
        try expectEveryFilterDecodes(samples, width: w, height: h, bitDepth: 16, to: expected,
                                     filters: [[0], [1], [2], [3], [4], [4, 3, 2, 1, 0]])
    }

    /// Compressed PNGs (our libpng encoder) decode to the image that was encoded.
    @Test func compressedImagesRoundTrip() throws {
        let texture = SyntheticImages.quantise(SyntheticImages.texture(width: 160, height: 90, seed: 3), width: 160, height: 90)
        let encoded = try ImageCodec.encodePNG(texture)
        #expect(try ImageCodec.decodeGray(data: encoded) == texture)
    }

    /// Real camera frames (EuRoC, written by another encoder with mixed filters) decode exactly as the libpng
    /// path decodes them.
    @Test(.enabled(if: TestData.eurocFramesArePresent, "needs ../shared/datasets/euroc-v101-micro"))
    func realImagesMatchLibpng() throws {
        let frames = try #require(TestData.eurocCam0Frames())
        for path in frames.prefix(3) {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let reference = try ImageCodec.decodeGrayWithLibpng(data: bytes)
            #expect(try ImageCodec.decodeGray(data: bytes) == reference, "\(path)")
            #expect(try ImageCodec.decodeGray(contentsOf: path) == reference, "\(path)")
        }
    }

    /// Data the fast decoder does not take (a bad IDAT checksum, an unknown filter type) still fails
    /// the way libpng fails, with a decode error rather than a wrong image.
    @Test func corruptChecksumsAndFiltersThrow() throws {
        let samples = [UInt16](repeating: 77, count: 16 * 8)
        var png = PNGWriter.gray(width: 16, height: 8, samples: samples, bitDepth: 8, filters: [0])
        #expect(try ImageCodec.decodeGray(data: png).pixels.allSatisfy { $0 == 77 })
        png[png.count - 13] ^= 0x01 // last byte of the IDAT chunk's CRC
        #expect(throws: ImagingError.self) { try ImageCodec.decodeGray(data: png) }
        let badFilter = PNGWriter.gray(width: 16, height: 8, samples: samples, bitDepth: 8, filters: [7])
        #expect(throws: ImagingError.self) { try ImageCodec.decodeGray(data: badFilter) }
    }
}

/// Writes grayscale PNGs with chosen filter types per row (cycled), zlib "stored" (uncompressed) blocks,
/// so the tests control every byte the decoder sees.
enum PNGWriter {
    static func gray(width: Int, height: Int, samples: [UInt16], bitDepth: UInt8, filters: [UInt8]) -> [UInt8] {
        let bpp = bitDepth == 16 ? 2 : 1
        let lineBytes = width * bpp
        var raw: [UInt8] = []
        var prior = [UInt8](repeating: 0, count: lineBytes)
        for y in 0..<height {
            var line = [UInt8](); line.reserveCapacity(lineBytes)
            for x in 0..<width {
                let s = samples[y * width + x]
                if bpp == 2 { line.append(UInt8(s >> 8)); line.append(UInt8(s & 0xFF)) } else { line.append(UInt8(s)) }
            }
            let f = filters[y % filters.count]
            raw.append(f)
            for i in 0..<lineBytes {
                let a = i >= bpp ? Int(line[i - bpp]) : 0, b = Int(prior[i]), c = i >= bpp ? Int(prior[i - bpp]) : 0
                let predictor: Int
                switch f {
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: predictor = 0
                }
                raw.append(UInt8(truncatingIfNeeded: Int(line[i]) - predictor))
            }
            prior = line
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, raw.count - offset)
            zlib.append(offset + n == raw.count ? 1 : 0)
            zlib += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            zlib += raw[offset..<(offset + n)]
            offset += n
        } while offset < raw.count
        zlib += bigEndian(adler32(raw))
        var ihdr = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        ihdr += [bitDepth, 0, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + payload
        return bigEndian(UInt32(payload.count)) + body + bigEndian(crc32(body))
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~crc
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for v in bytes { a = (a + UInt32(v)) % 65521; b = (b + a) % 65521 }
        return (b << 16) | a
    }
}
