import Geometry
import Sensors

/// Predicts where image points move when the camera rotates: each pixel's bearing is rotated and
/// re-projected. Exact for distant points; the prediction seeds KLT so fast turns keep their tracks.
public enum RotationPrediction {
    /// The pixel in the new image of the point seen at `pixel` in the old one, after the camera
    /// rotated by `R_Cnew_Cold` (maps old-camera vectors to new-camera vectors). `nil` when the pixel
    /// cannot be unprojected or the rotated bearing falls behind the camera.
    public static func predict(_ pixel: Vec2, camera: CameraModel, R_Cnew_Cold: SO3) -> Vec2? {
        guard let n = camera.unproject(pixel) else { return nil }
        return predict(normalized: n, camera: camera, R_Cnew_Cold: R_Cnew_Cold)
    }

    /// The same for a point whose undistorted normalised coordinates are known (`camera.unproject` of its pixel),
    /// which saves the iterative undistortion.
    public static func predict(normalized n: Vec2, camera: CameraModel, R_Cnew_Cold: SO3) -> Vec2? {
        camera.project(R_Cnew_Cold * Vec3(n.x, n.y, 1).normalized)
    }
}

/// Integration of gyroscope samples into the rotation between two frame times.
public enum GyroIntegration {
    /// The body rotation from time `t0` to `t1` (nanoseconds), `R_B0_B1`: maps body-frame vectors
    /// at `t1` into the body frame at `t0` (`R_W_B1 = R_W_B0 · R_B0_B1`).
    ///
    /// `samples` need not be limited to [t0, t1]: the rate is interpolated linearly between samples
    /// and held constant before the first and after the last. An empty list gives the identity.
    /// Bias is not removed: pass bias-corrected samples when a bias estimate exists.
    public static func bodyRotation(samples: [IMUSample], from t0: TimestampNs, to t1: TimestampNs) -> SO3 {
        guard t1 > t0, let first = samples.first else { return .identity }
        if samples.count == 1 { return SO3.exp(first.gyro_B * Time.seconds(t1 - t0)) }
        // Breakpoints: t0, the sample times inside (t0, t1), t1; the rate at each by interpolation.
        var times: [TimestampNs] = [t0]
        for s in samples where s.t_ns > t0 && s.t_ns < t1 { times.append(s.t_ns) }
        times.append(t1)
        var R = SO3.identity
        var k = 0 // index of the last sample at or before the current time
        func rate(at t: TimestampNs) -> Vec3 {
            while k + 1 < samples.count && samples[k + 1].t_ns <= t { k += 1 }
            let a = samples[k]
            if t <= a.t_ns || k + 1 >= samples.count { return a.gyro_B }
            let b = samples[k + 1]
            let u = Double(t - a.t_ns) / Double(b.t_ns - a.t_ns)
            return a.gyro_B + u * (b.gyro_B - a.gyro_B)
        }
        var wPrev = rate(at: t0)
        for i in 1..<times.count {
            let w = rate(at: times[i])
            let dt = Time.seconds(times[i] - times[i - 1])
            R = R * SO3.exp(0.5 * (wPrev + w) * dt) // trapezoidal rate over the piece
            wPrev = w
        }
        return R
    }

    /// The camera rotation `R_Cnew_Cold` (maps old-camera vectors to new-camera vectors) from the body
    /// rotation `R_B0_B1` between the frames and the camera's mounting `T_B_C`.
    public static func cameraRotation(R_B0_B1: SO3, T_B_C: SE3) -> SO3 {
        let R_B_C = T_B_C.rotation
        // R_C1_C0 = R_C_B · R_B1_B0 · R_B_C
        return R_B_C.inverse * R_B0_B1.inverse * R_B_C
    }

    /// `R_Cnew_Cold` straight from gyro samples: `cameraRotation(bodyRotation(...), T_B_C)`.
    public static func cameraRotation(samples: [IMUSample], from t0: TimestampNs, to t1: TimestampNs, T_B_C: SE3) -> SO3 {
        cameraRotation(R_B0_B1: bodyRotation(samples: samples, from: t0, to: t1), T_B_C: T_B_C)
    }
}
