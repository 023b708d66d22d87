import Foundation
import Geometry
import Sensors
import StreamFormat
import World

/// `cursor[:place=T1,T2,…]`: every frame, a raycast from the image centre (plane geometry, then estimated plane,
/// then infinite plane); at each place time (first frame at or after it with a hit) a user anchor is added there.
public final class CursorConsumer: FrameConsumer {
    /// Spec name: `cursor`.
    public let name = "cursor"
    /// Frame conventions of the records' poses.
    public var convention: StreamConvention = .worldtrack
    private var placeTimes: [StreamTime]
    private var pending: [TimestampNs]? // resolved at the first frame
    /// Ids of anchors placed so far.
    public private(set) var placedAnchorIds: [String] = []

    /// A cursor that places anchors at the given times.
    public init(placeTimes: [StreamTime] = []) { self.placeTimes = placeTimes }

    /// Builds from a spec (`place` optional).
    public convenience init(spec: ConsumerSpec) throws {
        try spec.checkKeys(allowed: ["place"])
        self.init(placeTimes: try spec.times("place") ?? [])
    }

    /// See `FrameConsumer.consume(_:)`.
    public func consume(_ frame: WorldFrame) throws -> [any StreamRecord] {
        if pending == nil { pending = placeTimes.map { $0.resolve(firstFrame: frame.t_ns) }.sorted() }
        let m = frame.camera.model
        let centre = Vec2(Double(m.width - 1) / 2, Double(m.height - 1) / 2)
        let hit = frame.raycast(pixel: centre)
        var rec = CursorRecord(t_ns: frame.t_ns, state: "none")
        var out: [any StreamRecord] = []
        if let h = hit {
            rec.state = h.target == .existingPlaneGeometry ? "onPlane" : "estimated"
            rec.target = h.target.rawValue
            rec.transform = StreamJSON.matrix(convention.surfacePose(h.T_W_Hit))
            rec.position = StreamJSON.array(convention.point(h.position_W))
            rec.normal = StreamJSON.array(convention.point(h.normal_W))
            rec.distance = h.distance_m
            rec.plane_id = h.planeId
        }
        out.append(rec)
        if let h = hit, let first = pending?.first, frame.t_ns >= first {
            pending?.removeFirst()
            let event = frame.addAnchor(at: h, name: "cursor-\(placedAnchorIds.count + 1)")
            placedAnchorIds.append(event.anchor.id)
            out.append(AnchorEventRecord(event, convention: convention))
        }
        return out
    }

    /// See `FrameConsumer.finish()`.
    public func finish() throws -> [any StreamRecord] { [] }
}
