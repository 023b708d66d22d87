import Foundation
import Geometry
import LinearAlgebra
import Sensors

/// A stochastic clone: the body pose at a past image time, kept in the state for the visual update.
struct Clone: Equatable {
    /// Image time, nanoseconds.
    var t_ns: TimestampNs
    /// Orientation of the body in W at that time.
    var R_W_B: SO3
    /// Position of the body in W, metres.
    var p_W: Vec3
    /// The first estimates (the values when the clone was taken), for first-estimate Jacobians.
    var firstR_W_B: SO3, firstP_W: Vec3
    /// The clone's pose.
    var T_W_B: SE3 { SE3(rotation: R_W_B, translation: p_W) }

    init(t_ns: TimestampNs, R_W_B: SO3, p_W: Vec3) {
        self.t_ns = t_ns; self.R_W_B = R_W_B; self.p_W = p_W
        firstR_W_B = R_W_B; firstP_W = p_W
    }
}

/// The filter's mean and covariance: inertial state, the camera–IMU time offset, the map's scale and camera 0's
/// mounting (each when estimated), the floor (once found), clones, and the joint error-state covariance.
///
/// Error-state layout: `[δθ, δp, δv, δb_g, δb_a]` (15), then `δt_d` (1, only when the time offset is
/// estimated), then `δσ` (1, the map's log-scale, only when estimated: the true map scale is
/// `mapScale · exp(δσ)`), then `[δφ_BC, δp_BC]` (6, only when the mounting is estimated:
/// `R_B_C = R̂_B_C · Exp(δφ_BC)`, `p_B_C = p̂_B_C + δp_BC`, in B), then `[δh, δs_x, δs_y]` (3, the floor's height
/// and slopes, only once the floor is in the state: `addFloor`), then `[δθ_i, δp_i]` (6) per clone, oldest first
/// (`cloneStart` is the first clone index). Orientation errors are on the right (body frame): `R = R̂ · Exp(δθ)`.
/// `P` is stored dense and symmetric, column-major (`P[i + j·n]`).
struct FilterState {
    var imu: IMUState
    /// Camera–IMU time offset `t_d`, seconds: the image stamped `t_cam` was taken at IMU time `t_cam + t_d`.
    /// Estimated when `timeOffsetIndex` is set, a constant otherwise.
    var timeOffset_s: Double = 0
    /// Error-state index of `δt_d` (15), nil when the time offset is not estimated.
    let timeOffsetIndex: Int?
    /// The map's scale (mono map reuse), relative to the filter's: a mono map holds the scale the filter had when it
    /// was made; estimated, the map follows a scale the filter learns later (`MapScaleOptions`). Whoever keeps the map
    /// scales its points about W's origin by each change of this value, so the map's points are always at the
    /// estimated scale. 1 when not estimated.
    var mapScale: Double = 1
    /// Error-state index of `δσ` (after `δt_d`), nil when the map's scale is not estimated.
    let mapScaleIndex: Int?
    /// Camera 0's mounting (pose of camera 0 in B), when estimated; nil when the calibration's is used as given.
    var T_B_C0: SE3?
    /// Error-state index of `[δφ_BC, δp_BC]` (after `δt_d` and `δσ`), nil when the mounting is not estimated.
    let extrinsicIndex: Int?
    /// The floor, when in the state (`floorIndex` set; meaningless otherwise): the plane
    /// `z = floorHeight_m + floorSlope · ((x, y) − floorOrigin_m)` in W, metres. The slopes (dz/dx, dz/dy) are the
    /// floor's tilt against gravity; the origin is the body's horizontal position when the floor entered the state.
    var floorHeight_m: Double = 0
    /// See `floorHeight_m`.
    var floorSlope = SIMD2<Double>(0, 0), floorOrigin_m = SIMD2<Double>(0, 0)
    /// Error-state index of `δh` (just before the clones; `δs_x`, `δs_y` follow), nil until `addFloor`.
    private(set) var floorIndex: Int?
    /// Error-state entries of the floor: height and two slopes.
    static let floorDimension = 3

    /// The floor's height under the point `(x, y)` of W, metres.
    func floorHeight(atX x: Double, y: Double) -> Double {
        floorHeight_m + floorSlope.x * (x - floorOrigin_m.x) + floorSlope.y * (y - floorOrigin_m.y)
    }
    var clones: [Clone] = []
    /// Covariance, `dimension × dimension`, column-major.
    private(set) var P: [Double]

    /// Error-state index of the first clone: 15, plus 1 with the time offset, plus 1 with the map's scale, plus 6
    /// with the mounting, plus 3 with the floor.
    var cloneStart: Int {
        ErrorIndex.imu + (timeOffsetIndex == nil ? 0 : 1) + (mapScaleIndex == nil ? 0 : 1) + (extrinsicIndex == nil ? 0 : 6)
            + (floorIndex == nil ? 0 : Self.floorDimension)
    }

    /// Error-state dimension `cloneStart + 6·clones`.
    var dimension: Int { cloneStart + ErrorIndex.clone * clones.count }

    /// Error-state index of clone `i`'s `δθ` (its `δp` follows at +3).
    func cloneIndex(_ i: Int) -> Int { cloneStart + ErrorIndex.clone * i }

    /// A state with a diagonal initial covariance (`diagonal.count == 15`).
    init(imu: IMUState, diagonalCovariance diagonal: [Double]) {
        precondition(diagonal.count == ErrorIndex.imu)
        self.imu = imu
        timeOffsetIndex = nil
        mapScaleIndex = nil
        extrinsicIndex = nil
        P = [Double](repeating: 0, count: 225)
        for i in 0..<15 { P[i + i * 15] = diagonal[i] }
    }

    /// A state with a full 15×15 initial inertial covariance and, when given, the time offset (value in
    /// seconds, prior variance in s²), the map's scale (value, prior variance of its logarithm) and camera 0's
    /// mounting (`T_B_C0`, prior variances of its rotation in rad² and of its lever arm in m², per axis) in the
    /// state, uncorrelated with the rest.
    init(imu: IMUState, covariance: Mat15, timeOffset: (value_s: Double, variance: Double)? = nil,
         mapScale: (value: Double, variance: Double)? = nil,
         extrinsic: (T_B_C0: SE3, rotationVariance: Double, translationVariance: Double)? = nil) {
        self.imu = imu
        timeOffsetIndex = timeOffset == nil ? nil : ErrorIndex.imu
        mapScaleIndex = mapScale == nil ? nil : ErrorIndex.imu + (timeOffset == nil ? 0 : 1)
        extrinsicIndex = extrinsic == nil ? nil : ErrorIndex.imu + (timeOffset == nil ? 0 : 1) + (mapScale == nil ? 0 : 1)
        let n = ErrorIndex.imu + (timeOffset == nil ? 0 : 1) + (mapScale == nil ? 0 : 1) + (extrinsic == nil ? 0 : 6)
        P = [Double](repeating: 0, count: n * n)
        for i in 0..<15 { for j in 0..<15 { P[i + j * n] = covariance[i, j] } }
        if let timeOffset, let td = timeOffsetIndex {
            timeOffset_s = timeOffset.value_s
            P[td + td * n] = timeOffset.variance
        }
        if let mapScale, let ms = mapScaleIndex {
            self.mapScale = mapScale.value
            P[ms + ms * n] = mapScale.variance
        }
        if let extrinsic, let e = extrinsicIndex {
            T_B_C0 = extrinsic.T_B_C0
            for i in 0..<3 {
                P[(e + i) * (n + 1)] = extrinsic.rotationVariance
                P[(e + 3 + i) * (n + 1)] = extrinsic.translationVariance
            }
        }
        symmetrize()
    }

    /// Calls `body` with the covariance storage (column-major, `dimension × dimension`).
    func withCovariance<T>(_ body: (UnsafeBufferPointer<Double>) throws -> T) rethrows -> T {
        try P.withUnsafeBufferPointer(body)
    }

    /// Element (i, j) of the covariance.
    func covariance(_ i: Int, _ j: Int) -> Double { P[i + j * dimension] }

    /// The 3×3 covariance block at (i, j).
    func covarianceBlock(_ i: Int, _ j: Int) -> Mat3 {
        let n = dimension
        return Mat3(rows: Vec3(P[i + j * n], P[i + (j + 1) * n], P[i + (j + 2) * n]),
                    Vec3(P[i + 1 + j * n], P[i + 1 + (j + 1) * n], P[i + 1 + (j + 2) * n]),
                    Vec3(P[i + 2 + j * n], P[i + 2 + (j + 1) * n], P[i + 2 + (j + 2) * n]))
    }

    /// The covariance as a `Matrix`.
    var covarianceMatrix: Matrix { Matrix(rows: dimension, columns: dimension, columnMajor: P) }

    /// Replaces the covariance (must be `dimension × dimension`); it is symmetrised.
    mutating func setCovariance(_ m: Matrix) {
        precondition(m.rows == dimension && m.columns == dimension)
        P = m.elements
        symmetrize()
    }

    /// Sets one diagonal element of the covariance.
    mutating func setDiagonal(_ i: Int, _ v: Double) { P[i + i * dimension] = v }

    /// `P ← (P + Pᵀ)/2`.
    mutating func symmetrize() {
        let n = dimension
        P.withUnsafeMutableBufferPointer { p in
            for j in 0..<n {
                for i in (j + 1)..<max(j + 1, n) {
                    let m = 0.5 * (p[i + j * n] + p[j + i * n])
                    p[i + j * n] = m; p[j + i * n] = m
                }
            }
        }
    }

    /// Applies an inertial transition: `P_II ← Φ P_II Φᵀ + Q`, `P_IC ← Φ P_IC` (clones unchanged).
    mutating func propagateCovariance(phi: Mat15, q: Mat15) {
        let n = dimension
        // Rows 0..<15 of P (all columns) get multiplied by Φ on the left: T = Φ P[0..<15, :].
        var t = [Double](repeating: 0, count: 15 * n) // column-major 15 × n
        P.withUnsafeBufferPointer { p in
            phi.a.withUnsafeBufferPointer { f in
                t.withUnsafeMutableBufferPointer { tt in
                    for j in 0..<n {
                        for k in 0..<15 {
                            let pkj = p[k + j * n]
                            if pkj == 0 { continue }
                            for i in 0..<15 { tt[i + j * 15] += f[i * 15 + k] * pkj }
                        }
                    }
                }
            }
        }
        // New P_II = T[:, 0..<15] Φᵀ + Q; new P_IC = T[:, 15..<n].
        P.withUnsafeMutableBufferPointer { p in
            t.withUnsafeBufferPointer { tt in
                phi.a.withUnsafeBufferPointer { f in
                    for i in 0..<15 {
                        for j in 0..<15 {
                            var s = q.a[i * 15 + j]
                            for k in 0..<15 { s += tt[i + k * 15] * f[j * 15 + k] }
                            p[i + j * n] = s
                        }
                    }
                    for j in 15..<max(15, n) {
                        for i in 0..<15 {
                            p[i + j * n] = tt[i + j * 15]
                            p[j + i * n] = tt[i + j * 15]
                        }
                    }
                }
            }
        }
        symmetrize()
    }

    /// Adds a clone of the current body pose, for the image stamped `t_ns` (default: the state's time).
    ///
    /// Without the time offset its covariance rows copy those of `[δθ, δp]`. With it (OpenVINS'
    /// `StateHelper::augment_clone` with `calib_dt`), the state is at IMU time `t_cam + t̂_d` while the image
    /// was taken at `t_cam + t_d = t_cam + t̂_d + δt_d`, so the clone is the pose `δt_d` later:
    /// `δθ_c = δθ + ω̂ δt_d` (right error, body rate `omega_B` bias-corrected), `δp_c = δp + v̂ δt_d`; its rows
    /// are `J P` with `J = [I₆ | (ω̂; v̂) in the δt_d column]`, and its block `J P Jᵀ`.
    mutating func augmentClone(t_ns: TimestampNs? = nil, omega_B: Vec3 = .zero) {
        let n = dimension, m = n + 6
        var Q = [Double](repeating: 0, count: m * m)
        let src = [0, 1, 2, 3, 4, 5] // δθ, δp of the inertial state
        for j in 0..<n { for i in 0..<n { Q[i + j * m] = P[i + j * n] } }
        if let td = timeOffsetIndex {
            let jac = [omega_B.x, omega_B.y, omega_B.z, imu.v_W.x, imu.v_W.y, imu.v_W.z] // ∂[δθ_c, δp_c]/∂δt_d
            // Rows of J P: row a = P[s_a, :] + jac[a] · P[td, :].
            var rows = [Double](repeating: 0, count: 6 * n) // 6 × n, row-major
            for (a, s) in src.enumerated() {
                for j in 0..<n { rows[a * n + j] = P[s + j * n] + jac[a] * P[td + j * n] }
            }
            for a in 0..<6 {
                for j in 0..<n {
                    Q[(n + a) + j * m] = rows[a * n + j]
                    Q[j + (n + a) * m] = rows[a * n + j]
                }
            }
            // J P Jᵀ = (J P)[:, src] + (J P)[:, td] jacᵀ.
            for a in 0..<6 {
                for (b, s2) in src.enumerated() { Q[(n + a) + (n + b) * m] = rows[a * n + s2] + rows[a * n + td] * jac[b] }
            }
        } else {
            for (a, s) in src.enumerated() {
                for j in 0..<n {
                    Q[(n + a) + j * m] = P[s + j * n]
                    Q[j + (n + a) * m] = P[j + s * n]
                }
            }
            for (a, s) in src.enumerated() { for (b, s2) in src.enumerated() { Q[(n + a) + (n + b) * m] = P[s + s2 * n] } }
        }
        P = Q
        clones.append(Clone(t_ns: t_ns ?? imu.t_ns, R_W_B: imu.R_W_B, p_W: imu.p_W))
        if timeOffsetIndex != nil { symmetrize() } // (after the append: `dimension` counts the new clone)
    }

    /// Puts the floor into the state: the plane through the point `cameraHeight_m` below the current body position
    /// (`h = p_z − d`, `d` the height measured from the landmarks on it, relative to the current pose), level to
    /// begin with. Its height error `δh = δp_z − δd` shares the position's covariance with everything, plus
    /// `heightVariance` (m²) for `δd`, which is taken as independent of the state (the landmarks' errors relative to
    /// the pose); its slopes start at 0 with `slopeVariance` each (rad², small angles), uncorrelated. Inserted just
    /// before the clones. Does nothing when the floor is in the state already.
    mutating func addFloor(cameraHeight_m d: Double, heightVariance: Double, slopeVariance: Double) {
        guard floorIndex == nil else { return }
        let n = dimension, k = cloneStart, q = Self.floorDimension, m = n + q
        let z = ErrorIndex.position + 2
        func old(_ i: Int) -> Int { i < k ? i : i - q } // new index → old index (i outside the floor's)
        let floor = k..<(k + q)
        var Q = [Double](repeating: 0, count: m * m)
        for j in 0..<m where !floor.contains(j) {
            let oj = old(j)
            for i in 0..<m where !floor.contains(i) { Q[i + j * m] = P[old(i) + oj * n] }
            Q[k + j * m] = P[z + oj * n]
            Q[j + k * m] = P[z + oj * n]
        }
        Q[k + k * m] = P[z + z * n] + heightVariance
        Q[(k + 1) * (m + 1)] = slopeVariance
        Q[(k + 2) * (m + 1)] = slopeVariance
        P = Q
        floorIndex = k
        floorHeight_m = imu.p_W.z - d
        floorSlope = SIMD2(0, 0)
        floorOrigin_m = SIMD2(imu.p_W.x, imu.p_W.y)
    }

    /// Sets every clone's first estimate to its current value (while the filter is still converging).
    mutating func refreshFirstEstimates() {
        for i in clones.indices {
            clones[i].firstR_W_B = clones[i].R_W_B
            clones[i].firstP_W = clones[i].p_W
        }
    }

    /// Removes clone `index` and its rows and columns from the covariance (marginalisation).
    mutating func marginalizeClone(_ index: Int) {
        let n = dimension, m = n - 6
        let c0 = cloneIndex(index)
        func map(_ i: Int) -> Int { i < c0 ? i : i + 6 }
        var Q = [Double](repeating: 0, count: m * m)
        for j in 0..<m { let sj = map(j); for i in 0..<m { Q[i + j * m] = P[map(i) + sj * n] } }
        P = Q
        clones.remove(at: index)
    }

    /// Applies an error-state correction `δx` (length `dimension`) to the mean.
    mutating func inject(_ dx: [Double]) {
        func v(_ i: Int) -> Vec3 { Vec3(dx[i], dx[i + 1], dx[i + 2]) }
        imu.R_W_B = SO3((imu.R_W_B * SO3.exp(v(ErrorIndex.theta))).quaternion)
        imu.p_W += v(ErrorIndex.position)
        imu.v_W += v(ErrorIndex.velocity)
        imu.gyroBias_B += v(ErrorIndex.gyroBias)
        imu.accelBias_B += v(ErrorIndex.accelBias)
        if let td = timeOffsetIndex { timeOffset_s += dx[td] }
        if let ms = mapScaleIndex { mapScale *= exp(dx[ms]) }
        if let e = extrinsicIndex, let T = T_B_C0 {
            T_B_C0 = SE3(rotation: SO3((T.rotation * SO3.exp(v(e))).quaternion), translation: T.translation + v(e + 3))
        }
        if let f = floorIndex {
            floorHeight_m += dx[f]
            floorSlope += SIMD2(dx[f + 1], dx[f + 2])
        }
        for i in clones.indices {
            let c = cloneIndex(i)
            clones[i].R_W_B = SO3((clones[i].R_W_B * SO3.exp(v(c))).quaternion)
            clones[i].p_W += v(c + 3)
        }
    }

    /// 1-σ position uncertainty: square root of the largest eigenvalue of the position covariance.
    var positionStd: Double {
        let m = covarianceBlock(ErrorIndex.position, ErrorIndex.position)
        return SymmetricEigen3.largestEigenvalue(m).squareRoot()
    }

    /// 1-σ orientation uncertainty: square root of the largest eigenvalue of the attitude covariance, radians.
    var orientationStd: Double {
        SymmetricEigen3.largestEigenvalue(covarianceBlock(ErrorIndex.theta, ErrorIndex.theta)).squareRoot()
    }

    /// 1-σ velocity uncertainty: square root of the largest eigenvalue of the velocity covariance, m/s.
    var velocityStd: Double {
        SymmetricEigen3.largestEigenvalue(covarianceBlock(ErrorIndex.velocity, ErrorIndex.velocity)).squareRoot()
    }

    /// 1-σ uncertainty of the gravity direction (tilt: roll and pitch in the world frame), radians: with the
    /// body-frame attitude error δθ, the world-frame error is `R δθ`, whose x and y components tilt the body.
    var tiltStd: Double {
        let R = imu.R_W_B.matrix
        let sigmaW = R * covarianceBlock(ErrorIndex.theta, ErrorIndex.theta) * R.transposed
        return max(0, 0.5 * (sigmaW[0, 0] + sigmaW[1, 1])).squareRoot()
    }

    /// True when the mean and covariance are finite and the covariance diagonal is non-negative.
    var isHealthy: Bool {
        guard imu.isFinite else { return false }
        let n = dimension
        for i in 0..<n where !(P[i + i * n].isFinite && P[i + i * n] >= 0) { return false }
        return P.allSatisfy { $0.isFinite }
    }
}
