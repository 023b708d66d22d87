import Foundation
import Geometry

/// What a scene surface is, so tests can ask for e.g. "the table tops" or "horizontal planes".
public enum SurfaceKind: String, Codable, Sendable, CaseIterable {
    /// Floor (or courtyard ground): horizontal, normal up.
    case floor
    /// Room wall or building façade: vertical.
    case wall
    /// Ceiling: horizontal, normal down.
    case ceiling
    /// Horizontal top of a table or bench, at a known height.
    case tableTop
    /// Apron, underside or leg face of a table or bench.
    case tableSide
    /// Horizontal top face of a box.
    case boxTop
    /// Vertical side face of a box.
    case boxSide
}

/// How a surface looks.
public enum SurfaceTexture: Equatable, Sendable, Codable {
    /// A procedural multi-scale texture (value noise, rectangles, blobs, lines) generated from `seed`.
    case procedural(seed: UInt64)
    /// A flat gray level in [0, 255]: used for high-contrast calibration targets in tests.
    case uniform(gray: Double)

    private enum CodingKeys: String, CodingKey { case type, seed, gray }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        switch type {
        case "procedural": self = .procedural(seed: try c.decode(UInt64.self, forKey: .seed))
        case "uniform": self = .uniform(gray: try c.decode(Double.self, forKey: .gray))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c,
                debugDescription: "unknown texture type '\(type)' (expected 'procedural' or 'uniform')")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .procedural(let seed): try c.encode("procedural", forKey: .type); try c.encode(seed, forKey: .seed)
        case .uniform(let gray): try c.encode("uniform", forKey: .type); try c.encode(gray, forKey: .gray)
        }
    }
}

/// One planar, convex, one-sided polygon of a scene, in world coordinates (metres).
///
/// The plane is `{p : normal_W · p = offset}`; the surface is visible only from the side `normal_W`
/// points to (like a real wall seen from inside a room). Texture coordinates are metres along the
/// in-plane axes `axisU_W` (from `corners_W[0]` to `corners_W[1]`) and `axisV_W = normal_W × axisU_W`,
/// measured from `corners_W[0]`.
public struct SceneSurface: Equatable, Sendable {
    /// Index of the surface in its scene (`scene.surfaces[id]`).
    public var id: Int
    /// Human-readable name, e.g. `"tableA.top"`.
    public var name: String
    /// What the surface is (floor, wall, table top, …).
    public var kind: SurfaceKind
    /// Unit normal, world frame; the visible side.
    public let normal_W: Vec3
    /// Plane offset, metres: `normal_W · p = offset` for points p on the plane.
    public let offset: Double
    /// Polygon corners in world coordinates (metres), convex, in counter-clockwise order seen from the normal side.
    public let corners_W: [Vec3]
    /// How the surface looks.
    public var texture: SurfaceTexture

    /// In-plane unit axes (texture u and v directions), world frame.
    public let axisU_W: Vec3, axisV_W: Vec3
    /// Corners in in-plane coordinates (metres along `axisU_W`, `axisV_W` from `corners_W[0]`).
    public let corners2D: [Vec2]
    /// In-plane bounding box of the polygon, metres.
    public let minUV: Vec2, maxUV: Vec2

    /// A surface from its polygon. The plane is fitted to the corners; `normal_W` chooses the visible side
    /// (its sign is kept, its direction refined from the corners). Throws when the corners are fewer than 3,
    /// degenerate, not coplanar (1 mm) or not convex.
    public init(id: Int, name: String, kind: SurfaceKind, normal_W: Vec3, corners_W: [Vec3],
                texture: SurfaceTexture) throws {
        guard corners_W.count >= 3 else { throw SceneError.invalid("surface '\(name)' has \(corners_W.count) corners (need ≥ 3)") }
        guard corners_W.allSatisfy({ $0.isFinite }), normal_W.isFinite, normal_W.norm > 1e-9 else {
            throw SceneError.invalid("surface '\(name)' has a non-finite or zero normal/corner")
        }
        // Newell's method: area-weighted normal of the polygon.
        var areaNormal = Vec3.zero
        for i in 0..<corners_W.count {
            let a = corners_W[i], b = corners_W[(i + 1) % corners_W.count]
            areaNormal += a.cross(b)
        }
        guard areaNormal.norm > 1e-9 else { throw SceneError.invalid("surface '\(name)' has zero area") }
        var n = areaNormal.normalized
        var corners = corners_W
        if n.dot(normal_W) < 0 { n = -n; corners.reverse() }
        guard n.dot(normal_W.normalized) > 0.99 else {
            throw SceneError.invalid("surface '\(name)': given normal disagrees with its corners by more than 8°")
        }
        let off = n.dot(corners.reduce(Vec3.zero, +) / Double(corners.count))
        for c in corners where abs(n.dot(c) - off) > 1e-3 {
            throw SceneError.invalid("surface '\(name)': corners are not coplanar (1 mm)")
        }
        let u = (corners[1] - corners[0])
        guard u.norm > 1e-9 else { throw SceneError.invalid("surface '\(name)': repeated corner") }
        let axisU = (u - n.dot(u) * n).normalized
        let axisV = n.cross(axisU)
        let c2 = corners.map { Vec2(($0 - corners[0]).dot(axisU), ($0 - corners[0]).dot(axisV)) }
        // Convexity (counter-clockwise seen from the normal): every turn is a left turn.
        for i in 0..<c2.count {
            let a = c2[i], b = c2[(i + 1) % c2.count], c = c2[(i + 2) % c2.count]
            let e1 = b - a, e2 = c - b
            if e1.x * e2.y - e1.y * e2.x < -1e-9 { throw SceneError.invalid("surface '\(name)': polygon is not convex") }
        }
        self.id = id; self.name = name; self.kind = kind; self.texture = texture
        self.normal_W = n; self.offset = off; self.corners_W = corners
        self.axisU_W = axisU; self.axisV_W = axisV; self.corners2D = c2
        self.minUV = Vec2(c2.map(\.x).min() ?? 0, c2.map(\.y).min() ?? 0)
        self.maxUV = Vec2(c2.map(\.x).max() ?? 0, c2.map(\.y).max() ?? 0)
    }

    /// In-plane coordinates (metres) of a world point (projected onto the plane).
    @inlinable public func planeCoordinates(_ p_W: Vec3) -> Vec2 {
        let d = p_W - corners_W[0]
        return Vec2(d.dot(axisU_W), d.dot(axisV_W))
    }

    /// True when in-plane point `q` (metres) lies inside the polygon (boundary included, `tolerance` metres).
    public func contains(planePoint q: Vec2, tolerance: Double = 1e-9) -> Bool {
        if q.x < minUV.x - tolerance || q.y < minUV.y - tolerance || q.x > maxUV.x + tolerance || q.y > maxUV.y + tolerance {
            return false
        }
        let n = corners2D.count
        for i in 0..<n {
            let a = corners2D[i], b = corners2D[(i + 1) % n]
            let e = b - a, r = q - a
            let len = e.norm
            if (e.x * r.y - e.y * r.x) < -tolerance * len { return false }
        }
        return true
    }

    /// Centroid of the corners, world frame.
    public var centroid_W: Vec3 { corners_W.reduce(Vec3.zero, +) / Double(corners_W.count) }
}

/// Errors about scenes: invalid geometry, unreadable or malformed scene files.
public enum SceneError: Error, CustomStringConvertible, Equatable {
    /// The scene's geometry is invalid (message says which surface and why).
    case invalid(String)
    /// A scene file could not be read or parsed; `path` names the file.
    case badFile(path: String, reason: String)
    /// No built-in scene with this name.
    case unknownScene(String)

    public var description: String {
        switch self {
        case .invalid(let m): return "invalid scene: \(m)"
        case .badFile(let path, let reason): return "\(path): \(reason)"
        case .unknownScene(let name):
            return "unknown scene '\(name)' (built-in scenes: \(Scene.builtInNames.joined(separator: ", ")); or give a .json file)"
        }
    }
}
