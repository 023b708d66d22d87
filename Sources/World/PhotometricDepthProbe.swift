import Foundation
import Geometry
import Imaging
import Sensors

/// A second image of the scene, from another viewpoint: the right camera of a stereo pair at the same instant, or
/// the same camera at an earlier frame.
public struct SecondView: Sendable {
    /// The second view's image.
    public var image: GrayImage
    /// The second view's camera model.
    public var camera: CameraModel
    /// Pose of the second view's camera frame in the first (tapped) camera's frame: `p_C0 = T_C0_C1 · p_C1`, metres.
    public var T_C0_C1: SE3

    /// A view; see the properties for frames and units.
    public init(image: GrayImage, camera: CameraModel, T_C0_C1: SE3) {
        self.image = image; self.camera = camera; self.T_C0_C1 = T_C0_C1
    }
}

/// How well a pixel's patch matches the second view when the pixel's surface is placed at each depth along its ray.
public struct DepthProfile: Equatable, Sendable {
    /// One depth hypothesis.
    public struct Sample: Equatable, Sendable {
        /// Distance along the pixel's unit ray from the first camera's centre, metres.
        public var distance_m: Double
        /// Where the pixel's centre then projects in the second view, pixels.
        public var pixel: Vec2
        /// Normalised cross-correlation of the patches, −1…1.
        public var score: Double
    }
    /// The hypotheses whose patch fell inside the second image, nearest first.
    public var samples: [Sample]
    /// The grey-level standard deviation of the first image's patch (its texture).
    public var referenceStd: Double

    /// The index of the best-matching hypothesis; `nil` when there is none.
    public var bestIndex: Int? { samples.indices.max { samples[$0].score < samples[$1].score } }

    /// The best-matching hypothesis; `nil` when there is none.
    public var best: Sample? { bestIndex.map { samples[$0] } }

    /// The hypothesis whose projection in the second view lies nearest `pixel`; `nil` when there is none.
    public func sample(nearest pixel: Vec2) -> Sample? {
        samples.min { ($0.pixel - pixel).norm < ($1.pixel - pixel).norm }
    }

    /// A rival to the peak at `index`: another local maximum scoring within `margin` of it, separated from it by a dip
    /// of at least `dip` (a second match: a repeating texture, or a patch that fits two surfaces). Points on the peak's
    /// own shoulders, which never dip, are not rivals.
    public func hasRival(to index: Int, margin: Double, dip: Double) -> Bool {
        !rivals(to: index, margin: margin, dip: dip).isEmpty
    }

    /// The indices of the rivals to the peak at `index` (see `hasRival`), nearest first.
    public func rivals(to index: Int, margin: Double, dip: Double) -> [Int] {
        let peak = samples[index].score
        return samples.indices.filter { i in
            guard i != index, samples[i].score > peak - margin else { return false }
            let isLocalMaximum = (i == 0 || samples[i].score >= samples[i - 1].score)
                && (i == samples.count - 1 || samples[i].score >= samples[i + 1].score)
            guard isLocalMaximum else { return false }
            let between = samples[min(i, index)...max(i, index)].map(\.score).min() ?? peak
            return samples[i].score - between >= dip
        }
    }
}

/// Where a second view of the scene places the surface under a pixel: the pixel's patch in the first image is
/// compared, by normalised cross-correlation, with the second image along the pixel's epipolar line, one hypothesis
/// of depth at a time (a plane sweep with a fronto-parallel patch).
///
/// This is direct evidence of a tapped point's depth that needs no landmark: the map can miss a surface entirely (a
/// table seen end-on, with no tracked feature on it), while its texture is still in both images.
public struct PhotometricDepthProbe: Equatable, Sendable {
    /// The patch is (2 r + 1)² pixels of the first image around the pixel; small, so that a tap at an object's corner
    /// still sees mostly one surface.
    public var patchRadius_px: Int = 3
    /// Hypotheses are spaced so that the pixel's projection in the second view moves by about this much between them.
    public var step_px: Double = 0.25
    /// A patch whose grey levels vary less than this (standard deviation) has no texture to match: no profile.
    public var minTexture: Double = 4

    /// The defaults.
    public init() {}

    /// The profile of `pixel` (first image, `camera`) against `view`, over distances from `nearest_m` to `farthest_m`
    /// along its unit ray; `nil` when the pixel cannot be unprojected, its patch leaves the image or has no texture, or
    /// no hypothesis lands in the second image.
    public func profile(pixel: Vec2, image: GrayImage, camera: CameraModel, view: SecondView,
                        nearest_m: Double, farthest_m: Double) -> DepthProfile? {
        let r = patchRadius_px
        guard nearest_m > 0, farthest_m > nearest_m, camera.contains(pixel, margin: Double(r + 1)) else { return nil }
        // The reference patch, and each of its pixels' bearings (fronto-parallel: every pixel at the centre's z).
        var reference: [Double] = [], rays: [Vec3] = []
        reference.reserveCapacity((2 * r + 1) * (2 * r + 1))
        for dy in -r...r {
            for dx in -r...r {
                let p = pixel + Vec2(Double(dx), Double(dy))
                guard let v = Self.bilinear(image, p), let n = camera.unproject(p) else { return nil }
                reference.append(v); rays.append(Vec3(n.x, n.y, 1))
            }
        }
        let (refMean, refStd) = Self.meanStd(reference)
        guard refStd >= minTexture, let centre = camera.bearing(pixel) else { return nil }
        // Hypotheses evenly spaced in inverse distance, `step_px` apart in the second view.
        let T_C1_C0 = view.T_C0_C1.inverse
        guard let nearPx = view.camera.project(T_C1_C0.act(centre * nearest_m)),
              let farPx = view.camera.project(T_C1_C0.act(centre * farthest_m)) else { return nil }
        let count = min(2000, max(2, Int(((nearPx - farPx).norm / step_px).rounded(.up)) + 1))
        var samples: [DepthProfile.Sample] = []
        var values = [Double](repeating: 0, count: reference.count)
        hypotheses: for k in 0..<count {
            let inverse = 1 / farthest_m + (1 / nearest_m - 1 / farthest_m) * Double(k) / Double(count - 1)
            let distance = 1 / inverse
            let z = distance * centre.z
            guard let centrePx = view.camera.project(T_C1_C0.act(centre * distance)) else { continue }
            for (i, ray) in rays.enumerated() {
                guard let q = view.camera.project(T_C1_C0.act(ray * z)), let v = Self.bilinear(view.image, q) else { continue hypotheses }
                values[i] = v
            }
            let (mean, std) = Self.meanStd(values)
            guard std > 1e-9 else { continue }
            var ncc = 0.0
            for i in 0..<values.count { ncc += (reference[i] - refMean) * (values[i] - mean) }
            ncc /= Double(values.count) * refStd * std
            samples.append(.init(distance_m: distance, pixel: centrePx, score: ncc))
        }
        guard !samples.isEmpty else { return nil }
        return DepthProfile(samples: samples.reversed(), referenceStd: refStd)
    }

    /// The image's intensity at a sub-pixel position, bilinearly interpolated; `nil` outside the image.
    static func bilinear(_ image: GrayImage, _ p: Vec2) -> Double? {
        guard p.x >= 0, p.y >= 0, p.x <= Double(image.width - 1), p.y <= Double(image.height - 1) else { return nil }
        let x0 = min(Int(p.x), image.width - 2), y0 = min(Int(p.y), image.height - 2)
        let fx = p.x - Double(x0), fy = p.y - Double(y0)
        let w = image.width, i = y0 * w + x0
        return image.pixels.withUnsafeBufferPointer { px in
            let a = Double(px[i]), b = Double(px[i + 1]), c = Double(px[i + w]), d = Double(px[i + w + 1])
            return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
        }
    }

    static func meanStd(_ v: [Double]) -> (Double, Double) {
        let mean = v.reduce(0, +) / Double(v.count)
        let variance = v.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(v.count)
        return (mean, variance.squareRoot())
    }
}
