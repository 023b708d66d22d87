import Foundation
import Geometry
import LinearAlgebra
import Sensors

/// One re-observation of a mapped point: a point of the world map (triangulated earlier, seen again now)
/// and where the current frame sees it.
public struct MapPointObservation: Equatable, Sendable {
    /// The map point's id (for diagnostics).
    public var mapId: Int
    /// The map point in the world frame W, metres.
    public var p_W: Vec3
    /// 1-σ uncertainty of `p_W` (isotropic), metres.
    public var std_m: Double
    /// Index of the camera that sees it (camera 0 defines `T_W_C`).
    public var camera: Int
    /// Where that camera sees it now: undistorted normalised coordinates `(x/z, y/z)` in its frame C.
    public var normalized: Vec2

    /// An observation of map point `mapId` at `p_W` (W, metres; 1-σ `std_m`) by `camera` at `normalized`.
    public init(mapId: Int, p_W: Vec3, std_m: Double, camera: Int = 0, normalized: Vec2) {
        self.mapId = mapId; self.p_W = p_W; self.std_m = std_m; self.camera = camera; self.normalized = normalized
    }
}

/// What one map-point update did.
public struct MapUpdateResult: Equatable, Sendable {
    /// Observations applied.
    public var accepted = 0
    /// Observations rejected by the χ² gate (wrong associations, or a map point that moved).
    public var rejectedByGate = 0
    /// Ids of the applied map points.
    public var acceptedIds: [Int] = []
    /// Observations that passed their own gate but were not applied: not jointly compatible with the others, or
    /// the only one that would move the pose (unverifiable alone).
    public var unconfirmed = 0
    /// Nothing applied.
    public init() {}
}

/// The EKF update with map points re-observed by the current frame (map reuse, a loop closure in the
/// small): each point is taken as known in W with its uncertainty, so the residual constrains the current
/// pose directly, against the drift a sliding window accumulates.
///
/// For a point `p_W` seen at normalised coordinates `z`: `p_C = R_B_Cᵀ (R_W_Bᵀ (p_W − p_W_B) − t_B_C)`,
/// residual `z − π(p_C)`, with the Jacobians w.r.t. the inertial pose's error `[δθ (body), δp]` and, when the map's
/// scale is in the state (`FilterState.mapScale`: the map's points are then at the estimated scale), its log-scale
/// error `δσ` (`∂p_W/∂δσ = p_W`: the map scales about W's origin). Its
/// noise is the pixel noise plus the point's uncertainty projected into the image (`J_p σ² J_pᵀ`). Each
/// observation is gated by χ² (2 dof) on its own; the survivors must be jointly compatible (χ² of their joint
/// innovation, 2m dof), and a point whose residual needs the pose's uncertainty to be explained is not applied
/// alone, so one wrong association cannot move the pose; the rest are whitened and applied in one update.
///
/// With the camera–IMU time offset in the state, the inertial pose is the one at IMU time `t_cam + t̂_d`
/// while the image was taken at `t_cam + t_d`: the camera pose is the inertial pose `δt_d` later, so each row
/// gets the column `∂r/∂t_d = ∂r/∂[δθ, δp] · [ω̂; v̂]` (body rate `omega_B`, velocity `v_W`).
/// With camera 0's mounting in the state, each row also gets its columns `∂r/∂[δφ_BC, δp_BC]`
/// (`CameraMounting.jacobian`).
struct MapPointUpdater {
    var cameras: [CameraCalibration]
    var pixelNoiseStd: Double
    var gateProbability: Double
    /// The update leaves the gravity direction of every attitude in the state as it was and corrects position, yaw
    /// and the rest (`FilterState.update(H:r:keepingTilt:)`; `UpdaterOptions.mapUpdateKeepsTiltMono`).
    var keepsTilt: Bool
    /// The update leaves the clones' positions as they were (`FilterState.update(H:r:keepingTilt:keepingClonePositions:)`;
    /// `UpdaterOptions.mapUpdateKeepsClonePositionsMono`).
    var keepsClonePositions: Bool
    /// The cameras' mountings: the calibration's, or camera 0's estimate in the state.
    let mounting: CameraMounting
    private let gate: ChiSquareTable

    init(cameras: [CameraCalibration], pixelNoiseStd: Double, gateProbability: Double, keepsTilt: Bool = false,
         keepsClonePositions: Bool = false) {
        self.cameras = cameras
        self.pixelNoiseStd = pixelNoiseStd
        self.gateProbability = gateProbability
        self.keepsTilt = keepsTilt
        self.keepsClonePositions = keepsClonePositions
        mounting = CameraMounting(cameras: cameras)
        gate = ChiSquareTable(probability: gateProbability)
    }

    func update(state: inout FilterState, observations: [MapPointObservation], omega_B: Vec3 = .zero) -> MapUpdateResult {
        var result = MapUpdateResult()
        let n = state.dimension
        // Error-state columns of a row: the pose [δθ, δp], δt_d, camera 0's mounting [δφ_BC, δp_BC] and the map's
        // log-scale δσ when they are estimated.
        let columns = [0, 1, 2, 3, 4, 5] + (state.timeOffsetIndex.map { [$0] } ?? [])
            + (state.extrinsicIndex.map { e in Array(e..<(e + 6)) } ?? []) + (state.mapScaleIndex.map { [$0] } ?? [])
        let k = columns.count
        let rateOfPose = [omega_B.x, omega_B.y, omega_B.z, state.imu.v_W.x, state.imu.v_W.y, state.imu.v_W.z]
        let R_W_B = state.imu.R_W_B, p_W_B = state.imu.p_W
        let RbwT = R_W_B.inverse.matrix
        var rowsH: [[Double]] = []   // whitened rows of H, length n
        var rowsR: [Double] = []
        let threshold = gate.threshold(dof: 2)
        var gated: [Gated] = []
        for o in observations where o.camera < cameras.count {
            let ext = mounting.T_B_C(o.camera, state: state)
            let RbcT = ext.rotation.inverse.matrix
            let p_B = RbwT * (o.p_W - p_W_B)
            let p_C = RbcT * (p_B - ext.translation)
            guard p_C.z > 0.05 else { continue }
            let iz = 1 / p_C.z
            let z = Vec2(p_C.x * iz, p_C.y * iz)
            let d0 = Vec3(iz, 0, -p_C.x * iz * iz), d1 = Vec3(0, iz, -p_C.y * iz * iz)
            let dTheta = RbcT * p_B.skew, dPos = -(RbcT * RbwT), dPoint = RbcT * RbwT
            // 2 × 6 Jacobian over [δθ, δp] (then δt_d and the mounting, when estimated) and the point's
            // projected covariance.
            let dMount = state.T_B_C0.map { T in
                mounting.jacobian(camera: o.camera, p_C0: T.rotation.inverse.act(p_B - T.translation), R_B_C0: T.rotation)
            }
            var h = [[Double]](repeating: [Double](repeating: 0, count: 6), count: 2)
            var jp = [Vec3](repeating: .zero, count: 2)
            for (row, d) in [d0, d1].enumerated() {
                let a = dTheta.transposed * d, b = dPos.transposed * d
                h[row] = [a.x, a.y, a.z, b.x, b.y, b.z]
                if state.timeOffsetIndex != nil { h[row].append((0..<6).reduce(0) { $0 + h[row][$1] * rateOfPose[$1] }) }
                if let dMount, state.extrinsicIndex != nil {
                    let mr = dMount.dRotation.transposed * d, mt = dMount.dTranslation.transposed * d
                    h[row] += [mr.x, mr.y, mr.z, mt.x, mt.y, mt.z]
                }
                jp[row] = dPoint.transposed * d
                if state.mapScaleIndex != nil { h[row].append(jp[row].dot(o.p_W)) }
            }
            let sigmaN = max(pixelNoiseStd, 1e-3) / cameras[o.camera].model.intrinsics.fx
            let v = o.std_m * o.std_m
            // R = σ² I + v J_p J_pᵀ (2 × 2).
            let R = [[sigmaN * sigmaN + v * jp[0].dot(jp[0]), v * jp[0].dot(jp[1])],
                     [v * jp[1].dot(jp[0]), sigmaN * sigmaN + v * jp[1].dot(jp[1])]]
            // S = H P Hᵀ + R over the pose block.
            var S = R
            state.withCovariance { P in
                for i in 0..<2 {
                    for j in 0..<2 {
                        var s = 0.0
                        for a in 0..<k { for b in 0..<k { s += h[i][a] * P[columns[a] + columns[b] * n] * h[j][b] } }
                        S[i][j] += s
                    }
                }
            }
            let r = [o.normalized.x - z.x, o.normalized.y - z.y]
            let det = S[0][0] * S[1][1] - S[0][1] * S[1][0]
            guard det > 0 else { continue }
            let chi2 = (S[1][1] * r[0] * r[0] - 2 * S[0][1] * r[0] * r[1] + S[0][0] * r[1] * r[1]) / det
            guard chi2 < threshold else { result.rejectedByGate += 1; continue }
            let detR = R[0][0] * R[1][1] - R[0][1] * R[1][0]
            guard detR > 0 else { continue }
            let chi2R = (R[1][1] * r[0] * r[0] - 2 * R[0][1] * r[0] * r[1] + R[0][0] * r[1] * r[1]) / detR
            gated.append(Gated(mapId: o.mapId, h: h, R: R, r: r, chi2: chi2, moves: chi2R >= threshold))
        }
        // Joint compatibility: the survivors of the individual gates must also agree with one another (their joint
        // innovation, whose covariance couples them through the pose's, within the χ² gate of 2m dof); the one with
        // the largest χ² given the others is dropped until they do. Then a point that would move the pose (its
        // residual is more than the point's and the pixel's noise explain: it needs the pose's uncertainty) is
        // applied only when another point agrees with it. One such point alone is unverifiable: where the pose has
        // drifted the gate is centimetres wide, and single re-observed points inside it moved the pose by 6–9 cm in
        // one frame (V1_01 mono with a two-point-RANSAC frontend and the 3 cm map bound, from 95 s on: 137.9 mm
        // ATE over the run; 28.3 mm with these checks). Gated observations that are not applied are counted in
        // `unconfirmed`.
        var kept = gated
        while kept.count >= 2, let worst = incompatible(kept, state: state, columns: columns) { kept.remove(at: worst) }
        if kept.count == 1, kept[0].moves { kept.removeAll() }
        result.unconfirmed = gated.count - kept.count
        for g in kept {
            let h = g.h, R = g.R, r = g.r
            // Whiten by R = L Lᵀ (2 × 2 Cholesky, L = [[l00, 0], [l10, l11]]): rows L⁻¹ [h | r].
            let l00 = R[0][0].squareRoot(), l10 = R[1][0] / l00
            let l11 = (R[1][1] - l10 * l10).squareRoot()
            guard l11 > 0, l11.isFinite else { continue }
            let w0 = h[0].map { $0 / l00 }, r0 = r[0] / l00
            let w1 = zip(h[1], h[0]).map { ($0 - l10 * $1 / l00) / l11 }, r1 = (r[1] - l10 * r[0] / l00) / l11
            for (w, rr) in [(w0, r0), (w1, r1)] {
                var row = [Double](repeating: 0, count: n)
                for (a, column) in columns.enumerated() { row[column] = w[a] }
                rowsH.append(row); rowsR.append(rr)
            }
            result.accepted += 1
            result.acceptedIds.append(g.mapId)
        }
        guard !rowsR.isEmpty else { return result }
        let m = rowsR.count
        var H = Matrix(rows: m, columns: n)
        for i in 0..<m { for j in 0..<n where rowsH[i][j] != 0 { H[i, j] = rowsH[i][j] } }
        do { try state.update(H: H, r: rowsR, keepingTilt: keepsTilt, keepingClonePositions: keepsClonePositions) } catch { return MapUpdateResult() }
        return result
    }

    /// An observation that passed its own gate: its Jacobian rows over the update's columns, its noise, its residual
    /// (normalised image coordinates), its χ² against the innovation covariance, and whether its residual exceeds
    /// what the noise alone explains (χ² against `R` beyond the gate: applying it moves the pose).
    struct Gated {
        var mapId: Int
        var h: [[Double]]
        var R: [[Double]]
        var r: [Double]
        var chi2: Double
        var moves: Bool
    }

    /// Joint compatibility of observations that each passed their own gate: nil when their joint innovation `r`
    /// (2m) is within the χ² gate of 2m dof under its covariance `S = H P Hᵀ + blockdiag(R)`, else the index of the
    /// one that disagrees most with the others: the largest conditional χ² `x_qᵀ ((S⁻¹)_qq)⁻¹ x_q`, `x = S⁻¹ r` (its
    /// innovation given all the others'). Not positive definite (numerically): the last one.
    func incompatible(_ g: [Gated], state: FilterState, columns: [Int]) -> Int? {
        let m = 2 * g.count, k = columns.count, n = state.dimension
        var rows: [[Double]] = []
        for o in g { rows.append(o.h[0]); rows.append(o.h[1]) }
        var S = Matrix(rows: m, columns: m)
        state.withCovariance { P in
            var hp = [[Double]](repeating: [Double](repeating: 0, count: k), count: m)   // H P over the columns
            for i in 0..<m { for b in 0..<k {
                var s = 0.0
                for a in 0..<k { s += rows[i][a] * P[columns[a] + columns[b] * n] }
                hp[i][b] = s
            } }
            for i in 0..<m { for j in 0...i {
                var s = 0.0
                for b in 0..<k { s += hp[i][b] * rows[j][b] }
                S[i, j] = s; S[j, i] = s
            } }
        }
        for (q, o) in g.enumerated() { for i in 0..<2 { for j in 0..<2 { S[2 * q + i, 2 * q + j] += o.R[i][j] } } }
        let r = g.flatMap(\.r)
        guard let Sinv = try? S.symmetricPositiveDefiniteInverse() else { return g.count - 1 }
        var x = [Double](repeating: 0, count: m)
        for i in 0..<m { for j in 0..<m { x[i] += Sinv[i, j] * r[j] } }
        let chi2 = zip(r, x).reduce(0) { $0 + $1.0 * $1.1 }
        guard chi2 >= gate.threshold(dof: m) else { return nil }
        var worst = 0, worstChi2 = -Double.infinity
        for q in g.indices {
            let a = Sinv[2 * q, 2 * q], b = Sinv[2 * q, 2 * q + 1], d = Sinv[2 * q + 1, 2 * q + 1]
            let det = a * d - b * b
            guard det > 0 else { continue }
            let x0 = x[2 * q], x1 = x[2 * q + 1]
            let c = (d * x0 * x0 - 2 * b * x0 * x1 + a * x1 * x1) / det
            if c > worstChi2 { worst = q; worstChi2 = c }
        }
        return worst
    }
}
