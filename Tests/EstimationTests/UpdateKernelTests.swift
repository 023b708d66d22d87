import Foundation
import Geometry
import LinearAlgebra
import Testing
@testable import Estimation

/// The hand-written kernels of the visual update against the dense LAPACK formulations they replace.
@Suite struct UpdateKernelTests {
    /// A state with three clones and a random well-conditioned covariance (`B Bᵀ + 0.01 I`, scaled).
    func randomState(_ rng: inout SeededRandom) -> FilterState {
        var state = FilterState(imu: IMUState(t_ns: 0), diagonalCovariance: [Double](repeating: 1e-3, count: 15))
        for k in 0..<3 {
            state.imu.t_ns = Int64(k + 1) * 50_000_000
            state.augmentClone()
        }
        let n = state.dimension
        var B = Matrix(rows: n, columns: n)
        for i in 0..<(n * n) { B.elements[i] = rng.uniform(-1, 1) }
        var P = 1e-3 * B.timesTransposed(B)
        for i in 0..<n { P[i, i] += 1e-5 }
        state.setCovariance(P)
        return state
    }

    /// `update(cloneColumnsH:)` (square-root form, zeros skipped) equals the dense `update(H:)` with the
    /// inertial columns zero: same covariance and mean to round-off (1e-10 relative to the entries).
    @Test func cloneColumnUpdateMatchesDenseUpdate() throws {
        var rng = SeededRandom(seed: 42)
        let base = randomState(&rng)
        let n = base.dimension, c = n - base.cloneStart
        for m in [5, c] {
            var Hc = Matrix(rows: m, columns: c)
            for j in 0..<c { for i in 0..<m where m != c || i <= j { Hc[i, j] = 30 * rng.uniform(-1, 1) } } // upper triangular when square
            let r = (0..<m).map { _ in rng.uniform(-1, 1) }
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
}
