import Consumers
import Estimation
import Foundation
import Geometry
import Imaging
import Sensors
import Vision
import World
import WorldMap

/// Settings of one tracking run.
public struct PipelineOptions: Sendable {
    /// Track with both cameras (cam0 left, cam1 right) when the dataset has them.
    public var stereo = false
    /// Skip the first S seconds of camera data, seconds from the dataset's first frame: frames before
    /// `firstFrame + start_s` are not processed (not decoded, not tracked), so the run begins mid-sequence at the
    /// first frame at or after that time. The IMU still flows from the dataset's start (the estimator keeps only the
    /// last `max(staticWindow, dynamicWindow) + 0.5` s of it, what its initialisation needs). Must be finite and ≥ 0;
    /// nil (or 0) starts at the first frame. With a start, `max_s`, the summary's `dataset_s` and `secondsToNormal`,
    /// the progress and `realtime` pacing all count from the first processed frame.
    public var start_s: Double?
    /// Stop after this many seconds of camera data, counted from the first processed frame (the dataset's first
    /// frame, or the first at or after `start_s`); nil runs to the end.
    public var max_s: Double?
    /// Frame records list the mapped points the frame sees (`points`: ids and world positions of the world map's
    /// landmarks whose feature tracks are in this frame, ARKit's `rawFeaturePoints`), while tracking is normal.
    public var streamPoints = false
    /// Frame conventions of the records' poses, points and normals (`run --convention`): WorldTrack's own (z-up world,
    /// OpenCV camera) or ARKit's (y-up world, camera looking down −z). The consumers given to the pipeline must be
    /// made with the same (`ConsumerFactory.make(_:convention:)`).
    public var convention = StreamConvention.worldtrack
    /// Follow each `frame` record with a `world_input` record: what the world layer received (exact poses,
    /// landmarks, the calibration in the first one), so `worldtrack replay` can drive consumers without re-tracking.
    public var streamWorldInput = false
    /// Pace the replay like the recording (sleep between frames) instead of running flat out.
    public var realtime = false
    /// Frontend settings.
    public var frontend = FeatureTrackerOptions()
    /// Estimator settings. A dynamic initialisation try (some 30 ms) runs on a worker thread and its outcome is taken
    /// by the next frame (`InertialInitializerOptions.dynamicInitializationOnWorker`), so a start in motion or a
    /// re-initialisation does not stall a frame; the estimates stay those of the tries run in place.
    public var estimator: EstimatorConfiguration = {
        var estimator = EstimatorConfiguration()
        estimator.initializer.dynamicInitializationOnWorker = true
        return estimator
    }()
    /// World layer (landmarks, planes, anchors) settings. Plane detection runs on a worker thread and its planes are
    /// applied six frames after the frame it started at (`WorldOptions.detectionDelayFrames`; 300 ms at 20 Hz, while
    /// detections start every 100 ms and queue), so it does not stall tracking even when the worker gets a core only
    /// now and then; the output stays the same for a given input.
    public var world: WorldOptions = {
        var world = WorldOptions()
        world.detectionDelayFrames = 6
        return world
    }()
    /// Map reuse: re-observing earlier triangulated points to hold the drift.
    public var mapReuse = MapReuseOptions()
    /// Record what `TrackingPipeline.worldMap()` saves besides the map reuse's points (`run --save-map`): keyframes and
    /// the landmarks too imprecise for the map reuse but good enough to be recognised (`WorldMapRecorder`); needs map
    /// reuse.
    public var recordWorldMap = false
    /// How a loaded world map is found again (`TrackingPipeline(…, worldMap:)`, `run --load-map`).
    public var relocalization = RelocalizationOptions()
    /// Frames excluded from the profile at the start.
    public var profileWarmupFrames = 10
    /// Threads: 1 runs every stage in turn on the calling thread; 2 reads and decodes the next frames on one thread
    /// and tracks their features on another (`FrontHalfThread`: up to 8 frames in each queue) while the calling
    /// thread runs the estimator and the rest on the current one; the three share the cores with the plane
    /// detection's worker. The frontend uses nothing the estimator computes, so the output is the same.
    public var threads = 1

    public init() {}
}

/// Progress of a run, reported about once per second of processing.
public struct PipelineProgress: Sendable {
    /// Frames processed so far.
    public var frames: Int
    /// Frames the run will process in all.
    public var totalFrames: Int
    /// Dataset time processed, seconds since the first frame.
    public var dataset_s: Double
    /// Wall time so far, seconds.
    public var wall_s: Double
    /// The latest tracking state.
    public var trackingState: TrackingState
}

/// What one frame produced, for callers that want more than the stream (tests, benchmarks).
public struct PipelineFrameResult {
    /// The frontend's features.
    public var features: FeatureFrameResult
    /// The estimator's answer.
    public var estimate: EstimatorOutput
    /// The world layer's frame (planes, anchors in view, events).
    public var world: WorldFrame
    /// The records streamed for this frame (frame record, anchor events, consumer records).
    public var records: [any StreamRecord]
}

/// The outcome of a run.
public struct PipelineSummary: Sendable {
    /// Frames processed.
    public var frames: Int
    /// Frames per tracking state (by its string form).
    public var trackingStateCounts: [String: Int]
    /// Pose of the body in the world at every frame whose estimate is usable (tracking `normal`, or
    /// `limited` for a reason other than initialising or relocalising).
    public var bodyTrajectory: [StampedPose]
    /// Dataset time covered, seconds.
    public var dataset_s: Double
    /// Wall time of the run, seconds.
    public var wall_s: Double
    /// Per-stage timing statistics, milliseconds per frame.
    public var stages: [StageStatistics]
    /// Whole-pipeline timing statistics per frame.
    public var total: StageStatistics?
    /// Time from the first frame to the first `normal` state, seconds; nil if never normal.
    public var secondsToNormal: Double?
    /// Frames skipped because an image could not be decoded (each was reported through `onWarning`).
    public var skippedImages: [SkippedImage] = []
    /// True when the run ended before the end of the data because `shouldStop` asked it to.
    public var stoppedEarly = false
    /// The estimator's output for the last frame processed (its calibration estimates: time offset, mounting).
    public var lastEstimate: EstimatorOutput?
    /// With a loaded world map: where and when the run found it (nil: not found).
    public var relocalization: Relocalization?
    /// With a loaded world map: places accepted and later revoked (`RelocalizationOptions.revokesContradictedPlace`).
    public var revokedRelocalizations: [Revocation] = []
    /// How many times the estimator refused to start in motion because the window's tracks did not determine the
    /// speed, and so the scale (`EstimatorDiagnostics.undeterminedSpeed`).
    public var undeterminedSpeedRefusals = 0
    /// The last of those refusals.
    public var lastUndeterminedSpeed: UndeterminedSpeed?
}

/// A frame the pipeline skipped because its image file could not be decoded (corrupt data).
public struct SkippedImage: Error, Sendable, Equatable {
    /// Frame time, ns.
    public var t_ns: TimestampNs
    /// The image file.
    public var path: String
    /// What the decoder said.
    public var reason: String
}

/// Runs a dataset through the whole pipeline: image decode → feature frontend (with gyro-predicted
/// tracks) → visual-inertial estimator → map reuse (`MapReobserver`) → world layer (landmarks, planes, anchors) → consumers and the
/// JSON-Lines stream. One instance runs one dataset once.
public final class TrackingPipeline {
    public let dataset: ASLDataset
    public let options: PipelineOptions
    public let profiler: StageProfiler

    private let tracker: FeatureTracker
    private let estimator: VIOEstimator
    /// The map's scale as the estimator holds it (`VIOEstimator.mapScale`) and as the map reuse's points are at
    /// (`MapReobserver.scale`; nil without map reuse), for diagnostics: the map follows the estimator at the start of
    /// each frame's map reuse, so after a frame the map lags by that frame's updates.
    var mapScales: (estimator: Double, map: Double?) { (estimator.mapScale, reobserver?.scale) }
    private let session: WorldSession
    private let consumers: [any FrameConsumer]
    private let writers: [StreamWriter]
    private let camera: CameraCalibration
    /// The right camera's model and its pose in the left camera's frame (`T_C0_C1`), when tracking stereo.
    private let rightCamera: (model: CameraModel, T_C0_C1: SE3)?
    private let reobserver: MapReobserver?
    private let loadedMap: WorldMap?
    private let relocalizer: Relocalizer?
    private let recorder: WorldMapRecorder?
    private var lastFrame_ns: TimestampNs = 0
    /// Ids of loaded map points in the map reuse are the map's plus this (feature track ids stay far below).
    static let loadedIdBase = 1 << 40

    /// A pipeline over `dataset`. Records go to each of `writers` (none: no stream).
    ///
    /// With a `worldMap` (a saved world, `WorldMapFile`), tracking starts in the run's own frame but reports
    /// `limited(relocalizing)` until the `Relocalizer` finds the map; from then on every pose, landmark, plane and
    /// anchor is reported in the map's frame (the estimator stays in its own), the map's points join the map
    /// reuse (so the estimator re-observes them) and its user anchors come back as `anchor.added`.
    /// - Throws: `PipelineError.badInput` when the dataset cannot be tracked with these options.
    public init(dataset: ASLDataset, options: PipelineOptions = PipelineOptions(),
                consumers: [any FrameConsumer] = [], writers: [StreamWriter] = [], worldMap: WorldMap? = nil) throws {
        guard let cam0 = dataset.cameras.first else { throw PipelineError.badInput("\(dataset.path): the dataset has no camera") }
        guard !dataset.imu.samples.isEmpty else { throw PipelineError.badInput("\(dataset.path): the dataset has no IMU samples") }
        if let start = options.start_s {
            guard start.isFinite, start >= 0 else {
                throw PipelineError.badInput("start_s \(start): must be a finite number of seconds ≥ 0")
            }
            let frames = dataset.cameras[0].frames
            if let first = frames.first?.t_ns, let last = frames.last?.t_ns, last < Self.startTime(first, start_s: start) {
                let span = String(format: "%.2f", Time.seconds(last - first))
                throw PipelineError.badInput("\(dataset.path): no camera frames after \(start) s (cam0 spans \(span) s)")
            }
        }
        if options.stereo && dataset.cameras.count < 2 {
            throw PipelineError.badInput("\(dataset.path): --stereo needs cam0 and cam1, but the dataset has only \(dataset.cameras.count) camera")
        }
        self.dataset = dataset
        self.options = options
        self.camera = cam0.calibration
        let right = options.stereo ? dataset.cameras[1].calibration : nil
        rightCamera = right.map { ($0.model, cam0.calibration.T_B_C.inverse * $0.T_B_C) }
        do {
            tracker = try FeatureTracker(camera: cam0.calibration, rightCamera: right, options: options.frontend)
        } catch {
            throw PipelineError.badInput("frontend: \(error)")
        }
        let cameras = options.stereo ? [cam0.calibration, dataset.cameras[1].calibration] : [cam0.calibration]
        var estimatorConfiguration = options.estimator
        // The map's scale is a state only where there is a map to scale.
        if !options.mapReuse.enabled { estimatorConfiguration.state.mapScale.estimateMono = false }
        estimator = VIOEstimator(configuration: estimatorConfiguration, cameras: cameras, imu: dataset.imu.calibration)
        session = WorldSession(options: options.world)
        reobserver = options.mapReuse.enabled ? MapReobserver(camera: cam0.calibration, options: options.mapReuse, stereo: options.stereo) : nil
        if (worldMap != nil || options.recordWorldMap) && reobserver == nil {
            throw PipelineError.badInput("saving or loading a world map needs map reuse (mapReuse.enabled; not --no-map-reuse)")
        }
        loadedMap = worldMap
        relocalizer = worldMap.map { Relocalizer(map: $0, camera: cam0.calibration, options: options.relocalization, stereo: options.stereo) }
        recorder = options.recordWorldMap ? WorldMapRecorder() : nil
        self.consumers = consumers
        self.writers = writers
        profiler = StageProfiler(warmupFrames: options.profileWarmupFrames)
    }

    /// Time of the first frame the run processes (set when `run` starts), ns.
    public private(set) var firstFrame_ns: TimestampNs?

    /// What the run had done when it last stopped, normally or not: after a thrown error this is the
    /// summary up to the last completed frame (so a caller can still report and save it).
    public private(set) var summarySoFar: PipelineSummary?

    /// Runs to the end of the dataset (or `max_s`), from its first frame (or the first at or after `start_s`).
    ///
    /// A frame whose image cannot be decoded (corrupt data) is skipped: `onWarning` gets one message naming
    /// the file, the IMU keeps flowing, and the frame is listed in the summary's `skippedImages`.
    /// - Parameters:
    ///   - progress: called about once per second of wall time.
    ///   - onFrame: called after each frame with everything it produced.
    ///   - onPose: called with each frame's body pose that goes into `bodyTrajectory`, as soon as the
    ///     estimator has it (before the frame's records are written), so a caller can save it at once.
    ///   - onWarning: called with a one-line message for each skipped frame, once when the estimator first refuses to
    ///     start in motion (`EstimatorDiagnostics.undeterminedSpeed`), and after the last frame with each consumer's
    ///     `finishWarnings` (a cursor place time the data never reached).
    ///   - shouldStop: polled before each frame; `true` ends the run there (the summary says `stoppedEarly`).
    public func run(progress: ((PipelineProgress) -> Void)? = nil,
                    onFrame: ((PipelineFrameResult) -> Void)? = nil,
                    onPose: ((StampedPose) -> Void)? = nil,
                    onWarning: ((String) -> Void)? = nil,
                    shouldStop: (() -> Bool)? = nil) throws -> PipelineSummary {
        let wallStart = DispatchTime.now().uptimeNanoseconds
        var lastProgress = wallStart
        let frames = dataset.cameras[0].frames
        guard let datasetFirstT = frames.first?.t_ns else { throw PipelineError.badInput("\(dataset.path): cam0 has no images") }
        // Frames before `startT` are skipped; `firstFrameT` is the first processed one, the origin of every
        // run-relative time (max_s, dataset_s, secondsToNormal, progress, pacing).
        let startT = Self.startTime(datasetFirstT, start_s: options.start_s ?? 0)
        guard let firstFrameT = frames.first(where: { $0.t_ns >= startT })?.t_ns else {
            throw PipelineError.badInput("\(dataset.path): no camera frames after \(options.start_s ?? 0) s")
        }
        firstFrame_ns = firstFrameT
        let endT: TimestampNs = options.max_s.map { firstFrameT + Time.nanoseconds($0) } ?? TimestampNs.max
        let inRange = frames.filter { $0.t_ns >= startT && $0.t_ns <= endT }
        let totalFrames = inRange.count

        var frameCount = 0
        var stateCounts: [String: Int] = [:]
        var trajectory: [StampedPose] = []
        var lastState = TrackingState.notAvailable
        var firstNormalT: TimestampNs?
        var skipped: [SkippedImage] = []
        var stoppedEarly = false
        var lastProcessedT: TimestampNs?
        var lastEstimate: EstimatorOutput?
        var streamedCamera: CameraCalibration?
        var undeterminedSpeedRefusals = 0
        var lastUndeterminedSpeed: UndeterminedSpeed?

        func summary(completed: Bool) -> PipelineSummary {
            let wall = Double(DispatchTime.now().uptimeNanoseconds - wallStart) * 1e-9
            let lastT = trajectory.last?.t_ns ?? firstFrameT
            let dataEnd = completed ? (inRange.last?.t_ns ?? firstFrameT) : (lastProcessedT ?? firstFrameT)
            return PipelineSummary(frames: frameCount, trackingStateCounts: stateCounts, bodyTrajectory: trajectory,
                                   dataset_s: Time.seconds(max(lastT, dataEnd) - firstFrameT),
                                   wall_s: wall, stages: profiler.statistics, total: profiler.total,
                                   secondsToNormal: firstNormalT.map { Time.seconds($0 - firstFrameT) },
                                   skippedImages: skipped, stoppedEarly: stoppedEarly, lastEstimate: lastEstimate,
                                   relocalization: relocalizer?.result, revokedRelocalizations: relocalizer?.revocations ?? [],
                                   undeterminedSpeedRefusals: undeterminedSpeedRefusals, lastUndeterminedSpeed: lastUndeterminedSpeed)
        }
        summarySoFar = nil
        defer { if summarySoFar == nil { summarySoFar = summary(completed: false) } }

        // IMU ahead of each frame as far as the estimator's camera–IMU time offset may reach (0: none).
        let lookahead = options.estimator.state.timeOffset.imuLookahead_ns
        let stopT = endT > TimestampNs.max - lookahead ? TimestampNs.max : endT + lookahead
        let front = FrontHalf(events: dataset.events(stereo: options.stereo, imuLookaheadNs: lookahead), tracker: tracker,
                              stereo: options.stereo, startT: startT, endT: endT, stopT: stopT,
                              imuGapLimit_ns: options.estimator.tracking.sensorGap.enabled
                                  ? Time.nanoseconds(options.estimator.tracking.sensorGap.imuGap_s(imuRate_hz: dataset.imu.calibration.rate_hz))
                                  : nil,
                              loadImage: loadImage)
        let frontThread = options.threads > 1 ? FrontHalfThread(front) : nil
        frontThread?.start()
        defer { frontThread?.stop() }
        while let work = frontThread?.next() ?? (frontThread == nil ? front.next() : nil) {
            for sample in work.imu { profiler.measure(.propagation) { estimator.addIMU(sample) } }
            guard let left = work.left else { continue }
            if let shouldStop, shouldStop() { stoppedEarly = true; break }
            if options.realtime { pace(datasetT: left.t_ns - firstFrameT, wallStart: wallStart) }

            profiler.add(.decode, nanoseconds: work.decode_ns)
            if let skip = work.skipped {
                // Like an absent image: the frame is left out, the IMU goes on.
                skipped.append(skip)
                onWarning?("\(skip.path): \(skip.reason); frame \(skip.t_ns) skipped")
                continue
            }
            guard let images = work.images, let tracked = work.features else { continue }
            profiler.add(.frontend, nanoseconds: work.frontend_ns)
            let features = try tracked.get()

            let featureFrame = FeatureFrame(
                t_ns: left.t_ns,
                observations: features.features.map {
                    FeatureObservation(id: $0.id, camera: 0, normalized: $0.normalized, rightNormalized: $0.rightNormalized)
                },
                imageDisparity_px: features.meanDisparity_px, visualRotation_Cnew_Cold: features.visualRotation_Cnew_Cold)
            var estimate = profiler.measure(.update) { estimator.addFrame(featureFrame) }
            // A row only for runs that tried to start in motion (a row of zeros otherwise).
            let initWorker_ns = estimator.lastDiagnostics.initWorkerCPU_ns
            if initWorker_ns > 0 { profiler.add(.initWorker, nanoseconds: initWorker_ns) }
            if let undetermined = estimator.lastDiagnostics.undeterminedSpeed {
                undeterminedSpeedRefusals += 1
                lastUndeterminedSpeed = undetermined
                if undeterminedSpeedRefusals == 1 {
                    // Once, when it first happens: until then a live consumer sees only `limited(initializing)`.
                    onWarning?(String(format: "t = %.2f s: cannot start in motion yet: the images do not fix the speed, and so the scale "
                                      + "(%.2f m/s, undetermined by ±%.2f m/s); circling at an even speed while facing the centre does "
                                      + "this. Tracking starts once the device rests for a second or the motion changes.",
                                      Time.seconds(left.t_ns - firstFrameT), undetermined.speed, undetermined.tolerance))
                }
            }
            lastProcessedT = left.t_ns
            // Map reuse: points mapped earlier and seen again refine this frame's pose.
            if let reobserver {
                try profiler.measure(.mapReuse) {
                    try reobserver.describeNewTracks(features.features, image: images.0, t_ns: left.t_ns)
                    reobserver.follow(scale: estimator.mapScale)
                    // Points are mapped only while tracking is normal; after a sensor gap the map is what
                    // re-anchors position and heading, so it is re-observed then too.
                    let normal = estimate.trackingState == .normal
                    guard normal || estimate.trackingState == .limited(.sensorGap) else { return }
                    if normal { reobserver.add(estimate.landmarks, t_ns: left.t_ns) }
                    let offered = reobserver.observations(features.features, T_W_C: estimate.T_W_C, t_ns: left.t_ns)
                    let (refined, result) = estimator.addMapObservations(offered, at: left.t_ns)
                    reobserver.applied(result, offered: offered, t_ns: left.t_ns)
                    if let refined { estimate = refined }
                }
            }
            // A loaded world map: found, then reported in its frame (the estimator keeps its own).
            var restored: [AnchorEvent] = []
            if let relocalizer {
                try profiler.measure(.mapReuse) {
                    let searching = estimate.trackingState == .normal
                        || (options.relocalization.searchWhileInitializing && estimate.trackingState == .limited(.initializing)
                            && estimate.positionStd_m.isFinite)
                    if relocalizer.result == nil, searching,
                       let found = try relocalizer.attempt(features.features, landmarks: estimate.landmarks, image: images.0, T_W_C: estimate.T_W_C, t_ns: left.t_ns) {
                        restored = relocalized(found, t_ns: left.t_ns)
                    }
                }
                // A place the run's own structure contradicts since it was accepted is revoked: what was reported in
                // it is withdrawn and the search goes on.
                if relocalizer.result != nil, estimate.trackingState == .normal, let reobserver,
                   let revocation = relocalizer.watch(own: reobserver.unorderedMapPoints.filter { $0.id < Self.loadedIdBase }
                                                        .map { (id: $0.id, p_W: $0.p_W, std_m: $0.std_m) }, t_ns: left.t_ns) {
                    restored += revoked(revocation, t_ns: left.t_ns)
                }
                if let found = relocalizer.result {
                    estimate = estimate.transformed(by: found.T_Ws_W)
                } else if estimate.trackingState != .notAvailable {
                    estimate.trackingState = .limited(.relocalizing)
                }
            }
            lastFrame_ns = left.t_ns
            if let recorder, let reobserver, estimate.trackingState == .normal {
                recorder.consider(features.features, T_W_C: estimate.T_W_C, t_ns: left.t_ns, reobserver: reobserver)
                recorder.add(estimate.landmarks, t_ns: left.t_ns, reobserver: reobserver)
            }

            lastEstimate = estimate
            let usable = TrackingPipeline.isUsable(estimate.trackingState)
            if usable { onPose?(StampedPose(t_ns: estimate.poseTime_ns, pose: estimate.T_W_B)) }
            let worldInput = WorldFrameInput(
                t_ns: left.t_ns, trackingState: estimate.trackingState, T_W_C: estimate.T_W_C, T_W_B: estimate.T_W_B,
                camera: camera, landmarks: estimate.landmarks, featureCount: features.features.count, image: images.0,
                estimate: estimate, stereoView: images.1.flatMap { right in
                    rightCamera.map { SecondView(image: right, camera: $0.model, T_C0_C1: $0.T_C0_C1) }
                })
            let worldFrame = profiler.measure(.planes) { session.process(worldInput) }
            if options.world.detectionDelayFrames > 0 { profiler.add(.planeWorker, nanoseconds: session.workerDetectionCPU_ns) }

            let records = try profiler.measure(.consumers) { () throws -> [any StreamRecord] in
                let convention = options.convention
                var frameRecord = FrameRecord(worldFrame, convention: convention)
                if options.streamPoints, worldFrame.isTrackingNormal {
                    let map = worldFrame.session.map
                    frameRecord.points = features.features.compactMap { f in
                        map.landmark(id: f.id).map { FeaturePointJSON(id: f.id, position: StreamJSON.array(convention.point($0.p_W))) }
                    }
                }
                var records: [any StreamRecord] = [frameRecord]
                if options.streamWorldInput {
                    records.append(WorldInputRecord(worldInput, includeCamera: streamedCamera != worldInput.camera))
                    streamedCamera = worldInput.camera
                }
                records += (restored + worldFrame.events).map { AnchorEventRecord($0, convention: convention) }
                for consumer in consumers { records += try consumer.consume(worldFrame) }
                for writer in writers { try writer.write(records) }
                return records
            }
            profiler.endFrame(t_ns: left.t_ns)

            frameCount += 1
            stateCounts[estimate.trackingState.description, default: 0] += 1
            lastState = estimate.trackingState
            if estimate.trackingState == .normal && firstNormalT == nil { firstNormalT = left.t_ns }
            if usable {
                // Stamped in the IMU (ground-truth) clock: the time the image was taken, t_cam + t̂_d.
                trajectory.append(StampedPose(t_ns: estimate.poseTime_ns, pose: estimate.T_W_B))
            }
            onFrame?(PipelineFrameResult(features: features, estimate: estimate, world: worldFrame, records: records))

            let now = DispatchTime.now().uptimeNanoseconds
            if let progress, now - lastProgress > 1_000_000_000 {
                lastProgress = now
                progress(PipelineProgress(frames: frameCount, totalFrames: totalFrames,
                                          dataset_s: Time.seconds(left.t_ns - firstFrameT),
                                          wall_s: Double(now - wallStart) * 1e-9, trackingState: lastState))
            }
        }
        let finalRecords = try consumers.flatMap { try $0.finish() }
        for writer in writers { try writer.write(finalRecords) }
        for warning in consumers.flatMap(\.finishWarnings) { onWarning?(warning) }

        let done = summary(completed: !stoppedEarly)
        summarySoFar = done
        return done
    }

    /// The loaded map was found: its points join the map reuse (in the run's frame) and the world layer's landmark map
    /// (in the map's frame, which the world layer reports in), and its planes and anchors come back.
    private func relocalized(_ found: Relocalization, t_ns: TimestampNs) -> [AnchorEvent] {
        guard let loadedMap else { return [] }
        let T_W_Ws = found.T_Ws_W.inverse
        // The alignment is known to a few centimetres and a fraction of a degree: say so to the filter, so that the map's
        // points, re-observed from the next frame on, pull its pose onto the map instead of being gated out.
        estimator.inflateGauge(yaw_rad: options.relocalization.alignmentYawStd_rad, position_m: options.relocalization.alignmentStd_m)
        reobserver?.insert(loadedMap.points.filter { $0.std_m <= options.mapReuse.pointStdBound_m(stereo: options.stereo) }.map {
            MapReobserver.MapPoint(id: Self.loadedIdBase + $0.id, p_W: T_W_Ws.act($0.p_W), std_m: $0.std_m,
                                   descriptor: $0.descriptor, lastSeen_ns: t_ns)
        }, t_ns: t_ns)
        let planes = loadedMap.planes.map { WorldMapConversion.plane(restoring: $0, t_ns: t_ns) }
        let landmarks = loadedMap.points.map { Landmark(id: Self.loadedIdBase + $0.id, p_W: $0.p_W, std_m: $0.std_m) }
        return session.restore(planes: planes, landmarks: landmarks, t_ns: t_ns)
            + loadedMap.anchors.map { session.restoreAnchor(id: $0.id, name: $0.name, T_W_A: $0.T_W_A, t_ns: t_ns) }
    }

    /// The accepted place was revoked: the loaded map's points leave the map reuse (they stood at the wrong place in the
    /// run's frame), and everything reported in the wrong map frame is withdrawn — the world layer forgets its planes,
    /// anchors and landmarks (`anchor.removed` events, returned) and the recorder its keyframes and points. The run's own
    /// map-reuse points stay (they are in its own frame, which was never wrong).
    private func revoked(_ revocation: Revocation, t_ns: TimestampNs) -> [AnchorEvent] {
        reobserver?.remove(where: { $0 >= Self.loadedIdBase })
        recorder?.removeAll()
        return session.reset(t_ns: t_ns)
    }

    /// The world map as it stands (after `run`, or after it stopped): the map reuse's points, the keyframes
    /// (with `recordWorldMap`), planes and user anchors, in the reported frame (a loaded map's once it was found).
    /// A run that loaded a map and never found it returns the loaded map unchanged (nothing it saw can be placed in it).
    public func worldMap() -> WorldMap {
        if let loadedMap, relocalizer?.result == nil { return loadedMap }
        return WorldMapConversion.map(points: reobserver?.mapPoints ?? [], mapScale: reobserver?.scale ?? 1,
                                      recorded: recorder, T_Ws_W: relocalizer?.result?.T_Ws_W ?? .identity,
                                      loaded: loadedMap.map { ($0.points, $0.keyframes, Self.loadedIdBase) }, session: session,
                                      saved_ns: lastFrame_ns)
    }

    /// The time `start_s` seconds after the dataset's first frame, ns (saturating: a start past the end of the
    /// Int64 clock is "never").
    static func startTime(_ first: TimestampNs, start_s: Double) -> TimestampNs {
        guard start_s > 0 else { return first }
        guard start_s < 9.2e9 else { return .max }
        let (t, overflow) = first.addingReportingOverflow(Time.nanoseconds(start_s))
        return overflow ? .max : t
    }

    /// True for states whose pose is worth writing to a trajectory file.
    public static func isUsable(_ state: TrackingState) -> Bool {
        switch state {
        case .normal: return true
        case .notAvailable: return false
        case .limited(let reason): return reason == .excessiveMotion || reason == .insufficientFeatures || reason == .sensorGap
        }
    }

    /// The frame's image; a decode failure is a `SkippedImage` (message without the path, which it names).
    private func loadImage(_ ref: CameraFrameRef) throws -> GrayImage {
        do { return try ref.loadImage() } catch let error as ImagingError {
            let reason: String
            switch error {
            case let .decode(_, message): reason = "cannot decode image: \(message)"
            case let .fileIO(_, message): reason = "cannot read image: \(message)"
            default: reason = error.description
            }
            throw SkippedImage(t_ns: ref.t_ns, path: ref.path, reason: reason)
        }
    }

    private func pace(datasetT: TimestampNs, wallStart: UInt64) {
        let due = wallStart + UInt64(max(0, datasetT))
        let now = DispatchTime.now().uptimeNanoseconds
        if due > now { usleep(UInt32(min(UInt64(UInt32.max), (due - now) / 1000))) }
    }
}

/// Errors of a pipeline run.
public enum PipelineError: Error, CustomStringConvertible {
    /// The dataset or options cannot be used.
    case badInput(String)
    public var description: String {
        switch self { case .badInput(let m): return m }
    }
}
