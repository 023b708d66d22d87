import ArgumentParser
import Foundation
import Geometry
import Imaging
import OptionsFile
import Sensors
import Vision

/// `worldtrack features`: Run the feature frontend alone and report track quality.
struct FeaturesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "features",
        abstract: "Run the feature frontend alone and report track quality.",
        discussion: """
        Tracks corners through the dataset's cam0 frames (cam0 + cam1 with --stereo) as the \
        estimator's frontend does: FAST corners on an 8×6 grid at least 16 px apart, pyramidal KLT \
        (7-px window, 4 levels) seeded by the gyro rotation between frames, a forward-backward check, \
        epipolar RANSAC, an appearance check against each track's first window (mono), and tracks \
        ended after 25 frames to bound drift. Reports the features per frame, the median track \
        length (frames), how many tracks each test ended, and the median time per frame (ms of CPU \
        time of the tracking thread, image decoding excluded).

        When the dataset was written by `worldtrack simulate` (it has scene.json and ground truth), \
        every track is checked against the truth: the ray of its first pixel is cast into the scene \
        from the true camera pose and the 3-D point found is projected with the true pose at each \
        later observation. The median distance to the tracked pixel and the share of observations \
        more than 2 px off (outliers) are reported, and split by where tracks were born: at a depth \
        edge (4 px to a side the true depth differs by more than 5 %: corners where a near edge \
        crosses farther texture, no 3-D point) or elsewhere. Tracks whose first ray meets nothing \
        (sky) are not checked.

        --draw writes every frame as DIR/000000.png, … with each track as a dot coloured by age (red \
        new, yellow, green 20+ frames) and a trail of its last 10 positions; DIR must be new or empty.

        --json prints one JSON object: frames, features_per_frame_mean, features_per_frame_min, \
        tracks, track_length_median, max_track_step_px, reprojection_error_median_px, outlier_ratio, \
        outlier_track_ratio, depth_edge_observation_share, depth_edge_outlier_ratio, \
        other_outlier_ratio, checked_observations, stereo_match_ratio, ms_per_frame_median (truth \
        fields are null without truth), and the counts summed over the run: tracks_detected, \
        ended_lost, ended_by_forward_backward, ended_by_ransac (ended_by_long_baseline of them), \
        ended_by_appearance, ended_on_still_frame, ended_retired, ended_pruned. Progress goes to \
        stderr. Exit status 2 on bad input.

        Examples:
          worldtrack features ../shared/datasets/euroc-v101-micro
          worldtrack features /tmp/room --json --seconds 10
          worldtrack features /tmp/yard --stereo --budget 300 --draw /tmp/yard-tracks
          worldtrack features /tmp/room --config frontend.yaml
        """)

    @Argument(help: "Dataset folder in the ASL layout (the folder that contains mav0/).")
    var dataset: String

    @Flag(help: "Match every feature into cam1 too (stereo).")
    var stereo = false

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Option(help: "Process only the first S seconds of frames (> 0).")
    var seconds: Double?

    @Option(help: "Feature budget: live tracks at most (>= 1; default 200, or the --config file's frontend.featureBudget).")
    var budget: Int?

    @Option(help: "Read the frontend settings from this YAML file, as `worldtrack run --config` does (`worldtrack config --defaults` prints them all; the other sections are read and checked but unused here); --budget and --contrast override it when given.")
    var config: String?

    @Flag(name: .customLong("no-gyro"), help: "Do not predict feature motion from the gyroscope.")
    var noGyro = false

    @Option(help: "Contrast normalisation: none, clahe or equalize (default none, or the --config file's).")
    var contrast: String?

    @Option(help: "Write every frame with its tracks drawn as PNG into this (new or empty) folder.")
    var draw: String?

    init() {}

    /// Checks the option values; bad ones are bad input (exit 2), like a bad dataset.
    func checkArguments() throws {
        if let seconds, !(seconds > 0 && seconds.isFinite) {
            throw CLIError.badInput("--seconds must be a positive number of seconds (got \(seconds))")
        }
        if let budget, budget < 1 { throw CLIError.badInput("--budget must be >= 1 (got \(budget))") }
        if let contrast, !["none", "clahe", "equalize"].contains(contrast) {
            throw CLIError.badInput("--contrast must be none, clahe or equalize (got \(contrast))")
        }
    }

    func run() throws {
        try checkArguments()
        let loaded: ASLDataset
        do { loaded = try ASLDataset(path: dataset) } catch let error as DatasetError {
            throw CLIError.badInput(error.description)
        }
        guard let cam0 = loaded.cameras.first else { throw CLIError.badInput("\(dataset): no camera") }
        if stereo && loaded.cameras.count < 2 {
            throw CLIError.badInput("\(dataset): --stereo needs cam1, but the dataset has only \(cam0.name)")
        }
        var options = FeatureTrackerOptions()
        if let config {
            do { options = try OptionsFile.read(path: config).frontend } catch let error as OptionsFile.ReadError {
                throw CLIError.badInput(error.description)
            }
            FileHandle.standardError.write(Data("features: frontend settings from \(config)\n".utf8))
        }
        // The flags override the configuration file only when given.
        if let budget { options.featureBudget = budget }
        switch contrast {
        case "clahe": options.contrast = .clahe(clipLimit: 2)
        case "equalize": options.contrast = .equalizeHistogram
        case "none": options.contrast = .none
        default: break
        }
        do { try options.validate() } catch { throw CLIError.badInput("\(config.map { "\($0): " } ?? "")\(error)") }
        let tracker: FeatureTracker
        do {
            tracker = try FeatureTracker(camera: cam0.calibration, rightCamera: stereo ? loaded.cameras[1].calibration : nil,
                                         options: options)
        } catch { throw CLIError.badInput("\(dataset): \(error)") }
        let truth = try FeaturesGroundTruth.load(dataset: loaded)
        var drawing = try draw.map { try FeaturesDrawing(directory: $0) }

        let run = try FeaturesRun(dataset: loaded, tracker: tracker, truth: truth, stereo: stereo, useGyro: !noGyro,
                                  seconds: seconds, drawing: &drawing)
        let report = FeaturesReport(summary: run.summary, milliseconds: run.milliseconds, stereoMatchRatio: stereo ? run.stereoMatchRatio : nil,
                                    hasTruth: truth != nil, counts: run.counts)
        let output = json ? report.json() : report.text()
        FileHandle.standardOutput.write(Data((output + "\n").utf8))
    }
}

/// One pass of the tracker over a dataset's frames, with timing and quality figures.
struct FeaturesRun {
    private(set) var summary = TrackQualitySummary()
    private(set) var milliseconds: [Double] = []
    private(set) var stereoMatchRatio: Double = 0
    /// The tracker's per-frame counts summed over the run: where tracks started and why they ended.
    private(set) var counts = FeatureTrackingStats()

    init(dataset: ASLDataset, tracker: FeatureTracker, truth: FeaturesGroundTruth?, stereo: Bool, useGyro: Bool,
         seconds: Double?, drawing: inout FeaturesDrawing?) throws {
        let T_B_C = tracker.camera.T_B_C
        var quality = TrackQualityAccumulator(camera: tracker.camera.model)
        var gyro: [IMUSample] = []
        let first = dataset.cameras[0].firstT_ns ?? 0
        let end: TimestampNs? = seconds.map { first + Time.nanoseconds($0) }
        let total = dataset.cameras[0].frames.filter { end == nil || $0.t_ns <= end! }.count
        var frameIndex = 0, matched = 0, features = 0
        for event in dataset.events(stereo: stereo) {
            var left: CameraFrameRef?, right: CameraFrameRef?
            switch event {
            case .imu(let sample):
                gyro.append(sample)
                continue
            case .stereoFrame(let l, let r): left = l; right = stereo ? r : nil
            case .frame(let camera, let f): if camera == 0 { left = f }
            }
            guard let left else { continue }
            if let end, left.t_ns > end { break }
            if stereo && right == nil { continue } // unpaired left frame of a stereo run
            let image = try Self.decode(left)
            let rightImage = try right.map(Self.decode)
            // Gyro samples since a little before the previous frame (interpolation needs one earlier sample).
            if let last = tracker.lastFrameT_ns, let k = gyro.lastIndex(where: { $0.t_ns <= last }), k > 0 {
                gyro.removeFirst(k)
            }
            let start = ThreadCPUClock.nanoseconds()
            let result: FeatureFrameResult
            do {
                result = useGyro ? try tracker.track(image, right: rightImage, t_ns: left.t_ns, gyroSamples: gyro)
                    : try tracker.track(image, right: rightImage, t_ns: left.t_ns)
            } catch let error as VisionError {
                throw CLIError.badInput("\(left.path): \(error)")
            } catch {
                throw CLIError.failure("\(left.path): \(error)")
            }
            milliseconds.append(Double(ThreadCPUClock.nanoseconds() - start) / 1e6)
            let T_W_C = truth.flatMap { $0.T_W_B(imageStamp: left.t_ns) }.map { $0 * T_B_C }
            quality.add(result, T_W_C: T_W_C, raycast: truth.map { t in { t.raycast(origin_W: $0, direction_W: $1) } })
            matched += result.stats.stereoMatched
            counts.accumulate(result.stats)
            features += result.features.count
            if drawing != nil { try drawing!.draw(result, on: image, index: frameIndex) }
            frameIndex += 1
            if frameIndex % 100 == 0 {
                FileHandle.standardError.write(Data("features: frame \(frameIndex)/\(total), \(result.features.count) features\n".utf8))
            }
        }
        guard frameIndex > 0 else { throw CLIError.badInput("\(dataset.path): no frames to track") }
        summary = quality.summary()
        stereoMatchRatio = features > 0 ? Double(matched) / Double(features) : 0
    }

    static func decode(_ frame: CameraFrameRef) throws -> GrayImage {
        do { return try ImageCodec.decodeGray(contentsOf: frame.path) } catch {
            throw CLIError.badInput("\(frame.path): \(error)")
        }
    }
}
