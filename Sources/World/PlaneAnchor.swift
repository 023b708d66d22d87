import Foundation
import Geometry
import Sensors

/// Orientation of a detected plane relative to gravity.
public enum PlaneAlignment: String, Equatable, Sendable, Codable {
    /// Normal along world +z (floors, table tops, ceilings).
    case horizontal
    /// Normal perpendicular to gravity (walls).
    case vertical
}

/// What a plane is, ARKit-style.
public enum PlaneClassification: String, Equatable, Sendable, Codable {
    /// The lowest large horizontal plane.
    case floor
    /// A horizontal plane above the floor and below the camera (table, desk, box top, seat).
    case table
    /// A horizontal plane above the camera.
    case ceiling
    /// A vertical plane.
    case wall
    /// Not classified (e.g. a small horizontal patch below the floor).
    case none
}

/// The oriented rectangle that encloses a plane, in the plane's local x-y (ARKit's `extent`).
public struct PlaneExtent: Equatable, Sendable {
    /// Size along the rectangle's first axis, metres.
    public var width: Double
    /// Size along the rectangle's second axis, metres.
    public var length: Double
    /// Angle of the rectangle's first axis from the plane's local x axis, radians, in [0, π/2).
    public var yaw: Double
    /// An extent from its sizes (m) and yaw (rad).
    public init(width: Double, length: Double, yaw: Double) { self.width = width; self.length = length; self.yaw = yaw }
}

/// A detected plane (ARKit's `ARPlaneAnchor`), in the world frame W (z up).
///
/// The plane's frame P has its z axis along the plane normal (world +z for horizontal planes; for walls the
/// normal is horizontal, local y is world up). `T_W_P`'s origin is fixed in the plane where the plane was
/// first seen and moves only along the normal when the plane is refined, so objects stored relative to it
/// (user anchors) follow height refinements without sliding when the plane grows.
public struct PlaneAnchor: Equatable, Sendable {
    /// Stable id (`plane-1`, `plane-2`, … in order of detection).
    public var id: String
    /// Horizontal or vertical.
    public var alignment: PlaneAlignment
    /// Floor, table, ceiling, wall or none.
    public var classification: PlaneClassification
    /// Pose of the plane frame P in the world.
    public var T_W_P: SE3
    /// Centre of the enclosing rectangle, world, metres.
    public var center: Vec3
    /// Enclosing oriented rectangle in the plane's local x-y.
    public var extent: PlaneExtent
    /// Convex boundary, counter-clockwise about the normal, in P's local x-y (metres).
    public var boundaryLocal: [Vec2]
    /// Plane offset along its normal: height above the world origin (horizontal) or `n·p` (vertical), metres.
    public var offset_m: Double
    /// 1-σ uncertainty of `offset_m`, metres.
    public var offsetStd_m: Double
    /// The most landmarks that have supported the plane at once (a detection's, or merged planes' together).
    public var pointCount: Int
    /// Half-width of the inlier band of its latest refinement, metres: planes closer than this along the normal
    /// cannot be told apart with the current landmarks.
    public var inlierBand_m: Double = 0
    /// First detection and latest update times, ns.
    public var firstSeen_ns: TimestampNs, lastUpdated_ns: TimestampNs
    /// The plane as its largest support placed it (`PlaneTracker.refine`): landmarks culled from the map since then
    /// keep their say through this fixed estimate, so a candidate holding only some of the plane's landmarks is
    /// blended with it once rather than with the plane it already moved (which, pass after pass, would hand the
    /// plane to that subset). nil for a plane restored from a saved world until the tracker refines it.
    var fullSupport: FullSupportEstimate? = nil

    /// Unit normal in W (the plane frame's z axis).
    public var normal_W: Vec3 { T_W_P.rotation.act(Vec3(0, 0, 1)) }
    /// Height of a horizontal plane (z of the plane in W), metres.
    public var height_m: Double { T_W_P.translation.z }
    /// Convex boundary in the world, metres.
    public var boundary: [Vec3] { boundaryLocal.map { T_W_P.act(Vec3($0.x, $0.y, 0)) } }
    /// Area of the boundary polygon, m².
    public var area_m2: Double { PlaneGeometry2D.area(boundaryLocal) }
    /// Typical distance between the plane's landmarks, √(area / landmarks), metres: the hull of few landmarks falls
    /// short of the surface's true edges by a few of these.
    public var landmarkSpacing_m: Double { (area_m2 / Double(max(1, pointCount))).squareRoot() }

    /// The local x-y of a world point projected onto the plane.
    public func local(_ p_W: Vec3) -> Vec2 {
        let p = T_W_P.inverse.act(p_W)
        return Vec2(p.x, p.y)
    }
    /// The world point of local plane coordinates.
    public func world(_ local: Vec2) -> Vec3 { T_W_P.act(Vec3(local.x, local.y, 0)) }
    /// How far the world point's projection lies outside the boundary, metres (0 inside it; infinite for a plane
    /// with no boundary).
    public func distanceOutsideBoundary(_ p_W: Vec3) -> Double {
        let q = local(p_W)
        if PlaneGeometry2D.convexContains(boundaryLocal, q) { return 0 }
        return PlaneGeometry2D.nearestBoundaryPoint(boundaryLocal, to: q).map { ($0 - q).norm } ?? .infinity
    }
    /// True when the world point's projection lies inside the boundary (tolerance in metres).
    public func boundaryContains(_ p_W: Vec3, tolerance: Double = 1e-6) -> Bool {
        PlaneGeometry2D.convexContains(boundaryLocal, local(p_W), tolerance: tolerance)
    }

    /// True when the plane holds the world point: within its inlier band along the normal, and inside its boundary
    /// (with `boundaryTolerance_m` to spare, metres).
    public func holds(_ p_W: Vec3, boundaryTolerance_m: Double = 1e-6) -> Bool {
        abs(normal_W.dot(p_W - T_W_P.translation)) <= inlierBand_m && boundaryContains(p_W, tolerance: boundaryTolerance_m)
    }

    /// Recomputes `center` and `extent` from `boundaryLocal`.
    mutating func refreshExtent() {
        let r = PlaneGeometry2D.minimumAreaRectangle(boundaryLocal)
        extent = PlaneExtent(width: r.width, length: r.length, yaw: r.yaw)
        center = world(r.center)
    }

    /// The rotation of a plane frame with unit normal `n` (z axis); for horizontal planes the identity,
    /// for vertical planes x is horizontal along the plane and y is world up.
    static func frameRotation(normal n: Vec3) -> SO3 {
        if abs(n.z) > 0.999 { return n.z > 0 ? .identity : SO3(angle: .pi, axis: Vec3(1, 0, 0)) }
        let up = Vec3(0, 0, 1)
        let y = (up - up.dot(n) * n).normalized
        let x = y.cross(n)
        return SO3(matrix: Mat3(columns: x, y, n))
    }
}

/// A plane's position and normal when the most landmarks held it, world, metres, with its offset's 1-σ.
struct FullSupportEstimate: Equatable, Sendable {
    /// A point on the plane then, W, metres.
    var point_W: Vec3
    /// Its unit normal then, W.
    var normal_W: Vec3
    /// 1-σ of its offset then, metres.
    var offsetStd_m: Double
    /// The plane's current estimate.
    init(_ p: PlaneAnchor) { point_W = p.T_W_P.translation; normal_W = p.normal_W; offsetStd_m = p.offsetStd_m }
}

extension PlaneAnchor {
    /// A plane restored from a saved world (its stored fields); `center` and `extent` are computed from the boundary.
    public init(restoring id: String, alignment: PlaneAlignment, classification: PlaneClassification, T_W_P: SE3,
                boundaryLocal: [Vec2], offset_m: Double, offsetStd_m: Double, pointCount: Int, t_ns: TimestampNs) {
        self.init(id: id, alignment: alignment, classification: classification, T_W_P: T_W_P, center: T_W_P.translation,
                  extent: PlaneExtent(width: 0, length: 0, yaw: 0), boundaryLocal: boundaryLocal, offset_m: offset_m,
                  offsetStd_m: offsetStd_m, pointCount: pointCount, firstSeen_ns: t_ns, lastUpdated_ns: t_ns)
        refreshExtent()
    }
}
