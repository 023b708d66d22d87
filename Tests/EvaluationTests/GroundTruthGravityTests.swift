import Evaluation
import Foundation
import Geometry
import Sensors
import Testing
import TestSupport

/// `GroundTruthGravity`: gravity's direction in a ground truth's world, measured from the IMU alone.
@Suite("Gravity in the ground truth's frame (eval --level-groundtruth)")
struct GroundTruthGravityTests {
    /// A flight of `seconds` at 200 Hz in a world whose gravity is `gravity_W`: it yaws through a full turn, rolls and
    /// pitches a few degrees and moves on a smooth loop. The IMU measures `f_B = R_W_Bᵀ (a_W − g_W) + b_a` exactly;
    /// the ground truth carries the pose, the velocity and (when `biasInGroundTruth`) the bias.
    static func flight(gravity_W: Vec3, accelBias_B: Vec3, biasInGroundTruth: Bool, seconds: Double = 40)
        -> (truth: [GroundTruthState], imu: [IMUSample]) {
        var truth: [GroundTruthState] = [], imu: [IMUSample] = []
        let n = Int(seconds * 200)
        for k in 0...n {
            let t = Double(k) / 200
            let w = 2 * Double.pi / seconds
            let p = Vec3(1.5 * sin(w * t), 1.0 * sin(2 * w * t), 1 + 0.3 * sin(3 * w * t))
            let v = Vec3(1.5 * w * cos(w * t), 2 * w * cos(2 * w * t), 0.9 * w * cos(3 * w * t))
            let a = Vec3(-1.5 * w * w * sin(w * t), -4 * w * w * sin(2 * w * t), -2.7 * w * w * sin(3 * w * t))
            let R = SO3(angle: w * t, axis: Vec3(0, 0, 1)) * SO3(angle: 0.05 * sin(5 * w * t), axis: Vec3(1, 0, 0))
                * SO3(angle: 0.04 * cos(4 * w * t), axis: Vec3(0, 1, 0))
            let t_ns = TimestampNs(1_000_000_000) + TimestampNs(k) * 5_000_000
            truth.append(GroundTruthState(t_ns: t_ns, T_W_B: SE3(rotation: R, translation: p), v_W: v,
                                          accelBias_B: biasInGroundTruth ? accelBias_B : .zero))
            imu.append(IMUSample(t_ns: t_ns, gyro_B: .zero, accel_B: R.inverse.act(a - gravity_W) + accelBias_B))
        }
        return (truth, imu)
    }

    @Test("a world tilted 0.3° is measured to 0.005°, the same in every window; levelling puts gravity on −z")
    func tiltedWorld() throws {
        let tilt = 0.3 * Double.pi / 180
        let axis = Vec3(1, 2, 0).normalized
        let g_W = SO3(angle: tilt, axis: axis).act(Vec3(0, 0, -9.81))
        let (truth, imu) = Self.flight(gravity_W: g_W, accelBias_B: Vec3(0.05, -0.07, 0.03), biasInGroundTruth: true)
        let measured = try GroundTruthGravity.measure(groundTruth: truth, imu: imu)
        #expect(abs(measured.tilt_rad - tilt) < 0.005 * .pi / 180)
        #expect(measured.gravity_W.normalized.dot(g_W.normalized) > cos(0.005 * .pi / 180))
        #expect(measured.usedGroundTruthBias)
        #expect(measured.windowTilts.count == 4)
        #expect(measured.spread_rad < 0.01 * .pi / 180)
        let levelled = measured.R_L_W.act(g_W).normalized
        #expect(levelled.dot(Vec3(0, 0, -1)) > cos(0.005 * .pi / 180))
        // The smallest rotation: no yaw, so a vector along the tilt axis (horizontal) keeps its direction.
        #expect(measured.R_L_W.act(axis).dot(axis) > 1 - 1e-9)
        // A pose levelled: its body's up seen from the levelled world equals the truth's body up in the true vertical.
        let pose = truth[1234].T_W_B
        let up_B = measured.levelled(pose).rotation.inverse.act(Vec3(0, 0, 1))
        #expect(up_B.dot(pose.rotation.inverse.act(-g_W.normalized)) > cos(0.005 * .pi / 180))
    }

    @Test("control: a level world measures level (under 0.005°), and levelling changes nothing")
    func levelWorld() throws {
        let (truth, imu) = Self.flight(gravity_W: Vec3(0, 0, -9.81), accelBias_B: Vec3(0.05, -0.07, 0.03), biasInGroundTruth: true)
        let measured = try GroundTruthGravity.measure(groundTruth: truth, imu: imu)
        #expect(measured.tilt_rad < 0.005 * .pi / 180)
        let pose = truth[500].T_W_B
        #expect((measured.levelled(pose).translation - pose.translation).norm < 1e-3)
    }

    @Test("without bias columns the body-fixed bias is not a frame tilt: it turns with the yaw, and the windows disagree")
    func biasWithoutColumns() throws {
        let (truth, imu) = Self.flight(gravity_W: Vec3(0, 0, -9.81), accelBias_B: Vec3(0.05, -0.07, 0.03), biasInGroundTruth: false)
        let measured = try GroundTruthGravity.measure(groundTruth: truth, imu: imu, window_s: 5)
        #expect(!measured.usedGroundTruthBias)
        // Each 5 s window sees the bias at another yaw (about 0.5° of tilt), the whole flight a full turn of it.
        #expect(measured.spread_rad > 0.2 * .pi / 180)
        #expect(measured.tilt_rad < 0.1 * .pi / 180)
    }

    @Test("timestamps up to the end of Int64's range: measured as anywhere else (no overflow)")
    func lateClock() throws {
        let (truth, imu) = Self.flight(gravity_W: Vec3(0, 0, -9.81), accelBias_B: Vec3(0.05, -0.07, 0.03), biasInGroundTruth: true)
        let shift = TimestampNs.max - 1_000 - truth[truth.count - 1].t_ns
        let late = try GroundTruthGravity.measure(groundTruth: truth.map { var s = $0; s.t_ns += shift; return s },
                                                  imu: imu.map { var s = $0; s.t_ns += shift; return s })
        let early = try GroundTruthGravity.measure(groundTruth: truth, imu: imu)
        #expect(abs(late.tilt_rad - early.tilt_rad) < 1e-9 && late.windowTilts.count == early.windowTilts.count)
    }

    @Test("too little overlap between the IMU and the ground truth is refused")
    func tooShort() throws {
        let (truth, imu) = Self.flight(gravity_W: Vec3(0, 0, -9.81), accelBias_B: .zero, biasInGroundTruth: true, seconds: 1.5)
        #expect(throws: GroundTruthGravity.Failure.self) { try GroundTruthGravity.measure(groundTruth: truth, imu: imu) }
        #expect(throws: GroundTruthGravity.Failure.noIMUOverlap) {
            try GroundTruthGravity.measure(groundTruth: Array(truth.prefix(100)), imu: Array(imu.suffix(100)))
        }
    }

    /// The finding behind `--level-groundtruth`: EuRoC V1_01's motion-capture frame is 0.24° off gravity, the same in
    /// every 10 s window of the flight (docs/ACCURACY.md, error budget).
    @Test("EuRoC V1_01: the ground truth's world is 0.2–0.3° off gravity, within 0.05° in every window",
          .enabled(if: SharedDatasets.eurocMicroIsPresent, "needs ../shared/datasets/euroc-v101-micro (absent: skipped)"))
    func eurocV101() throws {
        let dataset = try ASLDataset(path: try SharedDatasets.eurocMicro())
        let truth = try TrajectoryFile.readASLGroundTruth(path: try #require(dataset.groundTruthPath))
        let measured = try GroundTruthGravity.measure(groundTruth: truth, imu: dataset.imu.samples)
        print("EuRoC V1_01: \(measured.summary)")
        let deg = measured.tilt_rad * 180 / .pi
        #expect(deg > 0.2 && deg < 0.3)
        #expect(measured.windowTilts.count >= 12)
        #expect(measured.spread_rad * 180 / .pi < 0.05)
    }
}
