/// The eigen-decomposition `A = V diag(λ) Vᵀ` of a real symmetric matrix.
public struct SymmetricEigenDecomposition: Sendable {
    /// Eigenvalues, ascending.
    public let eigenvalues: [Double]
    /// Orthonormal eigenvectors as columns, in the order of `eigenvalues`.
    public let eigenvectors: Matrix
}

extension Matrix {
    /// Eigenvalues (ascending) and eigenvectors of a symmetric matrix (dsyevd). Only the lower
    /// triangle is read; symmetrise first (`symmetrized()`) if it may be slightly asymmetric.
    /// - Throws: `dimensionMismatch` if not square, `noConvergence`.
    public func symmetricEigen() throws -> SymmetricEigenDecomposition {
        guard isSquare else { throw LinearAlgebraError.dimensionMismatch }
        var a = elements
        let w = try LAPACK.syevd(n: rows, a: &a)
        return SymmetricEigenDecomposition(eigenvalues: w, eigenvectors: Matrix(rows: rows, columns: columns, columnMajor: a))
    }
}
