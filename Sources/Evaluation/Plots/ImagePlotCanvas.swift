import Foundation
import Imaging

/// A ``PlotCanvas`` over Imaging's colour image drawing (OpenCV through the C layer), for PNG plots.
public struct ImagePlotCanvas: PlotCanvas {
    /// The image drawn so far.
    public var image: ColorImage
    public var width: Int { image.width }
    public var height: Int { image.height }

    /// A white canvas of `width × height` pixels.
    public init(width: Int, height: Int) { image = ColorImage(width: width, height: height, fill: .white) }

    static func color(_ c: PlotColor) -> BGRColor { BGRColor.rgb(c.r, c.g, c.b) }

    public mutating func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, color: PlotColor, thickness: Int) throws {
        try image.drawLine(from: SIMD2(x0, y0), to: SIMD2(x1, y1), color: Self.color(color), thickness: thickness, antialiased: true)
    }
    public mutating func polyline(_ points: [SIMD2<Double>], color: PlotColor, thickness: Int) throws {
        try image.drawPolyline(points, color: Self.color(color), thickness: thickness, antialiased: true)
    }
    public mutating func rectangle(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, color: PlotColor, filled: Bool) throws {
        if filled {
            try image.fillRectangle(from: SIMD2(x0, y0), to: SIMD2(x1, y1), color: Self.color(color))
        } else {
            try image.drawRectangle(from: SIMD2(x0, y0), to: SIMD2(x1, y1), color: Self.color(color))
        }
    }
    public mutating func dot(_ x: Double, _ y: Double, radius: Double, color: PlotColor) throws {
        try image.fillCircle(center: SIMD2(x, y), radius: radius, color: Self.color(color), antialiased: true)
    }
    public mutating func text(_ s: String, x: Double, y: Double, scale: Double, color: PlotColor) throws {
        try image.drawText(s, at: SIMD2(x, y), scale: scale, color: Self.color(color))
    }
    public func textSize(_ s: String, scale: Double) throws -> (width: Double, height: Double) {
        let size = try ColorImage.textSize(s, scale: scale)
        return (Double(size.width), Double(size.height))
    }
}

extension EvaluationCharts {
    /// Renders every chart of `report` as a PNG (`width × height` pixels) into `folder` (created if
    /// missing); returns the paths written.
    public static func writePNGs(for report: EvaluationReport, to folder: String, width: Int = 1000, height: Int = 750) throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var written: [String] = []
        for (name, chart) in charts(for: report) {
            var canvas = ImagePlotCanvas(width: width, height: height)
            try chart.render(on: &canvas)
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            try ImageCodec.writePNG(canvas.image, to: path)
            written.append(path)
        }
        return written
    }
}
