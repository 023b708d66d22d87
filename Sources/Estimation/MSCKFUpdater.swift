import Foundation
import Geometry
import LinearAlgebra
import Sensors

/// The result of one MSCKF visual update.
struct MSCKFUpdateResult {
    /// Features triangulated and accepted by the gate.
    var accepted = 0
    /// Features rejected by the chi-square gate.
    var rejectedByGate = 0
    /// Features that could not be triangulated (too little parallax, behind a camera, outlier).
    var failedTriangulation = 0
    /// Observations dropped as outliers inside otherwise good tracks.
    var droppedObservations = 0
    /// Rows of the (compressed) measurement applied.
    var rows = 0
    /// Accepted features held on the floor.
    var onFloor = 0
    /// The accepted points (positions before the update).
    var landmarks: [Landmark] = []
}

/// The multi-state-constraint (MSCKF) visual update over the clone window, in four steps (OpenVINS keeps the
/// same split in `UpdaterHelper`):
///
/// 1. `linearize`: triangulate a feature from its clones and linearise the whitened normalised-coordinate
///    residuals w.r.t. the clones (`H_x`) and the point (`H_f`); rows are whitened by the pixel noise (`σ/fx`).
/// 2. `nullspaceProject`: Givens rotations onto the left null space of `H_f`, so the point drops out
///    (2n − 3 rows for n observations).
/// 3. `chi2` / `passesGate`: the χ² test of each projected residual at `chi2GateProbability`.
/// 4. `stackAndCompress`: the accepted rows stacked over the clone columns and, when there are more rows than
///    columns, compressed by a QR factorisation; then one EKF update (`FilterState.update(trailingColumnsH:r:from:)`).
struct MSCKFUpdater {
    var cameras: [CameraCalibration]
    var configuration: EstimatorConfiguration
    /// The cameras' mountings: the calibration's, or camera 0's estimate in the state.
    let mounting: CameraMounting
    private let gate: ChiSquareTable
    private let triangulator: FeatureTriangulator

    init(cameras: [CameraCalibration], configuration: EstimatorConfiguration) {
        self.cameras = cameras
        self.configuration = configuration
        mounting = CameraMounting(cameras: cameras)
        gate = ChiSquareTable(probability: configuration.updater.chi2GateProbability)
        triangulator = FeatureTriangulator(minDepth: configuration.updater.minDepth, maxDepth: configuration.updater.maxDepth,
                                           maxReprojection: max(10 * configuration.updater.pixelNoiseStd, 3) / (cameras.first?.model.intrinsics.fx ?? 460),
                                           sigma: configuration.updater.pixelNoiseStd / (cameras.first?.model.intrinsics.fx ?? 460))
    }

    /// Noise std of camera `c` in normalised units.
    func sigma(_ c: Int) -> Double { max(configuration.updater.pixelNoiseStd, 1e-3) / cameras[c].model.intrinsics.fx }

    /// One feature's observations linearised over the clones that see it (whitened, not yet projected).
    struct FeatureLinearization {
        /// The involved clones, in order of first observation.
        var cloneIndices: [Int]
        /// Per observation: its clone (index into the state's clones) and that clone's place in `cloneIndices`.
        var observationClones: [Int], observationLocal: [Int]
        /// Leading columns of `Hx` for camera 0's mounting `[δφ_BC, δp_BC]`: 6 when the state estimates it, else 0.
        var mountingColumns: Int
        /// Columns of `Hx` for the floor `[δh, δs_x, δs_y]`, after the mounting's: 3 when the state holds it.
        var floorColumns: Int
        /// The last row is the floor's (`(z_floor(x, y) − p_z) / σ`): the point lies on the floor.
        var hasFloorRow: Bool
        /// Row-major `rows × columns`: `∂r/∂[δφ_BC, δp_BC]` (when estimated), `∂r/∂[δh, δs_x, δs_y]` (when the floor
        /// is in the state), then `∂r/∂[δθ_i, δp_i]` of the involved clones.
        var Hx: [Double]
        /// Row-major `rows × 3`: `∂r/∂p_W` of the point.
        var Hf: [Double]
        /// Whitened residual `(z − π(p_C)) / σ`, two rows per observation.
        var r: [Double]
        var point: TriangulatedPoint
        /// Observations dropped by the robust triangulation.
        var dropped: Int
        var rows: Int { r.count }
        var columns: Int { mountingColumns + floorColumns + 6 * cloneIndices.count }
    }

    /// The projected, whitened residual of one feature: rows over the listed clone columns.
    struct FeatureResidual {
        var cloneIndices: [Int]
        /// Leading mounting columns of `Hx` (6 or 0, as in `FeatureLinearization`).
        var mountingColumns = 0
        /// The floor's columns after them (3 or 0, as in `FeatureLinearization`).
        var floorColumns = 0
        /// The feature's point was held on the floor.
        var onFloor = false
        /// Row-major `rows × (mountingColumns + floorColumns + 6 · cloneIndices.count)`.
        var Hx: [Double]
        var r: [Double]
        var rows: Int
        var point: TriangulatedPoint
        /// Observations dropped by the robust triangulation.
        var dropped: Int
        /// `rᵀ (H P Hᵀ + I)⁻¹ r`.
        var chi2: Double
    }

    /// Builds the null-space-projected residual of one track, or nil if it cannot be triangulated:
    /// `linearize` → `innovationCovariance` → `nullspaceProject` → `chi2`. (Gating against the threshold and
    /// the measurement compression of the accepted features happen in `update`.)
    func residual(for track: FeatureTrack, state: FilterState, cloneIndex: [TimestampNs: Int],
                  onFloor: Bool = false) -> FeatureResidual? {
        guard var f = linearize(track, state: state, cloneIndex: cloneIndex, onFloor: onFloor) else { return nil }
        return project(&f, state: state)
    }

    /// Steps 2 and 3 on a linearised feature: `innovationCovariance` → `nullspaceProject` → `chi2`.
    func project(_ f: inout FeatureLinearization, state: FilterState) -> FeatureResidual? {
        let m = f.rows, cols = f.columns
        var S = Self.innovationCovariance(f, state: state)
        let rows = Self.nullspaceProject(Hf: &f.Hf, Hx: &f.Hx, r: &f.r, S: &S, columns: cols)
        guard rows > 0 else { return nil }
        guard let chi2 = Self.chi2(S: S, r: f.r, rows: m) else { return nil }
        return FeatureResidual(cloneIndices: f.cloneIndices, mountingColumns: f.mountingColumns, floorColumns: f.floorColumns,
                               onFloor: f.hasFloorRow, Hx: Array(f.Hx[(3 * cols)...]),
                               r: Array(f.r[3...]), rows: rows,
                               point: f.point, dropped: f.dropped, chi2: chi2)
    }

    /// Step 1, Jacobians: triangulates the track from its clones (dropping observations that do not fit) and
    /// linearises the whitened normalised-coordinate residuals w.r.t. the involved clones (`H_x`) and the point
    /// (`H_f`). The residual uses the current estimate, the Jacobians the clones' first estimates when FEJ is on.
    /// Nil when the track cannot be triangulated or the point is behind a camera.
    /// With `onFloor` (and the floor in the state) one more row holds the point on the floor:
    /// `(h + s · ((x, y) − o) − p_z) / σ`, with `∂/∂p_W = (−s_x, −s_y, 1) / σ` and
    /// `∂/∂[δh, δs_x, δs_y] = −(1, x − o_x, y − o_y) / σ` (σ = `FloorOptions.pointStd_m`).
    func linearize(_ track: FeatureTrack, state: FilterState, cloneIndex: [TimestampNs: Int],
                   onFloor: Bool = false) -> FeatureLinearization? {
        guard let t = triangulate(track, state: state, cloneIndex: cloneIndex) else { return nil }
        return linearize(t, state: state, cloneIndex: cloneIndex, onFloor: onFloor)
    }

    /// A track's observations in the window, their bearings from the clones, and the robust triangulation of them
    /// (`linearize`'s first half, shared by a floor candidate's two linearisations).
    struct Triangulation {
        /// The track's observations whose clone is in the window.
        var observations: [TrackObservation]
        /// Per observation, its ray from the clone's current pose.
        var bearings: [BearingObservation]
        /// The point, triangulated from the inliers.
        var point: TriangulatedPoint
        /// The observations the robust triangulation kept (indices into `observations`).
        var inliers: [Int]
    }

    /// Triangulates a track from its clones, dropping observations that do not fit (mistracks); nil when it cannot be.
    func triangulate(_ track: FeatureTrack, state: FilterState, cloneIndex: [TimestampNs: Int]) -> Triangulation? {
        let all = track.observations.filter { cloneIndex[$0.t_ns] != nil && $0.camera < cameras.count }
        guard all.count >= 2 else { return nil }
        let bearings = all.map { o -> BearingObservation in
            let c = state.clones[cloneIndex[o.t_ns]!]
            return BearingObservation(T_W_C: c.T_W_B * mounting.T_B_C(o.camera, state: state), normalized: o.normalized)
        }
        // Observations that do not fit the others (mistracks) are dropped here, before the gate.
        guard let (point, inliers) = triangulator.triangulateRobust(bearings) else { return nil }
        return Triangulation(observations: all, bearings: bearings, point: point, inliers: inliers)
    }

    /// `linearize` from a track's triangulation.
    func linearize(_ triangulation: Triangulation, state: FilterState, cloneIndex: [TimestampNs: Int],
                   onFloor: Bool = false) -> FeatureLinearization? {
        let all = triangulation.observations, bearings = triangulation.bearings, inliers = triangulation.inliers
        var point = triangulation.point
        let obs = inliers.map { all[$0] }
        if onFloor, state.floorIndex != nil {
            // Linearised where the floor puts the point, not where the window's short baseline does.
            guard let p = FeatureTriangulator.onFloorPlane(inliers.map { bearings[$0] }, height: state.floorHeight_m,
                                                          slope: state.floorSlope, origin: state.floorOrigin_m,
                                                          start: point.p_W) else { return nil }
            point.p_W = p
        }
        // Involved clones in order; per observation its clone and that clone's place among the involved.
        var involved: [Int] = []
        var obsClone: [Int] = [], obsLocal: [Int] = []
        obsClone.reserveCapacity(obs.count); obsLocal.reserveCapacity(obs.count)
        for o in obs {
            let ci = cloneIndex[o.t_ns]!
            var l = involved.firstIndex(of: ci) ?? -1
            if l < 0 { l = involved.count; involved.append(ci) }
            obsClone.append(ci); obsLocal.append(l)
        }
        let e = state.extrinsicIndex == nil ? 0 : 6
        let fc = state.floorIndex == nil ? 0 : FilterState.floorDimension
        let floorRow = onFloor && fc > 0
        let m = 2 * obs.count + (floorRow ? 1 : 0), cols = e + fc + 6 * involved.count
        var Hx = [Double](repeating: 0, count: m * cols)
        var Hf = [Double](repeating: 0, count: m * 3)
        var r = [Double](repeating: 0, count: m)
        for (k, o) in obs.enumerated() {
            let clone = state.clones[obsClone[k]]
            let ext = mounting.T_B_C(o.camera, state: state)
            let RbcT = ext.rotation.inverse.matrix
            // The residual uses the current estimate …
            let pC_now = RbcT * (clone.R_W_B.inverse.act(point.p_W - clone.p_W) - ext.translation)
            guard pC_now.z > 1e-6 else { return nil }
            let z = Vec2(pC_now.x / pC_now.z, pC_now.y / pC_now.z)
            // … the Jacobians the clone's first estimate (FEJ) or the current one.
            let fej = configuration.state.firstEstimateJacobians
            let RiT = (fej ? clone.firstR_W_B : clone.R_W_B).inverse.matrix
            let p_B = RiT * (point.p_W - (fej ? clone.firstP_W : clone.p_W))
            let p_C = RbcT * (p_B - ext.translation)
            guard p_C.z > 1e-6 else { return nil }
            let iz = 1 / p_C.z
            let w = 1 / sigma(o.camera)
            // dz/dp_C rows (whitened).
            let d0 = Vec3(iz, 0, -p_C.x * iz * iz) * w, d1 = Vec3(0, iz, -p_C.y * iz * iz) * w
            let dTheta = RbcT * p_B.skew          // ∂p_C/∂δθ_i
            let dPos = -(RbcT * RiT)              // ∂p_C/∂δp_i
            let dFeat = RbcT * RiT                // ∂p_C/∂p_W
            let c0 = e + fc + 6 * obsLocal[k]
            // ∂p_C/∂[δφ_BC, δp_BC] of camera 0's mounting, when estimated.
            let dMount = e == 0 ? nil : state.T_B_C0.map { T in
                mounting.jacobian(camera: o.camera, p_C0: T.rotation.inverse.act(p_B - T.translation), R_B_C0: T.rotation)
            }
            for half in 0..<2 {
                let row = 2 * k + half, d = half == 0 ? d0 : d1
                let a = dTheta.transposed * d, b = dPos.transposed * d, f = dFeat.transposed * d
                for j in 0..<3 {
                    Hx[row * cols + c0 + j] = a[j]
                    Hx[row * cols + c0 + 3 + j] = b[j]
                    Hf[row * 3 + j] = f[j]
                }
                if let dMount {
                    let mr = dMount.dRotation.transposed * d, mt = dMount.dTranslation.transposed * d
                    for j in 0..<3 { Hx[row * cols + j] = mr[j]; Hx[row * cols + 3 + j] = mt[j] }
                }
            }
            r[2 * k] = (o.normalized.x - z.x) * w
            r[2 * k + 1] = (o.normalized.y - z.y) * w
        }
        if floorRow {
            let w = 1 / configuration.floor.pointStd_m, row = m - 1
            let dx = point.p_W.x - state.floorOrigin_m.x, dy = point.p_W.y - state.floorOrigin_m.y
            Hx[row * cols + e] = -w
            Hx[row * cols + e + 1] = -w * dx
            Hx[row * cols + e + 2] = -w * dy
            Hf[row * 3] = -w * state.floorSlope.x
            Hf[row * 3 + 1] = -w * state.floorSlope.y
            Hf[row * 3 + 2] = w
            r[row] = (state.floorHeight(atX: point.p_W.x, y: point.p_W.y) - point.p_W.z) * w
        }
        return FeatureLinearization(cloneIndices: involved, observationClones: obsClone, observationLocal: obsLocal,
                                    mountingColumns: e, floorColumns: fc, hasFloorRow: floorRow, Hx: Hx, Hf: Hf, r: r,
                                    point: point, dropped: all.count - obs.count)
    }

    /// The innovation covariance of the unprojected residual without its noise, `S = H_x P H_xᵀ` (row-major
    /// `rows × rows`), from its 2×6 blocks (each observation touches one clone, and camera 0's mounting when it
    /// is estimated): O(k²) instead of O(rows · cols²) for the projected dense H. Projected with the rows
    /// (`nullspaceProject`) for the gate.
    static func innovationCovariance(_ f: FeatureLinearization, state: FilterState) -> [Double] {
        let m = f.rows, cols = f.columns, count = f.observationClones.count
        let Hx = f.Hx
        var S = [Double](repeating: 0, count: m * m) // row-major m × m
        let n = state.dimension
        // Per observation, its 6-column blocks: the clone's, then the mounting's (when estimated), as
        // (first error-state index, first local column of Hx).
        let mountingIndex = f.mountingColumns > 0 ? state.extrinsicIndex : nil
        let perObservation = mountingIndex == nil ? 1 : 2
        var blockState = [Int](repeating: 0, count: count * perObservation)
        var blockLocal = [Int](repeating: 0, count: count * perObservation)
        for a in 0..<count {
            blockState[a * perObservation] = state.cloneIndex(f.observationClones[a])
            blockLocal[a * perObservation] = f.mountingColumns + f.floorColumns + 6 * f.observationLocal[a]
            if let e = mountingIndex { blockState[a * perObservation + 1] = e; blockLocal[a * perObservation + 1] = 0 }
        }
        var t = [Double](repeating: 0, count: 12)
        state.withCovariance { P in
            for a in 0..<count {
                for b in a..<count {
                    var s00 = 0.0, s01 = 0.0, s10 = 0.0, s11 = 0.0 // S_ab (2 × 2)
                    for u in (a * perObservation)..<((a + 1) * perObservation) {
                        let ia = blockState[u], la = blockLocal[u]
                        for w in (b * perObservation)..<((b + 1) * perObservation) {
                            let ib = blockState[w], lb = blockLocal[w]
                            // T = P_ab · B_bᵀ (6 × 2), then S_ab += B_a · T.
                            for z in 0..<12 { t[z] = 0 }
                            for p in 0..<6 {
                                for q in 0..<6 {
                                    let pv = P[(ia + p) + (ib + q) * n]
                                    t[p * 2] += pv * Hx[(2 * b) * cols + lb + q]
                                    t[p * 2 + 1] += pv * Hx[(2 * b + 1) * cols + lb + q]
                                }
                            }
                            for p in 0..<6 {
                                let h0 = Hx[(2 * a) * cols + la + p], h1 = Hx[(2 * a + 1) * cols + la + p]
                                s00 += h0 * t[p * 2]; s01 += h0 * t[p * 2 + 1]
                                s10 += h1 * t[p * 2]; s11 += h1 * t[p * 2 + 1]
                            }
                        }
                    }
                    let r0 = (2 * a) * m + 2 * b, r1 = (2 * a + 1) * m + 2 * b
                    S[r0] = s00; S[r0 + 1] = s01; S[r1] = s10; S[r1 + 1] = s11
                    let c0 = (2 * b) * m + 2 * a, c1 = (2 * b + 1) * m + 2 * a
                    S[c0] = s00; S[c0 + 1] = s10; S[c1] = s01; S[c1 + 1] = s11
                }
            }
            // The floor's row: its only columns are the floor's (`hf`, 3), so S[fr, fr] = hfᵀ P_ff hf and
            // S[fr, q] = hfᵀ P_f,· H[q]ᵀ.
            if f.hasFloorRow, let h = state.floorIndex {
                let fr = m - 1, e = f.mountingColumns
                let hf = (0..<FilterState.floorDimension).map { Hx[fr * cols + e + $0] }
                var sff = 0.0
                for u in hf.indices { for v in hf.indices { sff += hf[u] * P[(h + u) + (h + v) * n] * hf[v] } }
                S[fr * m + fr] = sff
                for b in 0..<count {
                    for half in 0..<2 {
                        let q = 2 * b + half
                        var s = 0.0
                        for u in (b * perObservation)..<((b + 1) * perObservation) {
                            let ib = blockState[u], lb = blockLocal[u]
                            for p in 0..<6 {
                                let hq = Hx[q * cols + lb + p]
                                if hq == 0 { continue }
                                for v in hf.indices { s += hf[v] * P[(h + v) + (ib + p) * n] * hq }
                            }
                        }
                        S[fr * m + q] = s
                        S[q * m + fr] = s
                    }
                }
            }
        }
        return S
    }

    /// Step 2, null-space projection (OpenVINS' `nullspace_project_inplace`): Givens rotations zero `H_f`
    /// (row-major `rows × 3`) below its diagonal, bottom-up, and are applied to `H_x` (row-major
    /// `rows × columns`), `r` and, when given, to both sides of `S` (row-major `rows × rows`). Afterwards rows
    /// `3…` of `H_x`, `r` and the trailing block of `S` are the projection onto the left null space of `H_f`
    /// (`Nᵀ H_x`, `Nᵀ r`, `Nᵀ S N` with `Nᵀ H_f = 0`, `Nᵀ N = I`), independent of the point's error.
    /// Returns their number, `rows − 3` (≤ 0: nothing left).
    @discardableResult
    static func nullspaceProject(Hf: inout [Double], Hx: inout [Double], r: inout [Double], S: inout [Double],
                                 columns cols: Int) -> Int {
        let m = r.count
        precondition(Hf.count == 3 * m && Hx.count == m * cols && (S.isEmpty || S.count == m * m))
        Hf.withUnsafeMutableBufferPointer { hf in
            Hx.withUnsafeMutableBufferPointer { hx in
                r.withUnsafeMutableBufferPointer { rr in
                    S.withUnsafeMutableBufferPointer { ss in
                        for j in 0..<3 {
                            var i = m - 1
                            while i > j {
                                if let g = GivensRotation(zeroing: hf[i * 3 + j], against: hf[(i - 1) * 3 + j]) {
                                    g.applyToRows(hf.baseAddress!, stride: 3, i - 1, i, columns: j..<3)
                                    if cols > 0 { g.applyToRows(hx.baseAddress!, stride: cols, i - 1, i, columns: 0..<cols) }
                                    g.applyToRows(rr.baseAddress!, stride: 1, i - 1, i, columns: 0..<1)
                                    if !ss.isEmpty {
                                        g.applyToRows(ss.baseAddress!, stride: m, i - 1, i, columns: 0..<m)
                                        g.applyToColumns(ss.baseAddress!, stride: m, i - 1, i, rows: 0..<m)
                                    }
                                }
                                i -= 1
                            }
                        }
                    }
                }
            }
        }
        return m - 3
    }

    /// Step 3, the gate's statistic: `χ² = rₒᵀ (Sₒ + I)⁻¹ rₒ` over the projected rows `3..<rows` of a whitened
    /// residual `r` and its projected `S = H P Hᵀ` (row-major `rows × rows`), by a small Cholesky
    /// factorisation; nil when `Sₒ + I` is not positive definite. Compare with `gate.threshold(dof: rows − 3)`.
    static func chi2(S: [Double], r: [Double], rows m: Int) -> Double? {
        let rows = m - 3
        guard rows > 0 else { return nil }
        var So = [Double](repeating: 0, count: rows * rows) // column-major
        for i in 0..<rows { for j in 0..<rows { So[i + j * rows] = S[(i + 3) * m + j + 3] } }
        for i in 0..<rows { So[i + i * rows] += 1 }
        return DenseKernels.choleskyQuadraticForm(&So, Array(r[3...]), n: rows)
    }

    /// True when a triangulated point lies at the floor's height: within `FloorOptions.maxOffset_m` and 2.5 σ
    /// (its own σ and the floor's), at least `minBelowBody_m` under the body, and not loosely triangulated.
    func onFloor(_ point: TriangulatedPoint, state: FilterState, floorStd: Double) -> Bool {
        let o = configuration.floor
        let dz = abs(point.p_W.z - state.floorHeight(atX: point.p_W.x, y: point.p_W.y))
        let tolerance = min(o.maxOffset_m, 2.5 * (point.std_m * point.std_m + floorStd * floorStd + o.pointStd_m * o.pointStd_m).squareRoot())
        return dz < tolerance && state.imu.p_W.z - point.p_W.z >= o.minBelowBody_m && point.std_m < 3 * o.maxOffset_m
    }

    /// True when a feature's χ² passes the gate at `chi2GateProbability` for `dof` rows.
    func passesGate(chi2: Double, dof: Int) -> Bool { chi2 < gate.threshold(dof: dof) }

    /// Runs the update with `tracks` (at most `maxFeaturesPerUpdate`, longest first).
    func update(state: inout FilterState, tracks: [FeatureTrack]) -> MSCKFUpdateResult {
        let floorStd = state.floorIndex.map { state.covariance($0, $0).squareRoot() }
        var result = MSCKFUpdateResult()
        var cloneIndex: [TimestampNs: Int] = [:]
        for (i, c) in state.clones.enumerated() { cloneIndex[c.t_ns] = i }
        // Longest tracks first; ties by id, so the result does not depend on dictionary order.
        let ordered = tracks.sorted { ($0.observations.count, $1.id) > ($1.observations.count, $0.id) }
            .prefix(configuration.updater.maxFeaturesPerUpdate)
        var accepted: [FeatureResidual] = []
        for t in ordered {
            guard let triangulation = triangulate(t, state: state, cloneIndex: cloneIndex),
                  var lin = linearize(triangulation, state: state, cloneIndex: cloneIndex) else {
                result.failedTriangulation += 1
                continue
            }
            // A point at the floor's height (within its own and the floor's σ) is tried on the floor first.
            if let floorStd, onFloor(lin.point, state: state, floorStd: floorStd),
               var held = linearize(triangulation, state: state, cloneIndex: cloneIndex, onFloor: true),
               let f = project(&held, state: state), passesGate(chi2: f.chi2, dof: f.rows) {
                accepted.append(f)
                result.onFloor += 1
                result.droppedObservations += f.dropped
                result.landmarks.append(Landmark(id: t.id, p_W: f.point.p_W, std_m: f.point.std_m))
                continue
            }
            guard let f = project(&lin, state: state) else {
                result.failedTriangulation += 1
                continue
            }
            guard passesGate(chi2: f.chi2, dof: f.rows) else {
                result.rejectedByGate += 1
                continue
            }
            accepted.append(f)
            result.droppedObservations += f.dropped
            result.landmarks.append(Landmark(id: t.id, p_W: f.point.p_W, std_m: f.point.std_m))
        }
        result.accepted = accepted.count
        guard !accepted.isEmpty else { return result }
        // The measurement's columns: camera 0's mounting (when estimated), the floor (when in the state; both sit just
        // before the clones) and the clones; the inertial and time-offset columns of a visual residual are zero.
        let first = state.extrinsicIndex ?? state.floorIndex ?? state.cloneStart
        let (H, r) = Self.stackAndCompress(accepted, columns: state.dimension - first)
        result.rows = H.rows
        do { try state.update(trailingColumnsH: H, r: r, from: first) } catch { result.accepted = 0; result.landmarks = [] }
        return result
    }

    /// Step 4, measurement compression (OpenVINS' `measurement_compress_inplace`): stacks the accepted
    /// features' rows into `[H | r]` over the mounting (when estimated: the first 6 of the `columns`) and clone
    /// columns only (the inertial columns of a visual residual are zero), features ordered by their first clone
    /// column so the Householder triangularisation can skip the zero blocks, and when there are more rows than
    /// columns replaces `H = Q [R; 0]` by `R` and `r` by the first `columns` entries of `Qᵀ r`: the same
    /// information (`HᵀH`, `Hᵀr`) in at most `columns` rows. Returns `H` (column-major `Matrix`) and `r`.
    static func stackAndCompress(_ accepted: [FeatureResidual], columns c: Int) -> (H: Matrix, r: [Double]) {
        let m = accepted.reduce(0) { $0 + $1.rows }
        // Features held on the floor first (their rows start at the floor's column), then by first clone.
        let stacked = accepted.sorted {
            ($0.onFloor ? 0 : 1, $0.cloneIndices.min() ?? 0) < ($1.onFloor ? 0 : 1, $1.cloneIndices.min() ?? 0)
        }
        let w = c + 1
        var A = [Double](repeating: 0, count: m * w)         // [H | r], row-major m × (c + 1)
        var firstColumn = [Int](repeating: 0, count: m)      // per row: its first non-zero column
        var row = 0
        for f in stacked {
            let e = f.mountingColumns, fc = f.floorColumns, cols = e + fc + 6 * f.cloneIndices.count
            let first = e > 0 || f.onFloor ? 0 : fc + ErrorIndex.clone * (f.cloneIndices.min() ?? 0)
            for i in 0..<f.rows {
                for j in 0..<(e + fc) { A[(row + i) * w + j] = f.Hx[i * cols + j] }
                for (a, ci) in f.cloneIndices.enumerated() {
                    let base = e + fc + ErrorIndex.clone * ci
                    for j in 0..<6 { A[(row + i) * w + base + j] = f.Hx[i * cols + e + fc + 6 * a + j] }
                }
                A[(row + i) * w + c] = f.r[i]
                firstColumn[row + i] = first
            }
            row += f.rows
        }
        var H: Matrix, r: [Double]
        if m > c {
            DenseKernels.householderTriangularize(&A, rows: m, columns: w, firstColumn: firstColumn)
            H = Matrix(rows: c, columns: c)
            for j in 0..<c { for i in 0...j { H.elements[i + j * c] = A[i * w + j] } }
            r = (0..<c).map { A[$0 * w + c] }
        } else {
            H = Matrix(rows: m, columns: c)
            for j in 0..<c { for i in 0..<m { H.elements[i + j * m] = A[i * w + j] } }
            r = (0..<m).map { A[$0 * w + c] }
        }
        return (H, r)
    }
}
