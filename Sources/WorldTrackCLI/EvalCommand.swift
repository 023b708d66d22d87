import ArgumentParser
import Evaluation
import Foundation
import Sensors

/// `worldtrack eval`: evaluate an estimated trajectory against ground truth (ATE, RPE, scale, completeness).
struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Evaluate an estimated trajectory against ground truth (ATE, RPE, tilt).",
        discussion: """
        Inputs are detected by content: TUM (`t x y z qx qy qz qw`, seconds), ASL ground truth CSV \
        (`t_ns, p, q wxyz, …`), or WorldTrack's JSON-Lines stream (frames' body pose; frames whose \
        tracking state is notAvailable or limited are skipped). --groundtruth also takes a dataset \
        folder (DATASET/mav0/state_groundtruth_estimate0/data.csv).

        Each estimate is paired with ground truth within --max-dt (interpolated when ground truth is \
        denser), the estimate is aligned (posyaw: translation + yaw, the VIO standard; se3; sim3; none), \
        then: ATE (position RMSE/mean/median/max, rotation RMSE), the tilt error (the angle between the \
        estimate's and the ground truth's vertical in the body frame, per pose; alignment-free, so a \
        visual-inertial estimate's gravity error in roll and pitch), RPE over sub-trajectories of given \
        travelled distance (default 10–50 % of the path, as rpg_trajectory_evaluation), the Sim(3) scale \
        error |1−s|·100 and completeness (share of the ground-truth time span covered by the estimate \
        without gaps longer than 3× its median frame interval).

        At least 3 associated poses are needed (exit 2 otherwise). A ground-truth path shorter than 10 cm, \
        or (se3, sim3) positions nearly on a line, gives a warning (stderr, under the table, and \
        `warnings` of --json): the alignment and scale are then noise. Non-finite figures are exit 2. \
        RPE lengths with no pose pair that far apart show no figures.

        Examples:
          worldtrack eval --estimate est.tum --groundtruth euroc/V1_01_easy
          worldtrack eval --estimate run.jsonl --groundtruth gt.csv --align se3
          worldtrack eval --estimate est.tum --groundtruth gt.tum --segments 8,16,24m
          worldtrack eval --estimate est.tum --groundtruth gt.tum --align sim3 --json
          worldtrack eval --estimate est.tum --groundtruth gt.tum --plot /tmp/plots
          worldtrack eval --estimate est.tum --groundtruth gt.tum --align-first 100
          worldtrack eval --estimate run2.tum --groundtruth DATASET \\
              --alignment-of run1.tum
          worldtrack eval --estimate est.tum --groundtruth DATASET \\
              --level-groundtruth

        When --groundtruth is a dataset folder with an IMU, eval measures gravity in the \
        ground truth's frame from it (no estimator involved) and warns when that frame is \
        tilted by more than 0.1°: posyaw and the tilt error then count the tilt as error, and \
        --level-groundtruth removes it from the comparison.
        """
    )

    @Option(name: .long, help: "Estimated trajectory: TUM file, ASL CSV or WorldTrack JSON-Lines stream.")
    var estimate: String

    @Option(name: .long, help: "Ground truth: TUM file, ASL CSV, or an ASL dataset folder.")
    var groundtruth: String

    @Option(name: .long, help: "Alignment: posyaw (4-DoF), se3, sim3 or none.")
    var align: AlignmentMethod = .posyaw

    @Option(name: .customLong("alignment-of"), help: "Do not align the estimate: apply the alignment (--align method) computed for this other trajectory against the same ground truth. Compares a run that loaded a saved world map (run --load-map) with the ground truth in the frame of the run that saved it.")
    var alignmentOf: String?

    @Flag(name: .customLong("level-groundtruth"), help: "Level the ground truth's world before aligning: gravity measured in its frame from the dataset's own IMU (--groundtruth must be a dataset folder with imu0), then the frame rotated so gravity is −z. A motion-capture frame levelled by hand can be a fraction of a degree off (EuRoC V1_01: 0.24°), and posyaw, which keeps the vertical, counts that tilt as the estimator's error.")
    var levelGroundtruth = false

    @Option(name: .customLong("align-first"), help: "Align on the first N associated poses only.")
    var alignFirst: Int?

    @Option(name: .customLong("max-dt"), help: "Largest time difference between an estimate and its ground truth, seconds.")
    var maxDt: Double = 0.01

    @Option(name: .long, help: "Ground-truth matching: interpolate (slerp/lerp when ground truth is denser) or nearest (as evo).")
    var association: AssociationMode = .interpolate

    @Option(name: .long, help: "RPE sub-trajectory lengths: percent of the path (10%,20%,30%,40%,50%) or metres (8,16,24m).")
    var segments: String = "10%,20%,30%,40%,50%"

    @Flag(name: .customLong("include-limited"), help: "Keep stream frames whose tracking state is limited.")
    var includeLimited = false

    @Flag(name: .long, help: "Print one JSON object instead of the table.")
    var json = false

    @Option(name: .long, help: "Write PNG plots to this folder: trajectory top and side views (the estimate coloured by its position error, over the ground truth), position and rotation error over time (mean, median, mean ± σ), RPE per length.")
    var plot: String?

    func run() throws {
        let options = try makeOptions()
        let est: LoadedTrajectory, gt: LoadedTrajectory
        do {
            est = try TrajectoryLoader.load(path: estimate, includeLimited: includeLimited)
            gt = try TrajectoryLoader.load(path: groundtruth, includeLimited: includeLimited)
        } catch let error as TrajectoryLoadError {
            throw CLIError.badInput(error.description)
        }
        if let plot { try Self.checkPlotFolder(plot) }
        let gravity = try measureGroundTruthGravity()
        var groundTruthPoses = gt.poses
        if levelGroundtruth, let gravity {
            groundTruthPoses = gt.poses.map { StampedPose(t_ns: $0.t_ns, pose: gravity.levelled($0.pose)) }
        }
        let report: EvaluationReport
        do {
            var options = options
            if let alignmentOf {
                let reference: LoadedTrajectory
                do { reference = try TrajectoryLoader.load(path: alignmentOf, includeLimited: includeLimited) } catch let error as TrajectoryLoadError {
                    throw CLIError.badInput("--alignment-of: \(error.description)")
                }
                options.fixedAlignment = try Evaluator.evaluate(estimate: reference.poses, groundTruth: groundTruthPoses, options: options).transform
            }
            report = try Evaluator.evaluate(estimate: est.poses, groundTruth: groundTruthPoses, options: options)
        } catch let error as EvaluationError {
            throw CLIError.badInput(error.description)
        }
        var warnings = est.warnings + gt.warnings
        if let gravity {
            let deg = gravity.tilt_rad * 180 / .pi
            if levelGroundtruth {
                if !gravity.usedGroundTruthBias {
                    warnings.append("--level-groundtruth: the ground truth has no accelerometer bias, so the measured tilt (\(String(format: "%.3f", deg))°) includes the bias's share (up to |b_a|/g)")
                }
            } else if Self.tiltIsFrameTilt(gravity), align == .posyaw || align == .none {
                warnings.append("\(gravity.summary); \(align.rawValue) keeps the vertical, so that tilt counts as error here: --level-groundtruth levels the ground truth first")
            }
        }
        if est.skippedFrames > 0 {
            warnings.append("\(est.path): skipped \(est.skippedFrames) frames with tracking state notAvailable\(includeLimited ? "" : " or limited")")
        }
        warnings += report.warnings
        for w in warnings { FileHandle.standardError.write(Data("worldtrack: warning: \(w)\n".utf8)) }
        // JSON cannot hold inf/NaN: encode before writing anything, so a failure is a clean exit 2.
        let jsonText: String?
        do {
            var summary = EvaluationSummary(report, warnings: warnings)
            if levelGroundtruth, let gravity { summary.groundtruth_levelled_deg = gravity.tilt_rad * 180 / .pi }
            jsonText = json ? try summary.jsonString() : nil
        } catch let error as EvaluationError {
            throw CLIError.badInput(error.description)
        }
        if let plot {
            do { try EvalPlots.write(report: report, to: plot) } catch {
                throw CLIError.failure("writing plots to \(plot): \(error)")
            }
        }
        if let jsonText {
            print(jsonText)
        } else {
            var table = EvalTable.render(report, estimatePath: est.path, groundTruthPath: gt.path)
            if levelGroundtruth, let gravity {
                // Under the alignment line, before the ATE block.
                let line = "levelled     the ground truth, by \(String(format: "%.3f", gravity.tilt_rad * 180 / .pi))° (\(gravity.summary))"
                if let range = table.range(of: "\nalignment ") , let end = table[range.upperBound...].firstIndex(of: "\n") {
                    table.insert(contentsOf: "\n" + line, at: end)
                } else {
                    table += "\n" + line
                }
            }
            print(table)
        }
    }

    /// Gravity in the ground truth's frame when `--groundtruth` is a dataset folder with an IMU (nil otherwise);
    /// with `--level-groundtruth` a folder without one, or one where it cannot be measured, is bad input.
    func measureGroundTruthGravity() throws -> GroundTruthGravity? {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: groundtruth, isDirectory: &isDir), isDir.boolValue else {
            if levelGroundtruth {
                throw CLIError.badInput("--level-groundtruth needs --groundtruth to be a dataset folder (its IMU measures gravity); \(groundtruth) is a file")
            }
            return nil
        }
        do {
            return try GroundTruthGravity.measure(datasetFolder: groundtruth)
        } catch {
            if levelGroundtruth { throw CLIError.badInput("--level-groundtruth: cannot measure gravity in \(groundtruth): \(error)") }
            return nil
        }
    }

    /// Whether a measured tilt is worth a warning: over 0.1°, measured with the ground truth's bias, and the same in
    /// every window (a tilt of the frame, not a bias fixed in the body).
    static func tiltIsFrameTilt(_ g: GroundTruthGravity) -> Bool {
        g.usedGroundTruthBias && g.tilt_rad > 0.1 * .pi / 180 && g.spread_rad < 0.5 * g.tilt_rad
    }

    /// The --plot folder must be creatable (or an existing folder): checked before the evaluation.
    static func checkPlotFolder(_ path: String) throws {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            guard isDir.boolValue else { throw CLIError.badInput("--plot \(path): exists and is not a folder") }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDir), isDir.boolValue else {
            throw CLIError.badInput("--plot \(path): folder \(folder) does not exist")
        }
    }

    func makeOptions() throws -> EvaluationOptions {
        guard maxDt.isFinite, maxDt >= 0, maxDt <= 1e6 else {
            throw CLIError.badInput("--max-dt must be a non-negative number of seconds (at most 1e6), got \(maxDt)")
        }
        if let n = alignFirst, n < 1 { throw CLIError.badInput("--align-first must be at least 1, got \(n)") }
        guard let segmentLengths = SegmentLengths(parsing: segments) else {
            throw CLIError.badInput("--segments '\(segments)': expected percentages like 10%,20%,30% or metres like 8,16,24m")
        }
        return EvaluationOptions(alignment: align, alignFirst: alignFirst, maxDt_ns: Time.nanoseconds(maxDt),
                                 association: association, segments: segmentLengths)
    }
}

extension AlignmentMethod: ExpressibleByArgument {}
extension AssociationMode: ExpressibleByArgument {}
