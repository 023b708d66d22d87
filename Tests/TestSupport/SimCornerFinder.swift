import Foundation
import Imaging
import Simulation

/// Sub-pixel corner location for simulator tests (Förstner / `cornerSubPix`-style).
///
/// Iterates `q ← (Σ w g gᵀ)⁻¹ Σ w g gᵀ p` over the pixels p of a window around q, with image gradients g
/// (central differences) and Gaussian weights w (σ = `radius`/2) centred on q: the point where the
/// edges through the window meet. Works on L-shaped corners of anti-aliased edges.
public enum SimCornerFinder {
    /// The refined corner starting from `start` (pixels); `nil` if the window leaves the image or the
    /// gradient matrix is singular (no corner there).
    public static func refine(_ image: GrayImage, start: SIMD2<Double>, radius: Int = 5, iterations: Int = 30) -> SIMD2<Double>? {
        var q = start
        let w = image.width, h = image.height
        func px(_ x: Int, _ y: Int) -> Double { Double(image.pixels[y * w + x]) }
        for _ in 0..<iterations {
            let cx = Int(q.x.rounded()), cy = Int(q.y.rounded())
            guard cx - radius - 1 >= 0, cy - radius - 1 >= 0, cx + radius + 1 < w, cy + radius + 1 < h else { return nil }
            var a = 0.0, b = 0.0, c = 0.0, bx = 0.0, by = 0.0
            let s2 = Double(radius * radius) / 4
            for y in (cy - radius)...(cy + radius) {
                for x in (cx - radius)...(cx + radius) {
                    let gx = (px(x + 1, y) - px(x - 1, y)) / 2, gy = (px(x, y + 1) - px(x, y - 1)) / 2
                    let dx = Double(x) - q.x, dy = Double(y) - q.y
                    let wt = exp(-(dx * dx + dy * dy) / (2 * s2))
                    let gxx = wt * gx * gx, gxy = wt * gx * gy, gyy = wt * gy * gy
                    a += gxx; b += gxy; c += gyy
                    bx += gxx * Double(x) + gxy * Double(y)
                    by += gxy * Double(x) + gyy * Double(y)
                }
            }
            let det = a * c - b * b
            guard det > 1e-9 * (a + c) * (a + c) else { return nil }
            let next = SIMD2((c * bx - b * by) / det, (-b * bx + a * by) / det)
            let step = next - q
            q = next
            if (step * step).sum() < 1e-8 { break }
        }
        return q
    }
}

extension SimCornerFinder {
    /// A corner as the intersection of two straight edges measured in the image.
    ///
    /// Edge A leaves the approximate corner `guess` in direction `dirA` (pixels, need not be unit), edge B
    /// in `dirB`. Along each edge, at distances `from…to` px from the guess, the edge's sub-pixel position
    /// across it is measured as the centroid of the squared intensity derivative over ±`halfWidth` px
    /// (bilinear sampling); a line is fitted to those points and the two lines are intersected; this is
    /// repeated `iterations` times from the new intersection. Unlike gradient-structure refiners this has
    /// no bias at acute or obtuse corners. `nil` if out of the image.
    public static func intersectEdges(_ image: GrayImage, guess start: SIMD2<Double>, dirA: SIMD2<Double>, dirB: SIMD2<Double>,
                                      from: Double = 5, to: Double = 16, halfWidth: Double = 2.5,
                                      iterations: Int = 3) -> SIMD2<Double>? {
        var guess = start
        for _ in 0..<iterations {
            guard let next = intersectOnce(image, guess: guess, dirA: dirA, dirB: dirB, from: from, to: to, halfWidth: halfWidth) else {
                return nil
            }
            guess = next
        }
        return guess
    }

    static func intersectOnce(_ image: GrayImage, guess: SIMD2<Double>, dirA: SIMD2<Double>, dirB: SIMD2<Double>,
                              from: Double, to: Double, halfWidth: Double) -> SIMD2<Double>? {
        func sample(_ p: SIMD2<Double>) -> Double? {
            let x0 = Int(p.x.rounded(.down)), y0 = Int(p.y.rounded(.down))
            guard x0 >= 0, y0 >= 0, x0 + 1 < image.width, y0 + 1 < image.height else { return nil }
            let tx = p.x - Double(x0), ty = p.y - Double(y0)
            let w = image.width
            let a = Double(image.pixels[y0 * w + x0]), b = Double(image.pixels[y0 * w + x0 + 1])
            let c = Double(image.pixels[(y0 + 1) * w + x0]), d = Double(image.pixels[(y0 + 1) * w + x0 + 1])
            return (a + tx * (b - a)) * (1 - ty) + (c + tx * (d - c)) * ty
        }
        func fitLine(_ dir: SIMD2<Double>) -> (point: SIMD2<Double>, dir: SIMD2<Double>)? {
            let d = dir / (dir * dir).sum().squareRoot()
            let n = SIMD2(-d.y, d.x)
            var pts: [SIMD2<Double>] = []
            var s = from
            while s <= to {
                let base = guess + s * d
                var num = 0.0, den = 0.0
                var r = -halfWidth
                let step = 0.125
                while r <= halfWidth {
                    guard let a = sample(base + (r - step / 2) * n), let b = sample(base + (r + step / 2) * n) else { return nil }
                    let g2 = (b - a) * (b - a)
                    num += r * g2; den += g2
                    r += step
                }
                if den > 0 { pts.append(base + (num / den) * n) }
                s += 1
            }
            guard pts.count >= 3 else { return nil }
            // Total least squares line through the points.
            let m = pts.reduce(SIMD2<Double>.zero, +) / Double(pts.count)
            var sxx = 0.0, sxy = 0.0, syy = 0.0
            for p in pts { let q = p - m; sxx += q.x * q.x; sxy += q.x * q.y; syy += q.y * q.y }
            let angle = 0.5 * atan2(2 * sxy, sxx - syy)
            return (m, SIMD2(cos(angle), sin(angle)))
        }
        guard let la = fitLine(dirA), let lb = fitLine(dirB) else { return nil }
        // Solve la.point + s·la.dir = lb.point + t·lb.dir.
        let det = la.dir.x * (-lb.dir.y) - la.dir.y * (-lb.dir.x)
        guard abs(det) > 1e-6 else { return nil }
        let r = lb.point - la.point
        let s = (r.x * (-lb.dir.y) - r.y * (-lb.dir.x)) / det
        return la.point + s * la.dir
    }
}
