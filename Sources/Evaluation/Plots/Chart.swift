import Foundation

/// A 2-D chart: axes with ticks and grid, line or marker series (a line may be coloured segment by segment, with a
/// colour bar), box plots, shaded bands and reference lines, a title and a legend.
///
/// Data coordinates are the axis units (metres, seconds, …); ``render(on:)`` maps them to pixels. The title, the
/// legend (one or more rows under the title) and the y-axis label each have a row of their own above the plot, and
/// the colour bar a margin on the right, so no text is drawn over another or over the data.
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
        /// One colour per segment (`points.count - 1` of them): the line is drawn segment by segment in these colours
        /// instead of `color` (e.g. by error, with a ``ChartColorBar``).
        public var segmentColors: [PlotColor]?
        public init(name: String, color: PlotColor, points: [SIMD2<Double>], style: Style = .line, thickness: Int = 2,
                    segmentColors: [PlotColor]? = nil) {
            self.name = name; self.color = color; self.points = points; self.style = style; self.thickness = thickness
            self.segmentColors = segmentColors
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
    /// Shaded horizontal bands, drawn under the grid and the data.
    public var bands: [ChartBand] = []
    /// Horizontal reference lines, drawn over the data.
    public var referenceLines: [ChartReferenceLine] = []
    /// The colour bar of a series drawn with `segmentColors`, right of the plot.
    public var colorBar: ChartColorBar?

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
        for b in bands { ys.append(contentsOf: [b.lower, b.upper].filter(\.isFinite)) }
        for r in referenceLines where r.value.isFinite { ys.append(r.value) }
        return (xs.min() ?? 0, xs.max() ?? 1, ys.min() ?? 0, ys.max() ?? 1)
    }

    /// Draws the chart to fill `canvas`.
    public func render<C: PlotCanvas>(on canvas: inout C) throws {
        let W = Double(canvas.width), H = Double(canvas.height)
        try canvas.rectangle(0, 0, W - 1, H - 1, color: .white, filled: true)
        // Rows above the plot: the title, the legend's rows, the y-axis label.
        // The title at scale 0.7, smaller when that would not fit the width.
        let fullTitle = try canvas.textSize(title, scale: 0.7)
        let titleScale = fullTitle.width > W - 20 ? 0.7 * (W - 20) / fullTitle.width : 0.7
        let titleSize = try canvas.textSize(title, scale: titleScale)
        let titleBaseline = 12 + titleSize.height
        let legend = try legendRows(on: canvas, width: W - 20)
        let legendRowH = 24.0
        let yLabelBaseline = titleBaseline + 12 + legendRowH * Double(legend.count) + 16
        let left = 90.0, right = colorBar == nil ? 25.0 : 120.0, top = yLabelBaseline + 16, bottom = 70.0
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

        // Bands under everything else, clipped to the plot.
        for b in bands where b.lower.isFinite && b.upper.isFinite {
            let lo = min(max(py(b.lower), top), top + plotH), hi = min(max(py(b.upper), top), top + plotH)
            try canvas.rectangle(left, hi, left + plotW, lo, color: b.color, filled: true)
        }

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
            case .line where points.count >= 2:
                if let colors = s.segmentColors, colors.count == points.count - 1 {
                    for k in 0..<(points.count - 1) {
                        try canvas.line(points[k].x, points[k].y, points[k + 1].x, points[k + 1].y, color: colors[k], thickness: s.thickness)
                    }
                } else {
                    try canvas.polyline(points, color: s.color, thickness: s.thickness)
                }
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

        for r in referenceLines where r.value.isFinite {
            try canvas.line(left, py(r.value), left + plotW, py(r.value), color: r.color, thickness: 2)
        }

        // Title, axis labels, legend, colour bar.
        try canvas.text(title, x: (W - titleSize.width) / 2, y: titleBaseline, scale: titleScale, color: .black)
        let xSize = try canvas.textSize(xLabel, scale: 0.55)
        try canvas.text(xLabel, x: left + (plotW - xSize.width) / 2, y: H - 14, scale: 0.55, color: .black)
        try canvas.text(yLabel, x: 8, y: yLabelBaseline, scale: 0.55, color: .black)
        for (row, entries) in legend.enumerated() {
            let rowWidth = entries.reduce(0) { $0 + $1.width }
            var x = (W - rowWidth) / 2
            let y = titleBaseline + 12 + legendRowH * (Double(row) + 0.5)
            for e in entries {
                try drawSwatch(e.swatch, x: x, y: y, on: &canvas)
                try canvas.text(e.name, x: x + Self.swatchWidth + 6, y: y + e.textHeight / 2, scale: Self.legendScale, color: .black)
                x += e.width
            }
        }
        if let bar = colorBar {
            try drawColorBar(bar, x: left + plotW + 16, top: top, height: plotH, yLabelBaseline: yLabelBaseline, on: &canvas)
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
