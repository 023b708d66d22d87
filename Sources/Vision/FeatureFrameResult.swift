import Geometry
import Sensors

/// One feature track as seen in one frame.
public struct TrackedFeature: Equatable, Sendable {
    /// Track id: unique within a `FeatureTracker`, increasing in the order tracks start.
    public var id: Int
    /// Position in the (left) image, pixels; (0, 0) is the centre of the top-left pixel.
    public var pixel: Vec2
    /// Undistorted normalised coordinates of `pixel` in the (left) camera frame C: (x/z, y/z).
    public var normalized: Vec2
    /// Number of frames the track has been observed in, this one included (1 in its first frame).
    public var age: Int
    /// Position in the right image, pixels, when stereo matching found it; otherwise `nil`.
    public var rightPixel: Vec2?
    /// Undistorted normalised coordinates of `rightPixel` in the right camera frame.
    public var rightNormalized: Vec2?

    /// A feature observation.
    public init(id: Int, pixel: Vec2, normalized: Vec2, age: Int, rightPixel: Vec2? = nil, rightNormalized: Vec2? = nil) {
        self.id = id; self.pixel = pixel; self.normalized = normalized; self.age = age
        self.rightPixel = rightPixel; self.rightNormalized = rightNormalized
    }
}

/// Counts of what the tracker did in one frame.
public struct FeatureTrackingStats: Equatable, Sendable {
    /// New tracks started in this frame.
    public var detected: Int = 0
    /// Tracks carried over from the previous frame (after every rejection).
    public var tracked: Int = 0
    /// Tracks the optical flow lost (no convergence, left the image or the mask).
    public var lost: Int = 0
    /// Tracks rejected by the forward-backward check.
    public var rejectedByFB: Int = 0
    /// Tracks rejected as epipolar outliers by RANSAC (frame to frame or long baseline).
    public var rejectedByRANSAC: Int = 0
    /// Of those, the ones rejected by the long-baseline check.
    public var rejectedByLongBaseline: Int = 0
    /// Tracks that moved more than `FeatureTrackerOptions.stillFrameMaxMotionPx` in a frame whose median track moved
    /// less than `stillFrameMedianMotionPx` (a KLT jump onto a look-alike that the degenerate epipolar test passes).
    public var rejectedOnStillFrame: Int = 0
    /// Tracks ended by the appearance check (`FeatureTrackerOptions.appearanceMinCorrelation`).
    public var rejectedByAppearance: Int = 0
    /// Tracks ended for reaching `FeatureTrackerOptions.maxTrackAge`.
    public var retired: Int = 0
    /// Tracks dropped for coming closer than the minimum distance to an older track.
    public var prunedByDistance: Int = 0
    /// Features with a right-image match (stereo only).
    public var stereoMatched: Int = 0
    /// Counts of zero.
    public init() {}
}

/// The output of `FeatureTracker` for one frame.
public struct FeatureFrameResult: Equatable, Sendable {
    /// Time of the frame, nanoseconds.
    public var t_ns: TimestampNs
    /// Live features, oldest track first.
    public var features: [TrackedFeature]
    /// What happened in this frame.
    public var stats: FeatureTrackingStats
    /// Median image motion of the tracks carried over from the previous frame, pixels (0 in the first
    /// frame or when none were carried over). The name is historical: it is a median, robust to
    /// outliers. Near zero means the camera is still (standstill detection).
    public var meanDisparity_px: Double
    /// The camera's rotation since the previous frame as the tracks see it (maps previous-camera vectors to this
    /// camera's; `EpipolarOutlierFilter.inliersAndRotation`: the five-point RANSAC's essential matrix, the smaller of
    /// its two rotations, refitted on the inliers), when the frame came without a rotation prediction (no gyroscope
    /// samples for the interval: an IMU gap; or `measureRotation` asked for it) and the tracks fixed one; nil
    /// otherwise.
    public var visualRotation_Cnew_Cold: SO3?

    /// A frame result.
    public init(t_ns: TimestampNs, features: [TrackedFeature], stats: FeatureTrackingStats, meanDisparity_px: Double,
                visualRotation_Cnew_Cold: SO3? = nil) {
        self.t_ns = t_ns; self.features = features; self.stats = stats; self.meanDisparity_px = meanDisparity_px
        self.visualRotation_Cnew_Cold = visualRotation_Cnew_Cold
    }
}
