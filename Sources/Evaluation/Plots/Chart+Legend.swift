import Foundation

/// The legend (rows of swatches and names under the title) and the colour bar of a ``Chart``.
extension Chart {
    // MARK: - Legend and colour bar

    static let legendScale = 0.5
    static let swatchWidth = 30.0

    enum Swatch { case line(PlotColor), dots(PlotColor), gradient, fill(PlotColor) }

    struct LegendEntry { var name: String; var swatch: Swatch; var width: Double; var textHeight: Double }

    /// The legend's entries (named series, bands, reference lines), in rows no wider than `width`.
    func legendRows<C: PlotCanvas>(on canvas: C, width: Double) throws -> [[LegendEntry]] {
        var entries: [(String, Swatch)] = []
        for s in series where !s.name.isEmpty {
            entries.append((s.name, s.segmentColors != nil ? .gradient : (s.style == .line ? .line(s.color) : .dots(s.color))))
        }
        entries += bands.filter { !$0.name.isEmpty }.map { ($0.name, .fill($0.color)) }
        entries += referenceLines.filter { !$0.name.isEmpty }.map { ($0.name, .line($0.color)) }
        var rows: [[LegendEntry]] = []
        var current: [LegendEntry] = [], used = 0.0
        for (name, swatch) in entries {
            let size = try canvas.textSize(name, scale: Self.legendScale)
            let e = LegendEntry(name: name, swatch: swatch, width: Self.swatchWidth + 6 + size.width + 28, textHeight: size.height)
            if !current.isEmpty && used + e.width > width { rows.append(current); current = []; used = 0 }
            current.append(e); used += e.width
        }
        if !current.isEmpty { rows.append(current) }
        return rows
    }

    func drawSwatch<C: PlotCanvas>(_ swatch: Swatch, x: Double, y: Double, on canvas: inout C) throws {
        let w = Self.swatchWidth
        switch swatch {
        case .line(let c): try canvas.line(x, y, x + w, y, color: c, thickness: 3)
        case .dots(let c): try canvas.dot(x + w / 2, y, radius: 3, color: c)
        case .fill(let c):
            try canvas.rectangle(x, y - 6, x + w, y + 6, color: c, filled: true)
        case .gradient:
            for k in 0..<3 {
                try canvas.line(x + Double(k) * w / 3, y, x + Double(k + 1) * w / 3, y, color: Colormap.viridis(Double(k) / 2), thickness: 3)
            }
        }
    }

    /// A vertical strip of the colormap from the bar's minimum (bottom) to its maximum (top), with both values and the
    /// middle one, and its label in the y-label row, right-aligned.
    func drawColorBar<C: PlotCanvas>(_ bar: ChartColorBar, x: Double, top: Double, height: Double, yLabelBaseline: Double,
                                     on canvas: inout C) throws {
        let steps = 64, w = 16.0
        for k in 0..<steps {
            let y0 = top + height * Double(steps - k - 1) / Double(steps), y1 = top + height * Double(steps - k) / Double(steps)
            try canvas.rectangle(x, y0, x + w, y1, color: Colormap.viridis((Double(k) + 0.5) / Double(steps)), filled: true)
        }
        try canvas.rectangle(x, top, x + w, top + height, color: .axis, filled: false)
        let span = bar.maximum - bar.minimum
        let step = NiceTicks.step(span: span > 0 ? span : 1, target: 6) / 10
        for (f, value) in [(0.0, bar.minimum), (0.5, (bar.minimum + bar.maximum) / 2), (1.0, bar.maximum)] {
            let label = NiceTicks.label(value, step: step)
            let size = try canvas.textSize(label, scale: 0.45)
            let y = top + height * (1 - f)
            try canvas.line(x + w, y, x + w + 4, y, color: .axis, thickness: 1)
            try canvas.text(label, x: x + w + 7, y: y + size.height / 2, scale: 0.45, color: .axis)
        }
        let size = try canvas.textSize(bar.label, scale: 0.5)
        try canvas.text(bar.label, x: Double(canvas.width) - 8 - size.width, y: yLabelBaseline, scale: 0.5, color: .black)
    }
}
