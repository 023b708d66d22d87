import Foundation
import Geometry
import Sensors
import World

/// The stream's schema version, carried by every record as `schema`.
public enum StreamSchema {
    /// Current schema identifier (documented in docs/STREAM.md).
    public static let version = "worldtrack.stream/1"
}

/// One JSON Lines record of the output stream. Every record carries `type`, `t_ns` and `schema`;
/// the fields of each type are documented in docs/STREAM.md.
public protocol StreamRecord: Encodable {
    /// Record type (`frame`, `anchor.added`, `measurement`, …).
    var type: String { get }
    /// Time of the frame the record belongs to, ns.
    var t_ns: TimestampNs { get }
    /// Schema identifier (`StreamSchema.version`).
    var schema: String { get }
}

/// JSON helpers for poses: arrays in the stream's conventions.
public enum StreamJSON {
    /// `[x, y, z]`.
    public static func array(_ v: Vec3) -> [Double] { [v.x, v.y, v.z] }
    /// `[u, v]`.
    public static func array(_ v: Vec2) -> [Double] { [v.x, v.y] }
    /// Hamilton quaternion `[w, x, y, z]` of a rotation (w ≥ 0).
    public static func quaternion(_ r: SO3) -> [Double] {
        let q = r.quaternion.normalized
        return [q.w, q.x, q.y, q.z]
    }
    /// The 16 values of the 4×4 homogeneous matrix, row-major.
    public static func matrix(_ T: SE3) -> [Double] { T.matrix4x4RowMajor }
}

/// Pinhole intrinsics and image size, pixels.
public struct IntrinsicsJSON: Encodable, Equatable {
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

/// An anchor in view, as frame records and burst sidecars list it.
public struct AnchorInViewJSON: Encodable, Equatable {
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
    /// An entry from the world layer's `AnchorInView`, in the given convention.
    public init(_ a: AnchorInView, convention: StreamConvention = .worldtrack) {
        let T = convention.surfacePose(a.T_W_A)
        id = a.id; kind = a.kind.rawValue; transform = StreamJSON.matrix(T)
        position = StreamJSON.array(T.translation); pixel = StreamJSON.array(a.pixel)
        classification = a.classification?.rawValue
    }
}
