import Foundation
import Geometry
import LinearAlgebra
import Sensors

/// A visual-inertial odometry estimator: an error-state EKF over the IMU state with stochastic clones
/// of the last `maxClones` body poses and MSCKF visual updates (OpenVINS-style), static
/// initialisation, zero-velocity updates, and an ARKit-like tracking state.
///
/// Feed IMU samples in time order with `addIMU`, and after the samples up to a frame's time, the
/// frame's feature observations with `addFrame`; each frame returns the estimate at its time.
///
/// ```swift
/// let vio = VIOEstimator(configuration: .init(), cameras: [cam0], imu: imuCalibration)
/// for s in imuSamples where s.t_ns <= frame.t_ns { vio.addIMU(s) }
/// let out = vio.addFrame(frame)   // out.T_W_B, out.trackingState, …
/// ```
///
/// Frames: W is gravity-aligned (z up), fixed at initialisation (origin at the body, yaw 0); B is the
/// body frame; IMU samples given in the IMU sensor frame S are rotated into B with
/// `imu.T_B_S.rotation` (the lever arm is neglected). Not thread-safe: use it from one thread.
public final class VIOEstimator {
    /// The settings in use.
    public let configuration: EstimatorConfiguration
    /// Cameras, indexed by `FeatureObservation.camera`.
    public let cameras: [CameraCalibration]
    /// IMU calibration.
    public let imu: IMUCalibration

    private var buffer = IMUBuffer()
    /// The inertial state's first estimate at the filter's time: the propagated value before the update.
    private var imuFirstEstimate: IMUState?
    private var filter: FilterState?
    /// When the filter was (last) initialised, ns: starts `state.accelRandomWalkWarmup_s`.
    private var initialized_ns: TimestampNs?
    private var features = FeatureDatabase()
    /// Static or dynamic initialisation, with its window of recent frames.
    private var initializer: InertialInitializer
    private var propagator: IMUPropagator
    /// The IMU's measured white-noise level (vibration included), when `state.adaptiveIMUNoise` is on.
    private var noiseEstimator: IMUNoiseEstimator?
    private let msckf: MSCKFUpdater
    /// Looks for the floor until it is in the state (`FloorOptions`); a new one at every initialisation.
    private var floorDetector: FloorDetector
    private let zupt: ZeroVelocityUpdater
    private let mapUpdater: MapPointUpdater
    private let R_B_S: SO3

    private var previousFrame: [Int: Vec2] = [:]
    /// Camera 0's tracks over the last `stillImageBaseline_s`, for the still-image test.
    private var imageMotion: ImageMotionHistory
    private var lastFrameTime: TimestampNs?
    /// The last frame given to `addFrame` while the filter was not initialised: a dynamic try on the worker thread
    /// (`InertialInitializerOptions.dynamicInitializationOnWorker`) aligns the window that ends with it, and the
    /// next frame applies its outcome there.
    private var lastUninitializedFrame: FeatureFrame?
    private var relocalizing = false
    private var failedStreak = 0
    /// Pose and yaw to continue from after a reset (keeps W continuous across a re-initialisation).
    private var lastGood: IMUState?
    /// The time offset to continue from after a reset, seconds.
    private var lastGoodTimeOffset_s: Double?
    /// Camera 0's mounting to continue from after a reset (when it is estimated).
    private var lastGoodMounting: SE3?
    /// The map's scale to continue from after a reset (the map outlives the filter).
    private var lastGoodMapScale: Double?
    private var lastOutput: EstimatorOutput?
    /// The filter has reported `.normal` since the last (re-)initialisation.
    private var normalSinceInit = false
    /// How spans without IMU data are bridged; nil when gap detection is off.
    private let gapModel: IMUPropagator.GapModel?
    /// Time of the last frame touched by a sensor gap while the filter has not recovered from it, ns.
    private var lastGapFrame_ns: TimestampNs?
    /// Seconds bridged without IMU data in the current IMU gap (0 outside one).
    private var gapBridged_s = 0.0
    /// The position 1-σ before the current sensor gap began, metres (nil outside one).
    private var preGapPositionStd: Double?

    /// Diagnostics of the last frame (for tests and logs).
    public private(set) var lastDiagnostics = EstimatorDiagnostics()

    /// An estimator for the given rig. `cameras` must not be empty; camera 0 defines `T_W_C`.
    public init(configuration: EstimatorConfiguration, cameras: [CameraCalibration], imu: IMUCalibration) {
        precondition(!cameras.isEmpty, "VIOEstimator needs at least one camera")
        self.configuration = configuration
        self.cameras = cameras
        self.imu = imu
        initializer = InertialInitializer(configuration: configuration, cameras: cameras, imu: imu)
        imageMotion = ImageMotionHistory(baseline_s: configuration.stillImageBaseline_s)
        propagator = IMUPropagator(noise: imu.noise, gravity_W: Vec3(0, 0, -configuration.gravity))
        msckf = MSCKFUpdater(cameras: cameras, configuration: configuration)
        floorDetector = FloorDetector(options: configuration.floor, stereo: cameras.count > 1)
        zupt = ZeroVelocityUpdater(configuration: configuration, imu: imu)
        mapUpdater = MapPointUpdater(cameras: cameras, pixelNoiseStd: configuration.updater.pixelNoiseStd,
                                     gateProbability: configuration.updater.mapChi2GateProbability,
                                     keepsTilt: configuration.updater.mapUpdateKeepsTiltMono && cameras.count == 1,
                                     keepsClonePositions: configuration.updater.mapUpdateKeepsClonePositionsMono && cameras.count == 1)
        R_B_S = imu.T_B_S.rotation
        let gapOptions = configuration.tracking.sensorGap
        gapModel = gapOptions.enabled
            ? IMUPropagator.GapModel(limit_ns: Time.nanoseconds(gapOptions.imuGap_s(imuRate_hz: imu.rate_hz)),
                                     angularRateStd: gapOptions.gapAngularRateStd, accelStd: gapOptions.gapAccelStd)
            : nil
        if configuration.state.adaptiveIMUNoise {
            let frameInterval = cameras[0].rate_hz > 0 ? 1 / cameras[0].rate_hz : 0.05
            noiseEstimator = IMUNoiseEstimator(frameInterval: frameInterval, imuRate_hz: imu.rate_hz > 0 ? imu.rate_hz : 200)
        }
    }

    /// The covariance of the current pose error `[δθ (body, right), δp]`, 6×6 row-major, nil before
    /// initialisation (for consistency tests: NEES).
    var poseCovariance: [Double]? {
        guard let f = filter else { return nil }
        return (0..<36).map { f.covariance($0 / 6, $0 % 6) }
    }

    /// The IMU noise the propagation uses now: the calibration's, or (with `state.adaptiveIMUNoise`) the measured
    /// densities where they are larger.
    public var imuNoiseInUse: AxisNoise { propagator.noise }

    /// True once the filter is initialised (and not reset since).
    public var isInitialized: Bool { filter != nil }

    /// The map's scale (`MapScaleOptions`, `FilterState.mapScale`): whoever keeps the map scales its points about W's
    /// origin by each change of it. 1 when the scale is not estimated (stereo, or the option off); the last estimate
    /// while the filter is reset.
    public var mapScale: Double { filter?.mapScale ?? lastGoodMapScale ?? 1 }

    /// Whether this run estimates the map's scale (mono with `MapScaleOptions.estimateMono`).
    public var estimatesMapScale: Bool { configuration.state.mapScale.estimateMono && cameras.count == 1 }

    /// Adds one IMU sample (in the IMU frame S, bias and noise included). Samples not newer than the
    /// previous one, or not finite, are ignored.
    public func addIMU(_ s: IMUSample) {
        let sample_B = IMUSample(t_ns: s.t_ns, gyro_B: R_B_S.act(s.gyro_B), accel_B: R_B_S.act(s.accel_B))
        if buffer.append(sample_B) { noiseEstimator?.add(sample_B) }
    }

    /// Processes one frame of feature observations and returns the estimate at the frame's time.
    /// Frames older than the previous frame are ignored (the previous output is returned again).
    public func addFrame(_ frame: FeatureFrame) -> EstimatorOutput {
        var diag = EstimatorDiagnostics()
        defer { lastDiagnostics = diag }
        if let last = lastFrameTime, frame.t_ns <= last, let out = lastOutput { return out }
        let previousFrameTime = lastFrameTime
        lastFrameTime = frame.t_ns
        let given = frame.imageDisparity_px.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let disparity = given ?? measureDisparity(frame)
        previousFrame = Dictionary(frame.observations.filter { $0.camera == 0 && $0.normalized.x.isFinite && $0.normalized.y.isFinite }
                                       .map { ($0.id, $0.normalized) },
                                   uniquingKeysWith: { a, _ in a })
        diag.disparity_px = disparity
        // A frame pair that looks still may be a slow translation past far structure: then the tracks have moved
        // over the still-image baseline.
        var movedOverBaseline = false
        if configuration.stillImageBaseline_s > 0 {
            imageMotion.add(t_ns: frame.t_ns, points: previousFrame)
            let pairThreshold = max(configuration.zeroVelocity.stillDisparity_px, configuration.initializer.stillDisparity_px)
            if (disparity ?? 0) <= pairThreshold, let moved = imageMotion.displacement() {
                diag.baselineDisparity_px = moved * cameras[0].model.intrinsics.fx
                movedOverBaseline = moved * cameras[0].model.intrinsics.fx > configuration.stillImageBaselineDisparity_px
            }
        }
        let tracked = frame.observations.filter { $0.camera == 0 }.count
        diag.trackedFeatures = tracked
        defer {
            buffer.prune(before: frame.t_ns - Time.nanoseconds(max(configuration.initializer.staticWindow, configuration.initializer.dynamicWindow) + 0.5))
        }

        guard !buffer.isEmpty else { return output(frame.t_ns, state: .notAvailable, diag: diag) }

        if filter == nil { initialized_ns = nil } else if initialized_ns == nil { initialized_ns = frame.t_ns }
        if let estimator = noiseEstimator {
            let warm = initialized_ns.map { frame.t_ns - $0 >= Time.nanoseconds(configuration.state.accelRandomWalkWarmup_s) } ?? false
            propagator.noise = estimator.effectiveNoise(floor: imu.noise,
                                                        scaleAccelRandomWalk: configuration.state.adaptiveAccelRandomWalk && cameras.count == 1 && warm)
        }
        if filter == nil {
            switch initialize(frame, disparity: disparity, movedOverBaseline: movedOverBaseline, diag: &diag) {
            case .notYet:
                lastUninitializedFrame = frame
                return output(frame.t_ns, state: .limited(relocalizing ? .relocalizing : .initializing), diag: diag)
            case .atThisFrame:
                return finish(frame, diag: &diag)
            case .atPreviousFrame:
                // The worker's try for the previous frame's window was applied at that frame (`initialize`): this
                // frame is tracked from it, as the frame after an initialisation in place would have been.
                initialized_ns = frame.t_ns
            }
        }
        guard var state = filter else { return output(frame.t_ns, state: .limited(relocalizing ? .relocalizing : .initializing), diag: diag) }

        // Propagate to the IMU time the image was taken at, t_cam + t̂_d (never backwards).
        let poseTime = max(imuTime(ofImage: frame.t_ns, offset: state.timeOffset_s), state.imu.t_ns)
        var imuState = state.imu
        var (phi, q, gap_s) = propagator.propagate(&imuState, to: poseTime, buffer: buffer, gap: gapModel)
        diag.imuGap_s = gap_s
        // A camera gap: this frame comes long after the previous one.
        let cameraGap = configuration.tracking.sensorGap.enabled && previousFrameTime.map {
            Time.seconds(frame.t_ns - $0) >= configuration.tracking.sensorGap.cameraGap_s
        } ?? false
        if gap_s > 0 || cameraGap {
            diag.sensorGap = true
            if lastGapFrame_ns == nil { preGapPositionStd = state.positionStd }
            lastGapFrame_ns = frame.t_ns
        }
        // Across an IMU gap the motion model holds the attitude still; the tracks' own rotation since the previous
        // frame turns it for the bridged share of the interval, so that the visual update linearises near the true
        // attitude. Held still, the updates' first-order corrections left up to 8.6° of heading after a 2 s gap on
        // the simulated room (30 s, gap at 12 s, nine seeds: ATE of the normal frames 1.1–31× the run without the
        // gap); turned, 0.8–1.4× (docs/ACCURACY.md, "Sensor gaps").
        if gap_s > 0, let R_Cnew_Cold = frame.visualRotation_Cnew_Cold, let previous = previousFrameTime, frame.t_ns > previous {
            let share = min(1, gap_s / Time.seconds(frame.t_ns - previous))
            let R_B_C = mounting(state).rotation
            let turn = SO3.exp(share * (R_B_C * R_Cnew_Cold.inverse * R_B_C.inverse).log) // R_Bold_Bnew
            imuState.R_W_B = imuState.R_W_B * turn
            // Right error: δθ_new = turnᵀ δθ.
            var rotate = Mat15.identity
            rotate.setBlock(ErrorIndex.theta, ErrorIndex.theta, turn.matrix.transposed)
            phi = rotate * phi
            q = rotate.sandwich(q)
        }
        // FEJ only once converged: first estimates from the start-up transient would pin bad linearisation
        // points (until then the clones' first estimates follow the updates, see `finish`). Not across an IMU
        // gap: the motion model's Φ is not the inertial one the first-estimate form replaces.
        if configuration.state.firstEstimateJacobians, normalSinceInit, gap_s == 0, let first = imuFirstEstimate, first.t_ns == state.imu.t_ns {
            propagator.applyFirstEstimates(&phi, first: first, end: imuState)
        }
        imuFirstEstimate = imuState // the prior at this frame is the next interval's first estimate
        let dt_s = Double(imuState.t_ns - state.imu.t_ns) * 1e-9
        state.imu = imuState
        state.propagateCovariance(phi: phi, q: q)
        if let f = state.floorIndex, configuration.floor.heightRandomWalk > 0, dt_s > 0 {
            // The floor's height may wander slowly (`FloorOptions.heightRandomWalk`).
            let rw = configuration.floor.heightRandomWalk
            state.setDiagonal(f, state.covariance(f, f) + rw * rw * dt_s)
        }
        if let ms = state.mapScaleIndex, configuration.state.mapScale.randomWalk > 0, dt_s > 0 {
            // The map's scale may wander slowly: points mapped later carry the scale of their own time.
            let rw = configuration.state.mapScale.randomWalk
            state.setDiagonal(ms, state.covariance(ms, ms) + rw * rw * dt_s)
        }
        inflateGaugeAcrossGap(&state, gap_s: gap_s)

        // Standstill: IMU consistent with rest and (when known) a still image → zero-velocity update.
        let nominal = cameras[0].rate_hz > 0 ? Time.nanoseconds(1 / cameras[0].rate_hz) : 50_000_000
        let shift = poseTime - frame.t_ns // the interval in IMU time
        let intervalStart = max(previousFrameTime ?? (frame.t_ns - nominal), frame.t_ns - 4 * nominal) + shift
        let interval = buffer.samples(after: intervalStart, through: poseTime)
        if configuration.zeroVelocity.enabled, !diag.sensorGap, let stats = zupt.statistics(interval),
           !movedOverBaseline, disparity.map({ $0 <= configuration.zeroVelocity.stillDisparity_px }) ?? true,
           zupt.imuSaysStill(stats, state: state), zupt.update(state: &state, stats: stats) {
            diag.zeroVelocityUpdate = true
            filter = state
            return finish(frame, diag: &diag)
        }

        // Visual update: clone, record observations, update with lost and window-spanning features.
        state.augmentClone(t_ns: frame.t_ns, omega_B: angularRate(at: poseTime, gyroBias: state.imu.gyroBias_B))
        features.add(frame.observations, at: frame.t_ns, cameraCount: cameras.count)
        var selected = features.lost(before: frame.t_ns)
        let marginalize = state.clones.count > configuration.state.maxClones
        if marginalize, let oldest = state.clones.first?.t_ns {
            let spanning = features.observed(at: oldest).filter { id in
                features.track(id)?.observations.last?.t_ns == frame.t_ns
            }
            selected += spanning
        }
        let tracks = selected.compactMap { features.track($0) }.filter { $0.distinctTimes >= 2 || $0.observations.count >= 3 }
        let result = msckf.update(state: &state, tracks: tracks)
        for id in selected { features.remove(id) }
        diag.msckfAccepted = result.accepted
        diag.msckfRejected = result.rejectedByGate
        diag.msckfFailed = result.failedTriangulation
        diag.msckfRows = result.rows
        diag.droppedObservations = result.droppedObservations
        diag.landmarks = withAttitudeUncertainty(result.landmarks, state: state)
        diag.floorFeatures = result.onFloor
        if configuration.floor.enabled, state.floorIndex == nil, normalSinceInit,
           let h = floorDetector.add(result.landmarks, bodyZ: state.imu.p_W.z, t_ns: frame.t_ns) {
            let d = state.imu.p_W.z - h, o = configuration.floor
            let std = o.heightStd_m + o.heightStdPerMetre * d
            state.addFloor(cameraHeight_m: d, heightVariance: std * std, slopeVariance: o.slopeStd_rad * o.slopeStd_rad)
        }
        if let f = state.floorIndex {
            diag.floorHeight_m = state.floorHeight_m
            diag.floorHeightStd_m = state.covariance(f, f).squareRoot()
            diag.floorSlope = state.floorSlope
        }
        // A failing frame: features were there, the gate rejected many and (almost) none passed.
        // Triangulation failures alone do not count: slow motion gives short tracks no parallax.
        if result.rejectedByGate >= 5, result.accepted * 5 < result.rejectedByGate {
            failedStreak += 1
        } else if result.accepted > 0 {
            failedStreak = 0
        }
        if marginalize {
            let t0 = state.clones[0].t_ns
            state.marginalizeClone(0)
            features.removeObservations(atOrBefore: t0)
        }
        filter = state
        return finish(frame, diag: &diag)
    }

    /// Refines the estimate of the frame last given to `addFrame` with map points it re-observes, and
    /// returns the refined estimate (the previous output unchanged when there is no filter, the frame's
    /// tracking was neither `normal` nor `limited(sensorGap)`, or `t_ns` is not that frame's time). Across and
    /// after a sensor gap this is what re-anchors position and heading (`inflateGaugeAcrossGap`). Call at most
    /// once per frame.
    public func addMapObservations(_ observations: [MapPointObservation], at t_ns: TimestampNs) -> (EstimatorOutput?, MapUpdateResult) {
        guard var state = filter, let last = lastOutput, last.t_ns == t_ns,
              last.trackingState == .normal || last.trackingState == .limited(.sensorGap),
              state.imu.t_ns == last.poseTime_ns, !observations.isEmpty else { return (lastOutput, MapUpdateResult()) }
        let result = mapUpdater.update(state: &state, observations: observations,
                                       omega_B: angularRate(at: state.imu.t_ns, gyroBias: state.imu.gyroBias_B))
        guard result.accepted > 0, state.isHealthy else { return (lastOutput, result) }
        filter = state
        lastGood = state.imu
        var out = EstimatorOutput(t_ns: t_ns, trackingState: last.trackingState, T_W_B: state.imu.T_W_B, v_W: state.imu.v_W,
                                  gyroBias_B: state.imu.gyroBias_B, accelBias_B: state.imu.accelBias_B,
                                  T_W_C: state.imu.T_W_B * mounting(state), positionStd_m: state.positionStd,
                                  landmarks: last.landmarks, poseTime_ns: state.imu.t_ns, timeOffset_s: state.timeOffset_s,
                                  T_B_C0: mounting(state))
        out.orientationStd_rad = state.orientationStd
        out.accelRandomWalk = last.accelRandomWalk
        lastOutput = out
        return (out, result)
    }

    /// Where `initialize` set the filter.
    private enum Initialization {
        /// Not initialised.
        case notYet
        /// At `frame`'s time.
        case atThisFrame
        /// At the previous frame's time (`lastUninitializedFrame`), which a dynamic try on the worker thread aligned:
        /// the filter is as that frame's initialisation in place would have left it, and `frame` is still to be
        /// tracked.
        case atPreviousFrame
    }

    /// Tries to initialise (`InertialInitializer`: static at rest, dynamic in motion) and, on success, sets `filter`
    /// at the time of the frame whose window initialised it: `frame`, or the previous frame for a dynamic try the
    /// worker thread ran on that frame's window.
    private func initialize(_ frame: FeatureFrame, disparity: Double?, movedOverBaseline: Bool, diag: inout EstimatorDiagnostics) -> Initialization {
        let tried = initializer.tryInitialize(frame: frame, disparity_px: disparity, movedOverBaseline: movedOverBaseline, buffer: buffer,
                                              gyroBiasPrior: lastGood?.gyroBias_B ?? .zero)
        diag.initWorkerCPU_ns = initializer.lastWorkerCPU_ns
        guard let ini = tried else {
            if case .speedNotDetermined(let speed, let tolerance) = initializer.lastRefusal {
                diag.undeterminedSpeed = UndeterminedSpeed(speed: speed, tolerance: tolerance)
            }
            return .notYet
        }
        if let previous = lastUninitializedFrame, ini.state.t_ns == previous.t_ns, previous.t_ns < frame.t_ns {
            // What the previous frame would have done with the outcome in place: initialise at its time and finish it
            // (its output is not reported: that frame already went out as initialising).
            var previousDiag = EstimatorDiagnostics()
            apply(ini, at: previous, diag: &previousDiag)
            _ = finish(previous, diag: &previousDiag)
            lastUninitializedFrame = nil
            diag.initialized = true
            diag.dynamicInitialization = previousDiag.dynamicInitialization
            return filter == nil ? .notYet : .atPreviousFrame
        }
        apply(ini, at: frame, diag: &diag)
        lastUninitializedFrame = nil
        return .atThisFrame
    }

    /// Sets `filter` from the initialiser's result at `frame`'s time (propagating a state found for an earlier time).
    private func apply(_ ini: InertialInitializer.Result, at frame: FeatureFrame, diag: inout EstimatorDiagnostics) {
        var s = ini.state
        if let prev = lastGood {
            // Re-initialisation after a reset: keep position and heading continuous.
            s.p_W = prev.p_W
            let dYaw = SO3(yaw: prev.R_W_B.yaw)
            s.R_W_B = dYaw * s.R_W_B
            s.v_W = dYaw.act(s.v_W)
        }
        // The time offset: estimated from its prior (or the last estimate, after a reset), or fixed.
        let offsetOptions = configuration.state.timeOffset
        let offset = lastGoodTimeOffset_s ?? offsetOptions.initial_s
        // Camera 0's mounting: estimated from the calibration's (or the last estimate, after a reset), or fixed.
        let mountingOptions = configuration.state.extrinsics
        let mountingPrior = mountingOptions.estimate
            ? (lastGoodMounting ?? cameras[0].T_B_C, mountingOptions.priorRotationStd_rad * mountingOptions.priorRotationStd_rad,
               mountingOptions.priorTranslationStd_m * mountingOptions.priorTranslationStd_m)
            : nil
        let scaleOptions = configuration.state.mapScale
        var f = FilterState(imu: s, covariance: ini.covariance,
                            timeOffset: offsetOptions.estimate ? (offset, offsetOptions.priorStd_s * offsetOptions.priorStd_s) : nil,
                            mapScale: estimatesMapScale ? (lastGoodMapScale ?? 1, scaleOptions.priorStd * scaleOptions.priorStd) : nil,
                            extrinsic: mountingPrior)
        f.timeOffset_s = offset
        let poseTime = imuTime(ofImage: frame.t_ns, offset: offset)
        if s.t_ns < poseTime {
            var imuState = f.imu
            let (phi, q) = propagator.propagate(&imuState, to: poseTime, buffer: buffer)
            f.imu = imuState
            f.propagateCovariance(phi: phi, q: q)
        }
        filter = f
        imuFirstEstimate = f.imu
        floorDetector = FloorDetector(options: configuration.floor, stereo: cameras.count > 1)
        normalSinceInit = false
        features.removeAll()
        initializer.reset()
        failedStreak = 0
        diag.initialized = true
        diag.dynamicInitialization = ini.method == .dynamicAlignment
    }

    /// Forgets everything (as after construction).
    public func reset() {
        filter = nil; features.removeAll(); buffer = IMUBuffer(); previousFrame = [:]; initializer.reset()
        imageMotion = ImageMotionHistory(baseline_s: configuration.stillImageBaseline_s)
        if let e = noiseEstimator { noiseEstimator = IMUNoiseEstimator(blockSamples: e.blockSamples, windowBlocks: e.windowBlocks,
                                                                       minimumBlocks: e.minimumBlocks) }
        propagator.noise = AxisNoise(imu.noise)
        lastFrameTime = nil; lastUninitializedFrame = nil; initialized_ns = nil; relocalizing = false; failedStreak = 0; lastGood = nil; lastOutput = nil
        lastGoodTimeOffset_s = nil; lastGoodMounting = nil; lastGoodMapScale = nil; lastGapFrame_ns = nil; gapBridged_s = 0; preGapPositionStd = nil
    }

    // MARK: - Internals

    /// The landmarks with the filter's tilt uncertainty added to their σ: a point at distance d from the
    /// camera triangulated while the gravity direction is uncertain by σ_tilt sits wrong by about d·σ_tilt,
    /// which the triangulation's own σ (pixel noise and geometry, poses taken as exact) does not include.
    /// Position and yaw are the unobservable gauge and stay out: map reuse exists to correct their drift.
    private func withAttitudeUncertainty(_ landmarks: [Landmark], state: FilterState) -> [Landmark] {
        guard configuration.updater.landmarkStdIncludesTilt else { return landmarks }
        let tilt = state.tiltStd
        let p_W_C = (state.imu.T_W_B * mounting(state)).translation
        return landmarks.map { l in
            var out = l
            let d = (l.p_W - p_W_C).norm
            out.std_m = (l.std_m * l.std_m + d * d * tilt * tilt).squareRoot()
            return out
        }
    }

    /// Camera 0's mounting `T_B_C0` in use: the state's estimate when it refines it, else the calibration's.
    private func mounting(_ state: FilterState) -> SE3 { state.T_B_C0 ?? cameras[0].T_B_C }

    /// Adds uncertainty along the unobservable directions only (a yaw about the vertical through the current position,
    /// 1-σ `yaw_rad`, and a translation, `position_m` per axis; `FilterState.inflateGauge`): for a caller that is about
    /// to give the filter absolute observations (map points) in a frame it knows only that well, such as a saved map
    /// found again by relocalisation, so that the χ² gate does not reject them and they pull the pose onto the map.
    /// Does nothing before initialisation.
    public func inflateGauge(yaw_rad: Double, position_m: Double) {
        filter?.inflateGauge(yaw_rad: yaw_rad, position_m: position_m)
    }

    /// Across an IMU gap the bridged motion drifts in position and heading, which no later visual or inertial
    /// measurement can observe (they are the gauge): measured on the simulated room, a 2 s gap left 4–10 cm and
    /// 0.5–2.5° that the filter's covariance did not cover, so map points seen before the gap were rejected
    /// by the χ² gate and the offset stayed (or decayed over seconds). The drift is added as uncertainty along
    /// the gauge directions only (`FilterState.inflateGauge`), growing linearly with the bridged time T:
    /// 1-σ `gapYawDriftRate · T` and `gapPositionDriftRate · T`; map reuse (`addMapObservations`) then pulls the
    /// pose back to the map as soon as points mapped before the gap are seen again.
    private func inflateGaugeAcrossGap(_ state: inout FilterState, gap_s: Double) {
        guard gap_s > 0 else { gapBridged_s = 0; return }
        let options = configuration.tracking.sensorGap
        let before = gapBridged_s, after = before + gap_s
        gapBridged_s = after
        let growth = after * after - before * before // σ² ∝ T²
        state.inflateGauge(yaw_rad: options.gapYawDriftRate * growth.squareRoot(),
                           position_m: options.gapPositionDriftRate * growth.squareRoot())
    }

    /// After a sensor gap: true once the position uncertainty the gap added (`inflateGaugeAcrossGap`) has been
    /// taken back by map points seen before it (1-σ within `reanchorMargin_m` of its value before the gap), or
    /// `maxReanchorSeconds` after the gap's last frame (the area may not be mapped: tracking goes on unanchored).
    /// Until then the pose is off the map by up to the gap's drift and new points would be mapped with it.
    private func reanchored(_ state: FilterState, since gapFrame: TimestampNs, at t: TimestampNs) -> Bool {
        let options = configuration.tracking.sensorGap
        guard let before = preGapPositionStd, Time.seconds(t - gapFrame) < options.maxReanchorSeconds else { return true }
        return state.positionStd <= before + options.reanchorMargin_m
    }

    /// The IMU time at which the image stamped `t` was taken, `t + t_d` (t_d clamped to `maxMagnitude_s`).
    private func imuTime(ofImage t: TimestampNs, offset: Double) -> TimestampNs {
        let limit = configuration.state.timeOffset.maxMagnitude_s
        let td = offset.isFinite ? min(max(offset, -limit), limit) : 0
        let shift = Int64((td * 1e9).rounded())
        // Saturates at the ends of the Int64 clock instead of trapping (a recording stamped near the limit).
        let (sum, overflow) = t.addingReportingOverflow(shift)
        return overflow ? (shift > 0 ? .max : .min) : sum
    }

    /// The bias-corrected body angular rate at IMU time `t` (the buffer interpolates), rad/s.
    private func angularRate(at t: TimestampNs, gyroBias: Vec3) -> Vec3 {
        (buffer.sample(at: t)?.gyro_B ?? .zero) - gyroBias
    }

    /// Median image motion of features seen in the previous frame, pixels (camera 0's fx).
    private func measureDisparity(_ frame: FeatureFrame) -> Double? {
        guard !previousFrame.isEmpty else { return nil }
        var d: [Double] = []
        for o in frame.observations where o.camera == 0 {
            if let p = previousFrame[o.id] {
                let v = (o.normalized - p).norm
                if v.isFinite { d.append(v) }
            }
        }
        guard d.count >= 5 else { return nil }
        d.sort()
        return d[d.count / 2] * cameras[0].model.intrinsics.fx
    }

    /// Health checks, tracking state and output for an initialised filter.
    private func finish(_ frame: FeatureFrame, diag: inout EstimatorDiagnostics) -> EstimatorOutput {
        guard let state = filter else { return output(frame.t_ns, state: .limited(.initializing), diag: diag) }
        let speed = state.imu.v_W.norm
        let diverged = !state.isHealthy || speed > configuration.tracking.maxSpeed
            || !(state.velocityStd <= configuration.tracking.maxVelocityStd) || failedStreak > configuration.tracking.maxFailedUpdateStreak
        if diverged {
            diag.reset = true
            filter = nil
            features.removeAll()
            relocalizing = true
            failedStreak = 0
            return output(frame.t_ns, state: .limited(.relocalizing), diag: diag)
        }
        lastGood = state.imu
        lastGoodTimeOffset_s = state.timeOffset_s
        lastGoodMounting = state.T_B_C0
        if state.mapScaleIndex != nil { lastGoodMapScale = state.mapScale }
        if !normalSinceInit {
            filter?.refreshFirstEstimates()
        }
        let gyro = angularRate(at: state.imu.t_ns, gyroBias: state.imu.gyroBias_B)
        let tried = diag.msckfAccepted + diag.msckfRejected
        let tracking: TrackingState
        let fewFeatures = diag.trackedFeatures < configuration.tracking.minTrackedFeatures
        let tooFast = gyro.norm > configuration.tracking.maxAngularRate || (tried >= 10 && diag.msckfAccepted * 2 < tried)
        if state.velocityStd > configuration.tracking.normalVelocityStd, !normalSinceInit {
            // Still converging after (re-)initialisation.
            tracking = .limited(relocalizing ? .relocalizing : .initializing)
        } else if let gapFrame = lastGapFrame_ns, diag.sensorGap
                    || Time.seconds(frame.t_ns - gapFrame) < configuration.tracking.sensorGap.recovery_s
                    || state.velocityStd > configuration.tracking.normalVelocityStd
                    || !reanchored(state, since: gapFrame, at: frame.t_ns) {
            // In a sensor gap, or not recovered from one yet.
            tracking = .limited(.sensorGap)
        } else if tooFast {
            tracking = .limited(.excessiveMotion)
        } else if fewFeatures {
            tracking = .limited(.insufficientFeatures)
        } else if state.velocityStd > 3 * configuration.tracking.normalVelocityStd {
            // Uncertainty grew (a stretch without usable features) and has not recovered yet. The factor 3
            // is a hysteresis: no flicker around the threshold once tracking was normal.
            tracking = .limited(.insufficientFeatures)
        } else {
            tracking = .normal
            relocalizing = false
            normalSinceInit = true
        }
        if tracking != .limited(.sensorGap) { lastGapFrame_ns = nil; preGapPositionStd = nil }
        return output(frame.t_ns, state: tracking, diag: diag)
    }

    private func output(_ t: TimestampNs, state tracking: TrackingState, diag: EstimatorDiagnostics) -> EstimatorOutput {
        var out: EstimatorOutput
        if let s = filter?.imu {
            let T_B_C0 = filter.map(mounting) ?? cameras[0].T_B_C
            out = EstimatorOutput(t_ns: t, trackingState: tracking, T_W_B: s.T_W_B, v_W: s.v_W, gyroBias_B: s.gyroBias_B,
                                  accelBias_B: s.accelBias_B, T_W_C: s.T_W_B * T_B_C0,
                                  positionStd_m: filter?.positionStd ?? .infinity, landmarks: diag.landmarks,
                                  poseTime_ns: s.t_ns, timeOffset_s: filter?.timeOffset_s ?? 0, T_B_C0: T_B_C0)
            out.orientationStd_rad = filter?.orientationStd ?? .infinity
        } else {
            // No estimate: the last good pose (or identity), never NaN.
            let s = lastGood ?? IMUState(t_ns: t)
            let T_B_C0 = lastGoodMounting ?? cameras[0].T_B_C
            out = EstimatorOutput(t_ns: t, trackingState: tracking, T_W_B: s.T_W_B, v_W: .zero, gyroBias_B: s.gyroBias_B,
                                  accelBias_B: s.accelBias_B, T_W_C: s.T_W_B * T_B_C0,
                                  positionStd_m: .infinity, landmarks: [], T_B_C0: T_B_C0)
        }
        out.accelRandomWalk = propagator.noise.accelRandomWalk
        lastOutput = out
        return out
    }
}

/// A window of the dynamic initialiser refused because its tracks did not determine its speed (and so the scale).
public struct UndeterminedSpeed: Equatable, Sendable {
    /// The speed the window's alignment found (at its start for the fit's test, at its end for the bias's), m/s.
    public var speed: Double
    /// How far off the speed could be, m/s: moved that far with everything else fitted again for at most half again
    /// the alignment's squared residual, or by an accelerometer bias of its prior 1-σ
    /// (`InertialInitializerOptions.maxRelativeSpeedTolerance`).
    public var tolerance: Double
}

/// What happened inside the estimator for one frame (for tests, logs and tuning).
public struct EstimatorDiagnostics: Equatable, Sendable {
    /// Feature observations of camera 0 in the frame.
    public var trackedFeatures = 0
    /// Median image motion since the previous frame, pixels (nil if unknown).
    public var disparity_px: Double?
    /// Median motion of camera 0's tracks over the still-image baseline, pixels (nil when not measured: the frame
    /// pair already moved, too few tracks, or the baseline is off).
    public var baselineDisparity_px: Double?
    /// The static initialiser succeeded on this frame.
    public var initialized = false
    /// The initialisation on this frame was the dynamic (in-motion) one.
    public var dynamicInitialization = false
    /// Not initialised on this frame because the window's tracks did not determine the speed, and so the scale
    /// (`InertialInitializerOptions.maxRelativeSpeedTolerance`).
    public var undeterminedSpeed: UndeterminedSpeed?
    /// CPU time the worker thread spent on the dynamic initialisation try whose outcome this frame took, nanoseconds
    /// (0 when none: `InertialInitializerOptions.dynamicInitializationOnWorker`).
    public var initWorkerCPU_ns: UInt64 = 0
    /// A zero-velocity update was applied (no clone was added).
    public var zeroVelocityUpdate = false
    /// MSCKF features accepted, rejected by the χ² gate, and not triangulable.
    public var msckfAccepted = 0, msckfRejected = 0, msckfFailed = 0
    /// Observations dropped as outliers by the robust triangulation of otherwise accepted features.
    public var droppedObservations = 0
    /// Rows of the applied (compressed) visual measurement.
    public var msckfRows = 0
    /// MSCKF features held on the floor in this frame's update (`FloorOptions`).
    public var floorFeatures = 0
    /// The floor's height in W and its 1-σ, metres, once the filter holds it (`FloorOptions`).
    public var floorHeight_m: Double?, floorHeightStd_m: Double?
    /// The floor's slopes (dz/dx, dz/dy in W: its tilt against gravity, radians), once the filter holds it.
    public var floorSlope: SIMD2<Double>?
    /// The filter diverged and was reset on this frame.
    public var reset = false
    /// The frame follows a sensor gap: IMU data missing in its interval, or a camera gap before it.
    public var sensorGap = false
    /// Seconds of this frame's propagation bridged without IMU data (`SensorGapOptions`).
    public var imuGap_s = 0.0
    /// Points accepted in the visual update.
    public var landmarks: [Landmark] = []
    /// Empty diagnostics.
    public init() {}
}
