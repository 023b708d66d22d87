/// An 8-bit single-channel (gray) image, row-major, tightly packed (`stride == width`).
///
/// Pixel (x, y) is column x, row y; (0, 0) is the top-left pixel.
public struct GrayImage: Equatable, Sendable {
    /// Width and height, pixels.
    public let width: Int, height: Int
    /// `width * height` intensities, row by row.
    public var pixels: [UInt8]

    /// An image from its pixels (`pixels.count` must be `width * height`).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height, "GrayImage: pixel count mismatch")
        self.width = width; self.height = height; self.pixels = pixels
    }
    /// An image filled with one value.
    public init(width: Int, height: Int, fill: UInt8 = 0) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: fill, count: width * height))
    }
    /// The intensity at column x, row y.
    @inlinable public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }
}
