import Foundation
import Testing
@testable import Imaging

/// The PNG/JPEG decoder (libpng and libjpeg, called directly since the C layer stopped linking OpenCV's imgcodecs)
/// against OpenCV 4.6's own results. The tests cannot link imgcodecs, so the reference is a committed set,
/// `Tests/CodecReference`: 46 small images covering what datasets use (PNG gray 1/2/4/8/16-bit, gray+alpha,
/// RGB/RGBA 8/16-bit, palettes with and without transparency, interlaced and not; gray, 4:2:0, 4:4:4, progressive
/// and CMYK JPEGs) and `expected.txt`, the size and an FNV-1a 64 checksum of the pixels `cv::imdecode` gave for each
/// with `IMREAD_GRAYSCALE` and `IMREAD_COLOR`. `Tools/codec_reference.cpp` generated both with OpenCV 4.6.0 (it
/// also compares every decode and the encoders' bytes with imgcodecs directly; rerun it where imgcodecs is
/// installed).
@Suite struct CodecReferenceTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("CodecReference")

    struct Expectation { let file: String, channels: Int, width: Int, height: Int, checksum: UInt64 }

    static func expectations() throws -> [Expectation] {
        let text = try String(contentsOf: folder.appendingPathComponent("expected.txt"), encoding: .utf8)
        return try text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let f = line.split(separator: " ").map(String.init)
            guard f.count == 5, let c = Int(f[1]), let w = Int(f[2]), let h = Int(f[3]), let sum = UInt64(f[4], radix: 16)
            else { throw ImagingError.invalidArgument(message: "bad line in expected.txt: \(line)") }
            return Expectation(file: f[0], channels: c, width: w, height: h, checksum: sum)
        }
    }

    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return h
    }

    func bytes(_ file: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent(file)))
    }

    /// Every reference image decodes, to gray and to BGR, to exactly OpenCV's pixels — through the public decoder
    /// (fast path where it applies) and through the libpng/libjpeg path alone.
    @Test func decodesToOpenCVsPixels() throws {
        let all = try Self.expectations()
        #expect(all.count == 92) // 46 images × (gray, BGR)
        for kind in ["palette1", "palette8-trns", "gray2", "gray16", "rgba16", "interlaced", "grayalpha8", ".jpg", "cmyk", "progressive"] {
            #expect(all.contains { $0.file.contains(kind) }, "the set covers \(kind)")
        }
        for e in all {
            let data = try bytes(e.file)
            if e.channels == 1 {
                for (path, image) in [("decodeGray", try ImageCodec.decodeGray(data: data)),
                                      ("libpng/libjpeg path", try ImageCodec.decodeGrayWithLibpng(data: data))] {
                    #expect(image.width == e.width && image.height == e.height, "\(e.file) \(path)")
                    #expect(Self.fnv1a(image.pixels) == e.checksum, "\(e.file) gray \(path): pixels differ from OpenCV's")
                }
            } else {
                let image = try ImageCodec.decodeColor(data: data)
                #expect(image.width == e.width && image.height == e.height, "\(e.file)")
                #expect(Self.fnv1a(image.pixels) == e.checksum, "\(e.file) BGR: pixels differ from OpenCV's")
            }
        }
    }

    /// Colour decoded as gray is libpng's BT.601 luma of the colour decode (OpenCV's png_set_rgb_to_gray(0.299, 0.587)
    /// weights, 15-bit fixed point), not a different conversion: within one level of `GrayImage(luminanceOf:)`.
    @Test func colourToGrayIsTheLumaOfTheColourDecode() throws {
        for file in ["png-rgb8.png", "png-rgba8-interlaced.png", "png-palette8.png", "png-rgb16.png"] {
            let data = try bytes(file)
            let gray = try ImageCodec.decodeGray(data: data), color = try ImageCodec.decodeColor(data: data)
            let luma = GrayImage(luminanceOf: color)
            #expect(zip(gray.pixels, luma.pixels).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "\(file)")
        }
    }

    /// Cut or damaged reference images fail with a decode error (or decode, when the damage is in a part the decoder
    /// does not need), never crash; the fast path's pre-check is not involved on the libpng path.
    @Test func damagedImagesFailWithADecodeError() throws {
        var rng = SyntheticImages.LCG(seed: 17)
        var failures = 0
        for e in try Self.expectations() where e.channels == 1 {
            let original = try bytes(e.file)
            for trial in 0..<12 {
                var damaged = original
                if trial % 3 == 0 {
                    damaged = Array(original.prefix(8 + Int((rng.next() >> 33) % UInt64(original.count - 8))))
                } else {
                    for _ in 0..<(1 + Int((rng.next() >> 33) % 6)) {
                        damaged[8 + Int((rng.next() >> 33) % UInt64(original.count - 8))] ^= UInt8(truncatingIfNeeded: (rng.next() >> 40) | 1)
                    }
                }
                for decode in [{ try ImageCodec.decodeGray(data: $0) }, { try ImageCodec.decodeGrayWithLibpng(data: $0) },
                               { (d: [UInt8]) in GrayImage(luminanceOf: try ImageCodec.decodeColor(data: d)) }] as [([UInt8]) throws -> GrayImage] {
                    do {
                        let image = try decode(damaged)
                        #expect(image.pixels.count == image.width * image.height)
                    } catch ImagingError.decode(_, let message) {
                        #expect(!message.isEmpty)
                        failures += 1
                    }
                }
            }
        }
        #expect(failures > 1000)
    }

    /// Formats other than PNG and JPEG are refused with a message that says so.
    @Test func otherFormatsAreRefusedClearly() throws {
        let gif = Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 40)
        let bmp = Array("BM".utf8) + [UInt8](repeating: 0, count: 60)
        for data in [gif, bmp, [0x00, 0x01, 0x02]] {
            do {
                _ = try ImageCodec.decodeGray(data: data)
                Issue.record("decoded a non-PNG/JPEG")
            } catch ImagingError.decode(_, let message) {
                #expect(message.contains("unsupported image format (PNG and JPEG are read)"), "\(message)")
            }
        }
    }

    /// The encoders write files that decode back (PNG exactly, JPEG closely) and carry the formats' headers;
    /// colour JPEG keeps the channel order.
    @Test func encodersRoundTrip() throws {
        var color = ColorImage(width: 48, height: 32, fill: .black)
        for y in 0..<32 { for x in 0..<48 { color[x, y] = BGRColor(b: UInt8(x * 5), g: UInt8(y * 7), r: UInt8(200 - x)) } }
        let png = try ImageCodec.encodePNG(color)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(try ImageCodec.decodeColor(data: png) == color)
        let jpeg = try ImageCodec.encodeJPEG(color, quality: 95)
        #expect(Array(jpeg.prefix(2)) == [0xFF, 0xD8] && Array(jpeg.suffix(2)) == [0xFF, 0xD9])
        let back = try ImageCodec.decodeColor(data: jpeg)
        let error = zip(back.pixels, color.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +) / color.pixels.count
        #expect(error <= 3)
        #expect(throws: ImagingError.self) { try ImageCodec.encodeJPEG(color, quality: 0) }
    }
}
