import Foundation
import Geometry
import Sensors

/// Foxglove's well-known message types (https://docs.foxglove.dev/docs/visualization/message-schemas), the
/// fields `run --mcap` fills, JSON-encoded as Foxglove's JSON channels expect: times as `{sec, nsec}`, enums as
/// their integer values, byte fields as base64 strings. Every field the schemas list as required is written.
enum Foxglove {
    /// `time`: seconds and nanoseconds since the clock's epoch (the dataset's clock).
    struct Time: Codable, Equatable {
        var sec: UInt32, nsec: UInt32
        init(_ t_ns: Int64) {
            let t = max(t_ns, 0)
            sec = UInt32(truncatingIfNeeded: t / 1_000_000_000); nsec = UInt32(t % 1_000_000_000)
        }
    }

    /// `duration`; zero means forever (a scene entity's lifetime).
    struct Duration: Codable, Equatable { var sec: Int32 = 0, nsec: UInt32 = 0 }

    /// `foxglove.Vector3` / `foxglove.Point3`, metres.
    struct Vector3: Codable, Equatable {
        var x: Double, y: Double, z: Double
        init(_ x: Double, _ y: Double, _ z: Double) { self.x = x; self.y = y; self.z = z }
        init(_ v: Vec3) { self.init(v.x, v.y, v.z) }
        /// From the stream's `[x, y, z]`.
        init(_ a: [Double]) { self.init(a[0], a[1], a[2]) }
    }

    /// `foxglove.Quaternion` (x, y, z, w).
    struct Quaternion: Codable, Equatable {
        var x: Double, y: Double, z: Double, w: Double
        init(_ r: SO3) { let q = r.quaternion.normalized; x = q.x; y = q.y; z = q.z; w = q.w }
        /// From the stream's `[w, x, y, z]`.
        init(wxyz a: [Double]) { w = a[0]; x = a[1]; y = a[2]; z = a[3] }
        static let identity = Quaternion(.identity)
    }

    /// `foxglove.Pose`.
    struct Pose: Codable, Equatable {
        var position: Vector3, orientation: Quaternion
        init(_ T: SE3) { position = Vector3(T.translation); orientation = Quaternion(T.rotation) }
        init(position: Vector3, orientation: Quaternion) { self.position = position; self.orientation = orientation }
    }

    /// `foxglove.Color`, components in [0, 1].
    struct Color: Codable, Equatable { var r: Double, g: Double, b: Double, a: Double }

    /// `foxglove.FrameTransform`: the child frame's pose in the parent frame (`T_parent_child`).
    struct FrameTransform: Codable, Equatable {
        var timestamp: Time
        var parent_frame_id: String, child_frame_id: String
        var translation: Vector3
        var rotation: Quaternion
        init(t_ns: Int64, parent: String, child: String, _ T_parent_child: SE3) {
            timestamp = Time(t_ns); parent_frame_id = parent; child_frame_id = child
            translation = Vector3(T_parent_child.translation); rotation = Quaternion(T_parent_child.rotation)
        }
    }

    /// `foxglove.FrameTransforms`.
    struct FrameTransforms: Codable, Equatable { var transforms: [FrameTransform] }

    /// `foxglove.PosesInFrame`.
    struct PosesInFrame: Codable, Equatable { var timestamp: Time, frame_id: String, poses: [Pose] }

    /// `foxglove.PackedElementField`; `type` 7 is FLOAT32.
    struct PackedElementField: Codable, Equatable { var name: String, offset: UInt32, type: Int }

    /// `foxglove.PointCloud`: `data` holds `point_stride` bytes per point, laid out as `fields` say.
    struct PointCloud: Codable, Equatable {
        var timestamp: Time, frame_id: String, pose: Pose, point_stride: UInt32
        var fields: [PackedElementField]
        var data: String

        /// Points as packed little-endian float32 x, y, z (12 bytes each), in `frame`.
        init(t_ns: Int64, frame: String, points: [Vec3]) {
            timestamp = Time(t_ns); frame_id = frame
            pose = Pose(position: Vector3(0, 0, 0), orientation: .identity)
            point_stride = 12
            fields = ["x", "y", "z"].enumerated().map { PackedElementField(name: $0.element, offset: UInt32($0.offset * 4), type: 7) }
            var bytes = [UInt8]()
            bytes.reserveCapacity(points.count * 12)
            for p in points {
                for v in [Float(p.x), Float(p.y), Float(p.z)] {
                    withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
                }
            }
            data = Base64.encode(bytes)
        }
    }

    /// `foxglove.LinePrimitive`; `type` 0 LINE_STRIP, 1 LINE_LOOP, 2 LINE_LIST.
    struct LinePrimitive: Codable, Equatable {
        var type: Int, pose: Pose, thickness: Double, scale_invariant: Bool
        var points: [Vector3], color: Color, colors: [Color] = [], indices: [UInt32] = []
    }

    /// `foxglove.TriangleListPrimitive`: every three points are a triangle.
    struct TriangleListPrimitive: Codable, Equatable {
        var pose: Pose, points: [Vector3], color: Color, colors: [Color] = [], indices: [UInt32] = []
    }

    /// `foxglove.SpherePrimitive` / `foxglove.CubePrimitive` (same fields): `size` is the full extent, metres.
    struct ShapePrimitive: Codable, Equatable { var pose: Pose, size: Vector3, color: Color }

    /// `foxglove.TextPrimitive`.
    struct TextPrimitive: Codable, Equatable {
        var pose: Pose, billboard: Bool = true, font_size: Double = 14, scale_invariant: Bool = true
        var color: Color, text: String
    }

    /// `foxglove.KeyValuePair`.
    struct KeyValuePair: Codable, Equatable { var key: String, value: String }

    /// `foxglove.SceneEntity`: primitives drawn in `frame_id`; an entity replaces the earlier one with its `id`.
    struct SceneEntity: Codable, Equatable {
        var timestamp: Time, frame_id: String, id: String
        var lifetime = Duration(), frame_locked = false
        var metadata: [KeyValuePair] = []
        var arrows: [ShapePrimitive] = [], cubes: [ShapePrimitive] = [], spheres: [ShapePrimitive] = []
        var cylinders: [ShapePrimitive] = [], lines: [LinePrimitive] = [], triangles: [TriangleListPrimitive] = []
        var texts: [TextPrimitive] = [], models: [ShapePrimitive] = []

        init(t_ns: Int64, frame: String, id: String) { timestamp = Time(t_ns); frame_id = frame; self.id = id }
    }

    /// `foxglove.SceneEntityDeletion`; `type` 0 deletes the entity with `id`, 1 all entities of the topic.
    struct SceneEntityDeletion: Codable, Equatable { var timestamp: Time, type: Int, id: String }

    /// `foxglove.SceneUpdate`.
    struct SceneUpdate: Codable, Equatable { var deletions: [SceneEntityDeletion] = [], entities: [SceneEntity] = [] }

    /// `foxglove.CameraCalibration` of a (distorted) pinhole camera: `K` and `P` row-major, `R` identity (no
    /// rectification), `D` in the order of `distortion_model` (`plumb_bob`: k1 k2 p1 p2 k3; `kannala_brandt`: k1–k4).
    struct CameraCalibration: Codable, Equatable {
        var timestamp: Time, frame_id: String, width: UInt32, height: UInt32
        var distortion_model: String, D: [Double], K: [Double], R: [Double], P: [Double]

        init(t_ns: Int64, frame: String, _ m: CameraModel) {
            timestamp = Time(t_ns); frame_id = frame; width = UInt32(m.width); height = UInt32(m.height)
            switch m.distortion {
            case .none: (distortion_model, D) = ("plumb_bob", [0, 0, 0, 0, 0])
            case let .radialTangential(k1, k2, p1, p2): (distortion_model, D) = ("plumb_bob", [k1, k2, p1, p2, 0])
            case let .equidistant(k1, k2, k3, k4): (distortion_model, D) = ("kannala_brandt", [k1, k2, k3, k4])
            }
            let i = m.intrinsics
            K = [i.fx, 0, i.cx, 0, i.fy, i.cy, 0, 0, 1]
            R = [1, 0, 0, 0, 1, 0, 0, 0, 1]
            P = [i.fx, 0, i.cx, 0, 0, i.fy, i.cy, 0, 0, 0, 1, 0]
        }
    }

    /// `foxglove.Log`; `level` 2 INFO, 3 WARNING.
    struct Log: Codable, Equatable { var timestamp: Time, level: Int, message: String, name: String, file: String, line: UInt32 }

    /// The JSON of a `foxglove.FrameTransforms`, written directly (every frame: a JSON encoder's reflection costs
    /// ten times as much). Numbers are Swift's shortest round-trip form, as the stream's JSON encoder writes them.
    static func frameTransformsJSON(_ transforms: [FrameTransform]) -> [UInt8] {
        func time(_ t: Time) -> String { #"{"sec":\#(t.sec),"nsec":\#(t.nsec)}"# }
        func quoted(_ s: String) -> String { (try? JSONEncoder().encode(s)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\"" }
        let items = transforms.map { f in
            #"{"timestamp":\#(time(f.timestamp)),"parent_frame_id":\#(quoted(f.parent_frame_id)),"child_frame_id":\#(quoted(f.child_frame_id)),"#
                + #""translation":{"x":\#(f.translation.x),"y":\#(f.translation.y),"z":\#(f.translation.z)},"#
                + #""rotation":{"x":\#(f.rotation.x),"y":\#(f.rotation.y),"z":\#(f.rotation.z),"w":\#(f.rotation.w)}}"#
        }
        return Array(#"{"transforms":[\#(items.joined(separator: ","))]}"#.utf8)
    }

    /// A `foxglove.CompressedImage` whose `data` is an encoded image file (e.g. PNG), as the JSON text before and
    /// after the base64 of the bytes, so that the base64 can be written straight into its destination (a JSON
    /// encoder would copy the few hundred kilobytes and scan them for characters to escape).
    static func compressedImageJSON(t_ns: Int64, frame: String, format: String) -> (head: [UInt8], tail: [UInt8]) {
        let time = Time(t_ns)
        func quoted(_ s: String) -> String { (try? JSONEncoder().encode(s)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\"" }
        let head = #"{"timestamp":{"sec":\#(time.sec),"nsec":\#(time.nsec)},"frame_id":\#(quoted(frame)),"format":\#(quoted(format)),"data":""#
        return (Array(head.utf8), Array(#""}"#.utf8))
    }
}
