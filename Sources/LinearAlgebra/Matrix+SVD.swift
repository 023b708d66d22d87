/// A singular value decomposition `A = U diag(σ) Vᵀ` of an m × n matrix.
///
/// Thin by default: with k = min(m, n), `u` is m × k, `vt` is k × n. Full (`svd(full: true)`):
/// `u` is m × m and `vt` is n × n; `singularValues` always has k entries.
public struct SingularValueDecomposition: Sendable {
    /// Left singular vectors (columns).
    public let u: Matrix
    /// Singular values, descending, ≥ 0.
    public let singularValues: [Double]
    /// Right singular vectors, transposed (rows are the vectors).
    public let vt: Matrix

    /// The numerical rank: singular values above `tolerance × σ_max` (relative).
    public func rank(relativeTolerance tolerance: Double = 1e-12) -> Int {
        guard let s0 = singularValues.first, s0 > 0 else { return 0 }
        return singularValues.filter { $0 > tolerance * s0 }.count
    }

    /// `σ_max / σ_min` (infinite for a singular matrix).
    public var conditionNumber: Double {
        guard let hi = singularValues.first, let lo = singularValues.last else { return 0 }
        return lo > 0 ? hi / lo : .infinity
    }
}

extension Matrix {
    /// The singular value decomposition (dgesdd, falling back to dgesvd), thin unless `full` is set.
    /// - Throws: `noConvergence`; `lapack(routine:info:)` for non-finite input.
    public func svd(full: Bool = false) throws -> SingularValueDecomposition {
        var a = elements
        let (u, s, vt) = try LAPACK.gesdd(m: rows, n: columns, a: &a, full: full)
        let k = Swift.min(rows, columns)
        let uCols = full ? rows : k, vtRows = full ? columns : k
        return SingularValueDecomposition(u: Matrix(rows: rows, columns: uCols, columnMajor: u),
                                          singularValues: s,
                                          vt: Matrix(rows: vtRows, columns: columns, columnMajor: vt))
    }
}
