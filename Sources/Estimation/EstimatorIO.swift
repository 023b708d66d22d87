import Geometry
import Sensors

/// One observation of a tracked feature in one frame, as the frontend gives it.
///
/// Coordinates are *undistorted normalised* image coordinates in the camera frame C (OpenCV convention:
/// x right, y down, z forward): `(x/z, y/z)` of the ray through the feature. Pixels map to them
/// through the camera's `CameraModel.unproject`.
public struct FeatureObservation: Equatable, Sendable {
    /// Track identifier, stable across frames while the frontend tracks the feature. A lost and
    /// re-detected feature must get a new id.
    public var id: Int
    /// Index of the camera (into the estimator's `cameras`) that observed it.
    public var camera: Int
    /// Undistorted normalised coordinates `(x/z, y/z)` in that camera's frame (unitless).
    public var normalized: Vec2
    /// For a stereo match: the undistorted normalised coordinates of the same feature in the right
    /// camera (`cameras[camera + 1]`), or `nil` for a monocular observation.
    public var rightNormalized: Vec2?

    /// An observation; `camera` indexes the estimator's cameras.
    public init(id: Int, camera: Int = 0, normalized: Vec2, rightNormalized: Vec2? = nil) {
        self.id = id; self.camera = camera; self.normalized = normalized; self.rightNormalized = rightNormalized
    }
}

/// All feature observations of one (possibly stereo) image time.
public struct FeatureFrame: Equatable, Sendable {
    /// Exposure time of the image(s), nanoseconds (same clock as the IMU samples).
    public var t_ns: TimestampNs
    /// The observations; at most one per (id, camera).
    public var observations: [FeatureObservation]
    /// Median image motion of the tracked features since the previous frame, pixels, if the frontend
    /// measured it. `nil` lets the estimator compute it from the observations (using camera 0's focal length).
    public var imageDisparity_px: Double?
    /// Camera 0's rotation since the previous frame as its tracks see it (maps previous-camera vectors to this
    /// camera's), when the frontend measured it: it had no gyroscope rotation to predict with (an IMU gap). Across an
    /// IMU gap it turns the attitude the motion model would hold still.
    public var visualRotation_Cnew_Cold: SO3?

    /// A frame of observations at `t_ns` nanoseconds.
    public init(t_ns: TimestampNs, observations: [FeatureObservation], imageDisparity_px: Double? = nil,
                visualRotation_Cnew_Cold: SO3? = nil) {
        self.t_ns = t_ns; self.observations = observations; self.imageDisparity_px = imageDisparity_px
        self.visualRotation_Cnew_Cold = visualRotation_Cnew_Cold
    }
}

/// A triangulated 3-D point the estimator used in this frame's visual update.
public struct Landmark: Equatable, Sendable {
    /// The feature track id it was triangulated from.
    public var id: Int
    /// Position in the world frame W, metres.
    public var p_W: Vec3
    /// Approximate 1-σ position uncertainty, metres: the triangulation's (geometry and pixel noise) and the
    /// filter's tilt uncertainty times the point's distance; the position and yaw gauge are not included.
    public var std_m: Double

    /// A point `p_W` (metres, in W) with its 1-σ accuracy `std_m` (metres).
    public init(id: Int, p_W: Vec3, std_m: Double) { self.id = id; self.p_W = p_W; self.std_m = std_m }
}

/// The estimator's answer for one frame.
///
/// Frames: W is the gravity-aligned world (z up, gravity `(0, 0, -g)`), its origin and yaw fixed by the
/// initialisation (origin at the body's position, yaw 0 at initialisation). B is the body (IMU) frame.
public struct EstimatorOutput: Equatable, Sendable {
    /// Time of the frame, nanoseconds.
    public var t_ns: TimestampNs
    /// How trustworthy the pose is, in ARKit's terms.
    public var trackingState: TrackingState
    /// Pose of the body in the world (identity before initialisation).
    public var T_W_B: SE3
    /// Velocity of the body in W, m/s.
    public var v_W: Vec3
    /// Gyroscope bias, rad/s, in B.
    public var gyroBias_B: Vec3
    /// Accelerometer bias, m/s², in B.
    public var accelBias_B: Vec3
    /// Pose of camera 0 in the world: `T_W_B * T_B_C0`.
    public var T_W_C: SE3
    /// 1-σ position uncertainty, metres: square root of the largest eigenvalue of the 3×3 position
    /// covariance (a conservative scalar), relative to the initialisation: it grows with the distance
    /// travelled, as position is unobservable. `.infinity` before initialisation.
    public var positionStd_m: Double
    /// 1-σ orientation uncertainty, radians: square root of the largest eigenvalue of the 3×3 attitude covariance
    /// (tilt and yaw; yaw grows like position, being unobservable). `.infinity` before initialisation.
    public var orientationStd_rad: Double = .infinity
    /// Points triangulated in this frame's visual update, in W.
    public var landmarks: [Landmark]
    /// The IMU-clock time the pose refers to, nanoseconds: `t_ns + t̂_d`, when the image was taken (the
    /// ground truth's clock). Equal to `t_ns` without a camera–IMU time offset. `t_ns` stays the image's stamp.
    public var poseTime_ns: TimestampNs
    /// The camera–IMU time offset in use, seconds (estimated or fixed; see `TimeOffsetOptions`).
    public var timeOffset_s: Double
    /// Camera 0's mounting in use, the pose of camera 0 in B (metres): the calibration's, or its online estimate
    /// (`ExtrinsicOptions`). `T_W_C = T_W_B · T_B_C0`; nil when the producer does not say.
    public var T_B_C0: SE3?
    /// The accelerometer bias random walk the propagation used for this frame, m/s³/√Hz: the calibration's, or that
    /// scaled by the measured noise's excess (`StateOptions.adaptiveAccelRandomWalk`); nil when the producer does not say.
    public var accelRandomWalk: Double?

    /// An output record (see the properties for frames and units).
    public init(t_ns: TimestampNs, trackingState: TrackingState, T_W_B: SE3, v_W: Vec3, gyroBias_B: Vec3,
                accelBias_B: Vec3, T_W_C: SE3, positionStd_m: Double, landmarks: [Landmark],
                poseTime_ns: TimestampNs? = nil, timeOffset_s: Double = 0, T_B_C0: SE3? = nil) {
        self.t_ns = t_ns; self.trackingState = trackingState; self.T_W_B = T_W_B; self.v_W = v_W
        self.gyroBias_B = gyroBias_B; self.accelBias_B = accelBias_B; self.T_W_C = T_W_C
        self.positionStd_m = positionStd_m; self.landmarks = landmarks
        self.poseTime_ns = poseTime_ns ?? t_ns; self.timeOffset_s = timeOffset_s; self.T_B_C0 = T_B_C0
    }
}
