import Foundation
import Geometry
import Sensors
import World

/// The per-frame record (`type: "frame"`): camera and body pose, intrinsics, tracking state, features, anchors in view.
public struct FrameRecord: StreamRecord, Equatable {
    /// Record type: `frame`.
    public let type = "frame"
    /// Frame time, ns.
    public var t_ns: TimestampNs
    /// `StreamSchema.version`.
    public let schema = StreamSchema.version
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

    /// The record of a world frame, in the given convention.
    public init(_ frame: WorldFrame, convention: StreamConvention = .worldtrack) {
        t_ns = frame.t_ns
        tracking_state = frame.trackingState.description
        let T_C = convention.cameraPose(frame.T_W_C), T_B = convention.bodyPose(frame.T_W_B)
        position = StreamJSON.array(T_C.translation)
        orientation = StreamJSON.quaternion(T_C.rotation)
        T_world_camera = StreamJSON.matrix(T_C)
        body_position = StreamJSON.array(T_B.translation)
        body_orientation = StreamJSON.quaternion(T_B.rotation)
        intrinsics = IntrinsicsJSON(frame.camera.model)
        features = frame.featureCount
        anchors = frame.anchorsInView.map { AnchorInViewJSON($0, convention: convention) }
    }

    enum CodingKeys: String, CodingKey {
        case type, t_ns, schema, tracking_state, position, orientation, T_world_camera, body_position,
             body_orientation, intrinsics, features, anchors
    }
}

/// A plane as anchor events describe it.
public struct PlaneJSON: Encodable, Equatable {
    /// `horizontal` or `vertical`.
    public var alignment: String
    /// `floor`, `table`, `ceiling`, `wall` or `none`.
    public var classification: String
    /// Centre of the enclosing rectangle, world, metres.
    public var center: [Double]
    /// Enclosing rectangle in the plane frame: sizes (m) and yaw from the plane's x axis (rad).
    public var extent: ExtentJSON
    /// Convex boundary polygon, world points, metres.
    public var boundary: [[Double]]
    /// Unit normal, world.
    public var normal: [Double]
    /// Offset along the normal (height for horizontal planes), metres, and its 1-σ.
    public var offset: Double, offset_std: Double
    /// Supporting landmarks.
    public var points: Int

    /// Extent of a plane.
    public struct ExtentJSON: Encodable, Equatable { public var width: Double, length: Double, yaw: Double }

    /// The JSON of a plane anchor, in the given convention.
    public init(_ p: PlaneAnchor, convention: StreamConvention = .worldtrack) {
        alignment = p.alignment.rawValue; classification = p.classification.rawValue
        center = StreamJSON.array(convention.point(p.center))
        extent = ExtentJSON(width: p.extent.width, length: p.extent.length, yaw: p.extent.yaw)
        boundary = p.boundary.map { StreamJSON.array(convention.point($0)) }
        normal = StreamJSON.array(convention.point(p.normal_W))
        offset = p.offset_m; offset_std = p.offsetStd_m; points = p.pointCount
    }
}

/// Anchor lifecycle records: `anchor.added`, `anchor.updated`, `anchor.removed`.
public struct AnchorEventRecord: StreamRecord, Equatable {
    /// `anchor.added`, `anchor.updated` or `anchor.removed`.
    public var type: String
    /// Time of the frame that caused the change, ns.
    public var t_ns: TimestampNs
    /// `StreamSchema.version`.
    public let schema = StreamSchema.version
    /// Anchor id.
    public var id: String
    /// `plane` or `user`.
    public var kind: String
    /// Anchor pose in the world, 4×4 row-major (plane: the plane frame, z along the normal).
    public var transform: [Double]
    /// Anchor origin, world, metres.
    public var position: [Double]
    /// Anchor orientation (w, x, y, z).
    public var orientation: [Double]
    /// Plane details (plane anchors).
    public var plane: PlaneJSON?
    /// The plane a user anchor is attached to.
    public var plane_id: String?
    /// A user anchor's label.
    public var name: String?
    /// For a plane removed by a merge: the surviving plane's id.
    public var merged_into: String?

    /// The record of an anchor event (default conventions); usable as `events.map(AnchorEventRecord.init)`.
    public init(_ e: AnchorEvent) { self.init(e, convention: .worldtrack) }

    /// The record of an anchor event, in the given convention.
    public init(_ e: AnchorEvent, convention: StreamConvention) {
        type = e.change.rawValue; t_ns = e.t_ns; id = e.anchor.id; kind = e.anchor.kind.rawValue
        let T = convention.surfacePose(e.anchor.T_W_A)
        transform = StreamJSON.matrix(T)
        position = StreamJSON.array(T.translation)
        orientation = StreamJSON.quaternion(T.rotation)
        switch e.anchor {
        case let .plane(p): plane = PlaneJSON(p, convention: convention)
        case let .user(u): plane_id = u.planeId; name = u.name
        }
        merged_into = e.mergedInto
    }

    enum CodingKeys: String, CodingKey {
        case type, t_ns, schema, id, kind, transform, position, orientation, plane, plane_id, name, merged_into
    }
}
