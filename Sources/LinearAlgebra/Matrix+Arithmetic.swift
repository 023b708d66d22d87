extension Matrix {
    /// Element-wise sum. Shapes must match.
    public static func + (a: Matrix, b: Matrix) -> Matrix {
        precondition(a.rows == b.rows && a.columns == b.columns, "Matrix + : \(a.rows)×\(a.columns) vs \(b.rows)×\(b.columns)")
        var out = a
        for k in out.elements.indices { out.elements[k] += b.elements[k] }
        return out
    }

    /// Element-wise difference. Shapes must match.
    public static func - (a: Matrix, b: Matrix) -> Matrix {
        precondition(a.rows == b.rows && a.columns == b.columns, "Matrix - : \(a.rows)×\(a.columns) vs \(b.rows)×\(b.columns)")
        var out = a
        for k in out.elements.indices { out.elements[k] -= b.elements[k] }
        return out
    }

    /// Negation.
    public static prefix func - (a: Matrix) -> Matrix {
        Matrix(rows: a.rows, columns: a.columns, columnMajor: a.elements.map { -$0 })
    }

    /// In-place sum.
    public static func += (a: inout Matrix, b: Matrix) { a = a + b }
    /// In-place difference.
    public static func -= (a: inout Matrix, b: Matrix) { a = a - b }

    /// Matrix product `A B` (cblas_dgemm). `a.columns` must equal `b.rows`.
    public static func * (a: Matrix, b: Matrix) -> Matrix {
        precondition(a.columns == b.rows, "Matrix * : \(a.rows)×\(a.columns) times \(b.rows)×\(b.columns)")
        let c = LAPACK.gemm(transA: false, transB: false, m: a.rows, n: b.columns, k: a.columns,
                            a: a.elements, lda: a.rows, b: b.elements, ldb: b.rows)
        return Matrix(rows: a.rows, columns: b.columns, columnMajor: c)
    }

    /// `Aᵀ B` without forming the transpose (`self.rows` must equal `b.rows`).
    public func transposedTimes(_ b: Matrix) -> Matrix {
        precondition(rows == b.rows, "transposedTimes: \(rows)×\(columns)ᵀ times \(b.rows)×\(b.columns)")
        let c = LAPACK.gemm(transA: true, transB: false, m: columns, n: b.columns, k: rows,
                            a: elements, lda: rows, b: b.elements, ldb: b.rows)
        return Matrix(rows: columns, columns: b.columns, columnMajor: c)
    }

    /// `A Bᵀ` without forming the transpose (`self.columns` must equal `b.columns`).
    public func timesTransposed(_ b: Matrix) -> Matrix {
        precondition(columns == b.columns, "timesTransposed: \(rows)×\(columns) times \(b.rows)×\(b.columns)ᵀ")
        let c = LAPACK.gemm(transA: false, transB: true, m: rows, n: b.rows, k: columns,
                            a: elements, lda: rows, b: b.elements, ldb: b.rows)
        return Matrix(rows: rows, columns: b.rows, columnMajor: c)
    }

    /// Matrix–vector product `A x` for a plain array `x` of length `columns`.
    public static func * (a: Matrix, x: [Double]) -> [Double] {
        (a * Matrix(columnVector: x)).elements
    }

    /// Scalar multiple.
    public static func * (s: Double, a: Matrix) -> Matrix {
        Matrix(rows: a.rows, columns: a.columns, columnMajor: a.elements.map { s * $0 })
    }

    /// Scalar multiple.
    public static func * (a: Matrix, s: Double) -> Matrix { s * a }
}
