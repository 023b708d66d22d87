import Geometry
import LinearAlgebra
import Testing
@testable import Estimation

/// `VisualGyroBias`'s closed-form smallest eigenvalue against LAPACK's symmetric eigensolver.
@Suite struct VisualGyroBiasTests {
    @Test func smallestEigenvalueMatchesLAPACK() throws {
        var rng = SeededRandom(seed: 5)
        for trial in 0..<200 {
            // Σ u uᵀ of a few random vectors, some nearly coplanar (a near-zero eigenvalue, the case the cost meets).
            var M = Mat3.zero
            for _ in 0..<(trial % 4 + 2) {
                var u = Vec3(rng.gaussian(), rng.gaussian(), rng.gaussian())
                if trial % 2 == 0 { u.z *= 1e-4 }
                M = M + Mat3.outer(u, u)
            }
            let A = Matrix(rows: 3, columns: 3, rowMajor: [M[0, 0], M[0, 1], M[0, 2], M[1, 0], M[1, 1], M[1, 2], M[2, 0], M[2, 1], M[2, 2]])
            let lapack = try #require(try A.symmetricEigen().eigenvalues.first)
            let closed = VisualGyroBias.smallestEigenvalue(M)
            #expect(abs(closed - lapack) <= 1e-9 * max(1, M[0, 0] + M[1, 1] + M[2, 2]), "trial \(trial): \(closed) vs \(lapack)")
        }
        #expect(VisualGyroBias.smallestEigenvalue(Mat3(diagonal: Vec3(3, 1, 2))) == 1)
    }
}
