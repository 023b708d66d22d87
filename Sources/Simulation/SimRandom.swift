import Foundation
import Geometry

/// A small deterministic pseudo-random generator for the simulator: xoshiro256** seeded by SplitMix64.
///
/// Same seed → same sequence on every platform (only integer arithmetic and IEEE doubles), so simulated
/// datasets are byte-identical for a seed. `gaussian()` uses the Box–Muller transform (both outputs are used).
/// Sub-streams for independent parts (IMU noise, textures, a frame's image noise) are derived with
/// `SimRandom(seed:stream:)`, so the result does not depend on the order or thread the parts run in.
public struct SimRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
    private var spareGaussian: Double?

    /// A generator for `seed`; `stream` selects an independent sub-stream (e.g. a frame index).
    public init(seed: UInt64, stream: UInt64 = 0) {
        var seeder = SeededRandom(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        s0 = seeder.next(); s1 = seeder.next(); s2 = seeder.next(); s3 = seeder.next()
        if (s0 | s1 | s2 | s3) == 0 { s0 = 1 }
    }

    /// The next 64 random bits (xoshiro256**).
    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// A uniform double in [0, 1) with 53 random bits.
    public mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A uniform double in `[lo, hi)`.
    public mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * uniform() }

    /// A uniform integer in `0..<n` (n > 0).
    public mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// A standard normal sample (Box–Muller).
    public mutating func gaussian() -> Double {
        if let g = spareGaussian { spareGaussian = nil; return g }
        var u1 = uniform()
        while u1 <= 1e-300 { u1 = uniform() }
        let u2 = uniform()
        let r = (-2 * Foundation.log(u1)).squareRoot()
        spareGaussian = r * Foundation.sin(2 * Double.pi * u2)
        return r * Foundation.cos(2 * Double.pi * u2)
    }
}
