import Foundation
import Geometry
import LinearAlgebra
import Sensors

/// Initialises in motion from ~1 s of feature tracks and IMU (visual-inertial alignment).
///
/// Method (a linear closed form in the spirit of Martinelli 2014 / Kaiser et al. 2017): relative
/// rotations `R_B0_Bk` and gravity-free position increments `α_k` come from integrating the IMU over
/// the window with the gyro bias estimated first (`refineGyroBias`). In the first body frame B0, the
/// body position at frame k is `p_k = v0·t_k + ½·g·t_k² + α_k`, so every observation `(u, v)` of a feature at `p_f` gives two
/// equations linear in `(p_f, v0, g)`: `e_i · R_Ckᵀ (p_f − p_Ck) = 0`, `e_1 = (1, 0, −u)`,
/// `e_2 = (0, 1, −v)`. The points are eliminated per feature (Schur complement), leaving a 6×6 system
/// for the velocity `v0` and gravity `g` (in B0). The solution is accepted when gravity has the
/// right magnitude (±10 %) and the system is well conditioned (enough acceleration), then gravity is
/// scaled to `g` exactly and `v0` re-solved. Scale comes from the accelerometer, so it needs motion
/// with acceleration. A gyro-bias error rotates the increments, and the alignment would absorb it into
/// velocity, gravity and scale; so the bias is estimated from the same equations before the alignment,
/// starting from the prior guess (zero, or the last known bias after a reset).
struct DynamicInitializer {
    var configuration: EstimatorConfiguration
    var cameras: [CameraCalibration]
    var noise: IMUNoiseModel

    /// One frame of the window: its time and the observations (per camera) by feature id.
    struct WindowFrame {
        var t_ns: TimestampNs
        var observations: [FeatureObservation]
    }

    struct Result {
        /// State at the newest frame of the window (position zero there).
        var state: IMUState
        var covariance: Mat15
        /// Gravity magnitude found before normalisation (diagnostic), m/s².
        var gravityFound: Double
    }

    /// The IMU integrated over the window with one gyro-bias guess, gravity-free from B0 = identity, v = 0.
    struct Increments {
        /// `R_B0_Bk`, `α_k` (B0, metres) and `t_k − t_0` (seconds) at each frame.
        var rot: [SO3], alpha: [Vec3], dt: [Double]
        /// The integrated state at the newest frame (its `v_W` is the gravity-free velocity increment, B0).
        var last: IMUState
    }

    /// Why a window that aligned was not used.
    enum Refusal: Equatable, Sendable {
        /// The window does not fix the speed, and with it the scale: its motion leaves the scale little to rest on
        /// (`scaleExcitation` under `minScaleExcitation_m`), and the speed found (`speed`, m/s) could be `tolerance`
        /// (m/s) higher or lower, more than `maxRelativeSpeedTolerance` of it and more than `speedToleranceAllowance`:
        /// everything else fitted again for at most half again the alignment's squared residual (`speedRefusal`, the
        /// speed at the window's start), or moved that far by an accelerometer bias of `initialAccelBiasStd`
        /// (`biasRefusal`, the speed at its end). Circling at an even speed while facing the centre does this.
        case speedNotDetermined(speed: Double, tolerance: Double)
    }

    /// What one try at a window gave.
    enum Outcome {
        /// The window aligned and fixes the state.
        case initialized(Result)
        /// The window aligned, but its answer is not trusted.
        case refused(Refusal)
        /// The window could not be aligned (too few tracks, gravity off, a singular system, no gyro bias explaining it).
        case failed
    }

    /// Tries to initialise from `frames` (oldest first, spanning ≥ ~1 s) and the IMU in `buffer` (`attempt`); nil
    /// when the window failed or was refused.
    func initialize(frames: [WindowFrame], buffer: IMUBuffer, gyroBias: Vec3) -> Result? {
        if case .initialized(let result) = attempt(frames: frames, buffer: buffer, gyroBias: gyroBias) { return result }
        return nil
    }

    /// Tries to initialise from `frames` (oldest first, spanning ≥ ~1 s) and the IMU in `buffer`. The gyro
    /// bias is refined from `gyroBias` (the prior guess) by `refineGyroBias` before the alignment; the answer is
    /// refused when the tracks do not determine its speed (`Refusal.speedNotDetermined`).
    func attempt(frames: [WindowFrame], buffer: IMUBuffer, gyroBias: Vec3) -> Outcome {
        guard frames.count >= 5, let first = frames.first,
              let firstIMU = buffer.first, firstIMU.t_ns <= first.t_ns, let lastIMU = buffer.last,
              let lastFrame = frames.last, lastIMU.t_ns >= lastFrame.t_ns - 10_000_000 else { return .failed }
        let tracks = Self.tracks(frames, cameras: cameras)
        var bias = refineGyroBias(frames: frames, buffer: buffer, tracks: Self.longest(tracks, configuration.initializer.gyroBiasTracks),
                                  prior: gyroBias)
        if configuration.initializer.visualGyroBias {
            // The alignment's cost has a valley along which a gravity tilt mimics a rotation-rate error, and the
            // refinement from the prior can stop in it (on EuRoC V1_01's real IMU, 0.1 rad/s off). The image
            // rotations alone (`VisualGyroBias`) have another ambiguity (rotation against translation), so both are
            // asked: candidates are the refinement from the prior, the visual estimate and the refinement from it; a
            // candidate must explain both the alignment and the image rotations to pixel noise, and the one the
            // alignment fits best is taken. No candidate does: the window is refused (the next one is tried).
            // A fourth candidate, the visual estimate started from the refinement, is below.
            let visual = visualGyroBias(frames: frames, buffer: buffer, tracks: tracks, start: gyroBias) ?? bias.value
            let fromVisual = refineGyroBias(frames: frames, buffer: buffer,
                                            tracks: Self.longest(tracks, configuration.initializer.gyroBiasTracks), prior: visual)
            let solver = VisualGyroBias(T_B_C: cameras[0].T_B_C)
            let bearings = VisualGyroBias.bearings(tracks: tracks, pairs: VisualGyroBias.pairs(frameCount: frames.count))
            let sigmaN = configuration.updater.pixelNoiseStd / cameras[0].model.intrinsics.fx
            let limit = pow(configuration.initializer.gyroBiasConsistency * sigmaN, 2)
            var best: (cost: Double, bias: (value: Vec3, std: Double))?
            var candidates = [bias, (value: visual, std: bias.std), fromVisual]
            // The image rotations' cost has local minima of its own: started from the prior, its search can stop in
            // one far from the bias (EuRoC V1_01's real IMU, 60 s into the flight: about 0.15 rad/s off, while the
            // search started from the refinement lands within 0.002 rad/s of the ground truth's bias).
            if configuration.initializer.visualGyroBiasFromRefinement,
               let fromRefined = visualGyroBias(frames: frames, buffer: buffer, tracks: tracks, start: bias.value) {
                candidates.append((value: fromRefined, std: bias.std))
            }
            for candidate in candidates {
                let rot = integrate(frames: frames, buffer: buffer, gyroBias: candidate.value).rot
                let align = alignmentCost(frames: frames, buffer: buffer, tracks: tracks, bias: candidate.value)
                let vis = solver.cost(bearings, rot: rot)
                guard align <= limit, vis <= limit else { continue }
                if align < (best?.cost ?? .infinity) { best = (align, candidate) }
            }
            guard let best else { return .failed }
            bias = best.bias
        }
        let inc = integrate(frames: frames, buffer: buffer, gyroBias: bias.value)
        let (rot, alpha, dt, s) = (inc.rot, inc.alpha, inc.dt, inc.last)
        // Two passes: unweighted, then each observation's rows weighted by 1/depth from the first
        // solution, so that the equations are in (approximately) image units.
        guard let (S0, rhs0, used0) = accumulate(tracks: tracks, rot: rot, alpha: alpha, dt: dt, weights: nil),
              used0 >= 15, let x0 = solve6(S0, rhs0) else { return .failed }
        let weights = depthWeights(tracks: tracks, rot: rot, alpha: alpha, dt: dt, x: x0)
        guard let (S, rhs, used) = accumulate(tracks: tracks, rot: rot, alpha: alpha, dt: dt, weights: weights),
              used >= 15, let solution = alignment(S, rhs, gravityFree: s.v_W, span: dt[dt.count - 1])
        else { return .failed }
        let (g, vT_B0, found) = (solution.g, solution.vT, solution.found)
        // Motion that leaves the scale little to rest on (`scaleExcitation`), and an answer that shows it: the speed is
        // loose by half against the fit's own residual (`speedRefusal`), or against the accelerometer-bias prior
        // (`biasRefusal`). Either alone refuses sound windows: the first on clean data, whose small residual makes
        // any speed change costly but not half again; the second where a bias does move a well-excited answer.
        let options = configuration.initializer
        let checksSpeed = options.maxRelativeSpeedTolerance > 0
            && (scaleExcitation(frames: frames, buffer: buffer, increments: inc, gyroBias: bias.value) ?? 0) < options.minScaleExcitation_m
        if checksSpeed, let refusal = speedRefusal(tracks: tracks, increments: inc, weights: weights, normalEquations: (S, rhs)) {
            return .refused(refusal)
        }
        let sensitivity = options.tiltAccelBiasCorrelation || checksSpeed
            ? accelBiasSensitivity(frames: frames, buffer: buffer, tracks: tracks, gyroBias: bias.value, weights: weights, nominal: solution)
            : nil
        if checksSpeed, let K = sensitivity, let refusal = Self.biasRefusal(velocity_B0: vT_B0, sensitivity_B0: K.velocity_B0, options: options) {
            return .refused(refusal)
        }
        // Orientation of B0 with yaw 0: gravity in B0 is −(0, 0, g) in W, i.e. the "specific force" f = −g.
        let R_W_B0 = gravityAlignedRotation(specificForce: -g)
        let T = dt[dt.count - 1]
        let R_W_BT = R_W_B0 * s.R_W_B
        let state = IMUState(t_ns: lastFrame.t_ns, R_W_B: R_W_BT, p_W: .zero, v_W: R_W_B0.act(vT_B0), gyroBias_B: bias.value)

        // Covariance from the least squares: Σ_x = κ σ² S⁻¹ (σ = pixel noise in normalised units, the rows
        // being 1/depth-weighted; κ = 4 covers IMU noise in the increments), plus the accel-bias prior,
        // which tilts gravity by σ_ba/g and shifts the velocity by σ_ba·T.
        let sigma = configuration.updater.pixelNoiseStd / cameras[0].model.intrinsics.fx
        guard let Sinv = try? Matrix(rows: 6, columns: 6, rowMajor: S).symmetrized().symmetricPositiveDefiniteInverse()
        else { return .failed }
        let k = 4 * sigma * sigma
        func block(_ i: Int, _ j: Int) -> Mat3 {
            Mat3(rows: Vec3(Sinv[i, j], Sinv[i, j + 1], Sinv[i, j + 2]), Vec3(Sinv[i + 1, j], Sinv[i + 1, j + 1], Sinv[i + 1, j + 2]),
                 Vec3(Sinv[i + 2, j], Sinv[i + 2, j + 1], Sinv[i + 2, j + 2]))
        }
        let Svv0 = k * block(0, 0), Svg0 = k * block(0, 3), Sgg = k * block(3, 3)
        let R0 = R_W_B0.matrix
        let ba2 = pow(configuration.initializer.initialAccelBiasStd, 2)
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
            P[ErrorIndex.gyroBias + i, ErrorIndex.gyroBias + i] = bias.std * bias.std
            P[ErrorIndex.accelBias + i, ErrorIndex.accelBias + i] = ba2
        }
        if options.tiltAccelBiasCorrelation, let K = sensitivity {
            // The alignment took the accelerometer bias as zero; a bias δb moves its answer by K δb. So the tilt and
            // velocity are correlated with the bias by K σ²: what the filter later learns of one, it learns of the
            // other. Their own covariance gains K σ² Kᵀ on top of the bounds above, which stay as the margin for what
            // the alignment's noise model leaves out (with K σ² Kᵀ in their place the filter was overconfident: on the
            // estimator's simulated starts in motion its tilt, bias and position came out worse than without any of
            // this). Tilt about W's up is the yaw gauge: taken out.
            let up = RT.transposed * Vec3(0, 0, 1)
            let Kθ = (Mat3.identity - Mat3.outer(up, up)) * (s.R_W_B.matrix.transposed * K.tilt_B0)
            let Kv = R0 * K.velocity_B0
            P.setBlock(ErrorIndex.theta, ErrorIndex.theta, RT.transposed * SigmaTheta_W * RT + ba2 * (Kθ * Kθ.transposed))
            P.setBlock(ErrorIndex.velocity, ErrorIndex.velocity, SigmaV_W + ba2 * (Kv * Kv.transposed))
            P.setBlock(ErrorIndex.theta, ErrorIndex.velocity, ba2 * (Kθ * Kv.transposed))
            P.setBlock(ErrorIndex.velocity, ErrorIndex.theta, ba2 * (Kv * Kθ.transposed))
            P.setBlock(ErrorIndex.theta, ErrorIndex.accelBias, ba2 * Kθ)
            P.setBlock(ErrorIndex.accelBias, ErrorIndex.theta, ba2 * Kθ.transposed)
            P.setBlock(ErrorIndex.velocity, ErrorIndex.accelBias, ba2 * Kv)
            P.setBlock(ErrorIndex.accelBias, ErrorIndex.velocity, ba2 * Kv.transposed)
        }
        return .initialized(Result(state: state, covariance: P, gravityFound: found))
    }

    /// The alignment's answer from its Schur-reduced normal equations: gravity scaled to `g` exactly (`found` is its
    /// magnitude before), `v0` re-solved with it, and the velocity at the window's end `v_T = v0 + g·T + β_T` (B0;
    /// `gravityFree` is `β_T`, `span` is `T`). `nil` when gravity is off by more than 10 % or the system is singular.
    func alignment(_ S: [Double], _ rhs: [Double], gravityFree: Vec3, span T: Double) -> (g: Vec3, vT: Vec3, found: Double)? {
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
        return (g, v0Fixed + T * g + gravityFree, found)
    }

    /// How the alignment's answer moves with the accelerometer bias it assumed (zero), by finite differences: the
    /// window integrated again with a bias of 1 mm/s² on each body axis, aligned with the same weights. Columns: the
    /// tilt of B0 (right perturbation, B0 frame, `δθ = −ĝ × δĝ`) and the velocity error at T (B0 axes, including the
    /// turn of `v_T` by that tilt: `δv_T + δθ × v_T`), per m/s² of bias. `nil` when a perturbed window fails to align.
    func accelBiasSensitivity(frames: [WindowFrame], buffer: IMUBuffer, tracks: Tracks, gyroBias: Vec3,
                              weights: [Int: [Double]], nominal: (g: Vec3, vT: Vec3, found: Double)) -> (tilt_B0: Mat3, velocity_B0: Mat3)? {
        let h = 1e-3
        let gHat = nominal.g.normalized
        var tilt: [Vec3] = [], velocity: [Vec3] = []
        for axis in 0..<3 {
            let e = Vec3(axis == 0 ? h : 0, axis == 1 ? h : 0, axis == 2 ? h : 0)
            let inc = integrate(frames: frames, buffer: buffer, gyroBias: gyroBias, accelBias: e)
            guard let (S, rhs, _) = accumulate(tracks: tracks, rot: inc.rot, alpha: inc.alpha, dt: inc.dt, weights: weights),
                  let moved = alignment(S, rhs, gravityFree: inc.last.v_W, span: inc.dt[inc.dt.count - 1])
            else { return nil }
            let dTheta = (-1 / h) * gHat.cross(moved.g.normalized - gHat)
            tilt.append(dTheta)
            velocity.append((1 / h) * (moved.vT - nominal.vT) + dTheta.cross(nominal.vT))
        }
        return (Mat3(columns: tilt[0], tilt[1], tilt[2]), Mat3(columns: velocity[0], velocity[1], velocity[2]))
    }

    /// Observations per feature id: (frame index, camera index, normalised coordinates).
    typealias Tracks = [Int: [(Int, Int, Vec2)]]

    /// The window's observations grouped by feature (the right image of a stereo pair as the next camera).
    static func tracks(_ frames: [WindowFrame], cameras: [CameraCalibration]) -> Tracks {
        var tracks: Tracks = [:]
        for (k, f) in frames.enumerated() {
            for o in f.observations where o.camera >= 0 && o.camera < cameras.count && o.normalized.x.isFinite && o.normalized.y.isFinite {
                tracks[o.id, default: []].append((k, o.camera, o.normalized))
                if let r = o.rightNormalized, o.camera + 1 < cameras.count, r.x.isFinite, r.y.isFinite {
                    tracks[o.id, default: []].append((k, o.camera + 1, r))
                }
            }
        }
        return tracks
    }

    /// Mean squared residual of the alignment (two passes, as `initialize`) with gyro bias `bias`, normalised image
    /// units².
    func alignmentCost(frames: [WindowFrame], buffer: IMUBuffer, tracks: Tracks, bias: Vec3) -> Double {
        let inc = integrate(frames: frames, buffer: buffer, gyroBias: bias)
        guard let (S, rhs, _) = accumulate(tracks: tracks, rot: inc.rot, alpha: inc.alpha, dt: inc.dt, weights: nil),
              let x0 = solve6(S, rhs) else { return .infinity }
        let w = depthWeights(tracks: tracks, rot: inc.rot, alpha: inc.alpha, dt: inc.dt, x: x0)
        guard let r = projectedResiduals(tracks: tracks, increments: inc, weights: w), !r.isEmpty else { return .infinity }
        return r.reduce(0) { $0 + $1 * $1 } / Double(r.count)
    }

    /// The `count` tracks seen in the most frames (ties: lower id first).
    static func longest(_ tracks: Tracks, _ count: Int) -> Tracks {
        guard tracks.count > count else { return tracks }
        let kept = tracks.map { (id: $0.key, frames: Set($0.value.map(\.0)).count) }
            .sorted { ($0.frames, $1.id) > ($1.frames, $0.id) }.prefix(count)
        return Dictionary(uniqueKeysWithValues: kept.map { ($0.id, tracks[$0.id] ?? []) })
    }

    /// Integrates the IMU over the window with gyro bias `gyroBias` (rad/s, body), without gravity.
    func integrate(frames: [WindowFrame], buffer: IMUBuffer, gyroBias: Vec3, accelBias: Vec3 = .zero) -> Increments {
        let integrator = IMUPropagator(noise: noise, gravity_W: .zero)
        var s = IMUState(t_ns: frames[0].t_ns, gyroBias_B: gyroBias, accelBias_B: accelBias)
        var rot: [SO3] = [], alpha: [Vec3] = [], dt: [Double] = []
        for f in frames {
            integrator.propagateMean(&s, to: f.t_ns, buffer: buffer)
            rot.append(s.R_W_B); alpha.append(s.p_W); dt.append(Double(f.t_ns - frames[0].t_ns) * 1e-9)
        }
        return Increments(rot: rot, alpha: alpha, dt: dt, last: s)
    }

    /// The gyro bias that makes the window's tracks most consistent with the IMU, by Gauss-Newton from `prior`
    /// (the caller passes the `gyroBiasTracks` longest tracks: enough to fix three numbers, and it bounds the cost).
    ///
    /// A gyro-bias error rotates every increment (a 0.05 rad/s error turns the last frame of a 1.5 s window by
    /// 4°), and the alignment then absorbs it into velocity, gravity and scale. So the bias is estimated first:
    /// the cost is the alignment's own least-squares residual with the points and `(v0, g)` eliminated
    /// (variable projection), its Jacobian in the bias taken by finite differences. Each observation's rows keep
    /// the 1/depth weights of the iteration's start, so the residual vector has a fixed layout. The prior
    /// `N(prior, initialGyroBiasStd²)` enters as three more rows (a MAP estimate: a window with little rotation
    /// leaves the bias near its prior). A step is kept only when it lowers the cost; the result falls back to
    /// `prior` (with `initialGyroBiasStd`) when no step helps or the estimate moves more than `maxGyroBias`. Its
    /// 1-σ comes from the Gauss-Newton normal matrix with the noise model of `(v0, g)` below (at least
    /// `minGyroBiasStd`). The bias is taken as constant over the window.
    func refineGyroBias(frames: [WindowFrame], buffer: IMUBuffer, tracks: Tracks, prior: Vec3) -> (value: Vec3, std: Double) {
        let fallback = (value: prior, std: configuration.initializer.initialGyroBiasStd)
        let sigma = configuration.updater.pixelNoiseStd / cameras[0].model.intrinsics.fx
        var bias = prior
        var std = fallback.std
        var improved = false
        for _ in 0..<configuration.initializer.gyroBiasIterations {
            let inc = integrate(frames: frames, buffer: buffer, gyroBias: bias)
            guard let (S0, rhs0, used0) = accumulate(tracks: tracks, rot: inc.rot, alpha: inc.alpha, dt: inc.dt, weights: nil),
                  used0 >= 15, let x0 = solve6(S0, rhs0) else { break }
            let weights = depthWeights(tracks: tracks, rot: inc.rot, alpha: inc.alpha, dt: inc.dt, x: x0)
            guard let r0 = projectedResiduals(tracks: tracks, increments: inc, weights: weights) else { break }
            let h = 1e-4
            var columns: [[Double]] = []
            for axis in 0..<3 {
                let e = Vec3(axis == 0 ? h : 0, axis == 1 ? h : 0, axis == 2 ? h : 0)
                let incH = integrate(frames: frames, buffer: buffer, gyroBias: bias + e)
                guard let rh = projectedResiduals(tracks: tracks, increments: incH, weights: weights), rh.count == r0.count
                else { return improved ? (bias, std) : fallback }
                columns.append(zip(rh, r0).map { ($0 - $1) / h })
            }
            // The prior N(prior, σ_p²) as three more rows, in the residuals' units (noise 2σ, κ = 4 below).
            let lambda = 4 * sigma * sigma / (configuration.initializer.initialGyroBiasStd * configuration.initializer.initialGyroBiasStd)
            func cost(_ r: [Double], _ b: Vec3) -> Double { Self.squaredNorm(r) + lambda * (b - prior).squaredNorm }
            var JtJ = Mat3(diagonal: Vec3(repeating: lambda)), Jtr = lambda * (bias - prior)
            for i in 0..<r0.count {
                let row = Vec3(columns[0][i], columns[1][i], columns[2][i])
                JtJ = JtJ + Mat3.outer(row, row)
                Jtr += r0[i] * row
            }
            let cov = JtJ.inverse
            let step = -(cov * Jtr)
            let candidate = bias + step
            // Keep the step only if it lowers the cost (same weights).
            let incC = integrate(frames: frames, buffer: buffer, gyroBias: candidate)
            guard let rc = projectedResiduals(tracks: tracks, increments: incC, weights: weights), rc.count == r0.count,
                  cost(rc, candidate) < cost(r0, bias) else { break }
            bias = candidate
            improved = true
            // Posterior 4σ² (JᵀJ + λI)⁻¹; the largest axis.
            std = max((4 * sigma * sigma * max(cov[0, 0], cov[1, 1], cov[2, 2])).squareRoot(), configuration.initializer.minGyroBiasStd)
            if step.norm < 0.25 * std { break } // well inside its own uncertainty
        }
        guard improved, (bias - prior).norm <= configuration.initializer.maxGyroBias else { return fallback }
        return (bias, std)
    }

    /// Σ vᵢ².
    static func squaredNorm(_ v: [Double]) -> Double { v.reduce(0) { $0 + $1 * $1 } }

    /// 1/depth weights of every observation from the solution `x = (v0, g)`; a track whose point cannot be
    /// placed gets none (and is then left out), an observation behind its camera gets 0.
    func depthWeights(tracks: Tracks, rot: [SO3], alpha: [Vec3], dt: [Double], x: [Double]) -> [Int: [Double]] {
        var out: [Int: [Double]] = [:]
        let v0 = Vec3(x[0], x[1], x[2]), g = Vec3(x[3], x[4], x[5])
        for (id, obs) in tracks where Set(obs.map(\.0)).count >= 3 {
            guard let p_f = point(obs: obs, rot: rot, alpha: alpha, dt: dt, x: x) else { continue }
            out[id] = obs.map { k, c, _ in
                let ext = cameras[c].T_B_C
                let p_Ck = alpha[k] + rot[k].act(ext.translation) + dt[k] * v0 + 0.5 * dt[k] * dt[k] * g
                let z = (rot[k] * ext.rotation).inverse.act(p_f - p_Ck).z
                return z > configuration.updater.minDepth ? 1 / z : 0
            }
        }
        return out
    }

    /// One weighted row `a·p_f + b·(v0, g) = y` of a track, with `b = (−t·a, −½t²·a)` (see the type's comment).
    struct Row {
        var a: Vec3, t: Double, y: Double
        /// `b·x` for `x = (v0, g)`.
        func bx(_ x: [Double]) -> Double {
            -t * (a.x * x[0] + a.y * x[1] + a.z * x[2]) - 0.5 * t * t * (a.x * x[3] + a.y * x[4] + a.z * x[5])
        }
    }

    /// The weighted rows of one track, two per observation (one per image coordinate).
    func rows(_ obs: [(Int, Int, Vec2)], weights: [Double]?, rot: [SO3], alpha: [Vec3], dt: [Double]) -> [Row] {
        var out: [Row] = []
        out.reserveCapacity(2 * obs.count)
        for (m, (k, c, n)) in obs.enumerated() {
            let w = weights?[m] ?? 1
            guard w > 0 else { continue }
            let ext = cameras[c].T_B_C
            let RC = (rot[k] * ext.rotation).matrix
            let ck = alpha[k] + rot[k].act(ext.translation)
            // The rows e·R_Ckᵀ as vectors, weighted: e₁ = (1, 0, −u), e₂ = (0, 1, −v).
            let a1 = w * (RC * Vec3(1, 0, -n.x)), a2 = w * (RC * Vec3(0, 1, -n.y))
            out.append(Row(a: a1, t: dt[k], y: a1.dot(ck)))
            out.append(Row(a: a2, t: dt[k], y: a2.dot(ck)))
        }
        return out
    }

    /// The tracks used by the alignment, in a fixed order: those seen in ≥ 3 frames (and, with `weights`,
    /// those that have weights).
    func usableTracks(_ tracks: Tracks, weights: [Int: [Double]]?) -> [Int] {
        tracks.keys.sorted().filter { id in
            guard let obs = tracks[id], Set(obs.map(\.0)).count >= 3 else { return false }
            return weights == nil || weights?[id] != nil
        }
    }

    /// Normal equations (Schur-reduced to `(v0, g)`) of all tracks, each observation's rows weighted by
    /// `weights` (all 1 when `nil`). Returns `(S, rhs, tracks used)`.
    func accumulate(tracks: Tracks, rot: [SO3], alpha: [Vec3], dt: [Double], weights: [Int: [Double]]?) -> ([Double], [Double], Int)? {
        var S = [Double](repeating: 0, count: 36), rhs = [Double](repeating: 0, count: 6)
        var used = 0
        for id in usableTracks(tracks, weights: weights) {
            guard let obs = tracks[id] else { continue }
            // Moments of the rows: with b = (−t·a, −½t²·a), AᵀB, BᵀB and Bᵀy are sums of tᵏ·a·aᵀ and tᵏ·y·a.
            var m = (Mat3.zero, Mat3.zero, Mat3.zero, Mat3.zero, Mat3.zero), v = (Vec3.zero, Vec3.zero, Vec3.zero)
            for row in rows(obs, weights: weights?[id], rot: rot, alpha: alpha, dt: dt) {
                let aa = Mat3.outer(row.a, row.a), t = row.t, t2 = t * t
                m.0 = m.0 + aa; m.1 = m.1 + t * aa; m.2 = m.2 + t2 * aa; m.3 = m.3 + (t2 * t) * aa; m.4 = m.4 + (t2 * t2) * aa
                v.0 += row.y * row.a; v.1 += (t * row.y) * row.a; v.2 += (t2 * row.y) * row.a
            }
            let AtA = m.0, Atb = v.0
            // Columns of AᵀB (3×6) and the blocks of BᵀB (6×6) and Bᵀy.
            let AtBv = -1 * m.1, AtBg = -0.5 * m.2
            let AtB = (0..<3).map { AtBv.column($0) } + (0..<3).map { AtBg.column($0) }
            let Bvv = m.2, Bvg = 0.5 * m.3, Bgg = 0.25 * m.4
            var BtB = [Double](repeating: 0, count: 36)
            for i in 0..<3 { for j in 0..<3 {
                BtB[i * 6 + j] = Bvv[i, j]; BtB[i * 6 + j + 3] = Bvg[i, j]
                BtB[(i + 3) * 6 + j] = Bvg[j, i]; BtB[(i + 3) * 6 + j + 3] = Bgg[i, j]
            } }
            let Btbv = -1 * v.1, Btbg = -0.5 * v.2
            let Btb = [Btbv.x, Btbv.y, Btbv.z, Btbg.x, Btbg.y, Btbg.z]
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

    /// The alignment's residual vector at its optimum (points and `(v0, g)` solved) for these increments and
    /// fixed `weights`; tracks whose point is degenerate contribute zeros, so the layout depends on the weights
    /// only. `nil` when the system cannot be solved.
    func projectedResiduals(tracks: Tracks, increments inc: Increments, weights: [Int: [Double]]) -> [Double]? {
        guard let (S, rhs, _) = accumulate(tracks: tracks, rot: inc.rot, alpha: inc.alpha, dt: inc.dt, weights: weights),
              let x = solve6(S, rhs) else { return nil }
        return residuals(tracks: tracks, rot: inc.rot, alpha: inc.alpha, dt: inc.dt, weights: weights, x: x)
    }

    /// The alignment's residual vector at `x = (v0, g)` with each track's point solved, for fixed `weights` (tracks
    /// whose point is degenerate contribute zeros).
    func residuals(tracks: Tracks, rot: [SO3], alpha: [Vec3], dt: [Double], weights: [Int: [Double]], x: [Double]) -> [Double] {
        var r: [Double] = []
        for id in usableTracks(tracks, weights: weights) {
            guard let obs = tracks[id] else { continue }
            let rs = rows(obs, weights: weights[id], rot: rot, alpha: alpha, dt: dt)
            var AtA = Mat3.zero, rhsP = Vec3.zero
            for row in rs {
                AtA = AtA + Mat3.outer(row.a, row.a)
                rhsP += (row.y - row.bx(x)) * row.a
            }
            guard abs(AtA.determinant) > 1e-18 * pow(AtA.trace, 3) else {
                r += [Double](repeating: 0, count: rs.count)
                continue
            }
            let p = AtA.inverse * rhsP
            for row in rs { r.append(row.a.dot(p) + row.bx(x) - row.y) }
        }
        return r
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
    func solve6(_ S: [Double], _ rhs: [Double]) -> [Double]? {
        let Sm = Matrix(rows: 6, columns: 6, rowMajor: S).symmetrized()
        guard let eig = try? Sm.symmetricEigen(), let lo = eig.eigenvalues.first, let hi = eig.eigenvalues.last,
              hi > 0, lo > 1e-9 * hi, let x = try? Sm.choleskySolve(Matrix(columnVector: rhs)) else { return nil }
        return x.elements
    }
}
