import Foundation
import Geometry
import Imaging
import Sensors
import StreamFormat
import World

/// The JSON sidecar written next to each burst image (schema `worldtrack.burst/1`).
public struct BurstSidecar: Codable, Equatable {
    /// Sidecar schema identifier.
    public var schema = "worldtrack.burst/1"
    /// Frame time, ns.
    public var t_ns: TimestampNs
    /// Burst number and index within it.
    public var burst: Int, index: Int
    /// Image file name (in the same folder), if an image was saved.
    public var image: String?
    /// `T_world_camera`, 4×4 row-major (camera frame: x right, y down, z forward).
    public var T_world_camera: [Double]
    /// Camera position, world, metres.
    public var position: [Double]
    /// Camera orientation (w, x, y, z).
    public var orientation: [Double]
    /// Intrinsics and image size.
    public var intrinsics: Intrinsics
    /// Lens distortion.
    public var distortion: Distortion
    /// Tracking state string.
    public var tracking_state: String
    /// Anchors in view.
    public var anchors: [Anchor]

    /// Pinhole intrinsics, pixels.
    public struct Intrinsics: Codable, Equatable { public var fx, fy, cx, cy: Double; public var width, height: Int }
    /// Distortion model (`none`, `radial-tangential`: k1 k2 p1 p2, `equidistant`: k1…k4) and coefficients.
    public struct Distortion: Codable, Equatable { public var model: String; public var coefficients: [Double] }
    /// An anchor in view.
    public struct Anchor: Codable, Equatable {
        public var id: String, kind: String
        public var transform: [Double], pixel: [Double]
        public var classification: String?
    }
}

/// `burst:every=N,count=K[,start=T][,at=T1,T2,…],out=DIR`: from each trigger time (the first frame at or after it),
/// saves every N-th frame, K frames in all, as `DIR/frame_<t_ns>.png` plus `frame_<t_ns>.json`, and emits
/// `burst.captured`. Triggers: `start` (default: the first frame) and any `at` times (see `StreamTime`).
/// Never overwrites: `out` must be a new or empty folder (checked when the consumer is made, before the first frame).
public final class BurstConsumer: FrameConsumer {
    /// Spec name: `burst`.
    public let name = "burst"
    /// Frame conventions of the sidecars' poses.
    public var convention: StreamConvention = .worldtrack
    /// Writes an image to a path (PNG by default).
    public typealias ImageWriter = (GrayImage, String) throws -> Void

    private let every: Int, count: Int
    private let directory: String
    private let triggers: [StreamTime]
    private let imageWriter: ImageWriter
    private var pendingTriggers: [TimestampNs]?
    private var active: (burst: Int, frameCounter: Int, captured: Int)?
    private var burstsStarted = 0
    /// Paths written so far (images and sidecars).
    public private(set) var written: [String] = []

    /// A burst consumer; `triggers` empty means one burst from the first frame.
    public init(every: Int, count: Int, directory: String, triggers: [StreamTime] = [],
                imageWriter: @escaping ImageWriter = BurstConsumer.writePNG) throws {
        guard every > 0, count > 0 else {
            throw ConsumerError.badValue(consumer: "burst", key: every > 0 ? "count" : "every",
                                         value: String(every > 0 ? count : every), expected: "a positive integer")
        }
        self.every = every; self.count = count; self.directory = directory
        self.triggers = triggers.isEmpty ? [.relativeSeconds(0)] : triggers
        self.imageWriter = imageWriter
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDir) {
            guard isDir.boolValue else { throw ConsumerError.badFile(path: directory, reason: "exists and is not a folder") }
            // Checked now, before the first frame: a burst never overwrites, so a used folder would stop the run later.
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            guard entries.isEmpty else {
                throw ConsumerError.badFile(path: directory, reason: "burst output folder is not empty (\(entries.count) entr\(entries.count == 1 ? "y" : "ies")); bursts never overwrite: choose a new or empty folder")
            }
            let probe = (directory as NSString).appendingPathComponent(".worldtrack-write-check-\(getpid())")
            guard FileManager.default.createFile(atPath: probe, contents: nil) else {
                throw ConsumerError.badFile(path: directory, reason: "cannot write in this folder")
            }
            try? FileManager.default.removeItem(atPath: probe)
        } else {
            do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
                throw ConsumerError.badFile(path: directory, reason: "cannot create folder (\(error.localizedDescription))")
            }
        }
    }

    /// Builds from a spec (`out` required; `every` default 1, `count` default 10; `start`, `at` optional).
    public convenience init(spec: ConsumerSpec, imageWriter: @escaping ImageWriter = BurstConsumer.writePNG) throws {
        try spec.checkKeys(allowed: ["every", "count", "start", "at", "out"])
        // Values first, so a bad one is reported as such even when `out` is missing too.
        let every = try spec.positiveInt("every") ?? 1, count = try spec.positiveInt("count") ?? 10
        let start = try spec.times("start") ?? []
        guard start.count <= 1 else {
            throw ConsumerError.badValue(consumer: "burst", key: "start", value: spec.values("start")!.joined(separator: ","),
                                         expected: "one time (use at=T1,T2,… for several)")
        }
        let at = try spec.times("at") ?? []
        guard let out = try spec.single("out"), !out.isEmpty else { throw ConsumerError.missingKey(consumer: "burst", key: "out") }
        try self.init(every: every, count: count, directory: out, triggers: start + at, imageWriter: imageWriter)
    }

    /// The default image writer: PNG through Imaging's codec.
    public static func writePNG(_ image: GrayImage, to path: String) throws {
        try ImageCodec.writePNG(image, to: path)
    }

    /// See `FrameConsumer.consume(_:)`.
    public func consume(_ frame: WorldFrame) throws -> [any StreamRecord] {
        if pendingTriggers == nil { pendingTriggers = triggers.map { $0.resolve(firstFrame: frame.t_ns) }.sorted() }
        if active == nil, let next = pendingTriggers?.first, frame.t_ns >= next {
            pendingTriggers?.removeFirst()
            active = (burstsStarted, 0, 0)
            burstsStarted += 1
        }
        guard var a = active else { return [] }
        var out: [any StreamRecord] = []
        if a.frameCounter % every == 0 {
            out.append(try capture(frame, burst: a.burst, index: a.captured))
            a.captured += 1
        }
        a.frameCounter += 1
        active = a.captured >= count ? nil : a
        return out
    }

    /// See `FrameConsumer.finish()`.
    public func finish() throws -> [any StreamRecord] { [] }

    private func capture(_ frame: WorldFrame, burst: Int, index: Int) throws -> BurstCapturedRecord {
        let base = (directory as NSString).appendingPathComponent("frame_\(frame.t_ns)")
        let pngPath = base + ".png", jsonPath = base + ".json"
        for p in [pngPath, jsonPath] where FileManager.default.fileExists(atPath: p) { throw ConsumerError.fileExists(path: p) }
        var imageName: String?
        if let img = frame.image {
            try imageWriter(img, pngPath)
            written.append(pngPath)
            imageName = (pngPath as NSString).lastPathComponent
        }
        let m = frame.camera.model
        let T_C = convention.cameraPose(frame.T_W_C)
        let sidecar = BurstSidecar(
            t_ns: frame.t_ns, burst: burst, index: index, image: imageName,
            T_world_camera: StreamJSON.matrix(T_C), position: StreamJSON.array(T_C.translation),
            orientation: StreamJSON.quaternion(T_C.rotation),
            intrinsics: .init(fx: m.intrinsics.fx, fy: m.intrinsics.fy, cx: m.intrinsics.cx, cy: m.intrinsics.cy,
                              width: m.width, height: m.height),
            distortion: .init(model: m.distortion.yamlName, coefficients: m.distortion.coefficients),
            tracking_state: frame.trackingState.description,
            anchors: frame.anchorsInView.map {
                .init(id: $0.id, kind: $0.kind.rawValue, transform: StreamJSON.matrix(convention.surfacePose($0.T_W_A)),
                      pixel: StreamJSON.array($0.pixel), classification: $0.classification?.rawValue)
            })
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        do {
            try enc.encode(sidecar).write(to: URL(fileURLWithPath: jsonPath), options: .withoutOverwriting)
        } catch {
            if FileManager.default.fileExists(atPath: jsonPath) && !written.contains(jsonPath) {
                throw ConsumerError.fileExists(path: jsonPath)
            }
            throw ConsumerError.badFile(path: jsonPath, reason: "cannot write (\(error.localizedDescription))")
        }
        written.append(jsonPath)
        return BurstCapturedRecord(t_ns: frame.t_ns, burst: burst, index: index,
                                   image: imageName == nil ? nil : pngPath, sidecar: jsonPath)
    }
}
