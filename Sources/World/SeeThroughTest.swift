import Foundation
import Geometry

/// Free-space evidence against a plane: the landmarks that were seen *through* it.
///
/// A landmark was seen from its viewpoint (``MapLandmark/viewpoint_W``), so the segment between them crossed no
/// opaque surface. A landmark clearly behind a plane (beyond its own gate) whose segment crosses the plane well inside
/// the plane's polygon (at least `margin_m` from its boundary), from a viewpoint clearly in front of it (at least
/// `margin_m`), witnesses that the plane is not a surface there. A fit through points of several objects that happen
/// to line up — a table's legs, a box's side and the table's edge behind it, the rims of objects at one height —
/// is seen through; a wall, a box's face or a table's top is not (only a badly triangulated point can lie behind
/// one, and such points are few).
///
/// Frames: the plane is given by `T_W_P` (metres; its x-y plane is the plane, its z axis the normal), the polygon in
/// that frame's x-y coordinates, the landmarks and viewpoints in W.
public struct SeeThroughTest: Sendable {
    /// The plane's pose in W: its local z = 0 is the plane.
    public let T_W_P: SE3
    /// The plane's convex polygon in its local x-y coordinates, metres (a hull of landmarks, as planes' boundaries are),
    /// counter-clockwise (the initialiser turns a clockwise one round).
    public let polygon: [Vec2]
    /// How far inside the polygon a crossing must be, and how far in front of the plane the viewpoint, metres.
    public let margin_m: Double
    private let T_P_W: SE3
    /// The plane's normal (its local z axis) in W and its offset along it (`normal_W · x = offset_m` on the plane).
    private let normal_W: Vec3, offset_m: Double
    /// A circle in the plane around the polygon: its centre (W, metres) and its squared radius (m²: the polygon's
    /// farthest vertex from the centre, plus the margin). A crossing outside it lies more than the margin outside the
    /// polygon and witnesses nothing; the circle settles it before the two rotations and the polygon test.
    private let reachCentre_W: Vec3, reach2: Double

    /// A test against the plane `T_W_P` (metres) with the convex `polygon` (local x-y, metres) and `margin_m` (metres).
    public init(T_W_P: SE3, polygon: [Vec2], margin_m: Double) {
        var twiceArea = 0.0
        for i in polygon.indices { twiceArea += PlaneGeometry2D.cross(.zero, polygon[i], polygon[(i + 1) % polygon.count]) }
        self.T_W_P = T_W_P; self.polygon = twiceArea < 0 ? polygon.reversed() : polygon; self.margin_m = margin_m
        T_P_W = T_W_P.inverse
        normal_W = T_W_P.rotation.act(Vec3(0, 0, 1))
        offset_m = normal_W.dot(T_W_P.translation)
        var lo = Vec2(Double.infinity, .infinity), hi = -lo
        for v in polygon { lo = Vec2(Swift.min(lo.x, v.x), Swift.min(lo.y, v.y)); hi = Vec2(Swift.max(hi.x, v.x), Swift.max(hi.y, v.y)) }
        let centre = polygon.isEmpty ? Vec2.zero : (lo + hi) / 2
        let radius = polygon.map { ($0 - centre).norm }.max() ?? 0
        reachCentre_W = T_W_P.act(Vec3(centre.x, centre.y, 0))
        reach2 = (radius + margin_m) * (radius + margin_m)
    }

    /// True when `landmark` was seen through the plane: it lies behind the plane by more than `gate_m` (metres: its
    /// own uncertainty band) as seen from its viewpoint, which is at least `margin_m` in front, and the segment
    /// between them crosses the plane at least `margin_m` inside the polygon. False without a viewpoint.
    public func isWitness(_ landmark: MapLandmark, gate_m: Double) -> Bool {
        guard let c = landmark.viewpoint_W else { return false }
        return isWitness(landmark.p_W, seenFrom: c, gate_m: gate_m)
    }

    /// True when the point `p_W` (metres, W), seen from the camera centre `c_W`, was seen through the plane (as
    /// ``isWitness(_:gate_m:)`` for a landmark at `p_W` whose viewpoint is `c_W`).
    @inline(__always)
    public func isWitness(_ p_W: Vec3, seenFrom c_W: Vec3, gate_m: Double) -> Bool {
        guard polygon.count >= 3 else { return false }
        // Opposite sides: the viewpoint at least the margin from the plane, the point beyond its gate (signed
        // distances first, which settle most landmarks).
        let c = c_W
        let cz = normal_W.dot(c) - offset_m, pz = normal_W.dot(p_W) - offset_m
        guard abs(cz) >= margin_m, abs(pz) > gate_m, (cz > 0) != (pz > 0) else { return false }
        let t = cz / (cz - pz)
        let toCrossing = c + t * (p_W - c) - reachCentre_W
        guard toCrossing.dot(toCrossing) <= reach2 else { return false }
        let cP = T_P_W.act(c), pP = T_P_W.act(p_W)
        let x = Vec2(cP.x + t * (pP.x - cP.x), cP.y + t * (pP.y - cP.y))
        guard PlaneGeometry2D.convexContains(polygon, x) else { return false }
        return (PlaneGeometry2D.nearestBoundaryPoint(polygon, to: x).map { ($0 - x).norm } ?? 0) >= margin_m
    }
}
