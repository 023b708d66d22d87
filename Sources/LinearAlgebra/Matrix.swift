/// A dense matrix of `Double`, stored column-major (LAPACK's layout).
///
/// Element (i, j) (row i, column j, 0-based) is `elements[i + j * rows]`. Units and frames are those of
/// whatever the matrix holds (a covariance in the state's units, a Jacobian, …); name variables accordingly.
///
/// Arithmetic (`+`, `-`, `*`) treats mismatched shapes as a programming error (precondition); the
/// factorisations and solvers (`cholesky()`, `qr()`, `svd()`, `solve(_:)`, …) throw `LinearAlgebraError`.
///
/// ```swift
/// let a = Matrix(rows: 2, columns: 2, rowMajor: [4, 2, 2, 3])
/// let x = try a.choleskySolve(Matrix(columnVector: [2, 1]))
/// ```
public struct Matrix: Equatable, Sendable {
    /// Number of rows and columns.
    public let rows: Int, columns: Int
    /// Elements in column-major order: element (i, j) is at `i + j * rows`.
    public var elements: [Double]

    /// A `rows × columns` matrix with every element equal to `value`.
    public init(rows: Int, columns: Int, repeating value: Double = 0) {
        precondition(rows >= 0 && columns >= 0, "Matrix dimensions must be non-negative")
        self.rows = rows; self.columns = columns
        elements = [Double](repeating: value, count: rows * columns)
    }

    /// A matrix from its elements listed row by row (the order one writes a matrix on paper).
    public init(rows: Int, columns: Int, rowMajor values: [Double]) {
        precondition(values.count == rows * columns, "Matrix(rows: \(rows), columns: \(columns), rowMajor:) needs \(rows * columns) values, got \(values.count)")
        self.init(rows: rows, columns: columns)
        for i in 0..<rows {
            for j in 0..<columns { elements[i + j * rows] = values[i * columns + j] }
        }
    }

    /// A matrix from its elements in column-major order (LAPACK's layout, no copy reordering).
    public init(rows: Int, columns: Int, columnMajor values: [Double]) {
        precondition(values.count == rows * columns, "Matrix(rows: \(rows), columns: \(columns), columnMajor:) needs \(rows * columns) values, got \(values.count)")
        precondition(rows >= 0 && columns >= 0, "Matrix dimensions must be non-negative")
        self.rows = rows; self.columns = columns; elements = values
    }

    /// An `n × 1` column vector.
    public init(columnVector values: [Double]) {
        self.init(rows: values.count, columns: 1, columnMajor: values)
    }

    /// A square diagonal matrix with `diagonal` on its diagonal.
    public init(diagonal: [Double]) {
        self.init(rows: diagonal.count, columns: diagonal.count)
        for (i, d) in diagonal.enumerated() { elements[i + i * rows] = d }
    }

    /// The `n × n` identity.
    public static func identity(_ n: Int) -> Matrix {
        Matrix(diagonal: [Double](repeating: 1, count: n))
    }

    /// The `r × c` zero matrix.
    public static func zeros(_ r: Int, _ c: Int) -> Matrix { Matrix(rows: r, columns: c) }

    /// Element at row `i`, column `j` (0-based).
    @inlinable public subscript(i: Int, j: Int) -> Double {
        get {
            precondition(i >= 0 && i < rows && j >= 0 && j < columns, "Matrix index (\(i), \(j)) out of range \(rows)×\(columns)")
            return elements[i + j * rows]
        }
        set {
            precondition(i >= 0 && i < rows && j >= 0 && j < columns, "Matrix index (\(i), \(j)) out of range \(rows)×\(columns)")
            elements[i + j * rows] = newValue
        }
    }

    /// True when the matrix is square.
    public var isSquare: Bool { rows == columns }

    /// Column `j` as an array (top to bottom).
    public func column(_ j: Int) -> [Double] {
        precondition(j >= 0 && j < columns, "column \(j) out of range (\(columns) columns)")
        return Array(elements[(j * rows)..<((j + 1) * rows)])
    }

    /// Row `i` as an array (left to right).
    public func row(_ i: Int) -> [Double] {
        precondition(i >= 0 && i < rows, "row \(i) out of range (\(rows) rows)")
        return (0..<columns).map { elements[i + $0 * rows] }
    }

    /// The main diagonal (length `min(rows, columns)`).
    public var diagonal: [Double] { (0..<Swift.min(rows, columns)).map { elements[$0 + $0 * rows] } }

    /// The sum of the diagonal.
    public var trace: Double { diagonal.reduce(0, +) }

    /// The elements listed row by row.
    public var rowMajor: [Double] {
        var out = [Double](); out.reserveCapacity(elements.count)
        for i in 0..<rows { for j in 0..<columns { out.append(elements[i + j * rows]) } }
        return out
    }

    /// The transpose.
    public var transposed: Matrix {
        var t = Matrix(rows: columns, columns: rows)
        elements.withUnsafeBufferPointer { a in
            t.elements.withUnsafeMutableBufferPointer { out in
                for j in 0..<columns {
                    for i in 0..<rows { out[j + i * columns] = a[i + j * rows] }
                }
            }
        }
        return t
    }

    /// The `rows × columns` block whose top-left element is (`row`, `column`).
    public func block(row: Int, column: Int, rows r: Int, columns c: Int) -> Matrix {
        precondition(row >= 0 && column >= 0 && r >= 0 && c >= 0 && row + r <= rows && column + c <= columns,
                     "block(row: \(row), column: \(column), rows: \(r), columns: \(c)) outside \(rows)×\(columns)")
        var out = Matrix(rows: r, columns: c)
        for j in 0..<c {
            let src = row + (column + j) * rows
            out.elements.replaceSubrange((j * r)..<((j + 1) * r), with: elements[src..<(src + r)])
        }
        return out
    }

    /// Overwrites the block whose top-left element is (`row`, `column`) with `b`.
    public mutating func setBlock(row: Int, column: Int, _ b: Matrix) {
        precondition(row >= 0 && column >= 0 && row + b.rows <= rows && column + b.columns <= columns,
                     "setBlock at (\(row), \(column)) of a \(b.rows)×\(b.columns) block outside \(rows)×\(columns)")
        for j in 0..<b.columns {
            let dst = row + (column + j) * rows
            elements.replaceSubrange(dst..<(dst + b.rows), with: b.elements[(j * b.rows)..<((j + 1) * b.rows)])
        }
    }

    /// The Frobenius norm `sqrt(Σ a_ij²)`.
    public var frobeniusNorm: Double {
        // Scaled sum avoids overflow/underflow for extreme magnitudes.
        let scale = maxAbs
        guard scale > 0, scale.isFinite else { return scale } // 0, +∞ or NaN
        var s = 0.0
        for v in elements { let r = v / scale; s += r * r }
        return scale * s.squareRoot()
    }

    /// The largest absolute element (0 for an empty matrix; NaN if any element is NaN).
    public var maxAbs: Double {
        var m = 0.0
        for v in elements {
            if v.isNaN { return .nan }
            m = Swift.max(m, abs(v))
        }
        return m
    }

    /// True when every element is finite.
    public var isFinite: Bool { elements.allSatisfy { $0.isFinite } }

    /// True when square and `|a_ij − a_ji| ≤ tolerance` (absolute) for all i, j (false if any pair involves NaN).
    public func isSymmetric(tolerance: Double = 1e-9) -> Bool {
        guard isSquare else { return false }
        for j in 0..<columns {
            for i in (j + 1)..<rows where !(abs(elements[i + j * rows] - elements[j + i * rows]) <= tolerance) {
                return false
            }
        }
        return true
    }

    /// `½ (A + Aᵀ)`: the nearest symmetric matrix (use on covariances after updates). Square only.
    public func symmetrized() -> Matrix {
        precondition(isSquare, "symmetrized() needs a square matrix, got \(rows)×\(columns)")
        var out = self
        for j in 0..<columns {
            for i in (j + 1)..<rows {
                let m = 0.5 * (elements[i + j * rows] + elements[j + i * rows])
                out.elements[i + j * rows] = m
                out.elements[j + i * rows] = m
            }
        }
        return out
    }
}

extension Matrix: CustomStringConvertible {
    /// Rows on separate lines, elements separated by spaces.
    public var description: String {
        var lines = ["Matrix \(rows)×\(columns)"]
        for i in 0..<rows { lines.append("  " + row(i).map { "\($0)" }.joined(separator: " ")) }
        return lines.joined(separator: "\n")
    }
}
