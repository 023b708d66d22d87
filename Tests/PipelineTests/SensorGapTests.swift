import Estimation
import Evaluation
import Foundation
import Geometry
import Pipeline
import Sensors
import Testing
import TestSupport

/// Gaps in the sensor data (issue 16, item 3): IMU rows or camera frames missing for a while. The frames a gap
/// touches must not be `normal`, tracking must be `normal` again within 3 s after the gap, and the pose of the
/// `normal` frames must stay within 2× the error of the same run without the gap. The gap copies share the
/// simulated room's files (symbolic links) except the one `data.csv` they rewrite.
/// These simulate and track 30 s sequences: run them on a release build (README's test command).
@Suite("Sensor gaps (simulated room, whole pipeline)")
struct SensorGapTests {
    static let seconds = 30.0
    static let seed: UInt64 = 14
    /// The gap starts this long after the first frame, seconds.
    static let gapStart = 12.0

    /// One run: every frame's time since the first frame (seconds) and tracking state, and the posyaw ATE
    /// (position RMSE, metres) of the `normal` frames against the original sequence's ground truth.
    struct Run {
        var frames: [(t: Double, state: TrackingState)]
        var ateNormal_m: Double

        /// The frames with `a < t < b` (seconds since the first frame).
        func states(from a: Double, to b: Double) -> [TrackingState] {
            frames.filter { $0.t > a && $0.t < b }.map(\.state)
        }
    }

    /// A copy of the dataset at `path` whose `mav0/<sensor>/data.csv` lacks the rows with `a ≤ t < b` (seconds
    /// since the first camera frame); every other file is a symbolic link to the original.
    static func copy(_ path: String, removing sensor: String, from a: Double, to b: Double) throws -> String {
        let fm = FileManager.default
        let out = SimSequenceCache.scratchRoot + "/gap-\(sensor)-\(Int(a * 1000))-\(Int(b * 1000))-\(URL(fileURLWithPath: path).lastPathComponent)"
        try? fm.removeItem(atPath: out)
        try fm.createDirectory(atPath: out + "/mav0/" + sensor, withIntermediateDirectories: true)
        for entry in try fm.contentsOfDirectory(atPath: path) where entry != "mav0" {
            try fm.createSymbolicLink(atPath: out + "/" + entry, withDestinationPath: path + "/" + entry)
        }
        for entry in try fm.contentsOfDirectory(atPath: path + "/mav0") where entry != sensor {
            try fm.createSymbolicLink(atPath: out + "/mav0/" + entry, withDestinationPath: path + "/mav0/" + entry)
        }
        let folder = "/mav0/" + sensor
        for entry in try fm.contentsOfDirectory(atPath: path + folder) where entry != "data.csv" {
            try fm.createSymbolicLink(atPath: out + folder + "/" + entry, withDestinationPath: path + folder + "/" + entry)
        }
        let cameraRows = try String(contentsOfFile: path + "/mav0/cam0/data.csv", encoding: .utf8).split(separator: "\n")
        let firstRow = try #require(cameraRows.first { !$0.hasPrefix("#") })
        let t0 = try #require(Int64(firstRow.split(separator: ",")[0]))
        let rows = try String(contentsOfFile: path + folder + "/data.csv", encoding: .utf8).split(separator: "\n")
        var kept: [Substring] = [], removed = 0
        for row in rows {
            if !row.hasPrefix("#"), let t = Int64(row.split(separator: ",")[0]) {
                let s = Time.seconds(t - t0)
                if s >= a && s < b { removed += 1; continue }
            }
            kept.append(row)
        }
        #expect(removed > 0)
        try (kept.joined(separator: "\n") + "\n").write(toFile: out + folder + "/data.csv", atomically: true, encoding: .utf8)
        return out
    }

    /// Tracks `path` (mono) and evaluates its `normal` frames against the ground truth of `groundTruthPath`.
    /// The run without a gap, tracked once for both tests (`static let` is initialised once, thread-safely).
    static let referenceRun = Result { () throws -> Run in
        let original = try SimSequenceCache.roomHandheld(seconds: seconds, seed: seed)
        return try track(original, groundTruthPath: original)
    }

    static func track(_ path: String, groundTruthPath: String, gapDetection: Bool = true) throws -> Run {
        var options = PipelineOptions()
        options.estimator.tracking.sensorGap.enabled = gapDetection
        var frames: [PipelineFrameResult] = []
        _ = try TrackingPipeline(dataset: try ASLDataset(path: path), options: options).run(onFrame: { frames.append($0) })
        let t0 = try #require(frames.first).estimate.t_ns
        let normal = frames.filter { $0.estimate.trackingState == .normal }
            .map { StampedPose(t_ns: $0.estimate.poseTime_ns, pose: $0.estimate.T_W_B) }
        let groundTruth = try TrajectoryLoader.load(path: groundTruthPath).poses
        let report = try Evaluator.evaluate(estimate: normal, groundTruth: groundTruth, options: EvaluationOptions(alignment: .posyaw))
        return Run(frames: frames.map { (Time.seconds($0.estimate.t_ns - t0), $0.estimate.trackingState) },
                   ateNormal_m: report.ate.position.rmse)
    }

    /// Checks a gap run against the run without the gap; `gapEnd` in seconds since the first frame.
    static func checkRecovery(_ run: Run, reference: Run, gapEnd: Double, label: String) {
        let normalAgain = run.frames.first { $0.t >= gapEnd && $0.state == .normal }.map { $0.t - gapEnd }
        let lastLimited = run.frames.last { $0.t >= gapEnd && $0.state != .normal }.map { $0.t - gapEnd }
        print("\(label): ATE of normal frames \(run.ateNormal_m) m (no gap: \(reference.ateNormal_m) m); normal again "
              + "\(normalAgain ?? -1) s after the gap, last non-normal frame \(lastLimited ?? -1) s after it")
        // Normal again within 3 s, and from then on to the end.
        #expect((normalAgain ?? .infinity) <= 3)
        #expect((lastLimited ?? 0) < 3)
        #expect(run.ateNormal_m <= 2 * reference.ateNormal_m)
    }

    // Measured (seed 14), ATE of the normal frames: 2 s IMU gap at 12 s of 30 s, 6.6 mm against 5.4 mm without the
    // gap (8.5 mm with the attitude held still across the gap; 12.6 mm before the gap's drift was made an uncertainty
    // of position and heading that map points correct); at 30 s of 60 s, 5.1 mm against 4.6 mm (99.9 mm before: a
    // 2.5° heading error the bridge left).
    @Test("2 s IMU gap: no frame inside it normal, normal within 3 s after it, ATE of normal frames ≤ 2× no gap")
    func imuGap() throws {
        let original = try SimSequenceCache.roomHandheld(seconds: Self.seconds, seed: Self.seed)
        let gapEnd = Self.gapStart + 2
        let gapped = try Self.copy(original, removing: "imu0", from: Self.gapStart, to: gapEnd)
        let reference = try Self.referenceRun.get()
        let run = try Self.track(gapped, groundTruthPath: original)

        // Control: without the gap every frame after the first normal one is normal (so the checks below measure
        // the gap), and none says sensorGap.
        let firstNormal = try #require(reference.frames.firstIndex { $0.state == .normal })
        #expect(reference.frames[firstNormal...].allSatisfy { $0.state == .normal })
        // The frame at the gap's start still has its IMU data (the last row is 5 ms before it): from the next one on.
        let inside = run.states(from: Self.gapStart, to: gapEnd)
        #expect(inside.count >= 38)
        #expect(inside.allSatisfy { $0 == .limited(.sensorGap) })
        print("IMU gap: states inside \(Dictionary(grouping: inside.map(\.description), by: { $0 }).mapValues(\.count))")
        Self.checkRecovery(run, reference: reference, gapEnd: gapEnd, label: "IMU gap")

        // Control: with gap detection off the same gap passes as normal tracking.
        let blind = try Self.track(gapped, groundTruthPath: original, gapDetection: false)
        let blindInside = blind.states(from: Self.gapStart, to: gapEnd)
        print("IMU gap, detection off: \(blindInside.filter { $0 == .normal }.count) of \(blindInside.count) frames inside normal, "
              + "ATE of normal frames \(blind.ateNormal_m) m")
        #expect(blindInside.contains(.normal))
    }

    // The same gap on the seeds where it used to leave the heading off for good (docs/ACCURACY.md, "Sensor gaps"):
    // with the attitude held still across the gap, 142.5 mm against 4.6 mm (seed 4) and 70.7 mm against 6.0 mm
    // (seed 7); turned by the rotation the tracks measure, 5.5 and 5.0 mm.
    @Test("2 s IMU gap on other seeds: the heading survives it, ATE of normal frames ≤ 2× no gap", arguments: [UInt64(4), 7])
    func imuGapOtherSeeds(seed: UInt64) throws {
        let original = try SimSequenceCache.roomHandheld(seconds: Self.seconds, seed: seed)
        let gapEnd = Self.gapStart + 2
        let gapped = try Self.copy(original, removing: "imu0", from: Self.gapStart, to: gapEnd)
        let reference = try Self.track(original, groundTruthPath: original)
        let run = try Self.track(gapped, groundTruthPath: original)
        Self.checkRecovery(run, reference: reference, gapEnd: gapEnd, label: "IMU gap, seed \(seed)")
    }

    @Test("1 s camera gap: the frames after it limited(sensorGap), normal within 3 s, ATE of normal frames ≤ 2× no gap")
    func cameraGap() throws {
        let original = try SimSequenceCache.roomHandheld(seconds: Self.seconds, seed: Self.seed)
        let gapEnd = Self.gapStart + 1
        let gapped = try Self.copy(original, removing: "cam0", from: Self.gapStart, to: gapEnd)
        let reference = try Self.referenceRun.get()
        let run = try Self.track(gapped, groundTruthPath: original)

        // The frames are absent: none inside the gap; the first one after it follows the gap.
        #expect(run.states(from: Self.gapStart - 0.01, to: gapEnd - 0.01).isEmpty)
        let after = try #require(run.frames.first { $0.t >= gapEnd - 0.01 })
        #expect(after.state == .limited(.sensorGap))
        Self.checkRecovery(run, reference: reference, gapEnd: gapEnd, label: "camera gap")

        // Control: with gap detection off the frame after the gap is normal.
        let blind = try Self.track(gapped, groundTruthPath: original, gapDetection: false)
        let blindAfter = try #require(blind.frames.first { $0.t >= gapEnd - 0.01 })
        print("camera gap, detection off: frame after the gap \(blindAfter.state), ATE of normal frames \(blind.ateNormal_m) m")
        #expect(blindAfter.state == .normal)
    }
}
