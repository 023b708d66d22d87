import Foundation
import Geometry
import LinearAlgebra

extension FilterState {
    /// One EKF update with a whitened linear measurement `r = H δx + n`, `n ~ N(0, I)`.
    ///
    /// `S = H P Hᵀ + I`, `K = P Hᵀ S⁻¹`, `δx = K r`, `P ← P − K S Kᵀ` (symmetrised), then the correction
    /// is injected into the mean. Throws (and leaves the state unchanged) if S is not positive definite
    /// or the result is not finite.
    mutating func update(H: Matrix, r: [Double]) throws {
        let (P, M, dx) = try gain(H: H, r: r)
        try commit(covariance: P - M, correction: dx)
    }

    /// The optimal update's parts: the covariance `P` before it, its reduction `M = K S Kᵀ = P Hᵀ S⁻¹ H P` and the
    /// correction `δx = K r`, for the whitened measurement `r = H δx + n`.
    private func gain(H: Matrix, r: [Double]) throws -> (P: Matrix, M: Matrix, dx: [Double]) {
        let n = dimension
        precondition(H.columns == n && H.rows == r.count)
        let P = covarianceMatrix
        let PHt = P.timesTransposed(H) // n × m
        var S = H * PHt // m × m
        for i in 0..<S.rows { S[i, i] += 1 }
        let Kt = try S.choleskySolve(PHt.transposed) // S⁻¹ H P, m × n
        let dx = Kt.transposedTimes(Matrix(columnVector: r)).elements
        return (P, PHt * Kt, dx)
    }

    /// The same update, except that the gravity direction of every attitude in the state (the inertial one and each
    /// clone's) is left as it was: a Schmidt ("consider") update of the two tilt directions of each `δθ` (body frame,
    /// perpendicular to the world's up seen in that body, `R_W_Bᵀ e_z`); yaw, position and the other states are
    /// updated as usual. The floor's slopes, when the floor is in the state, are kept too: they are the world's
    /// vertical seen in the floor, which the floor's rows tie to the attitudes' tilt (a map update that moved them
    /// would move the tilts through them). `δx` keeps only the yaw part of each `δθ` (and nothing of the slopes),
    /// and with `M = P Hᵀ S⁻¹ H P`, `P ← P − M + Π M Πᵀ` (`Π` the block-diagonal projector onto the tilt directions
    /// and the slopes), so the kept directions' own covariance is unchanged and their cross-covariances with the
    /// updated states follow the update. With `keepingClonePositions` each clone's `δp` is kept the same way (whole,
    /// `Π = I`): the update corrects the present pose and leaves the window's past positions as they were; the tilts
    /// and slopes are then kept only with `keepingTilt`.
    mutating func update(H: Matrix, r: [Double], keepingTilt: Bool, keepingClonePositions: Bool = false) throws {
        guard keepingTilt || keepingClonePositions else { return try update(H: H, r: r) }
        let (P, M, correction) = try gain(H: H, r: r)
        var dx = correction
        var newP = P - M
        // Each kept block: its first error-state index and its projector Π (row-major size × size) onto the kept
        // directions: for an attitude Π = I − g gᵀ (g: the world's up in that body frame), for the slopes and a
        // clone's position I.
        func projector(_ R_W_B: SO3) -> [Double] {
            let g = R_W_B.inverse.act(Vec3(0, 0, 1))
            let pi = Mat3.identity - Mat3.outer(g, g)
            return (0..<9).map { pi[$0 / 3, $0 % 3] }
        }
        var blocks: [(start: Int, size: Int, pi: [Double])] = []
        if keepingTilt {
            blocks = [(start: ErrorIndex.theta, size: 3, pi: projector(imu.R_W_B))]
                + clones.indices.map { (start: cloneIndex($0), size: 3, pi: projector(clones[$0].R_W_B)) }
            if let f = floorIndex { blocks.append((start: f + 1, size: 2, pi: [1, 0, 0, 1])) }
        }
        if keepingClonePositions {
            let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
            blocks += clones.indices.map { (start: cloneIndex($0) + 3, size: 3, pi: identity) }
        }
        for (a, k, pi) in blocks {
            // δx_a ← (I − Π) δx_a: an attitude's yaw part only; nothing of the slopes or of a clone's position.
            let d = (0..<k).map { dx[a + $0] }
            for i in 0..<k {
                var s = 0.0
                for j in 0..<k { s += pi[i * k + j] * d[j] }
                dx[a + i] = d[i] - s
            }
        }
        for (a, ka, pa) in blocks {
            for (b, kb, pb) in blocks {
                // newP[a, b] += Π_a M[a, b] Π_bᵀ
                for i in 0..<ka {
                    for j in 0..<kb {
                        var s = 0.0
                        for k in 0..<ka { for l in 0..<kb { s += pa[i * ka + k] * M[a + k, b + l] * pb[j * kb + l] } }
                        newP[a + i, b + j] += s
                    }
                }
            }
        }
        try commit(covariance: newP, correction: dx)
    }

    /// The same update for a measurement that involves only the clones: `Hc` has one column per clone
    /// error-state entry (`dimension − cloneStart`), the inertial (and time-offset) columns being zero. Saves
    /// the work on them; the time offset is still corrected through its covariance with the clones.
    mutating func update(cloneColumnsH Hc: Matrix, r: [Double]) throws {
        try update(trailingColumnsH: Hc, r: r, from: cloneStart)
    }

    /// The same update for a measurement whose columns before `c0` are zero: `Hc` has the columns `c0..<dimension`
    /// (the clones, and camera 0's mounting just before them when it is estimated). The leading states are still
    /// corrected through their covariance with the others.
    ///
    /// Computed in the square-root form: `S = L Lᵀ`, `W = P Hᵀ L⁻ᵀ`, `δx = W L⁻¹ r`, `P ← P − W Wᵀ` (lower
    /// triangle, mirrored), with loops over contiguous columns and the zeros of `Hc` skipped (after
    /// measurement compression it is upper triangular).
    mutating func update(trailingColumnsH Hc: Matrix, r: [Double], from c0: Int) throws {
        let n = dimension, c = n - c0, m = Hc.rows
        precondition(c0 >= 0 && c0 <= n)
        precondition(Hc.columns == c && m == r.count)
        guard m > 0 else { return }
        var W = [Double](repeating: 0, count: n * m)   // P Hᵀ, then P Hᵀ L⁻ᵀ; n × m column-major
        var S = [Double](repeating: 0, count: m * m)   // lower triangle of H P Hᵀ + I, then L
        var v = r                                      // L⁻¹ r
        var dx = [Double](repeating: 0, count: n)
        var newP = self.P
        let ok: Bool = Hc.elements.withUnsafeBufferPointer { h in
            P.withUnsafeBufferPointer { p in
                W.withUnsafeMutableBufferPointer { w in
                    S.withUnsafeMutableBufferPointer { s in
                        // W[:, k] = Σ_j P[:, c0 + j] H[k, j]
                        for k in 0..<m {
                            let wk = w.baseAddress! + k * n
                            for j in 0..<c {
                                let hkj = h[k + j * m]
                                if hkj == 0 { continue }
                                let pj = p.baseAddress! + (c0 + j) * n
                                for i in 0..<n { wk[i] += pj[i] * hkj }
                            }
                        }
                        // S[k, l] (k ≥ l) = Σ_j H[k, j] W[c0 + j, l], plus the identity.
                        for l in 0..<m {
                            let sl = s.baseAddress! + l * m
                            for j in 0..<c {
                                let wjl = w[c0 + j + l * n]
                                if wjl == 0 { continue }
                                let hj = h.baseAddress! + j * m
                                for k in l..<m { sl[k] += hj[k] * wjl }
                            }
                            sl[l] += 1
                        }
                        // Cholesky S = L Lᵀ (lower, in place).
                        guard DenseKernels.choleskyLower(s.baseAddress!, n: m) else { return false }
                        // W ← W L⁻ᵀ: column k = (W[:, k] − Σ_{q<k} W[:, q] L[k, q]) / L[k, k].
                        for k in 0..<m {
                            let wk = w.baseAddress! + k * n
                            for q in 0..<k {
                                let lkq = s[k + q * m]
                                if lkq == 0 { continue }
                                let wq = w.baseAddress! + q * n
                                for i in 0..<n { wk[i] -= wq[i] * lkq }
                            }
                            let inv = 1 / s[k + k * m]
                            for i in 0..<n { wk[i] *= inv }
                        }
                        return true
                    }
                }
            }
        }
        guard ok else { throw LinearAlgebraError.notPositiveDefinite }
        // v = L⁻¹ r, δx = W v, P ← P − W Wᵀ (lower triangle, then mirrored).
        S.withUnsafeBufferPointer { s in
            v.withUnsafeMutableBufferPointer { DenseKernels.forwardSubstitute(s.baseAddress!, n: m, $0.baseAddress!) }
        }
        W.withUnsafeBufferPointer { w in
            dx.withUnsafeMutableBufferPointer { d in
                for k in 0..<m {
                    let vk = v[k], wk = w.baseAddress! + k * n
                    for i in 0..<n { d[i] += wk[i] * vk }
                }
            }
            newP.withUnsafeMutableBufferPointer { q in
                for k in 0..<m {
                    let wk = w.baseAddress! + k * n
                    for b in 0..<n {
                        let wb = wk[b]
                        if wb == 0 { continue }
                        let qb = q.baseAddress! + b * n
                        for a in b..<n { qb[a] -= wk[a] * wb }
                    }
                }
                for b in 0..<n { for a in (b + 1)..<max(b + 1, n) { q[b + a * n] = q[a + b * n] } }
            }
        }
        try commit(covariance: Matrix(rows: n, columns: n, columnMajor: newP), correction: dx)
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
