import Geometry
import Sensors

/// The nominal (mean) inertial state of the filter at time `t_ns`.
///
/// Error state (15): `[δθ, δp, δv, δb_g, δb_a]` with a *right* (body-frame) orientation error
/// `R_W_B = R̂_W_B · Exp(δθ)` and additive errors for the other parts (`p_W = p̂_W + δp`, …).
public struct IMUState: Equatable, Sendable {
    /// Time of the state, nanoseconds.
    public var t_ns: TimestampNs
    /// Orientation of the body in the world.
    public var R_W_B: SO3
    /// Position of the body origin in W, metres.
    public var p_W: Vec3
    /// Velocity of the body origin in W, m/s.
    public var v_W: Vec3
    /// Gyroscope bias in B, rad/s.
    public var gyroBias_B: Vec3
    /// Accelerometer bias in B, m/s².
    public var accelBias_B: Vec3

    /// A state at `t_ns` (identity pose, at rest, zero biases unless given).
    public init(t_ns: TimestampNs, R_W_B: SO3 = .identity, p_W: Vec3 = .zero, v_W: Vec3 = .zero,
                gyroBias_B: Vec3 = .zero, accelBias_B: Vec3 = .zero) {
        self.t_ns = t_ns; self.R_W_B = R_W_B; self.p_W = p_W; self.v_W = v_W
        self.gyroBias_B = gyroBias_B; self.accelBias_B = accelBias_B
    }

    /// The body pose `T_W_B`.
    public var T_W_B: SE3 { SE3(rotation: R_W_B, translation: p_W) }

    /// True when every component is finite.
    public var isFinite: Bool {
        let q = R_W_B.quaternion
        return q.w.isFinite && q.x.isFinite && q.y.isFinite && q.z.isFinite && p_W.isFinite && v_W.isFinite
            && gyroBias_B.isFinite && accelBias_B.isFinite
    }
}

/// Error-state indices of the inertial block.
enum ErrorIndex {
    static let theta = 0, position = 3, velocity = 6, gyroBias = 9, accelBias = 12
    /// Size of the inertial error state.
    static let imu = 15
    /// Size of one clone's error state `[δθ, δp]`.
    static let clone = 6
}
