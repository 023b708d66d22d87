import Foundation
import Geometry
import Sensors

/// The text of ASL/EuRoC dataset files (CSV and `%YAML:1.0` sensor descriptions).
public enum ASLText {
    /// `imu0/data.csv` with EuRoC's header.
    public static func imuCSV(_ samples: [IMUSample]) -> String {
        var s = "#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]\n"
        s.reserveCapacity(samples.count * 140)
        for m in samples {
            s += "\(m.t_ns),\(m.gyro_B.x),\(m.gyro_B.y),\(m.gyro_B.z),\(m.accel_B.x),\(m.accel_B.y),\(m.accel_B.z)\n"
        }
        return s
    }

    static func matrixYAML(_ T: SE3) -> String {
        let m = T.matrix4x4RowMajor.map { "\($0)" }
        return """
        T_BS:
          cols: 4
          rows: 4
          data: [\(m[0..<4].joined(separator: ", ")),
                 \(m[4..<8].joined(separator: ", ")),
                 \(m[8..<12].joined(separator: ", ")),
                 \(m[12..<16].joined(separator: ", "))]

        """
    }

    /// A camera's `sensor.yaml` (EuRoC format).
    public static func cameraYAML(_ cam: CameraCalibration) -> String {
        let k = cam.model.intrinsics
        let rate = cam.rate_hz == cam.rate_hz.rounded() ? "\(Int(cam.rate_hz))" : "\(cam.rate_hz)"
        return "%YAML:1.0\n# General sensor definitions.\nsensor_type: camera\ncomment: WorldTrack simulated \(cam.name)\n\n"
            + "# Sensor extrinsics wrt. the body-frame.\n" + matrixYAML(cam.T_B_C)
            + "\n# Camera specific definitions.\nrate_hz: \(rate)\nresolution: [\(cam.model.width), \(cam.model.height)]\n"
            + "camera_model: pinhole\nintrinsics: [\(k.fx), \(k.fy), \(k.cx), \(k.cy)] #fu, fv, cu, cv\n"
            + "distortion_model: \(cam.model.distortion.yamlName)\n"
            + "distortion_coefficients: [\(cam.model.distortion.coefficients.map { "\($0)" }.joined(separator: ", "))]\n"
    }

    /// `imu0/sensor.yaml` with the noise parameters.
    public static func imuYAML(_ o: IMUSimulationOptions) -> String {
        let rate = o.rate_hz == o.rate_hz.rounded() ? "\(Int(o.rate_hz))" : "\(o.rate_hz)"
        let n = o.noise
        return "%YAML:1.0\nsensor_type: imu\ncomment: WorldTrack simulated IMU (EuRoC ADIS16448 noise model)\n\n"
            + "# Sensor extrinsics wrt. the body-frame.\n" + matrixYAML(.identity) + "rate_hz: \(rate)\n\n"
            + "# inertial sensor noise model parameters (static)\n"
            + "gyroscope_noise_density: \(n.gyroscopeNoiseDensity)     # [ rad / s / sqrt(Hz) ]   ( gyro \"white noise\" )\n"
            + "gyroscope_random_walk: \(n.gyroscopeRandomWalk)       # [ rad / s^2 / sqrt(Hz) ] ( gyro bias diffusion )\n"
            + "accelerometer_noise_density: \(n.accelerometerNoiseDensity)  # [ m / s^2 / sqrt(Hz) ]   ( accel \"white noise\" )\n"
            + "accelerometer_random_walk: \(n.accelerometerRandomWalk)    # [ m / s^3 / sqrt(Hz) ].  ( accel bias diffusion )\n"
    }

    /// `state_groundtruth_estimate0/sensor.yaml`.
    public static let groundTruthYAML = "%YAML:1.0\nsensor_type: visual-inertial\ncomment: WorldTrack exact simulated ground truth of the body (IMU) frame\n\n"
        + matrixYAML(.identity)

    /// `body.yaml`.
    public static let bodyYAML = "%YAML:1.0\ncomment: WorldTrack simulated rig (body frame = IMU frame)\n"
}
