import Foundation
import Geometry

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
}
