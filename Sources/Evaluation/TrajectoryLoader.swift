import Foundation
import Geometry
import Sensors
import StreamFormat

/// The formats of trajectory input the evaluator reads, told apart by content.
public enum TrajectoryFormat: String, Sendable, Codable {
    /// TUM: `t x y z qx qy qz qw`, seconds.
    case tum
    /// ASL ground truth CSV: `t_ns, p, q wxyz[, v, b_w, b_a]`.
    case aslGroundTruth = "asl"
    /// WorldTrack's JSON-Lines stream (`worldtrack run`): records with `"type":"frame"`.
    case worldTrackStream = "jsonl"
}

/// A trajectory read for evaluation, with what was learnt on the way.
public struct LoadedTrajectory: Sendable {
    /// The file actually read (the ground-truth CSV inside a dataset folder).
    public var path: String
    /// The detected format.
    public var format: TrajectoryFormat
    /// Poses `T_W_B`, strictly increasing in time.
    public var poses: [StampedPose]
    /// Stream frames skipped because tracking was not available or limited.
    public var skippedFrames: Int
    /// Notes for the user (fallbacks taken).
    public var warnings: [String]
}

/// An error reading evaluation input; every case names the file (and line when there is one).
public enum TrajectoryLoadError: Error, Equatable, CustomStringConvertible {
    /// A folder without `mav0/state_groundtruth_estimate0/data.csv`.
    case noGroundTruthInFolder(path: String)
    /// A stream line that is not a usable frame record.
    case badRecord(path: String, line: Int, reason: String)
    /// The input held no usable pose.
    case noPoses(path: String, reason: String)
    /// A TUM/ASL file error.
    case file(TrajectoryFileError)

    public var description: String {
        switch self {
        case .noGroundTruthInFolder(let p):
            return "\(p): a folder, but no ground truth at mav0/state_groundtruth_estimate0/data.csv (give the dataset root or the CSV)"
        case .badRecord(let p, let l, let r): return PrintableText.escape("\(p):\(l): \(r)")
        case .noPoses(let p, let r): return "\(p): no usable poses (\(r))"
        case .file(let e): return e.description
        }
    }
}

/// Reads estimates and ground truth in any of ``TrajectoryFormat``, detecting the format by content.
public enum TrajectoryLoader {
    /// Loads a trajectory file, or the ground truth of an ASL dataset folder
    /// (`DATASET/mav0/state_groundtruth_estimate0/data.csv`, else TUM-VI's `mav0/mocap0/data.csv`; the `mav0`
    /// folder itself is accepted too).
    ///
    /// - Parameter includeLimited: keep stream frames whose tracking state is `limited…`
    ///   (`notAvailable` frames are always skipped).
    public static func load(path: String, includeLimited: Bool = false) throws -> LoadedTrajectory {
        let file = try resolve(path)
        let text: String
        do { text = try TrajectoryFile.readText(file) } catch let e as TrajectoryFileError { throw TrajectoryLoadError.file(e) }
        return try parse(text, source: file, includeLimited: includeLimited)
    }

    /// Parses text of any supported format; `source` names it in errors.
    public static func parse(_ text: String, source: String, includeLimited: Bool = false) throws -> LoadedTrajectory {
        let format = detectFormat(text)
        do {
            switch format {
            case .tum:
                return LoadedTrajectory(path: source, format: .tum, poses: try TrajectoryFile.parseTUM(text, source: source),
                                        skippedFrames: 0, warnings: [])
            case .aslGroundTruth:
                let states = try TrajectoryFile.parseASLGroundTruth(text, source: source)
                return LoadedTrajectory(path: source, format: .aslGroundTruth,
                                        poses: states.map { StampedPose(t_ns: $0.t_ns, pose: $0.T_W_B) },
                                        skippedFrames: 0, warnings: [])
            case .worldTrackStream:
                return try parseStream(text, source: source, includeLimited: includeLimited)
            }
        } catch let e as TrajectoryFileError {
            throw TrajectoryLoadError.file(e)
        }
    }

    /// The file to read for `path`: the path itself, or the ground truth inside a dataset folder.
    static func resolve(_ path: String) throws -> String {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else { return path }
        let root = URL(fileURLWithPath: path)
        // EuRoC's estimate first, then TUM-VI's motion capture (8 columns), as the dataset scan orders them.
        let folders = ["state_groundtruth_estimate0", "mocap0", "groundtruth0"]
        for candidate in folders.map({ "mav0/\($0)/data.csv" }) + folders.map({ "\($0)/data.csv" }) {
            let file = root.appendingPathComponent(candidate).path
            if FileManager.default.fileExists(atPath: file) { return file }
        }
        throw TrajectoryLoadError.noGroundTruthInFolder(path: path)
    }

    /// The format of `text` judged from its first data line: `{` → JSON Lines; comma-separated with an
    /// integer first field → ASL; otherwise TUM (whose parser reports what is wrong).
    public static func detectFormat(_ text: String) -> TrajectoryFormat {
        guard let (_, line) = TrajectoryFile.dataLines(text).first else { return .tum }
        if line.first == "{" { return .worldTrackStream }
        let fields = line.split(separator: ",")
        if fields.count >= 2, Int64(String(fields[0]).trimmingCharacters(in: .whitespaces)) != nil { return .aslGroundTruth }
        return .tum
    }

    /// Parses WorldTrack's JSON-Lines stream: `"type":"frame"` records (`FrameRecord.PoseFields`) with `t_ns`,
    /// `tracking_state` (absent: `normal`) and the body pose `body_position` [x,y,z] / `body_orientation` [w,x,y,z]
    /// (falling back, with a warning, to the camera pose `position` / `orientation`). Other record types are ignored.
    public static func parseStream(_ text: String, source: String, includeLimited: Bool) throws -> LoadedTrajectory {
        var poses: [StampedPose] = []
        var skipped = 0
        var cameraFallbackLines = 0
        var frames = 0
        let decoder = JSONDecoder()
        for (lineNumber, line) in TrajectoryFile.dataLines(text) {
            func bad(_ reason: String) -> TrajectoryLoadError { .badRecord(path: source, line: lineNumber, reason: reason) }
            guard let record = try? decoder.decode(FrameRecord.PoseFields.self, from: Data(line.utf8)) else {
                throw bad("not a JSON object")
            }
            guard record.type == FrameRecord.recordType else { continue }
            frames += 1
            guard let t_ns = record.t_ns, t_ns >= 0 else { throw bad("frame record without a non-negative integer t_ns") }
            let state = (record.tracking_state ?? "normal").lowercased().replacingOccurrences(of: "_", with: "")
            if state == "notavailable" || (state.hasPrefix("limited") && !includeLimited) { skipped += 1; continue }
            var position = record.body_position.flatMap { $0.count == 3 ? $0 : nil }
            var orientation = record.body_orientation.flatMap { $0.count == 4 ? $0 : nil }
            if position == nil || orientation == nil {
                position = record.position.flatMap { $0.count == 3 ? $0 : nil }
                orientation = record.orientation.flatMap { $0.count == 4 ? $0 : nil }
                if position != nil && orientation != nil { cameraFallbackLines += 1 }
            }
            guard let p = position, let q = orientation else {
                throw bad("frame without body_position [x,y,z] and body_orientation [w,x,y,z] (nor position/orientation)")
            }
            let values: [Double] = p + q
            guard values.allSatisfy({ $0.isFinite }) else { throw bad("non-finite pose value") }
            let quaternion = Quaternion(w: q[0], x: q[1], y: q[2], z: q[3])
            guard abs(quaternion.norm - 1) < 1e-2 else { throw bad("orientation [w,x,y,z] has norm \(quaternion.norm), expected 1") }
            if let last = poses.last, t_ns <= last.t_ns {
                throw bad(t_ns == last.t_ns ? "duplicate frame t_ns \(t_ns)" : "frame t_ns \(t_ns) is before the previous frame's \(last.t_ns)")
            }
            poses.append(StampedPose(t_ns: t_ns, pose: SE3(rotation: SO3(quaternion), translation: Vec3(p[0], p[1], p[2]))))
        }
        guard frames > 0 else { throw TrajectoryLoadError.noPoses(path: source, reason: "no \"type\":\"frame\" records") }
        guard !poses.isEmpty else {
            throw TrajectoryLoadError.noPoses(path: source,
                reason: "all \(frames) frames have tracking state notAvailable or limited; --include-limited keeps limited ones")
        }
        var warnings: [String] = []
        if cameraFallbackLines > 0 {
            warnings.append("\(source): \(cameraFallbackLines) frames have no body_position/body_orientation; used the camera pose position/orientation instead (not the IMU body frame of the ground truth)")
        }
        return LoadedTrajectory(path: source, format: .worldTrackStream, poses: poses, skippedFrames: skipped, warnings: warnings)
    }
}
