import Foundation

/// Axis ticks at "nice" values: 1, 2 or 5 times a power of ten.
public enum NiceTicks {
    /// The tick step for a range `span` with about `target` intervals.
    public static func step(span: Double, target: Int) -> Double {
        guard span > 0, span.isFinite, target > 0 else { return 1 }
        let raw = span / Double(target)
        let magnitude = pow(10, floor(log10(raw)))
        let fraction = raw / magnitude
        let nice: Double = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10
        return nice * magnitude
    }

    /// Ticks (multiples of the step) inside `[lo, hi]`.
    public static func ticks(lo: Double, hi: Double, target: Int = 6) -> [Double] {
        let s = step(span: hi - lo, target: target)
        var values: [Double] = []
        var k = (lo / s).rounded(.up)
        while k * s <= hi + 1e-9 * s, values.count < 100 {
            values.append(k * s == 0 ? 0 : k * s)  // no "-0"
            k += 1
        }
        return values
    }

    /// A short label for a tick value with the step's number of decimals.
    public static func label(_ value: Double, step: Double) -> String {
        let decimals = max(0, Int(-floor(log10(step) + 1e-9)))
        return String(format: "%.\(decimals)f", value)
    }

    /// `[lo, hi]` widened to the enclosing ticks (a degenerate range is padded by ±0.5, or ±5 %).
    public static func padded(lo: Double, hi: Double, target: Int = 6) -> (Double, Double) {
        var lo = lo, hi = hi
        if !(hi > lo) { let pad = max(0.5, abs(lo) * 0.05); lo -= pad; hi += pad }
        let s = step(span: hi - lo, target: target)
        return ((lo / s).rounded(.down) * s, (hi / s).rounded(.up) * s)
    }
}
