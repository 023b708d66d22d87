// Simulates a short walk through the built-in room, tracks it with the WorldTrack pipeline and prints the
// final camera pose next to the simulator's ground truth.
//
//     swift run TrackSimulatedRoom [SECONDS]      (default 3 s; 376×240 images keep a debug build quick)

import Foundation
import Simulation
import WorldTrack

let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 3
let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("worldtrack-downstream-\(ProcessInfo.processInfo.processIdentifier)").path
defer { try? FileManager.default.removeItem(atPath: directory) }

do {
    var config = SimulationConfig(scene: try Scene.builtIn(named: "room"), trajectoryName: "handheld",
                                  seconds: seconds, seed: 1)
    config.rig = SimRig.euroc().scaled(width: 376, height: 240)
    try DatasetWriter.write(config, to: directory)

    let dataset = try ASLDataset(path: directory)
    var last: PipelineFrameResult?
    let summary = try TrackingPipeline(dataset: dataset).run(onFrame: { last = $0 })
    guard let frame = last else { throw PipelineError.badInput("no frame was tracked") }

    let p = frame.estimate.T_W_B.translation
    print(String(format: "tracked %d frames (%.1f s of data); last frame %@, body at (%.3f, %.3f, %.3f) m",
                 summary.frames, summary.dataset_s, frame.estimate.trackingState.description, p.x, p.y, p.z))

    // The estimate's world frame starts at the body's pose at initialisation; the truth's is the room's. The
    // distance between the first and last usable poses does not depend on the frame, so compare that.
    if let first = summary.bodyTrajectory.first, let final = summary.bodyTrajectory.last, let path = dataset.groundTruthPath {
        let truth = try TrajectoryFile.readASLGroundTruth(path: path)
        func truePosition(at t: TimestampNs) -> Vec3? {
            truth.min { abs($0.t_ns - t) < abs($1.t_ns - t) }?.T_W_B.translation
        }
        if let a = truePosition(at: first.t_ns), let b = truePosition(at: final.t_ns) {
            let estimated: Double = (final.pose.translation - first.pose.translation).norm
            let actual: Double = (b - a).norm
            print(String(format: "moved %.3f m between the first and last usable poses (ground truth %.3f m)",
                         estimated, actual))
        }
    }
} catch {
    FileHandle.standardError.write(Data("TrackSimulatedRoom: error: \(error)\n".utf8))
    exit(1)
}
