import Geometry
import LinearAlgebra

/// An `r × c` matrix with entries uniform in [-1, 1].
func randomMatrix(_ r: Int, _ c: Int, _ g: inout SeededRandom) -> Matrix {
    Matrix(rows: r, columns: c, columnMajor: (0..<(r * c)).map { _ in Double.random(in: -1...1, using: &g) })
}

/// A symmetric positive-definite `n × n` matrix `B Bᵀ + n I` (condition number of order a few).
func randomSPD(_ n: Int, _ g: inout SeededRandom) -> Matrix {
    let b = randomMatrix(n, n, &g)
    return b.timesTransposed(b) + Double(n) * Matrix.identity(n)
}

/// `‖A − B‖_F / max(‖B‖_F, tiny)`.
func relativeError(_ a: Matrix, _ b: Matrix) -> Double {
    (a - b).frobeniusNorm / max(b.frobeniusNorm, 1e-300)
}

/// `‖QᵀQ − I‖_F` for a matrix with orthonormal columns.
func orthonormalityError(_ q: Matrix) -> Double {
    (q.transposedTimes(q) - .identity(q.columns)).frobeniusNorm
}

/// A diagonal matrix of shape r × c with `values` on the diagonal.
func rectangularDiagonal(_ r: Int, _ c: Int, _ values: [Double]) -> Matrix {
    var m = Matrix.zeros(r, c)
    for (i, v) in values.enumerated() { m[i, i] = v }
    return m
}
