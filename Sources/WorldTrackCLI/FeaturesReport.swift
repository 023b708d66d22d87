import Foundation
import Vision

/// The figures `worldtrack features` prints, as text or one JSON object.
struct FeaturesReport {
    let summary: TrackQualitySummary
    let milliseconds: [Double]
    let stereoMatchRatio: Double?
    let hasTruth: Bool
    /// The tracker's counts summed over the run (`FeatureTrackingStats`).
    let counts: FeatureTrackingStats

    var msMedian: Double {
        guard !milliseconds.isEmpty else { return 0 }
        let s = milliseconds.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : 0.5 * (s[s.count / 2 - 1] + s[s.count / 2])
    }

    /// One JSON object with sorted keys; truth fields are `null` without truth.
    func json() -> String {
        func number(_ v: Double?) -> String {
            guard let v, v.isFinite else { return "null" }
            return String(format: "%.6g", v)
        }
        let fields: [(String, String)] = [
            ("checked_observations", "\(summary.checkedObservations)"),
            ("depth_edge_observation_share", number(summary.depthEdgeObservationShare)),
            ("depth_edge_outlier_ratio", number(summary.depthEdgeOutlierRatio)),
            ("ended_by_appearance", "\(counts.rejectedByAppearance)"),
            ("ended_by_forward_backward", "\(counts.rejectedByFB)"),
            ("ended_by_long_baseline", "\(counts.rejectedByLongBaseline)"),
            ("ended_by_ransac", "\(counts.rejectedByRANSAC)"),
            ("ended_lost", "\(counts.lost)"),
            ("ended_on_still_frame", "\(counts.rejectedOnStillFrame)"),
            ("ended_pruned", "\(counts.prunedByDistance)"),
            ("ended_retired", "\(counts.retired)"),
            ("features_per_frame_mean", number(summary.featuresPerFrameMean)),
            ("features_per_frame_min", "\(summary.featuresPerFrameMin)"),
            ("frames", "\(summary.frames)"),
            ("max_track_step_px", number(summary.maxStepPx)),
            ("ms_per_frame_median", number(msMedian)),
            ("other_outlier_ratio", number(summary.otherOutlierRatio)),
            ("outlier_ratio", number(summary.outlierRatio)),
            ("outlier_track_ratio", number(summary.outlierTrackRatio)),
            ("reprojection_error_median_px", number(summary.reprojectionErrorMedianPx)),
            ("stereo_match_ratio", number(stereoMatchRatio)),
            ("track_length_median", number(summary.trackLengthMedian)),
            ("tracks", "\(summary.tracks)"),
            ("tracks_detected", "\(counts.detected)"),
        ]
        return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }

    /// Aligned text for people.
    func text() -> String {
        var lines = [
            "frames                      \(summary.frames)",
            String(format: "features per frame          %.1f mean, %d min", summary.featuresPerFrameMean, summary.featuresPerFrameMin),
            String(format: "tracks                      %d, median length %.1f frames", summary.tracks, summary.trackLengthMedian),
            String(format: "largest step of a track     %.2f px", summary.maxStepPx),
            "tracks ended                \(counts.lost) lost, \(counts.rejectedByFB) forward-backward, \(counts.rejectedByRANSAC) RANSAC "
                + "(\(counts.rejectedByLongBaseline) long baseline), \(counts.rejectedByAppearance) appearance, "
                + "\(counts.rejectedOnStillFrame) still frame, \(counts.retired) retired, \(counts.prunedByDistance) pruned",
        ]
        if let r = stereoMatchRatio { lines.append(String(format: "stereo matches              %.1f %%", 100 * r)) }
        if hasTruth, let e = summary.reprojectionErrorMedianPx, let o = summary.outlierRatio {
            lines.append(String(format: "error vs truth              %.3f px median over %d observations", e, summary.checkedObservations))
            lines.append(String(format: "outliers (> 2 px)           %.2f %% of observations, %.2f %% of tracks", 100 * o,
                                100 * (summary.outlierTrackRatio ?? 0)))
            if let share = summary.depthEdgeObservationShare {
                lines.append(String(format: "  tracks born at depth edges %.1f %% of observations, %.2f %% outliers; the others %.2f %%",
                                    100 * share, 100 * (summary.depthEdgeOutlierRatio ?? 0), 100 * (summary.otherOutlierRatio ?? 0)))
            }
        } else {
            lines.append("error vs truth              n/a (no scene.json and ground truth)")
        }
        lines.append(String(format: "time per frame              %.2f ms median", msMedian))
        return lines.joined(separator: "\n")
    }
}

extension FeatureTrackingStats {
    /// Adds another frame's counts to these.
    mutating func accumulate(_ other: FeatureTrackingStats) {
        detected += other.detected; tracked += other.tracked; lost += other.lost; rejectedByFB += other.rejectedByFB
        rejectedByRANSAC += other.rejectedByRANSAC; rejectedByLongBaseline += other.rejectedByLongBaseline
        rejectedOnStillFrame += other.rejectedOnStillFrame; rejectedByAppearance += other.rejectedByAppearance
        retired += other.retired; prunedByDistance += other.prunedByDistance; stereoMatched += other.stereoMatched
    }
}
