import Foundation
import Geometry
import World

/// Tests an alignment between two reconstructions of a static scene by what each camera saw *through*: a surface
/// point seen by one camera lies on the ray to it, so the space in front of it along that ray is empty. A point of the
/// other reconstruction that, once aligned, sits clearly in front of what a camera saw in its direction contradicts
/// the alignment (the camera looked through it); one at about the same range agrees with it; one behind is hidden
/// and says nothing. A texture that repeats (a tiled floor, a patterned wall) lets appearance fit a shifted place just
/// as well, but not the structure that does not repeat — furniture, the ends of walls — which the shifted place puts
/// where the other reconstruction saw empty space.
enum FreeSpaceCheck {
    /// A surface point as one camera saw it: unit direction from the camera (camera axes), range along it, 1-σ.
    struct Sample {
        var direction: Vec3
        var range_m: Double
        var std_m: Double
    }

    /// What a view says about one point.
    enum Verdict: Equatable {
        /// The view saw nothing near the point's direction, or only nearer surfaces (the point is hidden).
        case unknown
        /// The view saw a surface at about the point's range.
        case agrees
        /// The view saw only farther surfaces around the point's direction: it looked through the point.
        case contradicts
    }

    /// Several views' verdicts on the same points (`verdicts[view][point]`) as one per point: it agrees when a view
    /// agrees with it, contradicts when a view contradicts it and none agrees.
    static func combine(_ verdicts: [[Verdict]]) -> [Verdict] {
        guard let n = verdicts.first?.count else { return [] }
        return (0..<n).map { i in
            if verdicts.contains(where: { $0[i] == .agrees }) { return .agrees }
            return verdicts.contains(where: { $0[i] == .contradicts }) ? .contradicts : .unknown
        }
    }

    /// A view's samples from points in its camera frame: those in front of the camera, at least `minRange_m` away
    /// (nil for the others, so that the indices stay those of the points).
    static func samples(_ points_C: [(p_C: Vec3, std_m: Double)], minRange_m: Double = 0.2) -> [Sample?] {
        points_C.map { p in
            let r = p.p_C.norm
            guard p.p_C.z > 0, r >= minRange_m else { return nil }
            return Sample(direction: p.p_C / r, range_m: r, std_m: p.std_m)
        }
    }

    /// Compares points (camera frame of the view) with the view's samples within `radius_rad` of their direction.
    /// A point agrees when a neighbour's range is within the tolerance of its own, contradicts when every neighbour is
    /// farther than its range plus the tolerance and there are at least two (one badly triangulated sample does not
    /// refute anything). The tolerance is 3 σ of the pair plus `relativeTolerance` of the
    /// range (a triangulated point's σ understates how far it can be off along its ray).
    static func compare(_ points: [Sample?], view: [Sample], radius_rad: Double, relativeTolerance: Double) -> [Verdict] {
        let cosRadius = cos(radius_rad)
        return points.map { p in
            guard let p else { return .unknown }
            var neighbours = 0, allFarther = true
            for s in view where s.direction.dot(p.direction) >= cosRadius {
                neighbours += 1
                let tolerance = 3 * (p.std_m * p.std_m + s.std_m * s.std_m).squareRoot() + relativeTolerance * max(p.range_m, s.range_m)
                if abs(s.range_m - p.range_m) <= tolerance { return .agrees }
                if s.range_m <= p.range_m + tolerance { allFarther = false }
            }
            return neighbours >= 2 && allFarther ? .contradicts : .unknown
        }
    }

    /// Rays (a camera centre `o` to a surface point `p` it saw, σ of the point) against a plane through `points` with
    /// unit `normal` (the plane through their centroid; `offsetStd_m` the 1-σ of its offset). A ray that meets the plane
    /// in front of its camera, inside the convex outline of `points`, has seen through the plane when its point lies
    /// beyond the plane (along the ray) by more than the tolerance — 3 σ of the point and the offset, plus
    /// `relativeTolerance` of the ray's length, plus `offsetTolerance_m` — and has seen the plane when its point lies
    /// within the tolerance of it. `offsetTolerance_m` is how far the plane itself can be off beyond its σ: the points
    /// it was fitted to share their errors (a young estimate's scale moves them all along their rays together), which
    /// their σ, averaged as if independent, does not say. Returns the indices of both kinds of rays.
    static func rays(_ rays: [(o: Vec3, p: Vec3, std_m: Double)], meeting points: [Vec3], normal: Vec3, offsetStd_m: Double,
                     offsetTolerance_m: Double = 0, relativeTolerance: Double) -> (through: [Int], on: [Int]) {
        guard points.count >= 3 else { return ([], []) }
        let n = normal.normalized
        let d = points.reduce(Vec3.zero, +).dot(n) / Double(points.count)
        // In-plane axes: any unit vector orthogonal to n, and n × it.
        let a = (abs(n.z) < 0.9 ? Vec3(0, 0, 1) : Vec3(1, 0, 0)).cross(n).normalized, b = n.cross(a)
        func inPlane(_ p: Vec3) -> Vec2 { Vec2(a.dot(p), b.dot(p)) }
        let outline = PlaneGeometry2D.convexHull(points.map(inPlane))
        guard outline.count >= 3 else { return ([], []) }
        var through: [Int] = [], on: [Int] = []
        for (i, r) in rays.enumerated() {
            let dO = n.dot(r.o) - d, dP = n.dot(r.p) - d
            guard abs(dO - dP) > 1e-12 else { continue }
            let s = dO / (dO - dP)   // where the ray's line meets the plane, as a fraction of the way to its point
            guard s > 0 else { continue }
            let length = (r.p - r.o).norm
            let beyond = (1 - s) * length
            let limit = 3 * (r.std_m * r.std_m + offsetStd_m * offsetStd_m).squareRoot() + relativeTolerance * length + offsetTolerance_m
            guard beyond > -limit, PlaneGeometry2D.convexContains(outline, inPlane(r.o + s * (r.p - r.o))) else { continue }
            if beyond > limit { through.append(i) } else { on.append(i) }
        }
        return (through, on)
    }

    /// A plane found among points: its supporting points, unit normal, and the 1-σ of its offset.
    struct Plane {
        var points: [Vec3]
        var normal: Vec3
        var offsetStd_m: Double
    }

    /// Gravity-aligned planes (z up) among `points` (1-σ `std_m`), one after another, each from the points the previous
    /// ones left: the horizontal plane (through a point's height) or vertical one (through two points at least 0.2 m
    /// apart, 300 pairs drawn with `seed`) with most points within `inlier_m`, refitted twice on them (the mean height;
    /// the principal line of their x-y); kept with at least `minPoints`. A surface whose points spread over
    /// more than the slab splits or is missed, never widened: a plane here is a thin, well-supported surface.
    static func gravityAlignedPlanes(_ points: [Vec3], std_m: [Double], inlier_m: Double, minPoints: Int, seed: UInt64,
                                     maxPlanes: Int = 6) -> [Plane] {
        var left = Array(points.indices)
        var random = SeededRandom(seed: seed ^ 0x9A1E_5EED)
        var out: [Plane] = []
        func members(_ n: Vec3, _ d: Double) -> [Int] { left.filter { abs(n.dot(points[$0]) - d) <= inlier_m } }
        for _ in 0..<maxPlanes {
            guard left.count >= minPoints else { break }
            var best: (n: Vec3, d: Double, count: Int) = (Vec3(0, 0, 1), 0, 0)
            for i in left {
                let c = members(Vec3(0, 0, 1), points[i].z).count
                if c > best.count { best = (Vec3(0, 0, 1), points[i].z, c) }
            }
            for _ in 0..<300 {
                let a = points[left[Int(random.next() % UInt64(left.count))]], b = points[left[Int(random.next() % UInt64(left.count))]]
                let along = Vec2(b.x - a.x, b.y - a.y)
                guard along.norm >= 0.2 else { continue }
                let n = Vec3(-along.y, along.x, 0) / along.norm
                let c = members(n, n.dot(a)).count
                if c > best.count { best = (n, n.dot(a), c) }
            }
            guard best.count >= minPoints else { break }
            var n = best.n, inliers = members(best.n, best.d)
            for _ in 0..<2 {
                let mean = inliers.reduce(Vec3.zero) { $0 + points[$1] } / Double(inliers.count)
                if n.z == 0 {
                    // The principal line of the inliers' x-y: its normal is the covariance's minor axis.
                    var sxx = 0.0, sxy = 0.0, syy = 0.0
                    for i in inliers { let q = points[i] - mean; sxx += q.x * q.x; sxy += q.x * q.y; syy += q.y * q.y }
                    let angle = 0.5 * atan2(2 * sxy, sxx - syy)   // major axis
                    n = Vec3(-sin(angle), cos(angle), 0)
                }
                let next = members(n, n.dot(mean))
                guard next.count >= minPoints else { break }
                inliers = next
            }
            guard inliers.count >= minPoints else { break }
            let weight = inliers.reduce(0.0) { $0 + 1 / max(std_m[$1] * std_m[$1], 1e-12) }
            out.append(Plane(points: inliers.map { points[$0] }, normal: n, offsetStd_m: (1 / weight).squareRoot()))
            let taken = Set(inliers)
            left = left.filter { !taken.contains($0) }
        }
        return out
    }
}
