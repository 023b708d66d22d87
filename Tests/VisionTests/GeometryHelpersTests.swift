import Foundation
import Geometry
import Imaging
import Sensors
import Simulation
import Testing
@testable import Vision

/// Gyro integration, rotation prediction, epipolar outlier rejection and the min-distance grid.
struct GeometryHelpersTests {
    @Test func gyroIntegrationOfAConstantRateIsExact() {
        let w = Vec3(0.3, -1.2, 0.7)
        let samples = (0..<40).map { IMUSample(t_ns: TimestampNs($0) * 5_000_000, gyro_B: w, accel_B: .zero) }
        let R = GyroIntegration.bodyRotation(samples: samples, from: 12_000_000, to: 62_000_000)
        // Exact up to rounding: a constant rate integrates to exp(w·dt) whatever the pieces.
        #expect(R.angle(to: SO3.exp(w * 0.05)) < 1e-12)
        // Before the first sample and after the last the rate is held.
        let held = GyroIntegration.bodyRotation(samples: [samples[0]], from: 0, to: 100_000_000)
        #expect(held.angle(to: SO3.exp(w * 0.1)) < 1e-12)
        #expect(GyroIntegration.bodyRotation(samples: [], from: 0, to: 1).angle < 1e-15)
    }

    @Test func gyroIntegrationFollowsASimulatedTrajectory() throws {
        let scene = Scene.room()
        let rig = SimRig.euroc()
        let trajectory = try AnalyticTrajectory.make(name: "handheld", scene: scene,
                                                     options: TrajectoryOptions(startMoving: true), rig: rig)
        // Exact body rates at 200 Hz, frames 50 ms apart at an odd offset.
        let samples = (0..<200).map { k -> IMUSample in
            let t = Double(k) * 0.005
            return IMUSample(t_ns: Time.nanoseconds(t), gyro_B: trajectory.angularVelocity_B(at: t), accel_B: .zero)
        }
        let T_B_C = rig.cameras[0].T_B_C
        for (t0, t1) in [(0.1031, 0.1531), (0.5, 0.55), (0.7777, 0.8777)] {
            let R = GyroIntegration.cameraRotation(samples: samples, from: Time.nanoseconds(t0), to: Time.nanoseconds(t1), T_B_C: T_B_C)
            let truth = (trajectory.pose(at: t1) * T_B_C).rotation.inverse * (trajectory.pose(at: t0) * T_B_C).rotation
            // Trapezoidal integration of 200 Hz rates over 50–100 ms of handheld motion (≤ ~2 rad/s):
            // the error is second order, well below 1e-4 rad (0.05 px at f = 458 px).
            #expect(R.angle(to: truth) < 1e-4, "\(t0)…\(t1): \(R.angle(to: truth)) rad")
            #expect(truth.angle > 1e-3) // the test moves
        }
    }

    @Test func rotationPredictionIsExactForDistantPoints() {
        let model = SimRig.eurocCam0Model
        let R = SO3.exp(Vec3(0.05, -0.08, 0.02)) // R_Cnew_Cold
        for pixel in [Vec2(100, 80), Vec2(367, 248), Vec2(700, 450), Vec2(20, 400)] {
            guard let b = model.bearing(pixel), let predicted = RotationPrediction.predict(pixel, camera: model, R_Cnew_Cold: R) else {
                Issue.record("no prediction for \(pixel)"); continue
            }
            // A point 1 km away along the bearing, seen from the rotated camera (same centre).
            guard let truth = model.project(R * (1000 * b)) else { continue }
            // Unproject/project round trips are accurate to ~1e-8 px.
            #expect((predicted - truth).norm < 1e-6)
        }
    }

    /// Correspondences of points in front of two cameras with known motion, with every 10th corrupted.
    static func correspondences(R_C2_C1: SO3, t_C2_C1: Vec3, count: Int = 120) -> ([Vec2], [Vec2], [Bool]) {
        var rng = SeededRandom(seed: 7)
        func uniform() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        var x1: [Vec2] = [], x2: [Vec2] = [], truth: [Bool] = []
        for i in 0..<count {
            let p1 = Vec3(uniform() * 4 - 2, uniform() * 3 - 1.5, 2 + uniform() * 6)
            let p2 = R_C2_C1 * p1 + t_C2_C1
            x1.append(Vec2(p1.x / p1.z, p1.y / p1.z))
            var b = Vec2(p2.x / p2.z, p2.y / p2.z)
            let outlier = i % 10 == 3
            if outlier { b += Vec2(0.02 + 0.03 * uniform(), -0.025) } // 10–25 px at f = 458
            x2.append(b); truth.append(!outlier)
        }
        return (x1, x2, truth)
    }

    @Test func epipolarFilterFindsTheOutliers() {
        let R = SO3.exp(Vec3(0.02, -0.04, 0.01)), t = Vec3(0.1, 0.02, -0.03)
        let (x1, x2, truth) = Self.correspondences(R_C2_C1: R, t_C2_C1: t)
        let threshold = 1.0 / 458
        // Noise-free inliers fit exactly and the corruptions are ≥ 10 px off their epipolar lines in
        // most directions, so both solvers must reproduce the labels (allow 2 corrupted points that
        // happen to slide along their epipolar line).
        for R_known in [nil, R] as [SO3?] {
            let flags = EpipolarOutlierFilter.inliers(x1, x2, threshold: threshold, R_C2_C1: R_known)
            let inliersKept = zip(flags, truth).filter { $0.1 && $0.0 }.count
            let outliersKept = zip(flags, truth).filter { !$0.1 && $0.0 }.count
            #expect(inliersKept == truth.filter { $0 }.count, "R known: \(R_known != nil)")
            #expect(outliersKept <= 2, "R known: \(R_known != nil)")
        }
        // Too few correspondences: everything is kept.
        #expect(EpipolarOutlierFilter.inliers(Array(x1.prefix(5)), Array(x2.prefix(5)), threshold: threshold) == [true, true, true, true, true])
    }

    @Test func withoutAKnownRotationTheFilterAlsoReturnsTheRotationItFound() throws {
        // The rotation of an IMU gap's frame (FeatureFrameResult.visualRotation_Cnew_Cold): the same inlier flags as
        // `inliers`, and the essential matrix's rotation, within a hundredth of a degree on noise-free inliers.
        let R = SO3.exp(Vec3(0.02, -0.04, 0.01)), t = Vec3(0.1, 0.02, -0.03)
        let (x1, x2, _) = Self.correspondences(R_C2_C1: R, t_C2_C1: t)
        let threshold = 1.0 / 458
        let (flags, found) = EpipolarOutlierFilter.inliersAndRotation(x1, x2, threshold: threshold)
        #expect(flags == EpipolarOutlierFilter.inliers(x1, x2, threshold: threshold))
        let rotation = try #require(found)
        #expect((rotation * R.inverse).log.norm < 1e-4, "\((rotation * R.inverse).log.norm) rad")
        // A turn of a tenth of a degree with the same translation is told apart (the check is not vacuous).
        let turned = SO3.exp(Vec3(0, 0.0017, 0)) * R
        #expect((rotation * turned.inverse).log.norm > 1e-3)
        // A baseline of a hundredth of the depths (a drone at 0.3 m/s between two frames at 20 Hz, 2–8 m away):
        // too small for cheirality to pick the rotation, the smaller turn of the two still is the camera's.
        // With ±0.3 px of noise the minimal sample's rotation is good to about the inlier threshold (2 px: 4e-3 rad)
        // there; refitted on every inlier it is good to a few 1e-5 rad.
        let slow = Self.correspondences(R_C2_C1: R, t_C2_C1: Vec3(0.015, 0.002, -0.004))
        var rng = SeededRandom(seed: 11)
        func jitter() -> Double { (Double(rng.next() >> 11) / Double(1 << 53) - 0.5) * 0.6 / 458 }
        let kept = slow.2.indices.filter { slow.2[$0] }
        let noisy = kept.map { slow.1[$0] + Vec2(jitter(), jitter()) }
        let slowRotation = try #require(EpipolarOutlierFilter.inliersAndRotation(kept.map { slow.0[$0] }, noisy,
                                                                                threshold: threshold).R_C2_C1)
        // The minimal sample's own rotation, for comparison.
        let model = try EpipolarRANSAC.essential(kept.map { slow.0[$0] }, noisy, threshold: threshold, confidence: 0.999,
                                                 maxIterations: 500)
        let (m1, m2, _) = try EpipolarRANSAC.rotations(ofEssential: model.matrix)
        let minimal = [m1, m2].map { SO3(matrix: Mat3(rowMajor: $0)) }.min { $0.log.norm < $1.log.norm }!
        let refinedError = (slowRotation * R.inverse).log.norm, minimalError = (minimal * R.inverse).log.norm
        print("slow baseline: rotation error \(minimalError) rad from the minimal sample, \(refinedError) rad refitted")
        #expect(refinedError < 1e-3 && refinedError < 0.5 * minimalError, "\(minimalError) → \(refinedError) rad")
        // Too few correspondences: everything kept, no rotation.
        let few = EpipolarOutlierFilter.inliersAndRotation(Array(x1.prefix(5)), Array(x2.prefix(5)), threshold: threshold)
        #expect(few.inliers == [true, true, true, true, true] && few.R_C2_C1 == nil)
    }

    @Test func twoPointFilterHandlesPureRotation() {
        let R = SO3.exp(Vec3(0.03, 0.05, -0.02))
        let (x1, x2, truth) = Self.correspondences(R_C2_C1: R, t_C2_C1: .zero)
        let flags = EpipolarOutlierFilter.inliers(x1, x2, threshold: 1.0 / 458, R_C2_C1: R)
        // With no translation every inlier sits on the rotated point; corruptions are ≥ 10 px away.
        #expect(flags == truth)
    }

    @Test func minDistanceGridAgreesWithBruteForce() {
        var rng = SeededRandom(seed: 3)
        for minDistance in [5.0, 16.0, 33.3] {
            var grid = MinDistanceGrid(width: 752, height: 480, minDistance: minDistance)
            var accepted: [SIMD2<Float>] = []
            for _ in 0..<3000 {
                let p = SIMD2(Float(rng.next() % 75200) / 100, Float(rng.next() % 48000) / 100)
                let free = accepted.allSatisfy { let d = $0 - p; return (d.x * d.x + d.y * d.y).squareRoot() >= Float(minDistance) }
                #expect(grid.insertIfFree(p) == free)
                if free { accepted.append(p) }
            }
            grid.reset()
            #expect(grid.isFree(accepted[0]))
        }
    }
}
