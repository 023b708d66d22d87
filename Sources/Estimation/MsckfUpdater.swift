import Foundation
import Geometry
import LinearAlgebra
import Sensors

/// The result of one MSCKF visual update.
struct MsckfUpdateResult {
    /// Features triangulated and accepted by the gate.
    var accepted = 0
    /// Features rejected by the chi-square gate.
    var rejectedByGate = 0
    /// Features that could not be triangulated (too little parallax, behind a camera, outlier).
    var failedTriangulation = 0
    /// Rows of the (compressed) measurement applied.
    var rows = 0
    /// The accepted points (positions before the update).
    var landmarks: [Landmark] = []
}

/// The multi-state-constraint (MSCKF) visual update over the clone window.
///
/// For each feature: triangulate from its clones, linearise the normalised-coordinate residuals
/// w.r.t. the clones (`H_x`) and the point (`H_f`), project both onto the left null space of `H_f`
/// (Givens rotations) so the point drops out, and gate with a χ² test at `chi2GateProbability`.
/// The accepted rows are stacked, compressed by a QR factorisation when there are more rows than
/// state columns, and applied in one EKF update. Rows are whitened by the pixel noise (`σ/fx`).
struct MsckfUpdater {
    var cameras: [CameraCalibration]
    var configuration: EstimatorConfiguration
    private let gate: ChiSquareTable
    private let triangulator: FeatureTriangulator

    init(cameras: [CameraCalibration], configuration: EstimatorConfiguration) {
        self.cameras = cameras
        self.configuration = configuration
        gate = ChiSquareTable(probability: configuration.chi2GateProbability)
        triangulator = FeatureTriangulator(minDepth: configuration.minDepth, maxDepth: configuration.maxDepth,
                                           maxReprojection: 40 * configuration.pixelNoiseStd / (cameras.first?.model.intrinsics.fx ?? 460),
                                           sigma: configuration.pixelNoiseStd / (cameras.first?.model.intrinsics.fx ?? 460))
    }

    /// Noise std of camera `c` in normalised units.
    func sigma(_ c: Int) -> Double { configuration.pixelNoiseStd / cameras[c].model.intrinsics.fx }

    /// The projected, whitened residual of one feature: rows over the listed clone columns.
    struct FeatureResidual {
        var cloneIndices: [Int]
        /// Row-major `rows × (6 · cloneIndices.count)`.
        var Hx: [Double]
        var r: [Double]
        var rows: Int
        var point: TriangulatedPoint
    }

    /// Builds the null-space-projected residual of one track, or nil if it cannot be triangulated.
    func residual(for track: FeatureTrack, state: FilterState, cloneIndex: [TimestampNs: Int]) -> FeatureResidual? {
        let obs = track.observations.filter { cloneIndex[$0.t_ns] != nil && $0.camera < cameras.count }
        guard obs.count >= 2 else { return nil }
        let bearings = obs.map { o -> BearingObservation in
            let c = state.clones[cloneIndex[o.t_ns]!]
            return BearingObservation(T_W_C: c.T_W_B * cameras[o.camera].T_B_C, normalized: o.normalized)
        }
        guard let point = triangulator.triangulate(bearings) else { return nil }
        // Involved clones in order.
        var involved: [Int] = []
        var local: [Int: Int] = [:]
        for o in obs {
            let ci = cloneIndex[o.t_ns]!
            if local[ci] == nil { local[ci] = involved.count; involved.append(ci) }
        }
        let m = 2 * obs.count, cols = 6 * involved.count
        var Hx = [Double](repeating: 0, count: m * cols)
        var Hf = [Double](repeating: 0, count: m * 3)
        var r = [Double](repeating: 0, count: m)
        for (k, o) in obs.enumerated() {
            let clone = state.clones[cloneIndex[o.t_ns]!]
            let ext = cameras[o.camera].T_B_C
            let RiT = clone.R_W_B.inverse.matrix
            let RbcT = ext.rotation.inverse.matrix
            let p_B = RiT * (point.p_W - clone.p_W)
            let p_C = RbcT * (p_B - ext.translation)
            guard p_C.z > 1e-6 else { return nil }
            let iz = 1 / p_C.z
            let z = Vec2(p_C.x * iz, p_C.y * iz)
            let w = 1 / sigma(o.camera)
            // dz/dp_C rows (whitened).
            let d0 = Vec3(iz, 0, -p_C.x * iz * iz) * w, d1 = Vec3(0, iz, -p_C.y * iz * iz) * w
            let dTheta = RbcT * p_B.skew          // ∂p_C/∂δθ_i
            let dPos = -(RbcT * RiT)              // ∂p_C/∂δp_i
            let dFeat = RbcT * RiT                // ∂p_C/∂p_W
            let c0 = 6 * local[cloneIndex[o.t_ns]!]!
            for (row, d) in [(2 * k, d0), (2 * k + 1, d1)] {
                let a = dTheta.transposed * d, b = dPos.transposed * d, f = dFeat.transposed * d
                for j in 0..<3 {
                    Hx[row * cols + c0 + j] = a[j]
                    Hx[row * cols + c0 + 3 + j] = b[j]
                    Hf[row * 3 + j] = f[j]
                }
            }
            r[2 * k] = (o.normalized.x - z.x) * w
            r[2 * k + 1] = (o.normalized.y - z.y) * w
        }
        // Left null-space projection of Hf by Givens rotations (zero Hf below its diagonal, bottom-up).
        for j in 0..<3 {
            var i = m - 1
            while i > j {
                let a = Hf[(i - 1) * 3 + j], b = Hf[i * 3 + j]
                if b != 0 {
                    let h = (a * a + b * b).squareRoot()
                    let c = a / h, s = b / h
                    for k in j..<3 {
                        let x = Hf[(i - 1) * 3 + k], y = Hf[i * 3 + k]
                        Hf[(i - 1) * 3 + k] = c * x + s * y
                        Hf[i * 3 + k] = -s * x + c * y
                    }
                    for k in 0..<cols {
                        let x = Hx[(i - 1) * cols + k], y = Hx[i * cols + k]
                        Hx[(i - 1) * cols + k] = c * x + s * y
                        Hx[i * cols + k] = -s * x + c * y
                    }
                    let x = r[i - 1], y = r[i]
                    r[i - 1] = c * x + s * y
                    r[i] = -s * x + c * y
                }
                i -= 1
            }
        }
        let rows = m - 3
        guard rows > 0 else { return nil }
        return FeatureResidual(cloneIndices: involved, Hx: Array(Hx[(3 * cols)...]), r: Array(r[3...]), rows: rows,
                               point: point)
    }

    /// χ² of a residual against `H P Hᵀ + I`, and its gate threshold.
    func chi2(_ f: FeatureResidual, state: FilterState) -> (Double, Double)? {
        let cols = 6 * f.cloneIndices.count
        // P restricted to the involved clones.
        var Psub = Matrix(rows: cols, columns: cols)
        for (a, ca) in f.cloneIndices.enumerated() {
            for (b, cb) in f.cloneIndices.enumerated() {
                let ia = FilterState.cloneIndex(ca), ib = FilterState.cloneIndex(cb)
                for i in 0..<6 { for j in 0..<6 { Psub[6 * a + i, 6 * b + j] = state.covariance(ia + i, ib + j) } }
            }
        }
        let H = Matrix(rows: f.rows, columns: cols, rowMajor: f.Hx)
        var S = H * Psub.timesTransposed(H)
        for i in 0..<f.rows { S[i, i] += 1 }
        guard let x = try? S.choleskySolve(Matrix(columnVector: f.r)) else { return nil }
        var chi = 0.0
        for i in 0..<f.rows { chi += f.r[i] * x.elements[i] }
        return (chi, gate.threshold(dof: f.rows))
    }

    /// Runs the update with `tracks` (at most `maxFeaturesPerUpdate`, longest first).
    func update(state: inout FilterState, tracks: [FeatureTrack]) -> MsckfUpdateResult {
        var result = MsckfUpdateResult()
        var cloneIndex: [TimestampNs: Int] = [:]
        for (i, c) in state.clones.enumerated() { cloneIndex[c.t_ns] = i }
        let ordered = tracks.sorted { $0.observations.count > $1.observations.count }
            .prefix(configuration.maxFeaturesPerUpdate)
        var accepted: [FeatureResidual] = []
        for t in ordered {
            guard let f = residual(for: t, state: state, cloneIndex: cloneIndex) else {
                result.failedTriangulation += 1
                continue
            }
            guard let (chi, threshold) = chi2(f, state: state), chi < threshold else {
                result.rejectedByGate += 1
                continue
            }
            accepted.append(f)
            result.landmarks.append(Landmark(id: t.id, p_W: f.point.p_W, std_m: f.point.std_m))
        }
        result.accepted = accepted.count
        guard !accepted.isEmpty else { return result }
        // Stack into H over the whole error state (inertial columns are zero).
        let n = state.dimension
        let m = accepted.reduce(0) { $0 + $1.rows }
        var H = Matrix(rows: m, columns: n)
        var r = [Double](repeating: 0, count: m)
        var row = 0
        for f in accepted {
            let cols = 6 * f.cloneIndices.count
            for i in 0..<f.rows {
                for (a, ci) in f.cloneIndices.enumerated() {
                    let base = FilterState.cloneIndex(ci)
                    for j in 0..<6 { H[row + i, base + j] = f.Hx[i * cols + 6 * a + j] }
                }
                r[row + i] = f.r[i]
            }
            row += f.rows
        }
        // Measurement compression: H = Q [R; 0] → use R and the first n entries of Qᵀ r.
        if m > n, let qr = try? H.qr(), let qtr = try? qr.applyQTransposed(to: Matrix(columnVector: r)) {
            H = qr.r
            r = Array(qtr.elements[0..<n])
        }
        result.rows = H.rows
        do { try state.update(H: H, r: r) } catch { result.accepted = 0; result.landmarks = [] }
        return result
    }
}
