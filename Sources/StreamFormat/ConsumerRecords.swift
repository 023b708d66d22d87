import Foundation
import Sensors

/// The `cursor` record: where a ray from the image centre meets the world this frame.
public struct CursorRecord: StreamRecord, Codable, Equatable {
    /// The `type` of every cursor record.
    public static let recordType = "cursor"
    /// Record type: `cursor`.
    public private(set) var type = CursorRecord.recordType
    /// Frame time, ns.
    public var t_ns: TimestampNs
    /// `StreamSchema.version` when written.
    public private(set) var schema = StreamSchema.version
    /// `none`, `estimated` (estimated or infinite plane) or `onPlane` (inside a detected plane's boundary).
    public var state: String
    /// Raycast target that produced the hit.
    public var target: String?
    /// Hit pose, 4×4 row-major (z along the surface normal).
    public var transform: [Double]?
    /// Hit point, world, metres.
    public var position: [Double]?
    /// Surface normal, world.
    public var normal: [Double]?
    /// Distance from the camera, metres.
    public var distance: Double?
    /// Plane hit.
    public var plane_id: String?

    /// A record with the given fields (no hit unless given).
    public init(t_ns: TimestampNs, state: String, target: String? = nil, transform: [Double]? = nil, position: [Double]? = nil,
                normal: [Double]? = nil, distance: Double? = nil, plane_id: String? = nil) {
        self.t_ns = t_ns; self.state = state; self.target = target; self.transform = transform; self.position = position
        self.normal = normal; self.distance = distance; self.plane_id = plane_id
    }

    enum CodingKeys: String, CodingKey { case type, t_ns, schema, state, target, transform, position, normal, distance, plane_id }
}

/// The `measurement` record: a measured polyline.
public struct MeasurementRecord: StreamRecord, Codable, Equatable {
    /// The `type` of every measurement record.
    public static let recordType = "measurement"
    /// Record type: `measurement`.
    public private(set) var type = MeasurementRecord.recordType
    /// Time of the frame measured on, ns.
    public var t_ns: TimestampNs
    /// `StreamSchema.version` when written.
    public private(set) var schema = StreamSchema.version
    /// The requested tap time, ns.
    public var tap_t_ns: TimestampNs
    /// The tap's label.
    public var label: String?
    /// `ok` or `failed`.
    public var status: String
    /// Why it failed.
    public var reason: String?
    /// One entry per tapped pixel (all, when status is ok).
    public var points: [PointJSON]
    /// Length of each polyline segment, metres.
    public var segments: [Double]
    /// Total length, metres.
    public var total: Double?
    /// 1-σ uncertainty of `total`, metres (model in docs/STREAM.md).
    public var total_std: Double?
    /// 1-σ uncertainty of each segment, metres.
    public var segment_std: [Double]

    /// A measured point.
    public struct PointJSON: Codable, Equatable {
        /// Tapped pixel.
        public var pixel: [Double]
        /// World point, metres.
        public var position: [Double]
        /// Raycast target that produced it.
        public var target: String
        /// Plane hit, if any.
        public var plane_id: String?
        /// Distance from the camera, metres.
        public var distance: Double

        /// A point with the given fields.
        public init(pixel: [Double], position: [Double], target: String, plane_id: String?, distance: Double) {
            self.pixel = pixel; self.position = position; self.target = target; self.plane_id = plane_id; self.distance = distance
        }
    }

    /// A record with the given fields.
    public init(t_ns: TimestampNs, tap_t_ns: TimestampNs, label: String?, status: String, reason: String? = nil,
                points: [PointJSON], segments: [Double], total: Double? = nil, total_std: Double? = nil, segment_std: [Double]) {
        self.t_ns = t_ns; self.tap_t_ns = tap_t_ns; self.label = label; self.status = status; self.reason = reason
        self.points = points; self.segments = segments; self.total = total; self.total_std = total_std
        self.segment_std = segment_std
    }

    enum CodingKeys: String, CodingKey {
        case type, t_ns, schema, tap_t_ns, label, status, reason, points, segments, total, total_std, segment_std
    }
}

/// The `burst.captured` record: one frame saved by the burst consumer.
public struct BurstCapturedRecord: StreamRecord, Codable, Equatable {
    /// The `type` of every burst record.
    public static let recordType = "burst.captured"
    /// Record type: `burst.captured`.
    public private(set) var type = BurstCapturedRecord.recordType
    /// Frame time, ns.
    public var t_ns: TimestampNs
    /// `StreamSchema.version` when written.
    public private(set) var schema = StreamSchema.version
    /// Which burst (0-based, one per trigger time).
    public var burst: Int
    /// Index of the frame within the burst (0-based).
    public var index: Int
    /// Path of the PNG written (absent when the frame had no image).
    public var image: String?
    /// Path of the JSON sidecar written.
    public var sidecar: String

    /// A record with the given fields.
    public init(t_ns: TimestampNs, burst: Int, index: Int, image: String?, sidecar: String) {
        self.t_ns = t_ns; self.burst = burst; self.index = index; self.image = image; self.sidecar = sidecar
    }

    enum CodingKeys: String, CodingKey { case type, t_ns, schema, burst, index, image, sidecar }
}
