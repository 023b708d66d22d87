import Geometry
import Imaging
import Sensors

/// One triangulated landmark as the estimator reports it.
public struct LandmarkInput: Equatable, Sendable {
    /// The estimator's feature id (stable across frames for the same physical point).
    public var id: Int
    /// Position in the world frame W (z up), metres.
    public var p_W: Vec3
    /// Isotropic 1-σ position uncertainty, metres.
    public var std_m: Double

    /// A landmark from its id, world position (m) and 1-σ uncertainty (m).
    public init(id: Int, p_W: Vec3, std_m: Double) { self.id = id; self.p_W = p_W; self.std_m = std_m }
}

/// Everything the world layer needs from one tracked frame. The lead's `run` fills it from the
/// estimator's output; the world layer does not depend on the estimator's types.
public struct WorldFrameInput: Sendable {
    /// Frame time, nanoseconds.
    public var t_ns: TimestampNs
    /// True when tracking is `normal`; planes are detected and reported only then.
    public var isTrackingNormal: Bool
    /// The tracking state as a string (`normal`, `limited(initializing)`, `notAvailable`, …), passed through to records.
    public var trackingState: String
    /// Pose of the camera (OpenCV frame: x right, y down, z forward) in the world.
    public var T_W_C: SE3
    /// Pose of the body (IMU) frame in the world.
    public var T_W_B: SE3
    /// The camera's calibration (model used for raycasts and visibility).
    public var camera: CameraCalibration
    /// Landmarks triangulated or refined at this frame (world frame).
    public var landmarks: [LandmarkInput]
    /// Number of tracked features in this frame.
    public var featureCount: Int
    /// The frame's image, when the caller has it (burst capture needs it).
    public var image: GrayImage?

    /// A frame input; see the properties for units and frames.
    public init(t_ns: TimestampNs, isTrackingNormal: Bool, trackingState: String, T_W_C: SE3, T_W_B: SE3,
                camera: CameraCalibration, landmarks: [LandmarkInput], featureCount: Int, image: GrayImage? = nil) {
        self.t_ns = t_ns; self.isTrackingNormal = isTrackingNormal; self.trackingState = trackingState
        self.T_W_C = T_W_C; self.T_W_B = T_W_B; self.camera = camera; self.landmarks = landmarks
        self.featureCount = featureCount; self.image = image
    }
}
