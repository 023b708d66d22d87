import COpenCV

/// Undistortion of pixel positions to undistorted normalised image coordinates (`x/z, y/z` in
/// the camera frame: x right, y down, z forward), for the two lens models of EuRoC/Kalibr.
///
/// `Imaging` does not depend on `Sensors`; pass the numbers of a `CameraModel` here.
public enum Undistortion {
    /// Pinhole intrinsics: focal lengths and principal point, pixels.
    public struct Intrinsics: Equatable, Sendable {
        public var fx: Double, fy: Double, cx: Double, cy: Double
        /// Intrinsics from focal lengths and principal point, pixels.
        public init(fx: Double, fy: Double, cx: Double, cy: Double) { self.fx = fx; self.fy = fy; self.cx = cx; self.cy = cy }
    }

    /// Radial-tangential (OpenCV plumb-bob) undistortion by iterative inversion.
    /// - Parameters:
    ///   - pixels: distorted pixel positions.
    ///   - coefficients: OpenCV order `k1, k2, p1, p2` (4), plus `k3` (5), or up to `k6` (8).
    ///   - maxIterations: fixed-point iterations at most (OpenCV's default of 5 is not enough for
    ///     1e-6 accuracy near the image corners of wide lenses).
    ///   - epsilon: stop when the re-distorted point is this close to the input (normalised units).
    /// - Returns: undistorted normalised coordinates, one per input pixel; `nil` where the
    ///   inversion failed (its re-projection misses the pixel by more than 1e-3 px, e.g. far
    ///   outside the calibrated field of view).
    public static func radialTangential(_ pixels: [SIMD2<Double>], intrinsics: Intrinsics, coefficients: [Double],
                                        maxIterations: Int = 100, epsilon: Double = 1e-14) throws -> [SIMD2<Double>?] {
        guard [4, 5, 8].contains(coefficients.count) else {
            throw ImagingError.invalidArgument(message: "radial-tangential needs 4, 5 or 8 coefficients, got \(coefficients.count)")
        }
        return try run(pixels, intrinsics) { src, count, k, dst in
            wt_undistort_radtan(src, count, k, coefficients, Int32(coefficients.count), Int32(clamping: maxIterations),
                                epsilon, dst)
        }
    }

    /// Equidistant (Kannala-Brandt, OpenCV fisheye) undistortion by Newton iteration on the
    /// incidence angle θ: θ_d = θ (1 + k1 θ² + k2 θ⁴ + k3 θ⁶ + k4 θ⁸).
    /// - Parameters:
    ///   - coefficients: `k1, k2, k3, k4`.
    /// - Returns: undistorted normalised coordinates, one per input pixel; `nil` where the
    ///   inversion failed (incidence angle of 90 degrees or more, which has no normalised
    ///   coordinates, or no convergence to 1e-3 px).
    public static func equidistant(_ pixels: [SIMD2<Double>], intrinsics: Intrinsics, coefficients: [Double],
                                   maxIterations: Int = 20, epsilon: Double = 1e-14) throws -> [SIMD2<Double>?] {
        guard coefficients.count == 4 else {
            throw ImagingError.invalidArgument(message: "equidistant needs 4 coefficients, got \(coefficients.count)")
        }
        return try run(pixels, intrinsics) { src, count, k, dst in
            wt_undistort_equidistant(src, count, k, coefficients, Int32(clamping: maxIterations), epsilon, dst)
        }
    }

    private static func run(
        _ pixels: [SIMD2<Double>], _ intrinsics: Intrinsics,
        _ call: (UnsafePointer<Double>?, Int32, UnsafePointer<wt_intrinsics>, UnsafeMutablePointer<Double>?) -> wt_status
    ) throws -> [SIMD2<Double>?] {
        let count = try checkCount(pixels.count, "undistortion points")
        if pixels.isEmpty { return [] }
        let flat = pixels.flatMap { [$0.x, $0.y] }
        var out = [Double](repeating: 0, count: flat.count)
        var k = wt_intrinsics(fx: intrinsics.fx, fy: intrinsics.fy, cx: intrinsics.cx, cy: intrinsics.cy)
        let status = flat.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in call(src.baseAddress, count, &k, dst.baseAddress) }
        }
        try checkStatus(status)
        return (0..<pixels.count).map {
            let p = SIMD2(out[2 * $0], out[2 * $0 + 1])
            return p.x.isFinite && p.y.isFinite ? p : nil
        }
    }
}
