import Consumers
import Evaluation
import Foundation
import Pipeline
import Sensors
import Testing
import TestSupport

/// Issue 19 (item 1, `run --start`): a run that begins mid-sequence, on the simulated room (30 s, seed 21).
@Suite("Start mid-sequence (PipelineOptions.start_s, simulated room)")
struct StartOffsetTests {
    /// Start 10 s in (the walk is under way there: the dynamic initialiser), 10 s of camera data (`max_s`
    /// counts from the start). The first frame and pose are at ≥ 10 s, tracking is `normal` within 3 s of the
    /// start, the posyaw ATE is under 2 cm, and the summary counts only the frames processed.
    @Test("start_s = 10: nothing before 10 s, normal within 3 s, ATE < 2 cm; max_s counts from the start")
    func startsMidSequence() throws {
        let path = try SimSequenceCache.roomHandheld(seconds: 30, seed: 21)
        let dataset = try ASLDataset(path: path)
        let frames = dataset.cameras[0].frames
        let datasetFirst = try #require(frames.first?.t_ns)
        let startT = datasetFirst + 10_000_000_000
        var options = PipelineOptions()
        options.start_s = 10
        options.max_s = 10
        var recordTimes: [TimestampNs] = []
        var poseTimes: [TimestampNs] = []
        var firstNormal: TimestampNs?
        let summary = try TrackingPipeline(dataset: dataset, options: options).run(
            onFrame: { result in
                for case let record as FrameRecord in result.records { recordTimes.append(record.t_ns) }
                if firstNormal == nil && result.estimate.trackingState == .normal { firstNormal = result.world.t_ns }
            },
            onPose: { poseTimes.append($0.t_ns) })
        let firstProcessed = try #require(frames.first { $0.t_ns >= startT }?.t_ns)
        let expected = frames.filter { $0.t_ns >= startT && $0.t_ns <= firstProcessed + 10_000_000_000 }.count
        let report = try Evaluator.evaluate(estimate: summary.bodyTrajectory, groundTruth: try TrajectoryLoader.load(path: path).poses,
                                            options: EvaluationOptions(alignment: .posyaw))
        let toNormal = try #require(firstNormal.map { Time.seconds($0 - firstProcessed) })
        print("start 10 s: \(summary.frames) frames, first record at \(Time.seconds((recordTimes.first ?? 0) - datasetFirst)) s, "
              + "normal \(toNormal) s after the start, ATE \(report.ate.position.rmse) m over \(summary.bodyTrajectory.count) poses, "
              + "dataset_s \(summary.dataset_s)")
        #expect(recordTimes.first == firstProcessed)
        #expect(recordTimes.allSatisfy { $0 >= startT })
        #expect(try #require(poseTimes.first) >= startT - 50_000_000)   // stamped t_cam + t̂_d (|t_d| ≤ 50 ms)
        #expect(summary.bodyTrajectory.allSatisfy { $0.t_ns >= startT - 50_000_000 })
        #expect(toNormal <= 3)
        #expect(abs((summary.secondsToNormal ?? .infinity) - toNormal) < 1e-9)
        #expect(report.ate.position.rmse < 0.02)
        // Only the processed frames count: 10 s at 20 Hz, not the 20 s since the dataset's first frame.
        #expect(summary.frames == expected && recordTimes.count == expected && expected >= 200)
        #expect(abs(summary.dataset_s - 10) < 0.06)
    }

    @Test("start_s: negative, NaN or past the last frame is bad input naming it")
    func badStart() throws {
        let dataset = try ASLDataset(path: try SimSequenceCache.roomHandheld(seconds: 30, seed: 21))
        for bad in [-1, Double.nan, 1000] {
            var options = PipelineOptions()
            options.start_s = bad
            do {
                _ = try TrackingPipeline(dataset: dataset, options: options)
                Issue.record("start_s = \(bad) accepted")
            } catch let error as PipelineError {
                #expect(error.description.contains(bad == 1000 ? "no camera frames after 1000" : "≥ 0"), "\(error)")
            }
        }
    }
}
