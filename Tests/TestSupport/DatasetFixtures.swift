import Foundation
import Sensors

/// A minimal valid ASL dataset (EuRoC layout) written to a temporary folder, for tests that break
/// one thing in it and check what the loader says.
///
/// Layout: `mav0/cam0`, `mav0/cam1` (stereo, equal time stamps, `frames` tiny PNGs at 20 Hz),
/// `mav0/imu0` (200 Hz over the frames' span, plus one sample period on each side),
/// `mav0/state_groundtruth_estimate0` (at the frame times) and `mav0/body.yaml`.
/// The folder is deleted when the fixture goes away.
public final class DatasetFixture: @unchecked Sendable {
    /// The temporary folder that holds the dataset.
    public let directory: TemporaryDirectory
    /// Number of frames per camera.
    public let frames: Int
    /// Image size, pixels.
    public let width: Int, height: Int
    /// Time of the first frame, nanoseconds.
    public let t0: TimestampNs = 1_000_000_000_000
    /// Frame period (20 Hz), nanoseconds.
    public let framePeriod: TimestampNs = 50_000_000
    /// IMU period (200 Hz), nanoseconds.
    public let imuPeriod: TimestampNs = 5_000_000

    /// cam0's `T_BS` (row-major 4×4): a rotation of +90° about z and a translation (0.1, -0.2, 0.3) m.
    public static let cam0T_BS: [Double] = [0, -1, 0, 0.1, 1, 0, 0, -0.2, 0, 0, 1, 0.3, 0, 0, 0, 1]
    /// cam0's intrinsics `[fx, fy, cx, cy]`.
    public static let cam0Intrinsics: [Double] = [458.654, 457.296, 367.215, 248.375]
    /// cam0's radial-tangential coefficients.
    public static let cam0Distortion: [Double] = [-0.28340811, 0.07395907, 0.00019359, 1.76187114e-05]

    /// Writes the dataset.
    public init(frames: Int = 10, width: Int = 16, height: Int = 12, groundTruth: Bool = true) throws {
        directory = try TemporaryDirectory(prefix: "worldtrack-dataset")
        self.frames = frames; self.width = width; self.height = height
        for cam in 0..<2 {
            let dir = "mav0/cam\(cam)"
            try makeFolder("\(dir)/data")
            try write("\(dir)/sensor.yaml", Self.cameraYAML(cam: cam, width: width, height: height))
            var csv = "#timestamp [ns],filename\n"
            for i in 0..<frames {
                csv += "\(frameTime(i)),\(frameFileName(i))\n"
                try DatasetPNG.write(path: path("\(dir)/data/\(frameFileName(i))"), width: width, height: height, seed: i + cam)
            }
            try write("\(dir)/data.csv", csv)
        }
        try makeFolder("mav0/imu0")
        try write("mav0/imu0/sensor.yaml", Self.imuYAML)
        var imu = "#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]\n"
        for k in 0..<imuCount { imu += imuRow(k) + "\n" }
        try write("mav0/imu0/data.csv", imu)
        if groundTruth {
            try makeFolder("mav0/state_groundtruth_estimate0")
            var gt = "#timestamp, p_RS_R_x [m], p_RS_R_y [m], p_RS_R_z [m], q_RS_w [], q_RS_x [], q_RS_y [], q_RS_z [], v_RS_R_x [m s^-1], v_RS_R_y [m s^-1], v_RS_R_z [m s^-1], b_w_RS_S_x [rad s^-1], b_w_RS_S_y [rad s^-1], b_w_RS_S_z [rad s^-1], b_a_RS_S_x [m s^-2], b_a_RS_S_y [m s^-2], b_a_RS_S_z [m s^-2]\n"
            for i in 0..<frames { gt += "\(frameTime(i)),\(0.01 * Double(i)),2,1,1,0,0,0,0.2,0,0,0,0,0,0,0,0\n" }
            try write("mav0/state_groundtruth_estimate0/data.csv", gt)
        }
        try write("mav0/body.yaml", "%YAML:1.0\ncomment: test body\n")
    }

    /// The dataset folder (the one that contains `mav0`).
    public var root: String { directory.path }

    /// Absolute path of a file or folder given relative to the dataset folder (`mav0/cam0/data.csv`).
    public func path(_ relative: String) -> String { directory.path(relative) }

    /// Time of frame `i`, nanoseconds.
    public func frameTime(_ i: Int) -> TimestampNs { t0 + TimestampNs(i) * framePeriod }
    /// File name of frame `i` (`<timestamp>.png`, as EuRoC names them).
    public func frameFileName(_ i: Int) -> String { "\(frameTime(i)).png" }
    /// Number of IMU samples: from one period before the first frame to one after the last.
    public var imuCount: Int { Int(TimestampNs(max(frames - 1, 0)) * framePeriod / imuPeriod) + 3 }
    /// Time of IMU sample `k`, nanoseconds.
    public func imuTime(_ k: Int) -> TimestampNs { t0 - imuPeriod + TimestampNs(k) * imuPeriod }
    /// The gyro (rad/s) and accelerometer (m/s²) values written for IMU sample `k`.
    public func imuValues(_ k: Int) -> [Double] {
        [0.01, -0.02, 0.03 + 0.001 * Double(k), 0.1, -0.2, 9.81]
    }
    /// The CSV row of IMU sample `k`.
    public func imuRow(_ k: Int) -> String {
        "\(imuTime(k))," + imuValues(k).map { String($0) }.joined(separator: ",")
    }

    /// Writes `text` to a file (relative to the dataset folder), replacing it.
    public func write(_ relative: String, _ text: String) throws {
        try text.write(toFile: path(relative), atomically: true, encoding: .utf8)
    }
    /// Writes raw bytes to a file.
    public func write(_ relative: String, bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path(relative)))
    }
    /// The text of a file.
    public func read(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8)
    }
    /// The bytes of a file.
    public func readBytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(relative))))
    }
    /// Deletes a file or folder.
    public func remove(_ relative: String) throws { try FileManager.default.removeItem(atPath: path(relative)) }
    /// Creates a folder (and its parents).
    public func makeFolder(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
    }

    /// Replaces 1-based line `line` of a text file (line 1 is the header of a `data.csv`).
    public func replaceLine(_ relative: String, line: Int, with newLine: String) throws {
        var lines = try read(relative).components(separatedBy: "\n")
        lines[line - 1] = newLine
        try write(relative, lines.joined(separator: "\n"))
    }
    /// Inserts a line before 1-based line `line` of a text file.
    public func insertLine(_ relative: String, before line: Int, _ newLine: String) throws {
        var lines = try read(relative).components(separatedBy: "\n")
        lines.insert(newLine, at: line - 1)
        try write(relative, lines.joined(separator: "\n"))
    }
    /// Removes 1-based lines `range` of a text file.
    public func removeLines(_ relative: String, _ range: ClosedRange<Int>) throws {
        var lines = try read(relative).components(separatedBy: "\n")
        lines.removeSubrange((range.lowerBound - 1)...(range.upperBound - 1))
        try write(relative, lines.joined(separator: "\n"))
    }

    /// `sensor.yaml` of camera `cam` in EuRoC's form (OpenCV `%YAML:1.0` header, `T_BS` as a matrix map).
    public static func cameraYAML(cam: Int, width: Int, height: Int, rate_hz: Double = 20,
                                  distortionModel: String = "radial-tangential",
                                  coefficients: [Double] = cam0Distortion, T_BS: [Double] = cam0T_BS) -> String {
        func list(_ v: [Double]) -> String { "[" + v.map { String($0) }.joined(separator: ", ") + "]" }
        return """
        %YAML:1.0
        # General sensor definitions.
        sensor_type: camera
        comment: test camera \(cam)

        # Sensor extrinsics wrt. the body-frame.
        T_BS:
          cols: 4
          rows: 4
          data: \(list(T_BS))

        # Camera specific definitions.
        rate_hz: \(rate_hz)
        resolution: [\(width), \(height)]
        camera_model: pinhole
        intrinsics: \(list(cam0Intrinsics)) #fu, fv, cu, cv
        distortion_model: \(distortionModel)
        distortion_coefficients: \(list(coefficients))

        """
    }

    /// EuRoC's `imu0/sensor.yaml`.
    public static let imuYAML = """
    %YAML:1.0
    #Default imu sensor yaml file
    sensor_type: imu
    comment: VI-Sensor IMU (ADIS16448)

    # Sensor extrinsics wrt. the body-frame.
    T_BS:
      cols: 4
      rows: 4
      data: [1.0, 0.0, 0.0, 0.0,
             0.0, 1.0, 0.0, 0.0,
             0.0, 0.0, 1.0, 0.0,
             0.0, 0.0, 0.0, 1.0]
    rate_hz: 200

    # inertial sensor noise model parameters (static)
    gyroscope_noise_density: 1.6968e-04     # [ rad / s / sqrt(Hz) ]   ( gyro "white noise" )
    gyroscope_random_walk: 1.9393e-05       # [ rad / s^2 / sqrt(Hz) ] ( gyro bias diffusion )
    accelerometer_noise_density: 2.0000e-3  # [ m / s^2 / sqrt(Hz) ]   ( accel "white noise" )
    accelerometer_random_walk: 3.0000e-3    # [ m / s^3 / sqrt(Hz) ].  ( accel bias diffusion )

    """
}

/// Where the shared development datasets are (`../shared/datasets` next to the package), if present.
public enum SharedDatasets {
    /// The package root, found from this file's path (`Tests/TestSupport/DatasetFixtures.swift`).
    public static var packageRoot: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }

    /// Path of the named dataset in `../shared/datasets` (beside the package), or `nil` when it is absent.
    public static func path(_ name: String) -> String? {
        let path = ((packageRoot as NSString).appendingPathComponent("../shared/datasets") as NSString).appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return (path as NSString).standardizingPath
    }

    /// Folder name of the EuRoC V1_01 excerpt (95 frames, nearly still) in `../shared/datasets`.
    public static let eurocMicroName = "euroc-v101-micro"

    /// True when the EuRoC excerpt is present. Tests that read it are gated on this, so Swift Testing lists
    /// them as skipped, with the reason, where it is absent:
    /// `@Test(.enabled(if: SharedDatasets.eurocMicroIsPresent, "needs ../shared/datasets/euroc-v101-micro"))`.
    public static var eurocMicroIsPresent: Bool { path(eurocMicroName) != nil }

    /// Path of the EuRoC excerpt; throws when it is absent (a test gated on ``eurocMicroIsPresent`` never sees that).
    public static func eurocMicro() throws -> String {
        guard let path = path(eurocMicroName) else { throw DatasetAbsent(name: eurocMicroName) }
        return path
    }
}

/// A shared dataset a test needs is absent.
public struct DatasetAbsent: Error, CustomStringConvertible {
    /// The dataset's folder name in `../shared/datasets`.
    public var name: String
    public var description: String { "../shared/datasets/\(name) is absent" }
}
