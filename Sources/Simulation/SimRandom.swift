import Foundation
import Geometry

/// A small deterministic pseudo-random generator for the simulator: xoshiro256** seeded by SplitMix64.
///
/// Same seed → same sequence on every platform (only integer arithmetic and IEEE doubles), so simulated
/// datasets are byte-identical for a seed. The sampling helpers (`uniform`, `int`, `gaussian`) are
/// `DeterministicRandom`'s.
/// Sub-streams for independent parts (IMU noise, textures, a frame's image noise) are derived with
/// `SimRandom(seed:stream:)`, so the result does not depend on the order or thread the parts run in.
public struct SimRandom: DeterministicRandom, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
    /// See `DeterministicRandom`.
    public var spareGaussian: Double?

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
}
