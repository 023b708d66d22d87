import Testing
import Geometry
@testable import LinearAlgebra

/// Known answers (small matrices solved by hand) and seeded random well-conditioned cases.
///
/// Tolerances: random matrices have entries in [-1, 1] and condition numbers of order 10–100; backward-stable
/// LAPACK factorisations reconstruct A to a few ×1e-15 relative, so 1e-10 catches any real bug (a wrong
/// transpose, stride or triangle gives O(1) errors) with a wide margin.
struct FactorizationTests {
    static let sizes: [(Int, Int)] = [(1, 1), (3, 3), (6, 4), (4, 6), (20, 20), (40, 15)]

    // MARK: Cholesky

    @Test func choleskyKnownAnswer() throws {
        // [4 2; 2 3] = L Lᵀ with L = [2 0; 1 √2] (by hand).
        let a = Matrix(rows: 2, columns: 2, rowMajor: [4, 2, 2, 3])
        let l = try a.cholesky()
        #expect(abs(l[0, 0] - 2) < 1e-15)
        #expect(abs(l[1, 0] - 1) < 1e-15)
        #expect(abs(l[1, 1] - 2.0.squareRoot()) < 1e-15)
        #expect(l[0, 1] == 0) // upper triangle cleared
        // [4 2; 2 3] x = [2; 1] → x = [0.5; 0] (by hand).
        let x = try a.choleskySolve(Matrix(columnVector: [2, 1]))
        #expect(abs(x[0, 0] - 0.5) < 1e-15 && abs(x[1, 0]) < 1e-15)
    }

    @Test(arguments: [1, 3, 9, 30])
    func choleskyRandomReconstructsAndSolves(n: Int) throws {
        var g = SeededRandom(seed: UInt64(100 + n))
        let a = randomSPD(n, &g)
        let l = try a.cholesky()
        #expect(relativeError(l.timesTransposed(l), a) < 1e-10)
        for j in 0..<n { for i in 0..<j { #expect(l[i, j] == 0) } }
        let b = randomMatrix(n, 3, &g)
        let x = try a.choleskySolve(b)
        #expect(relativeError(a * x, b) < 1e-10)
        let x2 = try l.choleskyFactorSolve(b)
        #expect(relativeError(x2, x) < 1e-10)
        let inv = try a.symmetricPositiveDefiniteInverse()
        #expect(inv.isSymmetric(tolerance: 0))
        #expect((a * inv - .identity(n)).frobeniusNorm < 1e-10)
    }

    @Test func choleskyOfIndefiniteThrowsNotPositiveDefinite() {
        let a = Matrix(rows: 2, columns: 2, rowMajor: [1, 2, 2, 1]) // eigenvalues 3 and -1
        #expect(throws: LinearAlgebraError.notPositiveDefinite) { try a.cholesky() }
        #expect(throws: LinearAlgebraError.notPositiveDefinite) { try a.choleskySolve(Matrix(columnVector: [1, 1])) }
        let semidefinite = Matrix(rows: 2, columns: 2, rowMajor: [1, 1, 1, 1])
        #expect(throws: LinearAlgebraError.notPositiveDefinite) { try semidefinite.cholesky() }
    }

    @Test func dimensionMismatchThrows() {
        let rect = Matrix.zeros(2, 3)
        #expect(throws: LinearAlgebraError.dimensionMismatch) { try rect.cholesky() }
        #expect(throws: LinearAlgebraError.dimensionMismatch) { try rect.solve(Matrix(columnVector: [1, 2])) }
        #expect(throws: LinearAlgebraError.dimensionMismatch) { try rect.symmetricEigen() }
        let sq = Matrix.identity(3)
        #expect(throws: LinearAlgebraError.dimensionMismatch) { try sq.solve(Matrix(columnVector: [1, 2])) }
        #expect(throws: LinearAlgebraError.dimensionMismatch) { try sq.choleskySolve(Matrix(columnVector: [1, 2])) }
        #expect(throws: LinearAlgebraError.dimensionMismatch) { try sq.leastSquares(Matrix(columnVector: [1, 2])) }
        #expect(throws: LinearAlgebraError.dimensionMismatch) { try sq.qr().applyQTransposed(to: Matrix(columnVector: [1, 2])) }
    }

    @Test func nonFiniteInputThrowsInsteadOfReturningGarbage() {
        let a = Matrix(rows: 2, columns: 2, rowMajor: [1, .nan, .nan, 1])
        #expect(throws: LinearAlgebraError.self) { try a.svd() }
        #expect(throws: LinearAlgebraError.self) { try a.cholesky() }
        #expect(throws: LinearAlgebraError.self) { try a.symmetricEigen() }
        #expect(throws: LinearAlgebraError.self) { try a.solve(Matrix(columnVector: [1, 1])) }
        #expect(throws: LinearAlgebraError.self) { try a.leastSquares(Matrix(columnVector: [1, 1])) }
        #expect(throws: LinearAlgebraError.self) { try a.qr() }
    }

    // MARK: LU solve

    @Test func solveKnownAnswer() throws {
        // x + 2y = 5, 3x + 4y = 6 → x = -4, y = 4.5 (by hand).
        let a = Matrix(rows: 2, columns: 2, rowMajor: [1, 2, 3, 4])
        let x = try a.solve(Matrix(columnVector: [5, 6]))
        #expect(abs(x[0, 0] + 4) < 1e-14 && abs(x[1, 0] - 4.5) < 1e-14)
        let inv = try a.inverse() // [-2 1; 1.5 -0.5]
        #expect(relativeError(inv, Matrix(rows: 2, columns: 2, rowMajor: [-2, 1, 1.5, -0.5])) < 1e-14)
    }

    @Test func solveSingularThrows() {
        let a = Matrix(rows: 2, columns: 2, rowMajor: [1, 2, 2, 4])
        #expect(throws: LinearAlgebraError.singular) { try a.solve(Matrix(columnVector: [1, 1])) }
    }

    @Test(arguments: [1, 5, 25])
    func solveRandomResidual(n: Int) throws {
        var g = SeededRandom(seed: UInt64(200 + n))
        let a = randomMatrix(n, n, &g) + Double(n) * Matrix.identity(n) // diagonally dominant: well conditioned
        let b = randomMatrix(n, 2, &g)
        let x = try a.solve(b)
        #expect(relativeError(a * x, b) < 1e-10)
    }

    // MARK: QR

    @Test func qrKnownAnswer() throws {
        // [3 1; 4 2]: first column has norm 5; R = [±5 ±2.2; 0 ±0.4] (by hand: q1 = [3,4]/5, r12 = q1·[1,2] = 2.2,
        // residual [1,2] − 2.2 q1 = [-0.32, 0.24], norm 0.4).
        let a = Matrix(rows: 2, columns: 2, rowMajor: [3, 1, 4, 2])
        let qr = try a.qr()
        #expect(abs(abs(qr.r[0, 0]) - 5) < 1e-14)
        #expect(abs(abs(qr.r[0, 1]) - 2.2) < 1e-14)
        #expect(abs(abs(qr.r[1, 1]) - 0.4) < 1e-14)
        #expect(qr.r[1, 0] == 0)
    }

    @Test(arguments: sizes.map { [$0.0, $0.1] })
    func qrRandomReconstructsAndIsOrthogonal(shape: [Int]) throws {
        let (m, n) = (shape[0], shape[1]), k = min(m, n)
        var g = SeededRandom(seed: UInt64(300 + 7 * m + n))
        let a = randomMatrix(m, n, &g)
        let qr = try a.qr()
        #expect(qr.r.rows == k && qr.r.columns == n)
        for j in 0..<n { for i in (j + 1)..<max(k, j + 1) where i < k { #expect(qr.r[i, j] == 0) } }
        let qThin = try qr.formQ(thin: true)
        #expect(qThin.rows == m && qThin.columns == k)
        #expect(orthonormalityError(qThin) < 1e-12)
        #expect(relativeError(qThin * qr.r, a) < 1e-10)
        let qFull = try qr.formQ(thin: false)
        #expect(qFull.rows == m && qFull.columns == m)
        #expect(orthonormalityError(qFull) < 1e-12)
        #expect(relativeError(qFull.block(row: 0, column: 0, rows: m, columns: k), qThin) < 1e-12)
        // Qᵀ A = [R; 0] and Q (Qᵀ B) = B.
        let qtA = try qr.applyQTransposed(to: a)
        #expect(relativeError(qtA.block(row: 0, column: 0, rows: k, columns: n), qr.r) < 1e-10)
        if m > k { #expect(qtA.block(row: k, column: 0, rows: m - k, columns: n).frobeniusNorm < 1e-12) }
        let b = randomMatrix(m, 2, &g)
        #expect(relativeError(try qr.applyQ(to: qr.applyQTransposed(to: b)), b) < 1e-12)
        #expect(relativeError(try qr.applyQTransposed(to: b), qFull.transposedTimes(b)) < 1e-12)
    }

    @Test func qrFullGivesLeftNullSpace() throws {
        // MSCKF-style use: columns n..<m of the full Q are orthogonal to the columns of A.
        var g = SeededRandom(seed: 42)
        let a = randomMatrix(10, 3, &g)
        let q = try a.qr().formQ(thin: false)
        let nullSpace = q.block(row: 0, column: 3, rows: 10, columns: 7)
        #expect(nullSpace.transposedTimes(a).frobeniusNorm < 1e-12)
    }

    // MARK: SVD

    @Test func svdKnownAnswer() throws {
        // [3 0; 4 5] has singular values √45 and √5 (AᵀA = [25 20; 20 25], eigenvalues 45 and 5; by hand).
        let a = Matrix(rows: 2, columns: 2, rowMajor: [3, 0, 4, 5])
        let s = try a.svd().singularValues
        #expect(abs(s[0] - 45.0.squareRoot()) < 1e-13)
        #expect(abs(s[1] - 5.0.squareRoot()) < 1e-13)
    }

    @Test(arguments: sizes.map { [$0.0, $0.1] })
    func svdRandomReconstructs(shape: [Int]) throws {
        let (m, n) = (shape[0], shape[1]), k = min(m, n)
        var g = SeededRandom(seed: UInt64(400 + 7 * m + n))
        let a = randomMatrix(m, n, &g)
        let thin = try a.svd()
        #expect(thin.u.rows == m && thin.u.columns == k && thin.vt.rows == k && thin.vt.columns == n)
        #expect(thin.singularValues.count == k)
        #expect(zip(thin.singularValues, thin.singularValues.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(thin.singularValues.allSatisfy { $0 >= 0 })
        #expect(orthonormalityError(thin.u) < 1e-12)
        #expect(orthonormalityError(thin.vt.transposed) < 1e-12)
        #expect(relativeError(thin.u * Matrix(diagonal: thin.singularValues) * thin.vt, a) < 1e-10)
        let full = try a.svd(full: true)
        #expect(full.u.rows == m && full.u.columns == m && full.vt.rows == n && full.vt.columns == n)
        #expect(orthonormalityError(full.u) < 1e-12)
        #expect(orthonormalityError(full.vt) < 1e-12)
        #expect(relativeError(full.u * rectangularDiagonal(m, n, full.singularValues) * full.vt, a) < 1e-10)
    }

    @Test func svdRankOfRankDeficientMatrix() throws {
        var g = SeededRandom(seed: 7)
        let a = randomMatrix(6, 2, &g).timesTransposed(randomMatrix(5, 2, &g)) // 6×5, rank 2
        let svd = try a.svd()
        #expect(svd.rank() == 2)
        #expect(svd.singularValues[2] < 1e-14 * svd.singularValues[0] * 10)
    }

    // MARK: Symmetric eigen

    @Test func symmetricEigenKnownAnswer() throws {
        // [2 1; 1 2]: eigenvalues 1, 3 with vectors [1,-1]/√2, [1,1]/√2 (by hand).
        let a = Matrix(rows: 2, columns: 2, rowMajor: [2, 1, 1, 2])
        let e = try a.symmetricEigen()
        #expect(abs(e.eigenvalues[0] - 1) < 1e-14 && abs(e.eigenvalues[1] - 3) < 1e-14)
        let v1 = e.eigenvectors.column(1)
        #expect(abs(abs(v1[0]) - 0.5.squareRoot()) < 1e-14 && abs(v1[0] - v1[1]) < 1e-14)
    }

    @Test(arguments: [1, 4, 12, 40])
    func symmetricEigenRandomReconstructs(n: Int) throws {
        var g = SeededRandom(seed: UInt64(500 + n))
        let a = randomMatrix(n, n, &g).symmetrized()
        let e = try a.symmetricEigen()
        #expect(zip(e.eigenvalues, e.eigenvalues.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(orthonormalityError(e.eigenvectors) < 1e-12)
        let v = e.eigenvectors
        #expect(relativeError(v * Matrix(diagonal: e.eigenvalues) * v.transposed, a) < 1e-10)
    }

    // MARK: Least squares

    @Test func leastSquaresKnownAnswer() throws {
        // Line fit y = c0 + c1 t through (0,1), (1,2), (2,2): normal equations [3 3; 3 5] c = [5; 6]
        // → c = [7/6, 1/2] (by hand).
        let a = Matrix(rows: 3, columns: 2, rowMajor: [1, 0, 1, 1, 1, 2])
        let c = try a.leastSquares(Matrix(columnVector: [1, 2, 2]))
        #expect(c.rows == 2 && c.columns == 1)
        #expect(abs(c[0, 0] - 7.0 / 6.0) < 1e-14 && abs(c[1, 0] - 0.5) < 1e-14)
    }

    @Test(arguments: [[8, 3], [30, 10], [5, 5]])
    func leastSquaresMatchesNormalEquations(shape: [Int]) throws {
        let (m, n) = (shape[0], shape[1])
        var g = SeededRandom(seed: UInt64(600 + m + n))
        let a = randomMatrix(m, n, &g), b = randomMatrix(m, 2, &g)
        let x = try a.leastSquares(b)
        let xNormal = try a.transposedTimes(a).choleskySolve(a.transposedTimes(b))
        // Normal equations square the condition number (~1e2–1e3 here): agreement to 1e-10 is still ample.
        #expect(relativeError(x, xNormal) < 1e-10)
        // Optimality: the residual is orthogonal to the column space.
        #expect(a.transposedTimes(a * x - b).frobeniusNorm < 1e-10)
    }

    @Test func leastSquaresUnderdeterminedGivesMinimumNorm() throws {
        // x + y = 2 → minimum-norm solution (1, 1) (by hand).
        let a = Matrix(rows: 1, columns: 2, rowMajor: [1, 1])
        let x = try a.leastSquares(Matrix(columnVector: [2]))
        #expect(abs(x[0, 0] - 1) < 1e-14 && abs(x[1, 0] - 1) < 1e-14)
    }

    @Test func leastSquaresRankDeficientThrowsSingular() {
        let a = Matrix(rows: 3, columns: 2, rowMajor: [1, 2, 2, 4, 3, 6])
        #expect(throws: LinearAlgebraError.singular) { try a.leastSquares(Matrix(columnVector: [1, 2, 3])) }
    }
}
