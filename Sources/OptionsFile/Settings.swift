import Pipeline
import Vision

/// Every tunable parameter of a run, in the order `worldtrack config --defaults` prints them. The help texts are the
/// options' own documentation. `OptionsFileTests` checks that every stored property below `PipelineOptions`'
/// `frontend`, `estimator`, `world` and `mapReuse` is here (or deliberately left out: see `Settings.notInFile`).
public enum Settings {
    /// The settings.
    public static let all: [Setting] = [
        .word("frontend.detector", ["fast", "shiTomasi"], "Corner detector for new tracks.",
              get: { $0.frontend.detector == .fast ? "fast" : "shiTomasi" },
              set: { o, w in o.frontend.detector = w == "fast" ? .fast : .shiTomasi }),
        .word("frontend.contrast", ["none", "equalizeHistogram", "clahe:CLIP"], "Contrast normalisation before everything else. It makes temporal tracking worse on simulated data (it amplifies noise), so the default is none. (`clahe:2.0` for CLAHE with clip limit 2.)",
              get: { Settings.contrastWord($0.frontend.contrast) },
              set: { o, w in o.frontend.contrast = try Settings.contrastMode(w) }),
        .int("frontend.featureBudget", \.frontend.featureBudget, "Largest number of live tracks (left image).", 1...Int64(Int32.max)),
        .int("frontend.fastThreshold", \.frontend.fastThreshold, "FAST threshold, intensity units (0...255)."),
        .int("frontend.fastFallbackThreshold", \.frontend.fastFallbackThreshold, "In a cell where the FAST threshold finds too few corners the detector retries once with this lower threshold (set equal to `fastThreshold` to disable the retry)."),
        .double("frontend.shiTomasiQuality", \.frontend.shiTomasiQuality, "Shi-Tomasi quality level (relative to the strongest corner of the cell), in (0, 1).", 0...1),
        .int("frontend.gridColumns", \.frontend.gridColumns, "Bucketing grid: columns and rows of cells. New corners are detected only in cells that hold fewer than their share (`featureBudget / (columns · rows)`) of tracks.", 1...Int64(Int32.max)),
        .int("frontend.gridRows", \.frontend.gridRows, "Bucketing grid rows (see gridColumns).", 1...Int64(Int32.max)),
        .double("frontend.minDistance", \.frontend.minDistance, "Minimum distance between two tracks, pixels. When tracks come closer the younger is dropped."),
        .int("frontend.borderMargin", \.frontend.borderMargin, "Corners closer than this to the image border are not used, pixels."),
        .int("frontend.kltWindow", \.frontend.kltWindow, "KLT window side, pixels (odd).", 3...Int64(Int32.max)),
        .int("frontend.kltLevels", \.frontend.kltLevels, "KLT coarsest pyramid level (0 = no pyramid)."),
        .int("frontend.kltMaxIterations", \.frontend.kltMaxIterations, "KLT iterations per level at most.", 1...Int64(Int32.max)),
        .double("frontend.kltEpsilon", \.frontend.kltEpsilon, "KLT convergence bound, pixels."),
        .double("frontend.kltMinEigenvalue", \.frontend.kltMinEigenvalue, "KLT rejects a point whose window's gradient matrix has a smaller eigenvalue (OpenCV's normalisation: per window pixel, Scharr gradients scaled by 2⁻²⁰·32²...) below this; larger values drop weakly textured windows whose position noise and exposure changes move."),
        .optionalInt("frontend.maxTrackAge", \.frontend.maxTrackAge, "Tracks are ended after this many frames (a new track may start at the same place): frame-to- frame KLT drifts by a few hundredths of a pixel per frame under perspective change, so very old tracks are the ones more than 2 px from the truth. `nil` keeps tracks as long as they last."),
        .double("frontend.forwardBackwardThreshold", \.frontend.forwardBackwardThreshold, "Forward-backward check: a track is kept only when tracking it back lands within this distance of where it started, pixels."),
        .double("frontend.ransacThresholdPx", \.frontend.ransacThresholdPx, "RANSAC inlier bound on the distance to the epipolar line, pixels (divided by the focal length for the test in normalised coordinates)."),
        .bool("frontend.useRANSAC", \.frontend.useRANSAC, "Reject temporal outliers by RANSAC (5-point essential matrix, or 2-point translation when the rotation between the frames is given)."),
        .optionalInt("frontend.longBaselineFrames", \.frontend.longBaselineFrames, "Every `longBaselineFrames / 2` frames, also check tracks against the epipolar geometry between this frame and the frame this many frames back (one more RANSAC); catches slow sliding (along occluding edges, or drift) that frame-to-frame RANSAC misses. `nil` disables the check."),
        .bool("frontend.ransacUsesRotation", \.frontend.ransacUsesRotation, "Use the caller's rotation (`R_Cnew_Cold`) in RANSAC: two-point RANSAC on the translation direction instead of the five-point essential matrix. Faster, but a gyro bias shifts every point, so only for bias-corrected rotations."),
        .word("frontend.essentialEstimator", ["ransac", "usac"], "The five-point RANSAC variant. `.usac` (OpenCV's USAC) cuts the frontend's median time by about 0.4 ms per 752×480 frame (of about 2 ms) but picks different inliers; on the 60 s simulated rooms it changed ATE by −3 % (mono from rest), +11 % (stereo), +5 % (moving start), −3 % (shake), so the default stays the classic `.ransac`.",
              get: { $0.frontend.essentialEstimator == .ransac ? "ransac" : "usac" },
              set: { o, w in o.frontend.essentialEstimator = w == "ransac" ? .ransac : .usac }),
        .int("frontend.stereoWindow", \.frontend.stereoWindow, "Stereo: KLT window side for the left-to-right match, pixels (odd). Larger than the temporal window: the two views differ by the baseline and the cameras' responses.", 1...Int64(Int32.max)),
        .double("frontend.stereoEpipolarThresholdPx", \.frontend.stereoEpipolarThresholdPx, "Stereo: largest distance of the right point from the epipolar line of the left one, pixels."),
        .bool("frontend.stereoPhotometricAlignment", \.frontend.stereoPhotometricAlignment, "Stereo: map the right image's intensities by a global gain and offset so its mean and spread match the left image's before matching (the cameras' exposures differ, as on EuRoC)."),
        .double("frontend.stereoMinDepth", \.frontend.stereoMinDepth, "Stereo: smallest depth of a stereo point accepted, metres (rejects matches behind or at the camera)."),
        .double("estimator.gravity", \.estimator.gravity, "Magnitude of gravity, m/s². World gravity is `(0, 0, -gravity)`. (Shared by propagation, the initialisers and the zero-velocity update.)", 0.1...100),
        .int("estimator.state.maxClones", \.estimator.state.maxClones, "Number of stochastic clones (past body poses) kept in the sliding window.", 2...Int64(Int32.max)),
        .bool("estimator.state.firstEstimateJacobians", \.estimator.state.firstEstimateJacobians, "First-estimate Jacobians (FEJ): linearise the clones' measurements and the inertial transition at the first estimates, so that updates cannot make the unobservable directions (position, yaw) spuriously observable. Applied once the filter has converged (first `normal`). Off by default: on the 20–30 s tests it changes nothing measurable, and pinned linearisation points from a rough (dynamic) initialisation occasionally inflate the gate's χ²; meant for long runs."),
        .bool("estimator.state.timeOffset.estimate", \.estimator.state.timeOffset.estimate, "Estimate `t_d` in the filter state; when false it stays at `initial_s`."),
        .double("estimator.state.timeOffset.initial_s", \.estimator.state.timeOffset.initial_s, "The initial (or, when not estimated, fixed) value, seconds.", -1...1),
        .double("estimator.state.timeOffset.priorStd_s", \.estimator.state.timeOffset.priorStd_s, "Prior 1-σ of the initial value, seconds."),
        .double("estimator.state.timeOffset.maxMagnitude_s", \.estimator.state.timeOffset.maxMagnitude_s, "The estimate is clamped to ±this, seconds. A pipeline feeds the IMU this far ahead of each frame (`imuLookahead_ns`), so that the filter can propagate to `t_cam + t̂_d`."),
        .bool("estimator.state.extrinsics.estimate", \.estimator.state.extrinsics.estimate, "Estimate camera 0's mounting; when false the calibration's `T_B_C` is used as given."),
        .double("estimator.state.extrinsics.priorRotationStd_rad", \.estimator.state.extrinsics.priorRotationStd_rad, "Prior 1-σ of the calibration's mounting rotation, radians (per axis; 0.035 rad = 2°)."),
        .double("estimator.state.extrinsics.priorTranslationStd_m", \.estimator.state.extrinsics.priorTranslationStd_m, "Prior 1-σ of the calibration's lever arm, metres (per axis)."),
        .bool("estimator.state.adaptiveIMUNoise", \.estimator.state.adaptiveIMUNoise, "Measure the IMU's white noise from its samples (`IMUNoiseEstimator`: vibration on a vehicle is often 10–30× the datasheet density) and propagate with the measured densities where they exceed the calibration's. Off: the calibration's densities as given."),
        .double("estimator.updater.pixelNoiseStd", \.estimator.updater.pixelNoiseStd, "Standard deviation of a feature's position in the image, pixels (converted to normalised coordinates with each camera's `fx`)."),
        .int("estimator.updater.maxFeaturesPerUpdate", \.estimator.updater.maxFeaturesPerUpdate, "At most this many features go into one visual update (the longest tracks first).", 1...Int64(Int32.max)),
        .double("estimator.updater.chi2GateProbability", \.estimator.updater.chi2GateProbability, "Chi-square gate probability for one feature's residual (0.95 → reject the worst 5 % of inliers).", 1e-12...(1 - 1e-12)),
        .double("estimator.updater.mapChi2GateProbability", \.estimator.updater.mapChi2GateProbability, "Chi-square gate probability for one re-observed map point (2 dof; see `addMapObservations`).", 1e-12...(1 - 1e-12)),
        .bool("estimator.updater.landmarkStdIncludesTilt", \.estimator.updater.landmarkStdIncludesTilt, "Landmarks report a σ that includes the filter's tilt uncertainty times their distance (so that map reuse and the world layer do not take points triangulated before the gravity direction converged as exact)."),
        .double("estimator.updater.minDepth", \.estimator.updater.minDepth, "Points closer than this to the anchor camera are rejected, metres."),
        .double("estimator.updater.maxDepth", \.estimator.updater.maxDepth, "Points farther than this from the anchor camera are rejected, metres."),
        .double("estimator.initializer.staticWindow", \.estimator.initializer.staticWindow, "Length of the rest window the static initialiser needs, seconds."),
        .int("estimator.initializer.staticSubWindows", \.estimator.initializer.staticSubWindows, "Number of sub-windows the rest test compares (their means must agree within the noise).", 2...Int64(Int32.max)),
        .double("estimator.initializer.staticTestFalseAlarm", \.estimator.initializer.staticTestFalseAlarm, "False-alarm probability of the rest test's chi-square threshold (smaller → more permissive).", 1e-12...(1 - 1e-12)),
        .double("estimator.initializer.stillDisparity_px", \.estimator.initializer.stillDisparity_px, "Image motion under which the scene counts as still, pixels per frame. Comparable to the tracker's own noise (about 1 px at VGA), not tuned per dataset."),
        .bool("estimator.initializer.dynamicInitialization", \.estimator.initializer.dynamicInitialization, "Initialise in motion (visual-inertial alignment) when the device does not rest."),
        .double("estimator.initializer.dynamicWindow", \.estimator.initializer.dynamicWindow, "Length of the window of frames the dynamic initialiser aligns, seconds."),
        .int("estimator.initializer.gyroBiasIterations", \.estimator.initializer.gyroBiasIterations, "Gauss-Newton iterations of the dynamic initialiser's gyro-bias estimate (0 turns it off: the prior bias is used as it is)."),
        .int("estimator.initializer.gyroBiasTracks", \.estimator.initializer.gyroBiasTracks, "The gyro-bias estimate uses at most this many tracks of the window (those seen in the most frames)."),
        .double("estimator.initializer.maxGyroBias", \.estimator.initializer.maxGyroBias, "An estimated gyro bias farther than this from the prior is not trusted (the prior is kept), rad/s."),
        .double("estimator.initializer.minGyroBiasStd", \.estimator.initializer.minGyroBiasStd, "Lower bound of the 1-σ given to an estimated gyro bias, rad/s."),
        .double("estimator.initializer.initialGyroBiasStd", \.estimator.initializer.initialGyroBiasStd, "Prior 1-σ of the gyro bias at dynamic initialisation, rad/s: the prior of its estimate, and the bias's 1-σ when it is not estimated. Uncalibrated MEMS gyros: up to several °/s (0.05 rad/s ≈ 2.9 °/s)."),
        .double("estimator.initializer.initialAccelBiasStd", \.estimator.initializer.initialAccelBiasStd, "Prior 1-σ of the accelerometer bias at initialisation, m/s² (MEMS datasheets: 0.05–0.2)."),
        .double("estimator.initializer.initialVelocityStd", \.estimator.initializer.initialVelocityStd, "Prior 1-σ of the velocity at static initialisation, m/s."),
        .bool("estimator.zeroVelocity.enabled", \.estimator.zeroVelocity.enabled, "Apply zero-velocity updates when the IMU and the image say the device is still."),
        .double("estimator.zeroVelocity.noise", \.estimator.zeroVelocity.noise, "Noise of the zero-velocity pseudo-measurement, m/s (residual motion of a device \"at rest\")."),
        .double("estimator.zeroVelocity.detectionFalseAlarm", \.estimator.zeroVelocity.detectionFalseAlarm, "False-alarm probability of the IMU standstill test's chi-square threshold (as the static initialiser's).", 1e-12...(1 - 1e-12)),
        .double("estimator.zeroVelocity.stillDisparity_px", \.estimator.zeroVelocity.stillDisparity_px, "Image motion under which the scene counts as still, pixels per frame (when the frame's disparity is known)."),
        .double("estimator.zeroVelocity.chi2GateProbability", \.estimator.zeroVelocity.chi2GateProbability, "Chi-square gate probability of the update's 9-row residual (velocity, mean gyro, mean accel).", 1e-12...(1 - 1e-12)),
        .double("estimator.tracking.normalVelocityStd", \.estimator.tracking.normalVelocityStd, "1-σ velocity uncertainty under which a running filter reports `.normal`, m/s. (Velocity, not position: the position uncertainty grows without bound with the distance travelled — it is the unobservable gauge — while the velocity stays observable.)"),
        .int("estimator.tracking.minTrackedFeatures", \.estimator.tracking.minTrackedFeatures, "Fewer tracked features than this → `.limited(.insufficientFeatures)`."),
        .double("estimator.tracking.maxAngularRate", \.estimator.tracking.maxAngularRate, "Gyro norm above which the tracker cannot follow → `.limited(.excessiveMotion)`, rad/s."),
        .double("estimator.tracking.maxSpeed", \.estimator.tracking.maxSpeed, "Speeds above this mean divergence, m/s."),
        .double("estimator.tracking.maxVelocityStd", \.estimator.tracking.maxVelocityStd, "Velocity std above this means divergence, m/s."),
        .int("estimator.tracking.maxFailedUpdateStreak", \.estimator.tracking.maxFailedUpdateStreak, "This many consecutive frames whose visual update rejected (nearly) every feature → reset."),
        .bool("estimator.tracking.sensorGap.enabled", \.estimator.tracking.sensorGap.enabled, "Detect gaps (off: the IMU is interpolated across a gap as before, and no frame is `.sensorGap`)."),
        .double("estimator.tracking.sensorGap.imuGapPeriods", \.estimator.tracking.sensorGap.imuGapPeriods, "An IMU gap is longer than this many nominal sample periods (`1 / imuRate_hz`) …"),
        .double("estimator.tracking.sensorGap.minIMUGap_s", \.estimator.tracking.sensorGap.minIMUGap_s, "… and longer than this, seconds."),
        .double("estimator.tracking.sensorGap.cameraGap_s", \.estimator.tracking.sensorGap.cameraGap_s, "A frame this long after the previous one, or later, follows a camera gap, seconds."),
        .double("estimator.tracking.sensorGap.gapAngularRateStd", \.estimator.tracking.sensorGap.gapAngularRateStd, "1-σ of the unknown angular rate per step of the motion model across an IMU gap, rad/s (handheld: turns of up to about 1 rad/s)."),
        .double("estimator.tracking.sensorGap.gapAccelStd", \.estimator.tracking.sensorGap.gapAccelStd, "1-σ of the unknown acceleration per step of the motion model across an IMU gap, m/s² (handheld: a few)."),
        .double("estimator.tracking.sensorGap.gapYawDriftRate", \.estimator.tracking.sensorGap.gapYawDriftRate, "Heading drift of the bridged motion, 1-σ per second of IMU gap, rad/s: added as uncertainty of the unobservable heading (grows linearly with the gap), so map points seen before the gap can correct it."),
        .double("estimator.tracking.sensorGap.gapPositionDriftRate", \.estimator.tracking.sensorGap.gapPositionDriftRate, "Position drift of the bridged motion, 1-σ per second of IMU gap and per axis, m/s (as gapYawDriftRate)."),
        .double("estimator.tracking.sensorGap.recovery_s", \.estimator.tracking.sensorGap.recovery_s, "Tracking stays `.limited(.sensorGap)` at least this long after a gap ends, seconds."),
        .double("estimator.tracking.sensorGap.reanchorMargin_m", \.estimator.tracking.sensorGap.reanchorMargin_m, "… and, while the position 1-σ is more than this above its value before the gap (the drift the gap added, not yet taken back by map points seen before it), metres …"),
        .double("estimator.tracking.sensorGap.maxReanchorSeconds", \.estimator.tracking.sensorGap.maxReanchorSeconds, "… at most this long after the gap's last frame, seconds (an unmapped area cannot re-anchor)."),
        .int("world.landmarkCapacity", \.world.landmarkCapacity, "Landmark map capacity (landmarks).", 1...Int64(Int32.max)),
        .optionalInt64("world.landmarkMaxAge_ns", \.world.landmarkMaxAge_ns, "Landmarks not seen for this long are dropped, ns; `nil` keeps them until capacity is reached."),
        .int64("world.detectionInterval_ns", \.world.detectionInterval_ns, "Plane detection runs at most this often, ns (100 ms: 10 Hz) …"),
        .int("world.detectionLandmarksPerInterval", \.world.detectionLandmarksPerInterval, "… while the map holds up to this many landmarks; beyond, the interval grows in proportion (a 20 000-landmark map is searched every 500 ms), bounding the cost deterministically.", 1...Int64(Int32.max)),
        .int("world.detectionDelayFrames", \.world.detectionDelayFrames, "Frames between the landmark snapshot a plane detection starts from and the frame that applies its planes: 0 detects on the tracking thread (that frame waits), ≥ 1 on a worker thread whose planes are applied exactly that many frames later (the output depends on the input alone). The pipeline sets 6.", 0...1000),
        .double("world.detector.maxLandmarkStd_m", \.world.detector.maxLandmarkStd_m, "Landmarks with σ above this are ignored, metres."),
        .int("world.detector.minPoints", \.world.detector.minPoints, "Minimum supporting landmarks for a plane.", 1...Int64(Int32.max)),
        .double("world.detector.binSize_m", \.world.detector.binSize_m, "Height histogram bin, metres."),
        .double("world.detector.minBand_m", \.world.detector.minBand_m, "Smallest half-width of the inlier band around a plane, metres (the band is max(this, 2.5 × median σ))."),
        .double("world.detector.minPeakSeparation_m", \.world.detector.minPeakSeparation_m, "Peaks closer than this in height are treated as one, metres."),
        .double("world.detector.componentCell_m", \.world.detector.componentCell_m, "Grid cell for the x-y connected components, metres: gaps wider than about this split planes."),
        .double("world.detector.maxComponentCell_m", \.world.detector.maxComponentCell_m, "Upper bound of the adaptive grid cell used when landmarks are sparse, metres."),
        .double("world.detector.minSide_m", \.world.detector.minSide_m, "Both sides of a plane's enclosing rectangle must be at least this, metres."),
        .double("world.detector.maxTilt_deg", \.world.detector.maxTilt_deg, "Largest tilt of a horizontal plane's landmarks (e.g. from a small gravity error) still followed when selecting its inliers, degrees."),
        .bool("world.detector.ignoreStackedLandmarks", \.world.detector.ignoreStackedLandmarks, "Horizontal levels and planes are built only from landmarks without others straight above and below them (within 15 cm horizontally, 5–50 cm vertically): such landmarks lie inside vertical structure, and a densely mapped wall would otherwise offer a \"level\" at every height."),
        .double("world.detector.maxMedianGateResidual", \.world.detector.maxMedianGateResidual, "A wall candidate is rejected when the median of its landmarks' distances to it, each divided by that landmark's inlier gate, exceeds this: landmarks spread evenly across the band (uniform: 0.5) are a line through unrelated structure (table legs and box sides), not a face (Gaussian with honest σ: 0.27; walls in the simulated room: 0.09–0.16)."),
        .bool("world.detector.rejectDiffuseLevels", \.world.detector.rejectDiffuseLevels, "Horizontal candidates must pass the same concentration test as walls (maxMedianGateResidual); false accepts them as before that test (for comparisons)."),
        .bool("world.detector.detectVertical", \.world.detector.detectVertical, "Detect vertical (wall) planes as well."),
        .double("world.detector.minWallHeight_m", \.world.detector.minWallHeight_m, "Minimum vertical span of a wall's points, metres."),
        .double("world.tracker.matchOffset_m", \.world.tracker.matchOffset_m, "A candidate matches a plane when their offsets differ by at most max(this, the candidate's inlier band, 3 σ), metres."),
        .double("world.tracker.matchDistance_m", \.world.tracker.matchDistance_m, "… and their boundaries are at most this far apart, metres."),
        .double("world.tracker.mergeOffset_m", \.world.tracker.mergeOffset_m, "Two planes merge when their offsets differ by at most max(this, the smaller of their inlier bands), metres …"),
        .double("world.tracker.mergeDistance_m", \.world.tracker.mergeDistance_m, "… and their boundaries touch (are at most this far apart), metres."),
        .double("world.tracker.floorMinArea_m2", \.world.tracker.floorMinArea_m2, "A horizontal plane needs at least this area to be the floor, m²."),
        .double("world.tracker.ceilingAboveCamera_m", \.world.tracker.ceilingAboveCamera_m, "A horizontal plane more than this above the camera is a ceiling, metres."),
        .double("world.tracker.updateOffset_m", \.world.tracker.updateOffset_m, "An `updated` change is reported when the offset moves by more than this, metres …"),
        .double("world.tracker.updateAreaFraction", \.world.tracker.updateAreaFraction, "… or the area changes by more than this fraction.", 0...1),
        .double("world.tracker.boundaryRefitFraction", \.world.tracker.boundaryRefitFraction, "A refinement whose candidate holds at least this fraction of the plane's landmarks replaces the boundary (instead of growing it).", 0...1),
        .int("world.tracker.maxMissedPasses", \.world.tracker.maxMissedPasses, "A plane that no candidate has matched for this many detection passes in a row is removed: its landmarks no longer make a plane (an early detection from a sparse map, or landmarks re-estimated elsewhere)."),
        .double("world.geometryMargin_m", \.world.geometryMargin_m, "`existingPlaneGeometry` raycasts accept hits this far outside a plane's boundary, metres (the hull of sparse landmarks lies inside the true edges)."),
        .double("world.maxInfiniteExtension_m", \.world.maxInfiniteExtension_m, "Preferred-order raycasts ignore infinite-plane hits farther than this outside the plane's boundary, metres."),
        .double("world.estimatedPlane.maxAngle_rad", \.world.estimatedPlane.maxAngle_rad, "Landmarks within this angle of the ray are considered, radians."),
        .int("world.estimatedPlane.maxPoints", \.world.estimatedPlane.maxPoints, "At most this many of the angularly closest landmarks are used.", 1...Int64(Int32.max)),
        .int("world.estimatedPlane.minInliers", \.world.estimatedPlane.minInliers, "At least this many inliers are needed.", 1...Int64(Int32.max)),
        .double("world.estimatedPlane.inlierDistance_m", \.world.estimatedPlane.inlierDistance_m, "Inlier distance to the plane, metres (at least; 3 × the landmarks' median σ when larger)."),
        .double("world.estimatedPlane.minIncidenceCosine", \.world.estimatedPlane.minIncidenceCosine, "Hits whose incidence cosine is below this are rejected (grazing rays are unreliable).", 0...1),
        .double("world.anchorUpdateThreshold_m", \.world.anchorUpdateThreshold_m, "User anchors moving less than this on a plane refinement are not reported as updated, metres."),
        .bool("mapReuse.enabled", \.mapReuse.enabled, "Re-observe map points at all."),
        .double("mapReuse.maxPointStd_m", \.mapReuse.maxPointStd_m, "Map points with a triangulation σ above this are not kept, metres."),
        .double("mapReuse.pointStdFloor_m", \.mapReuse.pointStdFloor_m, "The σ given to a map point is at least this, metres (the pose drift it was triangulated with)."),
        .int64("mapReuse.minGap_ns", \.mapReuse.minGap_ns, "A map point is matched again only when it was last seen this long ago, ns (a shorter gap is the same information the sliding window already has)."),
        .int64("mapReuse.reapplyEvery_ns", \.mapReuse.reapplyEvery_ns, "A matched point is applied again at most this often while its new track lives, ns."),
        .double("mapReuse.searchRadius_px", \.mapReuse.searchRadius_px, "A track is matched to a map point projecting within this distance of it, pixels."),
        .int("mapReuse.maxHamming", \.mapReuse.maxHamming, "Largest Hamming distance of a match (of 256 bits)."),
        .double("mapReuse.ratio", \.mapReuse.ratio, "The best match must beat the second best by this factor (Lowe's ratio, on Hamming distances).", 0...1),
        .int64("mapReuse.warmup_ns", \.mapReuse.warmup_ns, "Points are mapped only once tracking has been normal this long, ns: the first seconds' points carry the start-up transient's errors, and a map anchors the pose to them for good."),
        .int("mapReuse.capacity", \.mapReuse.capacity, "Map points kept at most; the least recently seen go first.", 1...Int64(Int32.max)),
    ]

    /// Properties that are not settings of the file, with the reason.
    public static let notInFile: [String: String] = [
        "frontend.mask": "an image; not a value a text file holds",
    ]

    /// The setting with this dotted key.
    public static func setting(_ key: String) -> Setting? { byKey[key] }

    private static let byKey: [String: Setting] = Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0) })

    static func contrastWord(_ m: FeatureTrackerOptions.ContrastMode) -> String {
        switch m {
        case .none: return "none"
        case .equalizeHistogram: return "equalizeHistogram"
        case .clahe(let clip): return "clahe:" + SettingValue.yamlNumber(clip)
        }
    }

    static func contrastMode(_ w: String) throws -> FeatureTrackerOptions.ContrastMode {
        if w == "none" { return .none }
        if w == "equalizeHistogram" { return .equalizeHistogram }
        if w.hasPrefix("clahe:"), let clip = Double(w.dropFirst(6)), clip > 0, clip.isFinite { return .clahe(clipLimit: clip) }
        throw SettingError("must be none, equalizeHistogram or clahe:CLIP with a clip limit > 0")
    }
}
