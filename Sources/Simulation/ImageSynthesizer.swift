import Foundation
import Geometry
import Imaging
import Sensors

/// Camera-side effects applied on top of the rendered radiance.
public struct ImageEffects: Equatable, Sendable {
    /// Gaussian read noise, gray levels (σ). 0 disables. Default 2.
    public var noiseSigma: Double = 2.0
    /// Slow, smooth auto-exposure changes (gain 1 ± ≈ 0.14 over a few seconds). Default on.
    public var exposureVariation: Bool = true
    /// Average `blurSamples` renders spread over `exposureTime` (motion blur). Default off.
    public var motionBlur: Bool = false
    /// Exposure time, seconds (used by motion blur). Default 12 ms.
    public var exposureTime: Double = 0.012
    /// Sub-frame renders for motion blur. Default 5.
    public var blurSamples: Int = 5

    public init(noiseSigma: Double = 2.0, exposureVariation: Bool = true, motionBlur: Bool = false,
                exposureTime: Double = 0.012, blurSamples: Int = 5) {
        self.noiseSigma = noiseSigma; self.exposureVariation = exposureVariation; self.motionBlur = motionBlur
        self.exposureTime = exposureTime; self.blurSamples = blurSamples
    }
    /// No noise, no exposure change, no blur: the exact rendering, quantised.
    public static let perfect = ImageEffects(noiseSigma: 0, exposureVariation: false, motionBlur: false)

    /// The exposure gain at trajectory time `t` seconds.
    public func gain(at t: Double) -> Double {
        guard exposureVariation else { return 1 }
        return 1 + 0.10 * Foundation.sin(2 * Double.pi * t / 9) + 0.04 * Foundation.sin(2 * Double.pi * t / 3.1 + 1)
    }
}

/// Turns a trajectory and a scene into camera images: render (optionally several sub-frames for motion
/// blur), apply exposure gain and read noise, quantise to 8 bits. Deterministic for a seed.
public struct ImageSynthesizer: Sendable {
    /// The renderer (scene + textures).
    public let renderer: SceneRenderer
    /// Camera-side effects.
    public let effects: ImageEffects
    /// Seed of the image noise.
    public let seed: UInt64

    public init(renderer: SceneRenderer, effects: ImageEffects = ImageEffects(), seed: UInt64) {
        self.renderer = renderer; self.effects = effects; self.seed = seed
    }

    /// The image of camera `cameraIndex` (with extrinsics `T_B_C` and bearing map `map`) exposed at
    /// trajectory time `t` seconds (mid-exposure); `frameIndex` selects the noise sub-stream.
    public func image(trajectory: any Trajectory, t: Double, T_B_C: SE3, map: BearingMap,
                      frameIndex: Int, cameraIndex: Int) -> GrayImage {
        let w = map.model.width, h = map.model.height
        var acc: [Float]
        if effects.motionBlur && effects.blurSamples > 1 {
            acc = [Float](repeating: 0, count: w * h)
            let n = effects.blurSamples
            for k in 0..<n {
                let tk = t + effects.exposureTime * ((Double(k) + 0.5) / Double(n) - 0.5)
                let r = renderer.renderRadiance(map: map, T_W_C: trajectory.pose(at: tk) * T_B_C).radiance
                for i in 0..<acc.count { acc[i] += r[i] }
            }
            let inv = 1 / Float(n)
            for i in 0..<acc.count { acc[i] *= inv }
        } else {
            acc = renderer.renderRadiance(map: map, T_W_C: trajectory.pose(at: t) * T_B_C).radiance
        }
        return quantise(acc, width: w, height: h, gain: Float(effects.gain(at: t)), frameIndex: frameIndex, cameraIndex: cameraIndex)
    }

    /// 65 536 standard-normal quantiles `Φ⁻¹((k + 0.5) / 65536)`, in a fixed shuffled order.
    static let normalTable: [Float] = {
        var t = (0..<65536).map { k in Float(inverseNormalCDF((Double(k) + 0.5) / 65536)) }
        var rng = SimRandom(seed: 0x6A55, stream: 1)
        for i in stride(from: t.count - 1, to: 0, by: -1) { t.swapAt(i, rng.int(i + 1)) }
        return t
    }()

    /// Φ⁻¹(p) by Newton iteration on `erfc` (accurate to ~1e-12 for p in (0, 1)).
    static func inverseNormalCDF(_ p: Double) -> Double {
        var x = 0.0
        for _ in 0..<60 {
            let cdf = 0.5 * Foundation.erfc(-x / 2.0.squareRoot())
            let pdf = Foundation.exp(-x * x / 2) / (2 * Double.pi).squareRoot()
            let step = (cdf - p) / max(pdf, 1e-300)
            x -= max(-1, min(1, step))
            if abs(step) < 1e-13 { break }
        }
        return x
    }

    /// Applies gain and noise and rounds to 8 bits; noise streams are per (frame, camera, row band).
    func quantise(_ r: [Float], width w: Int, height h: Int, gain: Float, frameIndex: Int, cameraIndex: Int) -> GrayImage {
        var px = [UInt8](repeating: 0, count: w * h)
        let sigma = Float(effects.noiseSigma)
        let bands = (h + 15) / 16
        let seed = self.seed
        r.withUnsafeBufferPointer { rp in
            px.withUnsafeMutableBufferPointer { out in
                let o = out.baseAddress!
                DispatchQueue.concurrentPerform(iterations: bands) { band in
                    var rng = SimRandom(seed: seed, stream: (UInt64(frameIndex) << 20) ^ (UInt64(cameraIndex) << 16) ^ UInt64(band) ^ 0xF0_0000_0000)
                    var bits: UInt64 = 0, left = 0
                    for i in (band * 16 * w)..<min(h, (band + 1) * 16) * w {
                        var v = rp[i] * gain
                        if sigma > 0 {
                            // 16 random bits pick one of 65 536 fixed standard-normal values (fast, exact N(0,1)
                            // quantiles, deterministic).
                            if left == 0 { bits = rng.next(); left = 4 }
                            v += sigma * ImageSynthesizer.normalTable[Int(bits & 0xFFFF)]
                            bits >>= 16; left -= 1
                        }
                        o[i] = UInt8(min(255, max(0, v.rounded())))
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: px)
    }
}
