import Foundation

/// A square, tiling gray texture with its mip pyramid, for alias-free sampling.
///
/// Texture coordinates are metres in the surface's plane; level 0 has `metresPerTexel` metres per texel
/// and `size` × `size` texels (a power of two), repeating with a period of `size · metresPerTexel` metres.
/// Level l+1 is the 2×2 box average of level l. `sample(u:v:footprint:)` is trilinear: the level is
/// chosen from the pixel footprint (metres covered by one image pixel on the surface).
public struct TexturePyramid: Sendable {
    /// Texels of each level, row-major, values in gray levels [0, 255].
    public let levels: [[Float]]
    /// Side of level 0, texels (power of two).
    public let size: Int
    /// Metres per texel at level 0.
    public let metresPerTexel: Double

    /// A pyramid over a level-0 image (`size`² values, `size` a power of two).
    public init(level0: [Float], size: Int, metresPerTexel: Double) {
        precondition(size > 0 && size & (size - 1) == 0 && level0.count == size * size)
        var levels = [level0]
        var n = size
        while n > 1 {
            let prev = levels[levels.count - 1], m = n / 2
            var next = [Float](repeating: 0, count: m * m)
            for y in 0..<m {
                for x in 0..<m {
                    let i = 2 * y * n + 2 * x
                    next[y * m + x] = 0.25 * (prev[i] + prev[i + 1] + prev[i + n] + prev[i + n + 1])
                }
            }
            levels.append(next)
            n = m
        }
        self.levels = levels; self.size = size; self.metresPerTexel = metresPerTexel
    }

    /// Trilinear sample at plane coordinates (u, v) metres for a pixel footprint of `footprint` metres.
    @inlinable public func sample(u: Double, v: Double, footprint: Double) -> Float {
        let lambda = max(0, Foundation.log2(max(footprint, 1e-12) / metresPerTexel))
        let maxLevel = Double(levels.count - 1)
        if lambda >= maxLevel { return levels[levels.count - 1][0] }
        let l0 = Int(lambda), frac = Float(lambda - Double(l0))
        let a = bilinear(level: l0, u: u, v: v)
        if frac < 1e-4 { return a }
        let b = bilinear(level: l0 + 1, u: u, v: v)
        return a + frac * (b - a)
    }

    /// Bilinear sample of one level with wrap-around; texel centres at half-integer positions.
    @inlinable public func bilinear(level: Int, u: Double, v: Double) -> Float {
        let n = size >> level
        let scale = 1.0 / (metresPerTexel * Double(1 << level))
        let x = u * scale - 0.5, y = v * scale - 0.5
        let fx = x.rounded(.down), fy = y.rounded(.down)
        let tx = Float(x - fx), ty = Float(y - fy)
        let mask = n - 1
        let x0 = Int(fx) & mask, y0 = Int(fy) & mask
        let x1 = (x0 + 1) & mask, y1 = (y0 + 1) & mask
        return levels[level].withUnsafeBufferPointer { p in
            let a = p[y0 * n + x0], b = p[y0 * n + x1], c = p[y1 * n + x0], d = p[y1 * n + x1]
            let top = a + tx * (b - a), bottom = c + tx * (d - c)
            return top + ty * (bottom - top)
        }
    }
}

/// Procedural textures with detail at many scales: value noise (fBm, cells 0.6 m … 2.5 cm), random
/// filled rectangles (2–40 cm, hard corners), discs (blobs) and straight lines, all wrapping
/// seamlessly. Deterministic for a seed. Not a checkerboard: corners are irregular, as FAST needs.
public enum ProceduralTexture {
    /// A `size`² texture (power of two) at `metresPerTexel`, from `seed`.
    public static func generate(seed: UInt64, size: Int, metresPerTexel: Double) -> [Float] {
        var rng = SimRandom(seed: seed, stream: 0x7E47)
        let n = size
        var img = [Float](repeating: 0, count: n * n)
        let period = Double(n) * metresPerTexel
        // 1. Value-noise fBm: lattice cells that divide the period.
        let base = Float(rng.uniform(90, 165))
        for (cell_m, amp) in [(0.6, 55.0), (0.25, 35.0), (0.09, 22.0), (0.025, 12.0)] {
            let cells = max(1, Int((period / cell_m).rounded()))
            var lattice = [Float](repeating: 0, count: cells * cells)
            for i in 0..<lattice.count { lattice[i] = Float(rng.uniform(-amp, amp)) }
            let texPerCell = Double(n) / Double(cells)
            img.withUnsafeMutableBufferPointer { out in
                lattice.withUnsafeBufferPointer { lat in
                    for y in 0..<n {
                        let gy = (Double(y) + 0.5) / texPerCell
                        let cy = Int(gy), ty = Float(gy - Double(cy))
                        let sy = ty * ty * (3 - 2 * ty)
                        let y0 = cy % cells, y1 = (cy + 1) % cells
                        for x in 0..<n {
                            let gx = (Double(x) + 0.5) / texPerCell
                            let cx = Int(gx), tx = Float(gx - Double(cx))
                            let sx = tx * tx * (3 - 2 * tx)
                            let x0 = cx % cells, x1 = (cx + 1) % cells
                            let a = lat[y0 * cells + x0], b = lat[y0 * cells + x1]
                            let c = lat[y1 * cells + x0], d = lat[y1 * cells + x1]
                            let top = a + sx * (b - a), bot = c + sx * (d - c)
                            out[y * n + x] += top + sy * (bot - top)
                        }
                    }
                }
            }
        }
        for i in 0..<img.count { img[i] += base }
        // 2. Rectangles, 3. discs, 4. lines; counts scale with the texture's area in m².
        let area = period * period
        func logUniform(_ lo: Double, _ hi: Double) -> Double { lo * Foundation.pow(hi / lo, rng.uniform()) }
        func paint(_ x: Int, _ y: Int, _ g: Float) { img[(y & (n - 1)) * n + (x & (n - 1))] = g }
        let rects = Int(area * 14) + 4
        for _ in 0..<rects {
            let w = logUniform(0.02, 0.4) / metresPerTexel, h = logUniform(0.02, 0.4) / metresPerTexel
            let x0 = rng.int(n), y0 = rng.int(n)
            let g = Float(rng.uniform() < 0.5 ? rng.uniform(10, 80) : rng.uniform(170, 245))
            let iw = max(1, Int(w)), ih = max(1, Int(h))
            if iw * ih > n * n { continue }
            for y in y0..<(y0 + ih) { for x in x0..<(x0 + iw) { paint(x, y, g) } }
        }
        let discs = Int(area * 8) + 2
        for _ in 0..<discs {
            let r = logUniform(0.01, 0.12) / metresPerTexel
            let cx = rng.uniform(0, Double(n)), cy = rng.uniform(0, Double(n))
            let g = Float(rng.uniform(0, 255))
            let ir = Int(r.rounded(.up))
            if ir > n / 2 { continue }
            for dy in -ir...ir {
                for dx in -ir...ir where Double(dx * dx + dy * dy) <= r * r {
                    paint(Int(cx) + dx, Int(cy) + dy, g)
                }
            }
        }
        let lines = Int(area * 6) + 2
        for _ in 0..<lines {
            let len = logUniform(0.1, 0.8) / metresPerTexel
            let ang = rng.uniform(0, Double.pi)
            let width = max(1, Int((logUniform(0.004, 0.02) / metresPerTexel).rounded()))
            let g = Float(rng.uniform() < 0.5 ? 20 : 235)
            let x0 = rng.uniform(0, Double(n)), y0 = rng.uniform(0, Double(n))
            let steps = Int(len.rounded(.up))
            if steps > 4 * n { continue }
            for s in 0...steps {
                let x = Int(x0 + Double(s) * Foundation.cos(ang)), y = Int(y0 + Double(s) * Foundation.sin(ang))
                for w in 0..<width { paint(x + w, y, g) }
            }
        }
        for i in 0..<img.count { img[i] = min(245, max(8, img[i])) }
        return img
    }

    /// The power-of-two texture size for a surface of `extent` metres at `metresPerTexel`, clamped to
    /// `[16, maxSize]` (larger surfaces repeat the texture).
    public static func size(forExtent extent: Double, metresPerTexel: Double, maxSize: Int) -> Int {
        var s = 16
        while s < maxSize && Double(s) * metresPerTexel < extent { s *= 2 }
        return s
    }
}
