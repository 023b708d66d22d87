import Foundation
import Geometry

/// The charts of an evaluation: trajectory top (x–y) and side (x–z) views, position error over time,
/// and the RPE translation error per segment length.
public enum EvaluationCharts {
    /// `(file name, chart)` for each plot of `report`.
    public static func charts(for report: EvaluationReport) -> [(name: String, chart: Chart)] {
        let gt = report.pairs.map(\.groundTruth.translation)
        let est = report.alignedPositions
        let alignName = report.options.alignment.rawValue
        func view(_ title: String, _ yLabel: String, _ pick: (Vec3) -> SIMD2<Double>) -> Chart {
            var chart = Chart(title: title, xLabel: "x [m]", yLabel: yLabel)
            chart.equalAspect = true
            chart.series = [Chart.Series(name: "ground truth", color: .groundTruth, points: gt.map(pick)),
                            Chart.Series(name: "estimate (\(alignName))", color: .estimate, points: est.map(pick))]
            return chart
        }
        let top = view("Trajectory, top view (x-y)", "y [m]") { SIMD2($0.x, $0.y) }
        let side = view("Trajectory, side view (x-z)", "z [m]") { SIMD2($0.x, $0.z) }

        let t0 = report.pairs.first?.t_ns ?? 0
        var error = Chart(title: String(format: "Position error after %@ alignment (RMSE %.4f m)", alignName, report.ate.position.rmse),
                          xLabel: "time [s]", yLabel: "error [m]")
        error.includeZeroY = true
        error.series = [Chart.Series(name: "", color: .error,
                                     points: zip(report.ate.times_ns, report.ate.positionErrors_m).map {
                                         SIMD2(Double($0 - t0) * 1e-9, $1) }, thickness: 1)]

        var rpe = Chart(title: "Relative translation error (boxes: quartiles, whiskers: min-max)", xLabel: "sub-trajectory length",
                        yLabel: "translation error [m]")
        rpe.includeZeroY = true
        rpe.boxes = report.rpe.map { s in
            let label = String(format: "%.1f m", s.length_m) + (s.fractionOfPath.map { String(format: " (%.0f%%)", $0 * 100) } ?? "")
            return Chart.Box(label: label, values: s.translationErrors_m)
        }
        return [("trajectory_xy.png", top), ("trajectory_xz.png", side), ("ate_over_time.png", error), ("rpe_segments.png", rpe)]
    }
}
