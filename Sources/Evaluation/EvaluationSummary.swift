import Foundation
import Geometry

/// The machine-readable summary of an ``EvaluationReport`` (what `worldtrack eval --json` prints).
///
/// Keys are snake_case with units in the name: metres `_m`, degrees `_deg`, percent `_pct`, seconds `_s`.
public struct EvaluationSummary: Codable, Equatable, Sendable {
    /// One RPE segment length.
    public struct Segment: Codable, Equatable, Sendable {
        public var length_m: Double
        /// Percent of the path length the segment was made from (nil for explicit metres).
        public var length_pct_of_path: Double?
        public var pairs: Int
        /// Error statistics; all absent (never 0) when `pairs` is 0, with `note` saying why.
        public var trans_rmse_m: Double?, trans_mean_m: Double?, trans_median_m: Double?, trans_max_m: Double?
        public var trans_mean_pct: Double?, trans_median_pct: Double?
        public var rot_rmse_deg: Double?, rot_mean_deg: Double?, rot_median_deg: Double?, rot_max_deg: Double?
        /// Set when the segment has no pose pair (the path is shorter than the segment length).
        public var note: String?
    }

    /// The alignment method: fitted to this estimate, or, when `alignment_fixed`, fitted to another trajectory
    /// (`eval --alignment-of`) and applied here unchanged.
    public var alignment: String
    /// True when the transform was given, not fitted to this estimate (`eval --alignment-of`); `aligned_pairs` is 0 then.
    public var alignment_fixed: Bool
    public var align_first: Int?
    /// Degrees the ground truth's world was rotated to put gravity along −z before aligning (`eval
    /// --level-groundtruth`, ``GroundTruthGravity``); nil when it was used as given.
    public var groundtruth_levelled_deg: Double?
    public var aligned_pairs: Int
    public var association: String
    public var max_dt_s: Double
    public var pairs: Int
    public var estimate_poses: Int
    public var groundtruth_poses: Int
    public var duration_s: Double
    public var path_length_m: Double
    public var ate_rmse_m: Double, ate_mean_m: Double, ate_median_m: Double, ate_std_m: Double
    public var ate_min_m: Double, ate_max_m: Double
    public var rot_rmse_deg: Double, rot_mean_deg: Double, rot_median_deg: Double, rot_max_deg: Double
    /// Tilt error (``TiltError``): the estimate's vertical against the ground truth's, in the body frame, degrees;
    /// against true gravity with `--level-groundtruth`. Alignment-free.
    public var tilt_median_deg: Double, tilt_mean_deg: Double, tilt_max_deg: Double
    /// Sim(3) scale on the same pairs and its error |1 − s|·100 (nil when degenerate).
    public var scale: Double?
    public var scale_error_pct: Double?
    public var completeness: Double
    /// The alignment applied: rotation quaternion [w,x,y,z], translation [x,y,z] m, scale.
    public var transform_rotation_wxyz: [Double]
    public var transform_translation_m: [Double]
    public var transform_scale: Double
    public var rpe: [Segment]
    public var warnings: [String]

    /// The summary of `report`, with `warnings` from loading.
    public init(_ report: EvaluationReport, warnings: [String] = []) {
        let o = report.options
        alignment = o.alignment.rawValue
        alignment_fixed = o.fixedAlignment != nil
        align_first = o.alignFirst
        aligned_pairs = report.alignedOn
        association = o.association.rawValue
        max_dt_s = Double(o.maxDt_ns) * 1e-9
        pairs = report.pairs.count
        estimate_poses = report.estimateCount
        groundtruth_poses = report.groundTruthCount
        duration_s = report.duration_s
        path_length_m = report.pathLength_m
        let p = report.ate.position, r = report.ate.rotation
        ate_rmse_m = p.rmse; ate_mean_m = p.mean; ate_median_m = p.median; ate_std_m = p.std
        ate_min_m = p.min; ate_max_m = p.max
        rot_rmse_deg = r.rmse; rot_mean_deg = r.mean; rot_median_deg = r.median; rot_max_deg = r.max
        let tilt = report.tilt.statistics
        tilt_median_deg = tilt.median; tilt_mean_deg = tilt.mean; tilt_max_deg = tilt.max
        scale = report.sim3Scale
        scale_error_pct = report.scaleErrorPercent
        completeness = report.completeness
        let q = report.transform.rotation.quaternion, t = report.transform.translation
        transform_rotation_wxyz = [q.w, q.x, q.y, q.z]
        transform_translation_m = [t.x, t.y, t.z]
        transform_scale = report.transform.scale
        rpe = report.rpe.map { s in
            let tr = s.translation, pct = s.translationPercent, rot = s.rotation
            guard tr.count > 0 else {
                return Segment(length_m: s.length_m, length_pct_of_path: s.fractionOfPath.map { $0 * 100 }, pairs: 0,
                               note: "no pose pair this far apart")
            }
            return Segment(length_m: s.length_m, length_pct_of_path: s.fractionOfPath.map { $0 * 100 }, pairs: tr.count,
                           trans_rmse_m: tr.rmse, trans_mean_m: tr.mean, trans_median_m: tr.median, trans_max_m: tr.max,
                           trans_mean_pct: pct.mean, trans_median_pct: pct.median,
                           rot_rmse_deg: rot.rmse, rot_mean_deg: rot.mean, rot_median_deg: rot.median, rot_max_deg: rot.max)
        }
        self.warnings = warnings
    }

    /// One-line JSON (sorted keys). Non-finite numbers (which JSON cannot hold) throw
    /// ``EvaluationError/nonFinite(_:)`` rather than an `EncodingError`.
    public func jsonString() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(self), as: UTF8.self)
        } catch EncodingError.invalidValue(_, let context) {
            let key = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw EvaluationError.nonFinite("'\(key)'")
        }
    }
}
