import Foundation

/// A scalar function value with its first and second time derivatives, `(f, f', f'')`.
///
/// `Jet` is forward-mode differentiation to second order: arithmetic and `sin`/`cos` on jets apply the
/// product and chain rules exactly, so a trajectory written with jets yields exact analytic velocities
/// and accelerations (no finite differences). Units follow the value (e.g. metres, m/s, m/s²).
public struct Jet: Sendable, Equatable {
    /// Value.
    public var v: Double
    /// First derivative with respect to time (per second).
    public var d: Double
    /// Second derivative with respect to time (per second²).
    public var dd: Double

    /// A jet from its value and derivatives.
    @inlinable public init(_ v: Double, _ d: Double = 0, _ dd: Double = 0) { self.v = v; self.d = d; self.dd = dd }
    /// A constant.
    @inlinable public static func constant(_ c: Double) -> Jet { Jet(c) }

    /// Sum, difference, product (product rule) and scalar forms.
    @inlinable public static func + (a: Jet, b: Jet) -> Jet { Jet(a.v + b.v, a.d + b.d, a.dd + b.dd) }
    @inlinable public static func - (a: Jet, b: Jet) -> Jet { Jet(a.v - b.v, a.d - b.d, a.dd - b.dd) }
    @inlinable public static prefix func - (a: Jet) -> Jet { Jet(-a.v, -a.d, -a.dd) }
    @inlinable public static func * (a: Jet, b: Jet) -> Jet {
        Jet(a.v * b.v, a.d * b.v + a.v * b.d, a.dd * b.v + 2 * a.d * b.d + a.v * b.dd)
    }
    /// Mixed jet–constant arithmetic.
    @inlinable public static func + (a: Jet, c: Double) -> Jet { Jet(a.v + c, a.d, a.dd) }
    @inlinable public static func + (c: Double, a: Jet) -> Jet { Jet(a.v + c, a.d, a.dd) }
    @inlinable public static func - (a: Jet, c: Double) -> Jet { Jet(a.v - c, a.d, a.dd) }
    @inlinable public static func * (c: Double, a: Jet) -> Jet { Jet(c * a.v, c * a.d, c * a.dd) }
    @inlinable public static func * (a: Jet, c: Double) -> Jet { Jet(c * a.v, c * a.d, c * a.dd) }
}

/// `sin` of a jet (chain rule).
@inlinable public func sin(_ a: Jet) -> Jet {
    let s = Foundation.sin(a.v), c = Foundation.cos(a.v)
    return Jet(s, c * a.d, c * a.dd - s * a.d * a.d)
}

/// `cos` of a jet (chain rule).
@inlinable public func cos(_ a: Jet) -> Jet {
    let s = Foundation.sin(a.v), c = Foundation.cos(a.v)
    return Jet(c, -s * a.d, -s * a.dd - c * a.d * a.d)
}

/// Smooth blending functions on the unit interval.
public enum Smoothstep {
    /// Septic smoothstep `S(u) = 35u⁴ − 84u⁵ + 70u⁶ − 20u⁷`, clamped to 0 for u ≤ 0 and 1 for u ≥ 1.
    /// Its first three derivatives vanish at both ends, so blends built from it are C³.
    @inlinable public static func septic(_ u: Double) -> Double {
        if u <= 0 { return 0 }
        if u >= 1 { return 1 }
        let u2 = u * u, u4 = u2 * u2
        return u4 * (35 + u * (-84 + u * (70 - 20 * u)))
    }
    /// First derivative of `septic` with respect to u.
    @inlinable public static func septicD1(_ u: Double) -> Double {
        if u <= 0 || u >= 1 { return 0 }
        let u3 = u * u * u
        return u3 * (140 + u * (-420 + u * (420 - 140 * u)))
    }
    /// Second derivative of `septic` with respect to u.
    @inlinable public static func septicD2(_ u: Double) -> Double {
        if u <= 0 || u >= 1 { return 0 }
        let u2 = u * u
        return u2 * (420 + u * (-1680 + u * (2100 - 840 * u)))
    }
    /// `∫₀ᵘ septic(s) ds`, continued linearly (slope 1) for u ≥ 1; 0 for u ≤ 0.
    @inlinable public static func septicIntegral(_ u: Double) -> Double {
        if u <= 0 { return 0 }
        if u >= 1 { return 0.5 + (u - 1) }
        let u5 = u * u * u * u * u
        return u5 * (7 + u * (-14 + u * (10 - 2.5 * u)))
    }
    /// The septic step over `[start, start + duration]` seconds as a jet in time t.
    @inlinable public static func stepJet(t: Double, start: Double, duration: Double) -> Jet {
        let u = (t - start) / duration
        return Jet(septic(u), septicD1(u) / duration, septicD2(u) / (duration * duration))
    }
}
