/// Namespace of the `Vision` module: the feature frontend.
///
/// `FeatureTracker` keeps corner tracks from frame to frame (mono or stereo) and returns a
/// `FeatureFrameResult` per frame: each live track's id, pixel, undistorted normalised coordinates,
/// age and (stereo) right-image match, with counts and the median image motion. Helpers:
/// `GyroIntegration` (camera rotation between frames from gyro samples), `RotationPrediction`,
/// `EpipolarOutlierFilter` (RANSAC in normalised coordinates), `NormalizedPatch` and `WindowWarpFit` (the
/// appearance check's windows and their linear warp), `TrackQualityAccumulator` (track statistics and the
/// check against a known scene). Image operations go through `Imaging`.
public enum VisionModule {
    /// The module's name, for logs.
    public static let name = "Vision"
}
