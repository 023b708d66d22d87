import Foundation
import Geometry

/// The charts of an evaluation: trajectory top (x–y) and side (x–z) views with the estimate coloured by its position
/// error (as evo's `--plot_mode xy` with a colormap) over the ground truth, position and rotation error over time with
/// their mean, median and mean ± σ band, and the RPE translation error per segment length.
public enum EvaluationCharts {
    /// The ground truth in the trajectory views: a wide light line under the estimate, so it shows on both sides of it.
    static let groundTruthColor = PlotColor(175, 175, 175)
    static let groundTruthThickness = 7
    static let meanColor = PlotColor(31, 119, 180), medianColor = PlotColor(44, 160, 44)
    static let sigmaBandColor = PlotColor(250, 218, 218)

    /// `(file name, chart)` for each plot of `report`.
    public static func charts(for report: EvaluationReport) -> [(name: String, chart: Chart)] {
        let gt = report.pairs.map(\.groundTruth.translation)
        let est = report.alignedPositions
        let alignName = report.options.alignment.rawValue
        let errors = report.ate.positionErrors_m
        let bar = ChartColorBar(label: "position error [m]", minimum: errors.min() ?? 0, maximum: errors.max() ?? 0)
        // Each segment of the estimate takes the colour of the mean error of its two ends.
        let segmentColors = zip(errors, errors.dropFirst()).map { bar.color(($0 + $1) / 2) }
        func view(_ title: String, _ yLabel: String, _ pick: (Vec3) -> SIMD2<Double>) -> Chart {
            var chart = Chart(title: title, xLabel: "x [m]", yLabel: yLabel)
            chart.equalAspect = true
            chart.series = [Chart.Series(name: "ground truth", color: groundTruthColor, points: gt.map(pick), thickness: groundTruthThickness),
                            Chart.Series(name: "estimate (\(alignName)), coloured by position error", color: .estimate,
                                         points: est.map(pick), thickness: 2,
                                         segmentColors: segmentColors.count == est.count - 1 ? segmentColors : nil)]
            chart.colorBar = bar
            return chart
        }
        let top = view("Trajectory, top view (x-y)", "y [m]") { SIMD2($0.x, $0.y) }
        let side = view("Trajectory, side view (x-z)", "z [m]") { SIMD2($0.x, $0.z) }

        let t0 = report.pairs.first?.t_ns ?? 0
        let times = report.ate.times_ns.map { Double($0 - t0) * 1e-9 }
        let position = overTime(String(format: "Position error after %@ alignment (RMSE %.4f m)", alignName, report.ate.position.rmse),
                                yLabel: "error [m]", unit: "m", digits: 4, times: times, values: errors, statistics: report.ate.position)
        let rotation = overTime(String(format: "Rotation error after %@ alignment (RMSE %.3f deg)", alignName, report.ate.rotation.rmse),
                                yLabel: "error [deg]", unit: "deg", digits: 3, times: times, values: report.ate.rotationErrors_deg,
                                statistics: report.ate.rotation)

        var rpe = Chart(title: "Relative translation error (boxes: quartiles, whiskers: min-max)", xLabel: "sub-trajectory length",
                        yLabel: "translation error [m]")
        rpe.includeZeroY = true
        rpe.boxes = report.rpe.map { s in
            let label = String(format: "%.1f m", s.length_m) + (s.fractionOfPath.map { String(format: " (%.0f%%)", $0 * 100) } ?? "")
            return Chart.Box(label: label, values: s.translationErrors_m)
        }
        return [("trajectory_xy.png", top), ("trajectory_xz.png", side), ("ate_over_time.png", position),
                ("rotation_error_over_time.png", rotation), ("rpe_segments.png", rpe)]
    }

    /// An error over time: the errors in red over the mean ± σ band (clipped at 0, as errors are not negative), with the
    /// mean and the median as lines.
    static func overTime(_ title: String, yLabel: String, unit: String, digits: Int, times: [Double], values: [Double],
                         statistics s: ErrorStatistics) -> Chart {
        var chart = Chart(title: title, xLabel: "time [s]", yLabel: yLabel)
        chart.includeZeroY = true
        chart.series = [Chart.Series(name: "", color: .error, points: zip(times, values).map { SIMD2($0, $1) }, thickness: 1)]
        let f = "%.\(digits)f \(unit)"
        // ASCII only: the plot font has no ± or σ.
        chart.bands = [ChartBand(name: "mean +/- std (std " + String(format: f, s.std) + ")", lower: max(s.mean - s.std, 0), upper: s.mean + s.std,
                                 color: sigmaBandColor)]
        chart.referenceLines = [ChartReferenceLine(name: "mean " + String(format: f, s.mean), value: s.mean, color: meanColor),
                                ChartReferenceLine(name: "median " + String(format: f, s.median), value: s.median, color: medianColor)]
        return chart
    }
}
