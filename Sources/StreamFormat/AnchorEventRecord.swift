import Foundation
import Sensors

/// A plane as anchor events describe it.
public struct PlaneJSON: Codable, Equatable {
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
    public struct ExtentJSON: Codable, Equatable {
        /// Sizes along the rectangle's two axes, metres, and the first axis' yaw from the plane's x axis, rad.
        public var width: Double, length: Double, yaw: Double
        /// An extent with the given sizes and yaw.
        public init(width: Double, length: Double, yaw: Double) { self.width = width; self.length = length; self.yaw = yaw }
    }

    /// A plane with the given fields.
    public init(alignment: String, classification: String, center: [Double], extent: ExtentJSON, boundary: [[Double]],
                normal: [Double], offset: Double, offset_std: Double, points: Int) {
        self.alignment = alignment; self.classification = classification; self.center = center; self.extent = extent
        self.boundary = boundary; self.normal = normal; self.offset = offset; self.offset_std = offset_std; self.points = points
    }
}

/// Anchor lifecycle records: `anchor.added`, `anchor.updated`, `anchor.removed`.
public struct AnchorEventRecord: StreamRecord, Codable, Equatable {
    /// The three `type`s of anchor event records.
    public static let recordTypes: Set<String> = ["anchor.added", "anchor.updated", "anchor.removed"]
    /// `anchor.added`, `anchor.updated` or `anchor.removed`.
    public var type: String
    /// Time of the frame that caused the change, ns.
    public var t_ns: TimestampNs
    /// `StreamSchema.version` when written.
    public private(set) var schema = StreamSchema.version
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

    /// A record with the given fields.
    public init(type: String, t_ns: TimestampNs, id: String, kind: String, transform: [Double], position: [Double],
                orientation: [Double], plane: PlaneJSON? = nil, plane_id: String? = nil, name: String? = nil,
                merged_into: String? = nil) {
        self.type = type; self.t_ns = t_ns; self.id = id; self.kind = kind; self.transform = transform
        self.position = position; self.orientation = orientation; self.plane = plane; self.plane_id = plane_id
        self.name = name; self.merged_into = merged_into
    }

    enum CodingKeys: String, CodingKey {
        case type, t_ns, schema, id, kind, transform, position, orientation, plane, plane_id, name, merged_into
    }
}
