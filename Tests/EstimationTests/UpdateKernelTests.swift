import Foundation
import Geometry
import LinearAlgebra
import Testing
@testable import Estimation

/// The hand-written kernels of the visual update against the dense LAPACK formulations they replace.
@Suite struct UpdateKernelTests {
    /// A reproducible uniform value in [-1, 1).
    struct Random {
        var s: UInt64
        mutating func next() -> Double {
            s = s &* 6364136223846793005 &+ 1442695040888963407
            return Double(s >> 11) / Double(1 << 52) - 1
        }
    }

    /// A state with three clones and a random well-conditioned covariance (`B Bᵀ + 0.01 I`, scaled).
    func randomState(_ rng: inout Random) -> FilterState {
        var state = FilterState(imu: ImuState(t_ns: 0), diagonalCovariance: [Double](repeating: 1e-3, count: 15))
        for k in 0..<3 {
            state.imu.t_ns = Int64(k + 1) * 50_000_000
            state.augmentClone()
        }
        let n = state.dimension
        var B = Matrix(rows: n, columns: n)
        for i in 0..<(n * n) { B.elements[i] = rng.next() }
        var P = 1e-3 * B.timesTransposed(B)
        for i in 0..<n { P[i, i] += 1e-5 }
        state.setCovariance(P)
        return state
    }

    /// `update(cloneColumnsH:)` (square-root form, zeros skipped) equals the dense `update(H:)` with the
    /// inertial columns zero: same covariance and mean to round-off (1e-10 relative to the entries).
    @Test func cloneColumnUpdateMatchesDenseUpdate() throws {
        var rng = Random(s: 42)
        let base = randomState(&rng)
        let n = base.dimension, c = n - ErrorIndex.imu
        for m in [5, c] {
            var Hc = Matrix(rows: m, columns: c)
            for j in 0..<c { for i in 0..<m where m != c || i <= j { Hc[i, j] = 30 * rng.next() } } // upper triangular when square
            let r = (0..<m).map { _ in rng.next() }
            var H = Matrix(rows: m, columns: n)
            H.setBlock(row: 0, column: ErrorIndex.imu, Hc)
            var fast = base, dense = base
            try fast.update(cloneColumnsH: Hc, r: r)
            try dense.update(H: H, r: r)
            let scale = dense.covarianceMatrix.maxAbs
            #expect((fast.covarianceMatrix - dense.covarianceMatrix).maxAbs <= 1e-10 * scale, "m = \(m)")
            #expect((fast.imu.p_W - dense.imu.p_W).norm <= 1e-12 + 1e-9 * dense.imu.p_W.norm)
            for k in 0..<3 { #expect((fast.clones[k].p_W - dense.clones[k].p_W).norm <= 1e-12 + 1e-9 * dense.clones[k].p_W.norm) }
        }
    }

    /// The block-skipping Householder triangularisation of `[H | r]` gives `R`, `Qᵀr` with `RᵀR = HᵀH` and
    /// `Rᵀ (Qᵀr) = Hᵀ r` (what the EKF update needs), and `R` upper triangular.
    @Test func householderKeepsTheNormalEquations() {
        var rng = Random(s: 7)
        let c = 18, w = c + 1
        // Rows in blocks whose first non-zero column grows: 0, 0, 6, 6, 12.
        let firsts = [0, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12]
        let m = firsts.count
        var a = [Double](repeating: 0, count: m * w)
        for i in 0..<m { for q in firsts[i]..<w { a[i * w + q] = rng.next() } }
        let original = a
        householderTriangularize(&a, rows: m, columns: w, firstColumn: firsts)
        // Gram matrices of the full column sets [H | r]: equal before and after (Q is orthogonal).
        for p in 0..<w {
            for q in 0..<w {
                var before = 0.0, after = 0.0
                for i in 0..<m { before += original[i * w + p] * original[i * w + q] }
                for i in 0..<min(m, c) { after += a[i * w + p] * a[i * w + q] }
                if p == c && q == c { continue } // ‖r‖² keeps the part in the rows dropped below c
                #expect(abs(before - after) <= 1e-12 * max(1, abs(before)), "(\(p), \(q))")
            }
        }
        for i in 0..<m { for j in 0..<min(i, c) { #expect(a[i * w + j] == 0) } }
    }
}
