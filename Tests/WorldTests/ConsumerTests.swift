import Estimation
import Foundation
import Geometry
import Imaging
import Sensors
import Testing
import TestSupport
@testable import Consumers
@testable import World

/// Feeds the room through a `WorldStream` (no writer) and returns all records.
func streamRoom(consumers: [any FrameConsumer], frames: Int = 30, images: Bool = false,
                normalFrom: Int = 0, pose: (Int) -> SE3 = { _ in defaultPose }) throws -> [any StreamRecord] {
    let stream = WorldStream(consumers: consumers, writer: nil)
    var gen = RoomLandmarks(seed: 1)
    var out: [any StreamRecord] = []
    for i in 0..<frames {
        out += try stream.process(frameInput(i, landmarks: gen.batch(floor: 40, table: 10, wall: 15), normal: i >= normalFrom,
                                             T_W_C: pose(i), image: images))
    }
    return out + (try stream.finish())
}

func pixel(_ p_W: Vec3, _ T_W_C: SE3 = defaultPose) throws -> [Double] {
    let px = try #require(testCamera.model.project(T_W_C.inverse.act(p_W)))
    return [px.x, px.y]
}

@Suite struct MeasureConsumerTests {
    @Test func knownTapsGiveLengthsWithin2Percent() throws {
        let dir = try TemporaryDirectory()
        // Floor: an L of 1.0 m then 0.6 m; table: a 0.8 m diagonal-free edge-parallel segment.
        let floorPts = [Vec3(0.0, -0.8, 0), Vec3(1.0, -0.8, 0), Vec3(1.0, -0.2, 0)]
        let tablePts = [Vec3(0.7, -0.3, 0.75), Vec3(1.5, -0.3, 0.75)]
        let taps: [[String: Any]] = [
            ["t_s": 1.0, "pixels": try floorPts.map { try pixel($0) }, "label": "floor-L"],
            ["t_ns": 1_000_000_000 + 20 * 50_000_000 + 10_000_000, "pixels": try tablePts.map { try pixel($0) }],
            ["t_s": 0.05, "pixels": try tablePts.map { try pixel($0) }, "label": "too-early"],
        ]
        let path = dir.path("taps.json")
        try JSONSerialization.data(withJSONObject: taps).write(to: URL(fileURLWithPath: path))
        let consumer = try ConsumerFactory.make("measure:taps=\(path)")
        // Tracking becomes normal at frame 2 (t = 0.1 s): the 0.05 s tap falls before it.
        let records = try streamRoom(consumers: [consumer], normalFrom: 2)
        let m = records.compactMap { $0 as? MeasurementRecord }
        #expect(m.count == 3)
        let early = try #require(m.first { $0.label == "too-early" })
        #expect(early.status == "failed" && early.reason?.contains("tracking not normal") == true)
        let l = try #require(m.first { $0.label == "floor-L" })
        #expect(l.status == "ok")
        #expect(l.t_ns == 2_000_000_000) // the frame at exactly 1.0 s after the first
        // Lengths within 2 %: the floor plane sits within millimetres of z = 0 here, so the taps land on it.
        #expect(l.segments.count == 2)
        #expect(abs(l.segments[0] - 1.0) / 1.0 < 0.02 && abs(l.segments[1] - 0.6) / 0.6 < 0.02)
        #expect(abs(try #require(l.total) - 1.6) / 1.6 < 0.02)
        #expect(l.points.allSatisfy { $0.target == "existingPlaneGeometry" && $0.plane_id == "plane-1" })
        // The uncertainty is positive and meaningful (under 3 % of the length) yet covers the actual error.
        let s = try #require(l.total_std)
        #expect(s > 0 && s < 0.03 * 1.6)
        let t = try #require(m.first { $0.label == nil })
        // Nearest frame to 1.01 s after the first is the one at 1.0 s (not 1.05 s).
        #expect(t.t_ns == 2_000_000_000 && t.tap_t_ns == 2_010_000_000)
        #expect(abs(t.segments[0] - 0.8) / 0.8 < 0.02)
        #expect(t.points.allSatisfy { abs($0.position[2] - 0.75) < 0.02 })
        print("measure: floor L \(l.segments) ± \(s), table \(t.segments) ± \(t.total_std ?? -1)")
    }

    @Test func rimTapsLandOnATableWhoseLandmarksStopShortOfItsRim() throws {
        // The table's landmarks only cover x ∈ [0.54, 1.66], y ∈ [-0.36, 0.36]: its hull stops 4 cm inside the rim
        // and cuts the corners: the far corners are 14 cm outside it.
        let session = WorldSession()
        var gen = RoomLandmarks(seed: 3)
        var frame: WorldFrame?
        for i in 0..<20 {
            let top = gen.points({ r in Vec3(r.uniform(0.54, 1.66), r.uniform(-0.36, 0.36), Room.tableZ) }, count: 15)
            frame = session.process(frameInput(i, landmarks: gen.batch(floor: 40, table: 0, wall: 0) + top))
        }
        let f = try #require(frame)
        func tap(_ a: Vec3, _ b: Vec3) throws -> MeasureTap {
            MeasureTap(time: .absolute(f.t_ns), pixels: try [a, b].map { let p = try pixel($0); return Vec2(p[0], p[1]) })
        }
        // Two taps on the far rim, 0.6 m apart, 4 cm outside the hull: the raycast's edge margin puts them on the
        // table, and the table's landmarks along their rays confirm it.
        let rim = try tap(Vec3(0.8, 0.4, Room.tableZ), Vec3(1.4, 0.4, Room.tableZ))
        let onRim = MeasureConsumer(taps: [rim]).measure(rim, tapTime: f.t_ns, on: f)
        print("rim taps on the table: \(onRim.status) \(onRim.reason ?? "") \(onRim.total ?? 0) ± \(onRim.total_std ?? 0)")
        #expect(onRim.status == "ok" && abs((onRim.total ?? 0) - 0.6) < 0.02)
        #expect(onRim.points.allSatisfy { abs($0.position[2] - Room.tableZ) < 0.01 })
        // Without the edge margin both taps fall through to the floor behind the table.
        let strict = MeasureConsumer(taps: [rim], edgeTolerance_m: 0).measure(rim, tapTime: f.t_ns, on: f)
        #expect(strict.points.allSatisfy { abs($0.position[2]) < 0.01 })
        // The two far corners, 14 cm outside the hull: only the floor's points lie along their rays, 2–3 m behind the
        // table's level, which is what a ray passing beside a top looks like (`TapPointChecker`: the margin beside a
        // top), so the tap fails with that reason rather than guess.
        let corners = try tap(Vec3(0.5, 0.4, Room.tableZ), Vec3(1.7, 0.4, Room.tableZ))
        let onCorners = MeasureConsumer(taps: [corners]).measure(corners, tapTime: f.t_ns, on: f)
        #expect(onCorners.status == "failed" && (onCorners.reason ?? "").contains("beside a mapped edge"), "\(onCorners.reason ?? "")")
    }

    @Test func uncertaintyFollowsTheDocumentedModel() throws {
        let (session, frames) = runRoom()
        let frame = try #require(frames.last)
        let floor = try #require(session.planes.first { $0.classification == .floor })
        let a = Vec3(0.0, -0.8, 0), b = Vec3(1.0, -0.8, 0)
        let pa = try #require(testCamera.model.project(defaultPose.inverse.act(a)))
        let pb = try #require(testCamera.model.project(defaultPose.inverse.act(b)))
        let tap = MeasureTap(time: .absolute(frame.t_ns), pixels: [pa, pb])
        // Pose σ only (no tap noise): both ends on one plane, so σ = L·√(σ_s² + σ_p²)/H with H the camera height above
        // it and σ_s the plane's σ: its offset σ, but not below its landmarks' typical σ (inlier band / 2.5).
        let m = MeasureConsumer(taps: [], poseStd_m: 0.02, pixelStd: 0).measure(tap, tapTime: frame.t_ns, on: frame)
        let L = try #require(m.total), H = defaultPose.translation.z - floor.height_m
        let sigmaS = max(floor.offsetStd_m, floor.inlierBand_m / 2.5)
        let expected = L * (sigmaS * sigmaS + 0.02 * 0.02).squareRoot() / H
        #expect(abs(try #require(m.total_std) - expected) < 1e-9)
        // Tap noise adds in quadrature: 1 px at ~2.3 m with f = 400 px is ~6 mm per end.
        let withTap = MeasureConsumer(taps: [], poseStd_m: 0.02, pixelStd: 1).measure(tap, tapTime: frame.t_ns, on: frame)
        #expect(try #require(withTap.total_std) > expected + 0.001)

        // A length whose 1-σ exceeds `maxRelativeStd` of it fails as too uncertain, keeping its total and σ.
        let relative = expected / L
        try #require(relative > 0.01)   // about 1.5 % here
        let strict = MeasureConsumer(taps: [], poseStd_m: 0.02, pixelStd: 0)
        strict.maxRelativeStd = 0.0075
        let refused = strict.measure(tap, tapTime: frame.t_ns, on: frame)
        #expect(refused.status == "failed")
        // The limit is printed as set, not rounded to a whole per cent.
        #expect(refused.reason == String(format: "too uncertain: ±%.3f m (1 σ) on %.3f m, more than 0.75 %%", expected, L))
        #expect(refused.total == m.total && refused.total_std == m.total_std)
        strict.maxRelativeStd = relative * 1.01
        #expect(strict.measure(tap, tapTime: frame.t_ns, on: frame).status == "ok")
        #expect(m.status == "ok" && relative < 0.25)
    }

    @Test func twoEstimatedPlanesAreTwoSurfacesInTheSigma() throws {
        // Two patches of floor landmarks, and no detected plane: each tapped end is met on its own estimated plane, both
        // level. Each end then moves along its ray by √(σ_s² + σ_p²)/c, projected on the segment; the one-surface term
        // L·σ_H/H (a detected plane's) does not apply, however parallel the two fits.
        let a = Vec3(0.8, 0.3, 0), b = Vec3(1.5, 0.9, 0)
        var rng = SeededRandom(seed: 4)
        var id = 0
        func patch(_ c: Vec3) -> [Landmark] {
            (0..<25).map { _ in
                defer { id += 1 }
                return Landmark(id: id, p_W: c + Vec3(rng.uniform(-0.12, 0.12), rng.uniform(-0.12, 0.12), 0.005 * rng.gaussian()), std_m: 0.005)
            }
        }
        var options = WorldOptions()
        options.detector.minPoints = 1000   // no plane: the world has only estimates
        let frame = WorldSession(options: options).process(frameInput(0, landmarks: patch(a) + patch(b)))
        #expect(frame.planes.isEmpty)
        let pixels = try [a, b].map { try #require(testCamera.model.project(defaultPose.inverse.act($0))) }
        let consumer = MeasureConsumer(taps: [], poseStd_m: 0.02, pixelStd: 0)
        let m = consumer.measure(MeasureTap(time: .absolute(frame.t_ns), pixels: pixels), tapTime: frame.t_ns, on: frame)
        #expect(m.status == "ok", "\(m.reason ?? "")")
        #expect(m.points.allSatisfy { $0.target == "estimatedPlane" })
        // The model, from the same hits and the checker's σ for each.
        var ends: [(RaycastResult, WorldRay)] = []
        for px in pixels {
            let ray = try #require(frame.ray(pixel: px))
            var hit = try #require(frame.raycast(pixel: px, horizontalGeometryMargin_m: consumer.edgeTolerance_m))
            guard case let .confirmed(sigma, _) = consumer.checker.check(hit, ray: ray, pixel: px, frame: frame, raycast: { frame.raycast(pixel: $0) })
            else { Issue.record("an end failed its checks"); return }
            hit.surfaceStd_m = max(hit.surfaceStd_m, sigma)
            ends.append((hit, ray))
        }
        #expect(ends[0].0.normal_W.dot(ends[1].0.normal_W) > 0.98)
        let u = (ends[1].0.position_W - ends[0].0.position_W).normalized
        let expected = ends.map { h, r in
            pow(abs(u.dot(r.direction_W)) * (h.surfaceStd_m * h.surfaceStd_m + 0.02 * 0.02).squareRoot() / max(h.incidenceCosine, 0.1), 2)
        }.reduce(0, +).squareRoot()
        #expect(abs(try #require(m.total_std) - expected) < 1e-9, "σ \(m.total_std ?? 0) m, the model's \(expected) m")
    }

    @Test func tapAfterTheLastFrameUsesItOrFails() throws {
        let c = MeasureConsumer(taps: [MeasureTap(time: .relativeSeconds(1.6), pixels: [Vec2(300, 400), Vec2(340, 400)]),
                                       MeasureTap(time: .relativeSeconds(30), pixels: [Vec2(300, 400), Vec2(340, 400)])])
        let m = try streamRoom(consumers: [c]).compactMap { $0 as? MeasurementRecord }
        #expect(m.count == 2)
        #expect(m[0].status == "ok" && m[0].t_ns == 1_000_000_000 + 29 * 50_000_000)
        #expect(m[1].status == "failed" && m[1].reason?.hasPrefix("no frame within") == true)
    }
}

@Suite struct CursorConsumerTests {
    @Test func statesGoFromNoneToEstimatedToOnPlane() throws {
        let session = WorldSession()
        let cursor = try #require(try ConsumerFactory.make("cursor:place=0.1") as? CursorConsumer)
        let stream = WorldStream(session: session, consumers: [cursor], writer: nil)
        // Frame 0: nothing known → none.
        var r = try stream.process(frameInput(0, landmarks: []))
        #expect((r.compactMap { $0 as? CursorRecord }.first)?.state == "none")
        // Frame 1: a few landmarks around where the centre ray meets the floor → estimated (no plane yet).
        let centre = Vec3(1.1, 1.0, 0)
        var rng = SeededRandom(seed: 2)
        let few = (0..<10).map { Landmark(id: $0, p_W: centre + Vec3(rng.uniform(-0.15, 0.15), rng.uniform(-0.15, 0.15), 0), std_m: 0.005) }
        r = try stream.process(frameInput(1, landmarks: few))
        let est = try #require(r.compactMap { $0 as? CursorRecord }.first)
        #expect(est.state == "estimated" && est.target == "estimatedPlane" && est.plane_id == nil)
        #expect(try #require(est.position).enumerated().allSatisfy { abs($0.element - [centre.x, centre.y, centre.z][$0.offset]) < 0.02 })
        // No hit was possible at frame 0, so the anchor is placed at the first frame with a hit at/after 0.1 s.
        #expect(!r.contains { $0 is AnchorEventRecord })
        // Frames 2…: the room → on the floor plane; the anchor is placed at frame 2 (t = 0.1 s).
        var gen = RoomLandmarks(seed: 1)
        var placed: [AnchorEventRecord] = []
        var last: [any StreamRecord] = []
        for i in 2..<12 {
            last = try stream.process(frameInput(i, landmarks: gen.batch(floor: 40, table: 10, wall: 15)))
            placed += last.compactMap { $0 as? AnchorEventRecord }.filter { $0.kind == "user" && $0.type == "anchor.added" }
        }
        let on = try #require(last.compactMap { $0 as? CursorRecord }.first)
        #expect(on.state == "onPlane" && on.plane_id == "plane-1" && on.target == "existingPlaneGeometry")
        #expect(abs(try #require(on.position)[2]) < 0.02)
        #expect(placed.count == 1)
        #expect(cursor.placedAnchorIds == [placed[0].id])
        // The placed anchor is reported in view in the frame record.
        let frame = try #require(last.compactMap { $0 as? FrameRecord }.first)
        #expect(frame.anchors.contains { $0.id == placed[0].id && $0.kind == "user" })
    }

    @Test func placeTimesThatGetNoAnchorAreOneWarningAtTheEnd() throws {
        // Frames at 0, 0.05, …, 0.45 s: 0.1 s is placed, 20 s and 30 s are past the last frame.
        let cursor = try #require(try ConsumerFactory.make("cursor:place=30,0.1,20") as? CursorConsumer)
        let stream = WorldStream(consumers: [cursor], writer: nil)
        var gen = RoomLandmarks(seed: 1)
        for i in 0..<10 { try stream.process(frameInput(i, landmarks: gen.batch(floor: 40, table: 10, wall: 15))) }
        try stream.finish()
        #expect(cursor.placedAnchorIds.count == 1)
        #expect(cursor.finishWarnings == ["cursor: no anchor placed for place=20.00 s, 30.00 s: past the last frame (0.45 s) (times after the first frame)"])

        // A place time inside the data with nothing hit from then on, next to one past the end.
        let blind = try #require(try ConsumerFactory.make("cursor:place=0.2,9") as? CursorConsumer)
        let empty = WorldStream(consumers: [blind], writer: nil)
        for i in 0..<10 { try empty.process(frameInput(i, landmarks: [])) }
        try empty.finish()
        #expect(blind.placedAnchorIds.isEmpty)
        #expect(blind.finishWarnings == ["cursor: no anchor placed for place=9.00 s: past the last frame (0.45 s); place=0.20 s: no surface hit at the image centre from then to the last frame (times after the first frame)"])

        // Every place time placed, or none asked for: no warning.
        let placedAll = try #require(try ConsumerFactory.make("cursor:place=0.1") as? CursorConsumer)
        let none = CursorConsumer()
        let both = WorldStream(consumers: [placedAll, none], writer: nil)
        var room = RoomLandmarks(seed: 1)
        for i in 0..<10 { try both.process(frameInput(i, landmarks: room.batch(floor: 40, table: 10, wall: 15))) }
        try both.finish()
        #expect(placedAll.placedAnchorIds.count == 1 && placedAll.finishWarnings.isEmpty && none.finishWarnings.isEmpty)
    }
}

@Suite struct BurstConsumerTests {
    @Test func writesExactlyCountImagesAndSidecarsMatchingTheFrames() throws {
        let dir = try TemporaryDirectory()
        let out = dir.path("burst")
        let consumer = try ConsumerFactory.make("burst:every=3,count=4,start=0.2,out=\(out)")
        let poses = (0..<30).map { i in lookAt(eye: Vec3(1.1 + 0.01 * Double(i), -2, 1.5), target: Vec3(1.1, 0, 0.5)) }
        let records = try streamRoom(consumers: [consumer], images: true, pose: { poses[$0] })
        let captured = records.compactMap { $0 as? BurstCapturedRecord }
        // Start 0.2 s after the first frame = frame 4; every 3rd frame: 4, 7, 10, 13.
        #expect(captured.map(\.t_ns) == [4, 7, 10, 13].map { 1_000_000_000 + TimestampNs($0) * 50_000_000 })
        #expect(captured.map(\.index) == [0, 1, 2, 3] && captured.allSatisfy { $0.burst == 0 })
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(files.filter { $0.hasSuffix(".png") }.count == 4 && files.filter { $0.hasSuffix(".json") }.count == 4)
        for (k, rec) in captured.enumerated() {
            let i = [4, 7, 10, 13][k]
            let img = try ImageCodec.decodeGray(contentsOf: try #require(rec.image))
            #expect(img == testImage(i))
            let side = try JSONDecoder().decode(BurstSidecar.self, from: Data(contentsOf: URL(fileURLWithPath: rec.sidecar)))
            #expect(side.t_ns == rec.t_ns && side.image == "frame_\(rec.t_ns).png")
            let T = SE3(rowMajor4x4: side.T_world_camera)
            #expect((T.translation - poses[i].translation).norm < 1e-12)
            #expect((T.rotation.inverse * poses[i].rotation).angle < 1e-9)
            #expect(side.position == StreamJSON.array(poses[i].translation))
            #expect(side.orientation == StreamJSON.quaternion(poses[i].rotation))
            #expect(side.intrinsics == .init(fx: 400, fy: 400, cx: 319.5, cy: 239.5, width: 640, height: 480))
            #expect(side.distortion == .init(model: "none", coefficients: []))
            #expect(side.tracking_state == "normal")
            #expect(side.anchors.contains { $0.kind == "plane" })
        }
        // A second run into the same folder is refused when the consumer is made, before any frame.
        #expect(throws: ConsumerError.self) { _ = try ConsumerFactory.make("burst:every=3,count=4,start=0.2,out=\(out)") }
        do { _ = try ConsumerFactory.make("burst:every=3,count=4,start=0.2,out=\(out)") } catch let ConsumerError.badFile(path, reason) {
            #expect(path == out && reason.contains("not empty"))
        }
    }

    @Test func aFileAppearingDuringTheRunIsNotOverwritten() throws {
        let dir = try TemporaryDirectory()
        let out = dir.path("burst")
        let consumer = try ConsumerFactory.make("burst:every=3,count=4,start=0.2,out=\(out)")
        // Someone else writes the first frame's image after the folder was checked.
        let intruder = (out as NSString).appendingPathComponent("frame_1200000000.png")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: intruder))
        #expect(throws: ConsumerError.fileExists(path: intruder)) { _ = try streamRoom(consumers: [consumer], images: true) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: intruder)) == Data([1, 2, 3]))
    }

    @Test func everyAbcNamesTheBadValue() {
        #expect(throws: ConsumerError.badValue(consumer: "burst", key: "every", value: "abc", expected: "a positive integer")) {
            _ = try ConsumerFactory.make("burst:every=abc")
        }
    }

    @Test func triggerTimesStartSeparateBursts() throws {
        let dir = try TemporaryDirectory()
        let consumer = try ConsumerFactory.make("burst:count=2,at=0.5,1s,out=\(dir.path("b"))")
        let captured = try streamRoom(consumers: [consumer], images: true).compactMap { $0 as? BurstCapturedRecord }
        // every defaults to 1: frames 10, 11 (0.5 s) and 20, 21 (1 s).
        #expect(captured.map { ($0.t_ns - 1_000_000_000) / 50_000_000 } == [10, 11, 20, 21])
        #expect(captured.map(\.burst) == [0, 0, 1, 1])
    }

    @Test func framesWithoutImagesGetSidecarsOnly() throws {
        let dir = try TemporaryDirectory()
        let out = dir.path("noimg")
        let captured = try streamRoom(consumers: [try ConsumerFactory.make("burst:count=2,out=\(out)")], frames: 4, images: false)
            .compactMap { $0 as? BurstCapturedRecord }
        #expect(captured.count == 2 && captured.allSatisfy { $0.image == nil })
        let files = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(files.filter { $0.hasSuffix(".json") }.count == 2 && !files.contains { $0.hasSuffix(".png") })
    }

    @Test func outMustBeAFolder() throws {
        let dir = try TemporaryDirectory()
        let file = dir.path("f")
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ConsumerError.badFile(path: file, reason: "exists and is not a folder")) {
            _ = try ConsumerFactory.make("burst:out=\(file)")
        }
    }
}

@Suite struct StreamWriterTests {
    @Test func oneSortedCompactJSONObjectPerLine() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("s.jsonl")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let h = try #require(FileHandle(forWritingAtPath: path))
        let w = StreamWriter(handle: h)
        let records = try streamRoom(consumers: [CursorConsumer()], frames: 5)
        try w.write(records)
        try h.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "" && lines.count == records.count + 1)
        for (line, rec) in zip(lines, records) {
            #expect(!line.contains("\n") && !line.contains("  "))
            // Each line reads back as the record written, field for field.
            let decoded = try StreamRecordDecoder().decode(line)
            #expect(decoded == DecodedStreamRecord(rec))
            #expect(decoded.header == StreamRecordHeader(type: rec.type, t_ns: rec.t_ns, schema: "worldtrack.stream/1"))
        }
        // Keys are sorted: "T_world_camera" < "anchors" < … in a frame line.
        let first = String(lines[0])
        #expect(first.hasPrefix(#"{"T_world_camera":["#))
    }
}

@Suite struct WorldStreamTests {
    @Test func recordsComeInFrameEventsConsumerOrder() throws {
        let stream = WorldStream(consumers: [CursorConsumer(placeTimes: [.relativeSeconds(0)])], writer: nil)
        var gen = RoomLandmarks(seed: 1)
        let records = try stream.process(frameInput(0, landmarks: gen.batch(floor: 40, table: 10, wall: 15)))
        let types = records.map(\.type)
        #expect(types.first == "frame")
        // Plane additions (world events) precede the cursor's records, and the cursor's placement follows its record.
        let firstCursor = try #require(types.firstIndex(of: "cursor"))
        #expect(types[1..<firstCursor].allSatisfy { $0 == "anchor.added" } && firstCursor > 1)
        #expect(types[(firstCursor + 1)...] == ["anchor.added"])
        #expect((records.last as? AnchorEventRecord)?.kind == "user")
        #expect(records.allSatisfy { $0.t_ns == 1_000_000_000 && $0.schema == StreamSchema.version })
    }
}

@Suite struct WorldStreamResetTests {
    @Test func resetEmitsRemovalRecords() throws {
        let stream = WorldStream(writer: nil)
        var gen = RoomLandmarks(seed: 1)
        let first = try stream.process(frameInput(0, landmarks: gen.batch(floor: 40, table: 10, wall: 15)))
        let added = first.compactMap { $0 as? AnchorEventRecord }.map(\.id)
        #expect(!added.isEmpty)
        let removed = try stream.reset(t_ns: 7)
        #expect(removed.map(\.type).allSatisfy { $0 == "anchor.removed" })
        #expect(Set(removed.compactMap { ($0 as? AnchorEventRecord)?.id }) == Set(added))
        #expect(stream.session.planes.isEmpty)
    }
}
