import Foundation
import Geometry
import LinearAlgebra
import Sensors

/// Initialises in motion from ~1 s of feature tracks and IMU (visual-inertial alignment).
///
/// Method (a linear closed form in the spirit of Martinelli 2014 / Kaiser et al. 2017): relative
/// rotations `R_B0_Bk` and gravity-free position increments `α_k` come from integrating the IMU over
/// the window (with a gyro-bias guess). In the first body frame B0, the body position at frame k is
/// `p_k = v0·t_k + ½·g·t_k² + α_k`, so every observation `(u, v)` of a feature at `p_f` gives two
/// equations linear in `(p_f, v0, g)`: `e_i · R_Ckᵀ (p_f − p_Ck) = 0`, `e_1 = (1, 0, −u)`,
/// `e_2 = (0, 1, −v)`. The points are eliminated per feature (Schur complement), leaving a 6×6 system
/// for the velocity `v0` and gravity `g` (in B0). The solution is accepted when gravity has the
/// right magnitude (±10 %) and the system is well conditioned (enough acceleration), then gravity is
/// scaled to `g` exactly and `v0` re-solved. Scale comes from the accelerometer, so it needs motion
/// with acceleration; a gyro-bias error rotates the increments (use the last known bias after a reset).
struct DynamicInitializer {
    var configuration: EstimatorConfiguration
    var cameras: [CameraCalibration]
    var noise: ImuNoiseModel

    /// One frame of the window: its time and the observations (per camera) by feature id.
    struct WindowFrame {
        var t_ns: TimestampNs
        var observations: [FeatureObservation]
    }

    struct Result {
        /// State at the newest frame of the window (position zero there).
        var state: ImuState
        var covariance: Mat15
        /// Gravity magnitude found before normalisation (diagnostic), m/s².
        var gravityFound: Double
    }

    /// Tries to initialise from `frames` (oldest first, spanning ≥ ~1 s) and the IMU in `buffer`.
    func initialize(frames: [WindowFrame], buffer: ImuBuffer, gyroBias: Vec3) -> Result? {
        guard frames.count >= 5, let first = frames.first, let last = frames.last,
              let firstImu = buffer.first, firstImu.t_ns <= first.t_ns, let lastImu = buffer.last,
              lastImu.t_ns >= last.t_ns - 10_000_000 else { return nil }
        // Gravity-free integration from B0 = identity, v = 0.
        let integrator = ImuPropagator(noise: noise, gravity_W: .zero)
        var s = ImuState(t_ns: first.t_ns, gyroBias_B: gyroBias)
        var rot: [SO3] = [], alpha: [Vec3] = [], dt: [Double] = []
        for f in frames {
            _ = integrator.propagate(&s, to: f.t_ns, buffer: buffer)
            rot.append(s.R_W_B); alpha.append(s.p_W); dt.append(Double(f.t_ns - first.t_ns) * 1e-9)
        }
        // Observations per feature: (frame, camera, normalized).
        var tracks: [Int: [(Int, Int, Vec2)]] = [:]
        for (k, f) in frames.enumerated() {
            for o in f.observations where o.camera >= 0 && o.camera < cameras.count && o.normalized.x.isFinite && o.normalized.y.isFinite {
                tracks[o.id, default: []].append((k, o.camera, o.normalized))
                if let r = o.rightNormalized, o.camera + 1 < cameras.count, r.x.isFinite, r.y.isFinite {
                    tracks[o.id, default: []].append((k, o.camera + 1, r))
                }
            }
        }
        // Two passes: unweighted, then each observation's rows weighted by 1/depth from the first
        // solution, so that the equations are in (approximately) image units.
        guard var (S, rhs, used) = accumulate(tracks: tracks, rot: rot, alpha: alpha, dt: dt, previous: nil),
              used >= 15, let x0 = solve6(S, rhs),
              let second = accumulate(tracks: tracks, rot: rot, alpha: alpha, dt: dt, previous: x0) else { return nil }
        (S, rhs, used) = second
        guard used >= 15 else { return nil }
        guard let xs = solve6(S, rhs) else { return nil }
        var g = Vec3(xs[3], xs[4], xs[5])
        let found = g.norm
        guard found.isFinite, abs(found / configuration.gravity - 1) < 0.1 else { return nil }
        g = g * (configuration.gravity / found)
        // Re-solve v0 with gravity fixed: S_vv v0 = rhs_v − S_vg g.
        let Svv = Mat3(rows: Vec3(S[0], S[1], S[2]), Vec3(S[6], S[7], S[8]), Vec3(S[12], S[13], S[14]))
        let Svg = Mat3(rows: Vec3(S[3], S[4], S[5]), Vec3(S[9], S[10], S[11]), Vec3(S[15], S[16], S[17]))
        guard abs(Svv.determinant) > 1e-300 else { return nil }
        let v0Fixed = Svv.inverse * (Vec3(rhs[0], rhs[1], rhs[2]) - Svg * g)
        // Orientation of B0 with yaw 0: gravity in B0 is −(0, 0, g) in W, i.e. the "specific force" f = −g.
        let R_W_B0 = gravityAlignedRotation(specificForce: -g)
        // The state at the newest frame T (origin there: the position gauge): v_T = v0 + g·T + β_T.
        let T = dt[dt.count - 1]
        let vT_B0 = v0Fixed + T * g + s.v_W
        let R_W_BT = R_W_B0 * s.R_W_B
        let state = ImuState(t_ns: last.t_ns, R_W_B: R_W_BT, p_W: .zero, v_W: R_W_B0.act(vT_B0), gyroBias_B: gyroBias)

        // Covariance from the least squares: Σ_x = κ σ² S⁻¹ (σ = pixel noise in normalised units, the rows
        // being 1/depth-weighted; κ = 4 covers IMU noise in the increments), plus the accel-bias prior,
        // which tilts gravity by σ_ba/g and shifts the velocity by σ_ba·T.
        let sigma = configuration.pixelNoiseStd / cameras[0].model.intrinsics.fx
        guard let Sinv = try? Matrix(rows: 6, columns: 6, rowMajor: S).symmetrized().symmetricPositiveDefiniteInverse()
        else { return nil }
        let k = 4 * sigma * sigma
        func block(_ i: Int, _ j: Int) -> Mat3 {
            Mat3(rows: Vec3(Sinv[i, j], Sinv[i, j + 1], Sinv[i, j + 2]), Vec3(Sinv[i + 1, j], Sinv[i + 1, j + 1], Sinv[i + 1, j + 2]),
                 Vec3(Sinv[i + 2, j], Sinv[i + 2, j + 1], Sinv[i + 2, j + 2]))
        }
        let Svv0 = k * block(0, 0), Svg0 = k * block(0, 3), Sgg = k * block(3, 3)
        let R0 = R_W_B0.matrix
        let ba2 = pow(configuration.initialAccelBiasStd, 2)
        // Velocity at T in B0: δv_T = δv0 + T δg.
        let SigmaV_B0 = Svv0 + T * (Svg0 + Svg0.transposed) + (T * T) * Sgg
        let SigmaV_W = R0 * SigmaV_B0 * R0.transposed + Mat3(diagonal: Vec3(repeating: ba2 * T * T + 1e-4))
        // Tilt in W: δθ = [ĝ]× δg / |g| (only the direction of g matters), plus the bias term; yaw is the gauge.
        let gHat = g.normalized, G = configuration.gravity
        let tiltB0 = gHat.skew * Sgg * gHat.skew.transposed
        let zz = Mat3.outer(Vec3(0, 0, 1), Vec3(0, 0, 1))
        let SigmaTheta_W = (1 / (G * G)) * (R0 * tiltB0 * R0.transposed) + (ba2 / (G * G)) * (Mat3.identity - zz) + 1e-6 * zz
        let RT = R_W_BT.matrix
        var P = Mat15()
        P.setBlock(ErrorIndex.theta, ErrorIndex.theta, RT.transposed * SigmaTheta_W * RT)
        P.setBlock(ErrorIndex.velocity, ErrorIndex.velocity, SigmaV_W)
        for i in 0..<3 {
            P[ErrorIndex.position + i, ErrorIndex.position + i] = 1e-6
            P[ErrorIndex.gyroBias + i, ErrorIndex.gyroBias + i] = 1e-4
            P[ErrorIndex.accelBias + i, ErrorIndex.accelBias + i] = ba2
        }
        return Result(state: state, covariance: P, gravityFound: found)
    }

    /// Normal equations (Schur-reduced to `(v0, g)`) of all tracks; with `previous`, rows are
    /// weighted by the inverse depth the previous solution implies.
    private func accumulate(tracks: [Int: [(Int, Int, Vec2)]], rot: [SO3], alpha: [Vec3], dt: [Double],
                            previous: [Double]?) -> ([Double], [Double], Int)? {
        var S = [Double](repeating: 0, count: 36), rhs = [Double](repeating: 0, count: 6)
        var used = 0
        for id in tracks.keys.sorted() {
            guard let obs = tracks[id], Set(obs.map(\.0)).count >= 3 else { continue }
            var AtA = Mat3.zero, Atb = Vec3.zero
            var AtB = [Vec3](repeating: .zero, count: 6) // columns of the 3×6 block
            var BtB = [Double](repeating: 0, count: 36), Btb = [Double](repeating: 0, count: 6)
            var weights = [Double](repeating: 1, count: obs.count)
            if let x = previous {
                guard let p_f = point(obs: obs, rot: rot, alpha: alpha, dt: dt, x: x) else { continue }
                for (m, (k, c, _)) in obs.enumerated() {
                    let ext = cameras[c].T_B_C
                    let v0 = Vec3(x[0], x[1], x[2]), g = Vec3(x[3], x[4], x[5])
                    let p_Ck = alpha[k] + rot[k].act(ext.translation) + dt[k] * v0 + 0.5 * dt[k] * dt[k] * g
                    let z = (rot[k] * ext.rotation).inverse.act(p_f - p_Ck).z
                    guard z > configuration.minDepth else { weights[m] = 0; continue }
                    weights[m] = 1 / z
                }
            }
            for (m, (k, c, n)) in obs.enumerated() where weights[m] > 0 {
                let ext = cameras[c].T_B_C
                let RC = (rot[k] * ext.rotation).matrix
                let ck = alpha[k] + rot[k].act(ext.translation)
                let t = dt[k], w = weights[m]
                for e in [Vec3(1, 0, -n.x), Vec3(0, 1, -n.y)] {
                    let a = w * (RC * e) // the row e·R_Ckᵀ as a vector, weighted
                    var b = [Double](repeating: 0, count: 6)
                    for j in 0..<3 { b[j] = -t * a[j]; b[3 + j] = -0.5 * t * t * a[j] }
                    let y = a.dot(ck)
                    AtA = AtA + Mat3.outer(a, a)
                    Atb = Atb + y * a
                    for j in 0..<6 {
                        AtB[j] = AtB[j] + b[j] * a
                        Btb[j] += b[j] * y
                        for i in 0..<6 { BtB[i * 6 + j] += b[i] * b[j] }
                    }
                }
            }
            guard abs(AtA.determinant) > 1e-18 * pow(AtA.trace, 3) else { continue }
            let inv = AtA.inverse
            // Schur complement: S += BtB − AtBᵀ AtA⁻¹ AtB, rhs += Btb − AtBᵀ AtA⁻¹ Atb.
            let invAtb = inv * Atb
            let invAtB = AtB.map { inv * $0 }
            for i in 0..<6 {
                rhs[i] += Btb[i] - AtB[i].dot(invAtb)
                for j in 0..<6 { S[i * 6 + j] += BtB[i * 6 + j] - AtB[i].dot(invAtB[j]) }
            }
            used += 1
        }
        return (S, rhs, used)
    }

    /// The least-squares point of one track given `(v0, g)`.
    private func point(obs: [(Int, Int, Vec2)], rot: [SO3], alpha: [Vec3], dt: [Double], x: [Double]) -> Vec3? {
        let v0 = Vec3(x[0], x[1], x[2]), g = Vec3(x[3], x[4], x[5])
        var A = Mat3.zero, b = Vec3.zero
        for (k, c, n) in obs {
            let ext = cameras[c].T_B_C
            let d = (rot[k] * ext.rotation).act(Vec3(n.x, n.y, 1)).normalized
            let o = alpha[k] + rot[k].act(ext.translation) + dt[k] * v0 + 0.5 * dt[k] * dt[k] * g
            let Pm = Mat3.identity - Mat3.outer(d, d)
            A = A + Pm
            b = b + Pm * o
        }
        guard abs(A.determinant) > 1e-12 else { return nil }
        return A.inverse * b
    }

    /// Solves the 6×6 system if it is well conditioned.
    private func solve6(_ S: [Double], _ rhs: [Double]) -> [Double]? {
        let Sm = Matrix(rows: 6, columns: 6, rowMajor: S).symmetrized()
        guard let eig = try? Sm.symmetricEigen(), let lo = eig.eigenvalues.first, let hi = eig.eigenvalues.last,
              hi > 0, lo > 1e-9 * hi, let x = try? Sm.choleskySolve(Matrix(columnVector: rhs)) else { return nil }
        return x.elements
    }
}
