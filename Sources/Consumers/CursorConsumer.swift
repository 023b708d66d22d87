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
    private var firstFrame_ns: TimestampNs?, lastFrame_ns: TimestampNs?
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
        if pending == nil {
            pending = placeTimes.map { $0.resolve(firstFrame: frame.t_ns) }.sorted()
            firstFrame_ns = frame.t_ns
        }
        lastFrame_ns = frame.t_ns
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

    /// One line when some place time got no anchor (past the last frame, or with no raycast hit
    /// from then to the last frame), saying which and why, in seconds after the first frame.
    public var finishWarnings: [String] {
        guard let first = firstFrame_ns, let last = lastFrame_ns else {
            return placeTimes.isEmpty ? [] : ["cursor: no frame was tracked, so no anchor was placed (place=…)"]
        }
        guard let pending, !pending.isEmpty else { return [] }
        func seconds(_ t: TimestampNs) -> String { String(format: "%.2f s", (Double(t) - Double(first)) * 1e-9) }
        let late = pending.filter { $0 > last }, missed = pending.filter { $0 <= last }
        var parts: [String] = []
        if !late.isEmpty {
            parts.append("place=\(late.map(seconds).joined(separator: ", ")): past the last frame (\(seconds(last)))")
        }
        if !missed.isEmpty {
            parts.append("place=\(missed.map(seconds).joined(separator: ", ")): no surface hit at the image centre from then to the last frame")
        }
        return ["cursor: no anchor placed for " + parts.joined(separator: "; ") + " (times after the first frame)"]
    }
}
