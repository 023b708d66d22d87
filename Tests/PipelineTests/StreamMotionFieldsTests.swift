import Consumers
import Foundation
import Geometry
import Pipeline
import Sensors
import Testing
import TestSupport

/// Issue 18 (item 4): `frame` records carry the body's velocity, the IMU biases and the pose's uncertainty,
/// checked against the simulator's ground truth (room, seed 21, first 15 s).
@Suite("Stream: velocity, biases and uncertainty in frame records (simulated room)")
struct StreamMotionFieldsTests {
    /// Ground-truth rows: time, velocity in the ground truth's world (m/s), gyro and accel biases (IMU frame).
    static func groundTruth(_ path: String) throws -> [(t_ns: Int64, v: Vec3, bg: Vec3, ba: Vec3)] {
        let text = try String(contentsOfFile: path + "/mav0/state_groundtruth_estimate0/data.csv", encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let f = line.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) ?? .nan }
            guard f.count >= 17, let t = Int64(line.split(separator: ",")[0]) else { return nil }
            return (t, Vec3(f[8], f[9], f[10]), Vec3(f[11], f[12], f[13]), Vec3(f[14], f[15], f[16]))
        }
    }

    @Test("velocity, biases and σ: absent before initialisation, then in every record and close to the truth")
    func motionFieldsFollowTheTruth() throws {
        let path = try SimSequenceCache.roomHandheld(seconds: 30, seed: 21)
        var options = PipelineOptions()
        options.max_s = 15
        var frames: [(FrameRecord, Bool)] = []   // the record and whether tracking was normal
        _ = try TrackingPipeline(dataset: try ASLDataset(path: path), options: options).run(onFrame: { result in
            for case let record as FrameRecord in result.records { frames.append((record, result.estimate.trackingState == .normal)) }
        })
        let truth = try Self.groundTruth(path)
        let byTime = Dictionary(truth.map { ($0.t_ns, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(frames.count > 250)
        // Before the first estimate the fields are absent, never NaN or placeholders.
        let first = try #require(frames.firstIndex { $0.0.velocity != nil })
        #expect(frames[..<first].allSatisfy { $0.0.position_std == nil && $0.0.gyro_bias == nil && $0.0.accel_bias == nil })
        #expect(frames[first...].allSatisfy { $0.0.velocity != nil && $0.0.position_std != nil && $0.0.orientation_std != nil })
        var speedErrors: [Double] = [], verticalErrors: [Double] = [], gyroBiasErrors: [Double] = [], accelBiasErrors: [Double] = []
        var stds: [Double] = []
        for (record, normal) in frames[first...] where normal {
            guard let gt = byTime[record.t_ns], let v = record.velocity, let bg = record.gyro_bias, let ba = record.accel_bias,
                  let std = record.position_std, let ostd = record.orientation_std else { continue }
            let velocity = Vec3(v[0], v[1], v[2])
            // The estimate's world differs from the truth's by a yaw and an offset: compare speed and vertical velocity.
            speedErrors.append(velocity.norm - gt.v.norm)
            verticalErrors.append(velocity.z - gt.v.z)
            gyroBiasErrors.append((Vec3(bg[0], bg[1], bg[2]) - gt.bg).norm)
            accelBiasErrors.append((Vec3(ba[0], ba[1], ba[2]) - gt.ba).norm)
            stds.append(std)
            #expect(std > 0 && ostd > 0 && ostd < 0.1)
        }
        func rms(_ v: [Double]) -> Double { (v.reduce(0) { $0 + $1 * $1 } / Double(max(v.count, 1))).squareRoot() }
        let late = Array(gyroBiasErrors.suffix(gyroBiasErrors.count / 2)), lateAccel = Array(accelBiasErrors.suffix(accelBiasErrors.count / 2))
        print("stream motion fields: \(speedErrors.count) normal frames; speed error RMS \(rms(speedErrors)) m/s, vertical \(rms(verticalErrors)) m/s; "
              + "gyro bias error (second half) RMS \(rms(late)) rad/s, accel bias \(rms(lateAccel)) m/s²; position σ \(stds.first ?? .nan) → \(stds.last ?? .nan) m")
        #expect(speedErrors.count > 200)
        #expect(rms(speedErrors) < 0.01)   // measured 3.2 mm/s
        #expect(rms(verticalErrors) < 0.01)   // 2.0 mm/s
        #expect(rms(late) < 5e-4)   // 1.4e-4 rad/s
        #expect(rms(lateAccel) < 0.02)   // 6.2e-3 m/s²
        // Position is unobservable: its σ grows from the initialisation.
        #expect((stds.last ?? 0) > (stds.first ?? .infinity))
    }
}

/// `run --stream-points`: frame records list the mapped points the frame sees.
@Suite("Stream: the points a frame sees (--stream-points)")
struct StreamPointsTests {
    @Test("points: only when asked and while normal; unique ids of this frame's tracks; in front of the camera and inside the image")
    func pointsAreSeenByTheFrame() throws {
        let path = try SimSequenceCache.roomHandheld(seconds: 30, seed: 21)
        var options = PipelineOptions()
        options.max_s = 8
        options.streamPoints = true
        let dataset = try ASLDataset(path: path)
        let camera = dataset.cameras[0].calibration
        var withPoints = 0, pointCount = 0, outside = 0
        _ = try TrackingPipeline(dataset: dataset, options: options).run(onFrame: { result in
            for case let record as FrameRecord in result.records {
                guard let points = record.points else {
                    #expect(result.estimate.trackingState != .normal || !result.world.isTrackingNormal)
                    continue
                }
                #expect(result.estimate.trackingState == .normal)
                let featureIds = Set(result.features.features.map(\.id))
                #expect(Set(points.map(\.id)).count == points.count)
                #expect(points.allSatisfy { featureIds.contains($0.id) })
                withPoints += 1; pointCount += points.count
                for p in points {
                    let p_C = result.estimate.T_W_C.inverse.act(Vec3(p.position[0], p.position[1], p.position[2]))
                    guard p_C.z > 0, let px = camera.model.project(p_C),
                          px.x >= -5, px.y >= -5, px.x <= Double(camera.model.width) + 5, px.y <= Double(camera.model.height) + 5
                    else { outside += 1; continue }
                }
            }
        })
        print("stream points: \(withPoints) frames with points, \(Double(pointCount) / Double(max(withPoints, 1))) per frame, \(outside) outside the image")
        #expect(withPoints > 100)
        #expect(Double(pointCount) / Double(withPoints) > 20)
        #expect(Double(outside) < 0.02 * Double(pointCount))
        // Off by default: no points.
        var plain = PipelineOptions()
        plain.max_s = 2
        var any = false
        _ = try TrackingPipeline(dataset: dataset, options: plain).run(onFrame: { result in
            for case let record as FrameRecord in result.records where record.points != nil { any = true }
        })
        #expect(!any)
    }
}
