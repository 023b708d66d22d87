import Foundation
import Geometry
import Sensors

/// Integrates the nominal inertial state through IMU measurements and builds the error-state
/// transition `Φ` and discrete process noise `Q` (15×15) of the same interval.
///
/// **Nominal integration.** Between two IMU knots the bias-corrected measurements are linear in
/// time. Rotation uses the fourth-order commutator-free step for a linear rate,
/// `R_b = R_a · Exp(ω̄ Δt + Δt²/12 · ω_a × ω_b)`; velocity and position use Simpson's rule on the
/// world acceleration `R(t) a(t) + g` (what RK4 reduces to for this linear system).
///
/// **Error state.** `[δθ, δp, δv, δb_g, δb_a]`, right orientation error `R = R̂ Exp(δθ)`. With
/// `ω̂, â` the mean bias-corrected rates over the step and `ΔR = Exp(ω̂ Δt)`:
/// `δθ⁺ = ΔRᵀ δθ − Jr(ω̂Δt) Δt δb_g`, `δv⁺ = δv − R_a[â]× Δt δθ − R_a Δt δb_a`,
/// `δp⁺ = δp + Δt δv − ½R_a[â]× Δt² δθ − ½R_a Δt² δb_a`.
///
/// **Noise (continuous → discrete).** The white-noise densities σ_g (rad/s/√Hz) and σ_a (m/s²/√Hz)
/// become sample variances σ²/Δt; pushed through the step they add `σ_g² Δt` to δθ, `σ_a² Δt` to δv,
/// `σ_a² Δt³/4` to δp (with `σ_a² Δt²/2` p–v correlation). The bias random walks σ_wg, σ_wa
/// (units/s/√Hz) add `σ_w² Δt` to the biases.
struct IMUPropagator {
    /// White-noise densities per body axis and bias random walks (see `IMUNoiseEstimator`).
    var noise: AxisNoise
    /// World gravity vector, m/s² (`(0, 0, -g)`).
    var gravity_W: Vec3

    init(noise: IMUNoiseModel, gravity_W: Vec3) {
        self.noise = AxisNoise(noise)
        self.gravity_W = gravity_W
    }

    /// Propagates `state` to `t_ns` using `buffer`; returns the accumulated Φ and Q of the interval.
    /// Does nothing (identity Φ, zero Q) when `t_ns ≤ state.t_ns`.
    func propagate(_ state: inout IMUState, to t_ns: TimestampNs, buffer: IMUBuffer) -> (phi: Mat15, q: Mat15) {
        let r = propagate(&state, to: t_ns, buffer: buffer, gap: nil)
        return (r.phi, r.q)
    }

    /// As `propagate(_:to:buffer:)`, but spans of `[state.t_ns, t_ns]` that lie in a gap of the IMU data longer
    /// than `gap.limit_ns` (`IMUBuffer.isGap`) are bridged with `gapStep` (constant velocity and attitude, the
    /// motion model's noise) instead of integrating an interpolated or held sample. Returns the seconds bridged.
    func propagate(_ state: inout IMUState, to t_ns: TimestampNs, buffer: IMUBuffer,
                   gap: GapModel?) -> (phi: Mat15, q: Mat15, gap_s: Double) {
        var phi = Mat15.identity
        var q = Mat15()
        var gap_s = 0.0
        guard t_ns > state.t_ns else { return (phi, q, 0) }
        let knots = buffer.knots(from: state.t_ns, to: t_ns)
        guard knots.count >= 2 else { return (phi, q, 0) }
        for k in 0..<(knots.count - 1) {
            let a = knots[k], b = knots[k + 1]
            let dt = Double(b.t_ns - a.t_ns) * 1e-9
            if dt <= 0 { continue }
            let R_W_Ba = state.R_W_B
            let stepPhi: Mat15, stepQ: Mat15
            if let gap, buffer.isGap(from: a.t_ns, to: b.t_ns, longerThan: gap.limit_ns) {
                (stepPhi, stepQ) = gapStep(&state, dt: dt, model: gap)
                gap_s += dt
            } else {
                stepPhi = step(&state, a: a, b: b, dt: dt)
                stepQ = noiseCovariance(dt: dt, R_W_B: R_W_Ba)
            }
            phi = stepPhi * phi
            q = stepPhi.sandwich(q) + stepQ
        }
        state.t_ns = t_ns
        return (phi, q, gap_s)
    }

    /// How spans without IMU data are bridged (see `SensorGapOptions`).
    struct GapModel {
        /// Spans between stored samples longer than this are gaps, ns.
        var limit_ns: Int64
        /// 1-σ of the unknown angular rate over one step, rad/s.
        var angularRateStd: Double
        /// 1-σ of the unknown acceleration over one step, m/s².
        var accelStd: Double
    }

    /// One step of `dt` seconds without IMU data: constant velocity and attitude (`p += v Δt`), biases held.
    /// Φ is the identity with `Φ_pv = Δt I`; Q is the motion model's, an unknown angular rate (σ_ω) and acceleration
    /// (σ_a) constant over the step (the piecewise-constant white-acceleration model; the steps across a gap are the
    /// frame intervals): attitude `(σ_ω Δt)²`, velocity `(σ_a Δt)²`, position `σ_a² Δt⁴/4`, p–v `σ_a² Δt³/2`;
    /// plus the biases' random walks.
    func gapStep(_ s: inout IMUState, dt: Double, model: GapModel) -> (Mat15, Mat15) {
        s.p_W = s.p_W + s.v_W * dt
        var f = Mat15.identity
        f.setBlock(ErrorIndex.position, ErrorIndex.velocity, dt * Mat3.identity)
        var q = Mat15()
        let sw2 = model.angularRateStd * model.angularRateStd
        let sa2 = model.accelStd * model.accelStd
        let swg2 = noise.gyroRandomWalk * noise.gyroRandomWalk
        let swa2 = noise.accelRandomWalk * noise.accelRandomWalk
        let dt2 = dt * dt
        for i in 0..<3 {
            q[ErrorIndex.theta + i, ErrorIndex.theta + i] = sw2 * dt2
            q[ErrorIndex.velocity + i, ErrorIndex.velocity + i] = sa2 * dt2
            q[ErrorIndex.position + i, ErrorIndex.position + i] = sa2 * dt2 * dt2 / 4
            q[ErrorIndex.position + i, ErrorIndex.velocity + i] = sa2 * dt2 * dt / 2
            q[ErrorIndex.velocity + i, ErrorIndex.position + i] = sa2 * dt2 * dt / 2
            q[ErrorIndex.gyroBias + i, ErrorIndex.gyroBias + i] = swg2 * dt
            q[ErrorIndex.accelBias + i, ErrorIndex.accelBias + i] = swa2 * dt
        }
        return (f, q)
    }

    /// Replaces the attitude columns of an interval's Φ by their first-estimate form: with `first` the
    /// state's first estimate at the interval start (its value before the last update) and `end` the
    /// propagated state, `Φ_θθ = R_endᵀ R_first`, `Φ_vθ = −[v_end − v_first − gΔt]× R_first`,
    /// `Φ_pθ = −[p_end − p_first − v_first Δt − ½gΔt²]× R_first`. These map the unobservable yaw
    /// direction at the first estimate exactly onto the one at the end (OpenVINS' FEJ, right error).
    func applyFirstEstimates(_ phi: inout Mat15, first: IMUState, end: IMUState) {
        let dt = Double(end.t_ns - first.t_ns) * 1e-9
        guard dt > 0 else { return }
        let R0 = first.R_W_B.matrix
        phi.setBlock(ErrorIndex.theta, ErrorIndex.theta, end.R_W_B.matrix.transposed * R0)
        let dv = end.v_W - first.v_W - gravity_W * dt
        let dp = end.p_W - first.p_W - first.v_W * dt - (0.5 * dt * dt) * gravity_W
        phi.setBlock(ErrorIndex.velocity, ErrorIndex.theta, -(dv.skew * R0))
        phi.setBlock(ErrorIndex.position, ErrorIndex.theta, -(dp.skew * R0))
    }

    /// Propagates the nominal state only (no Φ, no covariance) to `t_ns`: for callers that integrate the
    /// same interval many times (the dynamic initialiser's gyro-bias search).
    func propagateMean(_ state: inout IMUState, to t_ns: TimestampNs, buffer: IMUBuffer) {
        guard t_ns > state.t_ns else { return }
        let knots = buffer.knots(from: state.t_ns, to: t_ns)
        guard knots.count >= 2 else { return }
        for k in 0..<(knots.count - 1) {
            let a = knots[k], b = knots[k + 1]
            let dt = Double(b.t_ns - a.t_ns) * 1e-9
            if dt > 0 { _ = advance(&state, a: a, b: b, dt: dt) }
        }
        state.t_ns = t_ns
    }

    /// One integration step of the nominal state over [a, b]; returns that step's Φ.
    func step(_ s: inout IMUState, a: IMUSample, b: IMUSample, dt: Double) -> Mat15 {
        let (Ra, wMean, aMean) = advance(&s, a: a, b: b, dt: dt)
        return transition(Ra: Ra, wMean: wMean, aMean: aMean, dt: dt)
    }

    /// Advances the nominal state over [a, b] (RK-style attitude at mid-step and end); returns the start attitude
    /// and the step's mean bias-corrected angular rate (rad/s) and specific force (m/s²), body.
    private func advance(_ s: inout IMUState, a: IMUSample, b: IMUSample, dt: Double) -> (SO3, Vec3, Vec3) {
        let wa = a.gyro_B - s.gyroBias_B, wb = b.gyro_B - s.gyroBias_B
        let aa = a.accel_B - s.accelBias_B, ab = b.accel_B - s.accelBias_B
        let wMean = 0.5 * (wa + wb), aMean = 0.5 * (aa + ab)
        let Ra = s.R_W_B
        // Rotation at mid-step and end (linear ω: ∫₀^{Δt/2} ω = ω_a Δt/2 + (ω_b − ω_a) Δt/8).
        let Rmid = Ra * SO3.exp(wa * (dt / 2) + (wb - wa) * (dt / 8) + (dt * dt / 96) * wa.cross(wb))
        let Rb = Ra * SO3.exp(wMean * dt + (dt * dt / 12) * wa.cross(wb))
        let accA = Ra.act(aa) + gravity_W
        let accM = Rmid.act(aMean) + gravity_W
        let accB = Rb.act(ab) + gravity_W
        let v0 = s.v_W
        s.v_W = v0 + (dt / 6) * (accA + 4 * accM + accB)
        s.p_W = s.p_W + v0 * dt + (dt * dt / 6) * (accA + 2 * accM)
        s.R_W_B = SO3(Rb.quaternion) // re-normalise
        return (Ra, wMean, aMean)
    }

    /// Error-state transition of a step from its start attitude and mean bias-corrected rates.
    private func transition(Ra: SO3, wMean: Vec3, aMean: Vec3, dt: Double) -> Mat15 {
        let phiVec = wMean * dt
        let dR = SO3.exp(phiVec).matrix
        let RaM = Ra.matrix
        let RaSkewA = RaM * aMean.skew
        var f = Mat15.identity
        f.setBlock(ErrorIndex.theta, ErrorIndex.theta, dR.transposed)
        f.setBlock(ErrorIndex.theta, ErrorIndex.gyroBias, -dt * SO3.rightJacobian(phiVec))
        f.setBlock(ErrorIndex.position, ErrorIndex.theta, (-0.5 * dt * dt) * RaSkewA)
        f.setBlock(ErrorIndex.position, ErrorIndex.velocity, dt * Mat3.identity)
        f.setBlock(ErrorIndex.position, ErrorIndex.accelBias, (-0.5 * dt * dt) * RaM)
        f.setBlock(ErrorIndex.velocity, ErrorIndex.theta, -dt * RaSkewA)
        f.setBlock(ErrorIndex.velocity, ErrorIndex.accelBias, -dt * RaM)
        return f
    }

    /// Discrete process noise of one step of length `dt` seconds starting at attitude `R_W_B` (see the
    /// type's documentation). The densities are per body axis: the attitude noise is diagonal in B, the
    /// velocity and position noise is `R diag(σ_a²) Rᵀ` in W (the same as before for equal axes).
    func noiseCovariance(dt: Double, R_W_B: SO3) -> Mat15 {
        var q = Mat15()
        let sg2 = noise.gyroDensity_B * noise.gyroDensity_B
        let sa2 = noise.accelDensity_B * noise.accelDensity_B
        let swg2 = noise.gyroRandomWalk * noise.gyroRandomWalk
        let swa2 = noise.accelRandomWalk * noise.accelRandomWalk
        let isotropicAccel = sa2.x == sa2.y && sa2.y == sa2.z
        let R = R_W_B.matrix
        for i in 0..<3 {
            q[ErrorIndex.theta + i, ErrorIndex.theta + i] = sg2[i] * dt
            q[ErrorIndex.gyroBias + i, ErrorIndex.gyroBias + i] = swg2 * dt
            q[ErrorIndex.accelBias + i, ErrorIndex.accelBias + i] = swa2 * dt
            for j in 0..<3 {
                // (R diag(σ_a²) Rᵀ)_ij; exactly σ_a² δ_ij when the axes agree.
                var sa2W = 0.0
                if isotropicAccel {
                    sa2W = i == j ? sa2.x : 0
                } else {
                    for k in 0..<3 { sa2W += R[i, k] * sa2[k] * R[j, k] }
                }
                guard sa2W != 0 else { continue }
                q[ErrorIndex.velocity + i, ErrorIndex.velocity + j] = sa2W * dt
                q[ErrorIndex.position + i, ErrorIndex.position + j] = sa2W * dt * dt * dt / 4
                q[ErrorIndex.position + i, ErrorIndex.velocity + j] = sa2W * dt * dt / 2
                q[ErrorIndex.velocity + i, ErrorIndex.position + j] = sa2W * dt * dt / 2
            }
        }
        return q
    }
}
