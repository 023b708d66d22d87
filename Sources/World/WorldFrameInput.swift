import Estimation
import Geometry
import Imaging
import Sensors

/// Everything the world layer needs from one tracked frame: the estimator's tracking state, poses and
/// landmarks (its own types, ``TrackingState`` and ``Landmark``), the camera and, optionally, the image.
public struct WorldFrameInput: Sendable {
    /// Frame time, nanoseconds.
    public var t_ns: TimestampNs
    /// The estimator's tracking state; planes are detected and reported only while it is `.normal`.
    public var trackingState: TrackingState
    /// Pose of the camera (OpenCV frame: x right, y down, z forward) in the world.
    public var T_W_C: SE3
    /// Pose of the body (IMU) frame in the world.
    public var T_W_B: SE3
    /// The camera's calibration (model used for raycasts and visibility).
    public var camera: CameraCalibration
    /// Landmarks the estimator triangulated or refined at this frame (world frame, with their 1-σ).
    public var landmarks: [Landmark]
    /// Number of tracked features in this frame.
    public var featureCount: Int
    /// The frame's image, when the caller has it (burst capture needs it).
    public var image: GrayImage?
    /// The right camera's image at the same instant, with its pose in this (left) camera's frame, when the caller
    /// tracks a stereo pair: the measure consumer checks tapped points' depths against it (``PhotometricDepthProbe``).
    public var stereoView: SecondView?
    /// The estimator's whole output for this frame, when the caller has it: the stream reports the body's velocity,
    /// the IMU biases and the pose's uncertainty from it.
    public var estimate: EstimatorOutput?
    /// True (the default) when the landmarks were seen by this frame's camera (the estimator reports the points
    /// whose tracks its update used, and those end at this frame or the one before): the segment from the camera's
    /// centre to each is free space, which plane detection uses against planes nothing can be seen through
    /// (``SeeThroughTest``). False for landmarks without lines of sight (a synthetic cloud that ignores occlusion).
    public var landmarksSeenFromCamera: Bool

    /// A frame input; see the properties for units and frames.
    public init(t_ns: TimestampNs, trackingState: TrackingState, T_W_C: SE3, T_W_B: SE3,
                camera: CameraCalibration, landmarks: [Landmark], featureCount: Int, image: GrayImage? = nil,
                estimate: EstimatorOutput? = nil, landmarksSeenFromCamera: Bool = true, stereoView: SecondView? = nil) {
        self.t_ns = t_ns; self.trackingState = trackingState
        self.T_W_C = T_W_C; self.T_W_B = T_W_B; self.camera = camera; self.landmarks = landmarks
        self.featureCount = featureCount; self.image = image; self.estimate = estimate
        self.landmarksSeenFromCamera = landmarksSeenFromCamera; self.stereoView = stereoView
    }

    /// Where the landmarks were seen from: the camera's centre in W (metres), nil when `landmarksSeenFromCamera` is
    /// false.
    public var landmarkViewpoint_W: Vec3? { landmarksSeenFromCamera ? T_W_C.translation : nil }

    /// True when the camera pose is finite (translation and quaternion).
    public var hasFinitePose: Bool {
        let q = T_W_C.rotation.quaternion
        return T_W_C.translation.isFinite && q.w.isFinite && q.x.isFinite && q.y.isFinite && q.z.isFinite
    }

    /// True when tracking is `.normal` and the camera pose is finite: the world layer integrates landmarks,
    /// detects planes and answers raycasts only then. A non-finite pose under a `.normal` state is treated as
    /// not normal, though the state itself is passed through to the records unchanged.
    public var isTrackingNormal: Bool { trackingState == .normal && hasFinitePose }
}
