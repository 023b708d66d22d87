import Foundation
import Geometry

/// Where a ray first meets a scene.
public struct SceneHit: Equatable, Sendable {
    /// The hit point, world frame, metres.
    public var point_W: Vec3
    /// Distance along the (unit) ray from its origin, metres.
    public var distance: Double
    /// `id` of the surface hit (index into `Scene.surfaces`).
    public var surfaceId: Int
    /// Unit normal of the surface hit, world frame (facing the ray's origin).
    public var normal_W: Vec3
}

/// Two named points on scene surfaces with their exact distance: ground truth for measurement tests.
public struct MeasurementPair: Equatable, Sendable, Codable {
    /// What is measured, e.g. `"tableA.top.length"`.
    public var name: String
    /// First and second end point, world frame, metres.
    public var a_W: Vec3, b_W: Vec3
    /// Surfaces the end points lie on (`Scene.surfaces` ids).
    public var surfaceA: Int, surfaceB: Int
    /// `|b_W − a_W|`, metres.
    public var distance: Double

    public init(name: String, a_W: Vec3, b_W: Vec3, surfaceA: Int, surfaceB: Int) {
        self.name = name; self.a_W = a_W; self.b_W = b_W; self.surfaceA = surfaceA; self.surfaceB = surfaceB
        self.distance = (b_W - a_W).norm
    }
}

/// The region a walking trajectory loops around: an ellipse on the floor at eye height.
public struct WalkArea: Equatable, Sendable, Codable {
    /// Centre of the ellipse (x, y), world frame, metres.
    public var center: Vec2
    /// Semi-axes along world x and y, metres.
    public var radii: Vec2
    /// Height of the body (camera) above the world origin, metres.
    public var eyeHeight: Double
    public init(center: Vec2, radii: Vec2, eyeHeight: Double) { self.center = center; self.radii = radii; self.eyeHeight = eyeHeight }
}

/// The point an orbit trajectory circles and looks at.
public struct OrbitTarget: Equatable, Sendable, Codable {
    /// The looked-at point (e.g. a table-top centre), world frame, metres.
    public var center: Vec3
    /// Orbit radius in the horizontal plane, metres.
    public var radius: Double
    /// Height of the body on the orbit, metres.
    public var eyeHeight: Double
    public init(center: Vec3, radius: Double, eyeHeight: Double) { self.center = center; self.radius = radius; self.eyeHeight = eyeHeight }
}

/// A static world made of planar polygons, with exact geometry: the truth behind simulated datasets.
///
/// World frame W: right-handed, z up, gravity `(0, 0, −9.81)` m/s²; metres. Surfaces are one-sided
/// (see `SceneSurface`). Build one with `Scene.room()`, `Scene.courtyard()`, `Scene.builtIn(named:)`,
/// `Scene.load(jsonFile:)`, or `SceneBuilder` for a custom test world.
public struct Scene: Equatable, Sendable {
    /// Scene name (`"room"`, `"courtyard"`, or the file's name).
    public var name: String
    /// The surfaces; `surfaces[i].id == i`.
    public var surfaces: [SceneSurface]
    /// Named point pairs with true distances.
    public var measurements: [MeasurementPair]
    /// The area walking trajectories loop around.
    public var walkArea: WalkArea
    /// The point orbit trajectories circle.
    public var orbitTarget: OrbitTarget
    /// Gray level (0–255) rendered where a ray hits nothing (sky).
    public var backgroundGray: Double

    /// Gravity in the world frame, m/s².
    public static let gravity_W = Vec3(0, 0, -9.81)

    public init(name: String, surfaces: [SceneSurface], measurements: [MeasurementPair],
                walkArea: WalkArea, orbitTarget: OrbitTarget, backgroundGray: Double = 190) {
        self.name = name; self.surfaces = surfaces; self.measurements = measurements
        self.walkArea = walkArea; self.orbitTarget = orbitTarget; self.backgroundGray = backgroundGray
    }

    /// The first surface a ray meets, seen from its visible side; `nil` if it meets none.
    ///
    /// - Parameters:
    ///   - origin_W: ray origin, world frame, metres.
    ///   - direction_W: ray direction, world frame (need not be unit length; `distance` is in metres anyway).
    ///   - minDistance: hits nearer than this (metres) are ignored.
    public func raycast(origin_W: Vec3, direction_W: Vec3, minDistance: Double = 1e-6) -> SceneHit? {
        let len = direction_W.norm
        guard len > 0, len.isFinite, origin_W.isFinite else { return nil }
        let d = direction_W / len
        var best: SceneHit?
        for s in surfaces {
            let denom = s.normal_W.dot(d)
            guard denom < -1e-12 else { continue } // back side or parallel: invisible
            let t = (s.offset - s.normal_W.dot(origin_W)) / denom
            guard t > minDistance, t < (best?.distance ?? .infinity) else { continue }
            let p = origin_W + t * d
            guard s.contains(planePoint: s.planeCoordinates(p)) else { continue }
            best = SceneHit(point_W: p, distance: t, surfaceId: s.id, normal_W: s.normal_W)
        }
        return best
    }

    /// The distances (metres along the unit `direction_W`, greater than 0) at which a ray from `origin_W` (world,
    /// metres) crosses a surface's plane inside its polygon (within `margin_m` of it, in the plane), from either side:
    /// every surface along the line of sight, not only the first one `raycast` returns. Unordered.
    public func crossings(origin_W: Vec3, direction_W: Vec3, margin_m: Double = 0) -> [Double] {
        let len = direction_W.norm
        guard len > 0, len.isFinite, origin_W.isFinite else { return [] }
        let d = direction_W / len
        return surfaces.compactMap { s in
            let denom = s.normal_W.dot(d)
            guard abs(denom) > 1e-12 else { return nil }
            let t = (s.offset - s.normal_W.dot(origin_W)) / denom
            guard t > 0, s.contains(planePoint: s.planeCoordinates(origin_W + t * d), tolerance: margin_m) else { return nil }
            return t
        }
    }

    /// The distance from `p_W` (world, metres) to the nearest point of any surface's polygon, metres (infinity for a
    /// scene without surfaces).
    public func distanceToNearestSurface(_ p_W: Vec3) -> Double {
        var best = Double.infinity
        for s in surfaces {
            let off = s.normal_W.dot(p_W) - s.offset
            let q = s.planeCoordinates(p_W)
            var outside = 0.0
            if !s.contains(planePoint: q) {
                outside = .infinity
                let c = s.corners2D
                for i in c.indices {
                    let a = c[i], e = c[(i + 1) % c.count] - a
                    let u = max(0, min(1, (q - a).dot(e) / max(e.dot(e), 1e-18)))
                    outside = min(outside, (q - (a + u * e)).norm)
                }
            }
            best = min(best, (off * off + outside * outside).squareRoot())
        }
        return best
    }

    /// Surfaces of one kind.
    public func surfaces(ofKind kind: SurfaceKind) -> [SceneSurface] { surfaces.filter { $0.kind == kind } }

    /// Names of the built-in scenes.
    public static let builtInNames = ["room", "courtyard"]

    /// A built-in scene by name (`"room"` or `"courtyard"`).
    public static func builtIn(named name: String) throws -> Scene {
        switch name.lowercased() {
        case "room": return room()
        case "courtyard": return courtyard()
        default: throw SceneError.unknownScene(name)
        }
    }
}
