import Foundation
import Geometry
import Sensors

/// The exact viewing ray of every pixel of a camera, computed once per camera model.
///
/// `bearings[y * width + x]` is the unit bearing in the camera frame C through the *centre* of pixel
/// (x, y) (OpenCV convention, distortion included, from `CameraModel.bearing`). The map also holds, per
/// pixel, the angle one pixel spans (for the texture footprint) and, per 16×16 tile, the bounding box of
/// its rays in normalised coordinates (x/z, y/z), widened by one pixel, for culling surfaces per tile.
public struct BearingMap: Sendable {
    /// The camera model the map was computed for.
    public let model: CameraModel
    /// Unit bearings, camera frame, row-major (zero where the model cannot unproject).
    public let bearings: [Vec3]
    /// Angle (radians) subtended by one pixel at each pixel.
    public let pixelAngle: [Float]
    /// Tile side, pixels.
    public let tileSize = 16
    /// Tiles across and down.
    public let tilesX: Int, tilesY: Int
    /// Per tile: (min x/z, min y/z, max x/z, max y/z) of its rays.
    public let tileBounds: [SIMD4<Double>]

    /// Computes the map (uses all cores).
    public init(model: CameraModel) {
        self.model = model
        let w = model.width, h = model.height
        var b = [Vec3](repeating: .zero, count: w * h)
        b.withUnsafeMutableBufferPointer { out in
            let base = out.baseAddress!
            DispatchQueue.concurrentPerform(iterations: h) { y in
                for x in 0..<w {
                    base[y * w + x] = model.bearing(Vec2(Double(x), Double(y))) ?? .zero
                }
            }
        }
        var ang = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                let nx = x + 1 < w ? i + 1 : i - 1, ny = y + 1 < h ? i + w : i - w
                let a = (b[i] - b[nx]).norm, c = (b[i] - b[ny]).norm
                ang[i] = Float((a * c).squareRoot())
            }
        }
        tilesX = (w + tileSize - 1) / tileSize
        tilesY = (h + tileSize - 1) / tileSize
        var bounds: [SIMD4<Double>] = []
        for ty in 0..<tilesY {
            for tx in 0..<tilesX {
                var lo = Vec2(repeating: .infinity), hi = Vec2(repeating: -.infinity)
                let x0 = max(0, tx * tileSize - 1), x1 = min(w - 1, (tx + 1) * tileSize)
                let y0 = max(0, ty * tileSize - 1), y1 = min(h - 1, (ty + 1) * tileSize)
                for y in y0...y1 {
                    for x in x0...x1 {
                        let r = b[y * w + x]
                        guard r.z > 1e-6 else { continue }
                        let n = Vec2(r.x / r.z, r.y / r.z)
                        lo = pointwiseMin(lo, n); hi = pointwiseMax(hi, n)
                    }
                }
                // Margin: one pixel's angle, mapped to normalised coordinates (d tan/dθ = 1 + tan²), twice over:
                // sub-samples of edge pixels reach half a pixel beyond the tile.
                let m = max(abs(lo.x), abs(hi.x), abs(lo.y), abs(hi.y))
                let pad = lo.x.isFinite ? Double(ang[y0 * w + x0]) * (1 + m * m) * 2 : 0
                bounds.append(SIMD4(lo.x - pad, lo.y - pad, hi.x + pad, hi.y + pad))
            }
        }
        bearings = b; pixelAngle = ang; tileBounds = bounds
    }

    /// The bearing at a sub-pixel position, by bilinear interpolation of the map (renormalised).
    @inlinable public func interpolatedBearing(x: Double, y: Double) -> Vec3 {
        let w = model.width, h = model.height
        let xc = min(max(x, 0), Double(w - 1) - 1e-9), yc = min(max(y, 0), Double(h - 1) - 1e-9)
        let x0 = Int(xc), y0 = Int(yc)
        let x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1)
        // Extrapolate linearly outside the image (half a pixel at most).
        let tx = x - Double(x0), ty = y - Double(y0)
        return bearings.withUnsafeBufferPointer { p in
            let a = p[y0 * w + x0], b = p[y0 * w + x1], c = p[y1 * w + x0], d = p[y1 * w + x1]
            let top = a + tx * (b - a), bottom = c + tx * (d - c)
            return (top + ty * (bottom - top)).normalized
        }
    }
}
