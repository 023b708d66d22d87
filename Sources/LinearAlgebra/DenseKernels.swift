/// Hand-written dense kernels for the estimator's hot loops: a Cholesky factorisation and its triangular
/// solve, Givens rotations and a block-skipping Householder triangularisation. They work in place on raw
/// buffers (no `Matrix` allocation per call) and are `@inlinable` so that callers in other modules get them
/// specialised and inlined. `Matrix`'s factorisations (`cholesky()`, `qr()`, `symmetricEigen()`) call LAPACK
/// and are the ones to use elsewhere.
public enum DenseKernels {
    /// Cholesky factorisation `A = L Lᵀ` in place, column-major `n × n` (element (i, j) at `a[i + j·n]`).
    /// Only the lower triangle is read and overwritten by `L`; the strict upper triangle is left as it was.
    /// Right-looking (each finished column updates the trailing lower triangle, contiguous in memory).
    /// Returns false (the buffer partly overwritten) when `A` is not positive definite or not finite.
    @inlinable
    public static func choleskyLower(_ a: UnsafeMutablePointer<Double>, n: Int) -> Bool {
        for j in 0..<n {
            let aj = a + j * n
            let d = aj[j]
            guard d > 0, d.isFinite else { return false }
            let l = d.squareRoot()
            aj[j] = l
            for k in (j + 1)..<max(j + 1, n) { aj[k] /= l }
            for q in (j + 1)..<max(j + 1, n) {
                let aq = a + q * n
                let lqj = aj[q]
                for k in q..<n { aq[k] -= aj[k] * lqj }
            }
        }
        return true
    }

    /// Forward substitution `L y = b` in place (`b` becomes `y`), with `L` the lower triangle of the
    /// column-major `n × n` buffer `l` (as `choleskyLower` leaves it).
    @inlinable
    public static func forwardSubstitute(_ l: UnsafePointer<Double>, n: Int, _ b: UnsafeMutablePointer<Double>) {
        for k in 0..<n {
            var t = b[k]
            for q in 0..<k { t -= l[k + q * n] * b[q] }
            b[k] = t / l[k + k * n]
        }
    }

    /// `rᵀ A⁻¹ r = |L⁻¹ r|²` for a symmetric positive-definite `A` (column-major `n × n`, lower triangle
    /// read, overwritten by its Cholesky factor); nil if `A` is not positive definite.
    @inlinable
    public static func choleskyQuadraticForm(_ a: inout [Double], _ r: [Double], n: Int) -> Double? {
        precondition(a.count == n * n && r.count == n)
        var y = r
        let ok = a.withUnsafeMutableBufferPointer { choleskyLower($0.baseAddress!, n: n) }
        guard ok else { return nil }
        a.withUnsafeBufferPointer { l in y.withUnsafeMutableBufferPointer { forwardSubstitute(l.baseAddress!, n: n, $0.baseAddress!) } }
        var q = 0.0
        for v in y { q += v * v }
        return q
    }

    /// Householder QR of the row-major `rows × columns` matrix `a` in place: on return its upper
    /// triangle (first `min(rows, columns)` rows) is `R` of `a = Q R`, and each column holds `Qᵀ` times the
    /// original column (so a right-hand side appended as the last column becomes `Qᵀ r`). Below-diagonal
    /// entries are zeroed. Row-major so that applying a reflector runs along contiguous rows.
    ///
    /// `firstColumn[i]` is the first column where row `i` may be non-zero, non-decreasing in `i`: the
    /// reflector of column `j` then only spans the rows whose first column is at most `j`, which skips the
    /// zero blocks of a stacked, block-sparse measurement Jacobian (same `R` as a dense factorisation, up to
    /// row signs).
    @inlinable
    public static func householderTriangularize(_ a: inout [Double], rows m: Int, columns w: Int, firstColumn: [Int]) {
        precondition(a.count == m * w && firstColumn.count == m)
        var f = [Double](repeating: 0, count: w)
        a.withUnsafeMutableBufferPointer { buffer in
            f.withUnsafeMutableBufferPointer { fb in
                let base = buffer.baseAddress!, fp = fb.baseAddress!
                var end = 0 // rows [0, end) have firstColumn ≤ j
                for j in 0..<min(m, w) {
                    while end < m && firstColumn[end] <= j { end += 1 }
                    let start = j
                    guard end > start + 1 else { continue } // nothing below the diagonal
                    var norm2 = 0.0
                    for i in start..<end { let x = base[i * w + j]; norm2 += x * x }
                    guard norm2 > 0 else { continue }
                    let x0 = base[start * w + j]
                    let alpha = x0 > 0 ? -norm2.squareRoot() : norm2.squareRoot()
                    // v = x − α e₀ (held in column j), vᵀv = 2(‖x‖² − α x₀).
                    base[start * w + j] = x0 - alpha
                    let scale = 1 / (norm2 - alpha * x0)
                    let q0 = j + 1, count = w - q0
                    guard count > 0 else { base[start * w + j] = alpha; continue }
                    // f = vᵀ A[rows, q0...] · 2/(vᵀv), then A[rows, q0...] −= v fᵀ.
                    for q in 0..<count { fp[q] = 0 }
                    for i in start..<end {
                        let vi = base[i * w + j]
                        if vi == 0 { continue }
                        let row = base + i * w + q0
                        for q in 0..<count { fp[q] += vi * row[q] }
                    }
                    for q in 0..<count { fp[q] *= scale }
                    for i in start..<end {
                        let vi = base[i * w + j]
                        if vi == 0 { continue }
                        let row = base + i * w + q0
                        for q in 0..<count { row[q] -= vi * fp[q] }
                    }
                    base[start * w + j] = alpha
                    for i in (start + 1)..<end { base[i * w + j] = 0 }
                }
            }
        }
    }
}

/// A Givens rotation `G = [c s; −s c]` that maps `(a, b)` to `(√(a² + b²), 0)`.
public struct GivensRotation: Sendable {
    /// Cosine and sine of the rotation.
    public let c: Double, s: Double

    /// The rotation zeroing `b` against `a`; nil when `b` is already zero (no rotation needed).
    @inlinable
    public init?(zeroing b: Double, against a: Double) {
        guard b != 0 else { return nil }
        let h = (a * a + b * b).squareRoot()
        c = a / h; s = b / h
    }

    /// Applies `G` to the pair `(x, y)`: `(c x + s y, −s x + c y)`.
    @inlinable
    public func apply(_ x: inout Double, _ y: inout Double) {
        let x0 = x, y0 = y
        x = c * x0 + s * y0
        y = -s * x0 + c * y0
    }

    /// Applies `G` to rows `i` and `k` of a row-major buffer with `stride` values per row, over columns `columns`.
    @inlinable
    public func applyToRows(_ a: UnsafeMutablePointer<Double>, stride: Int, _ i: Int, _ k: Int, columns: Range<Int>) {
        let ri = a + i * stride, rk = a + k * stride
        for q in columns {
            let x = ri[q], y = rk[q]
            ri[q] = c * x + s * y
            rk[q] = -s * x + c * y
        }
    }

    /// Applies `Gᵀ` from the right to columns `i` and `k` of a row-major buffer (`stride` values per row),
    /// over rows `rows`: the same rotation of the pair `(a[r, i], a[r, k])` for each row.
    @inlinable
    public func applyToColumns(_ a: UnsafeMutablePointer<Double>, stride: Int, _ i: Int, _ k: Int, rows: Range<Int>) {
        for r in rows {
            let x = a[r * stride + i], y = a[r * stride + k]
            a[r * stride + i] = c * x + s * y
            a[r * stride + k] = -s * x + c * y
        }
    }
}
