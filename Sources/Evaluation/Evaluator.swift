import Foundation
import Geometry
import Sensors

/// Settings of an evaluation.
public struct EvaluationOptions: Equatable, Sendable {
    /// Alignment of the estimate to the ground truth.
    public var alignment: AlignmentMethod
    /// Align on the first N associated pairs only (nil: on all pairs).
    public var alignFirst: Int?
    /// Largest time difference between an estimate and its ground truth, nanoseconds.
    public var maxDt_ns: TimestampNs
    /// How ground truth is matched to estimates.
    public var association: AssociationMode
    /// Sub-trajectory lengths for the RPE.
    public var segments: SegmentLengths

    public init(alignment: AlignmentMethod = .posyaw, alignFirst: Int? = nil,
                maxDt_ns: TimestampNs = Association.defaultMaxDt_ns, association: AssociationMode = .interpolate,
                segments: SegmentLengths = .default) {
        self.alignment = alignment; self.alignFirst = alignFirst; self.maxDt_ns = maxDt_ns
        self.association = association; self.segments = segments
    }
}

/// Why an evaluation cannot be made.
public enum EvaluationError: Error, Equatable, CustomStringConvertible {
    /// The estimate and the ground truth do not overlap in time.
    case noOverlap(estimate: ClosedRange<Double>, groundTruth: ClosedRange<Double>, maxDt_s: Double)
    /// An input is empty.
    case empty(String)
    /// An argument is out of range.
    case badOption(String)
    /// Alignment failed.
    case alignment(AlignmentError)

    public var description: String {
        switch self {
        case .noOverlap(let e, let g, let dt):
            return String(format: "no estimated pose has ground truth within %.3f s: estimate spans %.3f…%.3f s, ground truth %.3f…%.3f s (different clocks? --max-dt?)",
                          dt, e.lowerBound, e.upperBound, g.lowerBound, g.upperBound)
        case .empty(let what): return "\(what) has no poses"
        case .badOption(let m): return m
        case .alignment(let e): return e.description
        }
    }
}

/// The full result of comparing an estimated trajectory with ground truth.
public struct EvaluationReport: Sendable {
    /// The settings used.
    public var options: EvaluationOptions
    /// Associated pairs (raw, unaligned estimate).
    public var pairs: [AssociatedPair]
    /// Number of pairs the alignment was computed on.
    public var alignedOn: Int
    /// The alignment `T_W_E` (with scale for Sim(3)) applied to the estimate.
    public var transform: SimilarityTransform
    /// Absolute trajectory error after alignment.
    public var ate: AbsoluteTrajectoryError
    /// Relative pose error per segment length.
    public var rpe: [RelativeErrorSegment]
    /// Scale of a Sim(3) alignment on the same pairs (nil when degenerate), whatever the chosen method.
    public var sim3Scale: Double?
    /// Scale error `|1 − s| · 100` of that Sim(3) alignment, percent.
    public var scaleErrorPercent: Double? { sim3Scale.map { abs(1 - $0) * 100 } }
    /// Share of the ground-truth time span covered by the estimate (see ``Completeness``), 0…1.
    public var completeness: Double
    /// Travelled distance along the associated ground truth, metres.
    public var pathLength_m: Double
    /// Pose counts of the inputs.
    public var estimateCount: Int, groundTruthCount: Int
    /// Time span of the associated pairs, seconds.
    public var duration_s: Double
    /// The aligned estimate positions `p_W` of every pair (for plots), metres.
    public var alignedPositions: [Vec3] { pairs.map { transform.act($0.estimate.translation) } }
}

/// Runs association, alignment, ATE, RPE, scale error and completeness.
public enum Evaluator {
    /// Evaluates `estimate` against `groundTruth` (both sorted by strictly increasing time).
    public static func evaluate(estimate: [StampedPose], groundTruth: [StampedPose],
                                options: EvaluationOptions = EvaluationOptions()) throws -> EvaluationReport {
        guard !estimate.isEmpty else { throw EvaluationError.empty("the estimate") }
        guard !groundTruth.isEmpty else { throw EvaluationError.empty("the ground truth") }
        guard options.maxDt_ns >= 0 else { throw EvaluationError.badOption("--max-dt must be ≥ 0") }
        if let n = options.alignFirst, n < 1 { throw EvaluationError.badOption("--align-first must be ≥ 1") }
        let pairs = Association.associate(estimate: estimate, groundTruth: groundTruth,
                                          maxDt_ns: options.maxDt_ns, mode: options.association)
        guard !pairs.isEmpty else {
            throw EvaluationError.noOverlap(
                estimate: Time.seconds(estimate[0].t_ns)...Time.seconds(estimate[estimate.count - 1].t_ns),
                groundTruth: Time.seconds(groundTruth[0].t_ns)...Time.seconds(groundTruth[groundTruth.count - 1].t_ns),
                maxDt_s: Time.seconds(options.maxDt_ns))
        }
        let alignPairs = options.alignFirst.map { Array(pairs.prefix($0)) } ?? pairs
        let e = alignPairs.map(\.estimate.translation), g = alignPairs.map(\.groundTruth.translation)
        let transform: SimilarityTransform
        do { transform = try Alignment.align(estimate: e, groundTruth: g, method: options.alignment) } catch let error as AlignmentError {
            throw EvaluationError.alignment(error)
        }
        let sim3 = try? Alignment.align(estimate: e, groundTruth: g, method: .sim3)
        let gapTolerance = Completeness.defaultGapTolerance(estimateTimes: estimate.map(\.t_ns), maxDt_ns: options.maxDt_ns)
        let completeness = Completeness.compute(estimateTimes: estimate.map(\.t_ns), groundTruthStart: groundTruth[0].t_ns,
                                                groundTruthEnd: groundTruth[groundTruth.count - 1].t_ns,
                                                gapTolerance_ns: gapTolerance)
        let path = RelativePoseError.travelledDistances(pairs.map(\.groundTruth.translation)).last ?? 0
        return EvaluationReport(options: options, pairs: pairs, alignedOn: alignPairs.count, transform: transform,
                                ate: AbsoluteTrajectoryError(pairs: pairs, alignment: transform),
                                rpe: RelativePoseError.compute(pairs: pairs, alignment: transform, segments: options.segments),
                                sim3Scale: sim3?.scale, completeness: completeness, pathLength_m: path,
                                estimateCount: estimate.count, groundTruthCount: groundTruth.count,
                                duration_s: Time.seconds(pairs[pairs.count - 1].t_ns - pairs[0].t_ns))
    }
}
