import Foundation
import Geometry

/// Small 2-D computational geometry used for plane boundaries (metres, in a plane's local x-y).
public enum PlaneGeometry2D {
    /// Twice the signed area of triangle (o, a, b); positive when counter-clockwise.
    @inlinable public static func cross(_ o: Vec2, _ a: Vec2, _ b: Vec2) -> Double {
        (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
    }

    /// Convex hull, counter-clockwise, without repeated or (to 1e-12 m²) collinear points (Andrew's monotone chain).
    ///
    /// Points well inside the octagon of the extreme points in eight directions cannot be hull vertices and are
    /// left out before the sort (Akl and Toussaint's heuristic): a plane's thousands of landmarks become a few
    /// hundred, and the sort was most of the hull's cost. The hull is the same.
    public static func convexHull(_ points: [Vec2]) -> [Vec2] {
        monotoneChain(points.count >= 32 ? outsideExtremeOctagon(points) : points)
    }

    /// The extreme points of non-empty `points` along −x, −(x + y), −y, (x − y), x, x + y, y and (y − x) (counter-clockwise
    /// from −x; a tie keeps the first point, which lies on the hull's edge facing that direction), with each support
    /// value (the point's dot product with the unnormalised direction). They lie on the convex hull's boundary in that
    /// order, so the polygon through them is convex and inside the hull.
    static func extremeOctagon(_ points: [Vec2]) -> (points: [Vec2], support: [Double]) {
        let directions = [Vec2(-1, 0), Vec2(-1, -1), Vec2(0, -1), Vec2(1, -1), Vec2(1, 0), Vec2(1, 1), Vec2(0, 1), Vec2(-1, 1)]
        var extreme = [Vec2](repeating: points[0], count: 8)
        var best = directions.map { $0.dot(points[0]) }
        for p in points.dropFirst() {
            for k in 0..<8 {
                let v = directions[k].dot(p)
                if v > best[k] { best[k] = v; extreme[k] = p }
            }
        }
        return (extreme, best)
    }

    /// The points not strictly inside (by more than 1e-9 of the spread squared) the convex octagon through the
    /// extreme points along ±x, ±y, ±(x + y) and ±(x − y), which are themselves kept.
    static func outsideExtremeOctagon(_ points: [Vec2]) -> [Vec2] {
        let (extreme, best) = extremeOctagon(points)
        let spread = max(best[4] + best[0], best[6] + best[2]) // x and y extents
        let margin = 1e-9 * max(spread * spread, 1e-12)
        // Kept unless strictly inside every edge (a point with a NaN coordinate is kept, as the chain would see it).
        return points.filter { p in
            for k in 0..<8 where !(cross(extreme[k], extreme[(k + 1) % 8], p) > margin) { return true }
            return false
        }
    }

    /// Andrew's monotone chain over all `points`, then without its nearly collinear vertices.
    ///
    /// The chain itself keeps only strict left turns, with no tolerance: points on one edge whose coordinates differ
    /// only by rounding (a grid seen through a plane's frame) are sorted in the order of that rounding, not along the
    /// edge, and a tolerance there (1e-12 until the fifty-second session) could drop the edge's far end, a true
    /// corner, as if it lay between two others (a 10 × 10 grid lost a corner, area 3.16 m² for 3.24). The convex
    /// polygon that results may keep vertices a rounding error off a straight edge; those are removed afterwards,
    /// which cannot remove a corner.
    static func monotoneChain(_ points: [Vec2]) -> [Vec2] {
        let pts = points.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        guard pts.count >= 3 else { return pts }
        var lower: [Vec2] = [], upper: [Vec2] = []
        for p in pts {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        for p in pts.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        var hull = Array(lower.dropLast() + upper.dropLast())
        // Drop vertices that lie between their neighbours and turn by no more than 1e-12 there (the cross product, m²
        // for metres), until none does (three points that nearly lie on a line become the segment between the outer
        // two).
        var removed = true
        while removed && hull.count >= 3 {
            removed = false
            var i = 0
            while i < hull.count && hull.count >= 3 {
                let n = hull.count, a = hull[(i + n - 1) % n], v = hull[i], b = hull[(i + 1) % n]
                let along = (v - a).dot(b - a)
                // Only a vertex between its neighbours goes (in a sliver, the middle one, not an end).
                if cross(a, v, b) <= 1e-12 && along >= 0 && along <= (b - a).dot(b - a) {
                    hull.remove(at: i); removed = true
                } else {
                    i += 1
                }
            }
        }
        return hull
    }

    /// Area of a simple polygon, m² (absolute value of the shoelace formula).
    public static func area(_ poly: [Vec2]) -> Double {
        guard poly.count >= 3 else { return 0 }
        var s = 0.0
        for i in 0..<poly.count {
            let a = poly[i], b = poly[(i + 1) % poly.count]
            s += a.x * b.y - b.x * a.y
        }
        return abs(s) / 2
    }

    /// True when `p` lies inside (or on the border of) the convex counter-clockwise polygon `poly`.
    public static func convexContains(_ poly: [Vec2], _ p: Vec2, tolerance: Double = 1e-9) -> Bool {
        guard poly.count >= 3 else { return false }
        for i in 0..<poly.count {
            let a = poly[i], b = poly[(i + 1) % poly.count]
            let len = (b - a).norm
            if len > 0 && cross(a, b, p) / len < -tolerance { return false }
        }
        return true
    }

    /// The point of segment ab nearest to `p`.
    public static func closestPoint(_ p: Vec2, segment a: Vec2, _ b: Vec2) -> Vec2 {
        let ab = b - a
        let l2 = ab.dot(ab)
        let t = l2 > 0 ? Swift.min(1, Swift.max(0, (p - a).dot(ab) / l2)) : 0
        return a + t * ab
    }

    /// Distance from `p` to segment ab.
    public static func distance(_ p: Vec2, segment a: Vec2, _ b: Vec2) -> Double {
        (p - closestPoint(p, segment: a, b)).norm
    }

    /// The point of the closed polygon's boundary nearest to `p` (`nil` for an empty polygon).
    public static func nearestBoundaryPoint(_ poly: [Vec2], to p: Vec2) -> Vec2? {
        poly.indices.map { closestPoint(p, segment: poly[$0], poly[($0 + 1) % poly.count]) }
            .min { ($0 - p).norm < ($1 - p).norm }
    }

    /// Distance between two convex polygons (0 when they overlap), metres.
    public static func distance(_ a: [Vec2], _ b: [Vec2]) -> Double {
        guard !a.isEmpty, !b.isEmpty else { return .infinity }
        if a.contains(where: { convexContains(b, $0) }) || b.contains(where: { convexContains(a, $0) }) { return 0 }
        var best = Double.infinity
        for (p, poly) in [(a, b), (b, a)] {
            for q in p {
                if poly.count == 1 { best = Swift.min(best, (q - poly[0]).norm); continue }
                for i in 0..<poly.count {
                    best = Swift.min(best, distance(q, segment: poly[i], poly[(i + 1) % poly.count]))
                }
            }
        }
        // Crossing edges with no vertex inside the other polygon.
        if a.count >= 2 && b.count >= 2 {
            for i in 0..<a.count {
                let a0 = a[i], a1 = a[(i + 1) % a.count]
                for j in 0..<b.count {
                    let b0 = b[j], b1 = b[(j + 1) % b.count]
                    let d1 = cross(a0, a1, b0), d2 = cross(a0, a1, b1), d3 = cross(b0, b1, a0), d4 = cross(b0, b1, a1)
                    if d1 * d2 < 0 && d3 * d4 < 0 { return 0 }
                }
            }
        }
        return best
    }

    /// The minimum-area enclosing rectangle of a convex polygon (one side is collinear with a hull edge):
    /// centre, `width` (along the rectangle's x axis at angle `yaw`), `length` (perpendicular), metres and radians.
    /// `yaw` is in [0, π/2) and width/length follow it.
    public static func minimumAreaRectangle(_ hull: [Vec2]) -> (center: Vec2, width: Double, length: Double, yaw: Double) {
        guard hull.count >= 2 else { return (hull.first ?? .zero, 0, 0, 0) }
        var best: (area: Double, center: Vec2, w: Double, l: Double, yaw: Double) = (.infinity, .zero, 0, 0, 0)
        for i in 0..<hull.count {
            let e = hull[(i + 1) % hull.count] - hull[i]
            let n = e.norm
            guard n > 1e-12 else { continue }
            var yaw = atan2(e.y, e.x)
            yaw = yaw.truncatingRemainder(dividingBy: .pi / 2)
            if yaw < 0 { yaw += .pi / 2 }
            let ux = Vec2(cos(yaw), sin(yaw)), uy = Vec2(-sin(yaw), cos(yaw))
            var lo = Vec2(Double.infinity, .infinity), hi = Vec2(-Double.infinity, -.infinity)
            for p in hull {
                let q = Vec2(p.dot(ux), p.dot(uy))
                lo = Vec2(Swift.min(lo.x, q.x), Swift.min(lo.y, q.y)); hi = Vec2(Swift.max(hi.x, q.x), Swift.max(hi.y, q.y))
            }
            let area = (hi.x - lo.x) * (hi.y - lo.y)
            if area < best.area - 1e-12 {
                let m = (lo + hi) / 2
                best = (area, m.x * ux + m.y * uy, hi.x - lo.x, hi.y - lo.y, yaw)
            }
        }
        return (best.center, best.w, best.l, best.yaw)
    }
}
