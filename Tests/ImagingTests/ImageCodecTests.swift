import Foundation
import Testing
@testable import Imaging

@Suite struct ImageCodecTests {
    let texture = SyntheticImages.quantise(SyntheticImages.texture(width: 97, height: 61, seed: 7), width: 97, height: 61)

    @Test func grayPNGRoundTripIsExact() throws {
        let bytes = try ImageCodec.encodePNG(texture)
        #expect(Array(bytes.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        let decoded = try ImageCodec.decodeGray(data: bytes)
        #expect(decoded == texture)
    }

    @Test func grayPNGFileRoundTripIsExact() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("t.png").path
        try ImageCodec.writePNG(texture, to: path)
        #expect(try ImageCodec.decodeGray(contentsOf: path) == texture)
    }

    @Test func colorPNGRoundTripIsExact() throws {
        var color = ColorImage(width: 33, height: 21, fill: .black)
        for y in 0..<21 { for x in 0..<33 { color[x, y] = BGRColor(b: UInt8(x * 7), g: UInt8(y * 11), r: UInt8((x * y) % 256)) } }
        let decoded = try ImageCodec.decodeColor(data: try ImageCodec.encodePNG(color))
        #expect(decoded == color)
        // Decoding the colour PNG as gray gives the BT.601 luma (OpenCV rounds in fixed point: ±1).
        let gray = try ImageCodec.decodeGray(data: try ImageCodec.encodePNG(color))
        let expected = GrayImage(luminanceOf: color)
        #expect(zip(gray.pixels, expected.pixels).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
    }

    @Test func truncatedPNGThrowsDecodeError() throws {
        let bytes = try ImageCodec.encodePNG(texture)
        for cut in [bytes.count - 1, bytes.count - 12, bytes.count / 2, 40, 9] {
            #expect(throws: ImagingError.self) { try ImageCodec.decodeGray(data: Array(bytes.prefix(cut))) }
            do {
                _ = try ImageCodec.decodeGray(data: Array(bytes.prefix(cut)))
            } catch let ImagingError.decode(path, message) {
                #expect(path == nil)
                #expect(!message.isEmpty)
            }
        }
    }

    @Test func truncatedPNGFileNamesThePath() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("cut.png").path
        let bytes = try ImageCodec.encodePNG(texture)
        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: path))
        do {
            _ = try ImageCodec.decodeGray(contentsOf: path)
            Issue.record("a truncated PNG decoded")
        } catch let error as ImagingError {
            guard case let .decode(errorPath, _) = error else { Issue.record("wrong error \(error)"); return }
            #expect(errorPath == path)
            #expect(error.description.contains(path))
        }
    }

    @Test func corruptPNGDataThrows() throws {
        var bytes = try ImageCodec.encodePNG(texture)
        // Flip bytes inside the compressed image data (after the header chunk): CRC/zlib failure.
        for i in 60..<80 { bytes[i] ^= 0x5A }
        #expect(throws: ImagingError.self) { try ImageCodec.decodeGray(data: bytes) }
    }

    @Test func jpegDecodesCloseAndTruncatedJPEGThrows() throws {
        let bytes = try ImageCodec.encodeJPEG(texture, quality: 95)
        #expect(Array(bytes.prefix(2)) == [0xFF, 0xD8])
        let decoded = try ImageCodec.decodeGray(data: bytes)
        #expect(decoded.width == texture.width && decoded.height == texture.height)
        // Quality 95 on a smooth texture: mean absolute error around 1 intensity level.
        let mae = zip(decoded.pixels, texture.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +) / texture.pixels.count
        #expect(mae <= 2)
        // libjpeg pads a truncated scan with gray and only warns; the codec must refuse it.
        for cut in [bytes.count - 2, bytes.count * 2 / 3, bytes.count / 3] {
            #expect(throws: ImagingError.self) { try ImageCodec.decodeGray(data: Array(bytes.prefix(cut))) }
        }
        #expect(throws: ImagingError.self) { try ImageCodec.encodeJPEG(texture, quality: 0) }
    }

    @Test func garbageAndEmptyDataThrow() {
        var rng = SyntheticImages.LCG(seed: 3)
        let garbage = (0..<1000).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 32) }
        #expect(throws: ImagingError.self) { try ImageCodec.decodeGray(data: garbage) }
        #expect(throws: ImagingError.self) { try ImageCodec.decodeGray(data: []) }
        #expect(throws: ImagingError.self) { try ImageCodec.decodeColor(data: [0x89, 0x50, 0x4E, 0x47]) }
    }

    @Test func missingFileThrowsIOErrorWithPath() {
        let path = "/nonexistent-dir/none.png"
        do {
            _ = try ImageCodec.decodeGray(contentsOf: path)
            Issue.record("a missing file decoded")
        } catch let error as ImagingError {
            #expect(error == .fileIO(path: path, message: "cannot open: No such file or directory"))
        } catch { Issue.record("unexpected error \(error)") }
    }

    @Test func directoryAndEmptyFileThrow() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(throws: ImagingError.fileIO(path: dir.path, message: "cannot read: Is a directory")) {
            try ImageCodec.decodeGray(contentsOf: dir.path)
        }
        let empty = dir.appendingPathComponent("empty.png").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(throws: ImagingError.decode(path: empty, message: "empty image data")) {
            try ImageCodec.decodeGray(contentsOf: empty)
        }
    }

    @Test func writeToUnwritablePathThrowsIOError() {
        #expect(throws: ImagingError.self) { try ImageCodec.writePNG(texture, to: "/nonexistent-dir/out.png") }
        #expect(throws: ImagingError.self) { try ImageCodec.encodePNG(GrayImage(width: 0, height: 0)) }
    }

    @Test(.enabled(if: TestData.eurocFramesArePresent, "needs ../shared/datasets/euroc-v101-micro"))
    func decodesEuRoCFrame() throws {
        let frames = try #require(TestData.eurocCam0Frames())
        let image = try ImageCodec.decodeGray(contentsOf: frames[0])
        #expect(image.width == 752 && image.height == 480)
        // A real indoor frame is neither blank nor saturated.
        let mean = image.pixels.reduce(0) { $0 + Int($1) } / image.pixels.count
        #expect(mean > 20 && mean < 235)
    }
}
