import Foundation
import Geometry
import LinearAlgebra

/// How an estimated trajectory is brought into the ground-truth frame before errors are measured.
public enum AlignmentMethod: String, Sendable, CaseIterable, Codable {
    /// 4-DoF: translation and yaw about the gravity axis z (the standard for VIO, whose position and yaw
    /// are unobservable; roll and pitch errors stay in the result).
    case posyaw
    /// 6-DoF rigid transform (Umeyama without scale).
    case se3
    /// 7-DoF similarity (Umeyama with scale), the standard for monocular methods.
    case sim3
    /// No alignment: the estimate's world frame is taken as the ground truth's.
    case none
}

/// A similarity transform `x ↦ s · R · x + t` mapping the estimate's world frame E to the ground-truth
/// world frame W (`T_W_E` with scale).
public struct SimilarityTransform: Equatable, Sendable {
    /// Rotation `R_W_E`.
    public var rotation: SO3
    /// Translation `p_W_E`, metres.
    public var translation: Vec3
    /// Scale (unitless; 1 for every method but Sim(3)).
    public var scale: Double

    public init(rotation: SO3 = .identity, translation: Vec3 = .zero, scale: Double = 1) {
        self.rotation = rotation; self.translation = translation; self.scale = scale
    }

    public static let identity = SimilarityTransform()

    /// Maps a point from E to W.
    public func act(_ p_E: Vec3) -> Vec3 { scale * rotation.act(p_E) + translation }

    /// Maps a pose `T_E_B` to `T_W_B`: rotation `R_W_E R_E_B`, position `s R_W_E p_E + t`.
    public func act(_ T_E_B: SE3) -> SE3 {
        SE3(rotation: rotation * T_E_B.rotation, translation: act(T_E_B.translation))
    }
}

/// Errors of alignment.
public enum AlignmentError: Error, Equatable, CustomStringConvertible {
    /// Too few pairs for the method (posyaw and se3 need 1, sim3 needs 2 distinct positions … 3 for a unique rotation).
    case tooFewPairs(needed: Int, got: Int)
    /// The positions are degenerate for the method (all equal, so no scale can be found).
    case degenerate(String)
    /// The SVD of the cross-covariance failed.
    case numerical(String)

    public var description: String {
        switch self {
        case .tooFewPairs(let n, let g): return "alignment needs at least \(n) associated poses, got \(g)"
        case .degenerate(let m): return "alignment is degenerate: \(m)"
        case .numerical(let m): return "alignment failed: \(m)"
        }
    }
}

/// Closed-form trajectory alignment (least squares on positions).
public enum Alignment {
    /// The transform minimising `Σ |g_i − (s R e_i + t)|²` over the method's degrees of freedom.
    ///
    /// - Parameters:
    ///   - estimate: estimated positions `p_E` (metres).
    ///   - groundTruth: matching ground-truth positions `p_W` (metres), same count.
    ///   - method: the degrees of freedom.
    public static func align(estimate: [Vec3], groundTruth: [Vec3], method: AlignmentMethod) throws -> SimilarityTransform {
        precondition(estimate.count == groundTruth.count, "align: estimate and ground truth must pair up")
        switch method {
        case .none: return .identity
        case .posyaw:
            guard !estimate.isEmpty else { throw AlignmentError.tooFewPairs(needed: 1, got: 0) }
            return posYaw(estimate: estimate, groundTruth: groundTruth)
        case .se3, .sim3:
            guard !estimate.isEmpty else { throw AlignmentError.tooFewPairs(needed: 1, got: 0) }
            return try umeyama(estimate: estimate, groundTruth: groundTruth, withScale: method == .sim3)
        }
    }

    /// 4-DoF alignment: yaw about z and translation, closed form.
    ///
    /// With centred points `e'`, `g'` the cost is minimised by
    /// `θ = atan2(Σ (e'_x g'_y − e'_y g'_x), Σ (e'_x g'_x + e'_y g'_y))`, then `t = ḡ − R_z(θ) ē`.
    public static func posYaw(estimate: [Vec3], groundTruth: [Vec3]) -> SimilarityTransform {
        let meanE = mean(estimate), meanG = mean(groundTruth)
        var sinTerm = 0.0, cosTerm = 0.0
        for (e, g) in zip(estimate, groundTruth) {
            let a = e - meanE, b = g - meanG
            sinTerm += a.x * b.y - a.y * b.x
            cosTerm += a.x * b.x + a.y * b.y
        }
        // With no horizontal spread (a single pose, or motion along z only) yaw is unobservable: keep 0.
        let yaw = (sinTerm == 0 && cosTerm == 0) ? 0 : atan2(sinTerm, cosTerm)
        let rotation = SO3(angle: yaw, axis: Vec3(0, 0, 1))
        return SimilarityTransform(rotation: rotation, translation: meanG - rotation.act(meanE), scale: 1)
    }

    /// Umeyama (1991): rotation from the SVD of the 3×3 cross-covariance `Σ = 1/n Σ g' e'ᵀ = U D Vᵀ`,
    /// `R = U S Vᵀ` with `S = diag(1, 1, det(U)·det(V))` to exclude reflections; scale
    /// `s = tr(D S) / σ²_e` (Sim(3) only), `t = ḡ − s R ē`.
    public static func umeyama(estimate: [Vec3], groundTruth: [Vec3], withScale: Bool) throws -> SimilarityTransform {
        let n = Double(estimate.count)
        let meanE = mean(estimate), meanG = mean(groundTruth)
        var sigma = Mat3.zero
        var varianceE = 0.0
        for (e, g) in zip(estimate, groundTruth) {
            let a = e - meanE, b = g - meanG
            sigma = sigma + Mat3.outer(b, a)
            varianceE += a.squaredNorm
        }
        sigma = (1 / n) * sigma
        varianceE /= n
        if withScale && !(varianceE > 0) {
            throw AlignmentError.degenerate("all estimated positions are equal, so Sim(3) has no scale")
        }
        let svd: SingularValueDecomposition
        do {
            svd = try Matrix(rows: 3, columns: 3, rowMajor: sigma.rowMajor).svd()
        } catch {
            throw AlignmentError.numerical("SVD of the cross-covariance: \(error)")
        }
        let u = mat3(svd.u), vt = mat3(svd.vt)
        let d = svd.singularValues
        let reflect = u.determinant * vt.determinant < 0
        let sLast = reflect ? -1.0 : 1.0
        let rotationMatrix = u * Mat3(diagonal: Vec3(1, 1, sLast)) * vt
        let rotation = SO3(matrix: rotationMatrix)
        let scale = withScale ? (d[0] + d[1] + sLast * d[2]) / varianceE : 1
        return SimilarityTransform(rotation: rotation, translation: meanG - scale * rotation.act(meanE), scale: scale)
    }

    static func mean(_ points: [Vec3]) -> Vec3 {
        guard !points.isEmpty else { return .zero }
        return points.reduce(Vec3.zero, +) / Double(points.count)
    }

    static func mat3(_ m: Matrix) -> Mat3 {
        Mat3(rows: Vec3(m[0, 0], m[0, 1], m[0, 2]), Vec3(m[1, 0], m[1, 1], m[1, 2]), Vec3(m[2, 0], m[2, 1], m[2, 2]))
    }
}
