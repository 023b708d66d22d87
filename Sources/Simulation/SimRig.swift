import Foundation
import Geometry
import Sensors

/// The simulated camera rig: one or two calibrated cameras rigidly mounted on the body (IMU) frame.
///
/// Default (`SimRig.euroc()`): EuRoC's VI-sensor — 752×480 pinhole + radial-tangential cam0 with
/// EuRoC's cam0 intrinsics and exact `T_BS` (the camera's optical axis is close to the body +z axis,
/// image "up" is body +x), and for stereo cam1 with EuRoC's cam1 intrinsics and `T_BS` (baseline
/// ≈ 11.0 cm along the camera x-axis). With `fisheye`, both cameras use an equidistant (Kannala–Brandt)
/// model at the same resolution (f = 320 px, ≈ 170° diagonal field of view).
public struct SimRig: Equatable, Sendable {
    /// `cameras[0]` is cam0; `cameras[1]`, if present, is cam1.
    public var cameras: [CameraCalibration]

    public init(cameras: [CameraCalibration]) { self.cameras = cameras }

    /// EuRoC V1 cam0 extrinsics `T_B_C0` (the `T_BS` of `cam0/sensor.yaml`).
    public static let eurocT_B_C0 = SE3(rowMajor4x4: [
        0.0148655429818, -0.999880929698, 0.00414029679422, -0.0216401454975,
        0.999557249008, 0.0149672133247, 0.025715529948, -0.064676986768,
        -0.0257744366974, 0.00375618835797, 0.999660727178, 0.00981073058949,
        0, 0, 0, 1])
    /// EuRoC V1 cam1 extrinsics `T_B_C1`.
    public static let eurocT_B_C1 = SE3(rowMajor4x4: [
        0.0125552670891, -0.999755099723, 0.0182237714554, -0.0198435579556,
        0.999598781151, 0.0130119051815, 0.0251588363115, 0.0453689425024,
        -0.0253898008918, 0.0179005838253, 0.999517347078, 0.00786212447038,
        0, 0, 0, 1])

    /// EuRoC cam0 model: 752×480, fx 458.654, fy 457.296, cx 367.215, cy 248.375, radial-tangential.
    public static let eurocCam0Model = CameraModel(
        width: 752, height: 480, intrinsics: PinholeIntrinsics(fx: 458.654, fy: 457.296, cx: 367.215, cy: 248.375),
        distortion: .radialTangential(k1: -0.28340811, k2: 0.07395907, p1: 0.00019359, p2: 1.76187114e-05))
    /// EuRoC cam1 model.
    public static let eurocCam1Model = CameraModel(
        width: 752, height: 480, intrinsics: PinholeIntrinsics(fx: 457.587, fy: 456.134, cx: 379.999, cy: 255.238),
        distortion: .radialTangential(k1: -0.28368365, k2: 0.07451284, p1: -0.00010473, p2: -3.55590700e-05))
    /// The fisheye (equidistant) model used with `fisheye: true`.
    public static let fisheyeModel = CameraModel(
        width: 752, height: 480, intrinsics: PinholeIntrinsics(fx: 320.0, fy: 320.0, cx: 375.5, cy: 239.5),
        distortion: .equidistant(k1: 0.0034823894, k2: 0.00071503485, k3: -0.0020532361, k4: 0.00020293674))

    /// The EuRoC-like rig (see the type's description). `rate_hz` is the camera frame rate.
    public static func euroc(stereo: Bool = false, fisheye: Bool = false, rate_hz: Double = 20) -> SimRig {
        let m0 = fisheye ? fisheyeModel : eurocCam0Model
        let m1 = fisheye ? fisheyeModel : eurocCam1Model
        var cams = [CameraCalibration(name: "cam0", model: m0, rate_hz: rate_hz, T_B_C: eurocT_B_C0)]
        if stereo { cams.append(CameraCalibration(name: "cam1", model: m1, rate_hz: rate_hz, T_B_C: eurocT_B_C1)) }
        return SimRig(cameras: cams)
    }

    /// A copy with every camera's model scaled to `width`×`height` (intrinsics scaled, distortion kept);
    /// for fast tests with small images.
    public func scaled(width: Int, height: Int) -> SimRig {
        SimRig(cameras: cameras.map { c in
            var c = c
            let sx = Double(width) / Double(c.model.width), sy = Double(height) / Double(c.model.height)
            let k = c.model.intrinsics
            // Pixel centres: u' + 0.5 = (u + 0.5)·s.
            c.model = CameraModel(width: width, height: height,
                                  intrinsics: PinholeIntrinsics(fx: k.fx * sx, fy: k.fy * sy,
                                                                cx: (k.cx + 0.5) * sx - 0.5, cy: (k.cy + 0.5) * sy - 0.5),
                                  distortion: c.model.distortion)
            return c
        })
    }

    /// `R_B_L` that makes a camera with rotation `R_B_C` look along the look frame's x-axis with image
    /// right = −y and image down = −z (L: x forward, y left, z up).
    public static func lookToBody(_ R_B_C: SO3) -> SO3 {
        // Columns: camera x, y, z axes expressed in L.
        let R_L_C = SO3(matrix: Mat3(columns: Vec3(0, -1, 0), Vec3(0, 0, -1), Vec3(1, 0, 0)))
        return R_B_C * R_L_C.inverse
    }
}
