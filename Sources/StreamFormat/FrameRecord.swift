import Foundation
import Sensors

/// The per-frame record (`type: "frame"`): camera and body pose, intrinsics, tracking state, features, anchors in view.
public struct FrameRecord: StreamRecord, Codable, Equatable {
    /// The `type` of every frame record.
    public static let recordType = "frame"
    /// Record type: `frame`.
    public private(set) var type = FrameRecord.recordType
    /// Frame time, ns.
    public var t_ns: TimestampNs
    /// `StreamSchema.version` when written.
    public private(set) var schema = StreamSchema.version
    /// `normal`, `limited(<reason>)` or `notAvailable`.
    public var tracking_state: String
    /// Camera position in the world, metres.
    public var position: [Double]
    /// Camera orientation `q_W_C` (w, x, y, z), OpenCV camera frame.
    public var orientation: [Double]
    /// `T_world_camera`, 4×4 row-major.
    public var T_world_camera: [Double]
    /// Body (IMU) position in the world, metres.
    public var body_position: [Double]
    /// Body orientation `q_W_B` (w, x, y, z).
    public var body_orientation: [Double]
    /// Camera intrinsics, pixels.
    public var intrinsics: IntrinsicsJSON
    /// Tracked feature count.
    public var features: Int
    /// Anchors in view.
    public var anchors: [AnchorInViewJSON]
    /// Body velocity in the world, m/s (absent before initialisation).
    public var velocity: [Double]?
    /// 1-σ of the body position, metres (largest eigenvalue; relative to the initialisation, it grows with the
    /// distance travelled); absent before initialisation.
    public var position_std: Double?
    /// 1-σ of the body orientation, radians (largest eigenvalue: tilt and yaw); absent before initialisation.
    public var orientation_std: Double?
    /// Gyroscope bias, rad/s, body frame B (absent before initialisation).
    public var gyro_bias: [Double]?
    /// Accelerometer bias, m/s², body frame B (absent before initialisation).
    public var accel_bias: [Double]?
    /// The mapped points this frame sees (ARKit's `rawFeaturePoints`): only with `--stream-points`, and only while
    /// tracking is normal.
    public var points: [FeaturePointJSON]?

    /// A record with the given fields.
    public init(t_ns: TimestampNs, tracking_state: String, position: [Double], orientation: [Double],
                T_world_camera: [Double], body_position: [Double], body_orientation: [Double],
                intrinsics: IntrinsicsJSON, features: Int, anchors: [AnchorInViewJSON]) {
        self.t_ns = t_ns; self.tracking_state = tracking_state; self.position = position; self.orientation = orientation
        self.T_world_camera = T_world_camera; self.body_position = body_position; self.body_orientation = body_orientation
        self.intrinsics = intrinsics; self.features = features; self.anchors = anchors
    }

    enum CodingKeys: String, CodingKey {
        case type, t_ns, schema, tracking_state, position, orientation, T_world_camera, body_position,
             body_orientation, intrinsics, features, anchors, velocity, position_std, orientation_std, gyro_bias, accel_bias, points
    }
}

extension FrameRecord {
    /// The pose fields of a `frame` record read leniently: each one optional, and a field of the wrong JSON type
    /// read as absent, so a reader of partial or hand-written streams (eval's `TrajectoryLoader`) decides itself
    /// what it can do without. Same keys as ``FrameRecord``.
    public struct PoseFields: Decodable, Equatable {
        /// Record type (any record's; only `frame` records have the other fields).
        public var type: String?
        /// Frame time, ns.
        public var t_ns: TimestampNs?
        /// `normal`, `limited(<reason>)` or `notAvailable`.
        public var tracking_state: String?
        /// Body (IMU) position in the world, metres.
        public var body_position: [Double]?
        /// Body orientation (w, x, y, z).
        public var body_orientation: [Double]?
        /// Camera position in the world, metres.
        public var position: [Double]?
        /// Camera orientation (w, x, y, z).
        public var orientation: [Double]?

        /// Reads the fields of a JSON object; throws only when the value is not an object.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: FrameRecord.CodingKeys.self)
            type = try? c.decode(String.self, forKey: .type)
            t_ns = try? c.decode(TimestampNs.self, forKey: .t_ns)
            tracking_state = try? c.decode(String.self, forKey: .tracking_state)
            body_position = try? c.decode([Double].self, forKey: .body_position)
            body_orientation = try? c.decode([Double].self, forKey: .body_orientation)
            position = try? c.decode([Double].self, forKey: .position)
            orientation = try? c.decode([Double].self, forKey: .orientation)
        }
    }
}

/// Pinhole intrinsics and image size, pixels.
public struct IntrinsicsJSON: Codable, Equatable {
    /// Focal lengths and principal point, px.
    public var fx: Double, fy: Double, cx: Double, cy: Double
    /// Image size, px.
    public var width: Int, height: Int
    /// The intrinsics of a camera model.
    public init(_ m: CameraModel) {
        fx = m.intrinsics.fx; fy = m.intrinsics.fy; cx = m.intrinsics.cx; cy = m.intrinsics.cy
        width = m.width; height = m.height
    }
}

/// A mapped point seen in a frame: its persistent id (the feature track's) and its position.
public struct FeaturePointJSON: Codable, Equatable {
    /// Persistent id: the same physical point keeps it while it is tracked (and after, when it is found again).
    public var id: Int
    /// Position in the world, metres.
    public var position: [Double]
    /// A point with the given fields.
    public init(id: Int, position: [Double]) { self.id = id; self.position = position }
}

/// An anchor in view, as frame records and burst sidecars list it.
public struct AnchorInViewJSON: Codable, Equatable {
    /// Anchor id.
    public var id: String
    /// `plane` or `user`.
    public var kind: String
    /// Anchor pose in the world, 4×4 row-major.
    public var transform: [Double]
    /// Anchor origin in the world, metres.
    public var position: [Double]
    /// Pixel where the anchor's reference point projects.
    public var pixel: [Double]
    /// Plane classification (planes only).
    public var classification: String?

    /// An entry with the given fields.
    public init(id: String, kind: String, transform: [Double], position: [Double], pixel: [Double], classification: String?) {
        self.id = id; self.kind = kind; self.transform = transform; self.position = position; self.pixel = pixel
        self.classification = classification
    }
}
