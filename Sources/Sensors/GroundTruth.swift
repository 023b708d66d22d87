import Geometry

/// A ground-truth state of the body (IMU) frame B in the world frame W, as ASL
/// `state_groundtruth_estimate0/data.csv` gives it.
public struct GroundTruthState: Equatable, Sendable {
    /// Time, nanoseconds.
    public var t_ns: TimestampNs
    /// Pose of the body in the world.
    public var T_W_B: SE3
    /// Velocity of the body in W, m/s.
    public var v_W: Vec3
    /// Gyroscope bias in B, rad/s.
    public var gyroBias_B: Vec3
    /// Accelerometer bias in B, m/s².
    public var accelBias_B: Vec3

    public init(t_ns: TimestampNs, T_W_B: SE3, v_W: Vec3 = .zero, gyroBias_B: Vec3 = .zero, accelBias_B: Vec3 = .zero) {
        self.t_ns = t_ns; self.T_W_B = T_W_B; self.v_W = v_W
        self.gyroBias_B = gyroBias_B; self.accelBias_B = accelBias_B
    }
}

/// A time-stamped pose, the unit of trajectory files (TUM format) and evaluation.
public struct StampedPose: Equatable, Sendable {
    /// Time, nanoseconds.
    public var t_ns: TimestampNs
    /// Pose `T_world_frame` (the frame is the body unless the file says otherwise).
    public var pose: SE3

    public init(t_ns: TimestampNs, pose: SE3) { self.t_ns = t_ns; self.pose = pose }
}
