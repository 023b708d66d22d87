import Estimation
import Foundation
import Geometry
import Sensors
import Testing
@testable import World

@Suite struct LandmarkMapTests {
    @Test func reportsOfOneIdAreAveragedByInverseVariance() throws {
        var map = LandmarkMap()
        map.integrate([Landmark(id: 7, p_W: Vec3(1, 0, 0), std_m: 0.01)], at: 0)
        map.integrate([Landmark(id: 7, p_W: Vec3(1.02, 0, 0), std_m: 0.02)], at: 1)
        let l = try #require(map.landmark(id: 7))
        // Weights 1/σ²: 10000 and 2500 → x = (1·10000 + 1.02·2500) / 12500 = 1.004.
        #expect(abs(l.p_W.x - 1.004) < 1e-12)
        #expect(l.std_m == 0.01 && l.observations == 2 && l.lastSeen_ns == 1)
        #expect(map.count == 1)
    }

    /// A landmark keeps the viewpoint of its latest report that had one (the line of sight plane detection uses).
    @Test func theLatestReportsViewpointIsKept() throws {
        var map = LandmarkMap()
        map.integrate([Landmark(id: 3, p_W: Vec3(1, 0, 0), std_m: 0.01)], at: 0, viewpoint_W: Vec3(0, 0, 1))
        map.integrate([Landmark(id: 3, p_W: Vec3(1, 0, 0), std_m: 0.01)], at: 1, viewpoint_W: Vec3(0, 2, 1))
        #expect(try #require(map.landmark(id: 3)).viewpoint_W == Vec3(0, 2, 1))
        map.integrate([Landmark(id: 3, p_W: Vec3(1, 0, 0), std_m: 0.01)], at: 2)
        #expect(try #require(map.landmark(id: 3)).viewpoint_W == Vec3(0, 2, 1))
        map.integrate([Landmark(id: 4, p_W: Vec3(2, 0, 0), std_m: 0.01)], at: 2)
        #expect(try #require(map.landmark(id: 4)).viewpoint_W == nil)
    }

    @Test func farReportReplacesInsteadOfAveraging() throws {
        var map = LandmarkMap()
        map.integrate([Landmark(id: 1, p_W: Vec3(0, 0, 0), std_m: 0.01)], at: 0)
        // 1 m away is ≫ 5 combined σ: the estimator re-triangulated the feature.
        map.integrate([Landmark(id: 1, p_W: Vec3(1, 0, 0), std_m: 0.01)], at: 1)
        #expect(try #require(map.landmark(id: 1)).p_W == Vec3(1, 0, 0))
    }

    @Test func invalidReportsAreIgnored() {
        var map = LandmarkMap()
        map.integrate([Landmark(id: 1, p_W: Vec3(.nan, 0, 0), std_m: 0.01),
                       Landmark(id: 2, p_W: Vec3(0, 0, 0), std_m: 0),
                       Landmark(id: 3, p_W: Vec3(0, 0, 0), std_m: 5)], at: 0)
        #expect(map.count == 0)
    }

    @Test func capacityCullsLeastRecentlySeen() {
        var map = LandmarkMap(capacity: 100)
        for t in 0..<150 { map.integrate([Landmark(id: t, p_W: Vec3(Double(t), 0, 0), std_m: 0.01)], at: TimestampNs(t)) }
        #expect(map.count <= 100)
        // The oldest ids went first; the newest are all kept.
        #expect(map.landmark(id: 0) == nil)
        #expect((140..<150).allSatisfy { map.landmark(id: $0) != nil })
        // Re-seeing an old landmark protects it.
        var m2 = LandmarkMap(capacity: 10)
        for t in 0..<10 { m2.integrate([Landmark(id: t, p_W: .zero, std_m: 0.01)], at: TimestampNs(t)) }
        m2.integrate([Landmark(id: 0, p_W: .zero, std_m: 0.01)], at: 100)
        m2.integrate([Landmark(id: 99, p_W: .zero, std_m: 0.01)], at: 101)
        #expect(m2.landmark(id: 0) != nil && m2.landmark(id: 1) == nil)
    }

    /// The cull keeps exactly the landmarks a full sort by (latest report, id) would keep, also when a whole frame's
    /// reports share their time (then the higher ids stay), and when old landmarks are seen again.
    @Test func cullKeepsTheMostRecentBySelectionAsASortWould() {
        var rng = SeededRandom(seed: 31)
        var map = LandmarkMap(capacity: 500)
        var lastSeen: [Int: TimestampNs] = [:] // the reference: every id's latest report, culled by sorting
        var culls = 0
        for frame in 0..<120 {
            let t = TimestampNs(frame) * 50_000_000
            // 40 new ids a frame (in a shuffled order) and 10 old ones seen again.
            var ids = (0..<40).map { frame * 40 + $0 }.shuffled(using: &rng)
            for _ in 0..<10 { ids.append(Int(rng.uniform(0, Double(frame * 40 + 1)))) }
            map.integrate(ids.map { Landmark(id: $0, p_W: Vec3(Double($0), 0, 0), std_m: 0.01) }, at: t)
            for id in ids { lastSeen[id] = t }
            if lastSeen.count > 500 {
                culls += 1
                let kept = lastSeen.sorted { ($0.value, $0.key) > ($1.value, $1.key) }.prefix(450)
                lastSeen = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
            }
            #expect(Set(map.all.map(\.id)) == Set(lastSeen.keys), "frame \(frame)")
        }
        #expect(culls >= 5)
    }

    @Test func staleLandmarksAreDropped() {
        var map = LandmarkMap(maxAge_ns: 1_000)
        map.integrate([Landmark(id: 1, p_W: .zero, std_m: 0.01)], at: 0)
        map.integrate([Landmark(id: 2, p_W: .zero, std_m: 0.01)], at: 2_000)
        #expect(map.landmark(id: 1) == nil && map.landmark(id: 2) != nil)
    }

    @Test func regionQueries() {
        var map = LandmarkMap()
        map.integrate((0..<10).map { Landmark(id: $0, p_W: Vec3(Double($0), 0, 0), std_m: 0.01) }, at: 0)
        #expect(map.landmarks(in: WorldBox(min: Vec3(2.5, -1, -1), max: Vec3(5, 1, 1))).map(\.id) == [3, 4, 5])
        #expect(map.landmarks(near: Vec3(7, 0, 0), radius: 1.01).map(\.id) == [6, 7, 8])
        let ray = map.landmarks(nearRayFrom: Vec3(0, -1, 0), direction: Vec3(0, 1, 0), maxAngle: 0.1)
        #expect(ray.map(\.landmark.id) == [0])
    }
}

@Suite struct GeometryHelperTests {
    @Test func planeFitFindsTiltedPlane() throws {
        var rng = SeededRandom(seed: 5)
        let n = Vec3(0.2, -0.1, 1).normalized
        let pts = (0..<200).map { _ -> Vec3 in
            var p = Vec3(rng.uniform(-1, 1), rng.uniform(-1, 1), 0)
            p.z = (0.5 - n.x * p.x - n.y * p.y) / n.z
            return p
        }
        let fit = try #require(FittedPlane.fit(pts))
        #expect(abs(abs(fit.normal.dot(n)) - 1) < 1e-9)
        #expect(abs(n.dot(fit.centroid) - 0.5) < 1e-9 && fit.rms_m < 1e-9)
        #expect(FittedPlane.fit([Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(2, 0, 0)]) == nil) // collinear
    }

    /// Points of one edge whose x differs only by rounding sort in the rounding's order, not along the edge; the hull
    /// must still keep that edge's ends (with a tolerance in the chain, a 10 × 10 grid seen through a wall's frame lost
    /// its top-right corner: 3.16 m² for 3.24).
    @Test func hullKeepsTheCornersOfAGridWhoseColumnsAreRoundedApart() {
        var pts: [Vec2] = []
        for i in 0..<10 {
            for j in 0..<10 {
                pts.append(Vec2(-0.9 + 0.2 * Double(i) + 1e-15 * sin(2.7 * Double(j) + 1.3 * Double(i)), -0.9 + 0.2 * Double(j)))
            }
        }
        let swapped: [Vec2] = pts.map { Vec2($0.y, $0.x) }
        for points: [Vec2] in [pts, Array(pts.reversed()), swapped] {
            let hull = PlaneGeometry2D.convexHull(points)
            #expect(abs(PlaneGeometry2D.area(hull) - 3.24) < 1e-9, "area \(PlaneGeometry2D.area(hull))")
            #expect(hull.count == 4)
            for corner in [Vec2(-0.9, -0.9), Vec2(0.9, -0.9), Vec2(0.9, 0.9), Vec2(-0.9, 0.9)] {
                #expect(hull.contains { (q: Vec2) in abs(q.x - corner.x) < 1e-10 && abs(q.y - corner.y) < 1e-10 })
            }
        }
        // Three points nearly on a line: the segment between the outer two.
        let sliver = PlaneGeometry2D.convexHull([Vec2(0, 0), Vec2(2, 1e-14), Vec2(1, 0)])
        #expect(sliver.count == 2 && sliver.contains(Vec2(0, 0)) && sliver.contains(Vec2(2, 1e-14)))
    }

    @Test func hullAndMinimumRectangleOfARotatedRectangle() {
        let yaw = 0.5
        let ux = Vec2(cos(yaw), sin(yaw)), uy = Vec2(-sin(yaw), cos(yaw))
        var pts: [Vec2] = []
        for i in 0...20 { for j in 0...10 { pts.append(Vec2(1, 2) + (Double(i) / 10) * ux + (Double(j) / 10) * uy) } }
        let hull = PlaneGeometry2D.convexHull(pts)
        #expect(hull.count == 4)
        #expect(abs(PlaneGeometry2D.area(hull) - 2) < 1e-9)
        let r = PlaneGeometry2D.minimumAreaRectangle(hull)
        #expect(abs(r.width - 2) < 1e-9 && abs(r.length - 1) < 1e-9 && abs(r.yaw - yaw) < 1e-9)
        #expect((r.center - (Vec2(1, 2) + ux + 0.5 * uy)).norm < 1e-9)
        #expect(PlaneGeometry2D.convexContains(hull, Vec2(1, 2) + ux + 0.5 * uy))
        #expect(!PlaneGeometry2D.convexContains(hull, Vec2(0, 0)))
        let square = [Vec2(0, 0), Vec2(1, 0), Vec2(1, 1), Vec2(0, 1)]
        #expect(abs(PlaneGeometry2D.distance(square, square.map { $0 + Vec2(1.5, 0) }) - 0.5) < 1e-12)
        #expect(PlaneGeometry2D.distance(square, square.map { $0 + Vec2(0.5, 0.5) }) == 0)
    }

    @Test func nearestBoundaryPointOfASquare() throws {
        let square = [Vec2(0, 0), Vec2(1, 0), Vec2(1, 1), Vec2(0, 1)]
        // Beside an edge: the foot of the perpendicular; beyond a corner: the corner; inside: the nearest edge's foot.
        #expect(try #require(PlaneGeometry2D.nearestBoundaryPoint(square, to: Vec2(1.3, 0.4))) == Vec2(1, 0.4))
        #expect(try #require(PlaneGeometry2D.nearestBoundaryPoint(square, to: Vec2(1.5, 1.5))) == Vec2(1, 1))
        #expect(try #require(PlaneGeometry2D.nearestBoundaryPoint(square, to: Vec2(0.5, 0.9))) == Vec2(0.5, 1))
        #expect(PlaneGeometry2D.nearestBoundaryPoint([], to: .zero) == nil)
    }
}
