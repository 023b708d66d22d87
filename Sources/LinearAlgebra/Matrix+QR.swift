/// A Householder QR decomposition `A = Q R` of an m × n matrix (dgeqrf), kept in LAPACK's compact form.
///
/// `Q` is m × m orthogonal and never formed unless asked (`formQ(thin:)`); apply it with
/// `applyQTransposed(to:)` / `applyQ(to:)`. The left null space of A (for full-column-rank A, m > n)
/// is spanned by columns n..<m of the full Q.
public struct QRDecomposition: Sendable {
    /// Rows and columns of the factored matrix A.
    public let rows: Int, columns: Int
    /// R: upper triangular (upper trapezoidal if m < n), `min(m, n) × n`.
    public let r: Matrix
    /// dgeqrf's output: R on and above the diagonal, Householder vectors below.
    let compact: [Double]
    /// Householder scalars τ.
    let tau: [Double]

    init(rows: Int, columns: Int, compact: [Double], tau: [Double]) {
        self.rows = rows; self.columns = columns; self.compact = compact; self.tau = tau
        let k = Swift.min(rows, columns)
        var r = Matrix(rows: k, columns: columns)
        for j in 0..<columns { for i in 0..<Swift.min(j + 1, k) { r[i, j] = compact[i + j * rows] } }
        self.r = r
    }

    private var reflectorCount: Int { Swift.min(rows, columns) }

    /// `Qᵀ B` for B with `rows` rows (dormqr), without forming Q.
    /// - Throws: `dimensionMismatch` if `b.rows != rows`.
    public func applyQTransposed(to b: Matrix) throws -> Matrix {
        guard b.rows == rows else { throw LinearAlgebraError.dimensionMismatch }
        var c = b.elements
        try LAPACK.ormqr(transpose: true, m: rows, n: b.columns, k: reflectorCount, a: compact, tau: tau, c: &c)
        return Matrix(rows: b.rows, columns: b.columns, columnMajor: c)
    }

    /// `Q B` for B with `rows` rows (dormqr), without forming Q.
    /// - Throws: `dimensionMismatch` if `b.rows != rows`.
    public func applyQ(to b: Matrix) throws -> Matrix {
        guard b.rows == rows else { throw LinearAlgebraError.dimensionMismatch }
        var c = b.elements
        try LAPACK.ormqr(transpose: false, m: rows, n: b.columns, k: reflectorCount, a: compact, tau: tau, c: &c)
        return Matrix(rows: b.rows, columns: b.columns, columnMajor: c)
    }

    /// Q explicitly (dorgqr): thin is `m × min(m, n)` (so `A = Q_thin R`), full is `m × m`.
    public func formQ(thin: Bool) throws -> Matrix {
        let k = reflectorCount
        let qCols = thin ? k : rows
        var a = [Double](repeating: 0, count: rows * qCols)
        // The first min(k, qCols) columns carry the reflectors; any extra columns start as zero.
        let copied = Swift.min(columns, qCols)
        a.replaceSubrange(0..<(rows * copied), with: compact[0..<(rows * copied)])
        try LAPACK.orgqr(m: rows, n: qCols, k: k, a: &a, tau: tau)
        return Matrix(rows: rows, columns: qCols, columnMajor: a)
    }
}

extension Matrix {
    /// The Householder QR decomposition `A = Q R` (dgeqrf). Works for any shape.
    public func qr() throws -> QRDecomposition {
        var a = elements
        let tau = try LAPACK.geqrf(m: rows, n: columns, a: &a)
        return QRDecomposition(rows: rows, columns: columns, compact: a, tau: tau)
    }
}
