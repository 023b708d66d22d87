import Foundation
import Testing
@testable import Imaging

/// Row-major 3x3 helpers for the epipolar tests (here and in `FivePointSolverTests`).
enum M3 {
    static func mul(_ a: [Double], _ b: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: 9)
        for r in 0..<3 {
            for c in 0..<3 {
                var sum = 0.0
                for k in 0..<3 { sum += a[3 * r + k] * b[3 * k + c] }
                out[3 * r + c] = sum
            }
        }
        return out
    }
    static func apply(_ a: [Double], _ v: SIMD3<Double>) -> SIMD3<Double> {
        let x: Double = a[0] * v.x + a[1] * v.y + a[2] * v.z
        let y: Double = a[3] * v.x + a[4] * v.y + a[5] * v.z
        let z: Double = a[6] * v.x + a[7] * v.y + a[8] * v.z
        return SIMD3(x, y, z)
    }
    static func transpose(_ a: [Double]) -> [Double] { (0..<9).map { a[3 * ($0 % 3) + $0 / 3] } }
    static func skew(_ t: SIMD3<Double>) -> [Double] { [0, -t.z, t.y, t.z, 0, -t.x, -t.y, t.x, 0] }
    static func rotation(axis: SIMD3<Double>, angle: Double) -> [Double] {
        let k = axis / (axis * axis).sum().squareRoot()
        let K = skew(k), K2 = mul(K, K)
        let I: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        return (0..<9).map { I[$0] + sin(angle) * K[$0] + (1 - cos(angle)) * K2[$0] }
    }
    static func normalised(_ a: [Double]) -> [Double] {
        let n = a.map { $0 * $0 }.reduce(0, +).squareRoot()
        return a.map { $0 / n }
    }
    /// Distance between two matrices defined up to scale and sign.
    static func projectiveDistance(_ a: [Double], _ b: [Double]) -> Double {
        let na = normalised(a), nb = normalised(b)
        let plus = zip(na, nb).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)
        let minus = zip(na, nb).map { ($0 + $1) * ($0 + $1) }.reduce(0, +)
        return min(plus, minus).squareRoot()
    }
    /// Sampson distance of a correspondence to the model M (x2ᵀ M x1 = 0).
    static func sampson(_ m: [Double], _ x1: SIMD2<Double>, _ x2: SIMD2<Double>) -> Double {
        let p1 = SIMD3(x1.x, x1.y, 1), p2 = SIMD3(x2.x, x2.y, 1)
        let l2 = apply(m, p1), l1 = apply(transpose(m), p2)
        let e = (p2 * l2).sum()
        return abs(e) / (l2.x * l2.x + l2.y * l2.y + l1.x * l1.x + l1.y * l1.y).squareRoot()
    }
}

@Suite struct EpipolarRANSACTests {
    /// Relative pose: p_C2 = R * p_C1 + t.
    static let R = M3.rotation(axis: SIMD3(0.2, 1, 0.1), angle: 0.15)
    static let t = SIMD3<Double>(0.4, 0.05, 0.1)
    static let E = M3.mul(M3.skew(t), R)

    /// 200 correspondences in normalised coordinates, every fifth replaced by a random point
    /// (20 % outliers), inliers with 1e-4 (≈ 0.05 px) uniform noise.
    static func correspondences() -> (x1: [SIMD2<Double>], x2: [SIMD2<Double>], outlier: [Bool]) {
        var rng = SyntheticImages.LCG(seed: 99)
        var x1: [SIMD2<Double>] = [], x2: [SIMD2<Double>] = [], outlier: [Bool] = []
        for i in 0..<200 {
            let p1 = SIMD3(rng.uniform(-2, 2), rng.uniform(-1.5, 1.5), rng.uniform(3, 9))
            let p2 = M3.apply(R, p1) + t
            let noise = { SIMD2(rng.uniform(-1e-4, 1e-4), rng.uniform(-1e-4, 1e-4)) }
            x1.append(SIMD2(p1.x / p1.z, p1.y / p1.z) + noise())
            if i % 5 == 0 {
                x2.append(SIMD2(rng.uniform(-0.5, 0.5), rng.uniform(-0.4, 0.4)))
                outlier.append(true)
            } else {
                x2.append(SIMD2(p2.x / p2.z, p2.y / p2.z) + noise())
                outlier.append(false)
            }
        }
        return (x1, x2, outlier)
    }

    @Test func essentialRecoversPoseAndFlagsOutliers() throws {
        let (x1, x2, outlier) = Self.correspondences()
        let threshold = 1e-3
        let result = try EpipolarRANSAC.essential(x1, x2, threshold: threshold)
        // 1e-4 noise perturbs the unit-norm E by ~4e-4 (measured); 3e-3 leaves margin and still
        // rejects a wrong pose (a 0.01 rad rotation error moves E by more).
        let distance = M3.projectiveDistance(result.matrix, Self.E)
        #expect(distance < 3e-3, "E error \(distance)")
        // Every true inlier is kept; outliers are flagged unless they happen to lie on their
        // epipolar line (checked against the true model).
        for i in x1.indices where !outlier[i] { #expect(result.inliers[i], "inlier \(i) rejected") }
        for i in x1.indices where outlier[i] && M3.sampson(Self.E, x1[i], x2[i]) > 2 * threshold {
            #expect(!result.inliers[i], "outlier \(i) accepted")
        }
        #expect(result.inlierCount == result.inliers.filter { $0 }.count)
        #expect(result.inlierCount >= 160 && result.inlierCount <= 165)

        let pose = try EpipolarRANSAC.recoverPose(essential: result.matrix, x1, x2, inliers: result.inliers)
        let rotationError = zip(pose.R_C2_C1, Self.R).map { abs($0 - $1) }.max()!
        #expect(rotationError < 2e-3, "R error \(rotationError)")
        let tUnit = Self.t / (Self.t * Self.t).sum().squareRoot()
        let tError = ((pose.t_C2_C1 - tUnit) * (pose.t_C2_C1 - tUnit)).sum().squareRoot()
        #expect(tError < 1e-2, "t error \(tError)")
        #expect(pose.inFrontCount >= 155)
    }

    /// Both rotations of an essential matrix: one is the true rotation, the other the true one turned half a
    /// revolution about the baseline; the unit translation up to sign.
    @Test func anEssentialMatrixAdmitsTwoRotations() throws {
        let (R1, R2, t) = try EpipolarRANSAC.rotations(ofEssential: Self.E)
        let e1 = zip(R1, Self.R).map { abs($0 - $1) }.max()!, e2 = zip(R2, Self.R).map { abs($0 - $1) }.max()!
        #expect(min(e1, e2) < 1e-9, "\(e1) \(e2)")
        #expect(max(e1, e2) > 0.5) // the other one is far from it
        let tUnit = Self.t / (Self.t * Self.t).sum().squareRoot()
        let tError = min(((t - tUnit) * (t - tUnit)).sum(), ((t + tUnit) * (t + tUnit)).sum()).squareRoot()
        #expect(tError < 1e-9)
        #expect(throws: ImagingError.self) { try EpipolarRANSAC.rotations(ofEssential: [1, 2, 3]) }
        #expect(throws: ImagingError.self) { try EpipolarRANSAC.rotations(ofEssential: [.nan, 0, 0, 0, 0, 0, 0, 0, 0]) }
    }

    /// The USAC variant finds the same model and inliers on the same data (40 of 200 gross outliers).
    @Test func essentialByUSACRecoversTheModelAndFlagsOutliers() throws {
        let (x1, x2, outlier) = Self.correspondences()
        let threshold = 1e-3
        let result = try EpipolarRANSAC.essential(x1, x2, threshold: threshold, estimator: .usac)
        // Same bound as classic RANSAC above (noise moves E by ~4e-4).
        let distance = M3.projectiveDistance(result.matrix, Self.E)
        #expect(distance < 3e-3, "E error \(distance)")
        for i in x1.indices where !outlier[i] { #expect(result.inliers[i], "inlier \(i) rejected") }
        for i in x1.indices where outlier[i] && M3.sampson(Self.E, x1[i], x2[i]) > 2 * threshold {
            #expect(!result.inliers[i], "outlier \(i) accepted")
        }
        #expect(result.inlierCount >= 160 && result.inlierCount <= 165)
        // Repeatable: USAC is seeded deterministically.
        #expect(try EpipolarRANSAC.essential(x1, x2, threshold: threshold, estimator: .usac) == result)
    }

    @Test func fundamentalInPixels() throws {
        let (x1, x2, outlier) = Self.correspondences()
        let (f, cx, cy) = (460.0, 376.0, 240.0)
        let toPixels = { (p: SIMD2<Double>) in SIMD2(f * p.x + cx, f * p.y + cy) }
        let result = try EpipolarRANSAC.fundamental(x1.map(toPixels), x2.map(toPixels), threshold: 0.5, confidence: 0.999)
        // F = K⁻ᵀ E K⁻¹ with K = [f 0 cx; 0 f cy; 0 0 1].
        let kInv: [Double] = [1 / f, 0, -cx / f, 0, 1 / f, -cy / f, 0, 0, 1]
        let F = M3.mul(M3.transpose(kInv), M3.mul(Self.E, kInv))
        // The 8-point estimate is noisier than the 5-point essential (measured ~3e-3): 1e-2.
        #expect(M3.projectiveDistance(result.matrix, F) < 1e-2)
        let flaggedOutliers = x1.indices.filter { outlier[$0] && !result.inliers[$0] }.count
        #expect(flaggedOutliers >= 38) // of 40 (a random point may fall near its epipolar line)
        #expect(x1.indices.filter { !outlier[$0] && result.inliers[$0] }.count >= 158) // of 160
    }

    @Test func rejectsBadInput() {
        let few = [SIMD2<Double>(0, 0), SIMD2(0.1, 0), SIMD2(0, 0.1), SIMD2(0.1, 0.1)]
        #expect(throws: ImagingError.self) { try EpipolarRANSAC.essential(few, few, threshold: 1e-3) }
        #expect(throws: ImagingError.self) { try EpipolarRANSAC.essential(few, Array(few.prefix(3)), threshold: 1e-3) }
        let (x1, x2, _) = Self.correspondences()
        #expect(throws: ImagingError.self) { try EpipolarRANSAC.essential(x1, x2, threshold: -1) }
        var bad = x1
        bad[3] = SIMD2(.nan, 0)
        #expect(throws: ImagingError.self) { try EpipolarRANSAC.essential(bad, x2, threshold: 1e-3) }
    }
}
