import Foundation

/// A 2-D chart: axes with ticks and grid, line or marker series, box plots, a title and a legend.
///
/// Data coordinates are the axis units (metres, seconds, …); ``render(on:)`` maps them to pixels.
public struct Chart: Sendable {
    /// One data series.
    public struct Series: Sendable {
        public enum Style: Sendable { case line, markers }
        public var name: String
        public var color: PlotColor
        public var points: [SIMD2<Double>]
        public var style: Style
        /// Line width, pixels.
        public var thickness: Int
        public init(name: String, color: PlotColor, points: [SIMD2<Double>], style: Style = .line, thickness: Int = 2) {
            self.name = name; self.color = color; self.points = points; self.style = style; self.thickness = thickness
        }
    }

    /// One box of a box plot at category index `k` (x = k), values in y units.
    public struct Box: Sendable {
        public var label: String
        public var values: [Double]
        public init(label: String, values: [Double]) { self.label = label; self.values = values }
    }

    public var title: String
    public var xLabel: String
    public var yLabel: String
    public var series: [Series] = []
    public var boxes: [Box] = []
    /// Same scale on both axes (trajectory views).
    public var equalAspect = false
    /// Include y = 0 in the range (error plots).
    public var includeZeroY = false

    public init(title: String, xLabel: String, yLabel: String) {
        self.title = title; self.xLabel = xLabel; self.yLabel = yLabel
    }

    /// The data range `(xmin, xmax, ymin, ymax)` covered by the series and boxes.
    func dataRange() -> (Double, Double, Double, Double) {
        var xs: [Double] = [], ys: [Double] = []
        for s in series { for p in s.points where p.x.isFinite && p.y.isFinite { xs.append(p.x); ys.append(p.y) } }
        for (k, b) in boxes.enumerated() {
            xs.append(Double(k) - 0.5); xs.append(Double(k) + 0.5)
            ys.append(contentsOf: b.values.filter(\.isFinite))
        }
        if includeZeroY { ys.append(0) }
        return (xs.min() ?? 0, xs.max() ?? 1, ys.min() ?? 0, ys.max() ?? 1)
    }

    /// Draws the chart to fill `canvas`.
    public func render<C: PlotCanvas>(on canvas: inout C) throws {
        let W = Double(canvas.width), H = Double(canvas.height)
        try canvas.rectangle(0, 0, W - 1, H - 1, color: .white, filled: true)
        let left = 90.0, right = 25.0, top = 50.0, bottom = 70.0
        let plotW = W - left - right, plotH = H - top - bottom
        guard plotW > 20, plotH > 20 else { return }

        var (x0, x1, y0, y1) = dataRange()
        if boxes.isEmpty { (x0, x1) = NiceTicks.padded(lo: x0, hi: x1) }
        (y0, y1) = NiceTicks.padded(lo: y0, hi: y1)
        if equalAspect {
            // One metre is the same number of pixels on both axes: widen the tighter range.
            let sx = plotW / (x1 - x0), sy = plotH / (y1 - y0)
            if sx > sy {
                let extra = plotW / sy - (x1 - x0); x0 -= extra / 2; x1 += extra / 2
            } else {
                let extra = plotH / sx - (y1 - y0); y0 -= extra / 2; y1 += extra / 2
            }
        }
        let (xa, xb, ya, yb) = (x0, x1, y0, y1)
        func px(_ x: Double) -> Double { left + (x - xa) / (xb - xa) * plotW }
        func py(_ y: Double) -> Double { top + plotH - (y - ya) / (yb - ya) * plotH }

        // Grid and tick labels.
        let labelScale = 0.45
        let xStep = NiceTicks.step(span: x1 - x0, target: 6), yStep = NiceTicks.step(span: y1 - y0, target: 6)
        if boxes.isEmpty {
            for x in NiceTicks.ticks(lo: x0, hi: x1) {
                try canvas.line(px(x), top, px(x), top + plotH, color: .grid, thickness: 1)
                let label = NiceTicks.label(x, step: xStep)
                let size = try canvas.textSize(label, scale: labelScale)
                try canvas.text(label, x: px(x) - size.width / 2, y: top + plotH + 8 + size.height, scale: labelScale, color: .axis)
            }
        } else {
            for (k, b) in boxes.enumerated() {
                let size = try canvas.textSize(b.label, scale: labelScale)
                try canvas.text(b.label, x: px(Double(k)) - size.width / 2, y: top + plotH + 8 + size.height,
                                scale: labelScale, color: .axis)
            }
        }
        for y in NiceTicks.ticks(lo: y0, hi: y1) {
            try canvas.line(left, py(y), left + plotW, py(y), color: .grid, thickness: 1)
            let label = NiceTicks.label(y, step: yStep)
            let size = try canvas.textSize(label, scale: labelScale)
            try canvas.text(label, x: left - 8 - size.width, y: py(y) + size.height / 2, scale: labelScale, color: .axis)
        }
        try canvas.rectangle(left, top, left + plotW, top + plotH, color: .axis, filled: false)

        // Data.
        for s in series {
            let points = s.points.filter { $0.x.isFinite && $0.y.isFinite }.map { SIMD2(px($0.x), py($0.y)) }
            switch s.style {
            case .line where points.count >= 2: try canvas.polyline(points, color: s.color, thickness: s.thickness)
            default: for p in points { try canvas.dot(p.x, p.y, radius: 2.5, color: s.color) }
            }
        }
        for (k, b) in boxes.enumerated() where !b.values.isEmpty {
            let q = Chart.quartiles(b.values)
            let cx = px(Double(k)), half = 0.3 * plotW / Double(max(boxes.count, 1))
            try canvas.line(cx, py(q.min), cx, py(q.q1), color: .axis, thickness: 1)
            try canvas.line(cx, py(q.q3), cx, py(q.max), color: .axis, thickness: 1)
            try canvas.line(cx - half / 2, py(q.min), cx + half / 2, py(q.min), color: .axis, thickness: 1)
            try canvas.line(cx - half / 2, py(q.max), cx + half / 2, py(q.max), color: .axis, thickness: 1)
            try canvas.rectangle(cx - half, py(q.q3), cx + half, py(q.q1), color: .boxFill, filled: true)
            try canvas.rectangle(cx - half, py(q.q3), cx + half, py(q.q1), color: .axis, filled: false)
            try canvas.line(cx - half, py(q.median), cx + half, py(q.median), color: .error, thickness: 2)
        }

        // Title, axis labels, legend.
        let titleSize = try canvas.textSize(title, scale: 0.7)
        try canvas.text(title, x: (W - titleSize.width) / 2, y: 14 + titleSize.height, scale: 0.7, color: .black)
        let xSize = try canvas.textSize(xLabel, scale: 0.55)
        try canvas.text(xLabel, x: left + (plotW - xSize.width) / 2, y: H - 14, scale: 0.55, color: .black)
        try canvas.text(yLabel, x: 8, y: top - 12, scale: 0.55, color: .black)
        let named = series.filter { !$0.name.isEmpty }
        if !named.isEmpty {
            let widths = try named.map { try canvas.textSize($0.name, scale: 0.5).width }
            let boxW = (widths.max() ?? 0) + 50, rowH = 22.0
            let bx = left + plotW - boxW - 8, by = top + 8
            try canvas.rectangle(bx, by, bx + boxW, by + rowH * Double(named.count) + 8, color: .white, filled: true)
            try canvas.rectangle(bx, by, bx + boxW, by + rowH * Double(named.count) + 8, color: .axis, filled: false)
            for (k, s) in named.enumerated() {
                let y = by + 4 + rowH * (Double(k) + 0.5)
                if s.style == .line {
                    try canvas.line(bx + 8, y, bx + 36, y, color: s.color, thickness: 3)
                } else {
                    try canvas.dot(bx + 22, y, radius: 3, color: s.color)
                }
                try canvas.text(s.name, x: bx + 42, y: y + 6, scale: 0.5, color: .black)
            }
        }
    }

    /// Min, quartiles (linear interpolation between order statistics) and max.
    static func quartiles(_ values: [Double]) -> (min: Double, q1: Double, median: Double, q3: Double, max: Double) {
        let s = values.sorted()
        func q(_ f: Double) -> Double {
            let pos = f * Double(s.count - 1)
            let i = Int(pos.rounded(.down)), j = min(i + 1, s.count - 1)
            return s[i] + (pos - Double(i)) * (s[j] - s[i])
        }
        return (s[0], q(0.25), q(0.5), q(0.75), s[s.count - 1])
    }
}
