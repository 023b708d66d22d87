import Evaluation
import Foundation
import Sensors

/// Gravity in a dataset folder's ground-truth frame, measured from the folder's own IMU (``GroundTruthGravity``): what
/// `eval --level-groundtruth` levels the ground truth with, and what `bench-suite` measures the tilt error against.
enum GroundTruthLevelling {
    /// Gravity in the ground truth's frame of the ASL dataset at `path`; throws when the folder has no ground truth
    /// or gravity cannot be measured in it (no IMU overlap, too short).
    static func measure(datasetFolder path: String) throws -> GroundTruthGravity {
        let dataset = try ASLDataset(path: path)
        guard let groundTruthPath = dataset.groundTruthPath else { throw CLIError.badInput("no ground truth in \(path)") }
        let states = try TrajectoryFile.readASLGroundTruth(path: groundTruthPath)
        return try GroundTruthGravity.measure(groundTruth: states, imu: dataset.imu.samples)
    }

    /// The tilt error of `report`'s pairs against gravity: the ground truth levelled by `gravity` first.
    static func tiltAgainstGravity(_ report: EvaluationReport, gravity: GroundTruthGravity) -> TiltError {
        TiltError(pairs: report.pairs.map {
            AssociatedPair(t_ns: $0.t_ns, estimate: $0.estimate, groundTruth: gravity.levelled($0.groundTruth))
        })
    }
}
