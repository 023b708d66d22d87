/// A 3×3 matrix of `Double`, stored as three rows.
///
/// Used for rotation matrices, covariance blocks and Jacobians of 3-vectors.
/// `Mat3 * Vec3` is the usual matrix–vector product.
public struct Mat3: Equatable, Sendable, CustomStringConvertible {
    /// Row 0, 1 and 2.
    public var r0: Vec3, r1: Vec3, r2: Vec3

    /// A matrix from its three rows.
    @inlinable public init(rows r0: Vec3, _ r1: Vec3, _ r2: Vec3) { self.r0 = r0; self.r1 = r1; self.r2 = r2 }
    /// A matrix from its three columns.
    @inlinable public init(columns c0: Vec3, _ c1: Vec3, _ c2: Vec3) {
        self.init(rows: Vec3(c0.x, c1.x, c2.x), Vec3(c0.y, c1.y, c2.y), Vec3(c0.z, c1.z, c2.z))
    }
    /// A matrix from 9 values in row-major order.
    @inlinable public init(rowMajor v: [Double]) {
        precondition(v.count == 9, "Mat3 needs 9 values")
        self.init(rows: Vec3(v[0], v[1], v[2]), Vec3(v[3], v[4], v[5]), Vec3(v[6], v[7], v[8]))
    }
    /// A diagonal matrix.
    @inlinable public init(diagonal d: Vec3) {
        self.init(rows: Vec3(d.x, 0, 0), Vec3(0, d.y, 0), Vec3(0, 0, d.z))
    }

    public static let identity = Mat3(diagonal: Vec3(1, 1, 1))
    public static let zero = Mat3(rows: .zero, .zero, .zero)

    /// Element at row `i`, column `j` (0-based).
    @inlinable public subscript(i: Int, j: Int) -> Double {
        get { row(i)[j] }
        set {
            switch i {
            case 0: r0[j] = newValue
            case 1: r1[j] = newValue
            default: r2[j] = newValue
            }
        }
    }
    /// Row `i`.
    @inlinable public func row(_ i: Int) -> Vec3 { i == 0 ? r0 : (i == 1 ? r1 : r2) }
    /// Column `j`.
    @inlinable public func column(_ j: Int) -> Vec3 { Vec3(r0[j], r1[j], r2[j]) }
    /// The 9 values in row-major order.
    public var rowMajor: [Double] { [r0.x, r0.y, r0.z, r1.x, r1.y, r1.z, r2.x, r2.y, r2.z] }

    /// The transpose.
    @inlinable public var transposed: Mat3 { Mat3(columns: r0, r1, r2) }
    /// The trace.
    @inlinable public var trace: Double { r0.x + r1.y + r2.z }
    /// The determinant.
    @inlinable public var determinant: Double { r0.dot(r1.cross(r2)) }
    /// The inverse (undefined for a singular matrix).
    @inlinable public var inverse: Mat3 {
        let c0 = r1.cross(r2), c1 = r2.cross(r0), c2 = r0.cross(r1)
        let det = r0.dot(c0)
        return Mat3(columns: c0 / det, c1 / det, c2 / det)
    }
    /// Largest absolute element.
    public var maxAbs: Double { rowMajor.map(abs).max() ?? 0 }

    @inlinable public static func * (m: Mat3, v: Vec3) -> Vec3 { Vec3(m.r0.dot(v), m.r1.dot(v), m.r2.dot(v)) }
    @inlinable public static func * (a: Mat3, b: Mat3) -> Mat3 {
        let bt = b.transposed
        return Mat3(rows: Vec3(a.r0.dot(bt.r0), a.r0.dot(bt.r1), a.r0.dot(bt.r2)),
                    Vec3(a.r1.dot(bt.r0), a.r1.dot(bt.r1), a.r1.dot(bt.r2)),
                    Vec3(a.r2.dot(bt.r0), a.r2.dot(bt.r1), a.r2.dot(bt.r2)))
    }
    @inlinable public static func + (a: Mat3, b: Mat3) -> Mat3 { Mat3(rows: a.r0 + b.r0, a.r1 + b.r1, a.r2 + b.r2) }
    @inlinable public static func - (a: Mat3, b: Mat3) -> Mat3 { Mat3(rows: a.r0 - b.r0, a.r1 - b.r1, a.r2 - b.r2) }
    @inlinable public static func * (s: Double, m: Mat3) -> Mat3 { Mat3(rows: s * m.r0, s * m.r1, s * m.r2) }
    @inlinable public static prefix func - (m: Mat3) -> Mat3 { Mat3(rows: -m.r0, -m.r1, -m.r2) }
    /// Outer product `a bᵀ`.
    @inlinable public static func outer(_ a: Vec3, _ b: Vec3) -> Mat3 { Mat3(rows: a.x * b, a.y * b, a.z * b) }

    public var description: String { "Mat3[\(r0.x), \(r0.y), \(r0.z); \(r1.x), \(r1.y), \(r1.z); \(r2.x), \(r2.y), \(r2.z)]" }
}
