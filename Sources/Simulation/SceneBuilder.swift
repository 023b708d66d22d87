import Foundation
import Geometry

/// Builds scenes from rectangles, boxes and tables, and records measurement pairs as it goes.
///
/// Each added part gets a procedural texture with a seed derived from `textureSeed` and the surface's
/// index, unless a texture is given. Used by the built-in scenes and by tests that need a custom world.
public struct SceneBuilder {
    /// Surfaces added so far.
    public private(set) var surfaces: [SceneSurface] = []
    /// Measurement pairs recorded so far.
    public private(set) var measurements: [MeasurementPair] = []
    /// Base seed of the procedural textures.
    public var textureSeed: UInt64

    public init(textureSeed: UInt64 = 0x5EED) { self.textureSeed = textureSeed }

    private func nextTexture(_ t: SurfaceTexture?) -> SurfaceTexture {
        t ?? .procedural(seed: textureSeed &+ UInt64(surfaces.count) &* 0x9E37_79B9)
    }

    /// Adds a convex polygon (corners in world metres) visible from the `normal_W` side; returns its id.
    @discardableResult
    public mutating func addPolygon(name: String, kind: SurfaceKind, normal_W: Vec3, corners_W: [Vec3],
                                    texture: SurfaceTexture? = nil) throws -> Int {
        let s = try SceneSurface(id: surfaces.count, name: name, kind: kind, normal_W: normal_W,
                                 corners_W: corners_W, texture: nextTexture(texture))
        surfaces.append(s)
        return s.id
    }

    /// Adds a rectangle centred at `center_W` with half-extents `halfU` along `axisU` and `halfV` along
    /// `axisV` (orthogonal unit vectors), visible from the `normal_W` side; returns its id.
    @discardableResult
    public mutating func addRectangle(name: String, kind: SurfaceKind, center_W c: Vec3, normal_W: Vec3,
                                      axisU: Vec3, halfU: Double, axisV: Vec3, halfV: Double,
                                      texture: SurfaceTexture? = nil) throws -> Int {
        let corners = [c - halfU * axisU - halfV * axisV, c + halfU * axisU - halfV * axisV,
                       c + halfU * axisU + halfV * axisV, c - halfU * axisU + halfV * axisV]
        return try addPolygon(name: name, kind: kind, normal_W: normal_W, corners_W: corners, texture: texture)
    }

    /// Adds an axis-aligned box `[min_W, max_W]` (metres) with outward faces: four sides, a top, and a
    /// bottom if `bottom`. Returns the face ids keyed by `"+x"`, `"-x"`, `"+y"`, `"-y"`, `"top"`, `"bottom"`.
    @discardableResult
    public mutating func addBox(name: String, min_W lo: Vec3, max_W hi: Vec3, topKind: SurfaceKind = .boxTop,
                                sideKind: SurfaceKind = .boxSide, bottom: Bool = false, top: Bool = true,
                                texture: SurfaceTexture? = nil) throws -> [String: Int] {
        guard hi.x > lo.x, hi.y > lo.y, hi.z > lo.z else { throw SceneError.invalid("box '\(name)' has max ≤ min") }
        let c = (lo + hi) / 2, h = (hi - lo) / 2
        let ex = Vec3(1, 0, 0), ey = Vec3(0, 1, 0), ez = Vec3(0, 0, 1)
        var ids: [String: Int] = [:]
        ids["+x"] = try addRectangle(name: "\(name).+x", kind: sideKind, center_W: c + h.x * ex, normal_W: ex,
                                     axisU: ey, halfU: h.y, axisV: ez, halfV: h.z, texture: texture)
        ids["-x"] = try addRectangle(name: "\(name).-x", kind: sideKind, center_W: c - h.x * ex, normal_W: -ex,
                                     axisU: ey, halfU: h.y, axisV: ez, halfV: h.z, texture: texture)
        ids["+y"] = try addRectangle(name: "\(name).+y", kind: sideKind, center_W: c + h.y * ey, normal_W: ey,
                                     axisU: ex, halfU: h.x, axisV: ez, halfV: h.z, texture: texture)
        ids["-y"] = try addRectangle(name: "\(name).-y", kind: sideKind, center_W: c - h.y * ey, normal_W: -ey,
                                     axisU: ex, halfU: h.x, axisV: ez, halfV: h.z, texture: texture)
        if top {
            ids["top"] = try addRectangle(name: "\(name).top", kind: topKind, center_W: c + h.z * ez, normal_W: ez,
                                          axisU: ex, halfU: h.x, axisV: ey, halfV: h.y, texture: texture)
        }
        if bottom {
            ids["bottom"] = try addRectangle(name: "\(name).bottom", kind: sideKind, center_W: c - h.z * ez, normal_W: -ez,
                                             axisU: ex, halfU: h.x, axisV: ey, halfV: h.y, texture: texture)
        }
        return ids
    }

    /// Adds a box standing on something, and measurement pairs for its top edges, top diagonal and
    /// a vertical edge. Returns the face ids (see `addBox`).
    @discardableResult
    public mutating func addMeasuredBox(name: String, min_W lo: Vec3, max_W hi: Vec3) throws -> [String: Int] {
        let ids = try addBox(name: name, min_W: lo, max_W: hi)
        if let top = ids["top"], let side = ids["-y"] {
            let a = Vec3(lo.x, lo.y, hi.z), b = Vec3(hi.x, lo.y, hi.z), c = Vec3(hi.x, hi.y, hi.z)
            addMeasurement(name: "\(name).top.length", a, top, b, top)
            addMeasurement(name: "\(name).top.width", b, top, c, top)
            addMeasurement(name: "\(name).top.diagonal", a, top, c, top)
            addMeasurement(name: "\(name).height", Vec3(lo.x, lo.y, lo.z), side, a, side)
        }
        return ids
    }

    /// Adds a table: a slab (top, underside and four apron faces) of `thickness` metres whose top is at
    /// `topHeight` (world z, metres), centred at `center` (x, y), `size` (x, y) metres, on four square legs
    /// `legWidth` wide standing on the floor at `floorZ`. Records measurement pairs for the top's length,
    /// width and diagonal. Returns the top's id.
    @discardableResult
    public mutating func addTable(name: String, center: Vec2, size: Vec2, topHeight: Double,
                                  thickness: Double = 0.04, legWidth: Double = 0.05, floorZ: Double = 0) throws -> Int {
        let lo = Vec3(center.x - size.x / 2, center.y - size.y / 2, topHeight - thickness)
        let hi = Vec3(center.x + size.x / 2, center.y + size.y / 2, topHeight)
        let ids = try addBox(name: name, min_W: lo, max_W: hi, topKind: .tableTop, sideKind: .tableSide, bottom: true)
        for (i, corner) in [Vec2(lo.x, lo.y), Vec2(hi.x - legWidth, lo.y), Vec2(hi.x - legWidth, hi.y - legWidth),
                            Vec2(lo.x, hi.y - legWidth)].enumerated() {
            try addBox(name: "\(name).leg\(i)", min_W: Vec3(corner.x, corner.y, floorZ),
                       max_W: Vec3(corner.x + legWidth, corner.y + legWidth, lo.z), sideKind: .tableSide, top: false)
        }
        guard let top = ids["top"] else { throw SceneError.invalid("table '\(name)' has no top") }
        let a = Vec3(lo.x, lo.y, hi.z), b = Vec3(hi.x, lo.y, hi.z), c = Vec3(hi.x, hi.y, hi.z)
        addMeasurement(name: "\(name).top.length", a, top, b, top)
        addMeasurement(name: "\(name).top.width", b, top, c, top)
        addMeasurement(name: "\(name).top.diagonal", a, top, c, top)
        return top
    }

    /// Records a measurement pair between two points on surfaces `sa` and `sb`.
    public mutating func addMeasurement(name: String, _ a: Vec3, _ sa: Int, _ b: Vec3, _ sb: Int) {
        measurements.append(MeasurementPair(name: name, a_W: a, b_W: b, surfaceA: sa, surfaceB: sb))
    }

    /// The finished scene.
    public func build(name: String, walkArea: WalkArea, orbitTarget: OrbitTarget, backgroundGray: Double = 190) -> Scene {
        Scene(name: name, surfaces: surfaces, measurements: measurements, walkArea: walkArea,
              orbitTarget: orbitTarget, backgroundGray: backgroundGray)
    }
}
