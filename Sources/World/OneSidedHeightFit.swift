import Foundation

/// The height of a horizontal surface from landmark heights that hold, besides the surface's own landmarks, the
/// landmarks of faces that meet it on one side: a top's side faces just under its rim, or the feet of walls and
/// furniture just above a floor.
///
/// The heights `r` (metres, about any reference) are modelled as a mixture of three parts:
/// - the surface: a Gaussian of scatter `s` about the surface height `h`;
/// - an adjacent face on one side: heights spread evenly from `h` to the farthest height on that side (the face's
///   rows from the rim down to the inlier band's edge), smoothed by the same scatter (a uniform convolved with the
///   Gaussian);
/// - strays: a small fixed share spread evenly over the whole span.
///
/// `h`, the two shares and `s` are estimated by maximum likelihood, for a face below and for a face above (or for the
/// side given, `sides`); the likelier gives `h`. Heights alone cannot always tell the side: a sparse top over an evenly
/// spread face and a chance clump at the face's lower end over the same spread explain them equally, so the plane
/// detector gives the side where the landmarks' neighbours tell it (``PlaneDetector``: landmarks straight below a top's
/// rim, straight above a floor's edge). The surface's share is at least `minSurfaceShare`.
///
/// Where the face's landmarks outnumber a sparsely mapped top's (V1_01 courtyards, stereo: 17 landmarks of a
/// planter's faces 4 cm under its rim against 5 of its top), a mode or a mean lands between the two; the mixture keeps
/// `h` at the edge of the distribution the face's spread ends on, where the top's own landmarks lie. A surface without
/// such landmarks gets the face share near zero and `h` the Gaussian's centre.
///
/// Heights are binned on a lattice of `step` metres (the likelihood is evaluated by table lookups), so the cost does not
/// grow with the number of landmarks beyond the binning.
struct OneSidedHeightFit {
    /// Which side of the surface the adjacent face lies on.
    enum Side: Equatable { case below, above, none }

    /// The fitted surface height (metres, in the frame of the input heights), its scatter (metres), the share of the
    /// landmarks on the surface and on the face, and the side of the face.
    struct Result: Equatable {
        var height: Double
        var scatter: Double
        var surfaceShare: Double
        var faceShare: Double
        var side: Side
        var logLikelihood: Double
        /// The face's far end (metres): the lowest height for a face below, the highest for a face above.
        var faceEnd: Double
        /// The stray density (per metre).
        var strayDensity: Double

        /// The probability that a landmark at height `r` lies on the surface rather than on the face or astray.
        func surfaceResponsibility(_ r: Double) -> Double {
            let u = (r - height) / scatter
            let g = surfaceShare * exp(-0.5 * u * u) / (scatter * (2 * Double.pi).squareRoot())
            var f = 0.0
            let w = abs(height - faceEnd)
            if side != .none, w > 0 {
                let (a, b) = side == .below ? (faceEnd, height) : (height, faceEnd)
                let cdf = { (x: Double) in 0.5 * erfc(-(x - r) / scatter / 2.squareRoot()) }
                f = faceShare * (cdf(b) - cdf(a)) / w
            }
            return g / max(g + f + strayDensity, .leastNormalMagnitude)
        }
    }

    /// The sides a face may lie on (the likelier is taken).
    var sides: [Side] = [.below, .above]
    /// Lattice of the binned heights and of the candidate surface heights, metres.
    var step: Double = 0.002
    /// Smallest scatter of the surface's landmarks, metres.
    var minScatter: Double = 0.005
    /// Share of strays (fixed).
    var strayShare: Double = 0.02
    /// Smallest share of the landmarks on the surface: a level is a surface first. Without it the mixture can call
    /// every landmark a face's (a surface of no landmarks at the band's far end, under an even spread that covers a
    /// sparse top's cluster as well).
    var minSurfaceShare: Double = 0.2

    /// Fits the mixture to the heights `r`, starting from the surface height `start`; `scatter` (the heights' robust
    /// spread) bounds the surface's scatter. nil with fewer than 3 heights or spread over a metre or more (no one
    /// surface's band; the lattice would be too long).
    func fit(_ r: [Double], start: Double, scatter: Double) -> Result? {
        guard r.count >= 3, let lo = r.min(), let hi = r.max(), hi - lo < 1, start.isFinite else { return nil }
        let bins = Int(((hi - lo) / step).rounded(.down)) + 1
        var counts = [Double](repeating: 0, count: bins)
        for x in r { counts[min(bins - 1, Int(((x - lo) / step).rounded()))] += 1 }
        let occupied = counts.indices.filter { counts[$0] > 0 }
        // The scatter starts at its floor (a surface's well-triangulated landmarks) and at the heights' spread (landmarks
        // that scatter widely about one surface): the likelihood has a maximum near each, and the likelier is kept.
        let startBin = min(bins - 1, max(0, Int(((start - lo) / step).rounded())))
        let maxScatter = max(minScatter, scatter)
        var best: Result?
        var tables = TableCache(bins: bins, step: step)
        for side in sides {
            for s0 in Set([minScatter, maxScatter]).sorted() {
                let fitted = fitSide(side, counts: counts, occupied: occupied, lo: lo, startBin: startBin, scatter: s0,
                                     maxScatter: maxScatter, tables: &tables)
                if best == nil || fitted.logLikelihood > best!.logLikelihood { best = fitted }
            }
        }
        return best
    }

    /// The surface's Gaussian on the lattice for one scatter: its density and its cumulative at every bin offset.
    private struct Tables {
        /// Gaussian density at lattice offsets −(bins−1)…(bins−1), per metre.
        var density: [Double]
        /// Gaussian cumulative at lattice offsets −bins…bins.
        var cumulative: [Double]
        let bins: Int
        /// The scatter the tables are for, metres.
        let scatter: Double
        /// Offsets beyond 9 scatters get the tails' limits (density 0, cumulative 0 or 1; the true values are below
        /// 10⁻¹⁸, against a stray density of at least 0.02 per metre): only the offsets within are computed.
        init(bins: Int, step: Double, scatter s: Double) {
            self.bins = bins
            scatter = s
            let reach = min(bins, Int((9 * s / step).rounded(.up)))
            // The density is even in the offset (−u squares to the same bits as u): computed once per |offset|.
            density = [Double](repeating: 0, count: 2 * bins - 1)
            for d in 0...min(reach, bins - 1) {
                let u = Double(d) * step / s
                let g = exp(-0.5 * u * u) / (s * (2 * Double.pi).squareRoot())
                density[bins - 1 + d] = g
                density[bins - 1 - d] = g
            }
            cumulative = [Double](repeating: 0, count: 2 * bins + 1)
            for k in 0...(2 * bins) {
                let d = k - bins
                cumulative[k] = abs(d) <= reach ? 0.5 * erfc(-Double(d) * step / s / 2.squareRoot()) : d < 0 ? 0 : 1
            }
        }
        func gauss(_ d: Int) -> Double { density[d + bins - 1] }
        func cdf(_ d: Int) -> Double { cumulative[max(0, min(2 * bins, d + bins))] }
    }

    /// The tables of the scatters met in one `fit`: its runs from two starting scatters and for two sides, and the
    /// expectation–maximisation steps that hold the scatter at a bound, meet the same scatters again.
    private struct TableCache {
        let bins: Int
        let step: Double
        private var tables: [Double: Tables] = [:]
        init(bins: Int, step: Double) { self.bins = bins; self.step = step }
        mutating func tables(scatter s: Double) -> Tables {
            if let t = tables[s] { return t }
            let t = Tables(bins: bins, step: step, scatter: s)
            tables[s] = t
            return t
        }
    }

    private func fitSide(_ side: Side, counts: [Double], occupied: [Int], lo: Double, startBin: Int,
                         scatter s0: Double, maxScatter: Double, tables cache: inout TableCache) -> Result {
        let bins = counts.count
        let span = max(step, Double(bins - 1) * step)
        let first = occupied.first!, last = occupied.last!
        var s = s0, surface = 0.6 * (1 - strayShare), face = 0.4 * (1 - strayShare)
        var j = startBin
        // The face's density at bin k for a surface at bin j: heights spread evenly from the surface to the farthest
        // occupied bin on the face's side, smoothed by the scatter.
        func faceDensity(_ k: Int, _ j: Int, _ t: Tables) -> Double {
            switch side {
            case .below:
                let w = j - first
                guard w > 0 else { return 0 }
                return (t.cdf(j - k) - t.cdf(first - k)) / (Double(w) * step)
            case .above:
                let w = last - j
                guard w > 0 else { return 0 }
                return (t.cdf(last - k) - t.cdf(j - k)) / (Double(w) * step)
            case .none:
                return 0
            }
        }
        func logLikelihood(_ j: Int, _ t: Tables) -> Double {
            var ll = 0.0
            for k in occupied {
                let p = surface * t.gauss(k - j) + face * faceDensity(k, j, t) + strayShare / span
                ll += counts[k] * log(p)
            }
            return ll
        }
        var tables = cache.tables(scatter: s)
        var ll = -Double.infinity
        for pass in 0..<4 {
            // The surface height on the lattice, for the current shares and scatter: over the whole span every second
            // bin (then the bins beside the best) at the first pass, within 8 bins of the last height after it (the
            // shares and scatter move it little; a full search each pass tripled the plane worker's time).
            var bestJ = j, bestLL = -Double.infinity
            func consider(_ c: Int) {
                guard c >= first, c <= last else { return }
                let v = logLikelihood(c, tables)
                if v > bestLL { bestLL = v; bestJ = c }
            }
            if pass == 0 {
                for c in stride(from: first, through: last, by: 2) { consider(c) }
                let coarse = bestJ
                consider(coarse - 1); consider(coarse + 1)
            } else {
                for c in (j - 8)...(j + 8) { consider(c) }
            }
            j = bestJ; ll = bestLL
            // Shares and scatter for that height (expectation–maximisation steps).
            for _ in 0..<3 {
                var rs = 0.0, rf = 0.0, ss = 0.0
                for k in occupied {
                    let g = surface * tables.gauss(k - j), f = face * faceDensity(k, j, tables)
                    let p = g + f + strayShare / span
                    rs += counts[k] * g / p; rf += counts[k] * f / p
                    let d = Double(k - j) * step
                    ss += counts[k] * g / p * d * d
                }
                surface = (1 - strayShare) * max(minSurfaceShare, rs / max(rs + rf, 1e-12))
                face = (1 - strayShare) - surface
                s = min(maxScatter, max(minScatter, (ss / max(rs, 1e-12) + step * step / 12).squareRoot()))
                tables = cache.tables(scatter: s)
            }
        }
        ll = logLikelihood(j, tables)
        // Sub-lattice height: the vertex of the parabola through the log-likelihood at j−1, j, j+1.
        var h = lo + Double(j) * step
        if j > first, j < last {
            let a = logLikelihood(j - 1, tables), c = logLikelihood(j + 1, tables)
            let curvature = a - 2 * ll + c
            if curvature < 0 { h += step * max(-0.5, min(0.5, 0.5 * (a - c) / curvature)) }
        }
        let end = lo + Double(side == .below ? first : last) * step
        return Result(height: h, scatter: s, surfaceShare: surface, faceShare: face, side: face > 1e-3 ? side : .none,
                      logLikelihood: ll, faceEnd: end, strayDensity: strayShare / span)
    }
}
