import Consumers
import Foundation

/// Foxglove 3D-scene messages from the stream's records: planes and user anchors as `foxglove.SceneUpdate`
/// entities, tracking-state changes as `foxglove.Log` lines. Pure functions of the records (docs/MCAP.md).
enum FoxgloveScene {
    /// The world frame's name in the MCAP file.
    static let worldFrame = "world"

    /// The scene update of an anchor record: `anchor.added` / `anchor.updated` give the entity (which replaces
    /// the one with its id), `anchor.removed` deletes it.
    static func update(_ r: AnchorEventRecord) -> Foxglove.SceneUpdate {
        if r.type == "anchor.removed" {
            return Foxglove.SceneUpdate(deletions: [Foxglove.SceneEntityDeletion(timestamp: Foxglove.Time(r.t_ns), type: 0, id: r.id)])
        }
        return Foxglove.SceneUpdate(entities: [r.plane.map { plane(r, $0) } ?? userAnchor(r)])
    }

    /// A plane: its boundary polygon as a closed line and as a filled fan of triangles, and its id and class as text.
    static func plane(_ r: AnchorEventRecord, _ p: PlaneJSON) -> Foxglove.SceneEntity {
        var e = Foxglove.SceneEntity(t_ns: r.t_ns, frame: worldFrame, id: r.id)
        let identity = Foxglove.Pose(position: Foxglove.Vector3(0, 0, 0), orientation: .identity)
        let boundary = p.boundary.map { Foxglove.Vector3($0) }
        let colour = color(p.classification)
        e.metadata = [("kind", r.kind), ("classification", p.classification), ("alignment", p.alignment),
                      ("offset_m", "\(p.offset)"), ("points", "\(p.points)")].map { Foxglove.KeyValuePair(key: $0.0, value: $0.1) }
        e.lines = [Foxglove.LinePrimitive(type: 1, pose: identity, thickness: 2, scale_invariant: true, points: boundary, color: colour)]
        if boundary.count >= 3 {
            // The boundary is convex (docs/STREAM.md), so a fan from its first vertex fills it.
            let fan = (1..<boundary.count - 1).flatMap { [boundary[0], boundary[$0], boundary[$0 + 1]] }
            e.triangles = [Foxglove.TriangleListPrimitive(pose: identity, points: fan, color: Foxglove.Color(r: colour.r, g: colour.g, b: colour.b, a: 0.3))]
        }
        e.texts = [Foxglove.TextPrimitive(pose: Foxglove.Pose(position: Foxglove.Vector3(p.center), orientation: .identity),
                                          color: colour, text: "\(r.id) \(p.classification)")]
        return e
    }

    /// A user anchor: a sphere at its origin, a thin square lying on its surface (z along the normal), its name.
    static func userAnchor(_ r: AnchorEventRecord) -> Foxglove.SceneEntity {
        var e = Foxglove.SceneEntity(t_ns: r.t_ns, frame: worldFrame, id: r.id)
        let pose = Foxglove.Pose(position: Foxglove.Vector3(r.position), orientation: Foxglove.Quaternion(wxyz: r.orientation))
        let colour = Foxglove.Color(r: 1, g: 0.2, b: 0.6, a: 1)
        e.metadata = [Foxglove.KeyValuePair(key: "kind", value: r.kind)]
            + [("plane_id", r.plane_id), ("name", r.name)].compactMap { k, v in v.map { Foxglove.KeyValuePair(key: k, value: $0) } }
        e.spheres = [Foxglove.ShapePrimitive(pose: pose, size: Foxglove.Vector3(0.05, 0.05, 0.05), color: colour)]
        e.cubes = [Foxglove.ShapePrimitive(pose: pose, size: Foxglove.Vector3(0.2, 0.2, 0.004),
                                           color: Foxglove.Color(r: 1, g: 0.2, b: 0.6, a: 0.4))]
        e.texts = [Foxglove.TextPrimitive(pose: pose, color: colour, text: r.name ?? r.id)]
        return e
    }

    /// The colour of a plane class.
    static func color(_ classification: String) -> Foxglove.Color {
        switch classification {
        case "floor": return Foxglove.Color(r: 0.2, g: 0.8, b: 0.3, a: 1)
        case "table": return Foxglove.Color(r: 1, g: 0.6, b: 0.1, a: 1)
        case "wall": return Foxglove.Color(r: 0.3, g: 0.5, b: 1, a: 1)
        case "ceiling": return Foxglove.Color(r: 0.7, g: 0.4, b: 0.9, a: 1)
        default: return Foxglove.Color(r: 0.7, g: 0.7, b: 0.7, a: 1)
        }
    }

    /// A log line for a tracking-state change: INFO for `normal`, WARNING otherwise.
    static func trackingLog(t_ns: Int64, state: String) -> Foxglove.Log {
        Foxglove.Log(timestamp: Foxglove.Time(t_ns), level: state == "normal" ? 2 : 3, message: "tracking: \(state)",
                     name: "worldtrack", file: "", line: 0)
    }
}
