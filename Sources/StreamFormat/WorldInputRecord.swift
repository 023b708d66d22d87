import Foundation
import Sensors

/// The `world_input` record (`run --stream-world-input`): exactly what the world layer received for one frame —
/// the tracking state, the camera and body poses as held (quaternion not re-normalised), the landmarks the
/// estimator triangulated or refined at this frame, and (in the first record, and whenever it changes) the
/// camera calibration. `worldtrack replay` rebuilds the world layer and the consumers from these records alone,
/// so a replay gives the live run's planes, anchors and consumer records bit for bit.
///
/// Poses are 7 numbers `[qw, qx, qy, qz, x, y, z]`: the Hamilton quaternion rotating the named frame into the
/// world W, then its origin in W (metres). Unlike the `frame` record's fields they are not normalised to w ≥ 0,
/// nor converted to another convention.
public struct WorldInputRecord: StreamRecord, Codable, Equatable {
    /// The `type` of every world-input record.
    public static let recordType = "world_input"
    /// Record type: `world_input`.
    public private(set) var type = WorldInputRecord.recordType
    /// Frame time, ns.
    public var t_ns: TimestampNs
    /// `StreamSchema.version` when written.
    public private(set) var schema = StreamSchema.version
    /// `normal`, `limited(<reason>)` or `notAvailable`, as in the `frame` record.
    public var tracking_state: String
    /// `T_world_camera` as `[qw, qx, qy, qz, x, y, z]` (OpenCV camera frame; metres, W).
    public var camera_pose: [Double]
    /// `T_world_body` as `[qw, qx, qy, qz, x, y, z]` (body = IMU frame; metres, W).
    public var body_pose: [Double]
    /// Tracked features in this frame.
    public var features: Int
    /// Landmarks triangulated or refined at this frame, each `[id, x, y, z, std]`: the feature track id, the
    /// position in W (metres) and its 1-σ (metres).
    public var landmarks: [[Double]]
    /// The camera calibration: in the first record, and again whenever it changes.
    public var camera: CameraJSON?

    /// A record with the given fields.
    public init(t_ns: TimestampNs, tracking_state: String, camera_pose: [Double], body_pose: [Double], features: Int,
                landmarks: [[Double]], camera: CameraJSON? = nil) {
        self.t_ns = t_ns; self.tracking_state = tracking_state; self.camera_pose = camera_pose
        self.body_pose = body_pose; self.features = features; self.landmarks = landmarks; self.camera = camera
    }

    enum CodingKeys: String, CodingKey {
        case type, t_ns, schema, tracking_state, camera_pose, body_pose, features, landmarks, camera
    }
}

/// A camera calibration in a `world_input` record: the image size, pinhole intrinsics, lens distortion and the
/// camera's mounting on the body.
public struct CameraJSON: Codable, Equatable {
    /// Camera name (`cam0`).
    public var name: String
    /// Image size, pixels.
    public var width: Int, height: Int
    /// Pinhole intrinsics, pixels.
    public var fx: Double, fy: Double, cx: Double, cy: Double
    /// Distortion model: `none`, `radial-tangential` (k1, k2, p1, p2) or `equidistant` (k1…k4), as in sensor.yaml.
    public var distortion: String
    /// The model's coefficients (empty for `none`).
    public var distortion_coefficients: [Double]
    /// Nominal frame rate, Hz.
    public var rate_hz: Double
    /// `T_body_camera` as `[qw, qx, qy, qz, x, y, z]` (metres, body frame).
    public var body_camera_pose: [Double]

    /// A calibration with the given fields.
    public init(name: String, width: Int, height: Int, fx: Double, fy: Double, cx: Double, cy: Double,
                distortion: String, distortion_coefficients: [Double], rate_hz: Double, body_camera_pose: [Double]) {
        self.name = name; self.width = width; self.height = height
        self.fx = fx; self.fy = fy; self.cx = cx; self.cy = cy
        self.distortion = distortion; self.distortion_coefficients = distortion_coefficients
        self.rate_hz = rate_hz; self.body_camera_pose = body_camera_pose
    }
}
