import Estimation
import Foundation
import Geometry
import Testing
@testable import World

/// Landmarks seen through a plane refute it (`SeeThroughTest`, `PlaneDetectorOptions.rejectSeenThrough`).
@Suite struct SeeThroughTests {
    static func landmark(_ id: Int, _ p: Vec3, std: Double = 0.02, from viewpoint: Vec3?) -> MapLandmark {
        MapLandmark(id: id, p_W: p, std_m: std, weight: 1, observations: 1, firstSeen_ns: 0, lastSeen_ns: 0,
                    viewpoint_W: viewpoint)
    }

    /// The vertical plane x = 0 (normal +x) over the square y, z ∈ [0, 1] m, with a 5 cm margin.
    static let wall: SeeThroughTest = {
        let rot = PlaneAnchor.frameRotation(normal: Vec3(1, 0, 0))
        let T_W_P = SE3(rotation: rot, translation: .zero)
        // The polygon is the square y_W ∈ [0, 1], z_W ∈ [0, 1], put in the plane's own coordinates.
        let corners = [Vec3(0, 0, 0), Vec3(0, 1, 0), Vec3(0, 1, 1), Vec3(0, 0, 1)].map { c -> Vec2 in
            let q = T_W_P.inverse.act(c); return Vec2(q.x, q.y)
        }
        return SeeThroughTest(T_W_P: T_W_P, polygon: corners, margin_m: 0.05)
    }()

    /// The test as first written, without the circle that settles crossings far outside the polygon: opposite
    /// sides, then the crossing at least the margin inside the polygon.
    static func plainIsWitness(_ t: SeeThroughTest, _ l: MapLandmark, gate_m: Double) -> Bool {
        guard let c = l.viewpoint_W, t.polygon.count >= 3 else { return false }
        let n = t.T_W_P.rotation.act(Vec3(0, 0, 1)), d = n.dot(t.T_W_P.translation)
        let cz = n.dot(c) - d, pz = n.dot(l.p_W) - d
        guard abs(cz) >= t.margin_m, abs(pz) > gate_m, (cz > 0) != (pz > 0) else { return false }
        let cP = t.T_W_P.inverse.act(c), pP = t.T_W_P.inverse.act(l.p_W)
        let s = cz / (cz - pz)
        let x = Vec2(cP.x + s * (pP.x - cP.x), cP.y + s * (pP.y - cP.y))
        guard PlaneGeometry2D.convexContains(t.polygon, x) else { return false }
        return (PlaneGeometry2D.nearestBoundaryPoint(t.polygon, to: x).map { ($0 - x).norm } ?? 0) >= t.margin_m
    }

    /// Lines of sight scattered around a tilted plane's polygon, many crossing it near its edges and corners: the
    /// test (and a detector's count over a whole map) agrees with the plain test on every one.
    @Test func theCircleAroundThePolygonChangesNoAnswer() {
        var rng = SeededRandom(seed: 31)
        let normal = Vec3(0.3, -0.2, 1).normalized
        let rot = PlaneAnchor.frameRotation(normal: normal)
        let T_W_P = SE3(rotation: rot, translation: Vec3(0.4, -0.3, 0.8))
        // A long thin hexagon: its corners stick out of any circle that is not as large as its farthest vertex.
        let polygon = [Vec2(-1.5, -0.2), Vec2(0, -0.35), Vec2(1.5, -0.2), Vec2(1.6, 0.1), Vec2(0, 0.3), Vec2(-1.6, 0.1)]
        let test = SeeThroughTest(T_W_P: T_W_P, polygon: polygon, margin_m: 0.05)
        var landmarks: [MapLandmark] = []
        for i in 0..<20_000 {
            // A crossing point near the polygon (up to 0.4 m beyond its extent), a viewpoint in front, a point behind.
            let x = Vec3(rng.uniform(-2, 2), rng.uniform(-0.75, 0.75), 0)
            let eye = T_W_P.act(x + Vec3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(0.02, 2)))
            let behind = T_W_P.act(x) + rng.uniform(0.01, 2) * (T_W_P.act(x) - eye).normalized
            landmarks.append(Self.landmark(i, behind, std: rng.uniform(0.001, 0.05), from: i % 50 == 0 ? nil : eye))
        }
        var witnesses = 0
        for l in landmarks {
            let plain = Self.plainIsWitness(test, l, gate_m: 3 * l.std_m)
            #expect(test.isWitness(l, gate_m: 3 * l.std_m) == plain)
            if plain { witnesses += 1 }
        }
        // Both answers occur often.
        #expect(witnesses > 2000 && witnesses < landmarks.count - 2000)
        // The detector's count over the whole map (its contiguous copy of the map) is the same.
        let points = polygon.map { T_W_P.act(Vec3($0.x, $0.y, 0)) }
        let candidate = PlaneCandidate(alignment: .horizontal, normal_W: normal, offset_m: normal.dot(T_W_P.translation),
                                       offsetStd_m: 0.01, points: points, band_m: 0)
        var options = PlaneDetectorOptions(); options.seeThroughMargin_m = 0.05
        let byDetector = PlaneDetector(options: options).seeThroughWitnesses(candidate, by: landmarks)
        let hullTest = SeeThroughTest(T_W_P: SE3(rotation: rot, translation: candidate.offset_m * normal),
                                      polygon: PlaneGeometry2D.convexHull(points.map { let q = rot.inverse.act($0); return Vec2(q.x, q.y) }),
                                      margin_m: 0.05)
        let plainCount = landmarks.filter { Self.plainIsWitness(hullTest, $0, gate_m: max(candidate.band_m, 3 * $0.std_m)) }.count
        #expect(byDetector == plainCount && byDetector > 1000)
    }

    @Test func aLineOfSightThroughThePolygonWitnesses() {
        let eye = Vec3(2, 0.5, 0.5)
        // Behind the plane, the line of sight crossing it at its centre.
        #expect(Self.wall.isWitness(Self.landmark(0, Vec3(-1, 0.5, 0.5), from: eye), gate_m: 0.1))
        // The same point, but within its gate of the plane: it may lie on it.
        #expect(!Self.wall.isWitness(Self.landmark(1, Vec3(-0.08, 0.5, 0.5), from: eye), gate_m: 0.1))
        // Crossing 3 cm inside the polygon's edge (within the 5 cm margin: the surface may end a little farther out)
        // and 10 cm inside it.
        let nearEdge = Vec3(-2, 0.97, 0.5), eyeNearEdge = Vec3(2, 0.97, 0.5)   // crosses at y = 0.97
        #expect(!Self.wall.isWitness(Self.landmark(3, nearEdge, from: eyeNearEdge), gate_m: 0.1))
        let inside = Vec3(-2, 0.9, 0.5), eyeInside = Vec3(2, 0.9, 0.5)         // crosses at y = 0.9
        #expect(Self.wall.isWitness(Self.landmark(4, inside, from: eyeInside), gate_m: 0.1))
        // Crossing outside the polygon (above it).
        #expect(!Self.wall.isWitness(Self.landmark(5, Vec3(-1, 0.5, 1.6), from: Vec3(1, 0.5, 1.6)), gate_m: 0.1))
        // Both on the same side: nothing crossed.
        #expect(!Self.wall.isWitness(Self.landmark(6, Vec3(1, 0.5, 0.5), from: eye), gate_m: 0.1))
        // The viewpoint within the margin of the plane: it may be on the plane's side the point is.
        #expect(!Self.wall.isWitness(Self.landmark(7, Vec3(-1, 0.5, 0.5), from: Vec3(0.03, 0.5, 0.5)), gate_m: 0.1))
        // The polygon's orientation does not matter: the square taken clockwise gives the same answers.
        let reversed = SeeThroughTest(T_W_P: Self.wall.T_W_P, polygon: Self.wall.polygon.reversed(), margin_m: 0.05)
        #expect(reversed.isWitness(Self.landmark(9, inside, from: eyeInside), gate_m: 0.1))
        #expect(!reversed.isWitness(Self.landmark(10, nearEdge, from: eyeNearEdge), gate_m: 0.1))
        // No viewpoint (a point restored from a saved map): no evidence.
        #expect(!Self.wall.isWitness(Self.landmark(8, Vec3(-1, 0.5, 0.5), from: nil), gate_m: 0.1))
    }

    /// A fence of landmarks across x = 0 (1.2 m wide, 0.7 m tall: what a line through a table's legs, or through a
    /// box's side and the table edge behind it, looks like in a mono map with σ 3 cm) and 60 floor landmarks behind
    /// it. Seen by a camera in front of the fence (the floor seen through it), the fence is no plane; seen by a
    /// camera behind the fence (the control, the same points), it is a wall. Two stray witnesses do not refute it.
    /// The fence at x = 0 (60 landmarks, σ 3 cm, seen from in front of it) and `floorCount` floor landmarks behind it
    /// seen from `eye`.
    static func fence(floorSeenFrom eye: Vec3, floorCount: Int, rng: inout SeededRandom) -> [MapLandmark] {
        var l: [MapLandmark] = []
        for _ in 0..<60 {
            let p = Vec3(0, rng.uniform(0, 1.2), rng.uniform(0.05, 0.75)) + rng.gaussian3(0.012)
            l.append(Self.landmark(l.count, p, std: 0.03, from: Vec3(3, 0.6, 1.3)))
        }
        for _ in 0..<floorCount {
            let p = Vec3(rng.uniform(-2.5, -0.6), rng.uniform(0.2, 1.0), 0)
            l.append(Self.landmark(l.count, p, std: 0.03, from: eye))
        }
        return l
    }

    @Test func aFenceSeenThroughIsNoPlaneAndTheSameFenceSeenFromBehindIs() {
        var rng = SeededRandom(seed: 7)
        func scene(floorSeenFrom eye: Vec3, floorCount: Int) -> [MapLandmark] {
            Self.fence(floorSeenFrom: eye, floorCount: floorCount, rng: &rng)
        }
        func fences(_ l: [MapLandmark], _ d: PlaneDetector = PlaneDetector()) -> [PlaneCandidate] {
            d.detect(l).filter { $0.alignment == .vertical && abs($0.normal_W.x) > 0.95 && abs($0.offset_m) < 0.1 }
        }
        // In front of the fence, 1.3 m up: the lines of sight to the floor behind it pass through it.
        let seenThrough = scene(floorSeenFrom: Vec3(3, 0.6, 1.3), floorCount: 60)
        #expect(fences(seenThrough).isEmpty)
        // The check is what refutes it: with it off the fence is a plane.
        var off = PlaneDetectorOptions(); off.rejectSeenThrough = false
        #expect(fences(seenThrough, PlaneDetector(options: off)).count == 1)
        // Behind the fence, above the floor: the same points, no line of sight crosses it.
        #expect(fences(scene(floorSeenFrom: Vec3(-2, 0.6, 1.3), floorCount: 60)).count == 1)
        // Two witnesses (a badly triangulated point or two behind a real wall) are not enough.
        #expect(fences(scene(floorSeenFrom: Vec3(3, 0.6, 1.3), floorCount: 2)).count == 1)
    }

    /// A level of rims at 1.16 m (the phantom: landmarks of several objects' edges at one height, over 1.5 ×
    /// 1.5 m) and the floor below it, seen from 1.6 m up: the floor is seen through the level, which is no plane. A
    /// table top at the same place whose floor points are seen from the side, under the top, is kept.
    @Test func aLevelTheFloorIsSeenThroughIsNoPlane() {
        var rng = SeededRandom(seed: 11)
        func scene(floorSeenFrom eye: Vec3) -> [MapLandmark] {
            var l: [MapLandmark] = []
            for _ in 0..<50 {
                let p = Vec3(rng.uniform(0, 1.5), rng.uniform(0, 1.5), 1.16 + 0.01 * rng.gaussian())
                l.append(Self.landmark(l.count, p, std: 0.03, from: Vec3(0.75, -1.5, 1.6)))
            }
            for _ in 0..<40 {
                let p = Vec3(rng.uniform(0.2, 1.3), rng.uniform(0.2, 1.3), 0)
                l.append(Self.landmark(l.count, p, std: 0.03, from: eye))
            }
            return l
        }
        func levels(_ l: [MapLandmark]) -> [PlaneCandidate] {
            PlaneDetector().detect(l).filter { $0.alignment == .horizontal && abs($0.offset_m - 1.16) < 0.05 }
        }
        #expect(levels(scene(floorSeenFrom: Vec3(0.75, 0.75, 1.6))).isEmpty)
        #expect(levels(scene(floorSeenFrom: Vec3(0.75, -1.5, 0.5))).count == 1)
    }

    /// The session takes each landmark's line of sight from the frame that reported it: the fence and the floor
    /// behind it reported by a camera in front of the fence give no plane at the fence; the same reports without lines
    /// of sight (`landmarksSeenFromCamera` false) give one.
    @Test func theSessionTakesEachLandmarksLineOfSightFromItsFrame() throws {
        let pose = lookAt(eye: Vec3(3, 0.6, 1.3), target: Vec3(0, 0.6, 0.4))
        func run(seenFromCamera: Bool) -> WorldSession {
            var rng = SeededRandom(seed: 5)
            let session = WorldSession()
            var id = 0
            for i in 0..<10 {
                var l: [Landmark] = []
                for _ in 0..<8 {
                    l.append(Landmark(id: id, p_W: Vec3(0, rng.uniform(0, 1.2), rng.uniform(0.05, 0.75)) + rng.gaussian3(0.012), std_m: 0.03))
                    id += 1
                }
                for _ in 0..<8 {
                    l.append(Landmark(id: id, p_W: Vec3(rng.uniform(-2.5, -0.6), rng.uniform(0.2, 1.0), 0), std_m: 0.03))
                    id += 1
                }
                _ = session.process(frameInput(i, landmarks: l, T_W_C: pose, seenFromCamera: seenFromCamera))
            }
            return session
        }
        func fences(_ s: WorldSession) -> [PlaneAnchor] {
            s.planes.filter { $0.alignment == .vertical && abs($0.normal_W.x) > 0.95 && abs($0.T_W_P.translation.x) < 0.1 }
        }
        let seen = run(seenFromCamera: true)
        #expect(fences(seen).isEmpty)
        #expect(seen.map.all.allSatisfy { $0.viewpoint_W == pose.translation })
        let blind = run(seenFromCamera: false)
        #expect(fences(blind).count == 1)
        #expect(blind.map.all.allSatisfy { $0.viewpoint_W == nil })
    }

    /// A tracked plane made before the landmarks behind it were seen is removed at the first pass whose fit of it is
    /// refuted (not 20 passes later, as a plane no candidate matches), unless a candidate of the same pass holds it.
    @Test func aTrackedPlaneThatFreeSpaceLaterRefutesIsRemovedAtOnce() throws {
        var rng = SeededRandom(seed: 3)
        let detector = PlaneDetector()
        var tracker = PlaneTracker()
        let camera = Vec3(3, 0.6, 1.3)
        // First the fence alone (the floor behind it not yet mapped): a plane.
        let early = detector.detection(Self.fence(floorSeenFrom: camera, floorCount: 0, rng: &rng))
        #expect(early.refuted.isEmpty)
        let added = tracker.update(with: early.candidates, at: 0, cameraPosition_W: camera)
        let fence = try #require(tracker.planes.first { $0.alignment == .vertical && abs($0.T_W_P.translation.x) < 0.1 })
        #expect(added.contains(.added(fence)))
        // Then the floor behind it, seen through it: the fit is refuted, and the plane goes with it.
        let later = detector.detection(Self.fence(floorSeenFrom: camera, floorCount: 60, rng: &rng))
        #expect(later.refuted.contains { $0.alignment == .vertical })
        var control = tracker
        let changes = tracker.update(with: later.candidates, refuted: later.refuted, at: 1, cameraPosition_W: camera)
        #expect(tracker.plane(id: fence.id) == nil)
        #expect(changes.contains { if case let .removed(p, into) = $0 { return p.id == fence.id && into == nil } else { return false } })
        // Control: the same pass without its refuted fits only counts a missed pass.
        _ = control.update(with: later.candidates, at: 1, cameraPosition_W: camera)
        #expect(control.plane(id: fence.id) != nil)
    }
}
