import Estimation
import Foundation
import Geometry
import Sensors
import Testing
@testable import World

/// An anchor's latest record must stay within the update thresholds of its current state: a plane refined by many
/// steps, each under 1 mm, is reported once they add up to more (before, each step was compared with the previous one
/// and a plane or an anchor on it could drift by centimetres without a record).
@Suite struct AnchorUpdateReportingTests {
    /// A horizontal candidate over a fixed 2 m × 2 m grid at height `h` (its area and centre do not change).
    static func floorCandidate(height h: Double) -> PlaneCandidate {
        var points: [Vec3] = []
        for i in 0..<10 { for j in 0..<10 { points.append(Vec3(Double(i) * 0.2, Double(j) * 0.2, h)) } }
        return PlaneCandidate(alignment: .horizontal, normal_W: Vec3(0, 0, 1), offset_m: h, offsetStd_m: 0.001,
                              points: points, band_m: 0.02)
    }

    @Test func aPlaneRefinedInSmallStepsIsReportedWhenTheyAddUp() throws {
        var tracker = PlaneTracker()
        let camera = Vec3(1, -2, 1.5)
        let first = tracker.update(with: [Self.floorCandidate(height: 0)], at: 0, cameraPosition_W: camera)
        let plane = try #require(tracker.planes.first)
        #expect(first == [.added(plane)])
        var reportedHeight = plane.height_m, updates = 0
        // Twenty passes of 0.6 mm each: 12 mm in all, no single step over the 1 mm threshold.
        for k in 1...20 {
            let changes = tracker.update(with: [Self.floorCandidate(height: 0.0006 * Double(k))], at: TimestampNs(k),
                                         cameraPosition_W: camera)
            for case let .updated(p) in changes { reportedHeight = p.height_m; updates += 1 }
            let now = try #require(tracker.plane(id: plane.id)).height_m
            #expect(abs(now - 0.0006 * Double(k)) < 1e-9)
            #expect(abs(now - reportedHeight) <= tracker.options.updateOffset_m + 1e-12,
                    "pass \(k): the plane stands at \(now) m, its last record said \(reportedHeight) m")
        }
        // Every second pass carries it past the threshold (1.2 mm): ten records, not none.
        #expect(updates == 10)
    }

    /// A vertical candidate: the plane `n·p = 3` with `n` turned by `angle` about world z, over about 2 m × 2 m from 2
    /// to 4 m beside the foot of the world origin on it (its offset, measured at the world origin, stays 3 m). The
    /// points are a grid shaken by up to 5 cm in the plane, the same for every angle: no three on a line, so the
    /// outline (and the area) stays the same as the plane turns.
    static func wallCandidate(angle: Double) -> PlaneCandidate {
        let n = Vec3(cos(angle), sin(angle), 0), along = Vec3(-sin(angle), cos(angle), 0)
        var points: [Vec3] = []
        for i in 0..<10 {
            for j in 0..<10 {
                let s = 2 + 0.2 * Double(i) + 0.05 * sin(7.3 * Double(i) + 3.1 * Double(j))
                let z = 0.2 * Double(j) + 0.05 * cos(5.7 * Double(i) + 1.9 * Double(j))
                points.append(3 * n + s * along + Vec3(0, 0, z))
            }
        }
        return PlaneCandidate(alignment: .vertical, normal_W: n, offset_m: 3, offsetStd_m: 0.001, points: points, band_m: 0.02)
    }

    @Test func aWallTurningInSmallStepsIsReportedWhenItHasMovedWhereItIs() throws {
        var tracker = PlaneTracker()
        let camera = Vec3(0, 3, 1)
        _ = tracker.update(with: [Self.wallCandidate(angle: 0)], at: 0, cameraPosition_W: camera)
        var reported = try #require(tracker.planes.first)
        var updates = 0
        // 0.01° a pass about an axis 2–4 m from the wall's points: its far edge moves 0.7 mm a pass, its offset not
        // at all.
        for k in 1...20 {
            let changes = tracker.update(with: [Self.wallCandidate(angle: Double(k) * 0.01 * Double.pi / 180)], at: TimestampNs(k),
                                         cameraPosition_W: camera)
            for case let .updated(p) in changes { reported = p; updates += 1 }
            let now = try #require(tracker.plane(id: reported.id))
            let n = now.normal_W, d = n.dot(now.T_W_P.translation)
            let moved = ([reported.T_W_P.translation] + reported.boundary).map { abs(n.dot($0) - d) }.max() ?? 0
            #expect(moved <= tracker.options.updateOffset_m + 1e-9,
                    "pass \(k): the wall's last record lies up to \(moved) m from where it stands")
        }
        #expect(updates >= 5)
    }

    @Test func aUserAnchorFollowingASlowlyRefinedPlaneIsReportedWhenItHasMoved() throws {
        let session = WorldSession()
        var gen = RoomLandmarks(seed: 5, sigma: 0.0005)
        var f = session.process(frameInput(0, landmarks: gen.batch(floor: 80, table: 40, wall: 0)))
        let table = try #require(session.planes.first { abs($0.height_m - Room.tableZ) < 0.005 })
        let px = try #require(testCamera.model.project(defaultPose.inverse.act(Vec3(1.0, 0.1, Room.tableZ))))
        let hit = try #require(f.raycast(pixel: px, target: .existingPlaneGeometry).first)
        #expect(hit.planeId == table.id)
        let anchorId = f.addAnchor(at: hit, name: "cup").anchor.id
        var reportedZ = try #require(session.userAnchor(id: anchorId)).T_W_A.translation.z
        let startZ = reportedZ
        var updates = 0
        // Each pass adds 20 table points 2 mm higher than the last pass's: the plane (the mean of all of them) rises
        // by 0.67, 0.83, 0.90, … mm a pass, each under 1 mm, 7 mm after eight passes.
        for k in 1...8 {
            let lift = 0.002 * Double(k)
            let points = gen.points({ r in Room.tablePoint(&r) + Vec3(0, 0, lift) }, count: 20)
            f = session.process(frameInput(2 * k, landmarks: points))
            for e in f.events where e.anchor.id == anchorId && e.change == .updated {
                reportedZ = e.anchor.T_W_A.translation.z; updates += 1
            }
            let z = try #require(session.userAnchor(id: anchorId)).T_W_A.translation.z
            #expect(abs(z - reportedZ) <= session.options.anchorUpdateThreshold_m + 1e-12,
                    "pass \(k): the anchor stands at z \(z) m, its last record said \(reportedZ) m")
        }
        let endZ = try #require(session.userAnchor(id: anchorId)).T_W_A.translation.z
        #expect(endZ - startZ > 0.005)
        #expect(updates >= 3)
    }

    /// A user anchor whose plane merges into another is re-attached to the survivor; its record must say so even when
    /// it moved by less than the update threshold (before, its `plane_id` in the stream stayed the merged plane's).
    @Test func aUserAnchorReattachedToAMergesSurvivorIsReportedHoweverLittleItMoved() throws {
        var options = WorldOptions()
        options.anchorUpdateThreshold_m = 10   // no move is large enough: only the re-attachment can report it
        let session = WorldSession(options: options)
        var strips = RoomLandmarks(seed: 13)
        func patch(_ x: ClosedRange<Double>, _ n: Int) -> [Landmark] { strips.floorStrip(x: x, count: n) }
        _ = session.process(frameInput(0, landmarks: patch(0...1, 60) + patch(2...3, 60)))
        let second = try #require(session.planes.first { $0.id == "plane-2" })
        let anchorId = session.addAnchor(T_W_A: SE3(translation: Vec3(2.5, 0.5, second.height_m)), planeId: second.id, t_ns: 0)
            .anchor.id
        var recorded: [String?] = []
        for i in 1...4 {
            for e in session.process(frameInput(i * 2, landmarks: patch(1...2, 40))).events
            where e.anchor.id == anchorId && e.change == .updated {
                if case let .user(u) = e.anchor { recorded.append(u.planeId) }
            }
        }
        #expect(session.planes.count == 1)
        let a = try #require(session.userAnchor(id: anchorId))
        #expect(a.planeId == "plane-1")
        #expect(recorded == ["plane-1"], "the anchor's updates said \(recorded)")
    }

    /// A user anchor whose plane is removed (its landmarks aged out) stays where it is, on no plane; its record must
    /// say so at that frame (before, the stream's last record still named the removed plane).
    @Test func aUserAnchorWhosePlaneIsRemovedIsReportedDetached() throws {
        let shelfSeen = try sessionWithAShelfSeenOnce()
        let session = shelfSeen.session, shelfPlane = shelfSeen.shelf
        var gen = shelfSeen.gen
        let placed = SE3(translation: Vec3(-0.5, -0.5, shelfPlane.height_m))
        let anchorId = session.addAnchor(T_W_A: placed, planeId: shelfPlane.id, t_ns: 0).anchor.id
        var detachedAt: Int?, planeRemovedAt: Int?
        for i in 1...100 {
            let f = session.process(frameInput(i, landmarks: gen.batch(floor: 20, table: 0, wall: 0)))
            if f.events.contains(where: { $0.change == .removed && $0.anchor.id == shelfPlane.id }) { planeRemovedAt = i }
            for e in f.events where e.anchor.id == anchorId && e.change == .updated {
                if case let .user(u) = e.anchor, u.planeId == nil { detachedAt = i }
            }
            if planeRemovedAt != nil { break }
        }
        let removed = try #require(planeRemovedAt)
        #expect(detachedAt == removed)
        let a = try #require(session.userAnchor(id: anchorId))
        #expect(a.planeId == nil && (a.T_W_A.translation - placed.translation).norm < 0.02)
    }
}
