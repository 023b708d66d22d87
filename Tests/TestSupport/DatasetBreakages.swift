import Foundation

/// One way to break a `DatasetFixture`, with what the loader must then say: used by the loader's
/// tests and by the end-to-end tests of `worldtrack info`, so both check the same cases.
public struct DatasetBreakage: Sendable, CustomStringConvertible {
    /// Short name of the case.
    public var name: String
    /// True when the dataset becomes unusable (load throws, `info` exits 2); false for a warning.
    public var fatal: Bool
    /// The file the problem must name, relative to the dataset folder.
    public var file: String
    /// The line the problem must name, if any.
    public var line: Int?
    /// A fragment the problem's message must contain.
    public var message: String
    /// Breaks the fixture.
    public var apply: @Sendable (DatasetFixture) throws -> Void

    public var description: String { name }

    public init(_ name: String, fatal: Bool = true, file: String, line: Int? = nil, message: String,
                apply: @escaping @Sendable (DatasetFixture) throws -> Void) {
        self.name = name; self.fatal = fatal; self.file = file; self.line = line; self.message = message; self.apply = apply
    }

    /// Frames of the fixture the cases are made for.
    public static let fixtureFrames = 10

    /// Every validation case of the ASL loader. Line numbers count the CSV header as line 1, so
    /// frame i is on line i + 2 and IMU sample k on line k + 2.
    public static let all: [DatasetBreakage] = [
        DatasetBreakage("missing camera data.csv", file: "mav0/cam0/data.csv", message: "missing file") {
            try $0.remove("mav0/cam0/data.csv")
        },
        DatasetBreakage("missing camera sensor.yaml", file: "mav0/cam1/sensor.yaml", message: "missing file") {
            try $0.remove("mav0/cam1/sensor.yaml")
        },
        DatasetBreakage("missing image folder", file: "mav0/cam0/data", message: "missing image folder") {
            try $0.remove("mav0/cam0/data")
        },
        DatasetBreakage("missing IMU folder", file: "mav0/imu0", message: "missing folder") {
            try $0.remove("mav0/imu0")
        },
        DatasetBreakage("missing IMU data.csv", file: "mav0/imu0/data.csv", message: "missing file") {
            try $0.remove("mav0/imu0/data.csv")
        },
        DatasetBreakage("empty camera listing", file: "mav0/cam1/data.csv", message: "empty listing") {
            try $0.write("mav0/cam1/data.csv", "#timestamp [ns],filename\n")
        },
        DatasetBreakage("empty IMU listing", file: "mav0/imu0/data.csv", message: "empty listing") {
            try $0.write("mav0/imu0/data.csv", "#timestamp [ns],w_x,w_y,w_z,a_x,a_y,a_z\n")
        },
        DatasetBreakage("not a PNG", file: "mav0/cam0/data/1000150000000.png", message: "not a PNG file") {
            try $0.write("mav0/cam0/data/\($0.frameFileName(3))", "this is text, not an image\n")
        },
        DatasetBreakage("truncated PNG", file: "mav0/cam1/data/1000100000000.png", message: "truncated PNG") {
            let name = "mav0/cam1/data/\($0.frameFileName(2))"
            try $0.write(name, bytes: Array(try $0.readBytes(name).dropLast(10)))
        },
        DatasetBreakage("image size disagrees with sensor.yaml", file: "mav0/cam1/data/1000000000000.png",
                        message: "image is 16×12 but") {
            try $0.write("mav0/cam1/sensor.yaml", DatasetFixture.cameraYAML(cam: 1, width: 20, height: 12))
        },
        DatasetBreakage("camera timestamps go back", file: "mav0/cam0/data.csv", line: 6, message: "goes back in time") {
            try $0.replaceLine("mav0/cam0/data.csv", line: 6, with: "\($0.frameTime(2) - 1),\($0.frameFileName(4))")
        },
        DatasetBreakage("duplicate camera timestamp", file: "mav0/cam1/data.csv", line: 5, message: "duplicate timestamp") {
            try $0.replaceLine("mav0/cam1/data.csv", line: 5, with: "\($0.frameTime(2)),\($0.frameFileName(3))")
        },
        DatasetBreakage("duplicate IMU timestamp", file: "mav0/imu0/data.csv", line: 12, message: "duplicate timestamp") {
            try $0.insertLine("mav0/imu0/data.csv", before: 12, $0.imuRow(9))
        },
        DatasetBreakage("NaN in IMU row", file: "mav0/imu0/data.csv", line: 7, message: "non-finite IMU value nan") {
            try $0.replaceLine("mav0/imu0/data.csv", line: 7, with: "\($0.imuTime(5)),0.01,nan,0.03,0.1,-0.2,9.81")
        },
        DatasetBreakage("Inf in IMU row", file: "mav0/imu0/data.csv", line: 9, message: "non-finite IMU value inf") {
            try $0.replaceLine("mav0/imu0/data.csv", line: 9, with: "\($0.imuTime(7)),0.01,0.02,0.03,0.1,-0.2,inf")
        },
        DatasetBreakage("IMU row with a missing column", file: "mav0/imu0/data.csv", line: 4, message: "expected 7 columns") {
            try $0.replaceLine("mav0/imu0/data.csv", line: 4, with: "\($0.imuTime(2)),0.01,0.02,0.03,0.1,-0.2")
        },
        DatasetBreakage("non-numeric IMU value", file: "mav0/imu0/data.csv", line: 5, message: "'0.0x2' is not a number") {
            try $0.replaceLine("mav0/imu0/data.csv", line: 5, with: "\($0.imuTime(3)),0.01,0.0x2,0.03,0.1,-0.2,9.81")
        },
        DatasetBreakage("non-numeric camera timestamp", file: "mav0/cam0/data.csv", line: 3, message: "timestamp '10001e9'") {
            try $0.replaceLine("mav0/cam0/data.csv", line: 3, with: "10001e9,\($0.frameFileName(1))")
        },
        DatasetBreakage("camera row with three columns", file: "mav0/cam0/data.csv", line: 8, message: "expected 2 columns") {
            try $0.replaceLine("mav0/cam0/data.csv", line: 8, with: "\($0.frameTime(6)),\($0.frameFileName(6)),extra")
        },
        DatasetBreakage("all listed images absent", file: "mav0/cam0/data.csv", message: "none of the 10 listed images exist") {
            try $0.remove("mav0/cam0/data")
            try $0.makeFolder("mav0/cam0/data")
        },
        DatasetBreakage("unsupported camera model", file: "mav0/cam0/sensor.yaml", line: 15, message: "unsupported camera_model 'omni'") {
            try $0.write("mav0/cam0/sensor.yaml", try $0.read("mav0/cam0/sensor.yaml")
                .replacingOccurrences(of: "camera_model: pinhole", with: "camera_model: omni"))
        },
        // Warnings: the dataset stays usable.
        DatasetBreakage("IMU gap", fatal: false, file: "mav0/imu0/data.csv", line: 10, message: "IMU gap of 30.0 ms (6.0 sample periods)") {
            try $0.removeLines("mav0/imu0/data.csv", 10...14)
        },
        DatasetBreakage("absent images", fatal: false, file: "mav0/cam1/data.csv",
                        message: "2 of 10 listed images are absent from data/ and skipped: 1000050000000.png, 1000400000000.png") {
            try $0.remove("mav0/cam1/data/\($0.frameFileName(1))")
            try $0.remove("mav0/cam1/data/\($0.frameFileName(8))")
        },
        DatasetBreakage("IMU rate disagrees with sensor.yaml", fatal: false, file: "mav0/imu0/data.csv",
                        message: "IMU rate from timestamps is 200 Hz but") {
            try $0.write("mav0/imu0/sensor.yaml", DatasetFixture.imuYAML.replacingOccurrences(of: "rate_hz: 200", with: "rate_hz: 100"))
        },
    ]
}
