import Foundation
import Geometry
import Sensors
import Testing
import TestSupport
@testable import Estimation

/// Roll and pitch (radians) of `R_W_B` in the ZYX convention; they depend only on gravity in B.
func rollPitch(_ R_W_B: SO3) -> (roll: Double, pitch: Double) {
    let g_B = R_W_B.inverse.act(Vec3(0, 0, 1))
    return (atan2(g_B.y, g_B.z), atan2(-g_B.x, (g_B.y * g_B.y + g_B.z * g_B.z).squareRoot()))
}

@Suite struct StaticInitializerTests {
    let imuCal = IMUCalibration(noise: .euroc, rate_hz: 200)

    @Test func chiSquareQuantilesMatchTables() {
        // Standard table values (to 3 decimals).
        let cases: [(Int, Double)] = [(1, 3.841), (2, 5.991), (3, 7.815), (10, 18.307), (30, 43.773), (100, 124.342)]
        for (dof, expected) in cases {
            #expect(abs(ChiSquare.quantile(probability: 0.95, dof: dof) - expected) < 1e-3, "dof \(dof)")
        }
        #expect(abs(ChiSquare.quantile(probability: 0.999, dof: 24) - 51.179) < 1e-3)
        let table = ChiSquareTable(probability: 0.95)
        #expect(abs(table.threshold(dof: 500) - 553.127) < 1e-2)
        // Out-of-range probabilities from a configuration are clamped, never a crash or infinity.
        #expect(ChiSquareTable(probability: 1).threshold(dof: 3).isFinite)
        #expect(ChiSquareTable(probability: .nan).threshold(dof: 1) == table.threshold(dof: 1))
    }

    @Test func stillSyntheticImuGivesGravityAndGyroBias() throws {
        let traj = EstimationTrajectory(restDuration: 100, motionScale: 0)
        let gyroBias = Vec3(0.01, -0.02, 0.015)
        // Accel bias 0.01 m/s² tilts the gravity estimate by 0.01/9.81 rad = 0.06°, unavoidably (unobservable at rest).
        let accelBias = Vec3(0.01, -0.008, 0.02)
        let samples = traj.imuSamples(duration: 2, rate_hz: 200, gyroBias: gyroBias, accelBias: accelBias,
                                      noise: .euroc, seed: 11)
        let initializer = StaticInitializer(configuration: EstimatorConfiguration(), imu: imuCal)
        let result = try #require(initializer.initialize(samples: samples, endingAt: 1_500_000_000))
        let truth = rollPitch(traj.state(at: 1.5).R_W_B)
        let est = rollPitch(result.state.R_W_B)
        let deg = 180 / Double.pi
        // Requirement: roll/pitch within 0.1°.
        #expect(abs(est.roll - truth.roll) * deg < 0.1, "roll error \(abs(est.roll - truth.roll) * deg)°")
        #expect(abs(est.pitch - truth.pitch) * deg < 0.1, "pitch error \(abs(est.pitch - truth.pitch) * deg)°")
        // Requirement: gyro bias within 1e-3 rad/s (the mean of 200 samples of σ = 2.4e-3 rad/s is within ~2e-4).
        #expect((result.state.gyroBias_B - gyroBias).norm < 1e-3)
        #expect(result.state.v_W == .zero && result.state.p_W == .zero)
        // Yaw is set to 0: the body x axis projects onto the world x axis.
        let xW = result.state.R_W_B.act(Vec3(1, 0, 0))
        #expect(abs(atan2(xW.y, xW.x)) < 1e-9)
    }

    @Test func motionIsRejected() {
        let traj = EstimationTrajectory(restDuration: 0, rampDuration: 0.5)
        let samples = traj.imuSamples(duration: 6, rate_hz: 200, noise: .euroc, seed: 5)
        let initializer = StaticInitializer(configuration: EstimatorConfiguration(), imu: imuCal)
        for k in 10...60 {
            let t = Int64(k) * 100_000_000
            #expect(initializer.initialize(samples: samples, endingAt: t) == nil, "accepted motion at \(t) ns")
        }
    }

    @Test func slowDriftIsRejectedButVibrationIsTolerated() throws {
        let initializer = StaticInitializer(configuration: EstimatorConfiguration(), imu: imuCal)
        // Vibration: white noise 30× the datasheet density (rotors running), still at rest → accepted.
        let loud = IMUNoiseModel(gyroscopeNoiseDensity: 30 * 1.6968e-04, gyroscopeRandomWalk: 0,
                                 accelerometerNoiseDensity: 30 * 2e-3, accelerometerRandomWalk: 0)
        let still = EstimationTrajectory(restDuration: 100, motionScale: 0)
            .imuSamples(duration: 1.5, rate_hz: 200, noise: loud, seed: 3)
        #expect(initializer.initialize(samples: still, endingAt: 1_200_000_000) != nil)
        // Slow motion (10 % amplitude) with datasheet noise → rejected.
        let slow = EstimationTrajectory(restDuration: 0, rampDuration: 0.1, motionScale: 0.1)
            .imuSamples(duration: 3, rate_hz: 200, noise: .euroc, seed: 4)
        #expect(initializer.initialize(samples: slow, endingAt: 2_000_000_000) == nil)
    }

    @Test func eurocV101StartIsDetectedAsRestAndMatchesGroundTruth() throws {
        let root = EstimationPaths.eurocMicro.appendingPathComponent("mav0")
        let imuURL = root.appendingPathComponent("imu0/data.csv")
        let gtURL = root.appendingPathComponent("state_groundtruth_estimate0/data.csv")
        guard FileManager.default.fileExists(atPath: imuURL.path), FileManager.default.fileExists(atPath: gtURL.path) else {
            print("NOTICE: \(root.path) not found; skipping the EuRoC static-initialisation test")
            return
        }
        let imuRows = try EstimationCSV.rows(imuURL, columns: 7, maxRows: 600)
        let samples = imuRows.map {
            IMUSample(t_ns: Int64($0[0]), gyro_B: Vec3($0[1], $0[2], $0[3]), accel_B: Vec3($0[4], $0[5], $0[6]))
        }
        let gt = try #require(try EstimationCSV.rows(gtURL, columns: 17, maxRows: 1).first)
        let euroc = IMUCalibration(noise: .euroc, rate_hz: 200)
        let initializer = StaticInitializer(configuration: EstimatorConfiguration(), imu: euroc)
        let t0 = samples[0].t_ns
        let result = try #require(initializer.initialize(samples: samples, endingAt: t0 + 1_000_000_000),
                                  "the first second of V1_01 (drone on the ground) must count as rest")
        // Ground truth quaternion is q_W_B in (w, x, y, z).
        let qGT = SO3(Quaternion(w: gt[4], x: gt[5], y: gt[6], z: gt[7]))
        // Compare the gravity direction in B (what roll and pitch encode). The IMU is mounted with x
        // nearly up (pitch ≈ −68°), where ZYX roll is ill-conditioned (errors scaled by 1/cos(pitch) ≈ 2.7),
        // so the tilt angle between the two gravity directions is the meaningful error.
        let gEst = result.state.R_W_B.inverse.act(Vec3(0, 0, 1)), gTrue = qGT.inverse.act(Vec3(0, 0, 1))
        let deg = 180 / Double.pi
        let tilt = acos(min(1, gEst.dot(gTrue))) * deg
        // With the ground truth's accelerometer bias removed from the mean specific force, the method alone.
        let accelBiasGT = Vec3(gt[14], gt[15], gt[16])
        let window = samples.filter { $0.t_ns > t0 && $0.t_ns <= t0 + 1_000_000_000 }
        let fMean = window.reduce(Vec3.zero) { $0 + $1.accel_B } / Double(window.count)
        let tiltUnbiased = acos(min(1, (fMean - accelBiasGT).normalized.dot(gTrue))) * deg
        print("EuRoC static init: tilt error \(tilt)° (\(tiltUnbiased)° with GT accel bias removed), "
            + "gyro bias \(result.state.gyroBias_B) vs GT (\(gt[11]), \(gt[12]), \(gt[13]))")
        // The target is 0.5°, but the GT accelerometer bias (0.066 m/s² across gravity → 0.36°) is
        // unobservable at rest, so the achievable error is ≈ 0.58°; 0.7° still catches a wrong axis or sign.
        #expect(tilt < 0.7)
        // The method itself, bias known: within 0.25° (the GT orientation's own accuracy is ~0.1–0.2°).
        #expect(tiltUnbiased < 0.25)
        // Gyro bias vs the ground truth's estimate: the vibration (σ ≈ 0.08 rad/s) limits the 1 s mean to ~3e-3.
        #expect((result.state.gyroBias_B - Vec3(gt[11], gt[12], gt[13])).norm < 5e-3)
    }
}

/// A minimal numeric CSV reader for the tests (ASL files: `#` header, comma separated).
enum EstimationCSV {
    struct Failure: Error, CustomStringConvertible { var description: String }
    static func rows(_ url: URL, columns: Int, maxRows: Int = .max) throws -> [[Double]] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var out: [[Double]] = []
        for (n, line) in text.split(whereSeparator: \.isNewline).enumerated() {
            if out.count >= maxRows { break }
            if line.hasPrefix("#") || line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            let v = line.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count >= columns, v.allSatisfy({ $0 != nil }) else {
                throw Failure(description: "\(url.path):\(n + 1): expected \(columns) numbers")
            }
            out.append(v.prefix(columns).map { $0! })
        }
        return out
    }
}

@Suite struct TriangulationTests {
    @Test func robustTriangulationDropsExactlyTheOutliers() throws {
        let scene = EstimationScene()
        let traj = EstimationTrajectory(restDuration: 0, rampDuration: 0.5)
        let frames = scene.frames(trajectory: traj, duration: 3, pixelNoise: 0.5, outlierRate: 0.08, seed: 42)
        var tracks: [Int: [(Int, EstimationSimObservation)]] = [:]
        for k in 30..<41 { for o in frames[k].observations { tracks[o.id, default: []].append((k, o)) } }
        let tri = FeatureTriangulator(minDepth: 0.1, maxDepth: 60, maxReprojection: 5.0 / 460, sigma: 0.5 / 460)
        var checked = 0, withOutliers = 0, worst = 0.0
        for id in tracks.keys.sorted() {
            guard let t = tracks[id], t.count >= 6 else { continue }
            let obs = t.map { k, o in
                BearingObservation(T_W_C: traj.state(at: Double(frames[k].t_ns) * 1e-9).T_W_B * scene.camera.T_B_C,
                                   normalized: o.normalized)
            }
            let outliers = Set(t.indices.filter { t[$0].1.isOutlier })
            // Up to a third of the track may be outliers (a random pixel can by chance land near the truth,
            // which is then no outlier: allow it, but only within the error threshold).
            guard outliers.count * 3 <= t.count else { continue }
            let (point, inliers) = try #require(tri.triangulateRobust(obs), "track \(id)")
            checked += 1
            if !outliers.isEmpty { withOutliers += 1 }
            #expect(inliers.count >= t.count - outliers.count, "an inlier was dropped in track \(id)")
            for i in inliers where outliers.contains(i) {
                let p_C = obs[i].T_W_C.inverse.act(point.p_W)
                #expect((Vec2(p_C.x / p_C.z, p_C.y / p_C.z) - obs[i].normalized).norm * 460 < 5, "outlier kept in \(id)")
            }
            // The error in units of the triangulator's own σ (depth is poorly constrained at low parallax).
            worst = max(worst, (point.p_W - scene.landmarks_W[id % scene.landmarks_W.count]).norm / point.std_m)
        }
        #expect(checked > 50 && withOutliers > 10, "checked \(checked), with outliers \(withOutliers)")
        // Over ~100 points, a consistent estimate stays within 5σ (a kept outlier would be far beyond).
        #expect(worst < 5, "worst point error \(worst) σ")
    }
}
