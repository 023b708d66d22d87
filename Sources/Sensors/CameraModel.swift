import Foundation
import Geometry

/// Pinhole intrinsics in pixels: focal lengths and principal point.
public struct PinholeIntrinsics: Equatable, Sendable, Codable {
    public var fx: Double, fy: Double, cx: Double, cy: Double
    public init(fx: Double, fy: Double, cx: Double, cy: Double) { self.fx = fx; self.fy = fy; self.cx = cx; self.cy = cy }
    /// `[fx, fy, cx, cy]`, the order of ASL `sensor.yaml`.
    public var array: [Double] { [fx, fy, cx, cy] }
}

/// A lens distortion model acting on normalised image coordinates (`x/z, y/z` in the camera frame).
public enum LensDistortion: Equatable, Sendable {
    /// No distortion.
    case none
    /// Radial-tangential (Brown–Conrady, OpenCV's plumb-bob with k3 = 0): k1, k2, p1, p2.
    case radialTangential(k1: Double, k2: Double, p1: Double, p2: Double)
    /// Equidistant (Kannala–Brandt fisheye, OpenCV's `fisheye` model): k1…k4 on the incidence angle θ.
    case equidistant(k1: Double, k2: Double, k3: Double, k4: Double)

    /// The model's name as `sensor.yaml` writes it.
    public var yamlName: String {
        switch self {
        case .none: return "none"
        case .radialTangential: return "radial-tangential"
        case .equidistant: return "equidistant"
        }
    }
    /// The coefficients in `sensor.yaml` order.
    public var coefficients: [Double] {
        switch self {
        case .none: return []
        case let .radialTangential(k1, k2, p1, p2): return [k1, k2, p1, p2]
        case let .equidistant(k1, k2, k3, k4): return [k1, k2, k3, k4]
        }
    }
}

/// A calibrated camera: image size, pinhole intrinsics and lens distortion.
///
/// The camera frame C is OpenCV's: x right, y down, z forward (optical axis). Pixel (0, 0) is the
/// *centre* of the top-left pixel, as in OpenCV.
public struct CameraModel: Equatable, Sendable {
    /// Image width and height, pixels.
    public var width: Int, height: Int
    public var intrinsics: PinholeIntrinsics
    public var distortion: LensDistortion

    public init(width: Int, height: Int, intrinsics: PinholeIntrinsics, distortion: LensDistortion = .none) {
        self.width = width; self.height = height; self.intrinsics = intrinsics; self.distortion = distortion
    }

    /// Applies the distortion to a point given in the camera frame, returning distorted normalised
    /// coordinates. For the equidistant model this works for any point in front of the camera plane.
    public func distort(_ p_C: Vec3) -> Vec2 {
        switch distortion {
        case .none:
            return Vec2(p_C.x / p_C.z, p_C.y / p_C.z)
        case let .radialTangential(k1, k2, p1, p2):
            let x = p_C.x / p_C.z, y = p_C.y / p_C.z
            let r2 = x * x + y * y
            let radial = 1 + k1 * r2 + k2 * r2 * r2
            return Vec2(x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x),
                        y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y)
        case let .equidistant(k1, k2, k3, k4):
            let r = (p_C.x * p_C.x + p_C.y * p_C.y).squareRoot()
            if r < 1e-15 { return .zero }
            let theta = atan2(r, p_C.z)
            let t2 = theta * theta
            let thetaD = theta * (1 + t2 * (k1 + t2 * (k2 + t2 * (k3 + t2 * k4))))
            return Vec2(p_C.x / r * thetaD, p_C.y / r * thetaD)
        }
    }

    /// Projects a point in the camera frame (metres) to a pixel. `nil` when the point is behind the
    /// camera (z ≤ 1 mm) or the projection is not finite. The pixel may lie outside the image.
    public func project(_ p_C: Vec3) -> Vec2? {
        guard p_C.z > 1e-3 else { return nil }
        let d = distort(p_C)
        let u = Vec2(intrinsics.fx * d.x + intrinsics.cx, intrinsics.fy * d.y + intrinsics.cy)
        return (u.x.isFinite && u.y.isFinite) ? u : nil
    }

    /// True when the pixel lies inside the image, at least `margin` pixels from the border.
    public func contains(_ pixel: Vec2, margin: Double = 0) -> Bool {
        pixel.x >= margin && pixel.y >= margin &&
            pixel.x <= Double(width - 1) - margin && pixel.y <= Double(height - 1) - margin
    }

    /// The undistorted normalised coordinates (`x/z, y/z`) of a pixel, by Gauss–Newton inversion of
    /// the distortion. `nil` if the inversion does not converge.
    public func unproject(_ pixel: Vec2) -> Vec2? {
        let xd = Vec2((pixel.x - intrinsics.cx) / intrinsics.fx, (pixel.y - intrinsics.cy) / intrinsics.fy)
        switch distortion {
        case .none:
            return xd
        case .radialTangential:
            // Gauss–Newton with the analytic 2×2 Jacobian of the distortion.
            var x = xd
            for _ in 0..<20 {
                let f = distort(Vec3(x.x, x.y, 1)) - xd
                if f.norm < 1e-12 { break }
                let j = radtanJacobian(x)
                let det = j.0 * j.3 - j.1 * j.2
                guard abs(det) > 1e-12 else { return nil }
                x -= Vec2((j.3 * f.x - j.1 * f.y) / det, (-j.2 * f.x + j.0 * f.y) / det)
            }
            let residual = (distort(Vec3(x.x, x.y, 1)) - xd).norm
            return residual < 1e-8 ? x : nil
        case let .equidistant(k1, k2, k3, k4):
            let thetaD = xd.norm
            if thetaD < 1e-15 { return .zero }
            var theta = thetaD
            for _ in 0..<20 {
                let t2 = theta * theta
                let f = theta * (1 + t2 * (k1 + t2 * (k2 + t2 * (k3 + t2 * k4)))) - thetaD
                let df = 1 + t2 * (3 * k1 + t2 * (5 * k2 + t2 * (7 * k3 + t2 * 9 * k4)))
                let step = f / df
                theta -= step
                if abs(step) < 1e-14 { break }
            }
            guard theta.isFinite, theta >= 0, theta < Double.pi / 2 else { return nil }
            return xd * (tan(theta) / thetaD)
        }
    }

    /// The unit bearing vector in the camera frame through a pixel; `nil` where `unproject` fails.
    public func bearing(_ pixel: Vec2) -> Vec3? {
        guard let n = unproject(pixel) else { return nil }
        return Vec3(n.x, n.y, 1).normalized
    }

    /// Jacobian of the radial-tangential distortion w.r.t. undistorted normalised coordinates,
    /// as (d00, d01, d10, d11).
    private func radtanJacobian(_ p: Vec2) -> (Double, Double, Double, Double) {
        guard case let .radialTangential(k1, k2, p1, p2) = distortion else { return (1, 0, 0, 1) }
        let x = p.x, y = p.y, r2 = x * x + y * y
        let radial = 1 + k1 * r2 + k2 * r2 * r2
        let dRadial = 2 * k1 + 4 * k2 * r2 // d(radial)/d(r2) * 2
        let d00 = radial + x * dRadial * x + 2 * p1 * y + 6 * p2 * x
        let d01 = x * dRadial * y + 2 * p1 * x + 2 * p2 * y
        let d10 = y * dRadial * x + 2 * p1 * x + 2 * p2 * y
        let d11 = radial + y * dRadial * y + 6 * p1 * y + 2 * p2 * x
        return (d00, d01, d10, d11)
    }
}

/// Calibration of one camera: its model, rate and pose in the body (IMU) frame.
public struct CameraCalibration: Equatable, Sendable {
    /// Name of the camera (`cam0`, `cam1`).
    public var name: String
    public var model: CameraModel
    /// Nominal frame rate, Hz.
    public var rate_hz: Double
    /// Pose of the camera frame C in the body frame B (`T_BS` in `sensor.yaml`).
    public var T_B_C: SE3

    public init(name: String, model: CameraModel, rate_hz: Double, T_B_C: SE3) {
        self.name = name; self.model = model; self.rate_hz = rate_hz; self.T_B_C = T_B_C
    }
}
