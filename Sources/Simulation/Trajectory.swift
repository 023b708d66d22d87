import Foundation
import Geometry

/// The exact kinematic state of the body (IMU) frame B at one time.
public struct TrajectoryState: Equatable, Sendable {
    /// Time, seconds since the trajectory's start.
    public var t: Double
    /// Pose of the body in the world, `T_W_B`.
    public var T_W_B: SE3
    /// Velocity of the body origin, world frame, m/s (exact first derivative of the position).
    public var v_W: Vec3
    /// Acceleration of the body origin, world frame, m/s² (exact second derivative; gravity not included).
    public var a_W: Vec3
    /// Angular velocity of B relative to W, in B, rad/s: `dR_W_B/dt = R_W_B [omega_B]×` (exact).
    public var omega_B: Vec3

    /// A state with the given values.
    public init(t: Double, T_W_B: SE3, v_W: Vec3, a_W: Vec3, omega_B: Vec3) {
        self.t = t; self.T_W_B = T_W_B; self.v_W = v_W; self.a_W = a_W; self.omega_B = omega_B
    }

    /// The attitude of the body, `R_W_B` (the rotation of `T_W_B`).
    public var R_W_B: SO3 { T_W_B.rotation }
    /// The position of the body origin in the world, metres (the translation of `T_W_B`).
    public var p_W: Vec3 { T_W_B.translation }
}

/// A smooth body trajectory with exact analytic derivatives: the source of truth for poses and IMU data.
///
/// Conformers give `state(at:)` in closed form (position, velocity and acceleration from analytic
/// derivatives, angular velocity from the analytic derivative of the attitude), so an IMU synthesised
/// from it is exact — integrating it reproduces the poses up to the integrator's own error.
public protocol Trajectory: Sendable {
    /// Name (`"handheld"`, `"orbit"`).
    var name: String { get }
    /// The state at time `t` seconds (t ≥ 0; defined for any t).
    func state(at t: Double) -> TrajectoryState
}

extension Trajectory {
    /// The pose `T_W_B` at `t` seconds.
    public func pose(at t: Double) -> SE3 { state(at: t).T_W_B }
    /// The velocity of the body, world frame, m/s.
    public func velocity_W(at t: Double) -> Vec3 { state(at: t).v_W }
    /// The acceleration of the body (gravity excluded), world frame, m/s².
    public func acceleration_W(at t: Double) -> Vec3 { state(at: t).a_W }
    /// The angular velocity of the body, body frame, rad/s.
    public func angularVelocity_B(at t: Double) -> Vec3 { state(at: t).omega_B }
}

/// A time interval of a trajectory option, seconds: `[start, start + duration]`.
public struct TimeSegment: Equatable, Sendable, Codable {
    /// Start, seconds.
    public var start: Double
    /// Length, seconds.
    public var duration: Double
    public init(start: Double, duration: Double) { self.start = start; self.duration = duration }
    /// Ramp time used at each end of the segment (at most 1 s, at most a third of the segment).
    public var ramp: Double { min(1.0, duration / 3) }
}

/// Options that shape a built-in trajectory's timing.
public struct TrajectoryOptions: Equatable, Sendable {
    /// Start already moving (no rest at the start). Default false: the body rests for `restDuration`.
    public var startMoving: Bool = false
    /// Seconds of exact rest at the start (≥ 1.5 s for static initialisation). Default 2.
    public var restDuration: Double = 2.0
    /// Seconds of the smooth (septic, C³) ramp from rest into full motion. Default 1.5.
    public var rampDuration: Double = 1.5
    /// A segment in which the body comes smoothly to rest, holds still, and moves again.
    public var stillSegment: TimeSegment?
    /// A segment in which translation stops but rotation goes on (pure rotation).
    public var pureRotationSegment: TimeSegment?
    /// A segment with an added fast shake (≈ 4–5 Hz, ≈ 1.5 rad/s peak, ≈ 5 m/s² peak).
    public var fastShakeSegment: TimeSegment?

    public init(startMoving: Bool = false, restDuration: Double = 2.0, rampDuration: Double = 1.5,
                stillSegment: TimeSegment? = nil, pureRotationSegment: TimeSegment? = nil,
                fastShakeSegment: TimeSegment? = nil) {
        self.startMoving = startMoving; self.restDuration = restDuration; self.rampDuration = rampDuration
        self.stillSegment = stillSegment; self.pureRotationSegment = pureRotationSegment
        self.fastShakeSegment = fastShakeSegment
    }
}

/// A smooth speed envelope `e(t)` (levels joined by septic steps) and its exact integral, the motion
/// progress `τ(t) = ∫₀ᵗ e`. A trajectory written as a function of τ rests exactly where e = 0 and is C³
/// in time when the function is smooth.
public struct MotionProfile: Equatable, Sendable {
    /// One level change: `delta` added over `[start, start + duration]` seconds by a septic step.
    public struct Step: Equatable, Sendable {
        /// Start and duration of the step (seconds) and the level change.
        public var start: Double, duration: Double, delta: Double
        public init(start: Double, duration: Double, delta: Double) { self.start = start; self.duration = duration; self.delta = delta }
    }
    /// Level at t = 0 (0 = at rest, 1 = full speed).
    public var initialLevel: Double
    /// Level changes.
    public var steps: [Step]

    public init(initialLevel: Double, steps: [Step]) { self.initialLevel = initialLevel; self.steps = steps }

    /// `e(t)` with its first and second derivatives.
    public func level(at t: Double) -> Jet {
        var e = Jet(initialLevel)
        for s in steps { e = e + s.delta * Smoothstep.stepJet(t: t, start: s.start, duration: s.duration) }
        return e
    }

    /// `τ(t) = ∫₀ᵗ e` as a jet `(τ, e, e')`.
    public func progress(at t: Double) -> Jet {
        var tau = initialLevel * t
        var e = initialLevel, de = 0.0
        for s in steps {
            let u = (t - s.start) / s.duration
            tau += s.delta * s.duration * Smoothstep.septicIntegral(u)
            e += s.delta * Smoothstep.septic(u)
            de += s.delta * Smoothstep.septicD1(u) / s.duration
        }
        return Jet(tau, e, de)
    }
}
