import Estimation
import Foundation
import Geometry
import Sensors
import Testing
@testable import World

@Suite struct RaycastTests {
    /// The pixel where a world point appears in the default view.
    func pixel(of p_W: Vec3, T_W_C: SE3 = defaultPose) throws -> Vec2 {
        try #require(testCamera.model.project(T_W_C.inverse.act(p_W)))
    }

    @Test func pixelThroughAKnownPointHitsItOnTheFloorAndTable() throws {
        let (_, frames) = runRoom()
        let f = try #require(frames.last)
        // Floor point in front of the table, and a point on the table top.
        for (truth, kind) in [(Vec3(0.2, -0.8, 0), PlaneClassification.floor), (Vec3(1.3, 0.1, 0.75), .table)] {
            let hit = try #require(f.raycast(pixel: try pixel(of: truth), target: .existingPlaneGeometry).first)
            // Within 1 cm: plane heights are within ~2 mm here and the rays are steep.
            #expect((hit.position_W - truth).norm < 0.01)
            #expect(f.planes.first { $0.id == hit.planeId }?.classification == kind)
            #expect(abs(hit.normal_W.z - 1) < 1e-9)
            #expect(abs(hit.distance_m - (truth - defaultPose.translation).norm) < 0.01)
        }
    }

    @Test func wallHitFromAPixel() throws {
        let (_, frames) = runRoom()
        let f = try #require(frames.last)
        let truth = Vec3(0.4, 3, 1.0) // on the far wall (y = 3)
        let hit = try #require(f.raycast(pixel: try pixel(of: truth), target: .existingPlaneGeometry).first)
        // Within 1 cm at 5 m range: the wall offset is within ~1 mm and the ray meets it at ~20° from the normal.
        #expect((hit.position_W - truth).norm < 0.01)
        #expect(hit.alignment == .vertical)
        #expect(f.planes.first { $0.id == hit.planeId }?.classification == .wall)
        // The hit's z axis is the wall normal, facing the camera (−y).
        #expect(hit.normal_W.dot(Vec3(0, -1, 0)) > cos(2 * Double.pi / 180))
        // A horizontal-only raycast goes past the wall to a horizontal plane's infinite extension instead.
        let horizontal = f.raycast(pixel: try pixel(of: truth), target: .existingPlaneInfinite, alignment: .horizontal)
        #expect(!horizontal.isEmpty)
        #expect(horizontal.allSatisfy { $0.alignment == .horizontal && $0.planeId != hit.planeId })
    }

    @Test func geometryTargetRespectsBoundaryWhileInfiniteDoesNot() throws {
        let (session, frames) = runRoom()
        let f = try #require(frames.last)
        let table = try #require(session.planes.first { $0.classification == .table })
        // Just beside the table at table height: outside its boundary, on the table's infinite plane.
        let beside = Vec3(0.3, 0, 0.75)
        let px = try pixel(of: beside)
        let geometry = f.raycast(pixel: px, target: .existingPlaneGeometry)
        #expect(!geometry.contains { $0.planeId == table.id })
        let infinite = f.raycast(pixel: px, target: .existingPlaneInfinite)
        let hit = try #require(infinite.first { $0.planeId == table.id })
        #expect((hit.position_W - beside).norm < 0.01)
        // Preferred order falls back from geometry to the floor beneath (first geometric hit along the ray).
        let pref = try #require(f.raycast(pixel: px))
        #expect(pref.target == .existingPlaneGeometry && pref.planeId != table.id)
        // Alignment filter: at a floor pixel the unfiltered raycast hits the floor; the vertical-only one drops it.
        let floorPixel = try pixel(of: Vec3(0.2, -0.8, 0))
        let unfiltered = f.raycast(pixel: floorPixel, target: .existingPlaneGeometry)
        #expect(unfiltered.contains { $0.alignment == .horizontal })
        #expect(f.raycast(pixel: floorPixel, target: .existingPlaneGeometry, alignment: .vertical)
            .allSatisfy { $0.alignment == .vertical })
    }

    @Test func estimatedPlaneFromLandmarksOnATiltedSurface() throws {
        // A ramp through (1, 1, 0.3) with normal tilted 20° about x; no detected planes, only landmarks.
        let n = SO3(angle: 20 * .pi / 180, axis: Vec3(1, 0, 0)).act(Vec3(0, 0, 1))
        let c = Vec3(1, 1, 0.3)
        let u = Vec3(1, 0, 0), v = n.cross(u)
        var rng = SeededRandom(seed: 9)
        var map = LandmarkMap()
        map.integrate((0..<300).map {
            Landmark(id: $0, p_W: c + rng.uniform(-1, 1) * u + rng.uniform(-1, 1) * v + rng.gaussian3(0.005), std_m: 0.005)
        }, at: 0)
        let eye = Vec3(0.6, -1, 1.6)
        let target = c + 0.2 * u - 0.1 * v
        let ray = WorldRay(origin_W: eye, direction_W: target - eye)
        let hit = try #require(Raycaster.hitEstimatedPlane(ray, map: map, alignment: .any))
        // 5 mm landmark noise, ~40 points: the fitted plane is within a few mm → hit within 1 cm.
        #expect((hit.position_W - target).norm < 0.01)
        // Normal within 3° of the truth and facing the camera.
        #expect(hit.normal_W.dot(n) > cos(3 * .pi / 180))
        #expect(hit.target == .estimatedPlane && hit.planeId == nil && hit.alignment == .any)
        // No landmarks near the ray: no estimated hit.
        #expect(Raycaster.hitEstimatedPlane(WorldRay(origin_W: eye, direction_W: Vec3(0, 0, 1)), map: map, alignment: .any) == nil)
        // Alignment filter rejects a 20° ramp as "horizontal".
        #expect(Raycaster.hitEstimatedPlane(ray, map: map, alignment: .horizontal) == nil)
    }

    @Test func estimatedPlaneThroughTheSession() throws {
        // Only a few floor landmarks near one spot: too few for a plane anchor but enough for a local fit.
        let session = WorldSession()
        var rng = SeededRandom(seed: 4)
        let spot = Vec3(0.5, 0.5, 0)
        let lms = (0..<12).map { Landmark(id: $0, p_W: spot + Vec3(rng.uniform(-0.1, 0.1), rng.uniform(-0.1, 0.1), 0) + rng.gaussian3(0.003), std_m: 0.003) }
        let f = session.process(frameInput(0, landmarks: lms))
        #expect(f.planes.isEmpty)
        let px = try pixel(of: spot)
        #expect(f.raycast(pixel: px, target: .existingPlaneInfinite).isEmpty)
        let hit = try #require(f.raycast(pixel: px))
        #expect(hit.target == .estimatedPlane)
        #expect((hit.position_W - spot).norm < 0.01)
        #expect(hit.alignment == .horizontal)
    }

    @Test func estimatedHitThatAgreesWithAPlaneSnapsOntoIt() throws {
        // Floor mapped over [0, 1]²; a small unconnected cluster of floor landmarks 1.5 m away (too few for a plane).
        let session = WorldSession()
        let lms = levelPatch(0...1, 0...1, z: 0, count: 80, firstId: 0, seed: 1) + levelPatch(2.4...2.6, 0.4...0.6, z: 0, count: 10, firstId: 100, seed: 2)
        _ = session.process(frameInput(0, landmarks: lms, T_W_C: lookAt(eye: Vec3(1.5, -1.5, 1.5), target: Vec3(2.5, 0.5, 0))))
        #expect(session.planes.count == 1)
        let floor = try #require(session.planes.first)
        let ray = WorldRay(origin_W: Vec3(1.5, -1.5, 1.5), direction_W: Vec3(2.5, 0.5, 0) - Vec3(1.5, -1.5, 1.5))
        let raw = try #require(session.raycast(ray, target: .estimatedPlane).first)
        let hit = try #require(session.raycast(ray, preferring: [.existingPlaneGeometry, .estimatedPlane, .existingPlaneInfinite]))
        // Snapped: on the floor plane itself (exact height), reported as that plane's infinite extension.
        #expect(hit.target == .existingPlaneInfinite && hit.planeId == floor.id)
        #expect(abs(hit.position_W.z - floor.height_m) < 1e-9)
        #expect((hit.position_W - Vec3(2.5, 0.5, 0)).norm < 0.03)
        #expect((raw.position_W - hit.position_W).norm < 0.1)
    }

    @Test func distanceOutsideAPlanesBoundaryIsMeasuredInItsPlane() {
        // A 1 m square table top at z = 0.75 centred at (2, 0): the distance is taken in the plane, after projection.
        let top = PlaneAnchor(restoring: "plane-1", alignment: .horizontal, classification: .table,
                              T_W_P: SE3(rotation: .identity, translation: Vec3(2, 0, 0.75)),
                              boundaryLocal: [Vec2(-0.5, -0.5), Vec2(0.5, -0.5), Vec2(0.5, 0.5), Vec2(-0.5, 0.5)],
                              offset_m: 0.75, offsetStd_m: 0.01, pointCount: 40, t_ns: 0)
        #expect(top.distanceOutsideBoundary(Vec3(2.2, 0.1, 0.3)) == 0)
        #expect(abs(top.distanceOutsideBoundary(Vec3(4.5, 0, 0.75)) - 2) < 1e-12)
        #expect(abs(top.distanceOutsideBoundary(Vec3(3.5, 1.5, 2)) - 2.squareRoot()) < 1e-12)
        let empty = PlaneAnchor(restoring: "plane-2", alignment: .horizontal, classification: .floor, T_W_P: .identity,
                                boundaryLocal: [], offset_m: 0, offsetStd_m: 0.01, pointCount: 0, t_ns: 0)
        #expect(empty.distanceOutsideBoundary(Vec3(0, 0, 0)) == .infinity)
    }

    @Test func anEstimateFarBeyondAPlanesMappedPartDoesNotSnapOntoIt() throws {
        // The courtyard's planter inset (docs/ACCURACY.md, "Twenty-sixth round"): an estimate that agrees with a
        // detected plane 5.6 m outside that plane's mapped polygon was snapped onto it. The snap now obeys the limit
        // the infinite fallback has always had (`maxInfiniteExtension_m`, 3 m). Floor mapped over [0, 1]²; a cluster
        // of 10 level landmarks (too few for a plane) 3.5–3.7 m beyond it, 2 cm above the floor's level.
        func hit(maxInfiniteExtension_m: Double) throws -> (RaycastResult, PlaneAnchor) {
            var options = WorldOptions()
            options.maxInfiniteExtension_m = maxInfiniteExtension_m
            let session = WorldSession(options: options)
            let cluster = levelPatch(4.5...4.7, 0.4...0.6, z: 0.02, count: 10, firstId: 100, seed: 2)
            _ = session.process(frameInput(0, landmarks: levelPatch(0...1, 0...1, z: 0, count: 80, firstId: 0, seed: 1) + cluster,
                                           T_W_C: lookAt(eye: Vec3(3, -1.5, 1.5), target: Vec3(4.6, 0.5, 0))))
            let floor = try #require(session.planes.first)
            #expect(session.planes.count == 1)
            let ray = WorldRay(origin_W: Vec3(3, -1.5, 1.5), direction_W: Vec3(4.6, 0.5, 0.02) - Vec3(3, -1.5, 1.5))
            return (try #require(session.raycast(ray, preferring: [.existingPlaneGeometry, .estimatedPlane, .existingPlaneInfinite])), floor)
        }
        // Beyond the limit: the estimate itself answers (level, so used at any incidence), at the cluster's level.
        let (kept, _) = try hit(maxInfiniteExtension_m: WorldOptions().maxInfiniteExtension_m)
        #expect(kept.target == .estimatedPlane)
        #expect(abs(kept.position_W.z - 0.02) < 0.01)
        // Control: with the limit beyond the cluster, the same estimate snaps onto the floor's extension.
        let (snapped, floor) = try hit(maxInfiniteExtension_m: 10)
        #expect(snapped.target == .existingPlaneInfinite && snapped.planeId == floor.id)
        #expect(abs(snapped.position_W.z - floor.height_m) < 1e-9)
    }

    @Test func anEstimateWhoseNormalIsUncertainSnapsWithinItsSigma() throws {
        // Floor mapped over [0, 1]²; 1.5 m away, 8 landmarks of the floor whose errors happen to tilt their fit 19°
        // (z = 0.35 (x − 2.5)) over a 0.4 × 0.3 m patch. Reported with σ 12 cm, the fit's normal is known to some
        // 25°, so it agrees with the floor; reported with σ 1 cm, the same tilt is real and it does not.
        func hit(std: Double, sigmas: Double = EstimatedPlaneOptions().snapAngleSigmas) throws -> (RaycastResult, RaycastResult, PlaneAnchor) {
            var options = WorldOptions()
            options.estimatedPlane.snapAngleSigmas = sigmas
            // The snap is what is tested: the unsnapped tilted fit, met obliquely, is kept whatever its incidence.
            options.estimatedPlane.maxStandaloneIncidence_deg = 90
            let session = WorldSession(options: options)
            var rng = SeededRandom(seed: 7)
            let cluster = (0..<8).map { i -> Landmark in
                let x = rng.uniform(2.3, 2.7), y = rng.uniform(0.35, 0.65)
                return Landmark(id: 100 + i, p_W: Vec3(x, y, 0.35 * (x - 2.5)), std_m: std)
            }
            _ = session.process(frameInput(0, landmarks: levelPatch(0...1, 0...1, z: 0, count: 80, firstId: 0, seed: 1) + cluster,
                                           T_W_C: lookAt(eye: Vec3(1.5, -1.5, 1.5), target: Vec3(2.5, 0.5, 0))))
            let floor = try #require(session.planes.first)
            let ray = WorldRay(origin_W: Vec3(1.5, -1.5, 1.5), direction_W: Vec3(2.5, 0.5, 0) - Vec3(1.5, -1.5, 1.5))
            let raw = try #require(session.raycast(ray, target: .estimatedPlane).first)
            let hit = try #require(session.raycast(ray, preferring: [.existingPlaneGeometry, .estimatedPlane]))
            return (raw, hit, floor)
        }
        let (raw, snapped, floor) = try hit(std: 0.12)
        let tilt = acos(abs(raw.normal_W.z)) * 180 / Double.pi
        #expect(tilt > 15 && tilt < 30, "the fit is tilted \(tilt)°")
        #expect(raw.normalStd_rad * 180 / Double.pi > 10)
        #expect(snapped.target == .existingPlaneInfinite && snapped.planeId == floor.id)
        // Controls: the 15° rule alone (no widening by the normal's σ) keeps the tilted estimate; so does a fit of
        // landmarks with σ 1 cm, whose normal is known to a few degrees.
        #expect(try hit(std: 0.12, sigmas: 0).1.target == .estimatedPlane)
        let (sharp, kept, _) = try hit(std: 0.01)
        #expect(sharp.normalStd_rad * 180 / Double.pi < 5)
        #expect(kept.target == .estimatedPlane)
    }

    @Test func aFitMetObliquelyBesideASilhouetteYieldsToTheFloorBehind() throws {
        // The courtyard's far floor taps (docs/ACCURACY.md, "Twenty-fifth round"): a ray passes 3 cm beside the
        // vertical edge of an object's face and meets the floor 1.2 m behind it. The floor is mapped up to x = 2; the
        // landmarks within 8° of the ray are the face's, so the fit is the face, met 55° from head-on, and its hit lies
        // on the face's plane just past the silhouette.
        func hit(maxStandaloneIncidence_deg: Double) throws -> RaycastResult {
            var options = WorldOptions()
            options.estimatedPlane.maxStandaloneIncidence_deg = maxStandaloneIncidence_deg
            let session = WorldSession(options: options)
            let eye = Vec3(0, 0, 1.5), floorPoint = Vec3(4, 0, 0)
            let edge = Vec3(2.8, 0.03, 0), along = Vec3(-0.79, 0.61, 0).normalized // the face runs away from the ray
            var rng = SeededRandom(seed: 21)
            // 12 landmarks: too few for the detector to make the face a plane of its own.
            let face = (0..<12).map { i in
                Landmark(id: 500 + i, p_W: edge + rng.uniform(0, 0.6) * along + Vec3(0, 0, rng.uniform(0, 0.8)) + rng.gaussian3(0.01),
                         std_m: 0.02)
            }
            _ = session.process(frameInput(0, landmarks: levelPatch(0...2, -1...1, z: 0, count: 120, firstId: 0, seed: 5) + face,
                                           T_W_C: lookAt(eye: eye, target: floorPoint)))
            #expect(session.planes.contains { abs($0.height_m) < 0.02 })
            let ray = WorldRay(origin_W: eye, direction_W: floorPoint - eye)
            let raw = try #require(session.raycast(ray, target: .estimatedPlane).first)
            let incidence = acos(raw.incidenceCosine) * 180 / Double.pi
            #expect(incidence > 50 && incidence < 60, "the face's fit is met \(incidence)° from head-on")
            #expect(raw.distance_m < 0.8 * (floorPoint - eye).norm)
            return try #require(session.raycast(ray, preferring: [.existingPlaneGeometry, .estimatedPlane, .existingPlaneInfinite]))
        }
        let floorHit = try hit(maxStandaloneIncidence_deg: EstimatedPlaneOptions().maxStandaloneIncidence_deg)
        #expect(floorHit.target == .existingPlaneInfinite && (floorHit.position_W - Vec3(4, 0, 0)).norm < 0.05)
        // Control: with the fit used whatever its incidence, the tap lands on the face's plane, 1.2 m short.
        let faceHit = try hit(maxStandaloneIncidence_deg: 90)
        #expect(faceHit.target == .estimatedPlane && (faceHit.position_W - Vec3(4, 0, 0)).norm > 1)
    }

    @Test func infiniteFallbackPrefersTheLargePlaneFarFromEveryMappedPart() throws {
        // Floor mapped at x ∈ [-3, -0.5] (5 m²), a small table top at z = 0.75 (0.25 m²); a ray to the floor at x = 2
        // crosses the table's extension first (0.5 m beyond the table), 2.5 m beyond the mapped floor, with no
        // landmarks near either hit.
        let session = WorldSession()
        let lms = levelPatch(-3 ... -0.5, -1...1, z: 0, count: 100, firstId: 0, seed: 3) + levelPatch(-0.5...0.0, 0...0.5, z: 0.75, count: 40, firstId: 200, seed: 4)
        _ = session.process(frameInput(0, landmarks: lms))
        let floor = try #require(session.planes.first { abs($0.height_m) < 0.02 })
        let ray = WorldRay(origin_W: Vec3(-1, 0.25, 1.5), direction_W: Vec3(2, 0.25, 0) - Vec3(-1, 0.25, 1.5))
        // The nearest infinite hit is the table's extension …
        #expect(session.raycast(ray, target: .existingPlaneInfinite).first?.planeId != floor.id)
        // … but the preferred fallback is the floor.
        let hit = try #require(session.raycast(ray, preferring: [.existingPlaneGeometry, .estimatedPlane, .existingPlaneInfinite]))
        #expect(hit.planeId == floor.id && (hit.position_W - Vec3(2, 0.25, 0)).norm < 0.05)
        // A floor hit more than 3 m beyond the mapped floor is not used as a fallback at all.
        let far = WorldRay(origin_W: Vec3(3, 0.25, 1.5), direction_W: Vec3(4, 0.25, -1.5))
        #expect(session.raycast(far, target: .existingPlaneInfinite).contains { $0.planeId == floor.id })
        #expect(session.raycast(far, preferring: [.existingPlaneInfinite]) == nil)
    }

    @Test func hitOrientationHasZAlongTheNormal() {
        for n in [Vec3(0, 0, 1), Vec3(1, 0, 0), Vec3(0.3, -0.4, 0.5).normalized] {
            let R = Raycaster.surfaceRotation(normal: n).matrix
            #expect((R.column(2) - n).norm < 1e-9)
            #expect(abs(R.determinant - 1) < 1e-9)
        }
    }
}

@Suite struct AnchorTests {
    @Test func userAnchorFollowsPlaneRefinementWithoutSliding() throws {
        // The table's first landmarks are biased 3 cm high; later unbiased ones pull the plane down to truth.
        let session = WorldSession()
        var gen = RoomLandmarks(seed: 21)
        var biased = gen.points(Room.tablePoint, count: 20).map { Landmark(id: $0.id, p_W: $0.p_W + Vec3(0, 0, 0.03), std_m: $0.std_m) }
        biased += gen.batch(floor: 60, table: 0, wall: 0)
        var f = session.process(frameInput(0, landmarks: biased))
        let table = try #require(session.planes.first { abs($0.height_m - 0.78) < 0.015 })
        let target = Vec3(1.0, 0.1, 0.75)
        let px = try #require(testCamera.model.project(defaultPose.inverse.act(target)))
        let hit = try #require(f.raycast(pixel: px, target: .existingPlaneGeometry).first)
        #expect(hit.planeId == table.id)
        let added = f.addAnchor(at: hit, name: "cup")
        #expect(added.change == .added && added.anchor.kind == .user)
        let anchorId = added.anchor.id
        let xy0 = Vec2(hit.position_W.x, hit.position_W.y)
        var updates: [AnchorEvent] = []
        for i in 1...20 {
            f = session.process(frameInput(i * 2, landmarks: gen.batch(floor: 20, table: 15, wall: 0)))
            updates += f.events.filter { $0.anchor.id == anchorId }
        }
        let a = try #require(session.userAnchor(id: anchorId))
        let plane = try #require(session.planeTracker.plane(id: table.id))
        #expect(abs(plane.height_m - 0.75) < 0.01)
        // The anchor sits on the refined plane (same height) and has not slid sideways (< 1 mm).
        #expect(abs(a.T_W_A.translation.z - plane.height_m) < 1e-9)
        #expect((Vec2(a.T_W_A.translation.x, a.T_W_A.translation.y) - xy0).norm < 1e-3)
        #expect(updates.contains { $0.change == .updated })
        // It is reported in view in every frame that sees it.
        #expect(f.anchorsInView.contains { $0.id == anchorId && $0.kind == .user })
        // Looking away (camera turned to face -y), the anchor is not in view.
        let away = session.process(frameInput(50, landmarks: [], T_W_C: lookAt(eye: Vec3(1.1, -2, 1.5), target: Vec3(1.1, -4, 1.5))))
        #expect(!away.anchorsInView.contains { $0.id == anchorId })
    }

    @Test func anchorReattachesWhenItsPlaneIsMerged() throws {
        let session = WorldSession()
        var strips = RoomLandmarks(seed: 13)
        func patch(_ x: ClosedRange<Double>, _ n: Int) -> [Landmark] { strips.floorStrip(x: x, count: n) }
        _ = session.process(frameInput(0, landmarks: patch(0...1, 60) + patch(2...3, 60)))
        let second = try #require(session.planes.first { $0.id == "plane-2" })
        session.addAnchor(T_W_A: SE3(translation: Vec3(2.5, 0.5, second.height_m)), planeId: second.id, t_ns: 0)
        for i in 1...4 { _ = session.process(frameInput(i * 2, landmarks: patch(1...2, 40))) }
        let a = try #require(session.userAnchors.first)
        #expect(session.planes.count == 1)
        #expect(a.planeId == "plane-1")
        #expect(abs(a.T_W_A.translation.z - session.planes[0].height_m) < 1e-9)
        #expect(abs(a.T_W_A.translation.x - 2.5) < 1e-9)
    }
}
