import Geometry
import Sensors

/// Quality figures of a tracking run: how many features, how long the tracks, and (with ground
/// truth) how far the tracked pixels are from where the true 3-D points project.
public struct TrackQualitySummary: Equatable, Sendable {
    /// Frames processed.
    public var frames: Int = 0
    /// Mean and smallest number of live features per frame.
    public var featuresPerFrameMean: Double = 0
    public var featuresPerFrameMin: Int = 0
    /// Tracks seen (finished and alive).
    public var tracks: Int = 0
    /// Median track length over all tracks, frames observed.
    public var trackLengthMedian: Double = 0
    /// Largest motion of a track between two consecutive frames, pixels.
    public var maxStepPx: Double = 0
    /// Observations compared with the truth (a track's first observation defines its 3-D point and
    /// is not counted).
    public var checkedObservations: Int = 0
    /// Tracks whose first ray hit nothing in the scene (sky) or had no ground-truth pose; not checked.
    public var uncheckedTracks: Int = 0
    /// Median distance of tracked pixels from the true projections, pixels; `nil` without truth.
    public var reprojectionErrorMedianPx: Double?
    /// Share of checked observations farther than the outlier threshold from the truth; `nil` without truth.
    public var outlierRatio: Double?
    /// Share of checked tracks with at least one outlier observation; `nil` without truth.
    public var outlierTrackRatio: Double?
    /// Empty figures (no frames).
    public init() {}
}

/// Accumulates `FeatureFrameResult`s into a `TrackQualitySummary`, optionally checking every track
/// against a known scene: at a track's first observation the ray of its pixel is cast into the
/// scene from the true camera pose; at each later observation that 3-D point is projected with the
/// true pose and compared with the tracked pixel.
public struct TrackQualityAccumulator {
    /// The (left) camera whose pixels are checked.
    public let camera: CameraModel
    /// Distance from the truth beyond which an observation counts as an outlier, pixels.
    public let outlierThresholdPx: Double

    private var featureCounts: [Int] = []
    private var lengths: [Int: Int] = [:]
    private var lastPixel: [Int: Vec2] = [:]
    private var maxStep = 0.0
    private var truePoint: [Int: Vec3] = [:]
    private var unchecked = Set<Int>()
    private var errors: [Double] = []
    private var outlierTracks = Set<Int>()

    /// An empty accumulator for `camera`.
    public init(camera: CameraModel, outlierThresholdPx: Double = 2) {
        self.camera = camera; self.outlierThresholdPx = outlierThresholdPx
    }

    /// Adds one frame.
    /// - Parameters:
    ///   - T_W_C: the true pose of the (left) camera at the frame, when known.
    ///   - raycast: the first scene point along a world ray (origin, direction), when the scene is known.
    public mutating func add(_ result: FeatureFrameResult, T_W_C: SE3? = nil,
                             raycast: ((_ origin_W: Vec3, _ direction_W: Vec3) -> Vec3?)? = nil) {
        featureCounts.append(result.features.count)
        let checking = T_W_C != nil && raycast != nil
        let T_C_W = T_W_C?.inverse
        for f in result.features {
            lengths[f.id] = max(lengths[f.id] ?? 0, f.age)
            if let last = lastPixel[f.id], f.age > 1 { maxStep = max(maxStep, (f.pixel - last).norm) }
            lastPixel[f.id] = f.pixel
            guard checking, let T_W_C, let T_C_W, let raycast else { continue }
            if let p_W = truePoint[f.id] {
                guard let u = camera.project(T_C_W * p_W) else { errors.append(.infinity); outlierTracks.insert(f.id); continue }
                let e = (u - f.pixel).norm
                errors.append(e)
                if e > outlierThresholdPx { outlierTracks.insert(f.id) }
            } else if !unchecked.contains(f.id) {
                if f.age == 1, let p_W = raycast(T_W_C.translation, T_W_C.rotation * Vec3(f.normalized.x, f.normalized.y, 1)) {
                    truePoint[f.id] = p_W
                } else {
                    unchecked.insert(f.id)
                }
            }
        }
        // Forget pixels of tracks that ended, so memory stays bounded by the live tracks.
        if lastPixel.count > 4 * max(result.features.count, 64) {
            let live = Set(result.features.map(\.id))
            lastPixel = lastPixel.filter { live.contains($0.key) }
            truePoint = truePoint.filter { live.contains($0.key) }
        }
    }

    /// The figures so far.
    public func summary() -> TrackQualitySummary {
        var s = TrackQualitySummary()
        s.frames = featureCounts.count
        if !featureCounts.isEmpty {
            s.featuresPerFrameMean = Double(featureCounts.reduce(0, +)) / Double(featureCounts.count)
            s.featuresPerFrameMin = featureCounts.min() ?? 0
        }
        s.tracks = lengths.count
        s.trackLengthMedian = medianOf(lengths.values.map(Double.init))
        s.maxStepPx = maxStep
        s.checkedObservations = errors.count
        s.uncheckedTracks = unchecked.count
        if !errors.isEmpty {
            s.reprojectionErrorMedianPx = medianOf(errors)
            s.outlierRatio = Double(errors.filter { $0 > outlierThresholdPx }.count) / Double(errors.count)
            let checkedTracks = lengths.count - unchecked.count
            s.outlierTrackRatio = checkedTracks > 0 ? Double(outlierTracks.count) / Double(checkedTracks) : nil
        }
        return s
    }
}

/// Median of `values` (0 when empty).
func medianOf(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let s = values.sorted()
    let n = s.count
    return n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2])
}
