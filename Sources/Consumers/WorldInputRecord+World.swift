import Estimation
import Foundation
import Geometry
import Sensors
import World

/// Why a `world_input` record cannot be turned back into a world-layer input.
public struct WorldInputRecordError: Error, CustomStringConvertible {
    /// What is wrong, naming the field.
    public let description: String
    /// An error with its message.
    public init(_ description: String) { self.description = description }
}

extension WorldInputRecord {
    /// The record of a world-layer input (exact poses, landmarks); `includeCamera` adds the calibration.
    public init(_ input: WorldFrameInput, includeCamera: Bool) {
        self.init(t_ns: input.t_ns, tracking_state: input.trackingState.description,
                  camera_pose: WorldInputRecord.pose(input.T_W_C), body_pose: WorldInputRecord.pose(input.T_W_B),
                  features: input.featureCount,
                  landmarks: input.landmarks.map { [Double($0.id), $0.p_W.x, $0.p_W.y, $0.p_W.z, $0.std_m] },
                  camera: includeCamera ? CameraJSON(input.camera) : nil)
    }

    /// `[qw, qx, qy, qz, x, y, z]` of a pose, the quaternion as held.
    static func pose(_ T: SE3) -> [Double] {
        let q = T.rotation.quaternion
        return [q.w, q.x, q.y, q.z, T.translation.x, T.translation.y, T.translation.z]
    }

    /// The pose of `[qw, qx, qy, qz, x, y, z]`, bit for bit as written.
    static func pose(_ v: [Double], field: String) throws -> SE3 {
        guard v.count == 7 else {
            throw WorldInputRecordError("\(field): expected 7 numbers [qw, qx, qy, qz, x, y, z], got \(v.count)")
        }
        let q = Quaternion(w: v[0], x: v[1], y: v[2], z: v[3])
        let n = (q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z)
        guard abs(n - 1) < 1e-6 else {
            throw WorldInputRecordError("\(field): the quaternion is not of unit norm (|q|² = \(n))")
        }
        return SE3(rotation: SO3(exactly: q), translation: Vec3(v[4], v[5], v[6]))
    }

    /// The world-layer input this record carries, with `camera` the calibration in force (the record's own, if it
    /// has one). The image and the estimator's full output are not part of the record.
    public func worldFrameInput(camera: CameraCalibration) throws -> WorldFrameInput {
        guard let state = TrackingState(string: tracking_state) else {
            throw WorldInputRecordError("tracking_state: unknown state '\(tracking_state)'")
        }
        let landmarks = try self.landmarks.enumerated().map { i, l -> Landmark in
            guard l.count == 5, let id = Int(exactly: l[0]) else {
                throw WorldInputRecordError("landmarks[\(i)]: expected [id, x, y, z, std] with an integer id")
            }
            return Landmark(id: id, p_W: Vec3(l[1], l[2], l[3]), std_m: l[4])
        }
        return WorldFrameInput(t_ns: t_ns, trackingState: state,
                               T_W_C: try Self.pose(camera_pose, field: "camera_pose"),
                               T_W_B: try Self.pose(body_pose, field: "body_pose"),
                               camera: camera, landmarks: landmarks, featureCount: features)
    }
}

extension CameraJSON {
    /// The JSON form of a calibration.
    public init(_ c: CameraCalibration) {
        let k = c.model.intrinsics
        self.init(name: c.name, width: c.model.width, height: c.model.height, fx: k.fx, fy: k.fy, cx: k.cx, cy: k.cy,
                  distortion: c.model.distortion.yamlName, distortion_coefficients: c.model.distortion.coefficients,
                  rate_hz: c.rate_hz, body_camera_pose: WorldInputRecord.pose(c.T_B_C))
    }

    /// The calibration this describes.
    public func calibration() throws -> CameraCalibration {
        let c = distortion_coefficients
        let lens: LensDistortion
        switch (distortion, c.count) {
        case ("none", 0): lens = .none
        case ("radial-tangential", 4): lens = .radialTangential(k1: c[0], k2: c[1], p1: c[2], p2: c[3])
        case ("equidistant", 4): lens = .equidistant(k1: c[0], k2: c[1], k3: c[2], k4: c[3])
        default:
            throw WorldInputRecordError("camera.distortion: '\(distortion)' with \(c.count) coefficients is not none (0), radial-tangential (4) or equidistant (4)")
        }
        guard width > 0, height > 0, fx > 0, fy > 0 else {
            throw WorldInputRecordError("camera: image size and focal lengths must be positive")
        }
        let model = CameraModel(width: width, height: height, intrinsics: PinholeIntrinsics(fx: fx, fy: fy, cx: cx, cy: cy),
                                distortion: lens)
        return CameraCalibration(name: name, model: model, rate_hz: rate_hz,
                                 T_B_C: try WorldInputRecord.pose(body_camera_pose, field: "camera.body_camera_pose"))
    }
}
