import Geometry
import Imaging
import Sensors

/// Finds left-image features in the right image of a calibrated stereo pair: KLT from left to right
/// seeded by a guess, a right-to-left check, then the epipolar constraint and positive depth.
struct StereoMatcher {
    let left: CameraModel, right: CameraModel
    /// Maps left-camera points into the right camera frame.
    let T_C1_C0: SE3
    let R: Mat3
    let t: Vec3
    let epipolarThreshold: Double
    let minDepth: Double
    let backThreshold: Double
    let seededMaxLevel: Int
    let flow: OpticalFlow.Parameters

    init(left: CameraCalibration, right: CameraCalibration, options: FeatureTrackerOptions, flow: OpticalFlow.Parameters) {
        self.left = left.model; self.right = right.model
        T_C1_C0 = right.T_B_C.inverse * left.T_B_C
        R = T_C1_C0.rotation.matrix
        t = T_C1_C0.translation
        let f = 0.5 * (right.model.intrinsics.fx + right.model.intrinsics.fy)
        epipolarThreshold = options.stereoEpipolarThresholdPx / f
        minDepth = options.stereoMinDepth
        backThreshold = options.forwardBackwardThreshold * 2
        seededMaxLevel = options.stereoSeededLevels
        self.flow = flow
    }

    /// The right-image guess for a left pixel with no earlier match: its point at infinity.
    func infinityGuess(_ leftPixel: Vec2) -> Vec2? {
        guard let b = left.bearing(leftPixel) else { return nil }
        return right.project(T_C1_C0.rotation * b)
    }

    /// One match per left point: the right pixel and its normalised coordinates, or `nil`. A point whose guess is
    /// `seeded` (its own match in the previous frame, moved with it) starts KLT at pyramid level `seededMaxLevel`
    /// instead of the coarsest: its disparity changes by a pixel or two between frames.
    func match(leftPyramid: ImagePyramid, rightPyramid: ImagePyramid, points: [SIMD2<Float>],
               normalized: [Vec2], guesses: [SIMD2<Float>], seeded: [Bool]) throws -> [(pixel: Vec2, normalized: Vec2)?] {
        guard !points.isEmpty else { return [] }
        let forward = try track(leftPyramid, rightPyramid, points: points, guesses: guesses, seeded: seeded)
        let found = forward.indices.filter { forward[$0].found && inside(forward[$0].position) }
        var backFlow = flow
        backFlow.maxLevel = 0 // starts at the left point: a good match returns within a pixel
        let back = try OpticalFlow.track(from: rightPyramid, to: leftPyramid, points: found.map { forward[$0].position },
                                         initialGuesses: found.map { points[$0] }, parameters: backFlow)
        var result = [(pixel: Vec2, normalized: Vec2)?](repeating: nil, count: points.count)
        let bt2 = Float(backThreshold * backThreshold)
        for (k, i) in found.enumerated() {
            let d = back[k].position - points[i]
            guard back[k].found, d.x * d.x + d.y * d.y <= bt2 else { continue }
            let p = forward[i].position
            let pixel = Vec2(Double(p.x), Double(p.y))
            guard let xr = right.unproject(pixel), consistent(normalized[i], xr) else { continue }
            result[i] = (pixel, xr)
        }
        return result
    }

    /// Forward KLT, the seeded points from `seededMaxLevel` and the others from the coarsest level, in `points`' order.
    private func track(_ left: ImagePyramid, _ right: ImagePyramid, points: [SIMD2<Float>], guesses: [SIMD2<Float>],
                       seeded: [Bool]) throws -> [TrackedPoint] {
        var fine = flow
        fine.maxLevel = min(flow.maxLevel, seededMaxLevel)
        guard fine.maxLevel < flow.maxLevel, seeded.contains(true) else {
            return try OpticalFlow.track(from: left, to: right, points: points, initialGuesses: guesses, parameters: flow)
        }
        let a = points.indices.filter { seeded[$0] }, b = points.indices.filter { !seeded[$0] }
        var out = [TrackedPoint?](repeating: nil, count: points.count)
        for (set, parameters) in [(a, fine), (b, flow)] where !set.isEmpty {
            let tracked = try OpticalFlow.track(from: left, to: right, points: set.map { points[$0] },
                                                initialGuesses: set.map { guesses[$0] }, parameters: parameters)
            for (k, i) in set.enumerated() { out[i] = tracked[k] }
        }
        return out.map { $0! }
    }

    private func inside(_ p: SIMD2<Float>) -> Bool {
        p.x >= 0 && p.y >= 0 && p.x <= Float(right.width - 1) && p.y <= Float(right.height - 1)
    }

    /// Epipolar distance within the bound and both depths positive (above `minDepth`).
    func consistent(_ xl: Vec2, _ xr: Vec2) -> Bool {
        let Rxl = R * Vec3(xl.x, xl.y, 1)
        let hr = Vec3(xr.x, xr.y, 1)
        guard EpipolarOutlierFilter.lineDistance(t: t, Rx1: Rxl, x2: hr) <= epipolarThreshold else { return false }
        // Depths: dl · R xl + t = dr · xr, least squares in (dl, dr).
        let a = Rxl, b = -hr
        let aa = a.dot(a), ab = a.dot(b), bb = b.dot(b)
        let det = aa * bb - ab * ab
        guard det > 1e-12 else { return false } // parallel rays: depth undetermined (at infinity)
        let ra = -a.dot(t), rb = -b.dot(t)
        let dl = (bb * ra - ab * rb) / det
        let dr = (aa * rb - ab * ra) / det
        return dl > minDepth && dr > minDepth
    }
}
