import Geometry
import Imaging
import Sensors

/// The feature frontend: keeps long, well-spread corner tracks from frame to frame, mono or stereo.
///
/// Per frame: optional contrast normalisation; one image pyramid (the previous frame's is kept);
/// pyramidal KLT from the previous frame, seeded by the gyro-predicted positions when the caller
/// gives the camera rotation; a forward-backward check; on a still frame, an end to tracks that jumped (mono);
/// RANSAC on the epipolar constraint in undistorted normalised coordinates; an appearance check against
/// each track's window at birth (carried by the camera's rotation since, or along a fitted linear warp;
/// mono); a minimum distance between tracks (the younger one goes); new corners only in the grid cells
/// that lack tracks; for stereo, KLT from left to right with an epipolar and positive-depth check.
///
/// ```swift
/// let tracker = try FeatureTracker(camera: dataset.cameras[0].calibration)
/// let result = try tracker.track(image, t_ns: frame.t_ns, R_Cnew_Cold: gyroRotation)
/// for f in result.features { print(f.id, f.pixel, f.normalized, f.age) }
/// ```
///
/// Not thread-safe: use one tracker per camera stream from one thread.
public final class FeatureTracker {
    /// The (left) camera.
    public let camera: CameraCalibration
    /// The right camera of a stereo pair, `nil` for a mono tracker.
    public let rightCamera: CameraCalibration?
    /// The settings.
    public let options: FeatureTrackerOptions

    private let flow: OpticalFlow.Parameters
    private let detector: GridDetector
    private let stereo: StereoMatcher?
    private let focal: Double
    /// Window size the pyramids are built for (the largest KLT window used on them).
    private let pyramidWindow: Int
    /// The appearance check's ZNCC bound, `nil` when this tracker does not run the check.
    private let appearanceThreshold: Float?
    /// The still-frame test's bound, pixels; `nil` when this tracker does not run it.
    private let stillFrameMaxMotionPx: Double?
    private var grid: MinDistanceGrid

    private struct Track {
        var id: Int
        var pixel: SIMD2<Float>
        var normalized: Vec2
        var age: Int
        /// Right pixel minus left pixel at the last stereo match (seeds the next one).
        var stereoOffset: SIMD2<Float>?
        /// Whether the last stereo match attempt found it (its offset is then searched near, at full resolution).
        var stereoFoundLast = false
        var right: (pixel: Vec2, normalized: Vec2)?
        /// Normalised positions in the last frames up to the current one, oldest first (at most
        /// `longBaselineFrames`; `history[0]` is that many frames before the next one when full).
        var history: [Vec2] = []
        /// The appearance check's reference: the window at birth, the undistorted normalised coordinates of the
        /// birth pixel's neighbours one pixel right and one down, and the camera's rotation since birth
        /// (`R_Cnow_Cbirth`). `nil` when the check is off or the rotation since birth is not known.
        var appearance: AppearanceReference?
    }

    private struct AppearanceReference {
        var patch: NormalizedPatch
        var rightOfBirth: Vec2
        var belowBirth: Vec2
        var birth: Vec2
        var R_Cnow_Cbirth: SO3
    }
    private var tracks: [Track] = []
    private var previousPyramid: ImagePyramid?
    private var previousT_ns: TimestampNs?
    private var nextId = 0
    private var frameCounter = 0

    /// A tracker for `camera` (mono), or for the stereo pair `camera` (left) and `rightCamera`.
    /// - Throws: `VisionError.invalidOptions` for bad settings or a mask of the wrong size.
    public init(camera: CameraCalibration, rightCamera: CameraCalibration? = nil,
                options: FeatureTrackerOptions = FeatureTrackerOptions()) throws {
        try options.validate()
        let model = camera.model
        guard model.width > 2 * options.borderMargin, model.height > 2 * options.borderMargin else {
            throw VisionError.invalidOptions("camera image \(model.width)x\(model.height) is too small for the border margin")
        }
        if let mask = options.mask, mask.width != model.width || mask.height != model.height {
            throw VisionError.invalidOptions("mask is \(mask.width)x\(mask.height) but the camera image is \(model.width)x\(model.height)")
        }
        self.camera = camera; self.rightCamera = rightCamera; self.options = options
        let flow = OpticalFlow.Parameters(windowSize: options.kltWindow, maxLevel: options.kltLevels,
                                          maxIterations: options.kltMaxIterations, epsilon: options.kltEpsilon,
                                          minEigenvalueThreshold: options.kltMinEigenvalue)
        self.flow = flow
        detector = GridDetector(width: model.width, height: model.height, options: options)
        var stereoFlow = flow
        stereoFlow.windowSize = options.stereoWindow
        stereo = rightCamera.map { StereoMatcher(left: camera, right: $0, options: options, flow: stereoFlow) }
        pyramidWindow = rightCamera == nil ? options.kltWindow : max(options.kltWindow, options.stereoWindow)
        focal = 0.5 * (model.intrinsics.fx + model.intrinsics.fy)
        appearanceThreshold = rightCamera == nil || options.appearanceCheckStereo
            ? options.appearanceMinCorrelation.map(Float.init) : nil
        stillFrameMaxMotionPx = rightCamera == nil || options.stillFrameCheckStereo ? options.stillFrameMaxMotionPx : nil
        grid = MinDistanceGrid(width: model.width, height: model.height, minDistance: options.minDistance)
    }

    /// Number of live tracks.
    public var liveTrackCount: Int { tracks.count }
    /// Time of the last frame processed, nanoseconds.
    public var lastFrameT_ns: TimestampNs? { previousT_ns }

    /// Drops every track and the previous frame (e.g. after a gap in the data). Ids keep increasing.
    public func reset() {
        tracks.removeAll(); previousPyramid = nil; previousT_ns = nil
    }

    /// Processes the next frame.
    /// - Parameters:
    ///   - image: the (left) image, the size of `camera.model`.
    ///   - right: the right image of a stereo tracker (the size of `rightCamera.model`); `nil` skips
    ///     stereo matching for this frame.
    ///   - t_ns: time of the frame, nanoseconds, after the previous frame's.
    ///   - R_Cnew_Cold: the camera rotation since the previous frame (maps previous-camera vectors to
    ///     this camera's), e.g. from `GyroIntegration`; used to predict where tracks moved.
    ///   - measureRotation: without `R_Cnew_Cold`, also measure the rotation from the tracks
    ///     (`FeatureFrameResult.visualRotation_Cnew_Cold`: the essential matrix's decomposition and a refit on its
    ///     inliers, about 150 inliers × 6 Gauss–Newton steps). A gyro-aided caller asks for it on the frames its IMU
    ///     does not cover; a camera-only caller has no use for it and does not pay for it.
    public func track(_ image: GrayImage, right: GrayImage? = nil, t_ns: TimestampNs,
                      R_Cnew_Cold: SO3? = nil, measureRotation: Bool = false) throws -> FeatureFrameResult {
        try check(image, right: right, t_ns: t_ns)
        let prepared = try preprocess(image)
        let pyramid = try ImagePyramid(prepared, windowSize: pyramidWindow, maxLevel: options.kltLevels)
        var stats = FeatureTrackingStats()
        var disparity = 0.0
        var visualRotation: SO3?
        if let previous = previousPyramid, !tracks.isEmpty {
            (disparity, visualRotation) = try trackTemporally(from: previous, to: pyramid, R_Cnew_Cold: R_Cnew_Cold,
                                                              measureRotation: measureRotation, stats: &stats)
            checkAppearance(in: prepared, R_Cnew_Cold: R_Cnew_Cold ?? visualRotation, stats: &stats)
        } else {
            tracks.removeAll()
        }
        pruneCrowded(stats: &stats)
        stats.tracked = tracks.count
        try detectNew(in: prepared, stats: &stats)
        if let stereo, let right {
            var rightImage = try preprocess(right)
            if options.stereoPhotometricAlignment { rightImage = PhotometricAlignment.align(rightImage, to: prepared) }
            let rightPyramid = try ImagePyramid(rightImage, windowSize: pyramidWindow, maxLevel: options.kltLevels)
            try matchStereo(stereo, left: pyramid, right: rightPyramid, stats: &stats)
        } else {
            for i in tracks.indices { tracks[i].right = nil }
        }
        previousPyramid = pyramid
        previousT_ns = t_ns
        let features = tracks.map {
            TrackedFeature(id: $0.id, pixel: Vec2(Double($0.pixel.x), Double($0.pixel.y)), normalized: $0.normalized,
                           age: $0.age, rightPixel: $0.right?.pixel, rightNormalized: $0.right?.normalized)
        }
        return FeatureFrameResult(t_ns: t_ns, features: features, stats: stats, meanDisparity_px: disparity,
                                  visualRotation_Cnew_Cold: visualRotation)
    }

    /// Processes the next frame, predicting track motion from gyroscope samples: the rotation from the
    /// previous frame's time to `t_ns` is integrated from `gyroSamples` (those around the interval;
    /// see `GyroIntegration.bodyRotation`) and mapped into the camera with `camera.T_B_C`. Without samples (an IMU
    /// gap) the rotation is measured from the tracks instead (`FeatureFrameResult.visualRotation_Cnew_Cold`).
    public func track(_ image: GrayImage, right: GrayImage? = nil, t_ns: TimestampNs,
                      gyroSamples: [IMUSample]) throws -> FeatureFrameResult {
        var rotation: SO3?
        if let t0 = previousT_ns, !gyroSamples.isEmpty {
            rotation = GyroIntegration.cameraRotation(samples: gyroSamples, from: t0, to: t_ns, T_B_C: camera.T_B_C)
        }
        return try track(image, right: right, t_ns: t_ns, R_Cnew_Cold: rotation, measureRotation: rotation == nil)
    }

    // MARK: - Steps

    private func check(_ image: GrayImage, right: GrayImage?, t_ns: TimestampNs) throws {
        let m = camera.model
        guard image.width == m.width, image.height == m.height else {
            throw VisionError.invalidImage("image is \(image.width)x\(image.height) but \(camera.name) is \(m.width)x\(m.height)")
        }
        if let right {
            guard let rc = rightCamera else { throw VisionError.invalidImage("a right image was given to a mono tracker") }
            guard right.width == rc.model.width, right.height == rc.model.height else {
                throw VisionError.invalidImage("right image is \(right.width)x\(right.height) but \(rc.name) is \(rc.model.width)x\(rc.model.height)")
            }
        }
        if let previous = previousT_ns, t_ns <= previous { throw VisionError.outOfOrder(previous: previous, current: t_ns) }
    }

    private func preprocess(_ image: GrayImage) throws -> GrayImage {
        switch options.contrast {
        case .none: return image
        case .clahe(let clip): return try Contrast.clahe(image, clipLimit: clip)
        case .equalizeHistogram: return try Contrast.equalizeHistogram(image)
        }
    }

    /// KLT with forward-backward check and RANSAC; updates `tracks`; returns the median motion, and with
    /// `measureRotation` and no rotation prediction the rotation the five-point RANSAC found
    /// (`FeatureFrameResult.visualRotation_Cnew_Cold`).
    private func trackTemporally(from previous: ImagePyramid, to current: ImagePyramid, R_Cnew_Cold: SO3?,
                                 measureRotation: Bool, stats: inout FeatureTrackingStats) throws -> (Double, SO3?) {
        let old = tracks.map(\.pixel)
        var guesses: [SIMD2<Float>]?
        if let R = R_Cnew_Cold {
            guesses = tracks.map { t in
                // `t.normalized` is `unproject` of `t.pixel`, computed when the track got that pixel.
                guard let p = RotationPrediction.predict(normalized: t.normalized, camera: camera.model,
                                                         R_Cnew_Cold: R) else { return t.pixel }
                return SIMD2(Float(p.x), Float(p.y))
            }
        }
        let forward = try OpticalFlow.track(from: previous, to: current, points: old, initialGuesses: guesses, parameters: flow)
        var candidates: [Int] = []
        candidates.reserveCapacity(old.count)
        for i in forward.indices {
            if forward[i].found && isTrackable(forward[i].position) { candidates.append(i) } else { stats.lost += 1 }
        }
        // Back-tracking starts at the old position, which a good track returns to within a pixel:
        // two pyramid levels are plenty and cost less.
        var backFlow = flow
        backFlow.maxLevel = min(flow.maxLevel, 1)
        let back = try OpticalFlow.track(from: current, to: previous, points: candidates.map { forward[$0].position },
                                         initialGuesses: candidates.map { old[$0] }, parameters: backFlow)
        let fb2 = Float(options.forwardBackwardThreshold * options.forwardBackwardThreshold)
        var survivors: [Int] = []
        var newNormalized: [Vec2] = []
        for (k, i) in candidates.enumerated() {
            let d = back[k].position - old[i]
            guard back[k].found, d.x * d.x + d.y * d.y <= fb2 else { stats.rejectedByFB += 1; continue }
            let p = forward[i].position
            guard let n = camera.model.unproject(Vec2(Double(p.x), Double(p.y))) else { stats.lost += 1; continue }
            survivors.append(i); newNormalized.append(n)
        }
        var keep = [Bool](repeating: true, count: survivors.count)
        // A still camera: the epipolar geometry of a baseline near zero is degenerate, so RANSAC cannot refuse a
        // track that KLT moved onto a look-alike a few pixels away (forward and back); the frame's own motion can.
        var jumped = [Bool](repeating: false, count: survivors.count)
        if let maxStill = stillFrameMaxMotionPx, survivors.count >= 2 {
            let steps = survivors.map { i -> Float in
                let d = forward[i].position - old[i]
                return (d.x * d.x + d.y * d.y).squareRoot()
            }
            let typical = median(steps)
            if typical < options.stillFrameMedianMotionPx {
                // A static point's motion is its parallax: at most the depth ratio times the median's, and a scene's
                // depths rarely span more than `stillFrameMaxMotionRatio` (a hovering camera near a box sees it so).
                let bound = max(maxStill, options.stillFrameMaxMotionRatio * typical)
                for k in steps.indices where Double(steps[k]) > bound { jumped[k] = true }
            }
        }
        var visualRotation: SO3?
        if options.useRANSAC, R_Cnew_Cold == nil, measureRotation {
            // No prediction (an IMU gap): the same five-point RANSAC, and the rotation it found for the estimator.
            (keep, visualRotation) = EpipolarOutlierFilter.inliersAndRotation(
                survivors.map { tracks[$0].normalized }, newNormalized, threshold: options.ransacThresholdPx / focal,
                estimator: options.essentialEstimator)
        } else if options.useRANSAC {
            keep = EpipolarOutlierFilter.inliers(survivors.map { tracks[$0].normalized }, newNormalized,
                                                 threshold: options.ransacThresholdPx / focal,
                                                 R_C2_C1: options.ransacUsesRotation ? R_Cnew_Cold : nil,
                                                 estimator: options.essentialEstimator)
        }
        // Long-baseline check: tracks seen `K` frames ago against the epipolar geometry of that frame
        // and this one. A track that slides (along an occluding edge, or by drift) slowly enough to
        // pass every frame-to-frame test shows here. Run every K/2 frames: slow sliding needs no more.
        frameCounter += 1
        if options.useRANSAC, let K = options.longBaselineFrames, frameCounter % max(1, K / 2) == 0 {
            let withHistory = survivors.indices.filter { keep[$0] && tracks[survivors[$0]].history.count == K }
            if withHistory.count >= EpipolarOutlierFilter.minimumCorrespondences {
                let flags = EpipolarOutlierFilter.inliers(withHistory.map { tracks[survivors[$0]].history[0] },
                                                          withHistory.map { newNormalized[$0] },
                                                          threshold: options.ransacThresholdPx / focal,
                                                          estimator: options.essentialEstimator)
                for (j, k) in withHistory.enumerated() where !flags[j] {
                    keep[k] = false
                    stats.rejectedByLongBaseline += 1
                }
            }
        }
        var next: [Track] = []
        next.reserveCapacity(survivors.count)
        var motions: [Float] = []
        motions.reserveCapacity(survivors.count)
        for (k, i) in survivors.enumerated() {
            if jumped[k] { stats.rejectedOnStillFrame += 1; continue }
            guard keep[k] else { stats.rejectedByRANSAC += 1; continue }
            if let maxAge = options.maxTrackAge, tracks[i].age >= maxAge { stats.retired += 1; continue }
            var t = tracks[i]
            let p = forward[i].position
            let d = p - t.pixel
            motions.append((d.x * d.x + d.y * d.y).squareRoot())
            t.pixel = p; t.normalized = newNormalized[k]; t.age += 1
            if let K = options.longBaselineFrames {
                t.history.append(t.normalized)
                if t.history.count > K { t.history.removeFirst(t.history.count - K) }
            }
            next.append(t)
        }
        tracks = next
        return (median(motions), visualRotation)
    }

    /// Inside the image (a small margin so the KLT window stays mostly inside) and allowed by the mask.
    private func isTrackable(_ p: SIMD2<Float>) -> Bool {
        let m = camera.model
        guard p.x >= 1, p.y >= 1, p.x <= Float(m.width - 2), p.y <= Float(m.height - 2) else { return false }
        if let mask = options.mask {
            return mask.pixels[Int(p.y.rounded()) * mask.width + Int(p.x.rounded())] != 0
        }
        return true
    }

    /// Enforces the minimum distance, older tracks first; leaves `grid` holding the kept tracks.
    private func pruneCrowded(stats: inout FeatureTrackingStats) {
        tracks.sort { $0.age != $1.age ? $0.age > $1.age : $0.id < $1.id }
        grid.reset()
        let before = tracks.count
        tracks = tracks.filter { grid.insertIfFree($0.pixel) }
        stats.prunedByDistance = before - tracks.count
    }

    private func detectNew(in image: GrayImage, stats: inout FeatureTrackingStats) throws {
        let limit = options.featureBudget - tracks.count
        guard limit > 0 else { return }
        var counts = [Int](repeating: 0, count: detector.cellCount)
        for t in tracks { counts[detector.cell(of: t.pixel)] += 1 }
        let corners = try detector.detect(in: image, counts: counts, limit: limit, grid: &grid)
        for p in corners {
            guard let n = camera.model.unproject(Vec2(Double(p.x), Double(p.y))) else { continue }
            tracks.append(Track(id: nextId, pixel: p, normalized: n, age: 1, stereoOffset: nil, right: nil,
                                history: options.longBaselineFrames == nil ? [] : [n],
                                appearance: appearanceReference(image, pixel: p, normalized: n)))
            nextId += 1
            stats.detected += 1
        }
    }

    /// A new track's appearance reference, `nil` with the check off or where the window has no contrast.
    private func appearanceReference(_ image: GrayImage, pixel p: SIMD2<Float>, normalized n: Vec2) -> AppearanceReference? {
        guard appearanceThreshold != nil else { return nil }
        guard let patch = NormalizedPatch(image: image, centre: p, side: options.appearanceWindow), patch.hasContrast,
              let right = camera.model.unproject(Vec2(Double(p.x) + 1, Double(p.y))),
              let below = camera.model.unproject(Vec2(Double(p.x), Double(p.y) + 1)) else { return nil }
        return AppearanceReference(patch: patch, rightOfBirth: right, belowBirth: below, birth: n, R_Cnow_Cbirth: .identity)
    }

    /// Ends the tracks whose window no longer looks like their window at birth. The birth window's axes are carried
    /// by the rotation since birth (the neighbours one pixel right and one down rotated and projected), so the
    /// comparison allows for the camera turning and rolling; a window that fails gets a second look along a fitted
    /// linear warp, for the change of shape that translation brings (`correlation(of:reference:in:model:threshold:)`).
    /// Without a rotation for this frame the references are dropped: their tracks are no longer checked.
    private func checkAppearance(in image: GrayImage, R_Cnew_Cold: SO3?, stats: inout FeatureTrackingStats) {
        guard let threshold = appearanceThreshold else { return }
        guard let R = R_Cnew_Cold else {
            for i in tracks.indices { tracks[i].appearance = nil }
            return
        }
        let model = camera.model
        var kept: [Track] = []
        kept.reserveCapacity(tracks.count)
        for var track in tracks {
            if var reference = track.appearance {
                reference.R_Cnow_Cbirth = R * reference.R_Cnow_Cbirth
                track.appearance = reference
                let zncc = correlation(of: track.pixel, reference: reference, in: image, model: model, threshold: threshold)
                if zncc < threshold {
                    stats.rejectedByAppearance += 1
                    continue
                }
            }
            kept.append(track)
        }
        tracks = kept
    }

    /// The ZNCC of the window at `pixel` with the reference's birth window, read along the birth window's axes
    /// carried by the rotation since birth; below `threshold`, along the axes a linear warp about `pixel` fits best
    /// (`WindowWarpFit`: the shape change of a surface seen from elsewhere), if it stretches them by no more than
    /// `appearanceMaxStretch` either way. 1 (no evidence) when the axes cannot be carried (a neighbour rotated behind
    /// the camera) or the window reaches outside the image.
    private func correlation(of pixel: SIMD2<Float>, reference: AppearanceReference, in image: GrayImage,
                             model: CameraModel, threshold: Float) -> Float {
        let R = reference.R_Cnow_Cbirth
        func rotated(_ n: Vec2) -> Vec2? { model.project(R * Vec3(n.x, n.y, 1).normalized) }
        guard let c = rotated(reference.birth), let r = rotated(reference.rightOfBirth),
              let b = rotated(reference.belowBirth) else { return 1 }
        let axisU = SIMD2(Float(r.x - c.x), Float(r.y - c.y)), axisV = SIMD2(Float(b.x - c.x), Float(b.y - c.y))
        let side = options.appearanceWindow
        guard let now = NormalizedPatch(image: image, centre: pixel, axisU: axisU, axisV: axisV, side: side) else { return 1 }
        let carried = now.correlation(with: reference.patch)
        guard carried < threshold else { return carried }
        guard let fitted = WindowWarpFit.fit(image: image, centre: pixel, axisU: axisU, axisV: axisV,
                                             reference: reference.patch),
              let (small, big) = WindowWarpFit.stretch(from: axisU, axisV, to: fitted.axisU, fitted.axisV),
              small * options.appearanceMaxStretch >= 1, big <= options.appearanceMaxStretch,
              let warped = NormalizedPatch(image: image, centre: pixel, axisU: fitted.axisU, axisV: fitted.axisV, side: side)
        else { return carried }
        return max(carried, warped.correlation(with: reference.patch))
    }

    private func matchStereo(_ stereo: StereoMatcher, left: ImagePyramid, right: ImagePyramid,
                             stats: inout FeatureTrackingStats) throws {
        let points = tracks.map(\.pixel)
        let guesses: [SIMD2<Float>] = tracks.map { t in
            if let offset = t.stereoOffset { return t.pixel + offset }
            if let g = stereo.infinityGuess(Vec2(Double(t.pixel.x), Double(t.pixel.y))) {
                return SIMD2(Float(g.x), Float(g.y))
            }
            return t.pixel
        }
        let matches = try stereo.match(leftPyramid: left, rightPyramid: right, points: points,
                                       normalized: tracks.map(\.normalized), guesses: guesses,
                                       seeded: tracks.map { $0.stereoOffset != nil && $0.stereoFoundLast })
        for i in tracks.indices {
            tracks[i].right = matches[i]
            if let m = matches[i] {
                tracks[i].stereoOffset = SIMD2(Float(m.pixel.x), Float(m.pixel.y)) - tracks[i].pixel
                stats.stereoMatched += 1
            }
            // A track not found (perhaps searched near its old disparity only) is searched from the coarsest level
            // next time, from the same guess.
            tracks[i].stereoFoundLast = matches[i] != nil
        }
    }
}

/// Median of `values` (0 when empty).
func median(_ values: [Float]) -> Double {
    guard !values.isEmpty else { return 0 }
    let s = values.sorted()
    let n = s.count
    return n % 2 == 1 ? Double(s[n / 2]) : 0.5 * Double(s[n / 2 - 1] + s[n / 2])
}
