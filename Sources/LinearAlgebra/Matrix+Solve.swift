extension Matrix {
    /// Solves the square system `A X = B` by LU with partial pivoting (dgesv).
    /// - Throws: `dimensionMismatch` if A is not square or `b.rows != rows`; `singular` on an exactly zero pivot.
    public func solve(_ b: Matrix) throws -> Matrix {
        guard isSquare, b.rows == rows else { throw LinearAlgebraError.dimensionMismatch }
        var a = elements, x = b.elements
        try LAPACK.gesv(n: rows, nrhs: b.columns, a: &a, b: &x)
        return Matrix(rows: b.rows, columns: b.columns, columnMajor: x)
    }

    /// The inverse of a square matrix (dgesv against the identity). Prefer `solve(_:)` where possible.
    /// - Throws: `dimensionMismatch` if not square, `singular`.
    public func inverse() throws -> Matrix { try solve(.identity(rows)) }

    /// The least-squares solution `argmin ‖A X − B‖` for m ≥ n (full column rank), or the minimum-norm
    /// solution for m < n (full row rank), by QR/LQ (dgels). Result is `columns × b.columns`.
    /// - Throws: `dimensionMismatch` if `b.rows != rows`; `singular` if A is numerically rank deficient
    ///   (a diagonal element of the triangular factor below `max(m, n) · ε · max |diagonal|`).
    public func leastSquares(_ b: Matrix) throws -> Matrix {
        guard b.rows == rows else { throw LinearAlgebraError.dimensionMismatch }
        let ldb = Swift.max(rows, columns)
        var bb = [Double](repeating: 0, count: ldb * b.columns)
        for j in 0..<b.columns {
            bb.replaceSubrange((j * ldb)..<(j * ldb + rows), with: b.elements[(j * rows)..<((j + 1) * rows)])
        }
        var a = elements
        try LAPACK.gels(m: rows, n: columns, nrhs: b.columns, a: &a, b: &bb)
        // dgels only rejects exactly zero pivots; rounding turns a rank deficiency into a tiny pivot and a
        // meaningless huge solution, so test the triangular factor (R, or L for m < n) it leaves in `a`.
        let pivots = (0..<Swift.min(rows, columns)).map { abs(a[$0 + $0 * rows]) }
        if let largest = pivots.max(), let smallest = pivots.min(),
           smallest <= Double(Swift.max(rows, columns)) * Double.ulpOfOne * largest {
            throw LinearAlgebraError.singular
        }
        var x = Matrix(rows: columns, columns: b.columns)
        for j in 0..<b.columns {
            x.elements.replaceSubrange((j * columns)..<((j + 1) * columns), with: bb[(j * ldb)..<(j * ldb + columns)])
        }
        return x
    }
}
