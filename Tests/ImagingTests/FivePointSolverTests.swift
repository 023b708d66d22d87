import Foundation
import Testing
@testable import Imaging

/// WorldTrack's own five-point solver and the RANSAC around it (`EpipolarRANSAC.essential`, `.fastRansac`), checked
/// against the geometry and against OpenCV's classic RANSAC (`.ransac`), whose loop it copies.
@Suite struct FivePointSolverTests {
    /// A random two-view problem: rotation of up to ~0.3 rad, baseline of unit length in a random direction, points
    /// 2–10 m in front of camera 1, correspondences in normalised coordinates (x/z, y/z).
    struct Problem {
        var R: [Double]   // row-major, p_C2 = R p_C1 + t
        var t: SIMD3<Double>
        var x1: [SIMD2<Double>] = []
        var x2: [SIMD2<Double>] = []
        var outlier: [Bool] = []
        var E: [Double] { M3.mul(M3.skew(t), R) }

        init(rng: inout SyntheticImages.LCG, count: Int, noise: Double = 0, outlierFraction: Double = 0) {
            let axis = SIMD3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1))
            R = M3.rotation(axis: axis, angle: rng.uniform(0, 0.3))
            let direction = SIMD3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1))
            t = direction / (direction * direction).sum().squareRoot()
            while x1.count < count {
                let p1 = SIMD3(rng.uniform(-3, 3), rng.uniform(-2, 2), rng.uniform(2, 10))
                let p2 = M3.apply(R, p1) + t
                guard p2.z > 0.5 else { continue }
                let n1 = SIMD2(rng.uniform(-noise, noise), rng.uniform(-noise, noise))
                let n2 = SIMD2(rng.uniform(-noise, noise), rng.uniform(-noise, noise))
                x1.append(SIMD2(p1.x / p1.z, p1.y / p1.z) + n1)
                let isOutlier = rng.uniform() < outlierFraction
                outlier.append(isOutlier)
                if isOutlier {
                    x2.append(SIMD2(rng.uniform(-0.6, 0.6), rng.uniform(-0.5, 0.5)))
                } else {
                    x2.append(SIMD2(p2.x / p2.z, p2.y / p2.z) + n2)
                }
            }
        }
    }

    /// The largest violation of what makes E an essential matrix consistent with the five correspondences:
    /// x2ᵀ E x1, det E, and E Eᵀ E − ½ trace(E Eᵀ) E (E of unit norm).
    static func violation(_ E: [Double], _ x1: [SIMD2<Double>], _ x2: [SIMD2<Double>]) -> Double {
        var worst = 0.0
        for i in 0..<5 {
            let l = M3.apply(E, SIMD3(x1[i].x, x1[i].y, 1))
            worst = max(worst, abs(x2[i].x * l.x + x2[i].y * l.y + l.z))
        }
        let m0: Double = E[4] * E[8] - E[5] * E[7]
        let m1: Double = E[3] * E[8] - E[5] * E[6]
        let m2: Double = E[3] * E[7] - E[4] * E[6]
        let det: Double = E[0] * m0 - E[1] * m1 + E[2] * m2
        worst = max(worst, abs(det))
        let EEt = M3.mul(E, M3.transpose(E))
        let trace = EEt[0] + EEt[4] + EEt[8]
        let cubic = M3.mul(EEt, E)
        for i in 0..<9 { worst = max(worst, abs(cubic[i] - 0.5 * trace * E[i])) }
        return worst
    }

    /// On 300 exact five-point problems, every returned matrix is an essential matrix through the five
    /// correspondences, and the true one is among them (up to rounding) on all but the rare near-degenerate draw.
    @Test func everySolutionIsAnEssentialMatrixThroughTheFivePointsAndTheTrueOneIsFound() throws {
        var rng = SyntheticImages.LCG(seed: 5)
        var found = 0, solutions = 0, loose = 0
        for _ in 0..<300 {
            let problem = Problem(rng: &rng, count: 5)
            let essentials = try EpipolarRANSAC.fivePointEssentials(problem.x1, problem.x2)
            #expect(essentials.count <= 10 && essentials.count % 2 == 0, "\(essentials.count) solutions")
            solutions += essentials.count
            for E in essentials {
                #expect(abs(E.map { $0 * $0 }.reduce(0, +) - 1) < 1e-12)
                if Self.violation(E, problem.x1, problem.x2) > 1e-9 { loose += 1 }
            }
            let nearest = essentials.map { M3.projectiveDistance($0, problem.E) }.min() ?? .infinity
            if nearest < 1e-8 { found += 1 }
        }
        // Measured: found on 298 of 300; 1 of 1 412 solutions looser than 1e-9.
        #expect(found >= 297, "true essential matrix found on \(found) of 300")
        #expect(loose * 100 <= solutions, "\(loose) of \(solutions) solutions violate the constraints by more than 1e-9")
    }

    /// The solver's root finder: roots known by construction, a polynomial without real roots, low degrees, and
    /// what it refuses.
    @Test func realRootsOfPolynomialsWithKnownRoots() throws {
        // (x + 3)(x + 0.5)(x − 0.25)(x − 1)(x − 2.5)(x² + 1)(x² + 2x + 5) · 0.01: five real roots, four complex.
        var p: [Double] = [0.01]
        for factor in [[3.0, 1], [0.5, 1], [-0.25, 1], [-1, 1], [-2.5, 1], [1, 0, 1], [5, 2, 1]] {
            var next = [Double](repeating: 0, count: p.count + factor.count - 1)
            for (i, a) in p.enumerated() { for (j, b) in factor.enumerated() { next[i + j] += a * b } }
            p = next
        }
        let roots = try EpipolarRANSAC.realRoots(ofPolynomial: p)
        #expect(roots.count == 5)
        for (found, truth) in zip(roots, [-3, -0.5, 0.25, 1, 2.5]) { #expect(abs(found - truth) < 1e-12, "\(found) for \(truth)") }
        // Roots far apart in scale: 1e-3 and 1e3.
        let wide = try EpipolarRANSAC.realRoots(ofPolynomial: [1, -1000.001, 1])
        #expect(wide.count == 2 && abs(wide[0] - 1e-3) < 1e-15 && abs(wide[1] - 1e3) < 1e-9, "\(wide)")
        let none = try EpipolarRANSAC.realRoots(ofPolynomial: [1, 0, 1])            // x² + 1
        #expect(none.isEmpty)
        let linear = try EpipolarRANSAC.realRoots(ofPolynomial: [-6, 2])
        #expect(linear == [3])
        let constant = try EpipolarRANSAC.realRoots(ofPolynomial: [4])
        #expect(constant.isEmpty)
        let leadingZeros = try EpipolarRANSAC.realRoots(ofPolynomial: [-8, 4, 0, 0])
        #expect(leadingZeros == [2])
        #expect(throws: ImagingError.self) { try EpipolarRANSAC.realRoots(ofPolynomial: [Double](repeating: 1, count: 12)) }
        #expect(throws: ImagingError.self) { try EpipolarRANSAC.realRoots(ofPolynomial: [1, .nan, 1]) }
        #expect(throws: ImagingError.self) { try EpipolarRANSAC.fivePointEssentials(Array(repeating: .zero, count: 4), Array(repeating: .zero, count: 4)) }
    }

    /// The RANSAC copies OpenCV's classic one step for step: on 60 noisy problems with 0–40 % outliers and
    /// translation (no ties) it returns the same model (to 1e-8, where an independent RANSAC's minimal-sample models
    /// differ by about 1e-4) and the same inliers on nearly every problem. A different random sampling, inlier test
    /// or stopping rule would show here.
    @Test func ransacAgreesWithOpenCVsClassicRANSAC() throws {
        var rng = SyntheticImages.LCG(seed: 17)
        var sameModel = 0, sameInliers = 0, differingPoints = 0, points = 0
        for k in 0..<60 {
            let problem = Problem(rng: &rng, count: 30 + 3 * k, noise: 0.5 / 460, outlierFraction: Double(k % 5) * 0.1)
            let ours = try EpipolarRANSAC.essential(problem.x1, problem.x2, threshold: 1.0 / 460, maxIterations: 500,
                                                    estimator: .fastRansac)
            let theirs = try EpipolarRANSAC.essential(problem.x1, problem.x2, threshold: 1.0 / 460, maxIterations: 500,
                                                      estimator: .ransac)
            if M3.projectiveDistance(ours.matrix, theirs.matrix) < 1e-8 { sameModel += 1 }
            if ours.inliers == theirs.inliers { sameInliers += 1 }
            differingPoints += zip(ours.inliers, theirs.inliers).filter { $0 != $1 }.count
            points += problem.x1.count
            // The model explains most true inliers (no refinement: the best minimal sample's model, noise ±0.5 px).
            let trueInliers = problem.x1.indices.filter { !problem.outlier[$0] }
            let kept = trueInliers.filter { ours.inliers[$0] }.count
            #expect(kept * 10 >= trueInliers.count * 8, "problem \(k): \(kept) of \(trueInliers.count) true inliers kept")
        }
        // Measured: the same model and inliers on 60 of 60 (and the same inliers on 2 985 of 3 000 problems of a
        // wider harness). With another RNG seed: the same model on 0, the same inliers on 2, 464 of 7 110 flags differ.
        #expect(sameModel >= 57, "same model on \(sameModel) of 60")
        #expect(sameInliers >= 57, "same inliers on \(sameInliers) of 60")
        #expect(differingPoints * 200 <= points, "\(differingPoints) of \(points) inlier flags differ")
    }

    /// Where several solutions of one sample explain every track within the threshold (on real frames: the small
    /// motion between consecutive frames, against a 1 px bound), RANSAC stops at that sample and must pick among
    /// equals. Here a loose bound (20 px) makes the first sample's solutions such a tie on every problem. The tie goes to the
    /// solution that fits the tracks most closely; OpenCV keeps whichever its root finder lists first (the same
    /// solutions, up to rounding), a looser fit on some problems.
    @Test func aTieBetweenEquallySupportedModelsGoesToTheCloserFit() throws {
        var rng = SyntheticImages.LCG(seed: 31)
        var closer = 0, looser = 0, ties = 0, ourTrue = 0, theirTrue = 0
        let threshold = 20.0 / 460
        for _ in 0..<200 {
            let problem = Problem(rng: &rng, count: 100, noise: 0.3 / 460)
            let ours = try EpipolarRANSAC.essential(problem.x1, problem.x2, threshold: threshold, estimator: .fastRansac)
            let theirs = try EpipolarRANSAC.essential(problem.x1, problem.x2, threshold: threshold, estimator: .ransac)
            if M3.projectiveDistance(ours.matrix, problem.E) < 3e-2 { ourTrue += 1 }
            if M3.projectiveDistance(theirs.matrix, problem.E) < 3e-2 { theirTrue += 1 }
            guard ours.inlierCount == theirs.inlierCount else { continue }
            ties += 1
            let fit = { (r: EpipolarRANSAC.Result) -> Double in
                problem.x1.indices.filter { r.inliers[$0] }.map {
                    let s = M3.sampson(r.matrix, problem.x1[$0], problem.x2[$0])
                    return s * s
                }.reduce(0, +)
            }
            let (a, b) = (fit(ours), fit(theirs))
            if a < b * (1 - 1e-6) { closer += 1 }
            if a > b * (1 + 1e-6) { looser += 1 }
        }
        // Measured: equal inlier counts on 200 of 200; a closer fit than OpenCV's on 11, a looser one on 0; the true
        // geometry (to 3e-2) kept on 132, OpenCV's on 129. Without the tie rule (our solver's first solution kept): a looser
        // fit on 5, the true geometry on 127.
        #expect(ties >= 190, "equal inlier counts on \(ties) of 200")
        #expect(looser == 0, "a looser fit kept on \(looser) of \(ties)")
        #expect(closer >= 6, "a closer fit than OpenCV's on \(closer) of \(ties)")
        #expect(ourTrue >= theirTrue, "the true geometry kept on \(ourTrue) of 200, OpenCV's on \(theirTrue)")
    }

    /// Exactly five correspondences: the first solution, every point an inlier (as OpenCV does).
    @Test func fiveCorrespondencesGiveTheFirstSolutionWithEveryPointAnInlier() throws {
        var rng = SyntheticImages.LCG(seed: 23)
        let problem = Problem(rng: &rng, count: 5)
        let result = try EpipolarRANSAC.essential(problem.x1, problem.x2, threshold: 1e-3, estimator: .fastRansac)
        let essentials = try EpipolarRANSAC.fivePointEssentials(problem.x1, problem.x2)
        #expect(result.matrix == essentials.first)
        #expect(result.inlierCount == 5 && result.inliers.allSatisfy { $0 })
    }

    /// Degenerate samples (all five correspondences the same point; no motion) give no solution or a consistent
    /// one, never a crash or a non-finite matrix.
    @Test func degenerateSamplesAreHandled() throws {
        let same = [SIMD2<Double>](repeating: SIMD2(0.1, -0.2), count: 5)
        for E in try EpipolarRANSAC.fivePointEssentials(same, same) {
            let finite = E.allSatisfy { $0.isFinite }
            #expect(finite)
        }
        let points = [SIMD2<Double>(0, 0), SIMD2(0.1, 0), SIMD2(0, 0.1), SIMD2(0.2, 0.3), SIMD2(-0.1, 0.2)]
        for E in try EpipolarRANSAC.fivePointEssentials(points, points) {
            let finite = E.allSatisfy { $0.isFinite }
            #expect(finite)
        }
        let many = (0..<40).map { SIMD2(Double($0 % 7) * 0.05, Double($0 / 7) * 0.04) }
        if let result = try? EpipolarRANSAC.essential(many, many, threshold: 1e-3, estimator: .fastRansac) {
            let finite = result.matrix.allSatisfy { $0.isFinite }
            #expect(finite)
        }
    }
}
