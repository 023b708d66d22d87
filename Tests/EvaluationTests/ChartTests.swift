import Foundation
import Geometry
import Sensors
import Testing
@testable import Evaluation

/// A canvas that records what is drawn; text is 10 px per character, 12 px tall at scale 1.
struct RecordingCanvas: PlotCanvas {
    struct Line { var color: PlotColor; var thickness: Int }
    var width = 800, height = 600
    var polylines: [[SIMD2<Double>]] = []
    var polylineThickness: [Int] = []
    var lines: [Line] = []
    /// The order of the calls: "line", "polyline", …
    var calls: [String] = []
    var texts: [String] = []
    var dots: [SIMD2<Double>] = []
    var rectangles = 0
    mutating func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, color: PlotColor, thickness: Int) {
        lines.append(Line(color: color, thickness: thickness)); calls.append("line")
    }
    mutating func polyline(_ points: [SIMD2<Double>], color: PlotColor, thickness: Int) {
        polylines.append(points); polylineThickness.append(thickness); calls.append("polyline")
    }
    mutating func rectangle(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, color: PlotColor, filled: Bool) { rectangles += 1 }
    mutating func dot(_ x: Double, _ y: Double, radius: Double, color: PlotColor) { dots.append(SIMD2(x, y)) }
    mutating func text(_ s: String, x: Double, y: Double, scale: Double, color: PlotColor) { texts.append(s) }
    func textSize(_ s: String, scale: Double) -> (width: Double, height: Double) { (Double(s.count) * 10 * scale, 12 * scale) }
}

@Suite struct ChartTests {
    @Test func niceTicksUseOneTwoFiveSteps() {
        #expect(NiceTicks.step(span: 10, target: 5) == 2)
        #expect(NiceTicks.step(span: 0.37, target: 6) == 0.1)
        #expect(NiceTicks.step(span: 240, target: 6) == 50)
        #expect(NiceTicks.ticks(lo: -0.3, hi: 0.9, target: 6).map { NiceTicks.label($0, step: 0.2) }
                == ["-0.2", "0.0", "0.2", "0.4", "0.6", "0.8"])
        #expect(NiceTicks.ticks(lo: -0.3, hi: 1.05, target: 6) == [0, 0.5, 1.0])  // 1.35 / 6 → step 0.5
        #expect(NiceTicks.label(0.25, step: 0.05) == "0.25")
        #expect(NiceTicks.label(150, step: 50) == "150")
    }

    @Test func trajectoryViewHasEqualScaleAndLegend() throws {
        // A 4 m × 1 m ellipse: equal aspect means 1 m spans the same pixels in x and y.
        let gt = (0..<200).map { k -> StampedPose in
            let a = Double(k) / 200 * 2 * .pi
            return StampedPose(t_ns: Int64(k) * 50_000_000, pose: SE3(translation: Vec3(2 * cos(a), 0.5 * sin(a), 1)))
        }
        let report = try Evaluator.evaluate(estimate: gt, groundTruth: gt, options: EvaluationOptions(alignment: .se3))
        let charts = EvaluationCharts.charts(for: report)
        #expect(charts.map(\.name) == ["trajectory_xy.png", "trajectory_xz.png", "ate_over_time.png",
                                        "rotation_error_over_time.png", "rpe_segments.png"])
        var canvas = RecordingCanvas()
        try charts[0].chart.render(on: &canvas)
        #expect(canvas.polylines.count == 1)   // the ground truth; the estimate is drawn segment by segment
        let points = canvas.polylines[0]
        let xs = points.map(\.x), ys = points.map(\.y)
        let spanX = (xs.max() ?? 0) - (xs.min() ?? 0), spanY = (ys.max() ?? 0) - (ys.min() ?? 0)
        // 4 m wide, 1 m tall: pixel spans in ratio 4 (1 % for sampling of the ellipse's extremes).
        #expect(abs(spanX / spanY - 4) < 0.04)
        #expect(points.allSatisfy { $0.x >= 0 && $0.x <= 800 && $0.y >= 0 && $0.y <= 600 })
        #expect(canvas.texts.contains("ground truth") && canvas.texts.contains("estimate (se3), coloured by position error"))
        #expect(canvas.texts.contains("x [m]") && canvas.texts.contains("y [m]"))
    }

    @Test func rpeChartHasOneBoxPerSegment() throws {
        let gt = Synthetic.trajectory(rate_hz: 20, duration: 30)
        let report = try Evaluator.evaluate(estimate: gt, groundTruth: gt)
        let rpe = EvaluationCharts.charts(for: report)[4].chart
        #expect(rpe.boxes.count == 5)
        #expect(rpe.boxes[0].label.hasSuffix("(10%)"))
        var canvas = RecordingCanvas()
        try rpe.render(on: &canvas)
        #expect(rpe.boxes.allSatisfy { canvas.texts.contains($0.label) })
        let q = Chart.quartiles([4, 1, 3, 2, 5])
        #expect(q.min == 1 && q.q1 == 2 && q.median == 3 && q.q3 == 4 && q.max == 5)
    }

    @Test func writesFivePNGs() throws {
        let gt = Synthetic.trajectory(rate_hz: 20, duration: 20)
        var random = SeededRandom(seed: 3)
        let est = gt.map { StampedPose(t_ns: $0.t_ns, pose: SE3(rotation: $0.pose.rotation,
                                                                  translation: $0.pose.translation + random.gaussian3(0.02))) }
        let report = try Evaluator.evaluate(estimate: est, groundTruth: gt)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("plots").path  // created by writePNGs
        let written = try EvaluationCharts.writePNGs(for: report, to: out, width: 400, height: 300)
        #expect(written.count == 5)
        for path in written {
            let data = try #require(FileManager.default.contents(atPath: path))
            #expect(Array(data.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])  // PNG signature
            // IHDR width and height (big-endian at bytes 16…23).
            let w = data[16..<20].reduce(0) { $0 << 8 | Int($1) }, h = data[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(w == 400 && h == 300)
        }
    }

    @Test func trajectoryIsColouredByItsErrorOverTheGroundTruth() throws {
        // Unaligned estimate 1 mm × k off the ground truth along z: the error grows linearly, e_k = k mm.
        let n = 100
        let gt = (0..<n).map { k -> StampedPose in
            let a = Double(k) / Double(n) * 2 * .pi
            return StampedPose(t_ns: Int64(k) * 50_000_000, pose: SE3(translation: Vec3(2 * cos(a), 2 * sin(a), 1)))
        }
        let est = gt.enumerated().map { k, p in
            StampedPose(t_ns: p.t_ns, pose: SE3(translation: p.pose.translation + Vec3(0, 0, 0.001 * Double(k))))
        }
        let report = try Evaluator.evaluate(estimate: est, groundTruth: gt, options: EvaluationOptions(alignment: .none))
        let chart = EvaluationCharts.charts(for: report)[0].chart
        let bar = try #require(chart.colorBar)
        #expect(abs(bar.minimum) < 1e-12 && abs(bar.maximum - 0.099) < 1e-12)
        var canvas = RecordingCanvas()
        try chart.render(on: &canvas)
        // The ground truth first, wider than the estimate drawn over it: it shows on both sides.
        let gtCall = try #require(canvas.calls.firstIndex(of: "polyline"))
        let estimateLines = canvas.lines.filter { $0.thickness == 2 }
        #expect(estimateLines.count == n - 1)
        #expect(canvas.polylineThickness == [7])
        let firstEstimate = try #require(canvas.lines.firstIndex { $0.thickness == 2 })
        #expect(canvas.calls.enumerated().filter { $0.element == "line" }.map(\.offset)[firstEstimate] > gtCall)
        // Segment k takes the colour of its mean error, (k + 0.5) mm of 99 mm.
        #expect(estimateLines.first?.color == Colormap.viridis(0.5 / 99) && estimateLines.last?.color == Colormap.viridis(98.5 / 99))
        #expect(Colormap.viridis(0) != Colormap.viridis(1))
        // The colour bar says what the colours mean: its label and its ends.
        #expect(canvas.texts.contains("position error [m]") && canvas.texts.contains("0.000") && canvas.texts.contains("0.099"))
    }

    @Test func errorsOverTimeShowMeanMedianAndSigmaBand() throws {
        let gt = Synthetic.trajectory(rate_hz: 20, duration: 20)
        var random = SeededRandom(seed: 4)
        let est = gt.map { StampedPose(t_ns: $0.t_ns, pose: SE3(rotation: $0.pose.rotation * SO3.exp(random.gaussian3(0.01)),
                                                                  translation: $0.pose.translation + random.gaussian3(0.02))) }
        let report = try Evaluator.evaluate(estimate: est, groundTruth: gt)
        let charts = EvaluationCharts.charts(for: report)
        for (chart, errors, stats) in [(charts[2].chart, report.ate.positionErrors_m, report.ate.position),
                                       (charts[3].chart, report.ate.rotationErrors_deg, report.ate.rotation)] {
            #expect(chart.series.first?.points.map(\.y) == errors)
            #expect(chart.bands.count == 1 && chart.bands[0].lower == max(stats.mean - stats.std, 0) && chart.bands[0].upper == stats.mean + stats.std)
            #expect(chart.referenceLines.map(\.value) == [stats.mean, stats.median])
            var canvas = RecordingCanvas()
            try chart.render(on: &canvas)
            #expect(canvas.texts.contains { $0.hasPrefix("mean +/- std (std ") } && canvas.texts.contains { $0.hasPrefix("median ") })
        }
        #expect(charts[3].chart.title.hasPrefix("Rotation error") && charts[3].chart.yLabel == "error [deg]")
    }

    @Test func noTextOverlapsAnotherOrLeavesTheImageAndAllIsASCII() throws {
        let gt = Synthetic.trajectory(rate_hz: 20, duration: 30)
        var random = SeededRandom(seed: 5)
        let est = gt.map { StampedPose(t_ns: $0.t_ns, pose: SE3(rotation: $0.pose.rotation,
                                                                  translation: $0.pose.translation + random.gaussian3(0.03))) }
        let report = try Evaluator.evaluate(estimate: est, groundTruth: gt)
        for size in [(1000, 750), (640, 480)] {
            for (name, chart) in EvaluationCharts.charts(for: report) {
                var canvas = TextBoxCanvas(inner: ImagePlotCanvas(width: size.0, height: size.1))
                try chart.render(on: &canvas)
                #expect(canvas.boxes.count >= 8, "\(name): \(canvas.boxes.count) texts")
                for (i, a) in canvas.boxes.enumerated() {
                    // The plot font (OpenCV's Hershey) draws ASCII only: anything else comes out as '?'.
                    #expect(a.text.allSatisfy { $0.isASCII }, "\(name): '\(a.text)' is not ASCII")
                    #expect(a.x0 >= 0 && a.y0 >= 0 && a.x1 <= Double(size.0) && a.y1 <= Double(size.1), "\(name) \(size): '\(a.text)' leaves the image")
                    for b in canvas.boxes[(i + 1)...] {
                        let overlap = a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
                        #expect(!overlap, "\(name) \(size): '\(a.text)' overlaps '\(b.text)'")
                    }
                }
            }
        }
    }
}

/// A canvas that draws on an ``ImagePlotCanvas`` and records each text's box with the real font's metrics (the
/// baseline's descent included).
struct TextBoxCanvas: PlotCanvas {
    struct Box { var text: String; var x0, y0, x1, y1: Double }
    var inner: ImagePlotCanvas
    var boxes: [Box] = []
    var width: Int { inner.width }
    var height: Int { inner.height }
    mutating func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, color: PlotColor, thickness: Int) throws {
        try inner.line(x0, y0, x1, y1, color: color, thickness: thickness)
    }
    mutating func polyline(_ points: [SIMD2<Double>], color: PlotColor, thickness: Int) throws {
        try inner.polyline(points, color: color, thickness: thickness)
    }
    mutating func rectangle(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, color: PlotColor, filled: Bool) throws {
        try inner.rectangle(x0, y0, x1, y1, color: color, filled: filled)
    }
    mutating func dot(_ x: Double, _ y: Double, radius: Double, color: PlotColor) throws { try inner.dot(x, y, radius: radius, color: color) }
    mutating func text(_ s: String, x: Double, y: Double, scale: Double, color: PlotColor) throws {
        let size = try inner.textSize(s, scale: scale)
        boxes.append(Box(text: s, x0: x, y0: y - size.height, x1: x + size.width, y1: y + 0.3 * size.height))
        try inner.text(s, x: x, y: y, scale: scale, color: color)
    }
    func textSize(_ s: String, scale: Double) throws -> (width: Double, height: Double) { try inner.textSize(s, scale: scale) }
}
