import Foundation
import Geometry
import Imaging
import Sensors
import StreamFormat
import World

/// `object:box=X,Y,W,H,at=T[,name=N]`: tracks the image box (top-left X, Y; size W×H pixels) chosen at the first
/// frame at or after T through the following frames, and lifts its centre to 3-D by raycasting onto planes and
/// landmarks (like Vision's object tracking on a recorded movie, with a world position added).
///
/// The 2-D tracker is OpenCV contrib's CSRT (``ObjectTracker``). Each frame the box's pixels are compared with the
/// first frame's (normalised cross-correlation, scaled to the box): below ``Options/minConfidence``, or with the box
/// leaving the image, the object is `lost`. While lost, its last 3-D position is projected into each frame and the
/// first frame's pixels are searched for around it (scaled by the change in depth); a match above
/// ``Options/recoverConfidence`` restarts the tracker there (`recovered`).
public final class ObjectConsumer: FrameConsumer {
    /// Thresholds of the tracker's confidence.
    public struct Options: Equatable, Sendable {
        /// A found box whose correlation with the first frame's pixels is below this is `lost`.
        public var minConfidence = 0.5
        /// A re-detection is accepted at this correlation or above.
        public var recoverConfidence = 0.7
        /// The re-detection search extends this many box sizes beyond the predicted box on each side.
        public var searchMargin = 1.0
        /// Defaults.
        public init() {}
    }

    /// Spec name: `object`.
    public let name = "object"
    /// Frame conventions of the records' positions.
    public var convention: StreamConvention = .worldtrack
    /// The thresholds.
    public var options = Options()

    private let initialBox: PixelBox
    private let at: StreamTime
    private let objectName: String
    private var due_ns: TimestampNs?
    private var started = false
    private var tracker: ObjectTracker?
    private var template: GrayImage?
    /// The object's depth and box size in the frame its first 3-D position was found: re-detection scales the
    /// first frame's pixels by their ratio to the predicted depth.
    private var reference: (depth_m: Double, width: Double, height: Double)?
    private var position_W: Vec3?
    private var lastFrame_ns: TimestampNs?

    /// An object chosen as `box` at time `at`.
    public init(box: PixelBox, at: StreamTime, name: String = "object") {
        initialBox = box; self.at = at; objectName = name
    }

    /// Builds from a spec: `box=X,Y,W,H` and `at=T` required, `name=N` optional.
    public convenience init(spec: ConsumerSpec) throws {
        try spec.checkKeys(allowed: ["box", "at", "name"])
        guard let boxValues = spec.values("box") else { throw ConsumerError.missingKey(consumer: "object", key: "box") }
        let v = boxValues.compactMap { Double($0) }
        guard boxValues.count == 4, v.count == 4, v.allSatisfy({ $0.isFinite }), v[0] >= 0, v[1] >= 0, v[2] >= 4, v[3] >= 4 else {
            throw ConsumerError.badValue(consumer: "object", key: "box", value: boxValues.joined(separator: ","),
                                         expected: "X,Y,W,H in pixels (top-left corner ≥ 0, size ≥ 4×4)")
        }
        guard let at = try spec.singleTime("at") else { throw ConsumerError.missingKey(consumer: "object", key: "at") }
        let name = try spec.single("name") ?? "object"
        guard !name.isEmpty else {
            throw ConsumerError.badValue(consumer: "object", key: "name", value: name, expected: "a non-empty name")
        }
        self.init(box: PixelBox(x: v[0], y: v[1], width: v[2], height: v[3]), at: at, name: name)
    }

    /// See `FrameConsumer.consume(_:)`.
    public func consume(_ frame: WorldFrame) throws -> [any StreamRecord] {
        if due_ns == nil { due_ns = at.resolve(firstFrame: frame.t_ns) }
        lastFrame_ns = frame.t_ns
        guard let due = due_ns, frame.t_ns >= due else { return [] }
        guard let image = frame.image else {
            throw ConsumerError.badFile(path: "object", reason: "the object consumer needs the frames' images")
        }
        if !started {
            started = true
            return [try start(frame, image: image)]
        }
        if let tracker {
            if let box = try tracker.update(image), box.isInside(width: image.width, height: image.height),
               let score = try confidence(of: box, in: image), score >= options.minConfidence {
                return [found(frame, box: box, score: score, state: "tracked")]
            }
            self.tracker = nil
            return [lost(frame)]
        }
        guard template != nil else { return [] }  // never started
        if let (box, score) = try redetect(frame, image: image) {
            self.tracker = try ObjectTracker(image: image, box: box)
            return [found(frame, box: box, score: score, state: "recovered")]
        }
        return [lost(frame)]
    }

    /// See `FrameConsumer.finish()`: a box whose time never came is reported failed.
    public func finish() throws -> [any StreamRecord] {
        guard !started else { return [] }
        started = true
        return [ObjectRecord(t_ns: lastFrame_ns ?? 0, name: objectName, state: "failed",
                             reason: "the run ended before the box's time")]
    }

    private func start(_ frame: WorldFrame, image: GrayImage) throws -> ObjectRecord {
        guard initialBox.isInside(width: image.width, height: image.height), let patch = image.crop(initialBox) else {
            return ObjectRecord(t_ns: frame.t_ns, name: objectName, state: "failed",
                                reason: "the box is not inside the \(image.width)×\(image.height) image")
        }
        template = patch
        tracker = try ObjectTracker(image: image, box: initialBox)
        return found(frame, box: initialBox, score: 1, state: "tracked")
    }

    /// Correlation of a box's pixels with the first frame's; nil when the box is too small to compare.
    private func confidence(of box: PixelBox, in image: GrayImage) throws -> Double? {
        guard let template else { return nil }
        let w = Int(box.width.rounded()), h = Int(box.height.rounded())
        guard w >= 4, h >= 4 else { return nil }
        let search = PixelBox(x: box.x.rounded(), y: box.y.rounded(), width: Double(w), height: Double(h))
        guard search.isInside(width: image.width, height: image.height) else { return nil }
        return try TemplateMatcher.bestMatch(of: template, scaledTo: w, h, in: image, search: search).score
    }

    /// While lost: the first frame's pixels searched for around the projection of the last 3-D position.
    private func redetect(_ frame: WorldFrame, image: GrayImage) throws -> (PixelBox, Double)? {
        guard frame.isTrackingNormal, let template, let p_W = position_W, let reference else { return nil }
        let p_C = frame.T_W_C.inverse.act(p_W)
        guard p_C.z > 0.1, let px = frame.camera.model.project(p_C) else { return nil }
        let scale = reference.depth_m / p_C.z
        let w = Int((reference.width * scale).rounded()), h = Int((reference.height * scale).rounded())
        guard w >= 8, h >= 8, w < image.width / 2, h < image.height / 2 else { return nil }
        let predicted = PixelBox(centerX: px.x, centerY: px.y, width: Double(w), height: Double(h))
        guard predicted.isInside(width: image.width, height: image.height) else { return nil }
        let m = options.searchMargin
        let search = PixelBox(x: predicted.x - m * predicted.width, y: predicted.y - m * predicted.height,
                              width: predicted.width * (1 + 2 * m), height: predicted.height * (1 + 2 * m))
        let match = try TemplateMatcher.bestMatch(of: template, scaledTo: w, h, in: image, search: search)
        return match.score >= options.recoverConfidence ? (match.box, match.score) : nil
    }

    private func found(_ frame: WorldFrame, box: PixelBox, score: Double, state: String) -> ObjectRecord {
        var record = ObjectRecord(t_ns: frame.t_ns, name: objectName, state: state,
                                  box: [box.x, box.y, box.width, box.height], confidence: score)
        if let hit = frame.raycast(pixel: Vec2(box.centerX, box.centerY)) {
            position_W = hit.position_W
            record.target = hit.target.rawValue
            let depth = frame.T_W_C.inverse.act(hit.position_W).z
            if reference == nil, depth > 0.1 { reference = (depth, box.width, box.height) }
        }
        record.position = position_W.map { StreamJSON.array(convention.point($0)) }
        return record
    }

    private func lost(_ frame: WorldFrame) -> ObjectRecord {
        ObjectRecord(t_ns: frame.t_ns, name: objectName, state: "lost",
                     position: position_W.map { StreamJSON.array(convention.point($0)) })
    }
}
