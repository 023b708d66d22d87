import Foundation
import Testing
@testable import Imaging

@Suite struct CanvasTests {
    @Test func filledRectanglePolygonChangesExactlyItsPixels() throws {
        var image = GrayImage(width: 40, height: 30, fill: 0)
        try image.fillPolygon([SIMD2(10, 10), SIMD2(20, 10), SIMD2(20, 15), SIMD2(10, 15)], color: .white)
        for y in 0..<30 { for x in 0..<40 {
            let inside = (10...20).contains(x) && (10...15).contains(y)
            #expect(image[x, y] == (inside ? 255 : 0), "pixel (\(x), \(y))")
        } }
    }

    @Test func filledTriangleOnColorImage() throws {
        let background = BGRColor.rgb(10, 20, 30), fill = BGRColor.rgb(200, 100, 50)
        var image = ColorImage(width: 50, height: 40, fill: background)
        let a = SIMD2<Double>(5, 5), b = SIMD2<Double>(40, 5), c = SIMD2<Double>(5, 30)
        try image.fillPolygon([a, b, c], color: fill)
        // Signed distance to the hypotenuse b-c (positive inside).
        let n = SIMD2(-(c.y - b.y), c.x - b.x), len = (n * n).sum().squareRoot()
        for y in 0..<40 { for x in 0..<50 {
            let p = SIMD2(Double(x), Double(y))
            let dHyp = ((p - b) * n).sum() / len
            let inside = x >= 5 && y >= 5 && dHyp >= 0
            let color = image[x, y]
            #expect(color == fill || color == background)
            // Pixel centres more than half a pixel from the slanted edge are unambiguous.
            if abs(dHyp) > 0.5 || (x < 5 || y < 5) { #expect((color == fill) == inside, "pixel (\(x), \(y))") }
        } }
    }

    @Test func lineAndCircle() throws {
        var image = GrayImage(width: 60, height: 60, fill: 0)
        try image.drawLine(from: SIMD2(5, 20), to: SIMD2(30, 20), color: .white)
        for y in 0..<60 { for x in 0..<60 where y != 50 {
            #expect((image[x, y] == 255) == (y == 20 && (5...30).contains(x)))
        } }
        var disc = GrayImage(width: 60, height: 60, fill: 0)
        try disc.fillCircle(center: SIMD2(30, 30), radius: 10, color: .white)
        for y in 0..<60 { for x in 0..<60 {
            let r = (Double((x - 30) * (x - 30) + (y - 30) * (y - 30))).squareRoot()
            // The rasterised boundary lies within one pixel of the true circle.
            if r < 9 { #expect(disc[x, y] == 255) }
            if r > 11 { #expect(disc[x, y] == 0) }
        } }
    }

    @Test func grayCanvasDrawsLuma() throws {
        var image = GrayImage(width: 10, height: 10, fill: 0)
        try image.fillRectangle(from: SIMD2(0, 0), to: SIMD2(9, 9), color: .rgb(255, 0, 0))
        #expect(Set(image.pixels) == [BGRColor.rgb(255, 0, 0).luminance])
        #expect(BGRColor.rgb(255, 0, 0).luminance == 76)
    }

    @Test func textStaysInItsBox() throws {
        var image = ColorImage(width: 200, height: 60, fill: .black)
        let size = try ColorImage.textSize("WorldTrack 42", scale: 0.6, thickness: 1)
        #expect(size.width > 50 && size.height > 5)
        try image.drawText("WorldTrack 42", at: SIMD2(10, 40), scale: 0.6, color: .yellow)
        var changed = 0
        for y in 0..<60 { for x in 0..<200 where image[x, y] != .black {
            changed += 1
            // Antialiasing may touch one pixel around the glyph box.
            #expect(x >= 9 && x <= 11 + size.width && y >= 39 - size.height && y <= 41 + size.baseline)
        } }
        #expect(changed > 50)
    }

    @Test func rejectsBadArguments() {
        var image = GrayImage(width: 10, height: 10)
        #expect(throws: ImagingError.self) { try image.drawLine(from: SIMD2(.nan, 0), to: SIMD2(3, 3), color: .white) }
        #expect(throws: ImagingError.self) { try image.drawLine(from: SIMD2(0, 0), to: SIMD2(3, 3), color: .white, thickness: 0) }
        #expect(throws: ImagingError.self) { try image.fillPolygon([SIMD2(0, 0), SIMD2(3, 3)], color: .white) }
        #expect(throws: ImagingError.self) { try image.drawPolyline([SIMD2(0, 0)], color: .white) }
        // Shapes past the border are clipped, not an error.
        #expect(throws: Never.self) { try image.drawLine(from: SIMD2(-50, -50), to: SIMD2(50, 50), color: .white) }
        #expect(image[5, 5] == 255)
        var empty = ColorImage(width: 0, height: 0)
        #expect(throws: ImagingError.self) { try empty.drawCircle(center: .zero, radius: 1, color: .red) }
    }

    @Test func colorPlotWritesPNG() throws {
        var plot = ColorImage(width: 64, height: 48, fill: .white)
        try plot.drawPolyline([SIMD2(2, 40), SIMD2(20, 10), SIMD2(40, 30), SIMD2(60, 5)], color: .blue, thickness: 2, antialiased: true)
        try plot.drawRectangle(from: SIMD2(1, 1), to: SIMD2(62, 46), color: .black)
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("plot.png").path
        try ImageCodec.writePNG(plot, to: path)
        #expect(try ImageCodec.decodeColor(contentsOf: path) == plot)
    }
}
