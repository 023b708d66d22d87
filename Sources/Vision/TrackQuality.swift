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
    /// Share of the checked observations whose track was born at a depth edge (`TrackQualityAccumulator`: within
    /// `depthEdgeRadiusPx` of it the true depth differs by more than `depthEdgeRelative`, or the scene ends): the
    /// corners where a near edge crosses farther texture, which are no 3-D point; `nil` without truth.
    public var depthEdgeObservationShare: Double?
    /// Outlier ratio of the observations of tracks born at a depth edge; `nil` without truth or without such
    /// observations.
    public var depthEdgeOutlierRatio: Double?
    /// Outlier ratio of the observations of the other tracks; `nil` without truth or without such observations.
    public var otherOutlierRatio: Double?
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
    /// Tracks born at a depth edge, and the errors of their observations and of the others'.
    private var bornAtDepthEdge = Set<Int>()
    private var edgeChecked = 0, edgeOutliers = 0, otherChecked = 0, otherOutliers = 0
    /// The depth-edge test: the rays `depthEdgeRadiusPx` to the four sides of a track's first pixel meet the scene
    /// at depths within `depthEdgeRelative` of its own.
    public let depthEdgeRadiusPx = 4.0, depthEdgeRelative = 0.05

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
                if bornAtDepthEdge.contains(f.id) {
                    edgeChecked += 1; if e > outlierThresholdPx { edgeOutliers += 1 }
                } else {
                    otherChecked += 1; if e > outlierThresholdPx { otherOutliers += 1 }
                }
            } else if !unchecked.contains(f.id) {
                if f.age == 1, let p_W = raycast(T_W_C.translation, T_W_C.rotation * Vec3(f.normalized.x, f.normalized.y, 1)) {
                    truePoint[f.id] = p_W
                    if isAtDepthEdge(f.pixel, depth: (p_W - T_W_C.translation).norm, T_W_C: T_W_C, raycast: raycast) {
                        bornAtDepthEdge.insert(f.id)
                    }
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
            bornAtDepthEdge = bornAtDepthEdge.filter { live.contains($0) }
        }
    }

    /// True when the scene's depth `depthEdgeRadiusPx` to any of the four sides of `pixel` differs from `depth` by
    /// more than `depthEdgeRelative` of it, or the scene ends there.
    private func isAtDepthEdge(_ pixel: Vec2, depth: Double, T_W_C: SE3,
                               raycast: (_ origin_W: Vec3, _ direction_W: Vec3) -> Vec3?) -> Bool {
        let r = depthEdgeRadiusPx
        for offset in [Vec2(r, 0), Vec2(-r, 0), Vec2(0, r), Vec2(0, -r)] {
            guard let n = camera.unproject(pixel + offset),
                  let q = raycast(T_W_C.translation, T_W_C.rotation * Vec3(n.x, n.y, 1)) else { return true }
            if abs((q - T_W_C.translation).norm - depth) > depthEdgeRelative * depth { return true }
        }
        return false
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
            s.depthEdgeObservationShare = Double(edgeChecked) / Double(errors.count)
            s.depthEdgeOutlierRatio = edgeChecked > 0 ? Double(edgeOutliers) / Double(edgeChecked) : nil
            s.otherOutlierRatio = otherChecked > 0 ? Double(otherOutliers) / Double(otherChecked) : nil
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
