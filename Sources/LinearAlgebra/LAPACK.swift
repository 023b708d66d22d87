import CLAPACKE

/// The one funnel to LAPACKE and CBLAS: every call into the C libraries is made here, and every
/// `info` code is turned into a thrown `LinearAlgebraError`. No other file imports `CLAPACKE`.
///
/// All matrices are column-major with leading dimension equal to their row count (at least 1, as
/// LAPACK requires). Buffers are passed `inout` and overwritten as the routine documents.
enum LAPACK {
    private static let colMajor = Int32(LAPACK_COL_MAJOR)

    private static func char(_ c: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: c)) }
    private static func int(_ v: Int) -> wt_lapack_int { wt_lapack_int(v) }
    /// Leading dimension: LAPACK requires ≥ 1 even for empty matrices.
    private static func ld(_ rows: Int) -> wt_lapack_int { wt_lapack_int(Swift.max(1, rows)) }

    /// Throws for `info < 0` (bad argument / NaN input / out of memory) and maps `info > 0` through `positive`.
    private static func check(_ routine: String, _ info: wt_lapack_int, positive: LinearAlgebraError) throws {
        if info < 0 { throw LinearAlgebraError.lapack(routine: routine, info: Int(info)) }
        if info > 0 { throw positive }
    }

    // MARK: BLAS

    /// `C = op(A) op(B)` with `op` = transpose when the flag is set (cblas_dgemm, α = 1, β = 0).
    /// `m × n` result; `k` is the inner dimension.
    static func gemm(transA: Bool, transB: Bool, m: Int, n: Int, k: Int,
                     a: [Double], lda: Int, b: [Double], ldb: Int) -> [Double] {
        var c = [Double](repeating: 0, count: m * n)
        guard m > 0, n > 0, k > 0 else { return c }
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                c.withUnsafeMutableBufferPointer { pc in
                    cblas_dgemm(CblasColMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
                                Int32(m), Int32(n), Int32(k), 1.0, pa.baseAddress, Int32(Swift.max(1, lda)),
                                pb.baseAddress, Int32(Swift.max(1, ldb)), 0.0, pc.baseAddress, Int32(Swift.max(1, m)))
                }
            }
        }
        return c
    }

    // MARK: Cholesky

    /// dpotrf, lower triangle: on return the lower triangle of `a` holds L (upper triangle untouched).
    static func potrf(n: Int, a: inout [Double]) throws {
        let info = LAPACKE_dpotrf(colMajor, char("L"), int(n), &a, ld(n))
        try check("dpotrf", info, positive: .notPositiveDefinite)
    }

    /// dpotrs with the lower Cholesky factor in `l`: overwrites `b` (n × nrhs) with the solution.
    static func potrs(n: Int, nrhs: Int, l: [Double], b: inout [Double]) throws {
        let info = LAPACKE_dpotrs(colMajor, char("L"), int(n), int(nrhs), l, ld(n), &b, ld(n))
        try check("dpotrs", info, positive: .notPositiveDefinite)
    }

    /// dposv (lower): solves A X = B for symmetric positive-definite A; `b` becomes X.
    static func posv(n: Int, nrhs: Int, a: inout [Double], b: inout [Double]) throws {
        let info = LAPACKE_dposv(colMajor, char("L"), int(n), int(nrhs), &a, ld(n), &b, ld(n))
        try check("dposv", info, positive: .notPositiveDefinite)
    }

    /// dpotri (lower): from the lower Cholesky factor in `a`, the lower triangle of A⁻¹.
    static func potri(n: Int, a: inout [Double]) throws {
        let info = LAPACKE_dpotri(colMajor, char("L"), int(n), &a, ld(n))
        try check("dpotri", info, positive: .singular)
    }

    // MARK: QR

    /// dgeqrf: Householder QR of the m × n `a` in place; returns τ (length min(m, n)).
    static func geqrf(m: Int, n: Int, a: inout [Double]) throws -> [Double] {
        var tau = [Double](repeating: 0, count: Swift.max(1, Swift.min(m, n)))
        let info = LAPACKE_dgeqrf(colMajor, int(m), int(n), &a, ld(m), &tau)
        try check("dgeqrf", info, positive: .lapack(routine: "dgeqrf", info: Int(info)))
        return tau
    }

    /// dormqr (left side): `c` (m × n) ← op(Q) c, with Q from `k` reflectors stored in `a` (m × k used, lda = m).
    static func ormqr(transpose: Bool, m: Int, n: Int, k: Int, a: [Double], tau: [Double], c: inout [Double]) throws {
        let info = LAPACKE_dormqr(colMajor, char("L"), char(transpose ? "T" : "N"), int(m), int(n), int(k),
                                  a, ld(m), tau, &c, ld(m))
        try check("dormqr", info, positive: .lapack(routine: "dormqr", info: Int(info)))
    }

    /// dorgqr: overwrites the m × n `a` (first k columns holding reflectors) with the first n columns of Q.
    static func orgqr(m: Int, n: Int, k: Int, a: inout [Double], tau: [Double]) throws {
        let info = LAPACKE_dorgqr(colMajor, int(m), int(n), int(k), &a, ld(m), tau)
        try check("dorgqr", info, positive: .lapack(routine: "dorgqr", info: Int(info)))
    }

    // MARK: SVD

    /// Thin (`full == false`: U m × k, Vᵀ k × n, k = min(m, n)) or full (U m × m, Vᵀ n × n) SVD of `a`
    /// (destroyed). Uses dgesdd, and falls back to dgesvd if dgesdd does not converge.
    static func gesdd(m: Int, n: Int, a: inout [Double], full: Bool) throws -> (u: [Double], s: [Double], vt: [Double]) {
        let k = Swift.min(m, n)
        let uCols = full ? m : k, vtRows = full ? n : k
        var s = [Double](repeating: 0, count: Swift.max(1, k))
        var u = [Double](repeating: 0, count: Swift.max(1, m * uCols))
        var vt = [Double](repeating: 0, count: Swift.max(1, vtRows * n))
        let job = char(full ? "A" : "S")
        let backup = a
        let info = LAPACKE_dgesdd(colMajor, job, int(m), int(n), &a, ld(m), &s, &u, ld(m), &vt, ld(vtRows))
        if info < 0 { throw LinearAlgebraError.lapack(routine: "dgesdd", info: Int(info)) }
        if info > 0 {
            // dgesdd's divide and conquer can fail where the QR iteration of dgesvd succeeds.
            a = backup
            var superb = [Double](repeating: 0, count: Swift.max(1, k - 1))
            let info2 = LAPACKE_dgesvd(colMajor, job, job, int(m), int(n), &a, ld(m), &s, &u, ld(m), &vt, ld(vtRows), &superb)
            try check("dgesvd", info2, positive: .noConvergence)
        }
        return (Array(u.prefix(m * uCols)), Array(s.prefix(k)), Array(vt.prefix(vtRows * n)))
    }

    // MARK: Symmetric eigenproblem

    /// dsyevd (vectors, lower triangle read): eigenvalues ascending; `a` becomes the eigenvectors (columns).
    static func syevd(n: Int, a: inout [Double]) throws -> [Double] {
        var w = [Double](repeating: 0, count: Swift.max(1, n))
        let info = LAPACKE_dsyevd(colMajor, char("V"), char("L"), int(n), &a, ld(n), &w)
        try check("dsyevd", info, positive: .noConvergence)
        return Array(w.prefix(n))
    }

    // MARK: Linear systems

    /// dgels (no transpose): least-squares (m ≥ n) or minimum-norm (m < n) solution of A X = B.
    /// `b` has `max(m, n)` rows (leading dimension) and nrhs columns; its first n rows become X.
    static func gels(m: Int, n: Int, nrhs: Int, a: inout [Double], b: inout [Double]) throws {
        let info = LAPACKE_dgels(colMajor, char("N"), int(m), int(n), int(nrhs), &a, ld(m), &b, ld(Swift.max(m, n)))
        try check("dgels", info, positive: .singular)
    }

    /// dgesv: LU with partial pivoting; `b` (n × nrhs) becomes the solution of A X = B.
    static func gesv(n: Int, nrhs: Int, a: inout [Double], b: inout [Double]) throws {
        var ipiv = [wt_lapack_int](repeating: 0, count: Swift.max(1, n))
        let info = LAPACKE_dgesv(colMajor, int(n), int(nrhs), &a, ld(n), &ipiv, &b, ld(n))
        try check("dgesv", info, positive: .singular)
    }
}
