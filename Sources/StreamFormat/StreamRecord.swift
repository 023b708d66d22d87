import Foundation
import Geometry
import Sensors

/// The stream's schema version, carried by every record as `schema`.
public enum StreamSchema {
    /// Current schema identifier (documented in docs/STREAM.md).
    public static let version = "worldtrack.stream/1"
}

/// One JSON Lines record of the output stream. Every record carries `type`, `t_ns` and `schema`;
/// the fields of each type are documented in docs/STREAM.md.
///
/// Records are `Encodable` only, so a plug-in consumer's own records need no decoder; the built-in records
/// of this module are `Codable` and read back with ``StreamRecordDecoder``.
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

/// The fields every record carries, read from any record, including a plug-in consumer's.
public struct StreamRecordHeader: Decodable, Equatable, Sendable {
    /// Record type.
    public var type: String
    /// Time of the frame the record belongs to, ns.
    public var t_ns: TimestampNs
    /// Schema identifier.
    public var schema: String

    /// A header with the given fields.
    public init(type: String, t_ns: TimestampNs, schema: String) {
        self.type = type; self.t_ns = t_ns; self.schema = schema
    }
}
