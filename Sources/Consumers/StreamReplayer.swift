import Foundation
import Sensors
import World

/// Why a recorded stream cannot be replayed: the line and what is wrong with it.
public struct StreamReplayError: Error, CustomStringConvertible {
    /// What is wrong, starting with the line number.
    public let description: String
    /// An error with its message.
    public init(_ description: String) { self.description = description }
}

/// Drives the world layer and consumers from a recorded stream, without re-tracking (`worldtrack replay`).
///
/// The stream must carry a `world_input` record after every `frame` record (`worldtrack run --stream-world-input`):
/// the exact poses, landmarks and calibration the live run's world layer received. The replayer feeds them to a
/// fresh ``WorldSession`` (with the live run's ``WorldOptions``), so planes, anchors and raycasts are the live
/// run's bit for bit, and hands the resulting ``WorldFrame`` to the consumers.
///
/// Output: the stream a live run with these consumers writes. Per frame: the recorded `frame` record with its
/// `anchors` (anchors in view) made again, since the replay's consumers may place anchors; the recorded
/// `world_input` record; the anchor records of the replay's world layer; the consumers' records. Then the
/// consumers' final records. Records of the live run's own consumers (and their user anchors) are not re-emitted:
/// the replay runs the consumers it is given. So a stream recorded without consumers and replayed with them
/// equals, byte for byte, the stream of a live run with those consumers.
///
/// The plane records the replay's world layer makes are checked against the recorded ones: a difference means the
/// world options differ from the live run's (``anchorMismatches``).
public final class StreamReplayer {
    private let session: WorldSession
    private let consumers: [any FrameConsumer]
    private let convention: StreamConvention
    private let encoder: JSONEncoder
    private let decoder = JSONDecoder()
    /// Writes one line (without its newline).
    private let emit: (Data) throws -> Void

    private var frame: FrameRecord?
    private var frameLine = 0
    private var lastFrame_ns: TimestampNs?
    private var hasInput = false
    private var recordedPlaneEvents: [Data] = []
    private var replayedPlaneEvents: [Data] = []
    private var camera: CameraCalibration?

    /// Frames replayed so far.
    public private(set) var frames = 0
    /// Frames whose plane records, made again by the replay's world layer, differ from the recorded ones.
    public private(set) var anchorMismatches = 0
    /// Time of the first such frame, ns.
    public private(set) var firstMismatch_ns: TimestampNs?
    /// Called with each frame's time before it is replayed (for pacing).
    public var beforeFrame: ((TimestampNs) -> Void)?

    /// A replayer feeding `consumers` through a world layer with `worldOptions`; `emit` writes one output line
    /// (without its newline). `convention` is the recorded stream's (the consumers must be made with the same).
    public init(worldOptions: WorldOptions, consumers: [any FrameConsumer], convention: StreamConvention = .worldtrack,
                emit: @escaping (Data) throws -> Void) {
        session = WorldSession(options: worldOptions)
        self.convention = convention
        self.consumers = consumers
        self.emit = emit
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    /// Handles one line of the recorded stream (without its newline); `number` (1-based) is for messages.
    public func feed(line: Data, number: Int) throws {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { return }
        let header: StreamRecordHeader
        do { header = try decoder.decode(StreamRecordHeader.self, from: line) } catch {
            throw StreamReplayError("line \(number): not a stream record (a JSON object with type, t_ns and schema): \(Self.reason(error))")
        }
        guard header.schema == StreamSchema.version else {
            throw StreamReplayError("line \(number): schema '\(header.schema)' is not \(StreamSchema.version)")
        }
        switch header.type {
        case FrameRecord.recordType:
            try endFrame()
            guard lastFrame_ns.map({ header.t_ns > $0 }) ?? true else {
                throw StreamReplayError("line \(number): frame at t_ns \(header.t_ns) is not after the previous frame")
            }
            do { frame = try decoder.decode(FrameRecord.self, from: line) } catch {
                throw StreamReplayError("line \(number): frame: \(Self.reason(error))")
            }
            lastFrame_ns = header.t_ns; frameLine = number; hasInput = false
        case WorldInputRecord.recordType:
            guard let frame, frame.t_ns == header.t_ns, !hasInput else {
                throw StreamReplayError("line \(number): a world_input record must follow its frame record (same t_ns), once")
            }
            let record: WorldInputRecord
            do { record = try decoder.decode(WorldInputRecord.self, from: line) } catch {
                throw StreamReplayError("line \(number): world_input: \(Self.reason(error))")
            }
            hasInput = true
            try replay(record, frame: frame, line: line, number: number)
        default:
            guard frame != nil else {
                throw StreamReplayError("line \(number): a \(header.type) record before the first frame record")
            }
            if AnchorEventRecord.recordTypes.contains(header.type) {
                let event: AnchorEventRecord
                do { event = try decoder.decode(AnchorEventRecord.self, from: line) } catch {
                    throw StreamReplayError("line \(number): \(header.type): \(Self.reason(error))")
                }
                if event.kind == AnchorKind.plane.rawValue { recordedPlaneEvents.append(line) }
            }
        }
    }

    /// Ends the replay: checks the last frame and writes the consumers' final records.
    public func finish() throws {
        try endFrame()
        for record in try consumers.flatMap({ try $0.finish() }) { try emit(try encoder.encode(record)) }
    }

    private func replay(_ record: WorldInputRecord, frame recorded: FrameRecord, line: Data, number: Int) throws {
        let world: WorldFrame
        do {
            if let c = record.camera { camera = try c.calibration() }
            guard let camera else {
                throw WorldInputRecordError("no camera calibration yet (the first world_input record carries it)")
            }
            let input = try record.worldFrameInput(camera: camera)
            beforeFrame?(record.t_ns)
            world = session.process(input)
        } catch let error as WorldInputRecordError {
            throw StreamReplayError("line \(number): world_input: \(error.description)")
        }
        var frameRecord = recorded
        frameRecord.anchors = world.anchorsInView.map { AnchorInViewJSON($0, convention: convention) }
        try emit(try encoder.encode(frameRecord))
        try emit(line)
        for event in world.events {
            let data = try encoder.encode(AnchorEventRecord(event, convention: convention))
            if case .plane = event.anchor { replayedPlaneEvents.append(data) }
            try emit(data)
        }
        for c in consumers {
            for r in try c.consume(world) { try emit(try encoder.encode(r)) }
        }
        frames += 1
    }

    private func endFrame() throws {
        guard let frame else { return }
        guard hasInput else {
            throw StreamReplayError("line \(frameLine): the frame at t_ns \(frame.t_ns) has no world_input record; replay needs a stream recorded with `worldtrack run --stream-world-input`")
        }
        if recordedPlaneEvents != replayedPlaneEvents {
            anchorMismatches += 1
            if firstMismatch_ns == nil { firstMismatch_ns = frame.t_ns }
        }
        recordedPlaneEvents.removeAll(); replayedPlaneEvents.removeAll()
        self.frame = nil
    }

    private static func reason(_ error: Error) -> String {
        switch error {
        case let DecodingError.keyNotFound(key, _): return "missing field '\(key.stringValue)'"
        case let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context):
            return "wrong type at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
        case let DecodingError.dataCorrupted(context): return context.debugDescription
        default: return "\(error)"
        }
    }
}
