import Consumers
import Evaluation
import Foundation
import Geometry
import Pipeline
import Sensors
import Simulation
import Testing
import TestSupport

/// The world layer and the consumers through the whole pipeline on a rendered 60 s handheld room walk (mono + IMU):
/// planes against `scene.json`, measurement taps from the scene's measurement pairs, the cursor against the true
/// centre-ray intersection, a placed anchor that must stay put, and the burst consumer's files.
///
/// The estimator's world differs from the simulator's by a yaw rotation and a translation (it starts at the
/// body with yaw 0), so estimated points are mapped into the simulator's world with the posyaw alignment of the
/// estimated trajectory to the ground truth before they are compared with the truth.
@Suite("World layer and consumers (simulated room, whole pipeline)")
struct WorldAcceptanceTests {
    struct Run {
        /// Every record of the run as a reader of the stream gets it back (encoded, then decoded).
        var records: [DecodedStreamRecord] = []
        var firstNormal_ns: TimestampNs?
        var firstFrame_ns: TimestampNs = 0
        var align: SimilarityTransform
        var scene: Scene
        var T_W_B_truth: [TimestampNs: SE3]
        var camera: CameraCalibration
        var tapsCount: Int
        var burstDir: String
        /// The cake divider's tap: the table top it was aimed at (its centre, true world) and the tap frame.
        var divideTarget_W: Vec3
        var divideTap_ns: TimestampNs
        /// The object consumer's target: the surface point at the chosen box's centre (true world) and the box's time.
        var objectTarget_W: Vec3
        var objectStart_ns: TimestampNs
    }

    /// Runs once per test process and is shared by the tests below.
    static let shared: Result<Run, any Error> = Result { try makeRun() }

    static func makeRun() throws -> Run {
        let path = try SimSequenceCache.roomHandheld(seconds: 60, seed: 12, startMoving: true)
        let dataset = try ASLDataset(path: path)
        let camera = dataset.cameras[0].calibration
        let scene = try Scene.load(jsonFile: path + "/scene.json")
        let truth = try TrajectoryFile.readASLGroundTruth(path: path + "/mav0/state_groundtruth_estimate0/data.csv")
        var T_W_B: [TimestampNs: SE3] = [:]
        for s in truth { T_W_B[s.t_ns] = s.T_W_B }

        // Taps: each measurement pair tapped as a user would, from a close view: of the frames between 20 s and
        // 55 s where both points are in the image (20 px from its border) and unoccluded, the one nearest to
        // the farther point.
        let frames = dataset.cameras[0].frames
        let t0 = frames[0].t_ns
        var taps: [[String: Any]] = []
        for pair in scene.measurements {
            var best: (range: Double, t_ns: TimestampNs, pixels: [Vec2])?
            for frame in frames where Time.seconds(frame.t_ns - t0) >= 20 && Time.seconds(frame.t_ns - t0) <= 55 {
                guard let pose = T_W_B[frame.t_ns] else { continue }
                let T_W_C = pose * camera.T_B_C
                let pixels = [pair.a_W, pair.b_W].compactMap { p -> Vec2? in
                    guard let px = camera.model.project(T_W_C.inverse.act(p)), camera.model.contains(px, margin: 20) else { return nil }
                    let d = p - T_W_C.translation
                    guard let hit = scene.raycast(origin_W: T_W_C.translation, direction_W: d.normalized),
                          abs(hit.distance - d.norm) < 0.01 else { return nil }
                    return px
                }
                let range = max((pair.a_W - T_W_C.translation).norm, (pair.b_W - T_W_C.translation).norm)
                if pixels.count == 2 && range < (best?.range ?? .infinity) { best = (range, frame.t_ns, pixels) }
            }
            if let best {
                taps.append(["t_ns": best.t_ns, "pixels": best.pixels.map { [$0.x, $0.y] }, "label": pair.name])
            }
        }
        // The cake divider's tap: a table top's centre, from the frame between 25 s and 50 s that sees it unoccluded,
        // 100 px inside the image, from closest.
        var divide: (range: Double, t_ns: TimestampNs, pixel: Vec2, target: Vec3)?
        for top in scene.surfaces(ofKind: .tableTop) {
            let c = top.centroid_W
            for frame in frames where Time.seconds(frame.t_ns - t0) >= 25 && Time.seconds(frame.t_ns - t0) <= 50 {
                guard let pose = T_W_B[frame.t_ns] else { continue }
                let T_W_C = pose * camera.T_B_C
                guard let px = camera.model.project(T_W_C.inverse.act(c)), camera.model.contains(px, margin: 100) else { continue }
                let d = c - T_W_C.translation
                guard let hit = scene.raycast(origin_W: T_W_C.translation, direction_W: d.normalized),
                      abs(hit.distance - d.norm) < 0.01, d.norm < (divide?.range ?? .infinity) else { continue }
                divide = (d.norm, frame.t_ns, px, c)
            }
        }
        guard let divide else { throw NoDivideTap() }

        // The object consumer's box: 60×60 px around a box or table top's centre, chosen at the first frame between
        // 20 s and 35 s that sees it unoccluded 80 px inside the image, such that the point later leaves the view and
        // comes back for at least a second.
        func visible(_ p: Vec3, _ t_ns: TimestampNs, margin: Double) -> Vec2? {
            guard let pose = T_W_B[t_ns] else { return nil }
            let T_W_C = pose * camera.T_B_C
            let p_C = T_W_C.inverse.act(p)
            guard p_C.z > 0.1, let px = camera.model.project(p_C), camera.model.contains(px, margin: margin) else { return nil }
            let d = p - T_W_C.translation
            guard let hit = scene.raycast(origin_W: T_W_C.translation, direction_W: d.normalized), abs(hit.distance - d.norm) < 0.01 else { return nil }
            return px
        }
        var object: (t_ns: TimestampNs, box: [Double], target: Vec3)?
        search: for top in scene.surfaces(ofKind: .boxTop) + scene.surfaces(ofKind: .tableTop) {
            let c = top.centroid_W
            for (i, frame) in frames.enumerated() where Time.seconds(frame.t_ns - t0) >= 20 && Time.seconds(frame.t_ns - t0) <= 35 {
                guard let px = visible(c, frame.t_ns, margin: 80), (c - (T_W_B[frame.t_ns]! * camera.T_B_C).translation).norm < 3.5 else { continue }
                let later = frames[(i + 1)...].map { visible(c, $0.t_ns, margin: 40) != nil }
                guard let out = later.firstIndex(of: false), let back = later[out...].firstIndex(of: true),
                      later[back...].prefix(20).allSatisfy({ $0 }), later[back...].count >= 20 else { continue }
                // The box a user would draw: the top's projected outline, shrunk to 70 % about its centre's pixel.
                let T_C_W = (T_W_B[frame.t_ns]! * camera.T_B_C).inverse
                let corners = top.corners_W.compactMap { camera.model.project(T_C_W.act($0)) }
                guard corners.count == top.corners_W.count else { continue }
                let xs = corners.map(\.x), ys = corners.map(\.y)
                let w = 0.7 * (xs.max()! - xs.min()!), h = 0.7 * (ys.max()! - ys.min()!)
                guard w >= 20, h >= 20, px.x - w / 2 >= 0, px.y - h / 2 >= 0,
                      px.x + w / 2 < Double(camera.model.width), px.y + h / 2 < Double(camera.model.height) else { continue }
                object = (frame.t_ns, [px.x - w / 2, px.y - h / 2, w, h], c)
                break search
            }
        }
        guard let object else { throw NoDivideTap() }

        let dir = SimSequenceCache.scratchRoot + "/world"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let tapsFile = dir + "/taps.json"
        try JSONSerialization.data(withJSONObject: taps).write(to: URL(fileURLWithPath: tapsFile))

        let consumers = try ["measure:taps=\(tapsFile)", "cursor:place=20", "burst:every=6,count=10,start=10,out=\(dir)/burst",
                             "divide:tap=\(divide.pixel.x),\(divide.pixel.y),at=\(divide.t_ns)ns,pieces=8,radius=0.15",
                             "object:box=\(object.box.map { "\($0)" }.joined(separator: ",")),at=\(object.t_ns)ns,name=top"]
            .map { try ConsumerFactory.make($0) }
        var records: [DecodedStreamRecord] = []
        var firstNormal: TimestampNs?
        let writer = StreamWriter(), reader = StreamRecordDecoder()
        var unreadable: [String] = []
        let summary = try TrackingPipeline(dataset: dataset, consumers: consumers).run(onFrame: { r in
            if firstNormal == nil && r.estimate.trackingState == .normal { firstNormal = r.estimate.t_ns }
            for record in r.records {
                do { records.append(try reader.decode(writer.encode(record))) } catch { unreadable.append("\(record.type): \(error)") }
            }
        })
        guard unreadable.isEmpty else { throw StreamReadBack(records: unreadable) }
        // Records emitted at the end (finish) are not part of a frame; the consumers here emit none then.
        let report = try Evaluator.evaluate(estimate: summary.bodyTrajectory, groundTruth: truth.map { StampedPose(t_ns: $0.t_ns, pose: $0.T_W_B) },
                                            options: EvaluationOptions(alignment: .posyaw))
        return Run(records: records, firstNormal_ns: firstNormal, firstFrame_ns: t0, align: report.transform, scene: scene,
                   T_W_B_truth: T_W_B, camera: camera, tapsCount: taps.count, burstDir: dir + "/burst",
                   divideTarget_W: divide.target, divideTap_ns: divide.t_ns,
                   objectTarget_W: object.target, objectStart_ns: object.t_ns)
    }

    /// No frame of the run sees a table or box top well enough to tap it.
    struct NoDivideTap: Error {}

    /// Records that did not read back.
    struct StreamReadBack: Error { var records: [String] }

    static func vec(_ a: [Double]?) -> Vec3? {
        guard let a, a.count == 3 else { return nil }
        return Vec3(a[0], a[1], a[2])
    }

    /// The final state of every plane that was not removed: id → record.
    static func finalPlanes(_ run: Run) -> [String: AnchorEventRecord] {
        var planes: [String: AnchorEventRecord] = [:]
        for r in run.records.compactMap(\.anchor) where r.kind == "plane" {
            if r.type == "anchor.removed" { planes[r.id] = nil } else { planes[r.id] = r }
        }
        return planes
    }

    @Test("floor within 1.5 s of normal tracking; plane heights within 2 cm; a table top with its extent within 20 %")
    func planes() throws {
        let run = try Self.shared.get()
        let firstNormal = try #require(run.firstNormal_ns)
        let floorAdded = run.records.compactMap(\.anchor).first { $0.type == "anchor.added" && $0.plane?.classification == "floor" }
        let floorT = try #require(floorAdded?.t_ns)
        print("floor reported \(Time.seconds(floorT - firstNormal)) s after tracking became normal")
        #expect(Time.seconds(floorT - firstNormal) <= 1.5)

        // True heights of the horizontal surfaces (floor, table tops, box tops, ceiling).
        let horizontal = run.scene.surfaces.filter { abs(abs($0.normal_W.z) - 1) < 1e-9 }
        let planes = Self.finalPlanes(run)
        var tableFound = false
        var heightErrors: [Double] = []
        #expect(!planes.isEmpty)
        for (id, record) in planes {
            let plane = try #require(record.plane)
            guard plane.alignment == "horizontal" else { continue }
            let center = try #require(Self.vec(plane.center))
            let height = run.align.act(center).z
            let nearest = horizontal.min { abs($0.corners_W[0].z - height) < abs($1.corners_W[0].z - height) }!
            let error = abs(nearest.corners_W[0].z - height)
            print("\(id) \(plane.classification): height \(height) m, nearest true \(nearest.name) at \(nearest.corners_W[0].z) m")
            heightErrors.append(error)
            if plane.classification == "table", nearest.kind == .tableTop {
                tableFound = true
                let measured = [plane.extent.width, plane.extent.length].sorted()
                let xs = nearest.corners_W.map(\.x), ys = nearest.corners_W.map(\.y)
                let truth = [xs.max()! - xs.min()!, ys.max()! - ys.min()!].sorted()
                print("\(id) extent \(measured) vs true \(truth)")
                #expect(abs(measured[0] - truth[0]) <= 0.2 * truth[0] && abs(measured[1] - truth[1]) <= 0.2 * truth[1])
            }
        }
        #expect(tableFound)
        // Floor, ceiling, both tables, the cabinet and the box tops: every one within 2 cm.
        #expect(heightErrors.count >= 3)
        #expect((heightErrors.max() ?? 1) <= 0.02)
    }

    @Test("measure: median relative length error ≤ 2 % over the scene's measurement pairs")
    func measure() throws {
        let run = try Self.shared.get()
        let measurements = run.records.compactMap(\.measurement)
        #expect(measurements.count == run.tapsCount)
        #expect(run.tapsCount >= 15)   // the room has 27 pairs; most are visible after 20 s
        let truth = Dictionary(uniqueKeysWithValues: run.scene.measurements.map { ($0.name, $0.distance) })
        var errors: [Double] = []
        for m in measurements where m.status != "ok" { print("measure: \(m.label ?? "?") failed: \(m.reason ?? "?")") }
        for m in measurements where m.status == "ok" {
            let label = try #require(m.label)
            let total = try #require(m.total)
            errors.append(abs(total - truth[label]!) / truth[label]!)
            print(String(format: "measure: %@ ok, %+.1f %%", label, 100 * (total - truth[label]!) / truth[label]!))
        }
        errors.sort()
        let median = errors.isEmpty ? .infinity : errors[errors.count / 2]
        print("measure: \(errors.count) of \(measurements.count) ok, median relative error \(median * 100) %, "
              + "largest \((errors.last ?? .infinity) * 100) %")
        // 14 of 25 today. 16 before the images' check behind a hit (twenty-seventh session), which refuses box B's
        // height and the floor's width: each had a pixel's hit on box B's top polygon 0.7–1.0 m in front of the floor
        // that pixel sees (measured +7.0 % and −7.9 %, the second outside its 2 σ). 18 in an earlier session, before a
        // level's stray pieces stopped joining a top more than a metre away (box C's polygon then reached its two
        // tapped corners only through a pair of stray landmarks 1.3 m beyond it, 9 cm higher; without them the corner
        // rays miss it by more than the 15 cm edge tolerance and fail as edges).
        #expect(Double(errors.count) >= 0.55 * Double(measurements.count))
        // Gross errors: one today, table A's top diagonal at −45.5 % (its far corner, seen just past box A's edge, is
        // met on box A's top polygon; docs/ACCURACY.md, twenty-seventh session). A second one is a regression.
        #expect(errors.filter { $0 > 0.10 }.count <= 1)
        // Every pair is tapped on corners or edges (see `MeasureConsumer` on edge taps). The margin is thin: the
        // same check on the seed-7 room gives 3.9 % (two box tops found late, a tap falling through to the wall).
        #expect(median <= 0.02)
    }

    @Test("cursor: within 3 cm of the true centre-ray hit in ≥ 95 % of onPlane frames; the anchor placed at 20 s moves < 2 cm")
    func cursorAndAnchor() throws {
        let run = try Self.shared.get()
        let m = run.camera.model
        let centre = Vec2(Double(m.width - 1) / 2, Double(m.height - 1) / 2)
        let bearing_C = try #require(m.bearing(centre))
        var errors: [Double] = []
        for r in run.records.compactMap(\.cursor) where r.state == "onPlane" {
            let pose = try #require(run.T_W_B_truth[r.t_ns]) * run.camera.T_B_C
            guard let trueHit = run.scene.raycast(origin_W: pose.translation, direction_W: pose.rotation.act(bearing_C)) else { continue }
            let estimated = run.align.act(try #require(Self.vec(r.position)))
            errors.append((estimated - trueHit.point_W).norm)
        }
        let within = Double(errors.filter { $0 <= 0.03 }.count) / Double(max(errors.count, 1))
        print("cursor: \(errors.count) onPlane frames, \(within * 100) % within 3 cm")
        #expect(errors.count >= 200)
        // Where the remaining misses come from (landmarks mapped while the filter was still converging):
        // docs/ACCURACY.md.
        #expect(within >= 0.95)

        // The anchor placed by the cursor at 20 s: where it was added against where the last frame shows it.
        let added = try #require(run.records.compactMap(\.anchor).first { $0.type == "anchor.added" && $0.kind == "user" })
        let id = added.id
        let start = try #require(Self.vec(added.position))
        var last = start
        for r in run.records.compactMap(\.frame) {
            for a in r.anchors where a.id == id { last = try #require(Self.vec(a.position)) }
        }
        for r in run.records.compactMap(\.anchor) where r.type == "anchor.updated" && r.id == id {
            last = try #require(Self.vec(r.position))
        }
        print("anchor \(id) moved \((last - start).norm) m between 20 s and the end")
        #expect((last - start).norm < 0.02)
    }

    @Test("stream: every anchor a frame shows lies within the update thresholds of its latest anchor record")
    func anchorsInViewMatchTheirLatestRecords() throws {
        let run = try Self.shared.get()
        // A frame's anchor records follow its frame record (docs/STREAM.md), so each frame is judged with them applied.
        var latest: [String: AnchorEventRecord] = [:]
        var pending: FrameRecord?
        var judged = 0, worstUser = 0.0, worstPlaneAlong = 0.0
        func judge(_ frame: FrameRecord) throws {
            for a in frame.anchors {
                let record = try #require(latest[a.id], "\(a.id) in view at \(frame.t_ns) without a live record")
                let shown = try #require(Self.vec(a.position)), told = try #require(Self.vec(record.position))
                if a.kind == "user" {
                    worstUser = max(worstUser, (shown - told).norm)
                } else {
                    // A plane's origin moves along its normal as it is refined (`updateOffset_m`, 1 mm, measured by
                    // the tracker to the new plane: a hair more along a wall's recorded normal once it turned); across
                    // it only on a merge, which is recorded.
                    let n = Vec3(record.transform[2], record.transform[6], record.transform[10])
                    worstPlaneAlong = max(worstPlaneAlong, abs(n.dot(shown - told)))
                    #expect((shown - told).norm < 0.01 + 1e-9)
                }
                judged += 1
            }
        }
        for r in run.records {
            if let f = r.frame {
                if let p = pending { try judge(p) }
                pending = f
            } else if let a = r.anchor {
                if a.type == "anchor.removed" { latest[a.id] = nil } else { latest[a.id] = a }
            }
        }
        if let p = pending { try judge(p) }
        print(String(format: "stream: %d anchors in view judged; worst user anchor %.2f mm, worst plane along its normal %.2f mm from the latest record",
                     judged, 1000 * worstUser, 1000 * worstPlaneAlong))
        #expect(judged > 1000)
        #expect(worstUser <= 0.001 + 1e-9)
        #expect(worstPlaneAlong <= 0.001 + 1e-6)
    }

    @Test("burst: exactly count images with sidecars whose poses match the frame records")
    func burst() throws {
        let run = try Self.shared.get()
        let captured = run.records.compactMap(\.burstCaptured)
        #expect(captured.count == 10)
        let files = try FileManager.default.contentsOfDirectory(atPath: run.burstDir)
        #expect(files.filter { $0.hasSuffix(".png") }.count == 10)
        #expect(files.filter { $0.hasSuffix(".json") }.count == 10)
        var framePose: [TimestampNs: [Double]] = [:]
        for r in run.records.compactMap(\.frame) { framePose[r.t_ns] = r.T_world_camera }
        var previous: Int?
        for c in captured {
            let sidecar = try JSONDecoder().decode(BurstSidecar.self, from: Data(contentsOf: URL(fileURLWithPath: c.sidecar)))
            let pose = try #require(framePose[sidecar.t_ns])
            #expect(zip(pose, sidecar.T_world_camera).allSatisfy { abs($0 - $1) < 1e-12 })
            #expect(sidecar.intrinsics.fx == run.camera.model.intrinsics.fx)
            // every=6 at 20 Hz: 0.3 s apart, starting at 10 s.
            if let previous { #expect(Int(sidecar.t_ns) - previous == 300_000_000) } else {
                #expect(abs(Time.seconds(sidecar.t_ns - run.firstFrame_ns) - 10) < 0.051)
            }
            previous = Int(sidecar.t_ns)
        }
    }

    @Test("cake divider: centre on the true table top (≤ 3 cm), 8 exact equal cuts on the plane, pixels in every frame that shows the centre")
    func cakeDivider() throws {
        let run = try Self.shared.get()
        let records = run.records.compactMap(\.divide)
        let placed = try #require(records.first)
        #expect(placed.state == "placed", "\(placed.reason ?? "")")
        #expect(placed.t_ns == run.divideTap_ns)
        #expect(records.dropFirst().allSatisfy { $0.state == "inView" })

        // Where: the tapped table top's centre (the tap is its projection in the true view).
        let center = try #require(Self.vec(placed.center))
        let error = (run.align.act(center) - run.divideTarget_W).norm
        print("divide: centre \(error * 100) cm from the table top's centre")
        #expect(error <= 0.03)
        #expect(abs(run.align.act(center).z - run.divideTarget_W.z) <= 0.02)

        // The cuts: exactly on the plane, at the radius, 2π/8 apart, in every record.
        for r in records {
            let c = try #require(Self.vec(r.center)), n = try #require(Self.vec(r.normal))
            let ends = try #require(r.cut_ends).map { try #require(Self.vec($0)) }
            #expect(ends.count == 8)
            for (k, e) in ends.enumerated() {
                #expect(abs((e - c).norm - 0.15) < 1e-9)
                #expect(abs((e - c).dot(n)) < 1e-9)
                let next = ends[(k + 1) % 8] - c
                let angle = atan2((e - c).cross(next).dot(n), (e - c).dot(next))
                #expect(abs(angle - 2 * Double.pi / 8) < 1e-9)
            }
        }

        // Pixels: in every later frame whose true view shows the centre 40 px inside the image, and in none whose
        // view has it 40 px outside (or behind); there the centre pixel agrees with the true projection.
        var byTime: [TimestampNs: DivideRecord] = [:]
        for r in records.dropFirst() { byTime[r.t_ns] = r }
        var shown = 0, recorded = 0, hidden = 0, recordedWhileHidden = 0
        var pixelErrors: [Double] = []
        for f in run.records.compactMap(\.frame) where f.t_ns > run.divideTap_ns && f.tracking_state == "normal" {
            let T_W_C = try #require(run.T_W_B_truth[f.t_ns]) * run.camera.T_B_C
            let p_C = T_W_C.inverse.act(run.divideTarget_W)
            let px = p_C.z > 0.05 ? run.camera.model.project(p_C) : nil
            if let px, run.camera.model.contains(px, margin: 40) {
                shown += 1
                if let r = byTime[f.t_ns] {
                    recorded += 1
                    let c = try #require(r.center_pixel)
                    pixelErrors.append((Vec2(c[0], c[1]) - px).norm)
                    let lines = try #require(r.cut_pixels)
                    #expect(lines.count == 8 && lines.allSatisfy { $0.first == c })
                }
            } else if px.map({ !run.camera.model.contains($0, margin: -40) }) ?? true {
                hidden += 1
                if byTime[f.t_ns] != nil { recordedWhileHidden += 1 }
            }
        }
        pixelErrors.sort()
        let median = pixelErrors.isEmpty ? .infinity : pixelErrors[pixelErrors.count / 2]
        print("divide: \(recorded) of \(shown) frames showing the centre recorded, \(recordedWhileHidden) of \(hidden) not showing it; median centre pixel error \(median) px")
        #expect(shown >= 10 && recorded >= shown * 95 / 100)
        #expect(recordedWhileHidden == 0)
        #expect(median <= 8)
    }

    @Test("object: 3-D position within 3 cm of the true point while tracked, lost whenever it is out of view, recovered when it returns")
    func objectTracking() throws {
        let run = try Self.shared.get()
        let records = run.records.compactMap(\.object)
        let first = try #require(records.first)
        #expect(first.t_ns == run.objectStart_ns && first.state == "tracked" && first.name == "top")

        // Visibility of the true point in the true view of each frame (unoccluded: the first surface on the ray).
        func inView(_ t_ns: TimestampNs, margin: Double) -> Bool {
            guard let pose = run.T_W_B_truth[t_ns] else { return false }
            let T_W_C = pose * run.camera.T_B_C
            let p_C = T_W_C.inverse.act(run.objectTarget_W)
            guard p_C.z > 0.1, let px = run.camera.model.project(p_C), run.camera.model.contains(px, margin: margin) else { return false }
            let d = run.objectTarget_W - T_W_C.translation
            guard let hit = run.scene.raycast(origin_W: T_W_C.translation, direction_W: d.normalized) else { return false }
            return abs(hit.distance - d.norm) < 0.01
        }
        // The view of the point: direction and distance from the camera. A return is "like the first view" when the
        // direction is within 30° of it and the distance within 30 %: the first frame's pixels can then be recognised.
        func view(_ t_ns: TimestampNs) -> Vec3 { run.objectTarget_W - (run.T_W_B_truth[t_ns]! * run.camera.T_B_C).translation }
        let firstView = view(run.objectStart_ns)
        func likeFirstView(_ t_ns: TimestampNs) -> Bool {
            let v = view(t_ns)
            let angle = acos(max(-1, min(1, v.normalized.dot(firstView.normalized)))) * 180 / .pi
            return angle <= 30 && abs(v.norm / firstView.norm - 1) <= 0.3
        }
        var errors: [Double] = []
        var outOfView = 0, trackedOutOfView = 0
        var lastOut: TimestampNs?
        var returns: [(back_ns: TimestampNs, recovered_ns: TimestampNs?, alike: Bool)] = []
        var inRun = 0
        for r in records.dropFirst() {
            let found = r.state == "tracked" || r.state == "recovered"
            if found {
                let p = try #require(Self.vec(r.position))
                errors.append((run.align.act(p) - run.objectTarget_W).norm)
            }
            let visible = inView(r.t_ns, margin: 40)
            let clearlyOut = !inView(r.t_ns, margin: -40)
            if clearlyOut { outOfView += 1; lastOut = r.t_ns; if found { trackedOutOfView += 1 } }
            inRun = visible ? inRun + 1 : 0
            // A return: the point back in view for 1 s after being out of it.
            if inRun == 20, let out = lastOut, returns.last.map({ $0.back_ns < out }) ?? true {
                returns.append((r.t_ns, nil, likeFirstView(r.t_ns)))
            }
            if r.state == "recovered", let i = returns.indices.last, returns[i].recovered_ns == nil { returns[i].recovered_ns = r.t_ns }
        }
        errors.sort()
        let within = Double(errors.filter { $0 <= 0.03 }.count) / Double(max(1, errors.count))
        print("object: \(errors.count) frames found, \(within * 100) % within 3 cm (median \(errors.isEmpty ? 0 : errors[errors.count / 2] * 100) cm, max \((errors.last ?? 0) * 100) cm); out of view in \(outOfView) frames, found in \(trackedOutOfView) of them; returns \(returns.map { ($0.back_ns - run.firstFrame_ns, $0.recovered_ns.map { $0 - run.firstFrame_ns }, $0.alike) })")
        #expect(errors.count >= 15)
        #expect(within >= 0.95)
        #expect(outOfView >= 10 && trackedOutOfView == 0)
        // Recovered, at the latest 1 s after the point had been back in view for 1 s, whenever it came back into a view
        // like the first one (from elsewhere its pixels need not look alike).
        #expect(returns.contains { $0.alike })
        for r in returns where r.alike { #expect(r.recovered_ns.map { $0 <= r.back_ns + 1_000_000_000 } ?? false) }
    }
}
