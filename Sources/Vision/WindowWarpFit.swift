import Imaging
import LinearAlgebra

/// Fits the linear part of the warp that maps a reference window onto an image around a fixed centre: the axes
/// (pixels per sample, `NormalizedPatch`'s `axisU`, `axisV`) along which the image, read around `centre`, best
/// matches the reference up to a gain and an offset (Gauss–Newton on the four axis components, the gain and the
/// offset; the image gradient by central differences of bilinear reads).
///
/// The appearance check (`FeatureTracker`) uses it for a window that no longer matches its birth window along the
/// axes the camera's rotation gives: a patch of a surface seen from a position that moved changes its shape (a floor
/// tile approached along the floor stretches), which a linear warp about the tracked point explains, while a corner
/// where a near edge crosses farther texture changes its content, which it does not. The centre stays where the
/// tracker put it: a track that slid off its point is not realigned.
enum WindowWarpFit {
    /// The fitted axes, or `nil` when a read would fall outside the image or the normal equations are singular.
    /// - Parameters:
    ///   - reference: the window to match (zero mean, unit norm, `side × side`).
    ///   - axisU, axisV: the start, pixels per sample.
    static func fit(image: GrayImage, centre: SIMD2<Float>, axisU: SIMD2<Float>, axisV: SIMD2<Float>,
                    reference: NormalizedPatch, iterations: Int = 6) -> (axisU: SIMD2<Float>, axisV: SIMD2<Float>)? {
        let side = reference.side
        let r = Double(side / 2)
        let w = image.width
        var m = [Double(axisU.x), Double(axisV.x), Double(axisU.y), Double(axisV.y)] // x = c + [m0 m1; m2 m3]·(u, v)
        let cx = Double(centre.x), cy = Double(centre.y)
        var gain = 0.0, offset = 0.0
        let count = side * side
        var s = [Double](repeating: 0, count: count), gx = s, gy = s
        for iteration in 0..<iterations {
            // Every read, gradients' included (±1 px), inside the image with a margin.
            let spanX = r * (abs(m[0]) + abs(m[1])) + 1.001, spanY = r * (abs(m[2]) + abs(m[3])) + 1.001
            guard cx - spanX >= 0, cy - spanY >= 0, cx + spanX < Double(w - 1), cy + spanY < Double(image.height - 1)
            else { return nil }
            image.pixels.withUnsafeBufferPointer { px in
                func read(_ x: Double, _ y: Double) -> Double {
                    let x0 = Int(x), y0 = Int(y)
                    let fx = x - Double(x0), fy = y - Double(y0)
                    let i = y0 * w + x0
                    let a = Double(px[i]), b = Double(px[i + 1]), c = Double(px[i + w]), d = Double(px[i + w + 1])
                    let top = a + fx * (b - a), bottom = c + fx * (d - c)
                    return top + fy * (bottom - top)
                }
                var k = 0
                for iv in 0..<side {
                    let v = Double(iv) - r
                    for iu in 0..<side {
                        let u = Double(iu) - r
                        let x = cx + m[0] * u + m[1] * v, y = cy + m[2] * u + m[3] * v
                        s[k] = read(x, y)
                        gx[k] = 0.5 * (read(x + 1, y) - read(x - 1, y))
                        gy[k] = 0.5 * (read(x, y + 1) - read(x, y - 1))
                        k += 1
                    }
                }
            }
            if iteration == 0 {
                // The gain and offset that best map these reads onto the reference (least squares).
                var mean = 0.0
                for value in s { mean += value }
                mean /= Double(count)
                var covariance = 0.0, variance = 0.0
                reference.values.withUnsafeBufferPointer { t in
                    for k in 0..<count {
                        covariance += (s[k] - mean) * Double(t[k]); variance += (s[k] - mean) * (s[k] - mean)
                    }
                }
                guard variance > 0 else { return nil }
                gain = covariance / variance
                offset = -gain * mean
            }
            // Normal equations of the residuals gain·I(x(u, v)) + offset − T(u, v) in (m0, m1, m2, m3, gain, offset).
            var h = [Double](repeating: 0, count: 36), b = [Double](repeating: 0, count: 6)
            var j = [Double](repeating: 0, count: 6)
            reference.values.withUnsafeBufferPointer { t in
                var k = 0
                for iv in 0..<side {
                    let v = Double(iv) - r
                    for iu in 0..<side {
                        let u = Double(iu) - r
                        let e = gain * s[k] + offset - Double(t[k])
                        j[0] = gain * gx[k] * u; j[1] = gain * gx[k] * v
                        j[2] = gain * gy[k] * u; j[3] = gain * gy[k] * v
                        j[4] = s[k]; j[5] = 1
                        for p in 0..<6 {
                            b[p] -= j[p] * e
                            for q in p..<6 { h[q + p * 6] += j[q] * j[p] } // lower triangle, column-major
                        }
                        k += 1
                    }
                }
            }
            let solved = h.withUnsafeMutableBufferPointer { hp in
                b.withUnsafeMutableBufferPointer { bp -> Bool in
                    guard DenseKernels.choleskyLower(hp.baseAddress!, n: 6) else { return false }
                    DenseKernels.forwardSubstitute(UnsafePointer(hp.baseAddress!), n: 6, bp.baseAddress!)
                    // Back substitution Lᵀ δ = y.
                    for p in stride(from: 5, through: 0, by: -1) {
                        var value = bp[p]
                        for q in (p + 1)..<6 { value -= hp[q + p * 6] * bp[q] }
                        bp[p] = value / hp[p + p * 6]
                    }
                    return true
                }
            }
            guard solved else { return nil }
            for p in 0..<4 { m[p] += b[p] }
            gain += b[4]; offset += b[5]
            guard m.allSatisfy(\.isFinite) else { return nil }
            if abs(b[0]) + abs(b[1]) + abs(b[2]) + abs(b[3]) < 1e-3 { break }
        }
        return (SIMD2(Float(m[0]), Float(m[2])), SIMD2(Float(m[1]), Float(m[3])))
    }

    /// The singular values of the linear map taking the axes `(u0, v0)` to `(u1, v1)` (`M1 · M0⁻¹`, M the matrix of
    /// the axes as columns), smaller first; `nil` when `(u0, v0)` is singular.
    static func stretch(from u0: SIMD2<Float>, _ v0: SIMD2<Float>, to u1: SIMD2<Float>, _ v1: SIMD2<Float>) -> (Double, Double)? {
        let a0 = Double(u0.x), b0 = Double(v0.x), c0 = Double(u0.y), d0 = Double(v0.y)
        let det = a0 * d0 - b0 * c0
        guard abs(det) > 1e-12 else { return nil }
        // M0⁻¹ = [d0 −b0; −c0 a0] / det
        let a1 = Double(u1.x), b1 = Double(v1.x), c1 = Double(u1.y), d1 = Double(v1.y)
        let p = (a1 * d0 - b1 * c0) / det, q = (-a1 * b0 + b1 * a0) / det
        let r = (c1 * d0 - d1 * c0) / det, s = (-c1 * b0 + d1 * a0) / det
        // Singular values of [p q; r s]: from the trace and determinant of its Gram matrix.
        let t = p * p + q * q + r * r + s * s, dt = abs(p * s - q * r)
        let disc = max(0, t * t / 4 - dt * dt).squareRoot()
        let big = (t / 2 + disc).squareRoot(), small = max(0, t / 2 - disc).squareRoot()
        return (small, big)
    }
}
