import Foundation
import Geometry
import Sensors

/// Options of the ray-casting renderer.
public struct RenderOptions: Equatable, Sendable {
    /// Metres per texel at texture level 0 (default 4 mm: about one image pixel at 1.8 m with EuRoC's lens).
    public var metresPerTexel: Double = 0.004
    /// Largest texture side, texels (larger surfaces repeat their texture). Default 1024.
    public var maxTextureSize: Int = 1024
    /// Sub-samples per axis for pixels on a geometric edge (where the visible surface changes):
    /// 4 gives 16 rays per edge pixel, so edges are anti-aliased to ~1/8 px. 1 disables it.
    public var edgeSamples: Int = 4

    public init(metresPerTexel: Double = 0.004, maxTextureSize: Int = 1024, edgeSamples: Int = 4) {
        self.metresPerTexel = metresPerTexel; self.maxTextureSize = maxTextureSize; self.edgeSamples = edgeSamples
    }
    /// Coarse textures for quick tests in debug builds (2 cm texels, ≤ 256²).
    public static let fast = RenderOptions(metresPerTexel: 0.02, maxTextureSize: 256, edgeSamples: 4)
}

/// Renders a `Scene` through an exact camera model by casting one ray per pixel.
///
/// Each ray is the camera's exact bearing (`BearingMap`, distortion included) rotated into the world;
/// the first visible surface is found with per-frame back-face culling and per-tile frustum culling;
/// its texture is sampled trilinearly from a mip pyramid at the pixel's footprint
/// (`distance · pixelAngle / cos(incidence)`), so textures do not alias. Pixels where the visible
/// surface changes are re-rendered with `edgeSamples`² sub-pixel rays (anti-aliased edges), so scene
/// corners appear at their exact sub-pixel projections. Surfaces are shaded by a fixed light
/// (`0.72 + 0.28 · max(0, n·l)`); uniform-textured surfaces keep their exact gray. Rays that hit
/// nothing get the scene's background (sky) gray. Thread-safe; renders use all cores.
public final class SceneRenderer: @unchecked Sendable {
    /// The scene rendered.
    public let scene: Scene
    /// Texture resolution and anti-aliasing options.
    public let options: RenderOptions
    let prepared: [PreparedSurface]
    let textures: [TexturePyramid?]
    /// All texture levels of all surfaces as 8-bit texels (rounded; 4× less memory traffic than Float),
    /// concatenated (owned; freed in deinit), and per surface the offset of its level 0 (−1 without a
    /// texture) — read without reference counting in the hot loop.
    let texStore: UnsafeMutablePointer<UInt8>
    let texBase: [Int]

    struct PreparedSurface {
        var n: Vec3, offset: Double, c0: Vec3, axisU: Vec3, axisV: Vec3
        var minUV: Vec2, maxUV: Vec2, isRect: Bool, corners2D: [Vec2]
        var corners: [Vec3]
        var uniform: Float?, shade: Float
    }

    /// Prepares the scene: builds every surface's texture pyramid (in parallel).
    public init(scene: Scene, options: RenderOptions = RenderOptions()) {
        self.scene = scene; self.options = options
        let light = Vec3(0.3, 0.5, 1).normalized
        prepared = scene.surfaces.map { s in
            let c = s.corners2D
            let isRect = c.count == 4 && c.allSatisfy { p in
                (abs(p.x - s.minUV.x) < 1e-9 || abs(p.x - s.maxUV.x) < 1e-9) &&
                    (abs(p.y - s.minUV.y) < 1e-9 || abs(p.y - s.maxUV.y) < 1e-9)
            }
            var uniform: Float?
            if case .uniform(let g) = s.texture { uniform = Float(g) }
            return PreparedSurface(n: s.normal_W, offset: s.offset, c0: s.corners_W[0], axisU: s.axisU_W, axisV: s.axisV_W,
                                   minUV: s.minUV, maxUV: s.maxUV, isRect: isRect, corners2D: c, corners: s.corners_W,
                                   uniform: uniform, shade: Float(0.72 + 0.28 * max(0, s.normal_W.dot(light))))
        }
        var tex = [TexturePyramid?](repeating: nil, count: scene.surfaces.count)
        let surfaces = scene.surfaces
        tex.withUnsafeMutableBufferPointer { out in
            let base = out.baseAddress!
            DispatchQueue.concurrentPerform(iterations: surfaces.count) { i in
                guard case .procedural(let seed) = surfaces[i].texture else { return }
                let extent = max(surfaces[i].maxUV.x - surfaces[i].minUV.x, surfaces[i].maxUV.y - surfaces[i].minUV.y)
                // Big surfaces (façades, courtyard ground, > 10 m) get 3× larger texture features, so they
                // stay trackable from 10–20 m away.
                let scale = extent > 10 ? 3.0 : 1.0
                let size = ProceduralTexture.size(forExtent: extent, metresPerTexel: options.metresPerTexel * scale,
                                                  maxSize: options.maxTextureSize)
                let img = ProceduralTexture.generate(seed: seed, size: size, metresPerTexel: options.metresPerTexel)
                base[i] = TexturePyramid(level0: img, size: size, metresPerTexel: options.metresPerTexel * scale)
            }
        }
        textures = tex
        var bases: [Int] = [], total = 0
        for t in tex {
            if let t { bases.append(total); total += t.levels.reduce(0) { $0 + $1.count } } else { bases.append(-1) }
        }
        let store = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, total))
        for (t, base) in zip(tex, bases) {
            guard let t else { continue }
            var o = base
            for level in t.levels {
                for v in level { store[o] = UInt8(min(255, max(0, v.rounded()))); o += 1 }
            }
        }
        texStore = store
        texBase = bases
    }

    deinit { texStore.deallocate() }

    /// A surface in the current camera frame: ray `b` (unit, camera frame) hits its plane at
    /// `t = ds / (nC·b)` and in-plane coordinates `u = u0 + t (uC·b)`, `v = v0 + t (vC·b)`.
    struct FrameSurface {
        var nC: Vec3, ds: Double, u0: Double, uC: Vec3, v0: Double, vC: Vec3, index: Int
        var minUV: Vec2, maxUV: Vec2, isRect: Bool, uniform: Float, shade: Float
        /// Texture: offset of level 0 in `texStore` (−1: none), side of level 0, number of levels, metres per texel.
        var texBase: Int, texSize: Int, texLevels: Int, texel_m: Double
    }

    /// The result of tracing one ray.
    struct RayHit { var surface: Int32; var t: Double; var dn: Double; var u: Double; var v: Double }

    /// Renders the scene as seen by a camera at `T_W_C`, returning gray levels (0–255, unclamped Float,
    /// row-major) and, per pixel, the id of the surface at the pixel centre (−1 for background).
    public func renderRadiance(map: BearingMap, T_W_C: SE3) -> (radiance: [Float], surfaceIds: [Int32]) {
        let w = map.model.width, h = map.model.height
        let R_C_W = T_W_C.rotation.inverse, o = T_W_C.translation
        let R_W_C = T_W_C.rotation.matrix
        // Per-frame culling: visible side, clip to z > 5 mm, bounding box in normalised coordinates.
        var frame: [FrameSurface] = [], boxes: [SIMD4<Double>] = [], depth: [Double] = []
        for (i, s) in prepared.enumerated() {
            let side = s.n.dot(o) - s.offset
            guard side > 1e-9 else { continue }
            var poly = s.corners.map { R_C_W.act($0 - o) }
            poly = Self.clipNear(poly, zNear: 0.005)
            guard poly.count >= 3 else { continue }
            var lo = Vec2(repeating: .infinity), hi = Vec2(repeating: -.infinity)
            for p in poly { let q = Vec2(p.x / p.z, p.y / p.z); lo = pointwiseMin(lo, q); hi = pointwiseMax(hi, q) }
            let d = o - s.c0
            frame.append(FrameSurface(nC: R_C_W.act(s.n), ds: -side, u0: d.dot(s.axisU), uC: R_C_W.act(s.axisU),
                                      v0: d.dot(s.axisV), vC: R_C_W.act(s.axisV), index: i,
                                      minUV: s.minUV, maxUV: s.maxUV, isRect: s.isRect, uniform: s.uniform ?? -1, shade: s.shade,
                                      texBase: texBase[i], texSize: textures[i]?.size ?? 0,
                                      texLevels: textures[i]?.levels.count ?? 0, texel_m: textures[i]?.metresPerTexel ?? 1))
            boxes.append(SIMD4(lo.x, lo.y, hi.x, hi.y))
            depth.append(poly.map { $0.norm }.min() ?? 0)
        }
        // Nearest first, so most later candidates fail the depth test early.
        let order = frame.indices.sorted { depth[$0] < depth[$1] }
        frame = order.map { frame[$0] }; boxes = order.map { boxes[$0] }
        // Per-tile candidate lists (flat).
        var tileStart = [Int](repeating: 0, count: map.tileBounds.count + 1)
        var candidates: [Int32] = []
        for (ti, tb) in map.tileBounds.enumerated() {
            for (k, b) in boxes.enumerated() where b.x <= tb.z && b.z >= tb.x && b.y <= tb.w && b.w >= tb.y {
                candidates.append(Int32(k))
            }
            tileStart[ti + 1] = candidates.count
        }
        var radiance = [Float](repeating: 0, count: w * h)
        var ids = [Int32](repeating: -1, count: w * h)
        let tilesX = map.tilesX, ts = map.tileSize
        let bg = Float(scene.backgroundGray)
        let skyRow = R_W_C.r2
        frame.withUnsafeBufferPointer { fs in
            candidates.withUnsafeBufferPointer { cand in
                map.bearings.withUnsafeBufferPointer { bear in
                    map.pixelAngle.withUnsafeBufferPointer { pang in
                        radiance.withUnsafeMutableBufferPointer { radBuf in
                            ids.withUnsafeMutableBufferPointer { idBuf in
                                let rad = radBuf.baseAddress!, idp = idBuf.baseAddress!
                                // Pass 1: one ray per pixel centre, tile row by tile row.
                                DispatchQueue.concurrentPerform(iterations: map.tilesY) { ty in
                                    for tx in 0..<tilesX {
                                        let ti = ty * tilesX + tx
                                        let list = UnsafeBufferPointer(rebasing: cand[tileStart[ti]..<tileStart[ti + 1]])
                                        for y in (ty * ts)..<min(h, (ty + 1) * ts) {
                                            for x in (tx * ts)..<min(w, (tx + 1) * ts) {
                                                let i = y * w + x
                                                let b = bear[i]
                                                let hit = self.trace(b, fs, list)
                                                idp[i] = hit.surface < 0 ? -1 : Int32(fs[Int(hit.surface)].index)
                                                rad[i] = self.shade(hit, fs, angle: Double(pang[i]), b: b, skyRow: skyRow, bg: bg)
                                            }
                                        }
                                    }
                                }
                                // Pass 2: anti-alias pixels whose surface differs from a neighbour's.
                                let ns = max(1, self.options.edgeSamples)
                                guard ns > 1 else { return }
                                DispatchQueue.concurrentPerform(iterations: map.tilesY) { ty in
                                    for y in (ty * ts)..<min(h, (ty + 1) * ts) {
                                        for x in 0..<w {
                                            let i = y * w + x, id = idp[i]
                                            // An edge can cut a pixel's corner without passing between its centre and a
                                            // 4-neighbour's, so all 8 neighbours are checked.
                                            var edge = false
                                            for dy in -1...1 where !edge {
                                                let yy = y + dy
                                                guard yy >= 0, yy < h else { continue }
                                                for dx in -1...1 {
                                                    let xx = x + dx
                                                    if xx >= 0, xx < w, idp[yy * w + xx] != id { edge = true; break }
                                                }
                                            }
                                            guard edge else { continue }
                                            let ti = ty * tilesX + x / ts
                                            let list = UnsafeBufferPointer(rebasing: cand[tileStart[ti]..<tileStart[ti + 1]])
                                            let angle = Double(pang[i]) / Double(ns)
                                            var sum: Float = 0
                                            for sy in 0..<ns {
                                                for sx in 0..<ns {
                                                    let px = Double(x) + (Double(sx) + 0.5) / Double(ns) - 0.5
                                                    let py = Double(y) + (Double(sy) + 0.5) / Double(ns) - 0.5
                                                    let b = map.interpolatedBearing(x: px, y: py)
                                                    let hit = self.trace(b, fs, list)
                                                    sum += self.shade(hit, fs, angle: angle, b: b, skyRow: skyRow, bg: bg)
                                                }
                                            }
                                            rad[i] = sum / Float(ns * ns)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return (radiance, ids)
    }

    /// The nearest visible surface along unit ray `b` (camera frame) among `list`.
    @inline(__always)
    func trace(_ b: Vec3, _ fs: UnsafeBufferPointer<FrameSurface>, _ list: UnsafeBufferPointer<Int32>) -> RayHit {
        var best = RayHit(surface: -1, t: .infinity, dn: 0, u: 0, v: 0)
        guard b.z != 0 || b.x != 0 || b.y != 0 else { return best }
        for k in list {
            let f = fs[Int(k)]
            let dn = f.nC.dot(b)
            guard dn < -1e-12, f.ds > best.t * dn else { continue } // t = ds/dn < best.t, without dividing
            let t = f.ds / dn
            guard t > 0 else { continue }
            let u = f.u0 + t * f.uC.dot(b), v = f.v0 + t * f.vC.dot(b)
            guard u >= f.minUV.x, u <= f.maxUV.x, v >= f.minUV.y, v <= f.maxUV.y else { continue }
            if !f.isRect && !Self.insideConvex(Vec2(u, v), prepared[f.index].corners2D) { continue }
            best = RayHit(surface: Int32(k), t: t, dn: dn, u: u, v: v)
        }
        return best
    }

    @inline(__always)
    func shade(_ hit: RayHit, _ fs: UnsafeBufferPointer<FrameSurface>, angle: Double, b: Vec3, skyRow: Vec3, bg: Float) -> Float {
        guard hit.surface >= 0 else { return bg + 25 * Float(skyRow.dot(b)) }
        let f = fs[Int(hit.surface)]
        if f.uniform >= 0 { return f.uniform }
        guard f.texBase >= 0 else { return 128 }
        let footprint = hit.t * angle / max(-hit.dn, 0.05)
        return f.shade * sampleTexture(f, u: hit.u, v: hit.v, footprint: footprint)
    }

    /// Trilinear texture sample (same as `TexturePyramid.sample`, on the flat store).
    @inline(__always)
    func sampleTexture(_ f: FrameSurface, u: Double, v: Double, footprint: Double) -> Float {
        let ratio = footprint / f.texel_m
        var offset = f.texBase, n = f.texSize
        if ratio <= 1 { // magnified: level 0 only (the common case up close; skips the logarithm)
            let scale = 1.0 / f.texel_m
            return bilinearFlat(texStore + offset, n: n, x: u * scale - 0.5, y: v * scale - 0.5)
        }
        let lambda = Self.fastLog2(Float(ratio))
        let maxLevel = f.texLevels - 1
        if lambda >= Float(maxLevel) { return Float(texStore[offset + (4 * f.texSize * f.texSize - 4) / 3]) }
        let l0 = Int(lambda), frac = lambda - Float(l0)
        for _ in 0..<l0 { offset += n * n; n /= 2 }
        let scale = 1.0 / (f.texel_m * Double(1 << l0))
        let a = bilinearFlat(texStore + offset, n: n, x: u * scale - 0.5, y: v * scale - 0.5)
        if frac < 1e-4 { return a }
        let b = bilinearFlat(texStore + offset + n * n, n: n / 2, x: u * scale * 0.5 - 0.5, y: v * scale * 0.5 - 0.5)
        return a + frac * (b - a)
    }

    /// Piecewise-linear log₂ from the float's exponent and mantissa (error < 0.09; monotone and
    /// continuous, which is all mip-level selection needs).
    @inline(__always)
    static func fastLog2(_ x: Float) -> Float {
        let bits = x.bitPattern
        let exponent = Float(Int((bits >> 23) & 0xFF) - 127)
        return exponent + (Float(bitPattern: (bits & 0x7F_FFFF) | 0x3F80_0000) - 1)
    }

    @inline(__always)
    func bilinearFlat(_ p: UnsafeMutablePointer<UInt8>, n: Int, x: Double, y: Double) -> Float {
        // floor(x) for x > −2²⁰ by truncation of a shifted value; 2²⁰ is a multiple of n, so wrapping is unchanged.
        let ix = Int(x + 1_048_576) - 1_048_576, iy = Int(y + 1_048_576) - 1_048_576
        let tx = Float(x - Double(ix)), ty = Float(y - Double(iy))
        let mask = n - 1
        let x0 = ix & mask, y0 = iy & mask
        let x1 = (x0 + 1) & mask, y1 = (y0 + 1) & mask
        let a = Float(p[y0 * n + x0]), b = Float(p[y0 * n + x1]), c = Float(p[y1 * n + x0]), d = Float(p[y1 * n + x1])
        let top = a + tx * (b - a), bottom = c + tx * (d - c)
        return top + ty * (bottom - top)
    }

    static func insideConvex(_ q: Vec2, _ c: [Vec2]) -> Bool {
        let n = c.count
        for i in 0..<n {
            let a = c[i], e = c[(i + 1) % n] - a, r = q - a
            if e.x * r.y - e.y * r.x < 0 { return false }
        }
        return true
    }

    /// Sutherland–Hodgman clip of a polygon (camera frame) to `z ≥ zNear`.
    static func clipNear(_ poly: [Vec3], zNear: Double) -> [Vec3] {
        var out: [Vec3] = []
        for i in 0..<poly.count {
            let a = poly[i], b = poly[(i + 1) % poly.count]
            let ina = a.z >= zNear, inb = b.z >= zNear
            if ina { out.append(a) }
            if ina != inb {
                let t = (zNear - a.z) / (b.z - a.z)
                out.append(a + t * (b - a))
            }
        }
        return out
    }
}
