import Imaging

/// Settings of `FeatureTracker`. The defaults suit 752×480 frames at 20 Hz (EuRoC, simulated rooms).
public struct FeatureTrackerOptions: Equatable, Sendable {
    /// The corner detector used to start new tracks.
    public enum Detector: Equatable, Sendable {
        /// FAST-9/16 corners (fast; integer pixel positions).
        case fast
        /// Shi-Tomasi corners (slower; sub-pixel positions).
        case shiTomasi
    }

    /// Contrast normalisation applied to each image before detection and tracking.
    public enum ContrastMode: Equatable, Sendable {
        /// Images are used as they are.
        case none
        /// Contrast-limited adaptive histogram equalisation with this clip limit (OpenCV units, 2–4 typical).
        case clahe(clipLimit: Double)
        /// Global histogram equalisation.
        case equalizeHistogram
    }

    /// Corner detector for new tracks.
    public var detector: Detector = .fast
    /// Contrast normalisation before everything else. It makes temporal tracking worse on simulated
    /// data (it amplifies noise), so the default is `.none`.
    public var contrast: ContrastMode = .none
    /// Largest number of live tracks (left image).
    public var featureBudget: Int = 200
    /// Optional detection mask, the size of the (left) image: corners are detected and tracks kept
    /// only where it is non-zero.
    public var mask: GrayImage? = nil
    /// FAST threshold, intensity units (0...255).
    public var fastThreshold: Int = 20
    /// In a cell where the FAST threshold finds too few corners the detector retries once with this
    /// lower threshold (set equal to `fastThreshold` to disable the retry).
    public var fastFallbackThreshold: Int = 20
    /// Shi-Tomasi quality level (relative to the strongest corner of the cell), in (0, 1).
    public var shiTomasiQuality: Double = 0.01
    /// Bucketing grid: columns and rows of cells. New corners are detected only in cells that hold
    /// fewer than their share (`featureBudget / (columns · rows)`) of tracks.
    public var gridColumns: Int = 8, gridRows: Int = 6
    /// Minimum distance between two tracks, pixels. When tracks come closer the younger is dropped.
    public var minDistance: Double = 16
    /// Corners closer than this to the image border are not used, pixels.
    public var borderMargin: Int = 8
    /// KLT window side, pixels (odd).
    public var kltWindow: Int = 7
    /// KLT coarsest pyramid level (0 = no pyramid).
    public var kltLevels: Int = 3
    /// KLT iterations per level at most.
    public var kltMaxIterations: Int = 10
    /// KLT convergence bound, pixels.
    public var kltEpsilon: Double = 0.03
    /// KLT rejects a point whose window's gradient matrix has a smaller eigenvalue (OpenCV's
    /// normalisation: per window pixel, Scharr gradients scaled by 2⁻²⁰·32²...) below this; larger
    /// values drop weakly textured windows whose position noise and exposure changes move.
    public var kltMinEigenvalue: Double = 1e-4
    /// Tracks are ended after this many frames (a new track may start at the same place): frame-to-
    /// frame KLT drifts by a few hundredths of a pixel per frame under perspective change, so very old
    /// tracks are the ones more than 2 px from the truth. `nil` keeps tracks as long as they last.
    public var maxTrackAge: Int? = 25
    /// Appearance check: a track ends when the ZNCC of its `appearanceWindow`-sided window (read at the tracked
    /// position along the axes its birth window has after the camera's rotation since, so that turning is no change)
    /// with its window at birth falls below this, and along the best linear warp about the tracked point too
    /// (`appearanceMaxStretch`). KLT follows each frame's window from the last, so a track that slides slowly (along an edge, onto a nearer surface's silhouette) keeps passing the forward-backward and
    /// epipolar checks; against its birth window it does not. Unchecked while the rotation since birth is unknown
    /// (a frame with neither gyroscope samples nor a measured rotation ends the track's reference). `nil` disables it.
    public var appearanceMinCorrelation: Double? = 0.8
    /// Appearance check: window side, samples (odd).
    public var appearanceWindow: Int = 9
    /// Appearance check: a window that fails along the rotation-carried axes is compared again along the axes a
    /// linear warp about the tracked point fits best (a surface seen from elsewhere changes its shape: a floor tile
    /// approached along the floor stretches), when that warp stretches the axes by at most this factor either way.
    /// 1 turns the second look off.
    public var appearanceMaxStretch: Double = 2
    /// Whether a stereo tracker runs the appearance check too. Off by default: on five whole V1_01 real-IMU flights
    /// it took mono's posyaw ATE from 26.1 to 18.4 mm on average (the worst 35.4 → 20.3 mm), but stereo gained
    /// nothing (four flights 6.4 / 7.9 / 7.7 / 7.5 → 6.5 / 8.3 / 7.3 / 8.1 mm; the rotation-only check, 7.5 → 9.0 mm
    /// on one): a stereo track is also matched in the right image every frame, and the tracks the check ends carry
    /// information (docs/ACCURACY.md, "The frontend's appearance check").
    public var appearanceCheckStereo: Bool = false
    /// Still frames: when the median track moved less than `stillFrameMedianMotionPx` since the previous frame, a
    /// track that moved more than this and more than `stillFrameMaxMotionRatio` times the median is ended, pixels.
    /// A camera that barely moves gives the epipolar test a baseline near zero, whose geometry cannot refuse a track
    /// that KLT moved onto a look-alike a few pixels away (forward and back alike; seen on the real EuRoC V1_01
    /// excerpt: 13 px while every other track moved less than 1 px); a static point's motion is its parallax, at most
    /// the depth ratio times the median's. `nil` disables it.
    public var stillFrameMaxMotionPx: Double? = 3
    /// Still frames: a track is ended only beyond this many times the frame's median motion too (the depth ratio a
    /// scene's static points may span: a camera hovering near a box sees it move that much more than the wall).
    public var stillFrameMaxMotionRatio: Double = 20
    /// Still frames: the median track motion below which a frame counts as still, pixels.
    public var stillFrameMedianMotionPx: Double = 1
    /// Whether a stereo tracker ends tracks on still frames too. Off by default, like the appearance check: measured
    /// on one whole V1_01 flight only (arrangement 2: 7.9 → 8.2 mm posyaw), and stereo's trajectories stay as they were.
    public var stillFrameCheckStereo: Bool = false
    /// Forward-backward check: a track is kept only when tracking it back lands within this
    /// distance of where it started, pixels.
    public var forwardBackwardThreshold: Double = 0.5
    /// RANSAC inlier bound on the distance to the epipolar line, pixels (divided by the focal length
    /// for the test in normalised coordinates).
    public var ransacThresholdPx: Double = 1.0
    /// Reject temporal outliers by RANSAC (5-point essential matrix, or 2-point translation when the
    /// rotation between the frames is given).
    public var useRANSAC: Bool = true
    /// Every `longBaselineFrames / 2` frames, also check tracks against the epipolar geometry between
    /// this frame and the frame this many frames back (one more RANSAC); catches slow sliding (along
    /// occluding edges, or drift) that frame-to-frame RANSAC misses. `nil` disables the check.
    public var longBaselineFrames: Int? = 8
    /// Use the caller's rotation (`R_Cnew_Cold`) in RANSAC: two-point RANSAC on the translation
    /// direction instead of the five-point essential matrix. Faster, but a gyro bias shifts every
    /// point, so only for bias-corrected rotations.
    public var ransacUsesRotation: Bool = false
    /// The five-point RANSAC variant. `.fastRansac` (WorldTrack's own five-point solver in a copy of OpenCV's RANSAC
    /// loop) takes about 7 % off a mono run's instructions, but on small-motion frames it picks other models than
    /// `.ransac` and the trajectories are other draws: over five whole real-IMU flights mono's ATE went 18.4 → 21.1 mm
    /// (docs/ACCURACY.md), so it is not the default. `.usac` (OpenCV's USAC) picks different inliers; on the 60 s
    /// simulated rooms it changed ATE by −3 % (mono from rest), +11 % (stereo), +5 % (moving start), −3 % (shake).
    public var essentialEstimator: EpipolarRANSAC.EssentialEstimator = .ransac
    /// Stereo: KLT window side for the left-to-right match, pixels (odd). Larger than the temporal
    /// window: the two views differ by the baseline and the cameras' responses.
    public var stereoWindow: Int = 15
    /// Stereo: a track matched in the previous frame is looked for at its old disparity from this pyramid level
    /// (0 = full resolution only) instead of `kltLevels`, since its disparity changes by a pixel or two between
    /// frames and the coarse levels cost about as much per point as the fine one; a track not found so is searched
    /// from the coarsest level in the next frame (from the same guess). `kltLevels` or more searches every track
    /// from the coarsest level.
    public var stereoSeededLevels: Int = 0
    /// Stereo: largest distance of the right point from the epipolar line of the left one, pixels.
    public var stereoEpipolarThresholdPx: Double = 1.5
    /// Stereo: map the right image's intensities by a global gain and offset so its mean and spread
    /// match the left image's before matching (the cameras' exposures differ, as on EuRoC).
    public var stereoPhotometricAlignment: Bool = true
    /// Stereo: smallest depth of a stereo point accepted, metres (rejects matches behind or at the camera).
    public var stereoMinDepth: Double = 0.05

    /// Default settings.
    public init() {}

    /// Checks the settings; throws `VisionError.invalidOptions` naming the first bad one.
    public func validate() throws {
        func bad(_ m: String) -> VisionError { .invalidOptions(m) }
        guard featureBudget >= 1 else { throw bad("feature budget must be >= 1 (got \(featureBudget))") }
        guard (0...255).contains(fastThreshold) else { throw bad("FAST threshold must be in 0...255 (got \(fastThreshold))") }
        guard (0...255).contains(fastFallbackThreshold) else {
            throw bad("FAST fallback threshold must be in 0...255 (got \(fastFallbackThreshold))")
        }
        guard shiTomasiQuality > 0, shiTomasiQuality < 1 else { throw bad("Shi-Tomasi quality must be in (0, 1)") }
        guard gridColumns >= 1, gridRows >= 1, gridColumns <= 64, gridRows <= 64 else {
            throw bad("grid must have 1...64 columns and rows (got \(gridColumns)x\(gridRows))")
        }
        guard minDistance >= 0, minDistance.isFinite else { throw bad("min distance must be >= 0 pixels") }
        guard borderMargin >= 0 else { throw bad("border margin must be >= 0 pixels") }
        guard kltWindow >= 3, kltWindow % 2 == 1 else { throw bad("KLT window must be odd and >= 3 (got \(kltWindow))") }
        guard (0...8).contains(kltLevels) else { throw bad("KLT levels must be in 0...8 (got \(kltLevels))") }
        guard kltMaxIterations >= 1 else { throw bad("KLT iterations must be >= 1") }
        guard kltEpsilon > 0, kltEpsilon.isFinite else { throw bad("KLT epsilon must be > 0") }
        if let k = longBaselineFrames, k < 2 { throw bad("long-baseline frames must be >= 2 (got \(k))") }
        if let c = appearanceMinCorrelation, !(c > -1 && c < 1) {
            throw bad("appearance minimum correlation must be in (-1, 1) (got \(c))")
        }
        guard appearanceMaxStretch >= 1, appearanceMaxStretch.isFinite else {
            throw bad("appearance max stretch must be >= 1 (got \(appearanceMaxStretch))")
        }
        guard appearanceWindow >= 3, appearanceWindow % 2 == 1 else {
            throw bad("appearance window must be odd and >= 3 (got \(appearanceWindow))")
        }
        if let a = maxTrackAge, a < 2 { throw bad("max track age must be >= 2 frames (got \(a))") }
        if let m = stillFrameMaxMotionPx, !(m > 0 && m.isFinite) { throw bad("still-frame max motion must be > 0 pixels") }
        guard stillFrameMaxMotionRatio >= 1, stillFrameMaxMotionRatio.isFinite else {
            throw bad("still-frame max motion ratio must be >= 1")
        }
        guard stillFrameMedianMotionPx >= 0, stillFrameMedianMotionPx.isFinite else {
            throw bad("still-frame median motion must be >= 0 pixels")
        }
        guard forwardBackwardThreshold > 0, forwardBackwardThreshold.isFinite else {
            throw bad("forward-backward threshold must be > 0 pixels")
        }
        guard ransacThresholdPx > 0, ransacThresholdPx.isFinite else { throw bad("RANSAC threshold must be > 0 pixels") }
        guard (0...8).contains(stereoSeededLevels) else { throw bad("stereo seeded levels must be in 0...8 (got \(stereoSeededLevels))") }
        guard stereoWindow >= 3, stereoWindow % 2 == 1 else { throw bad("stereo window must be odd and >= 3 (got \(stereoWindow))") }
        guard stereoEpipolarThresholdPx > 0, stereoEpipolarThresholdPx.isFinite else {
            throw bad("stereo epipolar threshold must be > 0 pixels")
        }
        if case .clahe(let clip) = contrast, !(clip > 0 && clip.isFinite) { throw bad("CLAHE clip limit must be > 0") }
    }
}
