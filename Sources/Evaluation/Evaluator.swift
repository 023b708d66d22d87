import Foundation
import Geometry
import LinearAlgebra
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
    /// Apply this transform instead of computing an alignment (then `alignment` and `alignFirst` are not used): to
    /// compare an estimate in the frame another trajectory's alignment defines (a run that loaded a saved world map,
    /// in the frame of the run that saved it).
    public var fixedAlignment: SimilarityTransform? = nil

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
    /// Fewer associated poses than an evaluation needs (``Evaluator/minimumPairs``).
    case tooFewPairs(got: Int, needed: Int)
    /// A metric came out infinite or NaN (e.g. positions so large that their squares overflow).
    case nonFinite(String)

    public var description: String {
        switch self {
        case .noOverlap(let e, let g, let dt):
            return String(format: "no estimated pose has ground truth within %.3f s: estimate spans %.3f…%.3f s, ground truth %.3f…%.3f s (different clocks? --max-dt?)",
                          dt, e.lowerBound, e.upperBound, g.lowerBound, g.upperBound)
        case .empty(let what): return "\(what) has no poses"
        case .badOption(let m): return m
        case .alignment(let e): return e.description
        case .tooFewPairs(let got, let needed):
            return "only \(got) estimated pose\(got == 1 ? "" : "s") \(got == 1 ? "has" : "have") ground truth within --max-dt; an evaluation needs at least \(needed)"
        case .nonFinite(let what):
            return "\(what) is not a finite number (inputs too large for double-precision arithmetic?)"
        }
    }
}

/// The full result of comparing an estimated trajectory with ground truth.
public struct EvaluationReport: Sendable {
    /// The settings used.
    public var options: EvaluationOptions
    /// Associated pairs (raw, unaligned estimate).
    public var pairs: [AssociatedPair]
    /// Number of pairs the alignment was computed on (0 for a given `EvaluationOptions.fixedAlignment`).
    public var alignedOn: Int
    /// The alignment `T_W_E` (with scale for Sim(3)) applied to the estimate.
    public var transform: SimilarityTransform
    /// Absolute trajectory error after alignment.
    public var ate: AbsoluteTrajectoryError
    /// Tilt error: the estimate's vertical against the ground truth's, in the body (no alignment involved).
    public var tilt: TiltError
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
    /// Why the figures may mislead: a path too short, or positions too nearly collinear, for the alignment
    /// (and the Sim(3) scale) to be determined. Empty when the inputs are well conditioned.
    public var warnings: [String] = []
}

/// Checks whether the associated ground-truth positions determine an alignment.
public enum AlignmentConditioning {
    /// Below this travelled ground-truth distance, metres, the alignment and the scale are noise-dominated.
    public static let minimumPathLength_m = 0.10
    /// Below this ratio of the second-largest to the largest standard deviation of the centred positions
    /// (principal axes), the positions are nearly collinear: the rotation about that line (SE(3), Sim(3)) is
    /// undetermined. The smallest axis may be zero (a planar path still fixes a rotation).
    public static let minimumSpreadRatio = 0.05

    /// Standard deviations of `positions` along their principal axes, largest first, metres.
    public static func principalSpreads(_ positions: [Vec3]) -> [Double] {
        guard positions.count >= 2 else { return [0, 0, 0] }
        let mean = positions.reduce(Vec3.zero, +) / Double(positions.count)
        var c = Mat3.zero
        for p in positions { let d = p - mean; c = c + Mat3.outer(d, d) }
        c = (1 / Double(positions.count)) * c
        guard let svd = try? Matrix(rows: 3, columns: 3, rowMajor: c.rowMajor).svd() else { return [0, 0, 0] }
        return svd.singularValues.map { max(0, $0).squareRoot() }.sorted(by: >)
    }

    /// The warnings for an evaluation aligned with `method` on `alignGroundTruth`, whose whole associated
    /// ground-truth path is `pathLength_m` long.
    public static func warnings(method: AlignmentMethod, alignGroundTruth: [Vec3], pathLength_m: Double) -> [String] {
        var warnings: [String] = []
        if pathLength_m < minimumPathLength_m {
            warnings.append(String(format: "the ground-truth path is only %.1f cm long (< %.0f cm): the alignment, the Sim(3) scale error and the RPE are dominated by noise", pathLength_m * 100, minimumPathLength_m * 100))
        }
        let spreads = principalSpreads(alignGroundTruth)
        let ratio = spreads[0] > 0 ? spreads[1] / spreads[0] : 0
        if (method == .se3 || method == .sim3) && ratio < minimumSpreadRatio && pathLength_m >= minimumPathLength_m {
            warnings.append(String(format: "the aligned positions are nearly collinear (spread %.3g m along the main axis, %.3g m across it; ratio %.3f < %.2f): the %@ rotation about that line is undetermined", spreads[0], spreads[1], ratio, minimumSpreadRatio, method == .se3 ? "SE(3)" : "Sim(3)"))
        }
        return warnings
    }
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
        guard pairs.count >= minimumPairs else { throw EvaluationError.tooFewPairs(got: pairs.count, needed: minimumPairs) }
        let alignPairs = options.alignFirst.map { Array(pairs.prefix($0)) } ?? pairs
        let e = alignPairs.map(\.estimate.translation), g = alignPairs.map(\.groundTruth.translation)
        let transform: SimilarityTransform
        if let fixed = options.fixedAlignment {
            transform = fixed
        } else {
            do { transform = try Alignment.align(estimate: e, groundTruth: g, method: options.alignment) } catch let error as AlignmentError {
                throw EvaluationError.alignment(error)
            }
        }
        let sim3 = try? Alignment.align(estimate: e, groundTruth: g, method: .sim3)
        let gapTolerance = Completeness.defaultGapTolerance(estimateTimes: estimate.map(\.t_ns), maxDt_ns: options.maxDt_ns)
        let completeness = Completeness.compute(estimateTimes: estimate.map(\.t_ns), groundTruthStart: groundTruth[0].t_ns,
                                                groundTruthEnd: groundTruth[groundTruth.count - 1].t_ns,
                                                gapTolerance_ns: gapTolerance)
        let path = RelativePoseError.travelledDistances(pairs.map(\.groundTruth.translation)).last ?? 0
        var report = EvaluationReport(options: options, pairs: pairs, alignedOn: options.fixedAlignment == nil ? alignPairs.count : 0,
                                      transform: transform,
                                      ate: AbsoluteTrajectoryError(pairs: pairs, alignment: transform),
                                      tilt: TiltError(pairs: pairs),
                                      rpe: RelativePoseError.compute(pairs: pairs, alignment: transform, segments: options.segments),
                                      sim3Scale: sim3?.scale, completeness: completeness, pathLength_m: path,
                                      estimateCount: estimate.count, groundTruthCount: groundTruth.count,
                                      duration_s: Time.seconds(pairs[pairs.count - 1].t_ns - pairs[0].t_ns))
        try checkFinite(report)
        report.warnings = AlignmentConditioning.warnings(method: options.alignment, alignGroundTruth: g, pathLength_m: path)
        return report
    }

    /// Fewest associated poses an evaluation accepts (an alignment and an error statistic of 1 or 2 poses
    /// report 0 whatever the estimate).
    public static let minimumPairs = 3

    /// Throws ``EvaluationError/nonFinite(_:)`` naming the first metric that is infinite or NaN.
    static func checkFinite(_ r: EvaluationReport) throws {
        func check(_ values: [Double], _ what: String) throws {
            if values.contains(where: { !$0.isFinite }) { throw EvaluationError.nonFinite(what) }
        }
        let t = r.transform
        try check([t.translation.x, t.translation.y, t.translation.z, t.scale] + [t.rotation.quaternion.w, t.rotation.quaternion.x, t.rotation.quaternion.y, t.rotation.quaternion.z], "the alignment")
        let p = r.ate.position, q = r.ate.rotation
        try check([p.rmse, p.mean, p.median, p.std, p.min, p.max], "the position ATE")
        try check([q.rmse, q.mean, q.median, q.max], "the rotation ATE")
        try check(r.tilt.errors_deg, "the tilt error")
        try check([r.pathLength_m], "the path length")
        if let s = r.sim3Scale { try check([s], "the Sim(3) scale") }
        for s in r.rpe {
            try check([s.length_m] + s.translationErrors_m + s.translationErrors_pct + s.rotationErrors_deg,
                      String(format: "the RPE over %.3g m", s.length_m))
        }
    }
}
