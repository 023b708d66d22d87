import Foundation
import Geometry
import Sensors
import Testing
@testable import Evaluation

/// A canvas that records what is drawn; text is 10 px per character, 12 px tall at scale 1.
struct RecordingCanvas: PlotCanvas {
    var width = 800, height = 600
    var polylines: [[SIMD2<Double>]] = []
    var texts: [String] = []
    var dots: [SIMD2<Double>] = []
    var rectangles = 0
    mutating func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, color: PlotColor, thickness: Int) {}
    mutating func polyline(_ points: [SIMD2<Double>], color: PlotColor, thickness: Int) { polylines.append(points) }
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
        #expect(charts.map(\.name) == ["trajectory_xy.png", "trajectory_xz.png", "ate_over_time.png", "rpe_segments.png"])
        var canvas = RecordingCanvas()
        try charts[0].chart.render(on: &canvas)
        #expect(canvas.polylines.count == 2)
        let points = canvas.polylines[0]
        let xs = points.map(\.x), ys = points.map(\.y)
        let spanX = (xs.max() ?? 0) - (xs.min() ?? 0), spanY = (ys.max() ?? 0) - (ys.min() ?? 0)
        // 4 m wide, 1 m tall: pixel spans in ratio 4 (1 % for sampling of the ellipse's extremes).
        #expect(abs(spanX / spanY - 4) < 0.04)
        #expect(points.allSatisfy { $0.x >= 0 && $0.x <= 800 && $0.y >= 0 && $0.y <= 600 })
        #expect(canvas.texts.contains("ground truth") && canvas.texts.contains("estimate (se3)"))
        #expect(canvas.texts.contains("x [m]") && canvas.texts.contains("y [m]"))
    }

    @Test func rpeChartHasOneBoxPerSegment() throws {
        let gt = Synthetic.trajectory(rate_hz: 20, duration: 30)
        let report = try Evaluator.evaluate(estimate: gt, groundTruth: gt)
        let rpe = EvaluationCharts.charts(for: report)[3].chart
        #expect(rpe.boxes.count == 5)
        #expect(rpe.boxes[0].label.hasSuffix("(10%)"))
        var canvas = RecordingCanvas()
        try rpe.render(on: &canvas)
        #expect(rpe.boxes.allSatisfy { canvas.texts.contains($0.label) })
        let q = Chart.quartiles([4, 1, 3, 2, 5])
        #expect(q.min == 1 && q.q1 == 2 && q.median == 3 && q.q3 == 4 && q.max == 5)
    }

    @Test func writesFourPNGs() throws {
        let gt = Synthetic.trajectory(rate_hz: 20, duration: 20)
        var random = SeededRandom(seed: 3)
        let est = gt.map { StampedPose(t_ns: $0.t_ns, pose: SE3(rotation: $0.pose.rotation,
                                                                  translation: $0.pose.translation + random.gaussian3(0.02))) }
        let report = try Evaluator.evaluate(estimate: est, groundTruth: gt)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("plots").path  // created by writePNGs
        let written = try EvaluationCharts.writePNGs(for: report, to: out, width: 400, height: 300)
        #expect(written.count == 4)
        for path in written {
            let data = try #require(FileManager.default.contents(atPath: path))
            #expect(Array(data.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])  // PNG signature
            // IHDR width and height (big-endian at bytes 16…23).
            let w = data[16..<20].reduce(0) { $0 << 8 | Int($1) }, h = data[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(w == 400 && h == 300)
        }
    }
}
