/// A spatial index enforcing a minimum distance between accepted points.
///
/// The image is split into square cells of side `minDistance / √2`, so a cell holds at most one
/// accepted point and a query looks at the 5×5 cells around it. Reused across frames (`reset`).
struct MinDistanceGrid {
    private(set) var minDistance: Float
    private let cellSize: Float
    private let columns: Int, rows: Int
    private var cells: [Int32]
    private var points: [SIMD2<Float>] = []

    /// A grid over a `width`×`height` image; `minDistance` in pixels (0 disables the test).
    init(width: Int, height: Int, minDistance: Double) {
        self.minDistance = Float(minDistance)
        // Slightly under md/√2 so that two points in one cell are always closer than md.
        cellSize = max(Float(minDistance) * 0.7, 1)
        columns = max(1, Int((Float(width) / cellSize).rounded(.up)) + 1)
        rows = max(1, Int((Float(height) / cellSize).rounded(.up)) + 1)
        cells = [Int32](repeating: -1, count: columns * rows)
    }

    /// Forgets every accepted point.
    mutating func reset() {
        for i in points.indices { cells[cellIndex(points[i])] = -1 }
        points.removeAll(keepingCapacity: true)
    }

    private func cellIndex(_ p: SIMD2<Float>) -> Int {
        let cx = min(columns - 1, max(0, Int(p.x / cellSize)))
        let cy = min(rows - 1, max(0, Int(p.y / cellSize)))
        return cy * columns + cx
    }

    /// True when no accepted point lies closer than `minDistance` to `p`.
    func isFree(_ p: SIMD2<Float>) -> Bool {
        if minDistance <= 0 { return true }
        let cx = min(columns - 1, max(0, Int(p.x / cellSize)))
        let cy = min(rows - 1, max(0, Int(p.y / cellSize)))
        let d2 = minDistance * minDistance
        for y in max(0, cy - 2)...min(rows - 1, cy + 2) {
            let base = y * columns
            for x in max(0, cx - 2)...min(columns - 1, cx + 2) {
                let k = cells[base + x]
                if k >= 0 {
                    let d = points[Int(k)] - p
                    if d.x * d.x + d.y * d.y < d2 { return false }
                }
            }
        }
        return true
    }

    /// Accepts `p` when it is free; returns whether it was accepted.
    @discardableResult
    mutating func insertIfFree(_ p: SIMD2<Float>) -> Bool {
        guard isFree(p) else { return false }
        if minDistance > 0 {
            cells[cellIndex(p)] = Int32(points.count)
            points.append(p)
        }
        return true
    }
}
