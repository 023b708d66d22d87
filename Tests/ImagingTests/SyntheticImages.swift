import Foundation
import TestSupport
@testable import Imaging

/// Deterministic synthetic images for the imaging tests.
enum SyntheticImages {
    /// A 64-bit linear congruential generator (Knuth's MMIX constants): repeatable everywhere.
    struct LCG {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state
        }
        /// Uniform in [0, 1).
        mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
        /// Uniform in [a, b).
        mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * uniform() }
    }

    /// Smooth random texture (uniform noise blurred with a Gaussian of `sigma` pixels, contrast
    /// stretched to mean 128 and standard deviation 45), as Float intensities, row-major.
    static func texture(width: Int, height: Int, seed: UInt64, sigma: Double = 1.5) -> [Float] {
        var rng = LCG(seed: seed)
        let noise = (0..<(width * height)).map { _ in Float(rng.uniform(0, 255)) }
        let values = gaussianBlur(noise, width: width, height: height, sigma: sigma)
        let mean = values.reduce(0, +) / Float(values.count)
        let std = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Float(values.count)).squareRoot()
        return values.map { 128 + 45 * ($0 - mean) / std }
    }

    /// Separable Gaussian blur with reflected borders.
    static func gaussianBlur(_ input: [Float], width: Int, height: Int, sigma: Double) -> [Float] {
        let radius = Int((3 * sigma).rounded(.up))
        let kernel = (-radius...radius).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
        let norm = kernel.reduce(0, +)
        func reflect(_ i: Int, _ n: Int) -> Int { i < 0 ? -i : (i >= n ? 2 * n - 2 - i : i) }
        var tmp = input, out = input
        for y in 0..<height {
            for x in 0..<width {
                var s: Float = 0
                for k in -radius...radius { s += kernel[k + radius] * input[y * width + reflect(x + k, width)] }
                tmp[y * width + x] = s / norm
            }
        }
        for y in 0..<height {
            for x in 0..<width {
                var s: Float = 0
                for k in -radius...radius { s += kernel[k + radius] * tmp[reflect(y + k, height) * width + x] }
                out[y * width + x] = s / norm
            }
        }
        return out
    }

    /// Quantises Float intensities to a gray image (rounded, clamped to 0...255).
    static func quantise(_ values: [Float], width: Int, height: Int) -> GrayImage {
        GrayImage(width: width, height: height, pixels: values.map { UInt8(max(0, min(255, $0.rounded()))) })
    }

    /// The image translated by (dx, dy) pixels: out(x, y) = in(x - dx, y - dy), bilinear, with
    /// clamped borders.
    static func shifted(_ values: [Float], width: Int, height: Int, dx: Double, dy: Double) -> [Float] {
        var out = [Float](repeating: 0, count: values.count)
        func at(_ x: Int, _ y: Int) -> Float { values[min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)] }
        for y in 0..<height {
            for x in 0..<width {
                let sx = Double(x) - dx, sy = Double(y) - dy
                let x0 = Int(floor(sx)), y0 = Int(floor(sy))
                let fx = Float(sx - Double(x0)), fy = Float(sy - Double(y0))
                let top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx
                let bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx
                out[y * width + x] = top * (1 - fy) + bottom * fy
            }
        }
        return out
    }

    /// Bright (220) squares of `side` pixels on a dark (20) background, their top-left pixels at
    /// `origins`, slightly blurred (Gaussian, sigma 0.8 px, as a lens would) so that corner
    /// scores peak at the corners instead of forming plateaus that defeat non-maximum
    /// suppression. The blur is symmetric, so the corners stay where they were. Returns the
    /// image and the geometric corners of every square in pixel-centre
    /// coordinates (a square covering pixels x0...x0+side-1 has edges at x0-0.5 and x0+side-0.5).
    static func squares(width: Int, height: Int, origins: [(Int, Int)], side: Int) -> (GrayImage, [SIMD2<Float>]) {
        let (image, corners) = squaresWithInward(width: width, height: height, origins: origins, side: side)
        return (image, corners.map(\.corner))
    }

    /// As `squares`, also giving each corner's inward diagonal direction (components ±1).
    static func squaresWithInward(width: Int, height: Int, origins: [(Int, Int)], side: Int)
        -> (GrayImage, [(corner: SIMD2<Float>, inward: SIMD2<Float>)]) {
        var values = [Float](repeating: 20, count: width * height)
        var corners: [(corner: SIMD2<Float>, inward: SIMD2<Float>)] = []
        for (x0, y0) in origins {
            for y in y0..<(y0 + side) { for x in x0..<(x0 + side) { values[y * width + x] = 220 } }
            let l = Float(x0) - 0.5, t = Float(y0) - 0.5, r = Float(x0 + side) - 0.5, b = Float(y0 + side) - 0.5
            corners += [(SIMD2(l, t), SIMD2(1, 1)), (SIMD2(r, t), SIMD2(-1, 1)),
                        (SIMD2(l, b), SIMD2(1, -1)), (SIMD2(r, b), SIMD2(-1, -1))]
        }
        let blurred = gaussianBlur(values, width: width, height: height, sigma: 0.8)
        return (quantise(blurred, width: width, height: height), corners)
    }

    /// A 4x3 grid of 12-pixel squares on a 160x120 image (48 corners).
    static func squareGrid() -> (GrayImage, [SIMD2<Float>]) {
        squares(width: 160, height: 120, origins: gridOrigins, side: 12)
    }

    /// The square grid with each corner's position as an integer-pixel corner detector reports
    /// it: FAST (and the integer maximum of the Shi-Tomasi response) on a 90-degree corner peak
    /// on the pixel one step diagonally inside the square's corner pixel, i.e. 1.5 px inward
    /// along each axis from the geometric corner (a property of the detectors: the centre pixel
    /// must lie inside the bright region with a dark arc of at least 9 of 16 pixels).
    static func squareGridPixelCorners() -> (GrayImage, [SIMD2<Float>]) {
        let (image, corners) = squaresWithInward(width: 160, height: 120, origins: gridOrigins, side: 12)
        return (image, corners.map { $0.corner + 1.5 * $0.inward })
    }

    static let gridOrigins: [(Int, Int)] = (0..<3).flatMap { row in (0..<4).map { col in (20 + 35 * col, 15 + 35 * row) } }

    /// Distance from `p` to the nearest of `points`.
    static func nearestDistance(_ p: SIMD2<Float>, _ points: [SIMD2<Float>]) -> Float {
        points.map { (($0 - p) * ($0 - p)).sum().squareRoot() }.min() ?? .infinity
    }
}

/// The shared development data (found through TestSupport's `SharedDatasets`) and scratch folders.
enum TestData {
    /// The EuRoC micro dataset's cam0 frames, sorted; `nil` when the dataset is absent or has no PNG frames.
    static func eurocCam0Frames() -> [String]? {
        guard let root = SharedDatasets.path(SharedDatasets.eurocMicroName) else { return nil }
        let dir = URL(fileURLWithPath: root).appendingPathComponent("mav0/cam0/data")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return nil }
        let frames = names.filter { $0.hasSuffix(".png") }.sorted().map { dir.appendingPathComponent($0).path }
        return frames.isEmpty ? nil : frames
    }

    /// True when the EuRoC excerpt's cam0 frames are there; tests that read them are gated on it
    /// (`.enabled(if: TestData.eurocFramesArePresent, …)`), so a run without the dataset lists them as skipped.
    static var eurocFramesArePresent: Bool { (eurocCam0Frames()?.count ?? 0) >= 2 }

    /// A fresh temporary directory for a test's files.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ImagingTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
