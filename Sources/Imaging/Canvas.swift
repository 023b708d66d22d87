import COpenCV

/// An image that can be drawn on in place: `GrayImage` and `ColorImage`.
///
/// Coordinates are pixels with (0, 0) the centre of the top-left pixel, x right, y down;
/// positions are sub-pixel accurate (1/16 px). Shapes may extend past the image; they are
/// clipped. On a gray image a colour draws as its luma. Drawing throws `.invalidArgument` for
/// non-finite coordinates (or beyond ±1e6 px), thickness outside 1...255, or too few points.
public protocol Canvas {
    /// Width and height, pixels.
    var width: Int { get }
    var height: Int { get }
    /// Bytes per pixel: 1 (gray) or 3 (BGR).
    static var channels: Int { get }
    /// The pixels, row-major, tightly packed.
    var pixels: [UInt8] { get set }
}

extension GrayImage: Canvas {
    /// One byte (intensity) per pixel.
    public static var channels: Int { 1 }
}

extension ColorImage: Canvas {
    /// Three bytes (b, g, r) per pixel.
    public static var channels: Int { 3 }
}

extension Canvas {
    /// Draws a line segment from `start` to `end` (pixels), `thickness` pixels wide.
    public mutating func drawLine(from start: SIMD2<Double>, to end: SIMD2<Double>, color: BGRColor,
                                  thickness: Int = 1, antialiased: Bool = false) throws {
        try draw { c in
            wt_draw_line(c, start.x, start.y, end.x, end.y, Self.wtColor(color), Int32(clamping: thickness),
                         antialiased ? 1 : 0)
        }
    }

    /// Draws a circle outline of `radius` pixels around `center`.
    public mutating func drawCircle(center: SIMD2<Double>, radius: Double, color: BGRColor, thickness: Int = 1,
                                    antialiased: Bool = false) throws {
        guard thickness >= 1 else { throw ImagingError.invalidArgument(message: "circle thickness must be >= 1") }
        try draw { c in
            wt_draw_circle(c, center.x, center.y, radius, Self.wtColor(color), Int32(clamping: thickness), antialiased ? 1 : 0)
        }
    }

    /// Fills a disc of `radius` pixels around `center`.
    public mutating func fillCircle(center: SIMD2<Double>, radius: Double, color: BGRColor, antialiased: Bool = false) throws {
        try draw { c in wt_draw_circle(c, center.x, center.y, radius, Self.wtColor(color), -1, antialiased ? 1 : 0) }
    }

    /// Draws the outline of the axis-aligned rectangle with opposite corners `a` and `b` (inclusive).
    public mutating func drawRectangle(from a: SIMD2<Double>, to b: SIMD2<Double>, color: BGRColor, thickness: Int = 1) throws {
        guard thickness >= 1 else { throw ImagingError.invalidArgument(message: "rectangle thickness must be >= 1") }
        try draw { c in wt_draw_rectangle(c, a.x, a.y, b.x, b.y, Self.wtColor(color), Int32(clamping: thickness)) }
    }

    /// Fills the axis-aligned rectangle with opposite corners `a` and `b` (inclusive).
    public mutating func fillRectangle(from a: SIMD2<Double>, to b: SIMD2<Double>, color: BGRColor) throws {
        try draw { c in wt_draw_rectangle(c, a.x, a.y, b.x, b.y, Self.wtColor(color), -1) }
    }

    /// Draws a polyline through `points` (at least 2), closing it back to the first when `closed`.
    public mutating func drawPolyline(_ points: [SIMD2<Double>], closed: Bool = false, color: BGRColor,
                                      thickness: Int = 1, antialiased: Bool = false) throws {
        let flat = points.flatMap { [$0.x, $0.y] }
        let count = try checkCount(points.count, "polyline points")
        try draw { c in
            wt_draw_polyline(c, flat, count, closed ? 1 : 0, Self.wtColor(color), Int32(clamping: thickness),
                             antialiased ? 1 : 0)
        }
    }

    /// Fills the polygon through `vertices` (at least 3; any winding; self-intersections use the
    /// even-odd rule). Without antialiasing exactly the pixels whose centres lie inside or on the
    /// boundary change.
    public mutating func fillPolygon(_ vertices: [SIMD2<Double>], color: BGRColor, antialiased: Bool = false) throws {
        let flat = vertices.flatMap { [$0.x, $0.y] }
        let count = try checkCount(vertices.count, "polygon vertices")
        try draw { c in wt_fill_polygon(c, flat, count, Self.wtColor(color), antialiased ? 1 : 0) }
    }

    /// Draws text (ASCII; Hershey simplex font) with the left end of its baseline at `origin`.
    /// `scale` 1 makes capitals about 22 pixels tall; 0.5 suits plot labels.
    public mutating func drawText(_ text: String, at origin: SIMD2<Double>, scale: Double = 0.5, color: BGRColor,
                                  thickness: Int = 1, antialiased: Bool = true) throws {
        try draw { c in
            wt_draw_text(c, text, origin.x, origin.y, scale, Self.wtColor(color), Int32(clamping: thickness),
                         antialiased ? 1 : 0)
        }
    }

    /// The size in pixels of `text` as `drawText` draws it (height above the baseline) and the
    /// baseline's offset below it, for laying out labels.
    public static func textSize(_ text: String, scale: Double = 0.5, thickness: Int = 1) throws
        -> (width: Int, height: Int, baseline: Int) {
        var w: Int32 = 0, h: Int32 = 0, b: Int32 = 0
        try checkStatus(wt_text_size(text, scale, Int32(clamping: thickness), &w, &h, &b))
        return (Int(w), Int(h), Int(b))
    }

    private static func wtColor(_ color: BGRColor) -> wt_color {
        if channels == 1 {
            let v = Double(color.luminance)
            return wt_color(b: v, g: v, r: v)
        }
        return wt_color(b: Double(color.b), g: Double(color.g), r: Double(color.r))
    }

    private mutating func draw(_ call: (wt_canvas) -> wt_status) throws {
        try checkDimensions(width, height, "canvas")
        guard pixels.count == width * height * Self.channels else {
            throw ImagingError.invalidArgument(message: "canvas has \(pixels.count) bytes but is \(width)x\(height)x\(Self.channels)")
        }
        let (w, h) = (Int32(width), Int32(height))
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            call(wt_canvas(pixels: buffer.baseAddress, width: w, height: h, channels: Int32(Self.channels)))
        }
        try checkStatus(status)
    }
}
