import Imaging

/// Detects corners cell by cell on a bucketing grid, only in the cells that hold fewer tracks than
/// their share, keeping a minimum distance to existing tracks and to each other.
struct GridDetector {
    let width: Int, height: Int
    let options: FeatureTrackerOptions
    /// Cell bounds: cell (c, r) spans x in [xEdges[c], xEdges[c+1]), y in [yEdges[r], yEdges[r+1]).
    let xEdges: [Int], yEdges: [Int]

    init(width: Int, height: Int, options: FeatureTrackerOptions) {
        self.width = width; self.height = height; self.options = options
        xEdges = (0...options.gridColumns).map { $0 * width / options.gridColumns }
        yEdges = (0...options.gridRows).map { $0 * height / options.gridRows }
    }

    var cellCount: Int { options.gridColumns * options.gridRows }

    /// The grid cell holding pixel `p` (clamped into the image).
    func cell(of p: SIMD2<Float>) -> Int {
        let c = min(options.gridColumns - 1, max(0, Int(p.x) * options.gridColumns / max(width, 1)))
        let r = min(options.gridRows - 1, max(0, Int(p.y) * options.gridRows / max(height, 1)))
        return r * options.gridColumns + c
    }

    /// True when `p` lies inside the usable image area (border margin) and the mask allows it.
    func isUsable(_ p: SIMD2<Float>) -> Bool {
        let m = Float(options.borderMargin)
        guard p.x >= m, p.y >= m, p.x <= Float(width - 1) - m, p.y <= Float(height - 1) - m else { return false }
        if let mask = options.mask {
            let x = Int(p.x.rounded()), y = Int(p.y.rounded())
            return mask.pixels[y * mask.width + x] != 0
        }
        return true
    }

    /// New corners for the cells that lack tracks. `counts[i]` is the number of live tracks in cell
    /// i; `grid` holds the live tracks' positions and receives the new corners. At most `limit` are
    /// returned; the emptiest cells are served first.
    func detect(in image: GrayImage, counts: [Int], limit: Int, grid: inout MinDistanceGrid) throws -> [SIMD2<Float>] {
        guard limit > 0 else { return [] }
        let share = (options.featureBudget + cellCount - 1) / cellCount
        let needy = (0..<cellCount).filter { counts[$0] < share }.sorted { counts[$0] < counts[$1] }
        var found: [SIMD2<Float>] = []
        for cellIndex in needy {
            if found.count >= limit { break }
            let want = min(share - counts[cellIndex], limit - found.count)
            found += try detect(cell: cellIndex, in: image, want: want, grid: &grid)
        }
        return found
    }

    private func detect(cell: Int, in image: GrayImage, want: Int, grid: inout MinDistanceGrid) throws -> [SIMD2<Float>] {
        let c = cell % options.gridColumns, r = cell / options.gridColumns
        let x0 = xEdges[c], x1 = xEdges[c + 1], y0 = yEdges[r], y1 = yEdges[r + 1]
        // Usable part of the cell (border margin), then a 3-pixel apron for the detector's support.
        let ux0 = max(x0, options.borderMargin), uy0 = max(y0, options.borderMargin)
        let ux1 = min(x1, width - options.borderMargin), uy1 = min(y1, height - options.borderMargin)
        guard ux1 - ux0 >= 1, uy1 - uy0 >= 1 else { return [] }
        let apron = 4
        let rx0 = max(0, ux0 - apron), ry0 = max(0, uy0 - apron)
        let rx1 = min(width, ux1 + apron), ry1 = min(height, uy1 + apron)
        let roi = crop(image, x: rx0, y: ry0, width: rx1 - rx0, height: ry1 - ry0)
        let offset = SIMD2<Float>(Float(rx0), Float(ry0))

        var accepted: [SIMD2<Float>] = []
        func take(_ corners: [DetectedCorner]) {
            for corner in corners {
                if accepted.count >= want { return }
                let p = corner.position + offset
                guard p.x >= Float(ux0), p.x < Float(ux1), p.y >= Float(uy0), p.y < Float(uy1), isUsable(p) else { continue }
                if grid.insertIfFree(p) { accepted.append(p) }
            }
        }
        switch options.detector {
        case .fast:
            take(try FeatureDetector.fast(roi, threshold: options.fastThreshold))
            if accepted.count < want && options.fastFallbackThreshold < options.fastThreshold {
                take(try FeatureDetector.fast(roi, threshold: options.fastFallbackThreshold))
            }
        case .shiTomasi:
            take(try FeatureDetector.shiTomasi(roi, maxCorners: 4 * want + 8, qualityLevel: options.shiTomasiQuality,
                                               minDistance: max(1, options.minDistance), subPixel: true))
        }
        return accepted
    }

    private func crop(_ image: GrayImage, x: Int, y: Int, width w: Int, height h: Int) -> GrayImage {
        var pixels = [UInt8](repeating: 0, count: w * h)
        image.pixels.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                for row in 0..<h {
                    let s = (y + row) * image.width + x
                    for col in 0..<w { dst[row * w + col] = src[s + col] }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: pixels)
    }
}
