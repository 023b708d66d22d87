/// Why a factorisation or solve failed. Thrown by `Matrix`'s LAPACK-backed methods.
public enum LinearAlgebraError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Cholesky found a leading minor that is not positive definite (dpotrf/dposv `info > 0`).
    case notPositiveDefinite
    /// An exactly singular matrix: a zero pivot in LU (dgesv) or a zero diagonal of R (dgels).
    case singular
    /// An iterative algorithm (SVD, symmetric eigensolver) did not converge.
    case noConvergence
    /// Operand shapes do not fit the operation (e.g. `A.solve(b)` with `b.rows != A.rows`).
    case dimensionMismatch
    /// Any other LAPACK failure: the routine's name and its `info` code (negative: bad argument,
    /// which for the LAPACKE layer includes NaN in the input; -1010: out of memory).
    case lapack(routine: String, info: Int)

    public var description: String {
        switch self {
        case .notPositiveDefinite: return "matrix is not positive definite"
        case .singular: return "matrix is singular"
        case .noConvergence: return "algorithm did not converge"
        case .dimensionMismatch: return "matrix dimensions do not match"
        case let .lapack(routine, info): return "LAPACK \(routine) failed with info = \(info)"
        }
    }
}
