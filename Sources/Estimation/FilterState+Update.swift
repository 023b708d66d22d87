import Foundation
import LinearAlgebra

extension FilterState {
    /// One EKF update with a whitened linear measurement `r = H δx + n`, `n ~ N(0, I)`.
    ///
    /// `S = H P Hᵀ + I`, `K = P Hᵀ S⁻¹`, `δx = K r`, `P ← P − K S Kᵀ` (symmetrised), then the correction
    /// is injected into the mean. Throws (and leaves the state unchanged) if S is not positive definite
    /// or the result is not finite.
    mutating func update(H: Matrix, r: [Double]) throws {
        let n = dimension
        precondition(H.columns == n && H.rows == r.count)
        let P = covarianceMatrix
        let PHt = P.timesTransposed(H) // n × m
        var S = H * PHt // m × m
        for i in 0..<S.rows { S[i, i] += 1 }
        let Kt = try S.choleskySolve(PHt.transposed) // S⁻¹ H P, m × n
        let dx = Kt.transposedTimes(Matrix(columnVector: r)).elements
        try commit(covariance: P - PHt * Kt, correction: dx)
    }

    /// The same update for a measurement that involves only the clones: `Hc` has one column per clone
    /// error-state entry (`dimension − 15`), the inertial columns being zero. Saves the work on them.
    mutating func update(cloneColumnsH Hc: Matrix, r: [Double]) throws {
        let n = dimension, c = n - ErrorIndex.imu
        precondition(Hc.columns == c && Hc.rows == r.count)
        let P = covarianceMatrix
        let PC = P.block(row: 0, column: ErrorIndex.imu, rows: n, columns: c) // P[:, C], n × c
        let PHt = PC.timesTransposed(Hc) // n × m
        var S = Hc * PHt.block(row: ErrorIndex.imu, column: 0, rows: c, columns: Hc.rows)
        for i in 0..<S.rows { S[i, i] += 1 }
        let Kt = try S.choleskySolve(PHt.transposed) // m × n
        let dx = Kt.transposedTimes(Matrix(columnVector: r)).elements
        try commit(covariance: P - PHt * Kt, correction: dx)
    }

    /// Stores the updated covariance (symmetrised, variances clamped against round-off) and injects the
    /// correction; throws, leaving the state unchanged, if either is not finite.
    private mutating func commit(covariance newP: Matrix, correction dx: [Double]) throws {
        guard dx.allSatisfy({ $0.isFinite }), newP.isFinite else { throw LinearAlgebraError.notPositiveDefinite }
        setCovariance(newP)
        let n = dimension
        for i in 0..<n where covariance(i, i) < 1e-18 { setDiagonal(i, 1e-18) }
        inject(dx)
    }
}
