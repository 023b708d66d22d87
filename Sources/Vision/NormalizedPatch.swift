import Imaging

/// A square window of intensities sampled around an image point, normalised to zero mean and unit norm, so that
/// the dot product of two is their zero-mean normalised cross-correlation (ZNCC, in [-1, 1]).
///
/// The window is `side × side` samples on the grid `centre + u·axisU + v·axisV` (u, v = −r…r, r = side / 2; axes in
/// pixels per sample), read bilinearly from the image; a window that reaches outside the image is not made. With
/// the image axes `(1, 0)` and `(0, 1)` it is the plain window; the feature tracker passes the axes a track's birth
/// window has after the camera's rotation since (`FeatureTracker`'s appearance check), so a turn of the camera
/// does not read as a change of appearance.
public struct NormalizedPatch: Equatable, Sendable {
    /// The normalised samples, row by row (`side * side`); all zero for a flat window.
    public private(set) var values: [Float]
    /// Samples per side (odd).
    public let side: Int
    /// Whether the window had any contrast (a flat window has no correlation with anything).
    public var hasContrast: Bool { norm > 0 }
    /// Standard deviation of the raw samples, intensity units (0 for a flat window).
    public let norm: Float

    /// Samples `image` around `centre` (pixels, (0, 0) the centre of the top-left pixel) along `axisU` and `axisV`;
    /// `nil` when the window reaches outside the image (a window partly made up is no evidence).
    public init?(image: GrayImage, centre: SIMD2<Float>, axisU: SIMD2<Float> = SIMD2(1, 0),
                 axisV: SIMD2<Float> = SIMD2(0, 1), side: Int = 9) {
        precondition(side >= 1 && side % 2 == 1, "NormalizedPatch: side must be odd")
        let r = Float(side / 2)
        let cx = centre.x, cy = centre.y, ux = axisU.x, uy = axisU.y, vx = axisV.x, vy = axisV.y
        // The window is the parallelogram of its four corner samples; bilinear reads need 0 ≤ x < width − 1 (and y),
        // kept with a margin for the rounding of the sample positions stepped along the axes.
        let spanX = r * (abs(ux) + abs(vx)) + 1e-3, spanY = r * (abs(uy) + abs(vy)) + 1e-3
        guard cx - spanX >= 0, cy - spanY >= 0, cx + spanX < Float(image.width - 1), cy + spanY < Float(image.height - 1)
        else { return nil }
        self.side = side
        let count = side * side
        let w = image.width
        var sum: Float = 0
        var samples = [Float](unsafeUninitializedCapacity: count) { out, initialized in
            sum = image.pixels.withUnsafeBufferPointer { px -> Float in
                var total: Float = 0
                var k = 0
                // Positions in 16.16 fixed point: stepping along the axes and splitting into pixel and fraction
                // without a float-to-integer conversion (and its range checks) per sample. Every position is
                // inside the image (checked above), so none is negative or overflows.
                let scale: Float = 65536
                let stepX = Int(ux * scale), stepY = Int(uy * scale)
                for v in 0..<side {
                    let dv = Float(v) - r
                    var xf = Int((cx + dv * vx - r * ux) * scale), yf = Int((cy + dv * vy - r * uy) * scale)
                    for _ in 0..<side {
                        let x0 = xf &>> 16, y0 = yf &>> 16
                        let fx = Float(xf & 0xFFFF) * (1 / scale), fy = Float(yf & 0xFFFF) * (1 / scale)
                        let i = y0 &* w &+ x0
                        let a = Float(px[i]), b = Float(px[i &+ 1]), c = Float(px[i &+ w]), d = Float(px[i &+ w &+ 1])
                        let top = a + fx * (b - a), bottom = c + fx * (d - c)
                        let value = top + fy * (bottom - top)
                        out[k] = value; total += value; k &+= 1
                        xf &+= stepX; yf &+= stepY
                    }
                }
                return total
            }
            initialized = count
        }
        let mean = sum / Float(count)
        var squares: Float = 0
        for i in 0..<count { samples[i] -= mean; squares += samples[i] * samples[i] }
        let n = squares.squareRoot()
        // Below a hundredth of an intensity unit per sample the window is flat (rounding noise only).
        if n > 0.01 * Float(count).squareRoot() {
            let inverse = 1 / n
            for i in 0..<count { samples[i] *= inverse }
            norm = n / Float(count).squareRoot()
        } else {
            for i in 0..<count { samples[i] = 0 }
            norm = 0
        }
        values = samples
    }

    /// The ZNCC of the two windows, in [-1, 1]; 0 when either is flat. Both must have the same side.
    public func correlation(with other: NormalizedPatch) -> Float {
        precondition(side == other.side, "NormalizedPatch: sides differ")
        var dot: Float = 0
        values.withUnsafeBufferPointer { a in
            other.values.withUnsafeBufferPointer { b in
                for i in 0..<a.count { dot += a[i] * b[i] }
            }
        }
        return dot
    }
}
