import Foundation

/// A deterministic bit source with the project's sampling helpers: uniform doubles with 53 random bits, bounded
/// integers and Box–Muller normal samples. Conformers provide `next()` and storage for the spare normal sample;
/// the helpers are the same for every generator, so a seed gives the same numbers on every platform (integer
/// arithmetic and IEEE doubles only).
public protocol DeterministicRandom: RandomNumberGenerator {
    /// The second Box–Muller sample, kept for the next `gaussian()` call (`nil` when none is pending).
    var spareGaussian: Double? { get set }
}

extension DeterministicRandom {
    /// A uniform double in [0, 1) with 53 random bits.
    public mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A uniform double in `[lo, hi)`.
    public mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * uniform() }

    /// A uniform integer in `0..<n` (n > 0).
    public mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// A standard normal sample (Box–Muller; both outputs are used).
    public mutating func gaussian() -> Double {
        if let g = spareGaussian { spareGaussian = nil; return g }
        var u1 = uniform()
        while u1 <= 1e-300 { u1 = uniform() }
        let u2 = uniform()
        let r = (-2 * Foundation.log(u1)).squareRoot()
        spareGaussian = r * Foundation.sin(2 * Double.pi * u2)
        return r * Foundation.cos(2 * Double.pi * u2)
    }

    /// A vector of three independent normal samples with standard deviation `sigma`.
    public mutating func gaussian3(_ sigma: Double) -> Vec3 { sigma * Vec3(gaussian(), gaussian(), gaussian()) }
}

/// A small deterministic pseudo-random generator (SplitMix64), for repeatable RANSAC, detection and test data.
public struct SeededRandom: DeterministicRandom, Sendable {
    private var state: UInt64
    /// See `DeterministicRandom`.
    public var spareGaussian: Double?

    /// A generator for `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
