import COpenCV

/// The result of tracking one point.
public struct TrackedPoint: Equatable, Sendable {
    /// Tracked position in the second image, pixels (meaningless when `found` is false).
    public var position: SIMD2<Float>
    /// True when the tracker converged to a position inside the image.
    public var found: Bool
    /// Mean absolute intensity difference between the two windows (0...255 intensity units).
    public var error: Float
    /// A tracking result.
    public init(position: SIMD2<Float>, found: Bool, error: Float) {
        self.position = position; self.found = found; self.error = error
    }
}

/// Pyramidal Lucas-Kanade optical flow (OpenCV's calcOpticalFlowPyrLK) between image pyramids.
public enum OpticalFlow {
    /// Tracker settings.
    public struct Parameters: Equatable, Sendable {
        /// Square window side, pixels (odd, >= 3, at most both pyramids' `windowSize`).
        public var windowSize: Int
        /// Coarsest pyramid level used (0 = single level); clamped to the pyramids' levels.
        public var maxLevel: Int
        /// Iterations per level at most.
        public var maxIterations: Int
        /// Stop a level when the position update is below this, pixels.
        public var epsilon: Double
        /// Reject points whose gradient matrix's smaller eigenvalue (normalised by the window
        /// area) is below this: textureless windows.
        public var minEigenvalueThreshold: Double
        /// Settings; the defaults suit 752x480 frames at 20 Hz.
        public init(windowSize: Int = 21, maxLevel: Int = 3, maxIterations: Int = 30, epsilon: Double = 0.01,
                    minEigenvalueThreshold: Double = 1e-4) {
            self.windowSize = windowSize; self.maxLevel = maxLevel; self.maxIterations = maxIterations
            self.epsilon = epsilon; self.minEigenvalueThreshold = minEigenvalueThreshold
        }
    }

    /// Tracks `points` (pixels in the image of `from`) into the image of `to`.
    /// - Parameters:
    ///   - initialGuesses: optional predicted positions in `to` (same count as `points`), e.g. from
    ///     a gyro-rotation prediction; without them the search starts at the original positions.
    /// - Returns: one `TrackedPoint` per input point, in order.
    public static func track(from: ImagePyramid, to: ImagePyramid, points: [SIMD2<Float>],
                             initialGuesses: [SIMD2<Float>]? = nil,
                             parameters: Parameters = Parameters()) throws -> [TrackedPoint] {
        let count = try checkCount(points.count, "optical flow points")
        if let initialGuesses, initialGuesses.count != points.count {
            throw ImagingError.invalidArgument(
                message: "optical flow: \(initialGuesses.count) initial guesses for \(points.count) points")
        }
        if points.isEmpty { return [] }
        var params = wt_klt_params(
            win_size: try checkCount(parameters.windowSize, "optical flow window size"),
            max_level: try checkCount(parameters.maxLevel, "optical flow max level"),
            max_iterations: try checkCount(parameters.maxIterations, "optical flow max iterations"),
            epsilon: parameters.epsilon,
            min_eig_threshold: parameters.minEigenvalueThreshold,
            use_initial_flow: initialGuesses == nil ? 0 : 1)
        var previous = [Float](repeating: 0, count: 2 * points.count)
        var next = [Float](repeating: 0, count: 2 * points.count)
        for (i, p) in points.enumerated() { previous[2 * i] = p.x; previous[2 * i + 1] = p.y }
        if let initialGuesses {
            for (i, p) in initialGuesses.enumerated() { next[2 * i] = p.x; next[2 * i + 1] = p.y }
        }
        var status = [UInt8](repeating: 0, count: points.count)
        var error = [Float](repeating: 0, count: points.count)
        let result = withExtendedLifetime((from, to)) {
            wt_klt_track(from.handle, to.handle, previous, &next, count, &params, &status, &error)
        }
        try checkStatus(result)
        return (0..<points.count).map {
            TrackedPoint(position: SIMD2(next[2 * $0], next[2 * $0 + 1]), found: status[$0] != 0, error: error[$0])
        }
    }

    /// Convenience: builds both pyramids and tracks. Prefer keeping `ImagePyramid`s per frame.
    public static func track(from: GrayImage, to: GrayImage, points: [SIMD2<Float>],
                             initialGuesses: [SIMD2<Float>]? = nil,
                             parameters: Parameters = Parameters()) throws -> [TrackedPoint] {
        let a = try ImagePyramid(from, windowSize: parameters.windowSize, maxLevel: parameters.maxLevel)
        let b = try ImagePyramid(to, windowSize: parameters.windowSize, maxLevel: parameters.maxLevel)
        return try track(from: a, to: b, points: points, initialGuesses: initialGuesses, parameters: parameters)
    }
}
