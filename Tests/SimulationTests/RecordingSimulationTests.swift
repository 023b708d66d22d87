import Foundation
import Geometry
import Imaging
import Sensors
import Testing
import TestSupport
@testable import Simulation

/// `simulate --from-recording` in the library: a recording (written by the simulator itself, so these tests
/// need no shared data) is followed by `RecordingDatasetWriter`.
@Suite("Simulation from a recording")
struct RecordingSimulationTests {
    /// A 5 s stereo recording at 376×240 (ground truth and IMU at 200 Hz; the body rests for 2 s, ramps up
    /// over 1.5 s, then walks).
    static func recordingPath() throws -> String {
        try SimSequenceCache.dataset("recording-source-5s-376x240-stereo") {
            SimDatasets.smallConfig(seconds: 5, seed: 3, stereo: true, width: 376, height: 240)
        }
    }

    /// The data lines of a CSV file (no comments), exactly as in the file (line ends stripped).
    static func dataLines(_ path: String) throws -> [Substring] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: true).filter { !$0.hasPrefix("#") }
    }

    /// A calibration target in front of the camera of `T_W_C`: a dark backdrop (gray 30) 3 m ahead and a bright
    /// square (gray 220, 0.6 m) 2.5 m ahead, both facing the camera. Returns the scene and the square's corners.
    static func targetScene(facing T_W_C: SE3) throws -> (Scene, [Vec3]) {
        let R = T_W_C.rotation, o = T_W_C.translation
        // The square is turned 25° in its plane: no edge runs along a pixel row or column (the renderer's 4 × 4
        // edge sub-samples quantise an axis-aligned edge to 1/4 px; slanted edges average that out).
        let a = 25.0 * Double.pi / 180
        let x = R.act(Vec3(cos(a), sin(a), 0)), y = R.act(Vec3(-sin(a), cos(a), 0)), z = R.act(Vec3(0, 0, 1))
        var b = SceneBuilder()
        try b.addRectangle(name: "backdrop", kind: .wall, center_W: o + 3 * z, normal_W: -z, axisU: x, halfU: 8,
                           axisV: y, halfV: 8, texture: .uniform(gray: 30))
        let c = o + 2.5 * z
        try b.addRectangle(name: "marker", kind: .wall, center_W: c, normal_W: -z, axisU: x, halfU: 0.3,
                           axisV: y, halfV: 0.3, texture: .uniform(gray: 220))
        let corners = [c - 0.3 * x - 0.3 * y, c + 0.3 * x - 0.3 * y, c + 0.3 * x + 0.3 * y, c - 0.3 * x + 0.3 * y]
        let scene = b.build(name: "target", walkArea: WalkArea(center: Vec2(o.x, o.y), radii: Vec2(1, 1), eyeHeight: o.z),
                            orbitTarget: OrbitTarget(center: c, radius: 1, eyeHeight: o.z))
        return (scene, corners)
    }

    /// Corner errors (px) of the marker in every written cam0 image: each corner is measured in the image and
    /// compared with its projection through the written calibration and `pose(stamp)`.
    static func markerErrors(dataset dir: String, corners: [Vec3], pose: (TimestampNs) -> SE3?) throws -> [Double] {
        let cam = try SensorYAML.readCamera(path: dir + "/mav0/cam0/sensor.yaml", name: "cam0")
        var errors: [Double] = []
        for line in try dataLines(dir + "/mav0/cam0/data.csv") {
            let stamp = try #require(TimestampNs(line.split(separator: ",")[0]))
            let img = try ImageCodec.decodeGray(contentsOf: dir + "/mav0/cam0/data/\(stamp).png")
            guard let T_W_B = pose(stamp) else { continue }
            let T_C_W = (T_W_B * cam.T_B_C).inverse
            let uvs = corners.compactMap { cam.model.project(T_C_W.act($0)) }
            guard uvs.count == 4 else { continue }
            for i in 0..<4 where cam.model.contains(uvs[i], margin: 20) {
                let uv = uvs[i], prev = uvs[(i + 3) % 4], next = uvs[(i + 1) % 4]
                // Start 1.5 px off so the measurement cannot echo the projection.
                if let found = SimCornerFinder.intersectEdges(img, guess: uv + Vec2(1.2, -0.9), dirA: prev - uv, dirB: next - uv) {
                    errors.append((found - uv).norm)
                } else {
                    errors.append(.infinity)
                }
            }
        }
        return errors
    }

    @Test("frames are the ground-truth rows at the camera rate; IMU rows are the recording's lines byte for byte; ground truth restricted to the span")
    func framesIMUAndGroundTruth() throws {
        let source = try Self.recordingPath()
        let recording = try Recording(path: source)
        let out = SimDatasets.temporaryPath("from-rec")
        let config = RecordingSimulationConfig(recording: recording, stereo: true, start_s: 1, seconds: 1,
                                               effects: .perfect, render: .fast)
        let summary = try RecordingDatasetWriter.write(config, to: out)
        // 200 Hz ground truth → every 10th row at 20 Hz; 1 s with both ends = 21 frames per camera.
        #expect(summary.framesPerCamera == 21 && summary.cameras == 2)
        let gtIn = try TrajectoryFile.readASLGroundTruth(path: source + "/mav0/state_groundtruth_estimate0/data.csv")
        let t0 = gtIn[0].t_ns
        let stamps = try Self.dataLines(out + "/mav0/cam0/data.csv").map { TimestampNs($0.split(separator: ",")[0])! }
        #expect(stamps == (0...20).map { gtIn[200 + 10 * $0].t_ns })
        #expect(stamps.first == t0 + 1_000_000_000 && stamps.last == t0 + 2_000_000_000)
        #expect(try Self.dataLines(out + "/mav0/cam1/data.csv").map { TimestampNs($0.split(separator: ",")[0])! } == stamps)
        let pngs = try FileManager.default.contentsOfDirectory(atPath: out + "/mav0/cam1/data").filter { $0.hasSuffix(".png") }
        #expect(pngs.count == 21)

        // IMU: a contiguous run of the recording's lines, byte for byte, header included, 1 s around the frames.
        let imuIn = try String(contentsOfFile: source + "/mav0/imu0/data.csv", encoding: .utf8)
        let imuOut = try String(contentsOfFile: out + "/mav0/imu0/data.csv", encoding: .utf8)
        let linesIn = imuIn.split(separator: "\n"), linesOut = imuOut.split(separator: "\n")
        #expect(linesOut.first == linesIn.first && linesOut.first?.hasPrefix("#") == true)
        let firstData = try #require(linesIn.firstIndex(of: linesOut[1]))
        #expect(Array(linesIn[firstData..<(firstData + linesOut.count - 1)]) == Array(linesOut.dropFirst()))
        #expect(linesOut.count - 1 == 601)   // 0 … 3 s at 200 Hz: [first frame − 1 s, last frame + 1 s] = 3 s, clipped to the data
        #expect(imuOut.hasSuffix("\n") && !imuOut.contains("\r"))
        for name in ["imu0/sensor.yaml", "cam0/sensor.yaml", "cam1/sensor.yaml", "body.yaml"] {
            #expect(FileManager.default.contents(atPath: out + "/mav0/" + name) == FileManager.default.contents(atPath: source + "/mav0/" + name),
                    "\(name) is not the recording's")
        }

        // Ground truth: the recording's states in the frames' span, same values.
        let gtOut = try TrajectoryFile.readASLGroundTruth(path: out + "/mav0/state_groundtruth_estimate0/data.csv")
        #expect(gtOut.map(\.t_ns) == gtIn.filter { $0.t_ns >= stamps.first! && $0.t_ns <= stamps.last! }.map(\.t_ns))
        for s in gtOut {
            let ref = try #require(gtIn.first { $0.t_ns == s.t_ns })
            #expect((s.T_W_B.translation - ref.T_W_B.translation).norm < 1e-12 && s.T_W_B.rotation.angle(to: ref.T_W_B.rotation) < 1e-9)
        }

        // scene.json: a recording section with the span, frame count and T_B_C used.
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/scene.json"))) as? [String: Any]
        let rec = try #require(json?["recording"] as? [String: Any])
        #expect(rec["frames"] as? Int == 21 && rec["spanStartNs"] as? Int64 == stamps.first && rec["spanEndNs"] as? Int64 == stamps.last)
        let cams = try #require(rec["cameras"] as? [[String: Any]])
        let T = try #require(cams.first?["T_B_C"] as? [Double])
        #expect(zip(T, SimRig.eurocT_B_C0.matrix4x4RowMajor).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect((json?["measurements"] as? [Any])?.isEmpty == false)
        let check = try #require(rec["textureCheck"] as? [String: Any])
        #expect(check["images"] as? Int == 42)
        #expect(check["fractionTextured"] as? Double == 1, "some images see little texture: \(check)")
        // scene.json reads back as a scene (the recording section does not get in the way).
        let reread = try Scene.load(jsonFile: out + "/scene.json")
        #expect(reread.surfaces.count > 30 && reread.measurements.count == (json?["measurements"] as? [Any])?.count)
    }

    @Test("a marker corner in the rendered image is where the ground-truth pose and the recording's calibration project it (sub-pixel)")
    func markerProjectsWhereGroundTruthSays() throws {
        let source = try Self.recordingPath()
        let recording = try Recording(path: source)
        let gt = recording.groundTruth
        // Target built in front of the camera at 3.75 s (the body is walking by then).
        let mid = try #require(gt.firstIndex { $0.t_ns >= gt[0].t_ns + 3_750_000_000 })
        let (scene, corners) = try Self.targetScene(facing: gt[mid].T_W_B * recording.cam0.T_B_C)
        let out = SimDatasets.temporaryPath("from-rec-marker")
        let config = RecordingSimulationConfig(recording: recording, scene: .given(scene, source: "test"), start_s: 3.5, seconds: 0.5,
                                               effects: .perfect, render: .fast)
        try RecordingDatasetWriter.write(config, to: out)
        let written = try TrajectoryFile.readASLGroundTruth(path: out + "/mav0/state_groundtruth_estimate0/data.csv")
        let errors = try Self.markerErrors(dataset: out, corners: corners) { stamp in written.first { $0.t_ns == stamp }?.T_W_B }
        #expect(errors.count >= 30, "too few marker corners in view: \(errors.count)")
        // Measured: max 0.13 px, mean 0.05 px. A wrong stamp-to-pose pairing (one 200 Hz row off) or T_B_C errs
        // by pixels.
        for e in errors { #expect(e < 0.3, "corner off by \(e) px") }
        let mean = errors.reduce(0, +) / Double(max(1, errors.count))
        #expect(mean < 0.12, "mean corner error \(mean) px")
    }

    @Test("with a time offset d the image stamped t shows the ground-truth pose at t + d")
    func timeOffsetShiftsStamps() throws {
        let source = try Self.recordingPath()
        let recording = try Recording(path: source)
        let gt = recording.groundTruth
        let mid = try #require(gt.firstIndex { $0.t_ns >= gt[0].t_ns + 3_750_000_000 })
        let (scene, corners) = try Self.targetScene(facing: gt[mid].T_W_B * recording.cam0.T_B_C)
        let d: Int64 = 50_000_000
        let out = SimDatasets.temporaryPath("from-rec-offset")
        let config = RecordingSimulationConfig(recording: recording, scene: .given(scene, source: "test"), start_s: 3.4, seconds: 0.5,
                                               effects: .perfect, render: .fast, timeOffset_ns: d)
        let summary = try RecordingDatasetWriter.write(config, to: out)
        let stamps = try Self.dataLines(out + "/mav0/cam0/data.csv").map { TimestampNs($0.split(separator: ",")[0])! }
        let gtTimes = Set(gt.map(\.t_ns))
        #expect(stamps.allSatisfy { gtTimes.contains($0 + d) })
        #expect(summary.info.timeOffset_ns == d)
        func pose(_ t: TimestampNs) -> SE3? { gt.first { $0.t_ns == t }?.T_W_B }
        let shifted = try Self.markerErrors(dataset: out, corners: corners) { pose($0 + d) }
        #expect(shifted.count >= 30)
        for e in shifted { #expect(e < 0.3, "corner off by \(e) px against the pose at t + d") }
        // The same corners against the pose at the stamp itself are pixels off: the check can tell.
        let unshifted = try Self.markerErrors(dataset: out, corners: corners) { pose($0) }
        #expect(unshifted.reduce(0, +) / Double(max(1, unshifted.count)) > 1.5)
    }

    @Test("frame plan: rows nearest the camera-rate grid; a gap drops its frames without shifting the others; span checks")
    func framePlan() throws {
        // 200 Hz rows with a hole between 1.0 and 1.3 s, and ±0.3 ms of jitter.
        let t0: TimestampNs = 1_000_000_000_000
        var states: [GroundTruthState] = []
        for k in 0...600 {
            let t = Double(k) / 200
            if t > 1.0 && t < 1.3 { continue }
            let jitter = TimestampNs((k % 3) - 1) * 300_000
            states.append(GroundTruthState(t_ns: t0 + Time.nanoseconds(t) + (k == 0 ? 0 : jitter), T_W_B: .identity))
        }
        let plan = try RecordingFramePlan.make(groundTruth: states, imuFirst_ns: t0 - 5_000_000, imuLast_ns: t0 + 4_000_000_000,
                                               rate_hz: 20, source: "gt")
        #expect(plan.reference_ns == t0)
        // Slots 1.05 … 1.25 s have no row (5 slots); every kept frame is within 0.3 ms of its slot.
        #expect(plan.skippedSlots == 5)
        #expect(plan.imageStamps.count == 61 - 5)
        for t in plan.imageStamps {
            let k = (Double(t - t0) / 5e7).rounded()
            #expect(abs(Double(t - t0) - k * 5e7) <= 300_000)
        }
        #expect(plan.imageStamps == plan.groundTruthTimes)
        // --start / --seconds count from the reference; a span past the data is refused.
        let part = try RecordingFramePlan.make(groundTruth: states, imuFirst_ns: t0, imuLast_ns: t0 + 4_000_000_000, rate_hz: 20,
                                               start_s: 2, seconds: 0.5, source: "gt")
        #expect(part.imageStamps.count == 11)
        #expect(throws: RecordingError.self) {
            try RecordingFramePlan.make(groundTruth: states, imuFirst_ns: t0, imuLast_ns: t0 + 4_000_000_000, rate_hz: 20,
                                        start_s: 2, seconds: 1.5, source: "gt")
        }
        // The IMU ends first: it limits the span.
        #expect(throws: RecordingError.self) {
            try RecordingFramePlan.make(groundTruth: states, imuFirst_ns: t0, imuLast_ns: t0 + 2_000_000_000, rate_hz: 20,
                                        seconds: 2.5, source: "gt")
        }
        let clipped = try RecordingFramePlan.make(groundTruth: states, imuFirst_ns: t0, imuLast_ns: t0 + 2_000_000_000, rate_hz: 20, source: "gt")
        #expect(clipped.groundTruthTimes.last! <= t0 + 2_000_000_000)
    }

    @Test("the fitted room encloses every camera with the margins and keeps its furniture clear of the trajectory")
    func fittedRoomGeometry() throws {
        let recording = try Recording(path: try Self.recordingPath())
        let config = RecordingSimulationConfig(recording: recording, stereo: true)
        let (plan, cameras, scene, fit, _) = try RecordingDatasetWriter.prepare(config)
        let report = try #require(fit)
        let cams = plan.groundTruthIndices.flatMap { i in cameras.map { (recording.groundTruth[i].T_W_B * $0.T_B_C).translation } }
        let lo = report.enclosureMin, hi = report.enclosureMax
        for p in cams {
            #expect(p.x - lo.x >= 1.5 - 1e-9 && hi.x - p.x >= 1.5 - 1e-9 && p.y - lo.y >= 1.5 - 1e-9 && hi.y - p.y >= 1.5 - 1e-9)
            #expect(p.z - report.floorZ >= 0.3 && (report.ceilingZ ?? .infinity) - p.z >= 1.0 - 1e-9)
        }
        #expect(report.notPlaced.isEmpty)
        #expect(Set(report.furniture.map(\.name)) == ["tableA", "tableB", "cabinet", "boxB", "boxC", "boxA"])
        let footprint = recording.groundTruth.flatMap { s in [s.T_W_B.translation] + cameras.map { (s.T_W_B * $0.T_B_C).translation } }
        for f in report.furniture {
            #expect(f.min.x >= lo.x && f.max.x <= hi.x && f.min.y >= lo.y && f.max.y <= hi.y && f.min.z >= report.floorZ - 1e-9)
            for p in footprint {
                let dx = max(f.min.x - p.x, 0, p.x - f.max.x), dy = max(f.min.y - p.y, 0, p.y - f.max.y)
                #expect((dx * dx + dy * dy).squareRoot() >= 0.5 - 1e-9, "\(f.name) is within 0.5 m of the trajectory at \(p)")
            }
        }
        // Every camera sees surfaces straight ahead (a closed room: no ray escapes).
        for (k, i) in plan.groundTruthIndices.enumerated() where k % 5 == 0 {
            let T = recording.groundTruth[i].T_W_B * cameras[0].T_B_C
            #expect(scene.raycast(origin_W: T.translation, direction_W: T.rotation.act(Vec3(0, 0, 1))) != nil)
        }
        #expect(scene.measurements.contains { $0.name == "tableA.height" && abs($0.distance - 0.75) < 1e-9 })
    }

    @Test("an arrangement seed places the same furniture elsewhere, as clear of the trajectory, with other textures; the same seed the same room")
    func arrangementSeed() throws {
        let recording = try Recording(path: try Self.recordingPath())
        func fitted(_ seed: UInt64?) throws -> (Scene, SceneFitReport) {
            var options = SceneFitOptions.room
            options.arrangementSeed = seed
            let (_, _, scene, fit, _) = try RecordingDatasetWriter.prepare(
                RecordingSimulationConfig(recording: recording, scene: .fitted(layout: "room", options: options), stereo: true))
            return (scene, try #require(fit))
        }
        let (builtIn, builtInFit) = try fitted(nil)
        let (defaultScene, _) = try fitted(nil)
        #expect(try builtIn.jsonData() == defaultScene.jsonData())
        let cameras = [recording.cam0] + (recording.cam1.map { [$0] } ?? [])
        let footprint = recording.groundTruth.flatMap { s in [s.T_W_B.translation] + cameras.map { (s.T_W_B * $0.T_B_C).translation } }
        var centres: [[String: Vec3]] = []
        for seed: UInt64 in [1, 2, 3] {
            let (scene, fit) = try fitted(seed)
            #expect(fit.options.arrangementSeed == seed)
            #expect(fit.enclosureMin == builtInFit.enclosureMin && fit.enclosureMax == builtInFit.enclosureMax)
            #expect(fit.notPlaced.isEmpty)
            #expect(Set(fit.furniture.map(\.name)) == Set(builtInFit.furniture.map(\.name)))
            for f in fit.furniture {
                #expect(f.min.x >= fit.enclosureMin.x && f.max.x <= fit.enclosureMax.x && f.min.y >= fit.enclosureMin.y
                        && f.max.y <= fit.enclosureMax.y)
                for p in footprint {
                    let dx = max(f.min.x - p.x, 0, p.x - f.max.x), dy = max(f.min.y - p.y, 0, p.y - f.max.y)
                    #expect((dx * dx + dy * dy).squareRoot() >= 0.5 - 1e-9, "seed \(seed): \(f.name) is within 0.5 m of the trajectory")
                }
            }
            // Sizes and heights are the built-in pieces'; positions and textures are not.
            let sizes = { (r: SceneFitReport) in Dictionary(uniqueKeysWithValues: r.furniture.map { ($0.name, ($0.max - $0.min).z) }) }
            #expect(sizes(fit) == sizes(builtInFit))
            let moved = fit.furniture.filter { f in
                let b = builtInFit.furniture.first { $0.name == f.name }!
                return ((f.min + f.max) / 2 - (b.min + b.max) / 2).norm > 0.3
            }
            #expect(moved.count >= 3, "seed \(seed) moved only \(moved.map(\.name))")
            #expect(zip(scene.surfaces, builtIn.surfaces).filter { $0.texture == $1.texture }.count < scene.surfaces.count / 2)
            // Measurement pairs follow the furniture.
            let tableA = try #require(fit.furniture.first { $0.name == "tableA" })
            let height = try #require(scene.measurements.first { $0.name == "tableA.height" })
            #expect(abs(height.b_W.z - tableA.topHeight) < 1e-9 && abs(height.distance - 0.75) < 1e-9)
            #expect(height.b_W.x >= tableA.min.x - 1e-9 && height.b_W.x <= tableA.max.x + 1e-9)
            centres.append(Dictionary(uniqueKeysWithValues: fit.furniture.map { ($0.name, ($0.min + $0.max) / 2) }))
            let (again, _) = try fitted(seed)
            #expect(try again.jsonData() == scene.jsonData())
        }
        #expect(centres[0] != centres[1] && centres[1] != centres[2])
    }

    @Test("a recording whose imu0 T_BS is not the identity is refused, naming the file")
    func nonIdentityIMUExtrinsicsRefused() throws {
        let source = try Self.recordingPath()
        let copy = SimDatasets.temporaryPath("rec-imu-tbs")
        try FileManager.default.copyItem(atPath: source, toPath: copy)
        let yaml = copy + "/mav0/imu0/sensor.yaml"
        var text = try String(contentsOfFile: yaml, encoding: .utf8)
        text = text.replacingOccurrences(of: "data: [1.0, 0.0, 0.0, 0.0,", with: "data: [1.0, 0.0, 0.0, 0.05,")
        try text.write(toFile: yaml, atomically: true, encoding: .utf8)
        #expect(text.contains("0.05"))
        do {
            _ = try Recording(path: copy)
            Issue.record("a non-identity imu0 T_BS was accepted")
        } catch let e as RecordingError {
            #expect(e.path == yaml && e.reason.contains("T_BS is not the identity"))
        }
    }

    @Test("EuRoC V1_01: IMU rows byte-identical to the recording's lines, frames at its ground-truth stamps",
          .enabled(if: RecordingSimulationTests.eurocPath != nil, "needs ../shared/datasets/euroc-v101-micro (absent: skipped)"))
    func eurocV101() throws {
        let path = try #require(Self.eurocPath)
        let recording = try Recording(path: path)
        #expect(recording.cam1 != nil && recording.imuRows.rows.count == 29120)
        let out = SimDatasets.temporaryPath("from-euroc")
        var render = RenderOptions.fast
        render.edgeSamples = 1
        let summary = try RecordingDatasetWriter.write(
            RecordingSimulationConfig(recording: recording, start_s: 60, seconds: 0.5, render: render), to: out)
        #expect(summary.framesPerCamera == 11)
        let gtTimes = Set(recording.groundTruth.map(\.t_ns))
        let stamps = try Self.dataLines(out + "/mav0/cam0/data.csv").map { TimestampNs($0.split(separator: ",")[0])! }
        #expect(stamps.allSatisfy { gtTimes.contains($0) })
        let first = try #require(stamps.first)
        #expect(abs(first - (recording.groundTruth[0].t_ns + 60_000_000_000)) < 25_000_000)
        let linesIn = Set(try String(contentsOfFile: path + "/mav0/imu0/data.csv", encoding: .utf8).split(separator: "\n"))
        let linesOut = try String(contentsOfFile: out + "/mav0/imu0/data.csv", encoding: .utf8).split(separator: "\n")
        #expect(abs((linesOut.count - 1) - 501) <= 2)   // [first − 1 s, last + 1 s] at 200 Hz (EuRoC's stamps jitter)
        #expect(linesOut.allSatisfy { linesIn.contains($0) })
    }

    /// The shared EuRoC excerpt, or `nil` (with a notice) when absent.
    static let eurocPath: String? = SharedDatasets.path("euroc-v101-micro")
}
