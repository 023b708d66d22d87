import Foundation
import Geometry

/// A dense 15×15 matrix (row-major, 225 values) for the inertial error-state transition and noise.
/// Fixed-size so that IMU propagation needs no dynamic `Matrix` per sample.
struct Mat15: Equatable {
    static let n = 15
    var a: [Double]

    init(repeating v: Double = 0) { a = [Double](repeating: v, count: 225) }
    static var identity: Mat15 {
        var m = Mat15()
        for i in 0..<15 { m.a[i * 15 + i] = 1 }
        return m
    }

    subscript(i: Int, j: Int) -> Double {
        get { a[i * 15 + j] }
        set { a[i * 15 + j] = newValue }
    }

    /// Writes a 3×3 block whose top-left corner is at (row, column).
    mutating func setBlock(_ row: Int, _ column: Int, _ m: Mat3) {
        for i in 0..<3 { for j in 0..<3 { a[(row + i) * 15 + column + j] = m[i, j] } }
    }
    /// Reads the 3×3 block at (row, column).
    func block(_ row: Int, _ column: Int) -> Mat3 {
        Mat3(rows: Vec3(a[row * 15 + column], a[row * 15 + column + 1], a[row * 15 + column + 2]),
             Vec3(a[(row + 1) * 15 + column], a[(row + 1) * 15 + column + 1], a[(row + 1) * 15 + column + 2]),
             Vec3(a[(row + 2) * 15 + column], a[(row + 2) * 15 + column + 1], a[(row + 2) * 15 + column + 2]))
    }

    static func * (x: Mat15, y: Mat15) -> Mat15 {
        var out = Mat15()
        x.a.withUnsafeBufferPointer { xa in
            y.a.withUnsafeBufferPointer { ya in
                out.a.withUnsafeMutableBufferPointer { o in
                    for i in 0..<15 {
                        for k in 0..<15 {
                            let xik = xa[i * 15 + k]
                            if xik == 0 { continue }
                            for j in 0..<15 { o[i * 15 + j] += xik * ya[k * 15 + j] }
                        }
                    }
                }
            }
        }
        return out
    }

    static func + (x: Mat15, y: Mat15) -> Mat15 {
        var out = x
        for i in 0..<225 { out.a[i] += y.a[i] }
        return out
    }

    var transposed: Mat15 {
        var out = Mat15()
        for i in 0..<15 { for j in 0..<15 { out.a[j * 15 + i] = a[i * 15 + j] } }
        return out
    }

    /// `self · m · selfᵀ`.
    func sandwich(_ m: Mat15) -> Mat15 { self * m * transposed }
}

/// The body orientation with yaw 0 whose gravity matches a measured specific force at rest:
/// `f_B = R_W_Bᵀ (0, 0, g)`, so roll and pitch follow from the direction of `f_B` (ZYX convention).
func gravityAlignedRotation(specificForce f: Vec3) -> SO3 {
    let pitch = atan2(-f.x, (f.y * f.y + f.z * f.z).squareRoot())
    let roll = atan2(f.y, f.z)
    return SO3(angle: pitch, axis: Vec3(0, 1, 0)) * SO3(angle: roll, axis: Vec3(1, 0, 0))
}
