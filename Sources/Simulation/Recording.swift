import Foundation
import Geometry
import Sensors

/// A recorded visual-inertial sequence in the ASL layout (EuRoC, TUM-VI) used as the source of
/// `simulate --from-recording`: its camera calibrations, its IMU rows (kept as the exact bytes of each line)
/// and its ground truth.
///
/// Frames: ground truth is `T_W_B` of the body B in the recording's world W (z up, metres); camera
/// extrinsics are `T_B_C` (the `T_BS` of `camN/sensor.yaml`). WorldTrack takes the body frame to be the
/// IMU frame, so the IMU's own `T_BS` must be the identity (as in EuRoC); a recording whose `imu0/sensor.yaml`
/// says otherwise is refused rather than simulated with frames that disagree. Ground truth is read as the
/// body's pose, as WorldTrack's loader and evaluator read it (EuRoC's `state_groundtruth_estimate0` is).
/// Time stamps are `Int64` nanoseconds.
///
/// The image folders are not read: a recording needs only `cam0/sensor.yaml` (and `cam1/sensor.yaml` for
/// stereo), `imu0/{sensor.yaml, data.csv}` and a ground-truth `data.csv`.
public struct Recording: Sendable {
    /// The recording folder as given.
    public let path: String
    /// Its `mav0` folder (the folder itself when it has no `mav0`).
    public let sensorFolder: String
    /// cam0's calibration and the path of its `sensor.yaml`.
    public let cam0: CameraCalibration, cam0YAMLPath: String
    /// cam1's calibration and the path of its `sensor.yaml`, when the recording has one.
    public let cam1: CameraCalibration?, cam1YAMLPath: String?
    /// Path of `cam1/sensor.yaml` that was looked for (named in errors when it is missing).
    public let cam1ExpectedYAMLPath: String
    /// The IMU's calibration and the paths of `imu0/sensor.yaml` and `imu0/data.csv`.
    public let imuCalibration: IMUCalibration, imuYAMLPath: String, imuDataPath: String
    /// The IMU data file, line by line, exactly as recorded.
    public let imuRows: RecordedIMURows
    /// Ground-truth states (body pose in W, velocity, biases) and the file they came from.
    public private(set) var groundTruth: [GroundTruthState]
    /// The ground truth's data file.
    public let groundTruthPath: String
    /// The ground truth's `sensor.yaml`, when present.
    public let groundTruthYAMLPath: String?
    /// The recording's `body.yaml` (in `mav0/` or the root), when present.
    public let bodyYAMLPath: String?

    /// Ground-truth folders looked for, in order (EuRoC's estimate, then motion capture as in TUM-VI).
    public static let groundTruthFolders = ["state_groundtruth_estimate0", "mocap0", "groundtruth0"]

    /// Loads the recording at `path`.
    /// - Throws: `RecordingError` (missing folder or file, bad IMU rows, non-identity IMU extrinsics),
    ///   `DatasetError` (a bad `sensor.yaml`) or `TrajectoryFileError` (bad ground truth); every message names
    ///   the file (and line).
    public init(path: String) throws {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDir) else { throw RecordingError(path, "no such recording folder") }
        guard isDir.boolValue else { throw RecordingError(path, "not a folder (expected an ASL recording containing mav0/)") }
        func join(_ a: String, _ b: String) -> String { (a as NSString).appendingPathComponent(b) }
        func isFolder(_ p: String) -> Bool { var d: ObjCBool = false; return fm.fileExists(atPath: p, isDirectory: &d) && d.boolValue }
        let mav0 = join(path, "mav0")
        let sensorFolder = isFolder(mav0) ? mav0 : path
        guard isFolder(join(sensorFolder, "imu0")) || isFolder(join(sensorFolder, "cam0")) else {
            throw RecordingError(mav0, "missing folder: not an ASL recording (expected mav0/cam0, mav0/imu0)")
        }
        self.path = path
        self.sensorFolder = sensorFolder

        // Ground truth first: without it there is nothing to render.
        var gtCSV: String?
        for name in Recording.groundTruthFolders where isFolder(join(sensorFolder, name)) {
            let csv = join(join(sensorFolder, name), "data.csv")
            guard fm.fileExists(atPath: csv) else { throw RecordingError(csv, "missing file: the ground-truth folder has no data.csv") }
            gtCSV = csv
            break
        }
        guard let gtCSV else {
            throw RecordingError(join(sensorFolder, "state_groundtruth_estimate0/data.csv"),
                                 "missing file: the recording has no ground truth (looked for \(Recording.groundTruthFolders.map { $0 + "/data.csv" }.joined(separator: ", "))); --from-recording renders along the ground-truth trajectory and needs it")
        }
        groundTruthPath = gtCSV
        groundTruth = try TrajectoryFile.readASLGroundTruth(path: gtCSV)
        let gtYAML = join((gtCSV as NSString).deletingLastPathComponent, "sensor.yaml")
        groundTruthYAMLPath = fm.fileExists(atPath: gtYAML) ? gtYAML : nil

        // Cameras.
        let cam0YAML = join(join(sensorFolder, "cam0"), "sensor.yaml")
        guard fm.fileExists(atPath: cam0YAML) else {
            throw RecordingError(cam0YAML, "missing file: the recording has no cam0 calibration (sensor.yaml); it gives the camera model, rate and T_B_C to render with")
        }
        cam0 = try SensorYAML.readCamera(path: cam0YAML, name: "cam0")
        cam0YAMLPath = cam0YAML
        let cam1YAML = join(join(sensorFolder, "cam1"), "sensor.yaml")
        cam1ExpectedYAMLPath = cam1YAML
        if fm.fileExists(atPath: cam1YAML) {
            cam1 = try SensorYAML.readCamera(path: cam1YAML, name: "cam1")
            cam1YAMLPath = cam1YAML
        } else {
            cam1 = nil
            cam1YAMLPath = nil
        }

        // IMU.
        let imuYAML = join(join(sensorFolder, "imu0"), "sensor.yaml")
        let imuCSV = join(join(sensorFolder, "imu0"), "data.csv")
        guard fm.fileExists(atPath: imuYAML) else { throw RecordingError(imuYAML, "missing file: the recording has no IMU calibration") }
        guard fm.fileExists(atPath: imuCSV) else { throw RecordingError(imuCSV, "missing file: the recording has no IMU data") }
        imuCalibration = try SensorYAML.readIMU(path: imuYAML)
        let T = imuCalibration.T_B_S
        let angle = T.rotation.angle, offset = T.translation.norm
        guard angle < 1e-6, offset < 1e-6 else {
            throw RecordingError(imuYAML, String(format: "imu0 T_BS is not the identity (rotation %.4g rad, translation %.4g m): WorldTrack takes the body frame to be the IMU frame, so the camera T_BS and the ground truth would have to be re-expressed relative to the IMU first; refusing to simulate with frames that disagree", angle, offset))
        }
        imuYAMLPath = imuYAML
        imuDataPath = imuCSV
        imuRows = try RecordedIMURows(path: imuCSV)

        let bodyCandidates = [join(sensorFolder, "body.yaml"), join(path, "body.yaml")]
        bodyYAMLPath = bodyCandidates.first { fm.fileExists(atPath: $0) }
    }
}

/// An IMU `data.csv` kept as the exact bytes of each line, with each data row's time stamp.
///
/// Used to copy a recording's IMU rows unchanged: `text(from:to:)` returns the header lines and the
/// selected rows byte for byte as they are in the file (line ends included).
public struct RecordedIMURows: Sendable {
    /// The file's bytes.
    public let bytes: [UInt8]
    /// Byte range of the comment (header) lines before the first data row.
    public let headerRange: Range<Int>
    /// Per data row: its time stamp (ns) and the byte range of the whole line, line end included.
    public let rows: [(t_ns: TimestampNs, range: Range<Int>)]
    /// The file's path (for messages).
    public let path: String

    /// Reads and indexes `path`. Rows must have 7 comma-separated fields and strictly increasing integer
    /// time stamps; errors name the file and line.
    public init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw RecordingError(path, "cannot read the file") }
        let b = [UInt8](data)
        var rows: [(TimestampNs, Range<Int>)] = []
        var headerEnd = 0
        var start = 0, line = 0
        let n = b.count
        while start < n {
            var end = start
            while end < n, b[end] != 10, b[end] != 13 { end += 1 }
            var next = end
            if next < n { next += (b[next] == 13 && next + 1 < n && b[next + 1] == 10) ? 2 : 1 }
            line += 1
            var a = start
            while a < end, b[a] == 32 || b[a] == 9 { a += 1 }
            if a == end || b[a] == UInt8(ascii: "#") {
                if rows.isEmpty { headerEnd = next }
                start = next
                continue
            }
            var commas = 0, firstComma = end
            for i in a..<end where b[i] == UInt8(ascii: ",") {
                if commas == 0 { firstComma = i }
                commas += 1
            }
            guard commas == 6 else {
                throw RecordingError("\(path):\(line)", "malformed IMU row: expected 7 columns (timestamp [ns], gyro x y z, accel x y z), got \(commas + 1)")
            }
            let field = String(decoding: b[a..<firstComma], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            guard let t = TimestampNs(field) else {
                throw RecordingError("\(path):\(line)", "IMU timestamp '\(field)' is not an integer number of nanoseconds")
            }
            if let last = rows.last, t <= last.0 {
                throw RecordingError("\(path):\(line)", "IMU timestamp \(t) is not after the previous row's (\(last.0))")
            }
            rows.append((t, start..<next))
            start = next
        }
        guard !rows.isEmpty else { throw RecordingError(path, "empty listing: no IMU rows") }
        self.bytes = b
        self.headerRange = 0..<headerEnd
        self.rows = rows
        self.path = path
    }

    /// Time stamp of the first and last row, ns.
    public var firstT_ns: TimestampNs { rows[0].t_ns }
    public var lastT_ns: TimestampNs { rows[rows.count - 1].t_ns }

    /// Indices of the rows with `lo ≤ t_ns ≤ hi`.
    public func indices(from lo: TimestampNs, to hi: TimestampNs) -> Range<Int> {
        let first = rows.firstIndex { $0.t_ns >= lo } ?? rows.count
        let end = rows.lastIndex { $0.t_ns <= hi }.map { $0 + 1 } ?? 0
        return first..<max(first, end)
    }

    /// The header lines and the rows `indices`, byte for byte as in the file; a final line without a line
    /// end gets `\n`.
    public func bytes(header: Bool = true, rows indices: Range<Int>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity((indices.count + 1) * 120)
        if header { out += bytes[headerRange] }
        for i in indices {
            let r = rows[i].range
            out += bytes[r]
            if let last = bytes[r].last, last != 10, last != 13 { out.append(10) }
        }
        return out
    }
}

/// A recording that cannot be simulated from, or a span it does not cover; `path` names the file or folder.
public struct RecordingError: Error, CustomStringConvertible, Equatable {
    /// The file or folder (with `:line` when on a line) the problem is in.
    public var path: String
    /// What is wrong.
    public var reason: String
    public init(_ path: String, _ reason: String) { self.path = path; self.reason = reason }
    public var description: String { "\(path): \(reason)" }
}

extension Recording {
    /// The same recording with its ground truth in a world turned by `R_new_W` (a rotation about the world origin:
    /// `T_new_B = R_new_W · T_W_B`, velocities turned likewise; biases, in the body frame, unchanged). The IMU rows and
    /// calibration are the recording's. With `GroundTruthGravity.R_L_W` it levels a motion-capture world whose z is not
    /// quite against gravity, so that a scene fitted and rendered in it is level for the real IMU.
    public func withWorldRotated(by R_new_W: SO3) -> Recording {
        var copy = self
        let T = SE3(rotation: R_new_W, translation: .zero)
        copy.groundTruth = groundTruth.map { s in
            var r = s
            r.T_W_B = T * s.T_W_B
            r.v_W = R_new_W.act(s.v_W)
            return r
        }
        return copy
    }
}
