import Foundation

/// Chi-square distribution helpers: the regularised incomplete gamma function and quantiles,
/// with a per-probability cache for the gating of residuals of up to any dimension.
enum ChiSquare {
    /// The regularised lower incomplete gamma function `P(a, x)` (series for x < a + 1, Lentz's
    /// continued fraction otherwise); accurate to ~1e-14.
    static func regularizedGammaP(_ a: Double, _ x: Double) -> Double {
        if x <= 0 { return 0 }
        let logPrefactor = -x + a * log(x) - lgamma(a)
        if x < a + 1 {
            var term = 1 / a, sum = term, ap = a
            for _ in 0..<1000 {
                ap += 1
                term *= x / ap
                sum += term
                if abs(term) < abs(sum) * 1e-16 { break }
            }
            return min(1, sum * exp(logPrefactor))
        }
        // Continued fraction for Q(a, x).
        let tiny = 1e-300
        var b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d
        for i in 1..<1000 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-16 { break }
        }
        return max(0, 1 - exp(logPrefactor) * h)
    }

    /// The chi-square cumulative distribution function with `dof` degrees of freedom.
    static func cdf(_ x: Double, dof: Int) -> Double { regularizedGammaP(Double(dof) / 2, x / 2) }

    /// The `probability` quantile of the chi-square distribution with `dof` degrees of freedom
    /// (e.g. 0.95 → the 95 % point: 3.841 for dof 1). Bisection on the CDF, to a relative 1e-10.
    static func quantile(probability p: Double, dof: Int) -> Double {
        precondition(dof > 0 && p > 0 && p < 1)
        let k = Double(dof)
        var lo = 0.0, hi = max(1.0, k)
        while cdf(hi, dof: dof) < p { hi *= 2 }
        for _ in 0..<200 {
            let mid = 0.5 * (lo + hi)
            if cdf(mid, dof: dof) < p { lo = mid } else { hi = mid }
            if hi - lo < 1e-10 * hi { break }
        }
        return 0.5 * (lo + hi)
    }
}

/// Cached chi-square quantiles for one probability, filled on demand (one bisection per new dof).
final class ChiSquareTable {
    let probability: Double
    private var values: [Double] = [0]

    /// A table for `probability`, clamped to [0.5, 1 − 1e-9] (a configuration of 1 or NaN must not
    /// make the quantile infinite or crash).
    init(probability: Double) {
        self.probability = probability.isNaN ? 0.95 : min(max(probability, 0.5), 1 - 1e-9)
    }

    /// The quantile for `dof` degrees of freedom (dof ≥ 1).
    func threshold(dof: Int) -> Double {
        while values.count <= dof { values.append(ChiSquare.quantile(probability: probability, dof: values.count)) }
        return values[dof]
    }
}
