import Foundation
import Geometry
import Sensors
import StreamFormat
import World

/// `divide:tap=X,Y,at=T,pieces=N[,radius=R]`: the cake divider. At the first frame at or after T, the tapped pixel
/// (X, Y) is raycast onto a detected horizontal plane; a user anchor named `divide` is placed there (it follows
/// the plane's refinements) and a disc of radius R metres (default 0.12) around it is cut into N equal pieces. The
/// first cut points away from the camera (the tap frame's viewing direction along the plane); cut k is turned by
/// 2πk/N about the plane's normal from it.
///
/// Records (`DivideRecord`): `placed` (or `failed`, with a reason: no horizontal plane under the tap, tracking not
/// normal, or the run ended before T) at the tap, then `inView` in every later frame whose image shows the centre,
/// with the cuts' 3-D end points and their pixels in that frame.
public final class DivideConsumer: FrameConsumer {
    /// Spec name: `divide`.
    public let name = "divide"
    /// Frame conventions of the records' positions.
    public var convention: StreamConvention = .worldtrack
    /// Samples per cut in the pixel polylines (centre and rim included).
    public static let samplesPerCut = 9

    private let tap: Vec2
    private let at: StreamTime
    private let pieces: Int
    private let radius_m: Double
    private var due_ns: TimestampNs?
    private var done = false
    private var lastFrame_ns: TimestampNs?
    private var anchorId: String?
    private var planeId: String?

    /// A divider for a tap at `pixel` at time `at`.
    public init(tap pixel: Vec2, at: StreamTime, pieces: Int, radius_m: Double = 0.12) {
        tap = pixel; self.at = at; self.pieces = pieces; self.radius_m = radius_m
    }

    /// Builds from a spec: `tap=X,Y` (pixels), `at=T`, `pieces=N` (2…64) required; `radius=R` (metres) optional.
    public convenience init(spec: ConsumerSpec) throws {
        try spec.checkKeys(allowed: ["tap", "at", "pieces", "radius"])
        guard let tapValues = spec.values("tap") else { throw ConsumerError.missingKey(consumer: "divide", key: "tap") }
        let xy = tapValues.compactMap { Double($0) }
        guard tapValues.count == 2, xy.count == 2, xy.allSatisfy({ $0.isFinite && $0 >= 0 }) else {
            throw ConsumerError.badValue(consumer: "divide", key: "tap", value: tapValues.joined(separator: ","),
                                         expected: "a pixel X,Y (two non-negative numbers)")
        }
        guard let at = try spec.singleTime("at") else { throw ConsumerError.missingKey(consumer: "divide", key: "at") }
        guard let pieces = try spec.positiveInt("pieces") else { throw ConsumerError.missingKey(consumer: "divide", key: "pieces") }
        guard (2...64).contains(pieces) else {
            throw ConsumerError.badValue(consumer: "divide", key: "pieces", value: "\(pieces)", expected: "an integer from 2 to 64")
        }
        let radius = try spec.nonNegativeDouble("radius") ?? 0.12
        guard radius > 0, radius <= 10 else {
            throw ConsumerError.badValue(consumer: "divide", key: "radius", value: "\(radius)", expected: "metres, > 0 and ≤ 10")
        }
        self.init(tap: Vec2(xy[0], xy[1]), at: at, pieces: pieces, radius_m: radius)
    }

    /// See `FrameConsumer.consume(_:)`.
    public func consume(_ frame: WorldFrame) throws -> [any StreamRecord] {
        if due_ns == nil { due_ns = at.resolve(firstFrame: frame.t_ns) }
        lastFrame_ns = frame.t_ns
        guard let due = due_ns, frame.t_ns >= due else { return [] }
        if !done {
            done = true
            return place(frame, due: due)
        }
        guard let anchorId, frame.isTrackingNormal, let anchor = frame.session.userAnchor(id: anchorId) else { return [] }
        let T_C_W = frame.T_W_C.inverse
        let model = frame.camera.model
        let center_C = T_C_W.act(anchor.T_W_A.translation)
        guard center_C.z > 0.05, let centerPx = model.project(center_C), model.contains(centerPx) else { return [] }
        var record = record(frame, state: "inView", due: due, anchor: anchor)
        record.center_pixel = StreamJSON.array(centerPx)
        record.cut_pixels = rimPoints(anchor.T_W_A).map { end -> [[Double]] in
            var line: [[Double]] = []
            for i in 0..<Self.samplesPerCut {
                let s = Double(i) / Double(Self.samplesPerCut - 1)
                let p_C = T_C_W.act(anchor.T_W_A.translation + s * (end - anchor.T_W_A.translation))
                guard p_C.z > 0.05, let px = model.project(p_C) else { break }
                line.append(StreamJSON.array(px))
            }
            return line
        }
        return [record]
    }

    /// See `FrameConsumer.finish()`: a tap whose time never came is reported failed (at the last frame's time).
    public func finish() throws -> [any StreamRecord] {
        guard !done else { return [] }
        done = true
        let due: TimestampNs
        switch at { case let .absolute(t): due = t; case .relativeSeconds: due = due_ns ?? 0 }
        return [DivideRecord(t_ns: lastFrame_ns ?? due, state: "failed", reason: "the run ended before the tap's time", tap_t_ns: due,
                             tap_pixel: StreamJSON.array(tap), pieces: pieces, radius: radius_m)]
    }

    /// The tap frame: raycast onto a horizontal plane, place the anchor.
    private func place(_ frame: WorldFrame, due: TimestampNs) -> [any StreamRecord] {
        func failed(_ why: String) -> [any StreamRecord] {
            [DivideRecord(t_ns: frame.t_ns, state: "failed", reason: why, tap_t_ns: due, tap_pixel: StreamJSON.array(tap),
                          pieces: pieces, radius: radius_m)]
        }
        guard frame.isTrackingNormal else { return failed("tracking is not normal at the tap (\(frame.trackingState))") }
        guard frame.camera.model.contains(tap) else { return failed("the tap is outside the image") }
        guard let hit = frame.raycast(pixel: tap, preferring: [.existingPlaneGeometry], alignment: .horizontal),
              let planeId = hit.planeId else {
            return failed("no detected horizontal plane under the tap")
        }
        // The disc's frame: z along the plane's normal, x the camera's viewing direction along the plane.
        let n = hit.normal_W.normalized
        let view = hit.position_W - frame.T_W_C.translation
        var x = view - view.dot(n) * n
        if x.norm < 1e-6 {   // looking straight down: the camera's up-image direction (−y_C) along the plane
            let up = frame.T_W_C.rotation.act(Vec3(0, -1, 0))
            x = up - up.dot(n) * n
        }
        x = x.normalized
        let y = n.cross(x)
        let R = SO3(matrix: Mat3(columns: x, y, n))
        let event = frame.session.addAnchor(T_W_A: SE3(rotation: R, translation: hit.position_W), planeId: planeId,
                                            t_ns: frame.t_ns, name: "divide")
        guard case let .user(anchor) = event.anchor else { return failed("the anchor could not be placed") }
        anchorId = anchor.id
        self.planeId = planeId
        return [AnchorEventRecord(event, convention: convention), record(frame, state: "placed", due: due, anchor: anchor)]
    }

    /// The outer ends of the cuts for an anchor pose, W.
    private func rimPoints(_ T_W_A: SE3) -> [Vec3] {
        (0..<pieces).map { k in
            let a = 2 * Double.pi * Double(k) / Double(pieces)
            return T_W_A.act(Vec3(radius_m * cos(a), radius_m * sin(a), 0))
        }
    }

    private func record(_ frame: WorldFrame, state: String, due: TimestampNs, anchor: UserAnchor) -> DivideRecord {
        DivideRecord(t_ns: frame.t_ns, state: state, tap_t_ns: due, tap_pixel: StreamJSON.array(tap), pieces: pieces,
                     radius: radius_m, anchor_id: anchor.id, plane_id: anchor.planeId ?? planeId,
                     center: StreamJSON.array(convention.point(anchor.T_W_A.translation)),
                     normal: StreamJSON.array(convention.point(anchor.T_W_A.rotation.act(Vec3(0, 0, 1)))),
                     cut_ends: rimPoints(anchor.T_W_A).map { StreamJSON.array(convention.point($0)) })
    }
}
