extension Matrix {
    /// The lower-triangular Cholesky factor L with `A = L Lᵀ` (dpotrf).
    ///
    /// Only the lower triangle of `A` is read; the upper triangle of the result is zero.
    /// - Throws: `dimensionMismatch` if not square, `notPositiveDefinite` if A is not (numerically) positive definite.
    public func cholesky() throws -> Matrix {
        guard isSquare else { throw LinearAlgebraError.dimensionMismatch }
        var a = elements
        try LAPACK.potrf(n: rows, a: &a)
        for j in 0..<columns { for i in 0..<j { a[i + j * rows] = 0 } }
        return Matrix(rows: rows, columns: columns, columnMajor: a)
    }

    /// Solves `A X = B` for symmetric positive-definite `A` (dposv, lower triangle of A read).
    /// - Throws: `dimensionMismatch` if A is not square or `b.rows != rows`; `notPositiveDefinite`.
    public func choleskySolve(_ b: Matrix) throws -> Matrix {
        guard isSquare, b.rows == rows else { throw LinearAlgebraError.dimensionMismatch }
        var a = elements, x = b.elements
        try LAPACK.posv(n: rows, nrhs: b.columns, a: &a, b: &x)
        return Matrix(rows: b.rows, columns: b.columns, columnMajor: x)
    }

    /// Solves `A X = B` given `L = A.cholesky()` as `self` (dpotrs): reuse one factor for many right-hand sides.
    /// - Throws: `dimensionMismatch` if shapes do not fit.
    public func choleskyFactorSolve(_ b: Matrix) throws -> Matrix {
        guard isSquare, b.rows == rows else { throw LinearAlgebraError.dimensionMismatch }
        var x = b.elements
        try LAPACK.potrs(n: rows, nrhs: b.columns, l: elements, b: &x)
        return Matrix(rows: b.rows, columns: b.columns, columnMajor: x)
    }

    /// The inverse of a symmetric positive-definite matrix (dpotrf + dpotri), exactly symmetric.
    /// - Throws: `dimensionMismatch` if not square, `notPositiveDefinite`.
    public func symmetricPositiveDefiniteInverse() throws -> Matrix {
        guard isSquare else { throw LinearAlgebraError.dimensionMismatch }
        var a = elements
        try LAPACK.potrf(n: rows, a: &a)
        try LAPACK.potri(n: rows, a: &a)
        for j in 0..<columns { for i in 0..<j { a[i + j * rows] = a[j + i * rows] } }
        return Matrix(rows: rows, columns: columns, columnMajor: a)
    }
}
