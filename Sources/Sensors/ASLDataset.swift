import Foundation

/// A dataset in the ASL layout (EuRoC, TUM-VI), loaded and validated.
///
/// ```
/// DATASET/mav0/cam0/{data.csv, data/*.png, sensor.yaml}   (cam1, … likewise)
/// DATASET/mav0/imu0/{data.csv, sensor.yaml}
/// DATASET/mav0/state_groundtruth_estimate0/data.csv         (optional; TUM-VI: mocap0)
/// DATASET/mav0/body.yaml or DATASET/body.yaml              (optional)
/// ```
///
/// Loading reads the calibrations, the frame listings and all IMU samples, and checks each listed
/// image's PNG header (signature, size, `IEND`); pixels are decoded only by `CameraFrameRef.loadImage()`.
/// Every problem found names its file (and line). Fatal ones make `init` throw a `DatasetError`;
/// warnings (absent images, IMU gaps, rates that disagree with `sensor.yaml`) are in `problems`.
///
/// ```swift
/// let dataset = try ASLDataset(path: "../shared/datasets/euroc-v101-micro")
/// for event in dataset.events() {
///     switch event {
///     case .imu(let sample): filter.propagate(sample)
///     case .stereoFrame(let left, let right): frontend.track(try left.loadImage(), try right.loadImage())
///     case .frame(let camera, let frame): frontend.track(camera, try frame.loadImage())
///     }
/// }
/// ```
public struct ASLDataset: Sendable {
    /// The dataset folder as given.
    public var path: String
    /// The `mav0` folder (the dataset folder itself when it has no `mav0`).
    public var sensorFolder: String
    /// Cameras in folder order (`cam0`, `cam1`, …).
    public var cameras: [CameraStream]
    /// The IMU (`imu0`).
    public var imu: IMUStream
    /// The ground-truth file and its extent; `nil` when the dataset has none.
    public var groundTruth: GroundTruthInfo?
    /// The optional `body.yaml`, when present.
    public var bodyYAMLPath: String?
    /// Warnings found while loading (fatal problems are thrown instead).
    public var problems: [DatasetProblem]

    /// Path of the ground-truth CSV (ASL `state_groundtruth_estimate0/data.csv`), when present.
    public var groundTruthPath: String? { groundTruth?.path }

    /// Loads and validates the dataset at `path`.
    /// - Throws: `DatasetError` with every problem found when any of them is fatal.
    public init(path: String, options: ASLLoadOptions = ASLLoadOptions()) throws {
        var log = ProblemLog()
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDir) else {
            throw DatasetError(path: path, file: path, message: "no such dataset folder")
        }
        guard isDir.boolValue else {
            throw DatasetError(path: path, file: path, message: "not a folder (expected an ASL dataset folder containing mav0/)")
        }
        let mav0 = (path as NSString).appendingPathComponent("mav0")
        let sensorFolder: String
        if ASLDataset.isDirectory(mav0) {
            sensorFolder = mav0
        } else if ASLDataset.isDirectory((path as NSString).appendingPathComponent("cam0")) {
            sensorFolder = path
        } else {
            throw DatasetError(path: path, file: mav0, message: "missing folder: not an ASL dataset (expected mav0/cam0, mav0/imu0)")
        }

        // Cameras.
        let cameraNames = ASLDataset.numberedFolders(in: sensorFolder, prefix: "cam")
        if cameraNames.isEmpty {
            log.fatal((sensorFolder as NSString).appendingPathComponent("cam0"), "missing folder: no camera folder (cam0, cam1, …)")
        }
        var cameras: [CameraStream] = []
        for (i, name) in cameraNames.enumerated() {
            let folder = (sensorFolder as NSString).appendingPathComponent(name)
            if let camera = ASLCameraLoader.load(index: i, name: name, folder: folder, options: options, log: &log) {
                cameras.append(camera)
            }
        }

        // IMU.
        let imuFolder = (sensorFolder as NSString).appendingPathComponent("imu0")
        let imu = ASLIMULoader.load(folder: imuFolder, options: options, log: &log)

        // Ground truth and body.yaml (optional).
        let groundTruth = ASLGroundTruthScan.scan(sensorFolder: sensorFolder, log: &log)
        let bodyCandidates = [(sensorFolder as NSString).appendingPathComponent("body.yaml"),
                              (path as NSString).appendingPathComponent("body.yaml")]
        let body = bodyCandidates.first { fm.fileExists(atPath: $0) }

        if let imu, !cameras.isEmpty {
            ASLDataset.checkOverlap(cameras: cameras, imu: imu, log: &log)
        }
        log.summariseCapped()
        guard !log.hasFatal, let imu else {
            throw DatasetError(path: path, problems: log.problems)
        }
        self.path = path
        self.sensorFolder = sensorFolder
        self.cameras = cameras
        self.imu = imu
        self.groundTruth = groundTruth
        self.bodyYAMLPath = body
        self.problems = log.problems
    }

    /// All sensor events in time order: IMU samples and camera frames, with `cam0`/`cam1` frames of
    /// equal time (within `stereoTolerance_ns`) paired into one `.stereoFrame` when `stereo` is true.
    public func events(stereo: Bool = true, stereoTolerance_ns: TimestampNs = 1_000_000, imuLookaheadNs: TimestampNs = 0) -> SensorEventSequence {
        SensorEventSequence(imu: imu.samples, cameras: cameras.map(\.frames), stereo: stereo, stereoTolerance_ns: stereoTolerance_ns,
                            imuLookaheadNs: imuLookaheadNs)
    }

    // MARK: - Helpers

    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// Sub-folders named `prefix` + a number, sorted by the number (`cam0`, `cam1`, `cam10`).
    static func numberedFolders(in folder: String, prefix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix(prefix), let n = Int(name.dropFirst(prefix.count)), n >= 0,
                  isDirectory((folder as NSString).appendingPathComponent(name)) else { return nil }
            return (n, name)
        }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Warns when a camera's frames fall outside the IMU's time span (no inertial data for them).
    static func checkOverlap(cameras: [CameraStream], imu: IMUStream, log: inout ProblemLog) {
        guard let imuFirst = imu.firstT_ns, let imuLast = imu.lastT_ns else { return }
        for camera in cameras {
            guard let first = camera.firstT_ns, let last = camera.lastT_ns else { continue }
            let csv = (camera.folder as NSString).appendingPathComponent("data.csv")
            if last < imuFirst || first > imuLast {
                log.fatal(csv, "\(camera.name) frames (\(first) … \(last) ns) do not overlap the IMU samples (\(imuFirst) … \(imuLast) ns)")
            } else if first < imuFirst || last > imuLast {
                let outside = camera.frames.filter { $0.t_ns < imuFirst || $0.t_ns > imuLast }.count
                log.warning(csv, "\(outside) \(camera.name) frames lie outside the IMU's time span (\(imuFirst) … \(imuLast) ns)")
            }
        }
    }
}

/// Options of `ASLDataset.init`.
public struct ASLLoadOptions: Sendable {
    /// Check every listed image's PNG header (signature, IHDR, size against `sensor.yaml`, `IEND`).
    public var checkImageHeaders: Bool
    /// Also decode every image (slow: the whole dataset is read). An image whose data cannot be decoded is
    /// a warning naming it (a run skips that frame) and is listed in `CameraStream.undecodableImages`.
    public var decodeImages = false
    /// An IMU step longer than this many median sample periods is reported as a gap.
    public var imuGapPeriods: Double
    /// Relative difference between the estimated and the `sensor.yaml` rate above which a warning is given.
    public var rateTolerance: Double

    /// Defaults: headers checked, gaps over 3 periods, rates within 5 %.
    public init(checkImageHeaders: Bool = true, imuGapPeriods: Double = 3, rateTolerance: Double = 0.05) {
        self.checkImageHeaders = checkImageHeaders; self.imuGapPeriods = imuGapPeriods; self.rateTolerance = rateTolerance
    }
}
