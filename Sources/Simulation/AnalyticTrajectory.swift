import Foundation
import Geometry

/// The built-in trajectories: closed-form sums of sinusoids of a smooth motion progress, with exact
/// derivatives.
///
/// Construction: a "look" frame L (x forward, y left, z up; positive pitch tips x down) has position `p_W(τp)` and ZYX Euler angles
/// yaw/pitch/roll `(τr, τp)`, where `τp`, `τr` are the translation and rotation progress of two
/// `MotionProfile`s (both 0-speed during rest, only `τp` stopped in a pure-rotation segment). Angular
/// velocity is the exact ZYX Euler-rate formula; a fast shake adds windowed sinusoids in real time.
/// The body is `R_W_B = R_W_L · R_L_B` with `R_L_B` constant, chosen so the camera looks along L's x-axis
/// (`SimRig.lookToBody`), and the body origin is L's origin.
///
/// - `handheld`: walks an ellipse around `scene.walkArea` counter-clockwise at ≈ 0.6–1.1 m/s with a
///   1.8 Hz head bob, looking ahead and ≈ 20° inwards across the room (pitched ≈ 13° down) while
///   sweeping yaw ± ≈ 40°.
/// - `orbit`: circles `scene.orbitTarget` at ≈ 0.65 m/s, always looking at it.
public struct AnalyticTrajectory: Trajectory {
    /// Which motion.
    public enum Kind: Equatable, Sendable {
        case handheld(WalkArea)
        case orbit(OrbitTarget)
    }
    /// Which motion, with its scene parameters.
    public let kind: Kind
    /// Timing options (rest, ramps, segments).
    public let options: TrajectoryOptions
    /// Rotation from the look frame L to the body frame B (constant).
    public let R_B_L: SO3
    /// Translation and rotation progress profiles.
    public let positionProfile: MotionProfile, rotationProfile: MotionProfile

    /// `"handheld"` or `"orbit"`.
    public var name: String {
        switch kind {
        case .handheld: return "handheld"
        case .orbit: return "orbit"
        }
    }

    /// Names accepted by `make(name:scene:options:rig:)`.
    public static let names = ["handheld", "orbit"]

    /// A trajectory of `kind`; `R_B_L` orients the body relative to the look frame (default: the one
    /// that makes `SimRig.euroc`'s cam0 look along L's x-axis).
    public init(kind: Kind, options: TrajectoryOptions = TrajectoryOptions(), R_B_L: SO3 = SimRig.lookToBody(SimRig.eurocT_B_C0.rotation)) {
        self.kind = kind; self.options = options; self.R_B_L = R_B_L
        var pSteps: [MotionProfile.Step] = [], rSteps: [MotionProfile.Step] = []
        if !options.startMoving {
            let s = MotionProfile.Step(start: options.restDuration, duration: options.rampDuration, delta: 1)
            pSteps.append(s); rSteps.append(s)
        }
        if let seg = options.stillSegment {
            let down = MotionProfile.Step(start: seg.start, duration: seg.ramp, delta: -1)
            let up = MotionProfile.Step(start: seg.start + seg.duration - seg.ramp, duration: seg.ramp, delta: 1)
            pSteps += [down, up]; rSteps += [down, up]
        }
        if let seg = options.pureRotationSegment {
            pSteps.append(MotionProfile.Step(start: seg.start, duration: seg.ramp, delta: -1))
            pSteps.append(MotionProfile.Step(start: seg.start + seg.duration - seg.ramp, duration: seg.ramp, delta: 1))
        }
        let initial = options.startMoving ? 1.0 : 0.0
        positionProfile = MotionProfile(initialLevel: initial, steps: pSteps)
        rotationProfile = MotionProfile(initialLevel: initial, steps: rSteps)
    }

    /// A built-in trajectory by name for a scene (`"handheld"` walks `scene.walkArea`, `"orbit"` circles
    /// `scene.orbitTarget`). Throws `TrajectoryError.unknown` for other names.
    public static func make(name: String, scene: Scene, options: TrajectoryOptions = TrajectoryOptions(),
                            rig: SimRig = .euroc()) throws -> AnalyticTrajectory {
        let R_B_L = SimRig.lookToBody(rig.cameras[0].T_B_C.rotation)
        switch name.lowercased() {
        case "handheld", "walk": return AnalyticTrajectory(kind: .handheld(scene.walkArea), options: options, R_B_L: R_B_L)
        case "orbit": return AnalyticTrajectory(kind: .orbit(scene.orbitTarget), options: options, R_B_L: R_B_L)
        default: throw TrajectoryError.unknown(name)
        }
    }

    /// The exact state at `t` seconds (see the type's description for the construction).
    public func state(at t: Double) -> TrajectoryState {
        let tp = positionProfile.progress(at: t), tr = rotationProfile.progress(at: t)
        var x: Jet, y: Jet, z: Jet, yaw: Jet, pitch: Jet, roll: Jet
        switch kind {
        case .handheld(let w):
            let meanR = (w.radii.x + w.radii.y) / 2
            let s = meanR / 1.55 // wobble scale relative to the room's walk area
            let theta = (0.8 / meanR) * tp
            x = w.center.x + w.radii.x * cos(theta) + 0.10 * s * sin(2.1 * tp)
            y = w.center.y + w.radii.y * sin(theta) + 0.08 * s * sin(1.7 * tp + 1)
            let bob = 2 * Double.pi * 1.8 * tp
            z = w.eyeHeight + 0.025 * sin(bob) + 0.06 * sin(0.45 * tp)
            // Walking counter-clockwise: forward is θ + π/2; look forward and 20° inward, sweeping ±40°.
            yaw = theta + (Double.pi / 2 + 0.35) + 0.5 * sin(0.42 * tr) + 0.2 * sin(1.05 * tr + 0.5)
            pitch = 0.22 + 0.15 * sin(0.63 * tr + 0.3) + 0.01 * sin(bob + 0.7)
            roll = 0.05 * sin(0.8 * tr + 1.2) + 0.008 * sin(0.5 * bob)
        case .orbit(let o):
            let theta = (0.65 / o.radius) * tp - Double.pi / 2
            x = o.center.x + o.radius * cos(theta)
            y = o.center.y + o.radius * sin(theta)
            z = o.eyeHeight + 0.04 * sin(1.3 * tp)
            yaw = theta + Double.pi + 0.12 * sin(0.5 * tr)
            pitch = Foundation.atan2(o.eyeHeight - o.center.z, o.radius) + 0.06 * sin(0.7 * tr + 0.4)
            roll = 0.03 * sin(0.9 * tr)
        }
        if let seg = options.fastShakeSegment {
            // Window: septic up over the first ramp, down over the last, in real time.
            let win = Smoothstep.stepJet(t: t, start: seg.start, duration: seg.ramp)
                - Smoothstep.stepJet(t: t, start: seg.start + seg.duration - seg.ramp, duration: seg.ramp)
            let T = Jet(t, 1, 0), w2 = 2 * Double.pi
            yaw = yaw + win * (0.06 * sin(w2 * 4.3 * T))
            pitch = pitch + win * (0.05 * sin(w2 * 5.1 * T + 1))
            roll = roll + win * (0.04 * sin(w2 * 3.7 * T + 2))
            x = x + win * (0.006 * sin(w2 * 4.7 * T))
            y = y + win * (0.006 * sin(w2 * 3.9 * T + 0.5))
            z = z + win * (0.006 * sin(w2 * 5.3 * T + 1))
        }
        let (R_W_L, omega_L) = Self.zyx(yaw: yaw, pitch: pitch, roll: roll)
        let R_W_B = R_W_L * R_B_L.inverse
        return TrajectoryState(t: t, T_W_B: SE3(rotation: R_W_B, translation: Vec3(x.v, y.v, z.v)),
                               v_W: Vec3(x.d, y.d, z.d), a_W: Vec3(x.dd, y.dd, z.dd),
                               omega_B: R_B_L.act(omega_L))
    }

    /// `R = Rz(yaw) · Ry(pitch) · Rx(roll)` and the body-frame angular velocity from the Euler rates.
    static func zyx(yaw: Jet, pitch: Jet, roll: Jet) -> (SO3, Vec3) {
        let qz = Quaternion(w: Foundation.cos(yaw.v / 2), x: 0, y: 0, z: Foundation.sin(yaw.v / 2))
        let qy = Quaternion(w: Foundation.cos(pitch.v / 2), x: 0, y: Foundation.sin(pitch.v / 2), z: 0)
        let qx = Quaternion(w: Foundation.cos(roll.v / 2), x: Foundation.sin(roll.v / 2), y: 0, z: 0)
        let sp = Foundation.sin(pitch.v), cp = Foundation.cos(pitch.v)
        let sr = Foundation.sin(roll.v), cr = Foundation.cos(roll.v)
        let omega = Vec3(roll.d - yaw.d * sp,
                         pitch.d * cr + yaw.d * sr * cp,
                         -pitch.d * sr + yaw.d * cr * cp)
        return (SO3(qz * qy * qx), omega)
    }
}

/// Errors about trajectories.
public enum TrajectoryError: Error, CustomStringConvertible, Equatable {
    /// No built-in trajectory with this name.
    case unknown(String)
    public var description: String {
        switch self {
        case .unknown(let n): return "unknown trajectory '\(n)' (built-in: \(AnalyticTrajectory.names.joined(separator: ", ")))"
        }
    }
}
