/// A colour in OpenCV's channel order: blue, green, red, each 0...255.
public struct BGRColor: Equatable, Hashable, Sendable {
    public var b: UInt8, g: UInt8, r: UInt8
    /// A colour from its blue, green and red components.
    public init(b: UInt8, g: UInt8, r: UInt8) { self.b = b; self.g = g; self.r = r }
    /// A gray level (b = g = r = `gray`).
    public init(gray: UInt8) { self.init(b: gray, g: gray, r: gray) }
    /// A colour from red, green, blue (the usual reading order).
    public static func rgb(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> BGRColor { BGRColor(b: b, g: g, r: r) }

    /// Luma (ITU-R BT.601): 0.299 R + 0.587 G + 0.114 B, rounded (OpenCV's fixed-point
    /// BGR-to-gray conversion agrees within 1).
    public var luminance: UInt8 {
        let red: Double = 0.299 * Double(r), green: Double = 0.587 * Double(g), blue: Double = 0.114 * Double(b)
        return UInt8(min(255, (red + green + blue).rounded()))
    }

    public static let black = BGRColor(gray: 0)
    public static let white = BGRColor(gray: 255)
    public static let red = BGRColor.rgb(255, 0, 0)
    public static let green = BGRColor.rgb(0, 200, 0)
    public static let blue = BGRColor.rgb(0, 0, 255)
    public static let yellow = BGRColor.rgb(255, 220, 0)
    public static let cyan = BGRColor.rgb(0, 200, 255)
    public static let magenta = BGRColor.rgb(255, 0, 255)
    public static let orange = BGRColor.rgb(255, 140, 0)
    public static let gray = BGRColor(gray: 128)
}

/// An 8-bit 3-channel colour image in OpenCV's BGR order, row-major, tightly packed
/// (`pixels.count == width * height * 3`; pixel (x, y) starts at `3 * (y * width + x)`).
///
/// Pixel (x, y) is column x, row y; (0, 0) is the top-left pixel. Used for plots and overlays.
public struct ColorImage: Equatable, Sendable {
    /// Width and height, pixels.
    public let width: Int, height: Int
    /// `width * height * 3` bytes, (b, g, r) per pixel, row by row.
    public var pixels: [UInt8]

    /// An image from its interleaved BGR bytes (`pixels.count` must be `width * height * 3`).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 3, "ColorImage: pixel count mismatch")
        self.width = width; self.height = height; self.pixels = pixels
    }

    /// An image filled with one colour.
    public init(width: Int, height: Int, fill: BGRColor = .black) {
        precondition(width >= 0 && height >= 0, "ColorImage: negative size")
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for i in stride(from: 0, to: bytes.count, by: 3) {
            bytes[i] = fill.b; bytes[i + 1] = fill.g; bytes[i + 2] = fill.r
        }
        self.init(width: width, height: height, pixels: bytes)
    }

    /// A colour copy of a gray image (b = g = r = intensity).
    public init(gray: GrayImage) {
        var bytes = [UInt8](repeating: 0, count: gray.width * gray.height * 3)
        for (i, v) in gray.pixels.enumerated() {
            bytes[3 * i] = v; bytes[3 * i + 1] = v; bytes[3 * i + 2] = v
        }
        self.init(width: gray.width, height: gray.height, pixels: bytes)
    }

    /// The colour at column x, row y.
    @inlinable public subscript(x: Int, y: Int) -> BGRColor {
        get {
            let i = 3 * (y * width + x)
            return BGRColor(b: pixels[i], g: pixels[i + 1], r: pixels[i + 2])
        }
        set {
            let i = 3 * (y * width + x)
            pixels[i] = newValue.b; pixels[i + 1] = newValue.g; pixels[i + 2] = newValue.r
        }
    }
}

extension GrayImage {
    /// The luma (BT.601) of a colour image (`BGRColor.luminance` per pixel).
    public init(luminanceOf color: ColorImage) {
        var bytes = [UInt8](repeating: 0, count: color.width * color.height)
        for i in 0..<bytes.count {
            bytes[i] = BGRColor(b: color.pixels[3 * i], g: color.pixels[3 * i + 1], r: color.pixels[3 * i + 2]).luminance
        }
        self.init(width: color.width, height: color.height, pixels: bytes)
    }
}
