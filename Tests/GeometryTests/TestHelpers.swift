import Foundation
import Geometry

/// A uniformly random unit vector.
func randomUnitVector(_ g: inout SeededRandom) -> Vec3 {
    while true {
        let v = Vec3(Double.random(in: -1...1, using: &g), Double.random(in: -1...1, using: &g), Double.random(in: -1...1, using: &g))
        let n = v.norm
        if n > 0.1 && n <= 1 { return v / n }
    }
}

/// A random rotation vector with angle uniform in `angles`.
func randomRotationVector(_ g: inout SeededRandom, angles: ClosedRange<Double> = 0...3.1) -> Vec3 {
    Double.random(in: angles, using: &g) * randomUnitVector(&g)
}

/// Largest absolute component difference.
func maxDiff(_ a: Vec3, _ b: Vec3) -> Double { max(abs(a.x - b.x), abs(a.y - b.y), abs(a.z - b.z)) }

/// Largest absolute element difference.
func maxDiff(_ a: Mat3, _ b: Mat3) -> Double { (a - b).maxAbs }

/// Distance between unit quaternions as rotations (q and −q are the same rotation): L1 norm of q − ±p.
func rotationDistance(_ a: Quaternion, _ b: Quaternion) -> Double {
    min(abs(a.w - b.w) + abs(a.x - b.x) + abs(a.y - b.y) + abs(a.z - b.z),
        abs(a.w + b.w) + abs(a.x + b.x) + abs(a.y + b.y) + abs(a.z + b.z))
}

/// Rodrigues' formula, written independently of the quaternion code: `I + sin θ K + (1 − cos θ) K²`.
func rodrigues(_ phi: Vec3) -> Mat3 {
    let theta = phi.norm
    if theta == 0 { return .identity }
    let k = (phi / theta).skew
    return Mat3.identity + sin(theta) * k + (1 - cos(theta)) * (k * k)
}
