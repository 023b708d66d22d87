/// A colour for plots, red/green/blue 0…255.
public struct PlotColor: Equatable, Sendable {
    public var r: UInt8, g: UInt8, b: UInt8
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { self.r = r; self.g = g; self.b = b }

    public static let black = PlotColor(0, 0, 0)
    public static let white = PlotColor(255, 255, 255)
    public static let grid = PlotColor(225, 225, 225)
    public static let axis = PlotColor(60, 60, 60)
    /// Ground truth: dark gray.
    public static let groundTruth = PlotColor(40, 40, 40)
    /// Estimate: blue.
    public static let estimate = PlotColor(31, 119, 180)
    /// Errors: red.
    public static let error = PlotColor(214, 39, 40)
    /// Boxes: light blue fill.
    public static let boxFill = PlotColor(174, 199, 232)
}

/// A surface plots draw on, in pixels: x right, y down, (0, 0) the top-left corner.
///
/// Implemented over Imaging's colour image drawing for PNG output; tests may record the calls.
public protocol PlotCanvas {
    /// Size in pixels.
    var width: Int { get }
    var height: Int { get }
    /// A straight segment `thickness` pixels wide.
    mutating func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, color: PlotColor, thickness: Int) throws
    /// An open polyline through `points` (pixels).
    mutating func polyline(_ points: [SIMD2<Double>], color: PlotColor, thickness: Int) throws
    /// An axis-aligned rectangle, filled or outlined.
    mutating func rectangle(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, color: PlotColor, filled: Bool) throws
    /// A dot of the given radius (filled).
    mutating func dot(_ x: Double, _ y: Double, radius: Double, color: PlotColor) throws
    /// ASCII text with its baseline's left end at (x, y); `scale` 1 is about 22 px tall.
    mutating func text(_ s: String, x: Double, y: Double, scale: Double, color: PlotColor) throws
    /// Width and height (above the baseline) of `s` as `text` would draw it, pixels.
    func textSize(_ s: String, scale: Double) throws -> (width: Double, height: Double)
}
