/// A dense matrix of `Double`, column-major (LAPACK's layout). Implementation pending (issue 2).
public struct Matrix: Equatable, Sendable {
    public let rows: Int, columns: Int
    /// Elements in column-major order: element (i, j) is at `i + j * rows`.
    public var elements: [Double]
    public init(rows: Int, columns: Int, repeating value: Double = 0) {
        self.rows = rows; self.columns = columns
        elements = [Double](repeating: value, count: rows * columns)
    }
}
