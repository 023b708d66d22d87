import Estimation
import Foundation
import Geometry
import Sensors
import Testing
@testable import World

@Suite struct PlaneDetectionTests {
    @Test func floorTableAndWallsFoundWithAccurateHeightAndExtent() throws {
        let (session, frames) = runRoom()
        let planes = session.planes
        let floor = try #require(planes.first { $0.classification == .floor })
        let table = try #require(planes.first { $0.classification == .table })
        // Target: height within 2 cm of truth with 1 cm landmark noise.
        #expect(abs(floor.height_m - Room.floorZ) < 0.02)
        #expect(abs(table.height_m - Room.tableZ) < 0.02)
        // Extent within 20 % (the hull of samples lies slightly inside the true 1.2 × 0.8 m top).
        let sides = [table.extent.width, table.extent.length].sorted()
        #expect(abs(sides[0] - 0.8) / 0.8 < 0.2)
        #expect(abs(sides[1] - 1.2) / 1.2 < 0.2)
        #expect((table.center - Vec3(1.1, 0, 0.75)).norm < 0.1)
        // Floor spans (most of) the 6 × 6 m room.
        #expect(floor.area_m2 > 0.8 * 36 - 1.2 * 0.8)
        // Exactly one floor and one table, plus the two walls (vertical, at x = -3 and y = 3).
        #expect(planes.filter { $0.alignment == .horizontal }.count == 2)
        let walls = planes.filter { $0.alignment == .vertical }
        #expect(walls.count == 2)
        for w in walls {
            #expect(w.classification == .wall)
            let n = w.normal_W
            // A wall's offset (n·p) must match its true plane within 2 cm.
            if abs(n.x) > 0.99 { #expect(abs(w.T_W_P.translation.x - -3) < 0.02) } else { #expect(abs(w.T_W_P.translation.y - 3) < 0.02) }
            // Normals face the camera (inside the room).
            #expect(n.dot(defaultPose.translation - w.T_W_P.translation) > 0)
        }
        // The floor was reported within 1.5 s of tracking normal.
        let added = frames.first { f in f.events.contains { $0.change == .added && $0.anchor.id == floor.id } }
        let t = try #require(added).t_ns - frames[0].t_ns
        #expect(t <= 1_500_000_000)
        print("room: floor h err \(floor.height_m) m, table h err \(table.height_m - Room.tableZ) m, table sides \(sides), floor reported after \(Double(t) * 1e-9) s")
    }

    @Test func lifecycleAddsEachPlaneOnceAndReportsUpdates() {
        let (session, frames) = runRoom()
        let events = frames.flatMap(\.events)
        let addedIds = events.filter { $0.change == .added }.map(\.anchor.id)
        #expect(addedIds.count == Set(addedIds).count)
        let removed = events.filter { $0.change == .removed }
        // Every plane added is either still there or was merged into another plane (never silently lost).
        #expect(Set(addedIds).subtracting(removed.map(\.anchor.id)) == Set(session.planes.map(\.id)))
        for r in removed {
            let addedAt = events.firstIndex { $0.change == .added && $0.anchor.id == r.anchor.id }
            let removedAt = events.firstIndex { $0 == r }
            #expect(addedAt != nil && addedAt! < removedAt!)
            #expect(r.mergedInto != nil)
        }
        #expect(events.contains { $0.change == .updated })
        // A static room settles: at most one early fragment (a sparse wall patch) merges away.
        #expect(removed.count <= 1)
        print("room lifecycle: added \(addedIds.count), removed \(removed.map { "\($0.anchor.id)→\($0.mergedInto ?? "-")" }), final \(session.planes.map { "\($0.id):\($0.classification.rawValue)" })")
        // Ids are deterministic counters.
        #expect(session.planes.map(\.id).allSatisfy { $0.hasPrefix("plane-") })
    }

    @Test func separatedPatchesMergeWhenTheGapFills() throws {
        let session = WorldSession()
        var strips = RoomLandmarks(seed: 7)
        func patch(_ x: ClosedRange<Double>, _ n: Int) -> [Landmark] { strips.floorStrip(x: x, count: n) }
        let f0 = session.process(frameInput(0, landmarks: patch(0...1, 60) + patch(2...3, 60)))
        #expect(f0.events.filter { $0.change == .added }.count == 2)
        #expect(session.planes.count == 2)
        var events: [AnchorEvent] = []
        for i in 1...4 { events += session.process(frameInput(i * 2, landmarks: patch(1...2, 40))).events }
        #expect(session.planes.count == 1)
        let removed = events.filter { $0.change == .removed }
        #expect(removed.count == 1)
        let survivor = try #require(session.planes.first)
        #expect(removed.first?.mergedInto == survivor.id)
        #expect(survivor.id == "plane-1")
        // The merged plane spans x ∈ [0, 3] (within 20 %).
        #expect(abs(max(survivor.extent.width, survivor.extent.length) - 3) / 3 < 0.2)
        #expect(!events.contains { $0.change == .added })
    }

    @Test func noPlanesWhileTrackingIsNotNormal() {
        let session = WorldSession()
        var gen = RoomLandmarks(seed: 3)
        for i in 0..<20 {
            let f = session.process(frameInput(i, landmarks: gen.batch(floor: 40, table: 10, wall: 10), normal: false))
            #expect(f.planes.isEmpty && f.events.isEmpty && f.anchorsInView.isEmpty)
            #expect(f.raycast(pixel: Vec2(320, 400)) == nil)
        }
        #expect(session.planes.isEmpty)
        #expect(session.map.count == 0)
        let f = session.process(frameInput(20, landmarks: gen.batch(floor: 40, table: 10, wall: 10)))
        #expect(f.events.contains { $0.change == .added })
        #expect(!f.planes.isEmpty)
    }

    @Test func floorIsLowestLargePlaneAndSmallLowerPatchIsNot() {
        // A large plane at z = 0.4 and a small patch at z = 0: the large plane is the floor.
        let session = WorldSession()
        var rng = SeededRandom(seed: 11)
        var lms: [Landmark] = []
        for i in 0..<200 { lms.append(Landmark(id: i, p_W: Vec3(rng.uniform(-1, 1), rng.uniform(-1, 1), 0.4) + rng.gaussian3(0.01), std_m: 0.01)) }
        for i in 200..<240 { lms.append(Landmark(id: i, p_W: Vec3(rng.uniform(3, 3.4), rng.uniform(0, 0.4), 0) + rng.gaussian3(0.01), std_m: 0.01)) }
        _ = session.process(frameInput(0, landmarks: lms))
        let big = session.planes.first { abs($0.height_m - 0.4) < 0.03 }
        let small = session.planes.first { abs($0.height_m) < 0.03 }
        #expect(big?.classification == .floor)
        #expect(small?.classification == PlaneClassification.none)
    }
}

@Suite struct SessionResetTests {
    @Test func resetRemovesEverythingAndKeepsCountingIds() throws {
        let (session, _) = runRoom(frames: 6)
        let before = session.planes.map(\.id)
        #expect(!before.isEmpty)
        session.addAnchor(T_W_A: .identity, t_ns: 0)
        let events = session.reset(t_ns: 5)
        #expect(events.count == before.count + 1 && events.allSatisfy { $0.change == .removed })
        #expect(session.planes.isEmpty && session.userAnchors.isEmpty && session.map.count == 0)
        var gen = RoomLandmarks(seed: 99)
        let f = session.process(frameInput(100, landmarks: gen.batch(floor: 60, table: 0, wall: 0)))
        let added = try #require(f.events.first { $0.change == .added })
        #expect(!before.contains(added.anchor.id))
    }
}

@Suite struct SparseNoisyRoomTests {
    @Test func sparseLandmarksWithOutliersStillGiveFloorAndTableQuickly() throws {
        let session = WorldSession()
        var gen = RoomLandmarks(seed: 31)
        var frames: [WorldFrame] = []
        for i in 0..<30 {
            var lms = gen.batch(floor: 10, table: 3, wall: 8)
            // 15 % outliers anywhere in the room volume (mis-triangulated features).
            lms += gen.points({ r in Vec3(r.uniform(-3, 3), r.uniform(-3, 3), r.uniform(0, 2.5)) }, count: 3)
            frames.append(session.process(frameInput(i, landmarks: lms)))
        }
        let floor = try #require(session.planes.first { $0.classification == .floor })
        let table = try #require(session.planes.first { $0.classification == .table })
        #expect(abs(floor.height_m) < 0.02 && abs(table.height_m - 0.75) < 0.02)
        let floorAdded = try #require(frames.first { f in f.events.contains { $0.change == .added && $0.anchor.id == floor.id } })
        #expect(floorAdded.t_ns - frames[0].t_ns <= 1_500_000_000)
        // No spurious horizontal planes from outliers or wall slices.
        #expect(session.planes.filter { $0.alignment == .horizontal }.count == 2)
        // Extent within 20 % even with an outlier at the table's height 0.2 m beside it (stray points are culled).
        let sides = [table.extent.width, table.extent.length].sorted()
        #expect(abs(sides[0] - 0.8) / 0.8 < 0.2 && abs(sides[1] - 1.2) / 1.2 < 0.2)
        print("sparse room: floor after \(Double(floorAdded.t_ns - frames[0].t_ns) * 1e-9) s, h \(floor.height_m); table h \(table.height_m), sides \(table.extent.width) × \(table.extent.length); planes \(session.planes.map { "\($0.id):\($0.classification.rawValue)" })")
    }
}

@Suite struct TiltToleranceTests {
    @Test func floorSeenOneDegreeTiltedStaysOnePlane() throws {
        // A 1° gravity error tilts the 6 m floor by ±5 cm: more than the ±2.5 cm inlier band.
        let R = SO3(angle: 1 * Double.pi / 180, axis: Vec3(1, 0.3, 0).normalized)
        let session = WorldSession()
        var gen = RoomLandmarks(seed: 1)
        for i in 0..<30 {
            let lms = gen.batch(floor: 40, table: 10, wall: 15).map { Landmark(id: $0.id, p_W: R.act($0.p_W), std_m: $0.std_m) }
            _ = session.process(frameInput(i, landmarks: lms))
        }
        let horizontal = session.planes.filter { $0.alignment == .horizontal }
        #expect(horizontal.count == 2)
        let floor = try #require(horizontal.first { $0.classification == .floor })
        // The whole floor (≥ 90 % of the 35 m² sampled) is one plane, at the tilted floor's mean height (≈ 0).
        #expect(floor.area_m2 > 0.9 * (36 - 0.96))
        #expect(abs(floor.height_m) < 0.02)
    }
}

@Suite struct BadInputTests {
    @Test func nonFinitePoseIsTreatedAsNotNormal() {
        let (session, _) = runRoom(frames: 4)
        #expect(!session.planes.isEmpty)
        var gen = RoomLandmarks(seed: 8)
        let f = session.process(frameInput(10, landmarks: gen.batch(floor: 10, table: 0, wall: 0),
                                           T_W_C: SE3(translation: Vec3(.nan, 0, 0))))
        #expect(!f.isTrackingNormal && f.planes.isEmpty && f.anchorsInView.isEmpty && f.events.isEmpty)
        #expect(f.raycast(pixel: Vec2(320, 240)) == nil)
    }
}

@Suite struct PrecisionAwareDetectionTests {
    func layers(sigma: Double, seed: UInt64) -> [Landmark] {
        var rng = SeededRandom(seed: seed)
        return (0..<300).map { i in
            // Two overlapping 2 × 2 m layers 8 cm apart (a floor and a mat on it).
            let z = i % 2 == 0 ? 0.0 : 0.08
            return Landmark(id: i, p_W: Vec3(rng.uniform(0, 2), rng.uniform(0, 2), z) + rng.gaussian3(sigma), std_m: sigma)
        }
    }

    @Test func layersCloserThanTheLandmarksCanResolveAreOnePlane() {
        // σ = 4 cm: the inlier band is 10 cm, so 8 cm apart cannot be told apart → one plane, not two duplicates.
        let coarse = WorldSession()
        _ = coarse.process(frameInput(0, landmarks: layers(sigma: 0.04, seed: 1)))
        #expect(coarse.planes.filter { $0.alignment == .horizontal }.count == 1)
        // σ = 5 mm: the two layers are clearly separate planes.
        let fine = WorldSession()
        _ = fine.process(frameInput(0, landmarks: layers(sigma: 0.005, seed: 1)))
        let heights = fine.planes.filter { $0.alignment == .horizontal }.map(\.height_m).sorted()
        #expect(heights.count == 2)
        if heights.count == 2 { #expect(abs(heights[0]) < 0.01 && abs(heights[1] - 0.08) < 0.01) }
    }

    @Test func preciseLandmarksOfANearbyLedgeDoNotStretchTheTable() throws {
        var rng = SeededRandom(seed: 17)
        var lms: [Landmark] = []
        func add(_ p: Vec3, _ s: Double) { lms.append(Landmark(id: lms.count, p_W: p + rng.gaussian3(s), std_m: s)) }
        for _ in 0..<300 { add(Room.floorPoint(&rng), 0.03) }              // noisy floor: median σ 3 cm → band 7.5 cm
        for _ in 0..<150 { add(Room.tablePoint(&rng), 0.01) }              // table top at 0.75
        for _ in 0..<30 { add(Vec3(rng.uniform(1.75, 2.1), rng.uniform(-0.4, 0.4), 0.80), 0.005) } // ledge 5 cm higher
        let session = WorldSession()
        _ = session.process(frameInput(0, landmarks: lms))
        let table = try #require(session.planes.first { abs($0.height_m - 0.75) < 0.02 })
        // Each landmark is gated by its own σ (2.5 × 5 mm < 5 cm): the ledge stays out, the top keeps its 1.2 m.
        #expect(max(table.extent.width, table.extent.length) < 1.2 * 1.1)
    }
}

@Suite struct TopHeightTests {
    /// A box top at 0.35 m (100 landmarks reported with σ 2 cm, scattered by 4 mm about it) and 30 landmarks of its
    /// sides within 5 cm below the rim, which have nothing above them and so count as flat: they lie inside the
    /// top's 5 cm inlier band on one side only. The weighted mean of the members lies about 7 mm low (a length
    /// measured on the top from 0.5 m above it 1.4 % long); the mode of their heights is the top's.
    @Test func sideLandmarksBelowARimDoNotPullTheTopDown() throws {
        var rng = SeededRandom(seed: 41)
        var lms: [MapLandmark] = []
        func add(_ p: Vec3) {
            lms.append(MapLandmark(id: lms.count, p_W: p, std_m: 0.02, weight: 1, observations: 1, firstSeen_ns: 0, lastSeen_ns: 0))
        }
        for _ in 0..<100 { add(Vec3(rng.uniform(0, 0.5), rng.uniform(0, 0.4), 0.35 + 0.004 * rng.gaussian())) }
        for i in 0..<30 {
            let along = rng.uniform(0, 0.4), z = rng.uniform(0.30, 0.34)
            add(i % 2 == 0 ? Vec3(0, along, z) : Vec3(0.5, along, z))
        }
        let detector = PlaneDetector()
        let top = try #require(detector.detect(lms).first { $0.alignment == .horizontal })
        #expect(abs(top.offset_m - 0.35) < 0.002, "top at \(top.offset_m) m")
        // Control: the sides are among its members, and their weighted mean is the biased height.
        let members = lms.filter { top.landmarkIds.contains($0.id) }
        #expect(members.filter { $0.p_W.z < 0.335 }.count >= 10)
        let mean = detector.offsetAndStd(members) { $0.z }.0
        #expect(mean < 0.345, "mean \(mean) m")
    }
}

@Suite struct SeparateTopsTests {
    /// A box top at 0.50 m and a lower one at 0.38 m 90 cm beside it (σ 4–5 cm: the inlier band is 10 cm, and the
    /// lower top's upper tail falls inside it), and a few stray landmarks at 0.5 m across a 6 × 5 m room. The
    /// component grid took its cell from the level's bounding box (30 m² over ~130 points: 0.7 m) and joined the two
    /// tops into one polygon over both; the component is now split where its pieces' heights differ, so the upper top's
    /// plane covers the upper top only.
    @Test func aLowerNoisyTopBesideATopIsNotPartOfItsPlane() throws {
        var rng = SeededRandom(seed: 23)
        var lms: [Landmark] = []
        func add(_ p: Vec3, _ s: Double) { lms.append(Landmark(id: lms.count, p_W: p + rng.gaussian3(s), std_m: s)) }
        for _ in 0..<60 { add(Vec3(rng.uniform(0, 0.6), rng.uniform(0, 0.6), 0.50), 0.04) }   // the upper top
        for _ in 0..<40 { add(Vec3(rng.uniform(1.5, 2.1), rng.uniform(0, 0.6), 0.38), 0.05) }  // the lower, noisier top
        for i in 0..<16 { add(Vec3(-3 + 2 * Double(i % 4), -2.5 + 5.0 / 3 * Double(i / 4), 0.5), 0.04) } // strays
        let detector = PlaneDetector()
        let tops = detector.detect(lms.map { MapLandmark(id: $0.id, p_W: $0.p_W, std_m: $0.std_m, weight: 1, observations: 1,
                                                         firstSeen_ns: 0, lastSeen_ns: 0) })
            .filter { $0.alignment == .horizontal }
        let upper = try #require(tops.first { abs($0.offset_m - 0.5) < 0.03 })
        let hull = PlaneGeometry2D.convexHull(upper.points.map { Vec2($0.x, $0.y) })
        // None of its landmarks is the lower top's, and its polygon does not cover the lower top's centre.
        #expect(!upper.points.contains { $0.x > 1.3 && $0.y > -0.2 && $0.y < 0.8 })
        #expect(!PlaneGeometry2D.convexContains(hull, Vec2(1.8, 0.3)))
    }

    /// Two table tops 13.5 cm apart in height, 5 m apart across the room, the higher one mapped 2.5 times as densely,
    /// and a floor (landmarks scattered 2 cm about their surfaces, reporting σ 4 cm on the lower top, 5 cm elsewhere):
    /// the inlier band is 12.5 cm, so each top's band reaches into the other's landmarks. Levels were refined by
    /// averaging their band three times, which walked both tops' levels into one at 0.85 m (mono V1_01 arrangement
    /// 107: table A's level onto table B's, after which table A's landmarks fell outside its gates and its plane
    /// followed a stray candidate 4 cm low). A mean shift keeps a level on its own mode; and smoothed at the median σ
    /// the lower top is only a shoulder of the higher one's peak, which the second smoothing, at half that σ, resolves.
    @Test func aTopWithAnotherTopInsideItsBandKeepsItsOwnLevel() throws {
        var rng = SeededRandom(seed: 107)
        var lms: [Landmark] = []
        func add(_ p: Vec3, _ s: Double) { lms.append(Landmark(id: lms.count, p_W: p + rng.gaussian3(0.02), std_m: s)) }
        for _ in 0..<250 { add(Vec3(rng.uniform(-3, -2.2), rng.uniform(0, 0.6), 0.90), 0.05) }   // the higher top
        for _ in 0..<100 { add(Vec3(rng.uniform(2, 3.2), rng.uniform(0, 0.8), 0.765), 0.04) }    // the lower top
        for _ in 0..<400 { add(Vec3(rng.uniform(-3.5, 3.5), rng.uniform(-2.5, 2.5), 0), 0.05) }  // the floor
        let map = lms.map { mapLandmark($0.id, $0.p_W, $0.std_m) }
        // One level per surface, each at its own height (the band's mean put one level at 0.85 m for both tops).
        let levels = PlaneDetector().horizontalLevels(map.map(DetectorPoint.init), band: 0.125).sorted()
        #expect(levels.count == 3)
        for (level, truth) in zip(levels, [0, 0.765, 0.90]) { #expect(abs(level - truth) < 0.01) }
        let tops = PlaneDetector().detect(map).filter { $0.alignment == .horizontal }
        let lower = try #require(tops.first { c in c.points.filter { $0.x > 1.5 }.count >= 50 && c.offset_m > 0.5 })
        #expect(abs(lower.offset_m - 0.765) < 0.01)
        #expect(!lower.points.contains { $0.x < 0 })
        let higher = try #require(tops.first { c in c.points.filter { $0.x < -1.5 }.count >= 50 && c.offset_m > 0.5 })
        #expect(abs(higher.offset_m - 0.90) < 0.01)
    }

    /// A box top (40 landmarks, σ 5 cm), two pairs of loose landmarks (σ 6 cm) at its height 1.6–1.9 m away, and
    /// stray single landmarks across a 6 × 5 m room: the level's coarse grid (its cell from the level's bounding box)
    /// joins the pairs to the top, and a pair's height (±4 cm standard error) agrees with anything, so the pieces were
    /// regrouped and the top's polygon covered the floor between them (the 30 s V1_01 render, mono: box C's plane
    /// 2.6 m² over a 0.2 m² top). Pieces that cannot resolve two levels now join a top only within a metre of it:
    /// a piece of three landmarks 80 cm from the top's edge (a sparse top's rim) still joins it.
    @Test func strayPairsAtATopsHeightDoNotStretchItsPolygon() throws {
        var rng = SeededRandom(seed: 31)
        var lms: [Landmark] = []
        func add(_ p: Vec3, _ s: Double) { lms.append(Landmark(id: lms.count, p_W: p + rng.gaussian3(s), std_m: s)) }
        for _ in 0..<40 { add(Vec3(rng.uniform(0, 0.5), rng.uniform(0, 0.4), 0.35), 0.05) }
        for c in [Vec3(2.2, 1.2, 0.35), Vec3(-1.4, 1.5, 0.35)] { add(c, 0.06); add(c + Vec3(0.1, 0.05, 0), 0.06) }
        // The rim piece: three landmarks 5 cm apart (noise in height only, so they stay neighbours), σ 4.5 cm: its
        // height is known to ±2.6 cm, too little to resolve two levels 6 cm apart.
        for d in [Vec3(0, 0, 0), Vec3(0.05, 0, 0), Vec3(0, 0.05, 0)] {
            lms.append(Landmark(id: lms.count, p_W: Vec3(1.3, 0.2, 0.35) + d + Vec3(0, 0, rng.gaussian() * 0.045), std_m: 0.045))
        }
        for i in 0..<16 { add(Vec3(-3 + 2 * Double(i % 4), -2.5 + 5.0 / 3 * Double(i / 4), 0.35), 0.04) } // strays
        let pts = lms.map { MapLandmark(id: $0.id, p_W: $0.p_W, std_m: $0.std_m, weight: 1, observations: 1,
                                        firstSeen_ns: 0, lastSeen_ns: 0) }
        let detector = PlaneDetector()
        // The situation: the coarse component that holds the top holds the far pairs too.
        let coarse = detector.components(pts, indices: Array(pts.indices), adaptive: true) { Vec2($0.x, $0.y) }
        let topComponent = try #require(coarse.first { $0.contains(0) })
        #expect(Set(40..<47).isSubset(of: Set(topComponent)))
        // The fix: the far pairs are not part of the top's candidate; the near one is.
        let top = try #require(detector.detect(pts).first { $0.alignment == .horizontal && abs($0.offset_m - 0.35) < 0.05 })
        let hull = PlaneGeometry2D.convexHull(top.points.map { Vec2($0.x, $0.y) })
        #expect(PlaneGeometry2D.area(hull) < 0.6, "\(PlaneGeometry2D.area(hull)) m²")
        #expect(!top.points.contains { $0.x > 1.8 || $0.x < -0.5 || $0.y > 0.8 }, "\(top.points.filter { $0.x > 1.8 || $0.x < -0.5 || $0.y > 0.8 })")
        #expect(top.points.contains { $0.x > 1.1 })
    }

    /// Control: two tops at one height 60 cm apart with the same strays stay what the grid makes of them (the height
    /// split leaves one surface's pieces together).
    @Test func twoTopsAtOneHeightAreSplitOnlyByTheGrid() throws {
        var rng = SeededRandom(seed: 23)
        var lms: [Landmark] = []
        func add(_ p: Vec3, _ s: Double) { lms.append(Landmark(id: lms.count, p_W: p + rng.gaussian3(s), std_m: s)) }
        for _ in 0..<60 { add(Vec3(rng.uniform(0, 0.6), rng.uniform(0, 0.6), 0.5), 0.01) }
        for _ in 0..<60 { add(Vec3(rng.uniform(1.2, 1.8), rng.uniform(0, 0.6), 0.5), 0.01) }
        for i in 0..<16 { add(Vec3(-3 + 2 * Double(i % 4), -2.5 + 5.0 / 3 * Double(i / 4), 0.5), 0.01) }
        let detector = PlaneDetector()
        let pts = lms.map { MapLandmark(id: $0.id, p_W: $0.p_W, std_m: $0.std_m, weight: 1, observations: 1, firstSeen_ns: 0, lastSeen_ns: 0) }
        let both = Array(0..<120)
        #expect(detector.splitByHeight(both, pts).count == 1)
    }
}

@Suite struct StackedSliceTests {
    @Test func wallSlicesAreNotHorizontalPlanesEvenWithoutWallDetection() throws {
        // Dense walls and no wall detection: every height band holds an L-shaped slice of the two walls with
        // enough landmarks for a plane. Stacked landmarks are left out of horizontal planes; floor and table remain.
        var options = WorldOptions()
        options.detector.detectVertical = false
        let (session, _) = runRoom(frames: 20, floor: 30, table: 8, wall: 60, session: WorldSession(options: options))
        let horizontal = session.planes.filter { $0.alignment == .horizontal }
        #expect(horizontal.count == 2, "\(horizontal.map { ($0.height_m, $0.area_m2) })")
        #expect(horizontal.contains { $0.classification == .floor } && horizontal.contains { $0.classification == .table })
        // With stacked landmarks kept, the slices do become planes (so the test above is meaningful).
        options.detector.ignoreStackedLandmarks = false
        let (loose, _) = runRoom(frames: 20, floor: 30, table: 8, wall: 60, session: WorldSession(options: options))
        #expect(loose.planes.filter { $0.alignment == .horizontal }.count > 2)
    }
}

@Suite struct PlaneRefinementTests {
    /// Landmarks on the wall x = -3 (y ∈ [-3, 3], z ∈ [0, 2.5]), turned by `yawDeg` about the wall's centre.
    static func wall(_ gen: inout RoomLandmarks, count: Int, yawDeg: Double) -> [Landmark] {
        let turn = SO3(angle: yawDeg * Double.pi / 180, axis: Vec3(0, 0, 1))
        return gen.points({ r in
            let p = Vec3(-3, r.uniform(-3, 3), r.uniform(0, 2.5))
            return Vec3(-3, 0, 0) + turn.act(p - Vec3(-3, 0, 0))
        }, count: count)
    }

    @Test func wallNormalFirstSeenFiveDegreesOffConvergesAndItsAnchorStaysPut() throws {
        let session = WorldSession()
        var gen = RoomLandmarks(seed: 5)
        // First sight: 30 landmarks on a wall estimate turned by 5° (a sparse, biased start).
        var f = session.process(frameInput(0, landmarks: Self.wall(&gen, count: 30, yawDeg: 5) + gen.batch(floor: 60, table: 0, wall: 0)))
        let first = try #require(session.planes.first { $0.alignment == .vertical })
        let angle0 = acos(min(1, abs(first.normal_W.dot(Vec3(1, 0, 0))))) * 180 / Double.pi
        #expect(angle0 > 3)
        // An anchor on that wall, 2 m from its centre along it.
        let eye = Vec3(0, 0, 1.5)
        let T_W_C = lookAt(eye: eye, target: Vec3(-3, 2, 1.2))
        let px = try #require(testCamera.model.project(T_W_C.inverse.act(Vec3(-3, 2, 1.2))))
        f = session.process(frameInput(1, landmarks: [], T_W_C: T_W_C))
        let hit = try #require(f.raycast(pixel: px, target: .existingPlaneGeometry).first { $0.planeId == first.id })
        let anchorId = f.addAnchor(at: hit).anchor.id
        // Then the true wall fills in.
        for i in 2...12 { _ = session.process(frameInput(i * 2, landmarks: Self.wall(&gen, count: 80, yawDeg: 0))) }
        let refined = try #require(session.planeTracker.plane(id: first.id))
        let angle = acos(min(1, abs(refined.normal_W.dot(Vec3(1, 0, 0))))) * 180 / Double.pi
        #expect(angle < 0.5, "wall normal still \(angle)° off")
        #expect(abs(refined.T_W_P.translation.x + 3) < 0.01)
        // The anchor moved onto the refined wall, straight across (not swung along it with the plane's frame).
        let a = try #require(session.userAnchor(id: anchorId))
        #expect(abs(refined.normal_W.dot(a.T_W_A.translation) - refined.offset_m) < 1e-9)
        let moved = a.T_W_A.translation - hit.position_W
        #expect(abs(moved.y) < 0.01 && abs(moved.z) < 1e-9, "anchor slid \(moved)")
    }

    /// A horizontal candidate at height `h` (1-σ `std`) over the grid points 0.2 m apart with x index in `columns`
    /// and y index 0–9 (10 points per column).
    static func top(height h: Double, columns: Range<Int>, std: Double = 0.002) -> PlaneCandidate {
        var points: [Vec3] = []
        for i in columns { for j in 0..<10 { points.append(Vec3(Double(i) * 0.2, Double(j) * 0.2, h)) } }
        return PlaneCandidate(alignment: .horizontal, normal_W: Vec3(0, 0, 1), offset_m: h, offsetStd_m: std,
                              points: points, band_m: 0.03)
    }

    /// A plane refined by a candidate holding only some of its landmarks (the others culled from the map) is blended
    /// with the plane as its largest support placed it, once: the same subset, applied pass after pass, must not walk
    /// the plane onto itself (before, each pass blended it with the plane the previous pass had already moved, so after
    /// n passes the culled landmarks' say had shrunk by (1 − subset/all)ⁿ).
    @Test func aSubsetAppliedEveryPassMovesThePlaneOnceByItsShare() throws {
        var tracker = PlaneTracker()
        let camera = Vec3(1, -2, 1.6)
        // 100 landmarks at 0.80 m; then only 30 of them are left in the map, re-estimated 4 cm higher (and less sure).
        _ = tracker.update(with: [Self.top(height: 0.80, columns: 0..<10)], at: 0, cameraPosition_W: camera)
        let id = try #require(tracker.planes.first).id
        let blended = (30 * 0.84 + 70 * 0.80) / 100
        for k in 1...30 {
            _ = tracker.update(with: [Self.top(height: 0.84, columns: 0..<3, std: 0.004)], at: TimestampNs(k) * 100_000_000,
                               cameraPosition_W: camera)
            let h = try #require(tracker.plane(id: id)).height_m
            #expect(abs(h - blended) < 1e-9, "pass \(k): the plane stands at \(h) m, the 30 left and the 70 culled at \(blended) m")
        }
        // The culled landmarks' σ keeps its share too.
        let p = try #require(tracker.plane(id: id))
        #expect(abs(p.offsetStd_m - (30 * 0.004 + 70 * 0.002) / 100) < 1e-12)
        #expect(p.pointCount == 100)
    }

    @Test func aCandidateHoldingAllTheLandmarksStillReplacesThePlane() throws {
        var tracker = PlaneTracker()
        let camera = Vec3(1, -2, 1.6)
        _ = tracker.update(with: [Self.top(height: 0.80, columns: 0..<10)], at: 0, cameraPosition_W: camera)
        let id = try #require(tracker.planes.first).id
        // A subset first, then all the landmarks re-estimated at 0.83 m: the plane is where they are …
        _ = tracker.update(with: [Self.top(height: 0.84, columns: 0..<3)], at: 100_000_000, cameraPosition_W: camera)
        _ = tracker.update(with: [Self.top(height: 0.83, columns: 0..<10)], at: 200_000_000, cameraPosition_W: camera)
        #expect(abs(try #require(tracker.plane(id: id)).height_m - 0.83) < 1e-9)
        // … and a later subset is blended with that estimate, not with the first one.
        _ = tracker.update(with: [Self.top(height: 0.85, columns: 0..<5)], at: 300_000_000, cameraPosition_W: camera)
        #expect(abs(try #require(tracker.plane(id: id)).height_m - (50 * 0.85 + 50 * 0.83) / 100) < 1e-9)
    }

    @Test func planeWhoseLandmarksAreGoneIsRemoved() throws {
        // A shelf at 0.4 m seen once; the floor seen throughout.
        let shelfSeen = try sessionWithAShelfSeenOnce()
        let session = shelfSeen.session, shelfPlane = shelfSeen.shelf
        var gen = shelfSeen.gen
        var removedAt: Int?
        for i in 1...100 {
            let f = session.process(frameInput(i, landmarks: gen.batch(floor: 20, table: 0, wall: 0)))
            if f.events.contains(where: { $0.change == .removed && $0.anchor.id == shelfPlane.id }) { removedAt = i; break }
        }
        // Its landmarks age out after 1 s (20 frames); it goes after `maxMissedPasses` (20) passes at 10 Hz more.
        let frame = try #require(removedAt)
        #expect(frame > 20 && frame < 70)
        #expect(session.planes.contains { $0.classification == .floor })
    }
}

/// A map landmark for the detector's tests (only the position and σ matter to it).
private func mapLandmark(_ id: Int, _ p: Vec3, _ s: Double) -> MapLandmark {
    MapLandmark(id: id, p_W: p, std_m: s, weight: 1, observations: 1, firstSeen_ns: 0, lastSeen_ns: 0)
}

@Suite struct RowOnAVerticalFaceTests {
    /// A box's front face seen face-on from 3 m (stereo, σ 5 cm, mostly along the line of sight): 16 of its points at
    /// one height (a texture row 18 cm up), spread in depth by their σ, made a 0.8 × 0.13 m "table" on V1_01's seed-3
    /// render for 6.6 s. Their horizontal positions resolve one dimension only, so the level is no top. Control: a real
    /// top as small and as noisy (0.35 × 0.3 m, the same σ), and the same row with the test off.
    @Test func aRowOfAFacesPointsAtOneHeightIsNoTop() throws {
        var rng = SeededRandom(seed: 7)
        // The room's floor, well mapped, so that the detector has its usual company.
        var floor: [MapLandmark] = []
        for i in 0..<200 { floor.append(mapLandmark(i, Vec3(rng.uniform(-2, 2), rng.uniform(-2, 2), 0.002 * rng.gaussian()), 0.01)) }
        // The row: along x on the face y = 1, 0.18 m up; the depth error is along y (the camera looks along y).
        var row: [MapLandmark] = []
        for i in 0..<16 {
            row.append(mapLandmark(1000 + i, Vec3(rng.uniform(-0.4, 0.4), 1 + 0.05 * rng.gaussian(), 0.18 + 0.004 * rng.gaussian()), 0.05))
        }
        // A real top of box size, the same σ (in every direction).
        var top: [MapLandmark] = []
        for i in 0..<16 {
            let p = Vec3(rng.uniform(-1.5, -1.15), rng.uniform(-1.5, -1.2), 0.35) + Vec3(0.04 * rng.gaussian(), 0.04 * rng.gaussian(), 0.004 * rng.gaussian())
            top.append(mapLandmark(2000 + i, p, 0.04))
        }
        let detector = PlaneDetector()
        #expect(detector.isRowOnAVerticalFace(row))
        #expect(!detector.isRowOnAVerticalFace(top))
        let levels = detector.detect(floor + row + top).filter { $0.alignment == .horizontal }
        #expect(!levels.contains { abs($0.offset_m - 0.18) < 0.05 }, "the row was taken for a top")
        #expect(levels.contains { abs($0.offset_m - 0.35) < 0.03 }, "the small noisy top was lost")
        var off = PlaneDetectorOptions()
        off.rejectRows = false
        let without = PlaneDetector(options: off).detect(floor + row + top).filter { $0.alignment == .horizontal }
        #expect(without.contains { abs($0.offset_m - 0.18) < 0.05 }, "control: without the test the row is a level: \(without.map(\.offset_m))")
    }
}

@Suite struct ImpreciseLevelTests {
    /// V1_01 arrangement 23, stereo, 56 s: 19 landmarks of box B's four sides and of the wall 1.3 m behind it, all 0.36–0.50 m
    /// up, with a median σ of 6.3 cm where the map's was 3.6 cm (inlier band ±9 cm). Each one's gate saturated at the band,
    /// no wall was mapped densely enough to claim them, and they made a 1.3 × 2.5 m "top" 0.43 m up, shown for 39 s where
    /// there is none: their heights filled 0.29–0.35 of the band about their tilted fit, under the usual 0.4. Members
    /// that much less precise than the band must concentrate as a surface's do (`impreciseMaxMedianGateResidual`).
    /// Controls: a real top whose points are as imprecise (σ 6 cm, mostly in depth) but lie on it stays, and with the
    /// stricter bound off the slice is back.
    @Test func aLevelOfPointsLessPreciseThanItsBandIsNoTop() throws {
        var rng = SeededRandom(seed: 23)
        // The floor, mapped as in stereo from 2–4 m: σ 3–4 cm, so the band is about ±9 cm.
        var floor: [MapLandmark] = []
        for i in 0..<300 { floor.append(mapLandmark(i, Vec3(rng.uniform(-3, 3), rng.uniform(-3, 3), 0.01 * rng.gaussian()), rng.uniform(0.03, 0.04))) }
        // The slice: points of vertical faces at 0.36–0.50 m over a 1.3 × 2.5 m area, σ 5.5–7 cm.
        var slice: [MapLandmark] = []
        for i in 0..<19 {
            slice.append(mapLandmark(1000 + i, Vec3(rng.uniform(-3.8, -2.5), rng.uniform(-2.6, -0.1), rng.uniform(0.37, 0.49)), rng.uniform(0.055, 0.07)))
        }
        // A real top 0.9 m up, 0.8 × 0.6 m, seen from afar: σ 5.5–7 cm as well, but its points lie on it.
        var top: [MapLandmark] = []
        for i in 0..<25 {
            top.append(mapLandmark(2000 + i, Vec3(rng.uniform(1, 1.8), rng.uniform(1, 1.6), 0.9 + 0.01 * rng.gaussian()), rng.uniform(0.055, 0.07)))
        }
        let all = floor + slice + top
        let levels = PlaneDetector().detect(all).filter { $0.alignment == .horizontal }
        #expect(!levels.contains { abs($0.offset_m - 0.43) < 0.06 }, "the slice was taken for a top: \(levels.map(\.offset_m))")
        #expect(levels.contains { abs($0.offset_m - 0.9) < 0.02 }, "the real top was lost: \(levels.map(\.offset_m))")
        #expect(levels.contains { abs($0.offset_m) < 0.02 }, "the floor was lost")
        var off = PlaneDetectorOptions()
        off.impreciseMaxMedianGateResidual = nil
        let without = PlaneDetector(options: off).detect(all).filter { $0.alignment == .horizontal }
        #expect(without.contains { abs($0.offset_m - 0.43) < 0.06 }, "control: without the test the slice is a level: \(without.map(\.offset_m))")
    }
}

@Suite struct FloorPatchTests {
    /// V1_01 courtyard 9, mono: 18 ground landmarks by the take-off spot, seen only in the take-off's seconds (σ
    /// 3.5–8 cm, median 6 cm), lay 5–7 cm above the floor's later level within ±1 cm of one another: lifted together
    /// by the take-off's short scale. No later landmark was made there, so they were a component of the floor's level
    /// of their own, at their own height, and were shown as a "table" over bare ground for 57 s. On the floor's level
    /// and within what their landmarks resolve of the floor's height (a share of their σ is common to all of them),
    /// they are the floor there (the rule asks no more: here they lie in a gap amid the floor, as on courtyard 9).
    /// Controls: with `commonErrorFraction` 0 the patch is a plane of its own again; tops at one level, a bench's 0.45 m
    /// and a fountain's 0.50 m with loose landmarks, keep their own heights (together they would be wrong).
    @Test func aLooseFloorPatchAmidTheFloorIsTheFloor() throws {
        var rng = SeededRandom(seed: 9)
        var points: [MapLandmark] = []
        // The floor over 8 × 8 m, mapped from a few metres (σ 2–3 cm), with no landmark in a 3.2 m square about
        // (1, 1): the take-off spot and its surroundings, not seen again.
        while points.count < 500 {
            let p = Vec3(rng.uniform(-4, 4), rng.uniform(-4, 4), 0.005 * rng.gaussian())
            if abs(p.x - 1) < 1.6 && abs(p.y - 1) < 1.6 { continue }
            points.append(mapLandmark(points.count, p, rng.uniform(0.02, 0.03)))
        }
        // The take-off's 18 ground landmarks, 5.5 cm up together.
        for _ in 0..<18 {
            points.append(mapLandmark(points.count, Vec3(rng.uniform(0.6, 1.4), rng.uniform(0.6, 1.4), 0.055 + 0.005 * rng.gaussian()),
                                      rng.uniform(0.045, 0.075)))
        }
        // Two tops at about one height, 1.5 m apart, mapped loosely (σ 4–6 cm): a bench and a fountain.
        for _ in 0..<30 { points.append(mapLandmark(points.count, Vec3(rng.uniform(-3.5, -2.5), rng.uniform(-3.2, -2.8), 0.45 + 0.005 * rng.gaussian()), rng.uniform(0.04, 0.06))) }
        for _ in 0..<40 { points.append(mapLandmark(points.count, Vec3(rng.uniform(-3.5, -2.5), rng.uniform(-2.2, -1.2), 0.50 + 0.005 * rng.gaussian()), rng.uniform(0.04, 0.06))) }

        let planes = PlaneDetector().detect(points).filter { $0.alignment == .horizontal }
        #expect(!planes.contains { abs($0.offset_m - 0.055) < 0.03 }, "the patch is a plane of its own: \(planes.map(\.offset_m))")
        let floor = try #require(planes.first { abs($0.offset_m) < 0.01 }, "the floor: \(planes.map(\.offset_m))")
        #expect((500..<518).filter { floor.landmarkIds.contains($0) }.count >= 15, "the patch's landmarks join the floor")
        #expect(planes.contains { abs($0.offset_m - 0.45) < 0.015 } && planes.contains { abs($0.offset_m - 0.50) < 0.015 },
                "the two tops keep their heights: \(planes.map(\.offset_m))")

        var off = PlaneDetectorOptions()
        off.commonErrorFraction = 0
        let without = PlaneDetector(options: off).detect(points).filter { $0.alignment == .horizontal }
        #expect(without.contains { abs($0.offset_m - 0.055) < 0.02 }, "control: the patch is a plane again: \(without.map(\.offset_m))")
    }
}

@Suite struct FaceAcrossTwoObjectsTests {
    /// Mono, seed-7 render of V1_01 at 20 s: the wall x = 4.2 m mapped over only 0.7 m of its length (14 landmarks,
    /// σ 4–8 cm, spread 20 cm in depth) and a table leg 1 m in front of it, 0.7 m from the wall (5 landmarks low
    /// down). The sparse map's coarse grid joined them, and a line through both, 25° from the wall, held every point
    /// within the 12 cm band: a "wall" that a floor tap's ray met 0.4 m short (−10.1 %). Split at their gap, the wall's
    /// piece has a line of its own that the leg is far off, so the face is the wall's piece alone. Control: with the
    /// split off, the turned face comes back.
    @Test func aWallAndATableLegInFrontOfItAreNoOneFace() throws {
        var rng = SeededRandom(seed: 3)
        var points: [MapLandmark] = []
        // The floor, mono-noisy like the rest (so the band is the map's, about 12 cm).
        for _ in 0..<150 {
            let s = rng.uniform(0.035, 0.06)
            points.append(mapLandmark(points.count, Vec3(rng.uniform(0, 3), rng.uniform(-1, 2), s * rng.gaussian()), s))
        }
        // The wall's piece: depth error along x (the camera looks at it from x ≈ 1 m).
        for _ in 0..<22 {
            let s = rng.uniform(0.04, 0.08)
            points.append(mapLandmark(points.count, Vec3(4.2 + s * rng.gaussian(), rng.uniform(0.15, 0.85), rng.uniform(0.2, 1.7)), s))
        }
        // The table leg: a post at (3.52, 1.8), its landmarks 0.15–0.45 m up.
        for _ in 0..<7 {
            let s = rng.uniform(0.045, 0.065)
            points.append(mapLandmark(points.count, Vec3(3.52 + 0.02 * rng.gaussian(), 1.8 + 0.02 * rng.gaussian(), rng.uniform(0.15, 0.45)), s))
        }
        // The piece the wall search's components gave: the wall's landmarks and the leg's, joined by a sparse map's
        // coarse grid.
        let piece = Array(150..<points.count)
        let xy = points.map { Vec2($0.p_W.x, $0.p_W.y) }
        func face(_ split: Bool) -> (normal: Vec3, members: [Int])? {
            var options = PlaneDetectorOptions()
            options.splitFacesAtGaps = split
            return PlaneDetector(options: options).refitFace(piece, xy: xy, landmarks: points, taken: [Bool](repeating: false, count: points.count), band: 0.12)
        }
        func turned(_ n: Vec3) -> Double { acos(min(1, abs(n.x))) * 180 / .pi }
        let with = try #require(face(true), "the wall's piece alone is a face")
        #expect(turned(with.normal) < 5, "a face turned \(turned(with.normal))° from the wall")
        #expect(with.members.allSatisfy { points[$0].p_W.x > 3.9 }, "the leg's landmarks are in the wall's face")
        #expect(with.members.count >= 20, "the wall's landmarks were lost: \(with.members.count)")
        let without = try #require(face(false))
        #expect(turned(without.normal) > 15, "control: without the split the face is not turned: \(turned(without.normal))°")
        #expect(without.members.contains { points[$0].p_W.x < 3.9 }, "control: without the split the leg is not in the face")
    }
}

@Suite struct FaceWithoutADirectionTests {
    /// A table leg's landmarks (a post, spread only by their σ of 5 cm) make a blob 0.6 m tall: any vertical line
    /// through it holds them, and on the real-IMU renders such "faces" on table legs stood 12–53° off every surface of
    /// the leg. Their own direction error (median σ over RMS length × √n, about 12° here, above the 8° limit) drops
    /// them, while a metre of wall mapped as noisily (about 2°) stays. Control: with the limit off (180°), the blob is a face.
    @Test func aTableLegsBlobIsNoFaceButAMetreOfWallIs() throws {
        var rng = SeededRandom(seed: 5)
        var points: [MapLandmark] = []
        for _ in 0..<150 {
            points.append(mapLandmark(points.count, Vec3(rng.uniform(-1, 2), rng.uniform(-1, 2), 0.05 * rng.gaussian()), 0.05))
        }
        // The leg: a post at (0.5, 0.5), 0.1–0.7 m up.
        for _ in 0..<24 {
            points.append(mapLandmark(points.count, Vec3(0.5 + 0.05 * rng.gaussian(), 0.5 + 0.05 * rng.gaussian(), rng.uniform(0.1, 0.7)), 0.05))
        }
        // A metre of the wall x = 3, mapped as noisily.
        for _ in 0..<24 {
            points.append(mapLandmark(points.count, Vec3(3 + 0.05 * rng.gaussian(), rng.uniform(0, 1), rng.uniform(0.2, 1.6)), 0.05))
        }
        func walls(_ limit: Double) -> [PlaneCandidate] {
            var options = PlaneDetectorOptions()
            options.maxFaceDirectionStd_deg = limit
            options.rejectSeenThrough = false
            return PlaneDetector(options: options).detect(points).filter { $0.alignment == .vertical }
        }
        func onLeg(_ c: PlaneCandidate) -> Bool { c.points.allSatisfy { $0.x < 1.5 } }
        let with = walls(PlaneDetectorOptions().maxFaceDirectionStd_deg)
        #expect(!with.contains(where: onLeg), "the leg's blob is a face")
        #expect(with.contains { !onLeg($0) && abs($0.normal_W.x) > 0.99 }, "the metre of wall was lost: \(with.map(\.normal_W))")
        #expect(walls(180).contains(where: onLeg), "control: without the limit the leg's blob is no face either")
    }
}

@Suite struct OneSidedHeightTests {
    /// A sparsely mapped top (15 landmarks at 0.45 m, σ 3 cm, heights scattered by 4 mm) whose two side faces hold
    /// more landmarks just under its rim (45, 3–9 cm below it, nothing above them; the faces' lower rows below them): the face's landmarks outnumber the
    /// top's three to one, as on the V1_01 courtyards' planters and benches in stereo. The mode of the members'
    /// heights lands between the two (the control); the one-sided fit keeps the top's.
    @Test func aSparseTopOverADenserFaceRowKeepsItsHeight() throws {
        var misses: [Double] = [], controls: [Double] = []
        for seed in UInt64(1)...5 {
            var rng = SeededRandom(seed: 100 + seed)
            var lms: [MapLandmark] = []
            func add(_ p: Vec3) {
                lms.append(MapLandmark(id: lms.count, p_W: p, std_m: 0.03, weight: 1, observations: 1, firstSeen_ns: 0, lastSeen_ns: 0))
            }
            for _ in 0..<15 { add(Vec3(rng.uniform(0, 0.5), rng.uniform(0, 0.4), 0.45 + 0.004 * rng.gaussian())) }
            for i in 0..<45 {
                let along = rng.uniform(0, 0.4), z = 0.45 - rng.uniform(0.03, 0.09)
                add(i % 2 == 0 ? Vec3(0, along, z) : Vec3(0.5, along, z))
            }
            // The faces' lower rows, down to the floor (inside vertical structure: no level's members).
            for i in 0..<60 {
                let along = rng.uniform(0, 0.4), z = rng.uniform(0.02, 0.36)
                add(i % 2 == 0 ? Vec3(0, along, z) : Vec3(0.5, along, z))
            }
            func topHeight(_ oneSided: Bool) throws -> Double {
                var options = PlaneDetectorOptions()
                options.oneSidedHeight = oneSided
                let top = try #require(PlaneDetector(options: options).detect(lms).first { $0.alignment == .horizontal })
                #expect(top.landmarkIds.count >= 40, "the face's landmarks are members")
                return top.offset_m
            }
            misses.append(try topHeight(true) - 0.45)
            controls.append(try topHeight(false) - 0.45)
        }
        #expect(misses.allSatisfy { abs($0) < 0.006 }, "one-sided fit: \(misses)")
        #expect(controls.allSatisfy { $0 < -0.015 }, "the mode alone: \(controls)")
    }

    /// The mirror image, where the side of the face comes from the landmarks' neighbours: a sparsely mapped floor
    /// (15 landmarks at 0, σ 3 cm, heights scattered by 4 mm) between two walls whose feet hold more landmarks just
    /// above it (45, 3–9 cm up, nothing below them) and whose higher rows stand above those (60, 14–48 cm up: inside
    /// vertical structure, no level's members). The feet's landmarks have landmarks straight above them, so the fit
    /// puts the face above the floor. The control has the same floor and feet without the walls' higher rows: the
    /// heights alone then cannot tell a floor under its walls' feet from a sparse clump at the feet's lower end under a
    /// top, and at least one draw takes the wrong side.
    @Test func aFloorUnderADenserRowOfWallFeetKeepsItsHeight() throws {
        var misses: [Double] = [], controls: [Double] = [], members: [Int] = []
        for seed in UInt64(1)...5 {
            var rng = SeededRandom(seed: 200 + seed)
            var floorAndFeet: [Vec3] = [], walls: [Vec3] = []
            for _ in 0..<15 { floorAndFeet.append(Vec3(rng.uniform(0, 0.5), rng.uniform(0, 0.4), 0.004 * rng.gaussian())) }
            for i in 0..<45 {
                let along = rng.uniform(0, 0.4), z = rng.uniform(0.03, 0.09)
                floorAndFeet.append(i % 2 == 0 ? Vec3(0, along, z) : Vec3(0.5, along, z))
            }
            for i in 0..<60 {
                let along = rng.uniform(0, 0.4), z = rng.uniform(0.14, 0.48)
                walls.append(i % 2 == 0 ? Vec3(0, along, z) : Vec3(0.5, along, z))
            }
            func floor(_ points: [Vec3]) throws -> PlaneCandidate {
                let lms = points.enumerated().map { i, p in
                    MapLandmark(id: i, p_W: p, std_m: 0.03, weight: 1, observations: 1, firstSeen_ns: 0, lastSeen_ns: 0)
                }
                return try #require(PlaneDetector().detect(lms).first { $0.alignment == .horizontal })
            }
            let withWalls = try floor(floorAndFeet + walls)
            misses.append(withWalls.offset_m)
            members.append(withWalls.landmarkIds.count)
            controls.append(try floor(floorAndFeet).offset_m)
        }
        #expect(misses.allSatisfy { abs($0) < 0.006 }, "the side from the neighbours: \(misses)")
        // A wall's landmarks may form a vertical plane that claims some of its feet; on most draws the feet stay
        // the floor's members and outnumber its own landmarks two to one.
        #expect(members.count { $0 >= 40 } >= 3, "the feet's landmarks are members: \(members)")
        #expect(controls.contains { abs($0) > 0.015 }, "the heights alone: \(controls)")
    }

    /// Heights of a surface alone come out at their centre (no face is invented), and a face on either side is told.
    @Test func theFitFindsTheSurfaceWithAFaceOnEitherSideOrNone() throws {
        var rng = SeededRandom(seed: 7)
        let fit = OneSidedHeightFit()
        let alone = (0..<200).map { _ in 0.005 * rng.gaussian() }
        let a = try #require(fit.fit(alone, start: 0.01, scatter: 0.01))
        #expect(abs(a.height) < 0.0015 && a.faceShare < 0.15, "\(a)")
        // A floor with the feet of walls and furniture just above it: 60 on the floor, 60 spread 2–8 cm up.
        let floor = (0..<60).map { _ in 0.005 * rng.gaussian() } + (0..<60).map { _ in rng.uniform(0.02, 0.08) }
        let f = try #require(fit.fit(floor, start: 0.03, scatter: 0.02))
        #expect(abs(f.height) < 0.003 && f.side == .above, "\(f)")
        // A top over its faces: 20 on it, 60 spread 3–9 cm under it.
        let top = (0..<20).map { _ in 0.004 * rng.gaussian() } + (0..<60).map { _ in -rng.uniform(0.03, 0.09) }
        let t = try #require(fit.fit(top, start: -0.04, scatter: 0.02))
        #expect(abs(t.height) < 0.004 && t.side == .below, "\(t)")
    }
}
