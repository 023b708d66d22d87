import Foundation

/// A horizontal band of a chart (e.g. mean ± σ), shaded under the data, named in the legend.
public struct ChartBand: Sendable {
    /// Legend entry.
    public var name: String
    /// Lower and upper edge, y units.
    public var lower: Double, upper: Double
    public var color: PlotColor
    public init(name: String, lower: Double, upper: Double, color: PlotColor) {
        self.name = name; self.lower = lower; self.upper = upper; self.color = color
    }
}

/// A horizontal reference line of a chart (e.g. the mean or the median), named in the legend.
public struct ChartReferenceLine: Sendable {
    /// Legend entry.
    public var name: String
    /// Height, y units.
    public var value: Double
    public var color: PlotColor
    public init(name: String, value: Double, color: PlotColor) { self.name = name; self.value = value; self.color = color }
}

/// A colour bar beside the plot: what the colours of a series with ``Chart/Series/segmentColors`` mean.
public struct ChartColorBar: Sendable {
    /// What the colour measures, with its unit (`position error [m]`).
    public var label: String
    /// The values at the bottom and the top of the bar (the colormap's 0 and 1).
    public var minimum: Double, maximum: Double
    public init(label: String, minimum: Double, maximum: Double) {
        self.label = label; self.minimum = minimum; self.maximum = maximum
    }

    /// The colour of `value` on this bar (clamped to its ends).
    public func color(_ value: Double) -> PlotColor {
        Colormap.viridis(maximum > minimum ? (value - minimum) / (maximum - minimum) : 0)
    }
}

/// Colormaps for values in 0…1.
public enum Colormap {
    /// Viridis (matplotlib's default: perceptually uniform, readable in grey and by colour-blind readers), linear
    /// between 5 of its colours; values outside 0…1 are clamped.
    public static func viridis(_ t: Double) -> PlotColor {
        let stops: [(Double, Double, Double)] = [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)]
        let x = min(max(t.isFinite ? t : 0, 0), 1) * Double(stops.count - 1)
        let i = min(Int(x), stops.count - 2), f = x - Double(i)
        func mix(_ a: Double, _ b: Double) -> UInt8 { UInt8((a + (b - a) * f).rounded()) }
        return PlotColor(mix(stops[i].0, stops[i + 1].0), mix(stops[i].1, stops[i + 1].1), mix(stops[i].2, stops[i + 1].2))
    }
}
