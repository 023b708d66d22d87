import Geometry

/// Tunable settings of the `VIOEstimator`, one group per component (as OpenVINS' `StateOptions`,
/// `UpdaterOptions`, `InertialInitializerOptions`, …). The defaults suit a consumer/robotics MEMS IMU at
/// 100–400 Hz and cameras at 10–30 Hz; nothing here is specific to one dataset.
///
/// ```swift
/// var configuration = EstimatorConfiguration()
/// configuration.updater.pixelNoiseStd = 0.5
/// configuration.initializer.dynamicInitialization = false
/// ```
public struct EstimatorConfiguration: Equatable, Sendable {
    /// Magnitude of gravity, m/s². World gravity is `(0, 0, -gravity)`. (Shared by propagation, the
    /// initialisers and the zero-velocity update.)
    public var gravity: Double = 9.81
    /// The image counts as still (for the zero-velocity update and the static initialiser) only when, besides the
    /// last frame pair's motion being under the still-disparity thresholds, its tracks moved at most
    /// `stillImageBaselineDisparity_px` over this span, seconds (`ImageMotionHistory`): one frame pair cannot tell
    /// rest from a slow translation past far structure. 0 judges the last frame pair alone.
    public var stillImageBaseline_s: Double = 0.5
    /// The tracks' median motion over `stillImageBaseline_s` above which the image is moving, pixels. At rest it
    /// is the tracker's noise (on V1_01's real images, rotors running: 0.2–0.4 px typically, 1.7 px at most over
    /// 88 frames); a body moving 0.34 m/s past structure 8 m away moves it 10 px in 0.5 s.
    public var stillImageBaselineDisparity_px: Double = 2.5
    /// What the filter state holds: the clone window and how it is linearised.
    public var state = StateOptions()
    /// The visual updates (MSCKF and map points).
    public var updater = UpdaterOptions()
    /// Static and dynamic initialisation.
    public var initializer = InertialInitializerOptions()
    /// Zero-velocity updates.
    public var zeroVelocity = ZeroVelocityOptions()
    /// The tracking state and the divergence checks.
    public var tracking = TrackingOptions()
    /// The floor as a plane in the filter state.
    public var floor = FloorOptions()

    /// The default settings.
    public init() {}
}

/// Options of the filter state (`FilterState`).
public struct StateOptions: Equatable, Sendable {
    /// Number of stochastic clones (past body poses) kept in the sliding window.
    public var maxClones: Int = 11
    /// First-estimate Jacobians (FEJ): linearise the clones' measurements and the inertial transition at
    /// the first estimates, so that updates cannot make the unobservable directions (position, yaw)
    /// spuriously observable. Applied once the filter has converged (first `normal`). Off by default: on
    /// the 20–30 s tests it changes nothing measurable, and pinned linearisation points from a rough
    /// (dynamic) initialisation occasionally inflate the gate's χ²; meant for long runs.
    public var firstEstimateJacobians: Bool = false
    /// The camera–IMU time offset `t_d` (OpenVINS' `calib_camimu_dt`).
    public var timeOffset = TimeOffsetOptions()
    /// Online refinement of the camera–IMU mounting (OpenVINS' `calib_cam_extrinsics`); off by default.
    public var extrinsics = ExtrinsicOptions()
    /// The map's scale in the state (mono map reuse).
    public var mapScale = MapScaleOptions()
    /// Measure the IMU's white noise from its samples (`IMUNoiseEstimator`: vibration on a vehicle is often
    /// 10–30× the datasheet density) and propagate with the measured densities where they exceed the
    /// calibration's. Off: the calibration's densities as given.
    public var adaptiveIMUNoise: Bool = true
    /// Mono, with `adaptiveIMUNoise`, once tracking has run `accelRandomWalkWarmup_s`: scale the accelerometer's bias
    /// random walk by the factor its measured density exceeds the calibration's (on its noisiest axis), as the slow
    /// error grows with the vibration as the noise does (`IMUNoiseEstimator.effectiveNoise(floor:scaleAccelRandomWalk:)`).
    /// On a clean IMU the factor is about 1. Mono takes its scale from the accelerometer, so a bias that follows the
    /// slow error keeps it out of the scale; stereo's scale is the baseline's, and there the bias's freedom only costs
    /// tilt (docs/ACCURACY.md, "The bias random walk"), so stereo keeps the calibration's random walk.
    public var adaptiveAccelRandomWalk: Bool = true
    /// Seconds of tracking (since the filter was initialised) before `adaptiveAccelRandomWalk` applies: until the
    /// tilt has been told apart from the bias (the body's turns do that), a bias free to wander would keep the start's
    /// tilt error for good. 15 s is the best of 10 / 15 / 20 s on EuRoC V1_01's flight (mono ATE 14.8 / 14.0 / 17.5 mm
    /// over eight renders), where the body's first turns end at about 14 s: a fit to that flight, not a rule. A release
    /// triggered by the horizontal bias σ would follow any flight's turns (docs/ACCURACY.md, "How much of that is the
    /// release's timing").
    public var accelRandomWalkWarmup_s: Double = 15

    /// The default options.
    public init() {}
}

/// The camera–IMU time offset `t_d`, seconds: the image stamped `t_cam` was taken at IMU time `t_cam + t_d`
/// (the simulator's `--time-offset-ms` convention). The filter propagates to `t_cam + t̂_d` for each frame, so
/// the pose it reports for a frame is the body pose when the image was taken.
public struct TimeOffsetOptions: Equatable, Sendable {
    /// Estimate `t_d` in the filter state; when false it stays at `initial_s`.
    public var estimate: Bool = true
    /// The initial (or, when not estimated, fixed) value, seconds.
    public var initial_s: Double = 0
    /// Prior 1-σ of the initial value, seconds.
    public var priorStd_s: Double = 0.01
    /// The estimate is clamped to ±this, seconds. A pipeline feeds the IMU this far ahead of each frame
    /// (`imuLookahead_ns`), so that the filter can propagate to `t_cam + t̂_d`.
    public var maxMagnitude_s: Double = 0.05

    /// How far ahead of a frame's time stamp the IMU samples must be available, nanoseconds: 0 when the
    /// offset is neither estimated nor positive.
    public var imuLookahead_ns: Int64 {
        let seconds = estimate ? maxMagnitude_s : min(max(initial_s, 0), maxMagnitude_s)
        return Int64((seconds * 1e9).rounded(.up))
    }

    /// The default options.
    public init() {}
}

/// Online refinement of camera 0's mounting `T_B_C0` (rotation and lever arm, body frame B) in the filter
/// state. The other cameras stay rigidly attached to camera 0 (`T_B_Ci = T_B_C0 · T_C0_Ci`, with `T_C0_Ci` from
/// the calibration: a stereo rig's own calibration is usually far better than its camera–IMU one).
///
/// Off by default: with a good calibration (Kalibr's, EuRoC's) six more states only add noise, and the mounting
/// is observable only under rotation about at least two axes. Turn it on for a rig whose mounting is known to a
/// degree or a centimetre (a hand-measured phone holder, a re-mounted camera).
public struct ExtrinsicOptions: Equatable, Sendable {
    /// Estimate camera 0's mounting; when false the calibration's `T_B_C` is used as given.
    public var estimate: Bool = false
    /// Prior 1-σ of the calibration's mounting rotation, radians (per axis; 0.035 rad = 2°).
    public var priorRotationStd_rad: Double = 0.035
    /// Prior 1-σ of the calibration's lever arm, metres (per axis).
    public var priorTranslationStd_m: Double = 0.02

    /// The default options.
    public init() {}
}

/// The scale of a mono run's map in the filter state (`FilterState.mapScale`): a re-observed map point's residual
/// gets a column for the map's log-scale, and the map's keeper scales its points by each change of the estimate, so
/// that the map can follow a scale correction the filter learns after the map was made (the accelerometer telling
/// the scale better once its bias has settled) instead of holding the scale it had then. The scale is about W's
/// origin, where a run that starts at rest starts: a mono trajectory with a wrong scale is wrong by that factor about
/// its start.
///
/// Stereo takes its scale from the baseline and never estimates it.
public struct MapScaleOptions: Equatable, Sendable {
    /// Estimate the map's scale in a mono run. On fifteen whole real-IMU V1_01 flights mono's posyaw ATE went 21.8 →
    /// 17.8 mm on average and 41.2 → 28.7 mm on the worst (the scale 2.2 → 1.3 % short there); the simulated rooms,
    /// whose IMU leaves the scale nothing to learn, lose up to 0.2 mm (docs/ACCURACY.md, "The map's scale in the
    /// state").
    public var estimateMono: Bool = true
    /// Prior 1-σ of the map's log-scale (a relative scale error; 0.01 = 1 %): how far the map's scale may part from
    /// the filter's once the map has begun (they are the same then). 3 % gains more on whole flights from rest (16.8
    /// against 17.4 mm mean over thirteen) but costs 30 s windows started in flight 3.6 mm on average, where the
    /// dynamic initialiser's scale is what the map should keep; 1 % costs them 0.7 mm.
    public var priorStd: Double = 0.01
    /// Random walk of the map's log-scale, 1/√s: points mapped later carry the scale of their own time.
    public var randomWalk: Double = 0.001

    /// The default options.
    public init() {}
}

/// Options of the visual updates (`MSCKFUpdater`, `MapPointUpdater`).
public struct UpdaterOptions: Equatable, Sendable {
    /// Standard deviation of a feature's position in the image, pixels (converted to normalised
    /// coordinates with each camera's `fx`).
    public var pixelNoiseStd: Double = 1.0
    /// At most this many features go into one visual update (the longest tracks first).
    public var maxFeaturesPerUpdate: Int = 60
    /// Chi-square gate probability for one feature's residual (0.95 → reject the worst 5 % of inliers).
    public var chi2GateProbability: Double = 0.95
    /// Chi-square gate probability for one re-observed map point (2 dof; see `addMapObservations`).
    public var mapChi2GateProbability: Double = 0.95
    /// Landmarks report a σ that includes the filter's tilt uncertainty times their distance (so that map reuse
    /// and the world layer do not take points triangulated before the gravity direction converged as exact).
    public var landmarkStdIncludesTilt: Bool = true
    /// Mono: a map-point update (`MapPointUpdater`, map reuse and relocalisation) corrects position, yaw and the rest
    /// of the state but leaves the gravity direction of every attitude as it was (a Schmidt update of the tilts), as a
    /// loop closure in VINS-Mono moves only the four degrees of freedom the IMU cannot see. A mono map point was
    /// placed with the tilt and scale the filter had when it was triangulated, an error the update takes for
    /// independent of today's; on the real-IMU V1_01 flights the map's pull was what held mono's tilt at 0.2-0.4°
    /// (median; 0.13-0.20° with it kept). Stereo's points take their depth from the baseline, and there the map's
    /// tilt information helps (median tilt 0.08-0.11° with it, 0.12-0.14° without), so stereo updates every state.
    /// The floor's slopes (`FloorOptions`), when the floor is in the state, are kept with the tilts: the floor's rows
    /// tie them to the attitudes, and a map update that moved them held mono's tilt at the floor's (docs/ACCURACY.md,
    /// "Mono's tilt and the floor").
    public var mapUpdateKeepsTiltMono: Bool = true
    /// Mono: a map-point update also leaves the positions of the window's clones (the past poses) as they were (a
    /// Schmidt update of them) and corrects the present pose, its velocity and the rest. A mono map holds the scale the
    /// filter had when it was made, and a map made while the scale was still settling after a take-off held it
    /// about 1 % short for the rest of the flight (docs/ACCURACY.md, "Twenty-second round"); written into the
    /// window's past positions, that scale is what the window's next triangulations inherit. Kept, the four real-IMU
    /// V1_01 flights' scale error shrinks on all four and their mean posyaw ATE goes 19.3 → 17.2 mm (docs/ACCURACY.md,
    /// "The map corrects the present, not the window's past").
    public var mapUpdateKeepsClonePositionsMono: Bool = true
    /// Points closer than this to the anchor camera are rejected, metres.
    public var minDepth: Double = 0.1
    /// Points farther than this from the anchor camera are rejected, metres.
    public var maxDepth: Double = 60

    /// The default options.
    public init() {}
}

/// Options of the initialisation (`InertialInitializer`: static at rest, dynamic in motion).
public struct InertialInitializerOptions: Equatable, Sendable {
    /// Length of the rest window the static initialiser needs, seconds.
    public var staticWindow: Double = 1.0
    /// Number of sub-windows the rest test compares (their means must agree within the noise).
    public var staticSubWindows: Int = 5
    /// False-alarm probability of the rest test's chi-square threshold (smaller → more permissive).
    public var staticTestFalseAlarm: Double = 1e-4
    /// Image motion under which the scene counts as still, pixels per frame. Comparable to the tracker's own
    /// noise (about 1 px at VGA), not tuned per dataset.
    public var stillDisparity_px: Double = 1.0
    /// Initialise in motion (visual-inertial alignment) when the device does not rest.
    public var dynamicInitialization: Bool = true
    /// Length of the window of frames the dynamic initialiser aligns, seconds.
    public var dynamicWindow: Double = 1.5
    /// Gauss-Newton iterations of the dynamic initialiser's gyro-bias estimate (0 turns it off: the prior bias is
    /// used as it is).
    public var gyroBiasIterations: Int = 5
    /// The gyro-bias estimate uses at most this many tracks of the window (those seen in the most frames).
    public var gyroBiasTracks: Int = 150
    /// An estimated gyro bias farther than this from the prior is not trusted (the prior is kept), rad/s.
    public var maxGyroBias: Double = 0.5
    /// Check the dynamic initialiser's gyro bias against the image rotations alone (`VisualGyroBias`) and pick, among
    /// the refinement from the prior, the visual estimate and the refinement from it (and, with
    /// `visualGyroBiasFromRefinement`, the visual estimate from the refinement), one that explains both.
    public var visualGyroBias: Bool = true
    /// With `visualGyroBias`: also search the image rotations' cost from the refinement's bias, not only from the
    /// prior, and offer that as a fourth candidate. The cost has local minima, and a search from the prior can stop
    /// in one (docs/ACCURACY.md, "Starting in flight": on a V1_01 render started 60 s into the flight, 0.05 rad/s off
    /// and a scale 40 % short without it).
    public var visualGyroBiasFromRefinement: Bool = true
    /// A gyro-bias candidate must explain the alignment and the image rotations with mean squared residuals of at most
    /// (this × the pixel noise)², in normalised image units.
    public var gyroBiasConsistency: Double = 2.0
    /// Lower bound of the 1-σ given to an estimated gyro bias, rad/s.
    public var minGyroBiasStd: Double = 0.002
    /// Prior 1-σ of the gyro bias at dynamic initialisation, rad/s: the prior of its estimate, and the bias's
    /// 1-σ when it is not estimated. Uncalibrated MEMS gyros: up to several °/s (0.05 rad/s ≈ 2.9 °/s).
    public var initialGyroBiasStd: Double = 0.05
    /// Prior 1-σ of the accelerometer bias at initialisation, m/s² (MEMS datasheets: 0.05–0.2).
    public var initialAccelBiasStd: Double = 0.1
    /// Dynamic initialisation: correlate the initial tilt and velocity with the accelerometer bias as the alignment's
    /// linear dependence on the bias it assumed (zero) says (`DynamicInitializer.accelBiasSensitivity`), and widen
    /// their covariance by that share, on top of the independent bounds (tilt `σ_ba / g` across gravity, velocity
    /// `σ_ba · T`). The filter then corrects the bias with what it learns of the tilt and velocity, and the reverse
    /// (docs/ACCURACY.md, "Starting in flight").
    public var tiltAccelBiasCorrelation: Bool = true
    /// Prior 1-σ of the velocity at static initialisation, m/s.
    public var initialVelocityStd: Double = 0.02
    /// Dynamic initialisation: a window whose motion leaves the scale little to rest on (`minScaleExcitation_m`) is
    /// refused when the speed it finds could be off by more than this fraction of itself (and by more than
    /// `speedToleranceAllowance`): changed that much with everything else fitted again for at most half again the
    /// alignment's squared residual, or moved that much by an accelerometer bias of `initialAccelBiasStd` (1 σ).
    /// At 0.5 the speed is not told from half or twice itself. Circling an object at an even speed while facing it
    /// gives such windows (their scale is a guess); a walk or a flight does not. 0 turns the check off.
    public var maxRelativeSpeedTolerance: Double = 0.5
    /// Dynamic initialisation: windows whose motion gives the scale at least this much to rest on are not checked by
    /// `maxRelativeSpeedTolerance`, metres (`DynamicInitializer.scaleExcitation`: what is left of the IMU's position
    /// increments over the window once a velocity, gravity and a constant body-frame acceleration are fitted out;
    /// an even circle leaves 0.2–1.3 mm, a walk 16–19 mm).
    public var minScaleExcitation_m: Double = 0.002
    /// Dynamic initialisation: a speed tolerance (as `maxRelativeSpeedTolerance`) accepted whatever the speed, m/s:
    /// slow motion is not refused for its slowness.
    public var speedToleranceAllowance: Double = 0.05
    /// Dynamic initialisation: after a refused window (`maxRelativeSpeedTolerance`), seconds before the next try.
    /// The windows in between share most of its frames, and a try costs some 30 ms.
    public var retryAfterRefusal_s: Double = 0.5
    /// Dynamic initialisation off the tracking thread: each try (some 30 ms of CPU) runs on a worker thread and the
    /// next frame takes its outcome; a window that initialises is then applied at its own last frame and the next
    /// frame is tracked from it, so the estimates are those of the tries run in place, one frame later to come out
    /// (`VIOEstimator.addFrame`). Off: the frame that starts a try waits for it. The pipeline turns it on
    /// (`PipelineOptions.estimator`).
    public var dynamicInitializationOnWorker = false

    /// The default options.
    public init() {}
}

/// Options of the zero-velocity update (`ZeroVelocityUpdater`).
public struct ZeroVelocityOptions: Equatable, Sendable {
    /// Apply zero-velocity updates when the IMU and the image say the device is still.
    public var enabled: Bool = true
    /// Noise of the zero-velocity pseudo-measurement, m/s (residual motion of a device "at rest").
    public var noise: Double = 0.005
    /// False-alarm probability of the IMU standstill test's chi-square threshold (as the static initialiser's).
    public var detectionFalseAlarm: Double = 1e-4
    /// Image motion under which the scene counts as still, pixels per frame (when the frame's disparity is known).
    public var stillDisparity_px: Double = 1.0
    /// Chi-square gate probability of the update's 9-row residual (velocity, mean gyro, mean accel).
    public var chi2GateProbability: Double = 0.95

    /// The default options.
    public init() {}
}

/// Options of the tracking state and the divergence checks (`VIOEstimator`).
public struct TrackingOptions: Equatable, Sendable {
    /// 1-σ velocity uncertainty under which a running filter reports `.normal`, m/s. (Velocity, not
    /// position: the position uncertainty grows without bound with the distance travelled — it is the
    /// unobservable gauge — while the velocity stays observable.)
    public var normalVelocityStd: Double = 0.1
    /// Fewer tracked features than this → `.limited(.insufficientFeatures)`.
    public var minTrackedFeatures: Int = 15
    /// Gyro norm above which the tracker cannot follow → `.limited(.excessiveMotion)`, rad/s.
    public var maxAngularRate: Double = 4.0
    /// Speeds above this mean divergence, m/s.
    public var maxSpeed: Double = 10
    /// Velocity std above this means divergence, m/s.
    public var maxVelocityStd: Double = 2
    /// This many consecutive frames whose visual update rejected (nearly) every feature → reset.
    public var maxFailedUpdateStreak: Int = 20
    /// Gaps in the IMU or camera data → `.limited(.sensorGap)`, and how the filter bridges an IMU gap.
    public var sensorGap = SensorGapOptions()

    /// The default options.
    public init() {}
}

/// Gaps in the sensor data (`VIOEstimator`): missing IMU samples or missing camera frames.
///
/// **IMU gap.** Two consecutive IMU samples farther apart than `imuGap_s(imuRate_hz:)` (or a frame beyond the last
/// sample by more than that) leave the propagation without measurements. Across such a span the filter does not
/// integrate an interpolated or held sample; it predicts with a constant-velocity, constant-attitude motion model
/// (`p += v Δt`, `v` and `R_W_B` held, biases held) and adds the motion model's process noise per step (the frame
/// interval): an unknown angular rate of 1-σ `gapAngularRateStd` and acceleration of 1-σ `gapAccelStd`
/// (`IMUPropagator.gapStep`). The camera's visual updates carry on through the gap, and the attitude is turned by the
/// rotation the frontend measures from its tracks for each bridged interval (`FeatureFrame.visualRotation_Cnew_Cold`:
/// held still, the attitude is off by the camera's whole turn at every update, and the updates' first-order
/// corrections left up to 8.6° of heading after a 2 s gap on the simulated room).
///
/// **Camera gap.** A frame arriving `cameraGap_s` or more after the previous one.
///
/// Either puts the tracking state to `.limited(.sensorGap)` for the frames it touches and until the filter has
/// recovered: at least `recovery_s` after the gap ended, the velocity 1-σ under
/// `TrackingOptions.normalVelocityStd` again, and (up to `maxReanchorSeconds`) the position re-anchored to the map.
///
/// **Drift across an IMU gap.** The bridged pose drifts in position and heading, which later measurements cannot
/// observe; it is added as uncertainty along those (gauge) directions, 1-σ `gapYawDriftRate · T` and
/// `gapPositionDriftRate · T` for T seconds bridged, so that map points seen before the gap pass the χ² gate and
/// pull the pose back (map reuse runs during `.limited(.sensorGap)` too).
public struct SensorGapOptions: Equatable, Sendable {
    /// Detect gaps (off: the IMU is interpolated across a gap as before, and no frame is `.sensorGap`).
    public var enabled: Bool = true
    /// An IMU gap is longer than this many nominal sample periods (`1 / imuRate_hz`) …
    public var imuGapPeriods: Double = 5
    /// … and longer than this, seconds.
    public var minIMUGap_s: Double = 0.025
    /// A frame this long after the previous one, or later, follows a camera gap, seconds.
    public var cameraGap_s: Double = 0.5
    /// 1-σ of the unknown angular rate per step of the motion model across an IMU gap, rad/s (handheld: turns of
    /// up to about 1 rad/s).
    public var gapAngularRateStd: Double = 1.0
    /// 1-σ of the unknown acceleration per step of the motion model across an IMU gap, m/s² (handheld: a few).
    public var gapAccelStd: Double = 3.0
    /// Heading drift of the bridged motion, 1-σ per second of IMU gap, rad/s: added as uncertainty of the
    /// unobservable heading (grows linearly with the gap), so map points seen before the gap can correct it.
    public var gapYawDriftRate: Double = 0.02
    /// Position drift of the bridged motion, 1-σ per second of IMU gap and per axis, m/s (as `gapYawDriftRate`).
    public var gapPositionDriftRate: Double = 0.04
    /// Tracking stays `.limited(.sensorGap)` at least this long after a gap ends, seconds.
    public var recovery_s: Double = 0.5
    /// … and, while the position 1-σ is more than this above its value before the gap (the drift the gap added,
    /// not yet taken back by map points seen before it), metres …
    public var reanchorMargin_m: Double = 0.02
    /// … at most this long after the gap's last frame, seconds (an unmapped area cannot re-anchor).
    public var maxReanchorSeconds: Double = 2.5

    /// The IMU gap threshold for an IMU at `imuRate_hz` (≤ 0: 200 Hz assumed), seconds:
    /// `max(imuGapPeriods / imuRate_hz, minIMUGap_s)` (200 Hz: 25 ms).
    public func imuGap_s(imuRate_hz: Double) -> Double {
        let rate = imuRate_hz > 0 ? imuRate_hz : 200
        return max(imuGapPeriods / rate, minIMUGap_s)
    }

    /// The default options.
    public init() {}
}
