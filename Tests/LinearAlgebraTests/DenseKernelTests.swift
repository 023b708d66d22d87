import Foundation
import Geometry
import Testing
@testable import LinearAlgebra

/// The hand-written kernels (`SymmetricEigen3`, `DenseKernels`, `GivensRotation`) against known answers and
/// LAPACK's factorisations.
@Suite struct DenseKernelTests {
    @Test func jacobiEigenRecoversAKnownDecomposition() {
        let R = SO3(angle: 0.7, axis: Vec3(1, 2, 3).normalized).matrix
        let m = R * Mat3(diagonal: Vec3(3, 1, 0.25)) * R.transposed
        let e = SymmetricEigen3(m)
        #expect(abs(e.values.x - 0.25) < 1e-12 && abs(e.values.y - 1) < 1e-12 && abs(e.values.z - 3) < 1e-12)
        // Eigenvector of 0.25 is R's third column (up to sign).
        #expect(abs(abs(e.vectors[0].dot(R.column(2))) - 1) < 1e-10)
        #expect(abs(abs(e.vectors[2].dot(R.column(0))) - 1) < 1e-10)
    }

    /// The closed-form largest eigenvalue agrees with Jacobi and LAPACK (dsyevd), also for a diagonal matrix
    /// and a repeated eigenvalue.
    @Test func closedFormLargestEigenvalueMatchesJacobiAndLapack() throws {
        var rng = SeededRandom(seed: 3)
        var cases: [Mat3] = [Mat3(diagonal: Vec3(2, 5, 1)), Mat3(diagonal: Vec3(4, 4, 1))]
        for _ in 0..<20 {
            let R = SO3.exp(Vec3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)) * 2).matrix
            cases.append(R * Mat3(diagonal: Vec3(abs(rng.uniform(-1, 1)), abs(rng.uniform(-1, 1)), 1e-3 * abs(rng.uniform(-1, 1)))) * R.transposed)
        }
        for m in cases {
            let closed = SymmetricEigen3.largestEigenvalue(m)
            let lapack = try Matrix(rows: 3, columns: 3, rowMajor: (0..<9).map { m[$0 / 3, $0 % 3] }).symmetricEigen()
            #expect(abs(closed - SymmetricEigen3(m).values.z) <= 1e-12 * max(1, closed))
            #expect(abs(closed - lapack.eigenvalues[2]) <= 1e-12 * max(1, closed))
        }
    }

    /// `choleskyLower` gives LAPACK's factor; the quadratic form equals `rᵀ A⁻¹ r` from LAPACK's solve; a
    /// matrix that is not positive definite is refused.
    @Test func choleskyMatchesLapack() throws {
        var rng = SeededRandom(seed: 11)
        let n = 9
        var B = Matrix(rows: n, columns: n)
        for i in 0..<(n * n) { B.elements[i] = rng.uniform(-1, 1) }
        var A = B.timesTransposed(B)
        for i in 0..<n { A[i, i] += 0.1 }
        var a = A.elements
        #expect(a.withUnsafeMutableBufferPointer { DenseKernels.choleskyLower($0.baseAddress!, n: n) })
        let L = try A.cholesky()
        for j in 0..<n { for i in j..<n { #expect(abs(a[i + j * n] - L[i, j]) <= 1e-12) } }
        let r = (0..<n).map { _ in rng.uniform(-1, 1) }
        var b = A.elements
        let q = try #require(DenseKernels.choleskyQuadraticForm(&b, r, n: n))
        let x = try A.choleskySolve(Matrix(columnVector: r)).elements
        #expect(abs(q - zip(r, x).map(*).reduce(0, +)) <= 1e-10 * q)
        var indefinite = [1.0, 2, 2, 1] // eigenvalues 3 and −1
        #expect(DenseKernels.choleskyQuadraticForm(&indefinite, [1, 1], n: 2) == nil)
    }

    /// A Givens rotation zeroes its target, keeps the pair's norm, and is skipped when there is nothing to zero.
    @Test func givensRotationZeroesItsTarget() {
        let g = try! #require(GivensRotation(zeroing: 4, against: 3))
        var x = 3.0, y = 4.0
        g.apply(&x, &y)
        #expect(abs(x - 5) < 1e-15 && abs(y) < 1e-15)
        #expect(GivensRotation(zeroing: 0, against: 3) == nil)
        // On rows and columns of a buffer: the same rotation as on the pair.
        var m: [Double] = [3, 1, 4, 2] // row-major 2 × 2
        m.withUnsafeMutableBufferPointer { g.applyToRows($0.baseAddress!, stride: 2, 0, 1, columns: 0..<2) }
        #expect(abs(m[0] - 5) < 1e-15 && abs(m[2]) < 1e-15)
        var t: [Double] = [3, 4, 1, 2] // columns 0 and 1 hold the pairs (3, 4) and (1, 2)
        t.withUnsafeMutableBufferPointer { g.applyToColumns($0.baseAddress!, stride: 2, 0, 1, rows: 0..<2) }
        #expect(abs(t[0] - 5) < 1e-15 && abs(t[1]) < 1e-15)
        #expect(abs(t[2] - (0.6 * 1 + 0.8 * 2)) < 1e-15 && abs(t[3] - (-0.8 * 1 + 0.6 * 2)) < 1e-15)
    }

    /// The block-skipping Householder triangularisation of `[H | r]` gives `R`, `Qᵀr` with `RᵀR = HᵀH` and
    /// `Rᵀ (Qᵀr) = Hᵀ r` (what the EKF update needs), and `R` upper triangular.
    @Test func householderKeepsTheNormalEquations() {
        var rng = SeededRandom(seed: 7)
        let c = 18, w = c + 1
        // Rows in blocks whose first non-zero column grows: 0, 0, 6, 6, 12.
        let firsts = [0, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12]
        let m = firsts.count
        var a = [Double](repeating: 0, count: m * w)
        for i in 0..<m { for q in firsts[i]..<w { a[i * w + q] = rng.uniform(-1, 1) } }
        let original = a
        DenseKernels.householderTriangularize(&a, rows: m, columns: w, firstColumn: firsts)
        // Gram matrices of the full column sets [H | r]: equal before and after (Q is orthogonal).
        for p in 0..<w {
            for q in 0..<w {
                var before = 0.0, after = 0.0
                for i in 0..<m { before += original[i * w + p] * original[i * w + q] }
                for i in 0..<min(m, c) { after += a[i * w + p] * a[i * w + q] }
                if p == c && q == c { continue } // ‖r‖² keeps the part in the rows dropped below c
                #expect(abs(before - after) <= 1e-12 * max(1, abs(before)), "(\(p), \(q))")
            }
        }
        for i in 0..<m { for j in 0..<min(i, c) { #expect(a[i * w + j] == 0) } }
    }
}
