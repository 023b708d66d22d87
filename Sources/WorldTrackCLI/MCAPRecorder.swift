import Consumers
import Foundation
import Geometry
import Imaging
import MCAP
import Pipeline
import Sensors
import World

/// Records a run into an MCAP file for Foxglove (`run --mcap FILE`; channels, schemas and frames: docs/MCAP.md).
///
/// It has two inputs. Every stream record with its JSON line (`receive`, hooked to the run's `StreamWriter.onLine`,
/// so consumers' last records after the final frame arrive too) gives: the record unchanged on a channel of its
/// type, the transforms world → body → camera (from `frame` records), planes and user anchors as scene entities
/// (from `anchor.*` records), tracking-state changes as log lines. Every frame the pipeline produced (`record`,
/// hooked to `onFrame`) gives the camera image (the dataset's PNG bytes, unchanged) and, once a second of data
/// time, the trajectory so far and the landmark map (they grow, and are re-sent whole). Times are the records'
/// `t_ns`, so the file depends on the input alone. It only reads what the pipeline produced: the stream is the
/// same with or without it.
final class MCAPRecorder {
    /// What to record.
    struct Options {
        /// Record every N-th frame's image (1: every frame; 0: no images). Every second frame by default: an image
        /// is ~0.3 MB of base64 at 752×480, and every frame costs ~10 % of a run's CPU time (docs/MCAP.md).
        var imageEvery = 2
        /// Data time between two trajectory / landmark-map messages, ns (each is re-sent whole: the cost grows
        /// with the square of the run's length, so they are sent once a second, with a pose every 0.2 s).
        var throttle_ns: Int64 = 1_000_000_000
        /// Poses closer in time than this are not added to the trajectory message, ns.
        var trajectorySpacing_ns: Int64 = 200_000_000
        /// MCAP chunk size, bytes.
        var chunkSize = 1 << 20
    }

    /// Topics of the channels made at the start (consumer records get `/worldtrack/<type>` when they first occur).
    enum Topic {
        static let image = "/cam0/image", calibration = "/cam0/calibration", transforms = "/tf", trajectory = "/worldtrack/trajectory"
        static let landmarks = "/worldtrack/landmarks", planes = "/worldtrack/planes", anchors = "/worldtrack/anchors"
        static let log = "/worldtrack/log", frame = "/worldtrack/frame", anchorEvents = "/worldtrack/anchor_events"
    }

    let path: String
    /// The first error (after which nothing more is recorded); the file then ends at its last complete chunk.
    private(set) var error: String?
    /// Images that could not be read back from the dataset (not recorded).
    private(set) var skippedImages = 0

    private let writer: MCAPWriter
    private let options: Options
    private let cameraFrame: String
    private let cameraModel: CameraModel
    private let imagePaths: [Int64: String]
    private let encoder = JSONEncoder()
    private var channels: [String: UInt16] = [:]
    private var frameIndex = 0
    private var lastState: String?
    private var trajectory: [Foxglove.Pose] = []
    private var lastPoseT: Int64?
    private var lastThrottledT: Int64?
    private var pendingThrottled = false
    private var lastT: Int64 = 0
    private var session: WorldSession?
    private var schemaIDs: [String: UInt16] = [:]
    private var calibrationTemplate: [[UInt8]] = []   // the calibration's JSON before and after its timestamp

    /// Creates the file (refusing an existing one unless `replace`) and its channels.
    /// - Parameters:
    ///   - camera: cam0's calibration (its name is its frame in the file, e.g. `cam0`).
    ///   - imagePaths: cam0's image file by frame time.
    /// - Throws: `CLIError.badInput` naming `--mcap` and the path when the file cannot be created.
    init(path: String, replace: Bool, camera: CameraCalibration, imagePaths: [Int64: String], options: Options) throws {
        self.path = path; self.options = options; cameraFrame = camera.name; cameraModel = camera.model
        self.imagePaths = imagePaths
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var writerOptions = MCAPWriter.Options()
        writerOptions.chunkSize = options.chunkSize
        do {
            writer = try MCAPWriter(path: path, replace: replace, options: writerOptions)
        } catch let MCAPError.cannotCreate(_, reason, exists) {
            throw CLIError.badInput("--mcap \(path): cannot create the file: \(exists ? "exists; pass --force to replace it" : reason)")
        }
        do {
            if options.imageEvery > 0 {
                try addChannel(Topic.image, FoxgloveSchemas.compressedImage)
                try addChannel(Topic.calibration, FoxgloveSchemas.cameraCalibration)
            }
            try addChannel(Topic.transforms, FoxgloveSchemas.frameTransforms)
            try addChannel(Topic.trajectory, FoxgloveSchemas.posesInFrame)
            try addChannel(Topic.landmarks, FoxgloveSchemas.pointCloud)
            try addChannel(Topic.planes, FoxgloveSchemas.sceneUpdate)
            try addChannel(Topic.anchors, FoxgloveSchemas.sceneUpdate)
            try addChannel(Topic.log, FoxgloveSchemas.log)
            try addChannel(Topic.frame, FoxgloveSchemas.streamRecord("frame", required: ["tracking_state", "T_world_camera", "body_position"]))
            try addChannel(Topic.anchorEvents, FoxgloveSchemas.streamRecord("anchor", required: ["id", "kind", "transform"]))
        } catch {
            throw CLIError.failure("--mcap \(path): \(error)")
        }
    }

    /// Records one stream record, `line` being its JSON (as streamed). Never throws: the first failure is kept in
    /// `error` (the run checks it before each frame).
    func receive(_ record: any StreamRecord, line: Data) {
        guard error == nil else { return }
        do {
            switch record {
            case let r as FrameRecord:
                try publish(Topic.frame, r.t_ns, line)
                try writeFrame(r)
            case let r as AnchorEventRecord:
                try publish(Topic.anchorEvents, r.t_ns, line)
                try publish(r.kind == "plane" ? Topic.planes : Topic.anchors, r.t_ns, FoxgloveScene.update(r))
            default:
                try writeConsumerRecord(record, line: line)
            }
        } catch {
            self.error = "\(error)"
        }
    }

    /// Records what one frame adds beyond its stream records: the image, the trajectory's pose, and (throttled)
    /// the trajectory and landmark-map messages. Never throws (see `receive`).
    func record(_ frame: PipelineFrameResult) {
        guard error == nil else { return }
        do { try write(frame) } catch {
            self.error = "\(error)"
        }
    }

    /// Sends the last trajectory and landmark map if they changed since they were last sent, then writes the
    /// summary and closes the file. Returns the first error, if any.
    @discardableResult
    func close() -> String? {
        if error == nil {
            do {
                if pendingThrottled { try writeThrottled(t_ns: lastT) }
                try writer.close()
            } catch {
                self.error = "\(error)"
            }
        }
        return error
    }

    /// Messages and bytes written (for the run's last lines).
    var summary: String {
        String(format: "%llu messages, %.1f MB", writer.messageCount, Double(writer.bytesWritten) / 1e6)
    }

    private func write(_ frame: PipelineFrameResult) throws {
        let t = frame.world.t_ns
        lastT = t
        if options.imageEvery > 0 && frameIndex % options.imageEvery == 0 {
            try writeImage(frame)
            // The calibration is the same every time but for its timestamp: encoded once, the time spliced in.
            if calibrationTemplate.isEmpty {
                let json = Array(try encoder.encode(Foxglove.CameraCalibration(t_ns: 0, frame: cameraFrame, cameraModel)))
                let zero = Array(#"{"nsec":0,"sec":0}"#.utf8)
                guard let at = (0...(json.count - zero.count)).first(where: { json[$0..<$0 + zero.count].elementsEqual(zero) }) else {
                    throw CLIError.failure("--mcap: the calibration's JSON has no timestamp")
                }
                calibrationTemplate = [Array(json[..<at]), Array(json[(at + zero.count)...])]
            }
            let time = Foxglove.Time(t)
            try publish(Topic.calibration, t,
                        calibrationTemplate[0] + Array(#"{"nsec":\#(time.nsec),"sec":\#(time.sec)}"#.utf8) + calibrationTemplate[1])
        }
        frameIndex += 1
        let T_W_B = frame.world.T_W_B
        if TrackingPipeline.isUsable(frame.estimate.trackingState), T_W_B.translation.isFinite,
           lastPoseT.map({ t - $0 >= options.trajectorySpacing_ns }) ?? true {
            trajectory.append(Foxglove.Pose(T_W_B))
            lastPoseT = t
        }
        session = frame.world.session
        pendingThrottled = true
        if lastThrottledT.map({ t - $0 >= options.throttle_ns }) ?? true { try writeThrottled(t_ns: t) }
    }

    /// The tracking state's log line when it changed, and the transforms world → body (the stream's body pose,
    /// as it is) and body → camera (T_B_C = T_W_B⁻¹ · T_world_camera: the mounting, refined or not).
    private func writeFrame(_ r: FrameRecord) throws {
        let t = r.t_ns
        if r.tracking_state != lastState {
            lastState = r.tracking_state
            try publish(Topic.log, t, FoxgloveScene.trackingLog(t_ns: t, state: r.tracking_state))
        }
        guard (r.body_position + r.body_orientation + r.T_world_camera).allSatisfy(\.isFinite) else { return }
        let T_W_B = SE3(rotation: SO3(Quaternion(w: r.body_orientation[0], x: r.body_orientation[1], y: r.body_orientation[2],
                                                 z: r.body_orientation[3])),
                        translation: Vec3(r.body_position[0], r.body_position[1], r.body_position[2]))
        var worldBody = Foxglove.FrameTransform(t_ns: t, parent: FoxgloveScene.worldFrame, child: "body", T_W_B)
        worldBody.translation = Foxglove.Vector3(r.body_position)
        worldBody.rotation = Foxglove.Quaternion(wxyz: r.body_orientation)
        let bodyCamera = Foxglove.FrameTransform(t_ns: t, parent: "body", child: cameraFrame,
                                                 T_W_B.inverse * SE3(rowMajor4x4: r.T_world_camera))
        try publish(Topic.transforms, t, Foxglove.frameTransformsJSON([worldBody, bodyCamera]))
    }

    /// A consumer's record, unchanged, on `/worldtrack/<type>` (cursor, measurement, burst.captured, plug-ins' types).
    private func writeConsumerRecord(_ record: any StreamRecord, line: Data) throws {
        let topic = "/worldtrack/" + record.type.replacingOccurrences(of: ".", with: "_")
        if channels[topic] == nil {
            let required: [String: [String]] = ["cursor": ["state"], "measurement": ["tap_t_ns", "status", "points", "segments"],
                                                "burst.captured": ["burst", "index", "sidecar"]]
            if let fields = required[record.type] {
                try addChannel(topic, FoxgloveSchemas.streamRecord(record.type, required: fields))
            } else {
                channels[topic] = try writer.addChannel(topic: topic, messageEncoding: "json", schemaID: 0)
            }
        }
        try publish(topic, record.t_ns, line)
    }

    /// The trajectory so far and the world's landmark map (in id order).
    private func writeThrottled(t_ns t: Int64) throws {
        try publish(Topic.trajectory, t, Foxglove.PosesInFrame(timestamp: Foxglove.Time(t), frame_id: FoxgloveScene.worldFrame, poses: trajectory))
        let map = (session?.map.all ?? []).sorted { $0.id < $1.id }.map(\.p_W)
        try publish(Topic.landmarks, t, Foxglove.PointCloud(t_ns: t, frame: FoxgloveScene.worldFrame, points: map))
        lastThrottledT = t
        pendingThrottled = false
    }

    /// cam0's image: the dataset's file bytes when they are PNG or JPEG (no re-encoding), else the decoded
    /// image encoded as PNG.
    private func writeImage(_ frame: PipelineFrameResult) throws {
        let t = frame.world.t_ns
        guard let path = imagePaths[t], var bytes = try? Data(contentsOf: URL(fileURLWithPath: path)) else {
            skippedImages += 1
            return
        }
        let format: String
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            format = "png"
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            format = "jpeg"
        } else if let image = frame.world.image {
            (format, bytes) = ("png", Data(try ImageCodec.encodePNG(image)))
        } else {
            skippedImages += 1
            return
        }
        let (head, tail) = Foxglove.compressedImageJSON(t_ns: t, frame: cameraFrame, format: format)
        let base64Count = Base64.encodedCount(bytes.count)
        try writer.write(channel: channels[Topic.image]!, logTime_ns: t, count: head.count + base64Count + tail.count) { out in
            out.copyBytes(from: head)
            bytes.withUnsafeBytes { Base64.encode($0, into: UnsafeMutableRawBufferPointer(rebasing: out[head.count..<head.count + base64Count])) }
            UnsafeMutableRawBufferPointer(rebasing: out[(head.count + base64Count)...]).copyBytes(from: tail)
        }
    }

    private func addChannel(_ topic: String, _ schema: FoxgloveSchemas.Document) throws {
        let id = try schemaIDs[schema.name] ?? writer.addSchema(name: schema.name, encoding: "jsonschema", data: schema.json)
        schemaIDs[schema.name] = id
        channels[topic] = try writer.addChannel(topic: topic, messageEncoding: "json", schemaID: id)
    }

    private func publish(_ topic: String, _ t_ns: Int64, _ message: some Encodable) throws {
        try publish(topic, t_ns, try encoder.encode(message))
    }

    private func publish(_ topic: String, _ t_ns: Int64, _ json: Data) throws {
        try json.withUnsafeBytes { try writer.write(channel: channels[topic]!, logTime_ns: t_ns, data: $0) }
    }

    private func publish(_ topic: String, _ t_ns: Int64, _ json: [UInt8]) throws {
        try writer.write(channel: channels[topic]!, logTime_ns: t_ns, data: json)
    }
}
