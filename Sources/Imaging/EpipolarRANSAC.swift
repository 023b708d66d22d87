import COpenCV

/// Robust two-view epipolar geometry (OpenCV's RANSAC estimators, and WorldTrack's own five-point solver in a copy
/// of OpenCV's RANSAC loop).
///
/// Correspondence i is `points1[i]` in view 1 and `points2[i]` in view 2. Matrices are 3x3,
/// row-major, with the epipolar constraint `[x2, 1] · M · [x1, 1]ᵀ = 0`. RANSAC is seeded
/// deterministically (OpenCV's generator and seed), so results are repeatable.
public enum EpipolarRANSAC {
    /// A RANSAC model and its inliers.
    public struct Result: Equatable, Sendable {
        /// The 3x3 matrix, row-major (defined up to scale).
        public var matrix: [Double]
        /// Per correspondence: true when consistent with `matrix` within the threshold.
        public var inliers: [Bool]
        /// Number of inliers.
        public var inlierCount: Int
        /// Element (row, column).
        public subscript(row: Int, column: Int) -> Double { matrix[3 * row + column] }
    }

    /// The robust estimator of `essential`.
    public enum EssentialEstimator: Sendable, Equatable {
        /// OpenCV's classic RANSAC over its five-point solver (`cv::findEssentialMat`, `cv::RANSAC`).
        case ransac
        /// A copy of OpenCV's classic RANSAC loop (the same random samples, Sampson test and stopping rule) around
        /// WorldTrack's own five-point solver (Nistér's, with a root finder that brackets only the real roots): twelve
        /// to fifteen times fewer instructions. Among models with equally many inliers it keeps the one whose inliers'
        /// summed squared Sampson error is smallest, where OpenCV keeps the first its solver lists. On well-posed
        /// problems the result is `.ransac`'s up to rounding; on frames with little motion the two solvers' rounding
        /// differs more and so do the chosen models (docs/ACCURACY.md, "Experiments that did not land").
        case fastRansac
        /// OpenCV's USAC framework (`USAC_DEFAULT`: LO-RANSAC, Stewenius five-point solver): several times
        /// faster than `.ransac` on a frame's tracks, with different (still repeatable) inlier sets.
        case usac
    }

    /// Essential matrix from undistorted normalised coordinates (`x/z, y/z`; identity K) by
    /// RANSAC over the five-point solver (`estimator` picks the RANSAC variant).
    /// - Parameters:
    ///   - threshold: inlier bound on the point-to-epipolar-line distance, normalised units
    ///     (pixels divided by the focal length, e.g. 1 px / 460 px ≈ 0.002).
    ///   - confidence: desired probability of an outlier-free sample, in (0, 1).
    ///   - maxIterations: RANSAC iterations at most.
    /// - Throws: `.invalidArgument` with fewer than 5 correspondences, `.openCV` when no model is found.
    public static func essential(_ points1: [SIMD2<Double>], _ points2: [SIMD2<Double>], threshold: Double,
                                 confidence: Double = 0.999, maxIterations: Int = 1000,
                                 estimator: EssentialEstimator = .ransac) throws -> Result {
        try estimate(points1, points2) { p1, p2, n, m, mask, inliers in
            switch estimator {
            case .ransac:
                return wt_find_essential(p1, p2, n, threshold, confidence, Int32(clamping: maxIterations), m, mask, inliers)
            case .fastRansac:
                return wt_find_essential_fast(p1, p2, n, threshold, confidence, Int32(clamping: maxIterations), m, mask,
                                              inliers)
            case .usac:
                return wt_find_essential_usac(p1, p2, n, threshold, confidence, Int32(clamping: maxIterations), m, mask, inliers)
            }
        }
    }

    /// The five-point solver alone (Nistér): every essential matrix (row-major, unit Frobenius norm, sign arbitrary,
    /// at most ten) with `[x2, 1] · E · [x1, 1]ᵀ = 0` for five correspondences in normalised coordinates. Empty for a
    /// degenerate sample.
    /// - Throws: `.invalidArgument` unless there are exactly five finite correspondences.
    public static func fivePointEssentials(_ points1: [SIMD2<Double>], _ points2: [SIMD2<Double>]) throws -> [[Double]] {
        guard points1.count == 5, points2.count == 5 else {
            throw ImagingError.invalidArgument(message: "the five-point solver needs 5 correspondences, got \(points1.count) and \(points2.count)")
        }
        let p1 = points1.flatMap { [$0.x, $0.y] }, p2 = points2.flatMap { [$0.x, $0.y] }
        var out = [Double](repeating: 0, count: 90)
        var count: Int32 = 0
        try checkStatus(wt_essential_five_point(p1, p2, &out, &count))
        return (0..<Int(count)).map { Array(out[9 * $0..<9 * $0 + 9]) }
    }

    /// The real roots, ascending, of `coefficients[0] + coefficients[1] x + … + coefficients[n] xⁿ` (n ≤ 10): the
    /// five-point solver's root finder. It brackets each root between the real roots of the derivative, so a
    /// multiple root where the polynomial only touches zero may be missed.
    /// - Throws: `.invalidArgument` for more than 11 coefficients or a non-finite one.
    public static func realRoots(ofPolynomial coefficients: [Double]) throws -> [Double] {
        guard !coefficients.isEmpty else { return [] }
        var roots = [Double](repeating: 0, count: max(coefficients.count - 1, 1))
        var count: Int32 = 0
        try checkStatus(wt_real_polynomial_roots(coefficients, Int32(clamping: coefficients.count - 1), &roots, &count))
        return Array(roots.prefix(Int(count)))
    }

    /// Fundamental matrix by RANSAC (7/8-point) in the points' own units (pixels, or normalised).
    /// - Parameters:
    ///   - threshold: inlier bound on the point-to-epipolar-line distance, in the points' units.
    /// - Throws: `.invalidArgument` with fewer than 8 correspondences, `.openCV` when no model is found.
    public static func fundamental(_ points1: [SIMD2<Double>], _ points2: [SIMD2<Double>], threshold: Double,
                                   confidence: Double = 0.99, maxIterations: Int = 1000) throws -> Result {
        try estimate(points1, points2) { p1, p2, n, m, mask, inliers in
            wt_find_fundamental(p1, p2, n, threshold, confidence, Int32(clamping: maxIterations), m, mask, inliers)
        }
    }

    /// A relative pose decomposed from an essential matrix.
    public struct RelativePose: Equatable, Sendable {
        /// Rotation from view-1 camera coordinates to view-2 camera coordinates, row-major 3x3:
        /// `p_C2 = R_C2_C1 * p_C1 + t_C2_C1`.
        public var R_C2_C1: [Double]
        /// Translation of that transform, unit length (scale is unobservable).
        public var t_C2_C1: SIMD3<Double>
        /// Per correspondence: true when used and triangulated in front of both cameras.
        public var inFront: [Bool]
        /// Number of correspondences in front of both cameras.
        public var inFrontCount: Int
    }

    /// Picks the rotation and translation of an essential matrix (x2ᵀ E x1 = 0, normalised
    /// coordinates) that put the most correspondences in front of both cameras (cv::recoverPose).
    /// - Parameters:
    ///   - inliers: optional selection of correspondences to use (e.g. `Result.inliers`).
    public static func recoverPose(essential: [Double], _ points1: [SIMD2<Double>], _ points2: [SIMD2<Double>],
                                   inliers: [Bool]? = nil) throws -> RelativePose {
        guard essential.count == 9 else {
            throw ImagingError.invalidArgument(message: "essential matrix needs 9 elements, got \(essential.count)")
        }
        let count = try checkPairs(points1, points2)
        if let inliers, inliers.count != points1.count {
            throw ImagingError.invalidArgument(message: "recoverPose: \(inliers.count) inlier flags for \(points1.count) points")
        }
        let p1 = points1.flatMap { [$0.x, $0.y] }, p2 = points2.flatMap { [$0.x, $0.y] }
        let mask: [UInt8]? = inliers?.map { $0 ? 1 : 0 }
        var R = [Double](repeating: 0, count: 9), t = [Double](repeating: 0, count: 3)
        var front = [UInt8](repeating: 0, count: points1.count)
        var good: Int32 = 0
        let status = withOptionalBuffer(mask) { m in
            wt_recover_pose(essential, p1, p2, count, m, &R, &t, &front, &good)
        }
        try checkStatus(status)
        return RelativePose(R_C2_C1: R, t_C2_C1: SIMD3(t[0], t[1], t[2]), inFront: front.map { $0 != 0 },
                            inFrontCount: Int(good))
    }

    /// The two rotations an essential matrix admits (`E = [t]× R`, row-major, view 1 to view 2: `p_C2 = R p_C1 + t`),
    /// and its unit translation up to sign (cv::decomposeEssentialMat). Unlike `recoverPose` it needs no points:
    /// where the translation is too small for the points' depths to be told apart (cheirality), the caller picks.
    public static func rotations(ofEssential essential: [Double]) throws -> (R1: [Double], R2: [Double], t: SIMD3<Double>) {
        guard essential.count == 9 else {
            throw ImagingError.invalidArgument(message: "essential matrix needs 9 elements, got \(essential.count)")
        }
        var R1 = [Double](repeating: 0, count: 9), R2 = [Double](repeating: 0, count: 9), t = [Double](repeating: 0, count: 3)
        try checkStatus(wt_decompose_essential(essential, &R1, &R2, &t))
        return (R1, R2, SIMD3(t[0], t[1], t[2]))
    }

    private static func checkPairs(_ points1: [SIMD2<Double>], _ points2: [SIMD2<Double>]) throws -> Int32 {
        guard points1.count == points2.count else {
            throw ImagingError.invalidArgument(message: "\(points1.count) points in view 1 but \(points2.count) in view 2")
        }
        return try checkCount(points1.count, "correspondences")
    }

    private static func withOptionalBuffer<R>(_ bytes: [UInt8]?, _ body: (UnsafePointer<UInt8>?) -> R) -> R {
        guard let bytes else { return body(nil) }
        return bytes.withUnsafeBufferPointer { body($0.baseAddress) }
    }

    private static func estimate(
        _ points1: [SIMD2<Double>], _ points2: [SIMD2<Double>],
        _ call: (UnsafePointer<Double>, UnsafePointer<Double>, Int32, UnsafeMutablePointer<Double>,
                 UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<Int32>) -> wt_status
    ) throws -> Result {
        let count = try checkPairs(points1, points2)
        var matrix = [Double](repeating: 0, count: 9)
        var mask = [UInt8](repeating: 0, count: max(points1.count, 1))
        var inlierCount: Int32 = 0
        guard !points1.isEmpty else { throw ImagingError.invalidArgument(message: "no correspondences") }
        // A SIMD2<Double> is two Doubles (x, y), 16 bytes with no padding: the arrays are already the C layer's layout.
        assert(MemoryLayout<SIMD2<Double>>.stride == 2 * MemoryLayout<Double>.stride)
        let status = points1.withUnsafeBufferPointer { b1 in
            points2.withUnsafeBufferPointer { b2 in
                b1.baseAddress!.withMemoryRebound(to: Double.self, capacity: 2 * b1.count) { p1 in
                    b2.baseAddress!.withMemoryRebound(to: Double.self, capacity: 2 * b2.count) { p2 in
                        call(p1, p2, count, &matrix, &mask, &inlierCount)
                    }
                }
            }
        }
        try checkStatus(status)
        return Result(matrix: matrix, inliers: mask.prefix(points1.count).map { $0 != 0 }, inlierCount: Int(inlierCount))
    }
}
