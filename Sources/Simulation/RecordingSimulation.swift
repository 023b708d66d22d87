import Foundation
import Geometry
import Imaging
import Sensors

/// The world a from-recording simulation renders.
public enum RecordingScene: Sendable {
    /// A built-in layout (`"room"` or `"courtyard"`) fitted around the trajectory (`SceneFitting`).
    case fitted(layout: String, options: SceneFitOptions? = nil)
    /// A scene used as given (e.g. loaded from a JSON file), not fitted.
    case given(Scene, source: String)
}

/// Everything that defines a from-recording simulation: the images of a synthetic scene rendered along a
/// recording's ground-truth trajectory, with the recording's own IMU rows and calibration.
///
/// Camera poses: `T_W_C(t) = T_W_B(t) · T_B_C`, `T_W_B` from the recording's ground truth (metres, world z
/// up), `T_B_C` from its `camN/sensor.yaml`. Frame times: see `RecordingFramePlan`. Same config → same bytes.
public struct RecordingSimulationConfig: Sendable {
    /// The recording followed.
    public var recording: Recording
    /// The world rendered (default: the room fitted around the trajectory).
    public var scene: RecordingScene
    /// Render cam1 as well (needs the recording's `cam1/sensor.yaml`).
    public var stereo: Bool
    /// Seconds to skip after the first usable ground-truth time (≥ 0).
    public var start_s: Double
    /// Seconds to keep from there; `nil` keeps the whole span covered by ground truth and IMU.
    public var seconds: Double?
    /// Seed of the image noise.
    public var seed: UInt64
    /// Image effects (noise, exposure, motion blur).
    public var effects: ImageEffects
    /// Renderer options.
    public var render: RenderOptions
    /// Camera–IMU time offset, ns: the image stamped t shows the world at IMU/ground-truth time t + offset.
    public var timeOffset_ns: Int64
    /// IMU rows are copied from this long before the first to this long after the last frame's data, ns.
    public var imuMargin_ns: Int64
    /// How the rendered images are checked for texture.
    public var textureCheck: TextureCheckOptions

    public init(recording: Recording, scene: RecordingScene = .fitted(layout: "room"), stereo: Bool = false,
                start_s: Double = 0, seconds: Double? = nil, seed: UInt64 = 1, effects: ImageEffects = ImageEffects(),
                render: RenderOptions = RenderOptions(), timeOffset_ns: Int64 = 0, imuMargin_ns: Int64 = 1_000_000_000,
                textureCheck: TextureCheckOptions = TextureCheckOptions()) {
        self.recording = recording; self.scene = scene; self.stereo = stereo; self.start_s = start_s
        self.seconds = seconds; self.seed = seed; self.effects = effects; self.render = render
        self.timeOffset_ns = timeOffset_ns; self.imuMargin_ns = imuMargin_ns; self.textureCheck = textureCheck
    }
}

/// How rendered images are checked for texture: FAST corners (OpenCV, threshold `fastThreshold`) counted over
/// the image and over a 4 × 4 grid of cells. An image is textured when it has at least `minimumCorners`
/// corners per 752 × 480 pixels (scaled by its area; 100 at EuRoC's size) and at least `minimumCells` of the
/// 16 cells hold 3 or more.
public struct TextureCheckOptions: Equatable, Sendable, Codable {
    public var fastThreshold: Int
    public var minimumCorners: Int
    public var minimumCells: Int
    public init(fastThreshold: Int = 20, minimumCorners: Int = 100, minimumCells: Int = 8) {
        self.fastThreshold = fastThreshold; self.minimumCorners = minimumCorners; self.minimumCells = minimumCells
    }
    /// The corner minimum for an image of `width` × `height` pixels.
    public func minimumCorners(width: Int, height: Int) -> Int {
        max(1, Int((Double(minimumCorners) * Double(width * height) / Double(752 * 480)).rounded(.up)))
    }
}

/// The texture check's result over all rendered images (every camera).
public struct TextureCheckResult: Equatable, Sendable, Codable {
    /// The criteria used.
    public var options: TextureCheckOptions
    /// Images checked and images that passed.
    public var images: Int, texturedImages: Int
    /// The corner minimum applied (scaled to the image size).
    public var minimumCornersApplied: Int
    /// `texturedImages / images`.
    public var fractionTextured: Double
    /// Fewest, median and most FAST corners in one image.
    public var minCorners: Int, medianCorners: Int, maxCorners: Int
    /// Fewest 4 × 4 cells with ≥ 3 corners in one image.
    public var minCells: Int
    /// The image with the fewest corners: its time stamp (ns) and camera.
    public var worstStamp_ns: Int64, worstCamera: String

    /// `scene.json` keys (docs/NAMING.md: the keys stay as they were written).
    enum CodingKeys: String, CodingKey {
        case options, images, texturedImages, minimumCornersApplied, fractionTextured, minCorners, medianCorners,
             maxCorners, minCells, worstCamera
        case worstStamp_ns = "worstStampNs"
    }
}

/// One camera of a from-recording simulation, as `scene.json` records it.
public struct RecordingCameraInfo: Equatable, Sendable, Codable {
    /// `cam0` or `cam1`.
    public var name: String
    /// The recording's `sensor.yaml` it came from (copied unchanged into the output).
    public var sensorYAML: String
    /// `T_B_C` used (row-major 4 × 4; the yaml's `T_BS`).
    public var T_B_C: [Double]
    /// `[width, height]`, pixels; rate, Hz (frames are rendered at cam0's rate).
    public var resolution: [Int]
    public var rate_hz: Double

    /// `scene.json` keys (docs/NAMING.md: the keys stay as they were written).
    enum CodingKeys: String, CodingKey {
        case name, T_B_C, resolution
        case rate_hz = "rateHz"
        case sensorYAML = "sensorYaml"
    }
}

/// The `recording` section of a from-recording `scene.json`: where the trajectory and IMU came from and
/// what was rendered. Times are ns; spans inclusive.
public struct RecordingInfo: Equatable, Sendable, Codable {
    /// The recording folder, its ground-truth file and its IMU file, as given.
    public var source: String, groundTruthFile: String, imuFile: String
    /// The span covered by both ground truth and IMU, and its first ground-truth time (origin of `start`).
    public var usableStart_ns: Int64, usableEnd_ns: Int64, reference_ns: Int64
    /// `--start` and `--seconds` as requested (seconds; `nil`: all).
    public var start_s: Double, requested_s: Double?
    /// Ground-truth times of the first and last frame, and the seconds between them.
    public var spanStart_ns: Int64, spanEnd_ns: Int64, span_s: Double
    /// Frames per camera, and camera-rate grid slots without a ground-truth row (gaps).
    public var frames: Int, skippedGridSlots: Int
    /// Camera–IMU time offset, ns: the image stamped t shows the ground-truth pose at t + offset.
    public var timeOffset_ns: Int64
    /// How camera poses were made.
    public var cameraPose: String
    /// The cameras rendered.
    public var cameras: [RecordingCameraInfo]
    /// IMU rows copied unchanged, and the first and last copied time stamp.
    public var imuRows: Int, imuFirst_ns: Int64, imuLast_ns: Int64
    /// Ground-truth rows written.
    public var groundTruthRows: Int
    /// `"fitted room"`, `"fitted courtyard"` or `"file PATH"`.
    public var scene: String
    /// How the scene was fitted (absent for a scene file).
    public var fit: SceneFitReport?
    /// The texture check of the rendered images.
    public var textureCheck: TextureCheckResult?

    /// `scene.json` keys (docs/NAMING.md: the keys stay as they were written).
    enum CodingKeys: String, CodingKey {
        case source, groundTruthFile, imuFile, frames, skippedGridSlots, cameraPose, cameras, imuRows, groundTruthRows,
             scene, fit, textureCheck
        case usableStart_ns = "usableStartNs", usableEnd_ns = "usableEndNs", reference_ns = "referenceNs"
        case start_s = "startSeconds", requested_s = "requestedSeconds"
        case spanStart_ns = "spanStartNs", spanEnd_ns = "spanEndNs", span_s = "spanSeconds"
        case timeOffset_ns = "timeOffsetNs", imuFirst_ns = "imuFirstNs", imuLast_ns = "imuLastNs"
    }
}

/// What a from-recording simulation wrote.
public struct RecordingSimulationSummary: Sendable {
    public var directory: String
    /// Images per camera and cameras.
    public var framesPerCamera: Int, cameras: Int
    /// IMU rows copied and ground-truth rows written.
    public var imuRows: Int, groundTruthRows: Int
    /// Wall-clock seconds spent rendering and writing images.
    public var image_s: Double
    /// The facts written into `scene.json`.
    public var info: RecordingInfo
}

/// Writes a dataset in the ASL layout whose images are rendered along a recording's ground truth:
///
/// ```
/// DIR/mav0/body.yaml                                   (the recording's, unchanged, when it has one)
/// DIR/mav0/cam0/{sensor.yaml, data.csv, data/*.png}      (sensor.yaml: the recording's; cam1 with stereo)
/// DIR/mav0/imu0/{sensor.yaml, data.csv}                  (the recording's; rows copied byte for byte)
/// DIR/mav0/state_groundtruth_estimate0/{sensor.yaml, data.csv}   (the recording's rows in the span)
/// DIR/scene.json                                         (scene, measurement pairs, `recording` section)
/// ```
public enum RecordingDatasetWriter {
    /// The frame plan, cameras, scene and fit of `config`, without writing anything: everything that can be
    /// refused is refused here.
    public static func prepare(_ config: RecordingSimulationConfig) throws
        -> (plan: RecordingFramePlan, cameras: [CameraCalibration], scene: Scene, fit: SceneFitReport?, trajectory: RecordedTrajectory) {
        let rec = config.recording
        var cameras = [rec.cam0]
        if config.stereo {
            guard let cam1 = rec.cam1 else {
                throw RecordingError(rec.cam1ExpectedYAMLPath, "missing file: --stereo needs the recording's cam1 calibration (sensor.yaml)")
            }
            cameras.append(cam1)
        }
        let plan = try RecordingFramePlan.make(groundTruth: rec.groundTruth, imuFirst_ns: rec.imuRows.firstT_ns,
                                               imuLast_ns: rec.imuRows.lastT_ns, rate_hz: rec.cam0.rate_hz,
                                               start_s: config.start_s, seconds: config.seconds,
                                               timeOffset_ns: config.timeOffset_ns, source: rec.groundTruthPath)
        let trajectory = try RecordedTrajectory(states: rec.groundTruth, origin_ns: plan.reference_ns)
        let scene: Scene
        var fit: SceneFitReport?
        switch config.scene {
        case .given(let s, _):
            scene = s
        case .fitted(let layout, let options):
            let cams = plan.groundTruthIndices.flatMap { i in cameras.map { (rec.groundTruth[i].T_W_B * $0.T_B_C).translation } }
            // Every ground-truth row the frames span (not only the frames), cameras and body.
            let span = plan.dataSpan
            let footprint = rec.groundTruth.filter { span.contains($0.t_ns) }.flatMap { s in
                [s.T_W_B.translation] + cameras.map { (s.T_W_B * $0.T_B_C).translation }
            }
            let fitted = try SceneFitting.fit(layout: layout, cameraPositions_W: cams, footprint_W: footprint, options: options)
            scene = fitted.scene
            fit = fitted.report
        }
        return (plan, cameras, scene, fit, trajectory)
    }

    /// Simulates `config` into `directory`. Refuses a non-empty existing folder unless `force` (then only a
    /// dataset's own `mav0/` and `scene.json` are replaced). `progress` gets (frames done, frames total).
    @discardableResult
    public static func write(_ config: RecordingSimulationConfig, to directory: String, force: Bool = false,
                             progress: ((Int, Int) -> Void)? = nil) throws -> RecordingSimulationSummary {
        let rec = config.recording
        let (plan, cameras, scene, fit, trajectory) = try prepare(config)
        try DatasetWriter.prepareOutput(directory, force: force)
        let fm = FileManager.default
        let mav = directory + "/mav0"
        func mkdir(_ p: String) throws {
            do { try fm.createDirectory(atPath: p, withIntermediateDirectories: true) } catch {
                throw SimulationError.writeFailed(path: p, reason: "\(error.localizedDescription)")
            }
        }
        func write(_ data: Data, _ path: String) throws {
            do { try data.write(to: URL(fileURLWithPath: path)) } catch {
                throw SimulationError.writeFailed(path: path, reason: "\(error.localizedDescription)")
            }
        }
        func copy(_ from: String, _ to: String) throws {
            guard let data = fm.contents(atPath: from) else { throw RecordingError(from, "cannot read the file") }
            try write(data, to)
        }
        try mkdir(mav)

        // IMU: the recording's rows, unchanged, around the frames' span.
        let span = plan.dataSpan
        let imuIdx = rec.imuRows.indices(from: span.lowerBound - config.imuMargin_ns, to: span.upperBound + config.imuMargin_ns)
        try mkdir(mav + "/imu0")
        try write(Data(rec.imuRows.bytes(rows: imuIdx)), mav + "/imu0/data.csv")
        try copy(rec.imuYAMLPath, mav + "/imu0/sensor.yaml")
        if let body = rec.bodyYAMLPath { try copy(body, mav + "/body.yaml") }

        // Ground truth: the recording's rows in the span, through Sensors' ASL ground-truth writer.
        let gt = rec.groundTruth.filter { span.contains($0.t_ns) }
        try mkdir(mav + "/state_groundtruth_estimate0")
        try write(Data(TrajectoryFile.formatASLGroundTruth(gt).utf8), mav + "/state_groundtruth_estimate0/data.csv")
        if let y = rec.groundTruthYAMLPath {
            try copy(y, mav + "/state_groundtruth_estimate0/sensor.yaml")
        } else {
            try write(Data(ASLText.groundTruthYAML.utf8), mav + "/state_groundtruth_estimate0/sensor.yaml")
        }

        // Cameras.
        let yamls = [rec.cam0YAMLPath, rec.cam1YAMLPath]
        for (c, cam) in cameras.enumerated() {
            try mkdir(mav + "/\(cam.name)/data")
            if let y = yamls[c] { try copy(y, mav + "/\(cam.name)/sensor.yaml") }
            try write(Data(("#timestamp [ns],filename\n" + plan.imageStamps.map { "\($0),\($0).png\n" }.joined()).utf8),
                      mav + "/\(cam.name)/data.csv")
        }
        let start = Date()
        let renderer = SceneRenderer(scene: scene, options: config.render)
        let synth = ImageSynthesizer(renderer: renderer, effects: config.effects, seed: config.seed)
        let maps = cameras.map { BearingMap(model: $0.model) }
        let check = TextureTally(options: config.textureCheck, cameras: cameras.count, frames: plan.imageStamps.count)
        try DatasetWriter.renderFrames(stamps: plan.imageStamps, times: plan.groundTruthTimes.map { trajectory.time(ofStamp: $0) },
                                       trajectory: trajectory, cameras: cameras, synth: synth, maps: maps, sensorFolder: mav,
                                       inspect: { k, c, img in check.add(frame: k, camera: c, image: img) }, progress: progress)
        let image_s = Date().timeIntervalSince(start)

        let sceneSource: String
        switch config.scene {
        case .fitted(let layout, _): sceneSource = "fitted \(layout.lowercased())"
        case .given(_, let source): sceneSource = "file \(source)"
        }
        let info = RecordingInfo(
            source: rec.path, groundTruthFile: rec.groundTruthPath, imuFile: rec.imuDataPath,
            usableStart_ns: plan.usableStart_ns, usableEnd_ns: plan.usableEnd_ns, reference_ns: plan.reference_ns,
            start_s: config.start_s, requested_s: config.seconds,
            spanStart_ns: plan.groundTruthTimes[0], spanEnd_ns: plan.groundTruthTimes[plan.groundTruthTimes.count - 1],
            span_s: Time.seconds(plan.groundTruthTimes[plan.groundTruthTimes.count - 1] - plan.groundTruthTimes[0]),
            frames: plan.imageStamps.count, skippedGridSlots: plan.skippedSlots, timeOffset_ns: config.timeOffset_ns,
            cameraPose: "T_W_C(t) = T_W_B(t) · T_B_C: T_W_B the ground-truth row at t (no interpolation), T_B_C the camera's T_BS; the image of the row at t is stamped t − timeOffsetNs",
            cameras: cameras.enumerated().map { c, cam in
                RecordingCameraInfo(name: cam.name, sensorYAML: yamls[c] ?? "", T_B_C: cam.T_B_C.matrix4x4RowMajor,
                                    resolution: [cam.model.width, cam.model.height], rate_hz: cam.rate_hz)
            },
            imuRows: imuIdx.count, imuFirst_ns: imuIdx.isEmpty ? 0 : rec.imuRows.rows[imuIdx.lowerBound].t_ns,
            imuLast_ns: imuIdx.isEmpty ? 0 : rec.imuRows.rows[imuIdx.upperBound - 1].t_ns,
            groundTruthRows: gt.count, scene: sceneSource, fit: fit, textureCheck: check.result(stamps: plan.imageStamps, names: cameras.map(\.name)))
        let options: [String: String] = [
            "fromRecording": rec.path, "cameras": "\(cameras.count)",
            "cameraModel": cameras[0].model.distortion.yamlName,
            "resolution": "\(cameras[0].model.width)x\(cameras[0].model.height)",
            "imageNoiseSigma": "\(config.effects.noiseSigma)", "motionBlur": "\(config.effects.motionBlur)",
            "exposureVariation": "\(config.effects.exposureVariation)", "imu": "recorded (copied unchanged)",
        ]
        let sim = SimulationInfo(trajectory: "recording", seed: config.seed, seconds: info.span_s,
                                 cameraRate_hz: rec.cam0.rate_hz, imuRate_hz: rec.imuCalibration.rate_hz,
                                 startTime_ns: plan.groundTruthTimes[0], timeOffset_ns: config.timeOffset_ns, options: options)
        do {
            try scene.jsonData(simulation: sim, recording: info).write(to: URL(fileURLWithPath: directory + "/scene.json"))
        } catch {
            throw SimulationError.writeFailed(path: directory + "/scene.json", reason: "\(error)")
        }
        return RecordingSimulationSummary(directory: directory, framesPerCamera: plan.imageStamps.count, cameras: cameras.count,
                                          imuRows: imuIdx.count, groundTruthRows: gt.count, image_s: image_s, info: info)
    }
}

/// FAST-corner counts of rendered images, collected on the PNG writer's queue.
final class TextureTally: @unchecked Sendable {
    private let lock = NSLock()
    private let options: TextureCheckOptions
    private var corners: [Int], cells: [Int], minimum: [Int]
    private let cameras: Int

    init(options: TextureCheckOptions, cameras: Int, frames: Int) {
        self.options = options; self.cameras = cameras
        corners = Array(repeating: 0, count: cameras * frames)
        cells = Array(repeating: 0, count: cameras * frames)
        minimum = Array(repeating: 0, count: cameras * frames)
    }

    func add(frame: Int, camera: Int, image: GrayImage) {
        let found = (try? FeatureDetector.fast(image, threshold: options.fastThreshold)) ?? []
        var grid = [Int](repeating: 0, count: 16)
        for c in found {
            let gx = Swift.min(3, Swift.max(0, Int(Double(c.position.x) * 4 / Double(image.width))))
            let gy = Swift.min(3, Swift.max(0, Int(Double(c.position.y) * 4 / Double(image.height))))
            grid[gy * 4 + gx] += 1
        }
        lock.lock()
        corners[frame * cameras + camera] = found.count
        cells[frame * cameras + camera] = grid.filter { $0 >= 3 }.count
        minimum[frame * cameras + camera] = options.minimumCorners(width: image.width, height: image.height)
        lock.unlock()
    }

    func result(stamps: [TimestampNs], names: [String]) -> TextureCheckResult {
        lock.lock(); defer { lock.unlock() }
        let n = corners.count
        let ok = (0..<n).filter { corners[$0] >= minimum[$0] && cells[$0] >= options.minimumCells }.count
        let sorted = corners.sorted()
        let worst = corners.indices.min { corners[$0] < corners[$1] } ?? 0
        return TextureCheckResult(options: options, images: n, texturedImages: ok, minimumCornersApplied: minimum.max() ?? 0, fractionTextured: n > 0 ? Double(ok) / Double(n) : 0,
                                  minCorners: sorted.first ?? 0, medianCorners: sorted.isEmpty ? 0 : sorted[sorted.count / 2],
                                  maxCorners: sorted.last ?? 0, minCells: cells.min() ?? 0,
                                  worstStamp_ns: stamps.isEmpty ? 0 : stamps[worst / cameras], worstCamera: names.isEmpty ? "" : names[worst % cameras])
    }
}
