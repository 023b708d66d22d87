import Testing
import Geometry
@testable import LinearAlgebra

/// Construction, indexing, blocks and element-wise operations (exact answers: no rounding involved).
struct MatrixBasicsTests {
    @Test func rowMajorInitStoresColumnMajor() {
        let a = Matrix(rows: 2, columns: 3, rowMajor: [1, 2, 3, 4, 5, 6])
        #expect(a.elements == [1, 4, 2, 5, 3, 6])
        #expect(a[0, 2] == 3)
        #expect(a[1, 0] == 4)
        #expect(a.rowMajor == [1, 2, 3, 4, 5, 6])
        #expect(a.row(1) == [4, 5, 6])
        #expect(a.column(1) == [2, 5])
    }

    @Test func subscriptSetWritesTheRightElement() {
        var a = Matrix.zeros(3, 2)
        a[2, 1] = 7
        #expect(a.elements == [0, 0, 0, 0, 0, 7])
    }

    @Test func identityZerosAndColumnVector() {
        #expect(Matrix.identity(3).rowMajor == [1, 0, 0, 0, 1, 0, 0, 0, 1])
        #expect(Matrix.zeros(2, 3).elements == [Double](repeating: 0, count: 6))
        let v = Matrix(columnVector: [1, 2, 3])
        #expect(v.rows == 3 && v.columns == 1)
        #expect(Matrix(rows: 2, columns: 2, repeating: 5).elements == [5, 5, 5, 5])
        #expect(Matrix(diagonal: [1, 2]).rowMajor == [1, 0, 0, 2])
    }

    @Test func transposeSwapsIndices() {
        let a = Matrix(rows: 2, columns: 3, rowMajor: [1, 2, 3, 4, 5, 6])
        let t = a.transposed
        #expect(t.rows == 3 && t.columns == 2)
        #expect(t.rowMajor == [1, 4, 2, 5, 3, 6])
        #expect(t.transposed == a)
    }

    @Test func blockGetAndSet() {
        let a = Matrix(rows: 3, columns: 3, rowMajor: [1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(a.block(row: 1, column: 1, rows: 2, columns: 2).rowMajor == [5, 6, 8, 9])
        #expect(a.block(row: 0, column: 2, rows: 3, columns: 1).elements == [3, 6, 9])
        var z = Matrix.zeros(4, 4)
        z.setBlock(row: 1, column: 2, Matrix(rows: 2, columns: 2, rowMajor: [1, 2, 3, 4]))
        #expect(z.rowMajor == [0, 0, 0, 0,
                               0, 0, 1, 2,
                               0, 0, 3, 4,
                               0, 0, 0, 0])
    }

    @Test func addSubtractScale() {
        let a = Matrix(rows: 2, columns: 2, rowMajor: [1, 2, 3, 4])
        let b = Matrix(rows: 2, columns: 2, rowMajor: [10, 20, 30, 40])
        #expect((a + b).rowMajor == [11, 22, 33, 44])
        #expect((b - a).rowMajor == [9, 18, 27, 36])
        #expect((2 * a).rowMajor == [2, 4, 6, 8])
        #expect((a * 3).rowMajor == [3, 6, 9, 12])
        #expect((-a).rowMajor == [-1, -2, -3, -4])
    }

    @Test func productKnownAnswer() {
        // [1 2 3; 4 5 6] * [7 8; 9 10; 11 12] = [58 64; 139 154] (by hand).
        let a = Matrix(rows: 2, columns: 3, rowMajor: [1, 2, 3, 4, 5, 6])
        let b = Matrix(rows: 3, columns: 2, rowMajor: [7, 8, 9, 10, 11, 12])
        #expect((a * b).rowMajor == [58, 64, 139, 154])
        #expect(a.transposed.transposedTimes(b).rowMajor == [58, 64, 139, 154])
        #expect(a.timesTransposed(b.transposed).rowMajor == [58, 64, 139, 154])
        #expect(a * [1, 0, -1] == [-2, -2])
    }

    @Test func productWithEmptyInnerDimensionIsZero() {
        let a = Matrix.zeros(2, 0), b = Matrix.zeros(0, 3)
        #expect(a * b == Matrix.zeros(2, 3))
    }

    @Test func productMatchesNaiveLoopOnRandomMatrices() {
        var g = SeededRandom(seed: 1)
        let a = randomMatrix(7, 5, &g), b = randomMatrix(5, 4, &g)
        var naive = Matrix.zeros(7, 4)
        for i in 0..<7 { for j in 0..<4 { for k in 0..<5 { naive[i, j] += a[i, k] * b[k, j] } } }
        // Same sums in a different order: a few ulps of |a||b| ≈ 5.
        #expect(relativeError(a * b, naive) < 1e-14)
    }

    @Test func normsSymmetryTrace() {
        let a = Matrix(rows: 2, columns: 2, rowMajor: [3, 0, 0, 4])
        #expect(a.frobeniusNorm == 5)
        #expect(a.trace == 7)
        #expect(a.maxAbs == 4)
        let s = Matrix(rows: 2, columns: 2, rowMajor: [1, 2, 2.5, 1])
        #expect(!s.isSymmetric(tolerance: 0.1))
        #expect(s.isSymmetric(tolerance: 0.6))
        #expect(s.symmetrized().rowMajor == [1, 2.25, 2.25, 1])
        #expect(s.symmetrized().isSymmetric(tolerance: 0))
        #expect(!Matrix.zeros(2, 3).isSymmetric())
        // NaN is never symmetric and never hides in a norm.
        let nan = Matrix(rows: 2, columns: 2, rowMajor: [0, .nan, 0, 0])
        #expect(!nan.isSymmetric(tolerance: 1))
        #expect(nan.frobeniusNorm.isNaN && nan.maxAbs.isNaN)
        #expect(!nan.isFinite)
    }
}
