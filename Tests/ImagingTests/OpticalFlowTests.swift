import Testing
@testable import Imaging

@Suite struct OpticalFlowTests {
    static let width = 160, height = 120
    static let base = SyntheticImages.texture(width: width, height: height, seed: 11)

    /// A grid of points well inside the image (at least 30 px from the border).
    static func grid() -> [SIMD2<Float>] {
        var points: [SIMD2<Float>] = []
        for y in stride(from: 30, through: height - 30, by: 15) {
            for x in stride(from: 30, through: width - 30, by: 15) { points.append(SIMD2(Float(x), Float(y))) }
        }
        return points
    }

    @Test func recoversSubPixelTranslation() throws {
        let (dx, dy) = (1.37, -0.62)
        let a = SyntheticImages.quantise(Self.base, width: Self.width, height: Self.height)
        let b = SyntheticImages.quantise(SyntheticImages.shifted(Self.base, width: Self.width, height: Self.height, dx: dx, dy: dy),
                                         width: Self.width, height: Self.height)
        let pa = try ImagePyramid(a, windowSize: 21, maxLevel: 3)
        let pb = try ImagePyramid(b, windowSize: 21, maxLevel: 3)
        #expect(pa.width == Self.width && pa.height == Self.height && pa.levelCount >= 2)
        let points = Self.grid()
        var parameters = OpticalFlow.Parameters()
        parameters.maxIterations = 50
        parameters.epsilon = 0.001
        let tracked = try OpticalFlow.track(from: pa, to: pb, points: points, parameters: parameters)
        #expect(tracked.count == points.count)
        let truth = SIMD2<Float>(Float(dx), Float(dy))
        for (p, t) in zip(points, tracked) {
            #expect(t.found)
            let err = t.position - p - truth
            // 0.05 px: the required accuracy; quantisation of 8-bit intensities and bilinear
            // resampling cost 0.010 px on average (0.035 px worst) on this texture.
            #expect((err * err).sum().squareRoot() < 0.05, "point \(p): error \(err)")
        }
    }

    @Test func initialFlowRescuesLargeShift() throws {
        let (dx, dy) = (23.0, 17.0)
        let a = SyntheticImages.quantise(Self.base, width: Self.width, height: Self.height)
        let b = SyntheticImages.quantise(SyntheticImages.shifted(Self.base, width: Self.width, height: Self.height, dx: dx, dy: dy),
                                         width: Self.width, height: Self.height)
        // Single level, 15 px window: a 29 px jump is far outside the basin of convergence.
        let parameters = OpticalFlow.Parameters(windowSize: 15, maxLevel: 0, maxIterations: 30, epsilon: 0.001)
        let pa = try ImagePyramid(a, windowSize: 15, maxLevel: 0)
        let pb = try ImagePyramid(b, windowSize: 15, maxLevel: 0)
        let points = [SIMD2<Float>(50, 40), SIMD2(70, 50), SIMD2(60, 35), SIMD2(45, 55)]
        let truth = SIMD2<Float>(Float(dx), Float(dy))
        func correct(_ t: TrackedPoint, _ p: SIMD2<Float>) -> Bool {
            let e = t.position - p - truth
            return t.found && (e * e).sum().squareRoot() < 0.1
        }
        let blind = try OpticalFlow.track(from: pa, to: pb, points: points, parameters: parameters)
        #expect(zip(blind, points).filter { correct($0, $1) }.count == 0)
        // A guess 1.5 px off is inside the basin: every point converges to the truth.
        let guesses = points.map { $0 + truth + SIMD2(1.5, -1.0) }
        let guided = try OpticalFlow.track(from: pa, to: pb, points: points, initialGuesses: guesses, parameters: parameters)
        for (t, p) in zip(guided, points) { #expect(correct(t, p), "point \(p) -> \(t)") }
    }

    @Test func rejectsBadArguments() throws {
        let a = SyntheticImages.quantise(Self.base, width: Self.width, height: Self.height)
        let small = try ImagePyramid(a, windowSize: 11, maxLevel: 2)
        // A window larger than the pyramid was built for.
        #expect(throws: ImagingError.self) {
            try OpticalFlow.track(from: small, to: small, points: [SIMD2(50, 50)], parameters: .init(windowSize: 21))
        }
        #expect(throws: ImagingError.self) {
            try OpticalFlow.track(from: small, to: small, points: [SIMD2(50, 50)], initialGuesses: [])
        }
        let other = try ImagePyramid(GrayImage(width: 40, height: 40, fill: 3), windowSize: 11, maxLevel: 2)
        #expect(throws: ImagingError.self) {
            try OpticalFlow.track(from: small, to: other, points: [SIMD2(10, 10)], parameters: .init(windowSize: 11))
        }
        #expect(throws: ImagingError.self) { try ImagePyramid(GrayImage(width: 0, height: 0)) }
        #expect(try OpticalFlow.track(from: small, to: small, points: [], parameters: .init(windowSize: 11)).isEmpty)
    }

    @Test(.enabled(if: TestData.eurocFramesArePresent, "needs ../shared/datasets/euroc-v101-micro"))
    func tracksBetweenEuRoCFrames() throws {
        let frames = try #require(TestData.eurocCam0Frames())
        let a = try ImageCodec.decodeGray(contentsOf: frames[0]), b = try ImageCodec.decodeGray(contentsOf: frames[1])
        let corners = try FeatureDetector.shiTomasi(a, maxCorners: 150, qualityLevel: 0.01, minDistance: 15)
        let pa = try ImagePyramid(a), pb = try ImagePyramid(b)
        let forward = try OpticalFlow.track(from: pa, to: pb, points: corners.map(\.position))
        let back = try OpticalFlow.track(from: pb, to: pa, points: forward.map(\.position))
        // Consecutive 20 Hz frames: most corners track, and forward-backward agrees within 0.5 px.
        var consistent = 0
        for i in corners.indices where forward[i].found && back[i].found {
            let e = back[i].position - corners[i].position
            if (e * e).sum().squareRoot() < 0.5 { consistent += 1 }
        }
        #expect(Double(consistent) > 0.7 * Double(corners.count))
    }
}
