import Consumers
import Evaluation
import Foundation
import Geometry
import Pipeline
import Sensors
import Simulation
import Testing
import TestSupport

/// The world layer on real motion: the first 30 s of EuRoC V1_01 (real IMU, real flight) rendered in a fitted room
/// (`RecordedImuAccuracyTests.sequence`, shared with that suite), measured with taps planned from the scene
/// (`MeasurementTapPlanner`, as `worldtrack-bench --world` does) and scored against it (`WorldCheckScore`).
///
/// Today (docs/ACCURACY.md, "World on real motion"): see the limits' comments. A tap landing on the wrong surface
/// (a plane's polygon or extension where the surface is not) shows up as a length tens of percent off; a σ that
/// ignores the plane's landmark σ as taps outside 2 σ; a phantom plane or a plane fitted to two levels at once as a
/// phantom or a height error.
@Suite("World layer on real motion (EuRoC V1_01 from its recording, 30 s)",
       .enabled(if: SharedDatasets.eurocMicroIsPresent, "needs ../shared/datasets/euroc-v101-micro (absent: skipped)"))
struct WorldOnRealMotionTests {
    /// Plans the taps, tracks the sequence with the measure consumer, and scores the measurements and final planes.
    static func score(stereo: Bool) throws -> WorldCheckScore {
        let path = try RecordedImuAccuracyTests.sequence.get()
        let dataset = try ASLDataset(path: path)
        let cam0 = try #require(dataset.cameras.first)
        let scene = try Scene.load(jsonFile: path + "/scene.json")
        let truth = try TrajectoryFile.readASLGroundTruth(path: try #require(dataset.groundTruthPath))
        let taps = MeasurementTapPlanner(scene: scene, camera: cam0.calibration, frameTimes: cam0.frames.map(\.t_ns),
                                         groundTruth: truth).plan()
        // One file per mode: the mono and stereo tests run in parallel, and a shared file was read half-written.
        let tapsFile = SimSequenceCache.scratchRoot + "/world-real-taps-\(stereo ? "stereo" : "mono").json"
        try MeasurementTapPlanner.tapsJSON(taps).write(to: URL(fileURLWithPath: tapsFile))
        var options = PipelineOptions()
        options.stereo = stereo
        var measured: [String: MeasurementRecord] = [:]
        var planes: [(id: String, classification: String, boundary: [Vec3])] = []
        let summary = try TrackingPipeline(dataset: dataset, options: options,
                                           consumers: [try ConsumerFactory.make("measure:taps=\(tapsFile)")]).run(onFrame: { r in
            for case let m as MeasurementRecord in r.records { measured[m.label ?? ""] = m }
            if r.world.isTrackingNormal {
                planes = r.world.planes.filter { $0.alignment == .horizontal }.map { ($0.id, $0.classification.rawValue, $0.boundary) }
            }
        })
        let align = try Evaluator.evaluate(estimate: summary.bodyTrajectory,
                                           groundTruth: truth.map { StampedPose(t_ns: $0.t_ns, pose: $0.T_W_B) },
                                           options: EvaluationOptions(alignment: .posyaw)).transform
        let outcomes = taps.map { tap in
            let m = measured[tap.label]
            return TapOutcome(tap: tap, status: m?.status ?? "failed", reason: m?.reason ?? "no record", total: m?.total,
                              totalStd: m?.total_std)
        }
        let observed = planes.map { p -> ObservedPlane in
            let b = p.boundary.map { align.act($0) }
            return ObservedPlane(id: p.id, classification: p.classification, height: b.map(\.z).reduce(0, +) / Double(max(1, b.count)),
                                 boundary: b.map { Vec2($0.x, $0.y) })
        }
        let score = WorldCheckScore(taps: outcomes, planes: observed, scene: scene)
        print(score.text(title: "V1_01 from its recording, 30 s, \(stereo ? "stereo" : "mono")"))
        return score
    }

    // Limits: about 1.5× today's figures on this sequence (docs/ACCURACY.md, "World on real motion"); the same
    // check before the tap checks and the plane concentration test gave mono 16.6 % median with 22 taps beyond
    // 10 % and a phantom plane at 0.43 m, stereo 13.8 % with 19 beyond 10 %. The first 30 s hold the take-off and
    // the first minutes of mapping, so they are well off the full flight's figures (mono 2 %, stereo 1 %).

    @Test("30 s, mono + IMU: no phantom plane, heights within 4 cm; taps: few wrong lengths, σ honest")
    func mono() throws {
        let s = try Self.score(stereo: false)
        try Self.expectPlanes(s, maxHeightError: 0.04)  // today: tableA's top 2.7 cm high, mapped in the first 10 s
        // Before the appearance check 10 of 40 measured, median 1.78 %, 2 beyond 10 % (table B's top end-on, −85 %;
        // box B's inset height, +16 %), 90 % within 2 σ. Before the mono bias random walk's release after 15 s and the grazing-rim tap
        // check (eighteenth session): 13, 2.81 %, 2, 85 %; the release alone: 13, 2.81 %, 5, 69 % (the cabinet's far
        // corners, seen from just above its top, measured on its front's extension: −90 %, −91 %).
        // Which taps land on a wrong surface changes from one draw of the image noise to the next: the same 30 s
        // rendered with seeds 4–7 gives medians of 1.1–3.3 %, 2, 0, 1, 0 beyond 10 % and 88–100 % within 2 σ
        // (before the mono map-reuse gap of 1 s: 0 here, and 2, 2, 1, 1 and 82–87 % there), so the limits sit
        // above that spread. Before the height split of horizontal components (box B's plane held box C's top,
        // 14 cm lower: its taps −21 %) and the estimated plane's checks: 12 measured, 5.22 %, 4 beyond 10 %, 67 %
        // within 2 σ.
        // Since the frontend's appearance check (thirty-first session): 8 measured, median 2.22 %, none beyond 10 %,
        // 100 % within 2 σ, worst plane 2.4 cm: two taps fewer are measured, and the two wrong lengths are gone.
        #expect(s.taps.count >= 25)
        #expect(s.ok.count >= 7)
        #expect((s.medianRelativeError ?? 1) <= 0.04)
        #expect(s.beyond10Percent.count <= 3)
        #expect(s.within2SigmaFraction >= 0.75)
    }

    @Test("30 s, stereo + IMU: no phantom plane, heights within 2 cm; taps: few wrong lengths, σ honest")
    func stereo() throws {
        let s = try Self.score(stereo: true)
        try Self.expectPlanes(s, maxHeightError: 0.02)
        // Today 13 of 40 measured, median 0.55 %, 2 beyond 10 % (box A's height twice: the camera is level with its
        // top, the ray passes the unmapped box to the wall behind), 85 % within 2 σ (before the grazing-rim check:
        // 14, 0.70 %, 3 with the cabinet's inset height seen from just above its top, −21 %, 79 %). The same
        // 30 s rendered with seeds 4–7 (stereo) gives 14, 17, 14, 13 measured, medians 0.67–1.11 %, 2, 5, 3, 3 beyond
        // 10 % and 71–86 % within 2 σ, so the limits sit above that spread. Before the fourteenth session's tap
        // checks (a sparse top's rim, the margin beside a top, a face's rim seen from above, an oblique estimated
        // plane): 19, 0.85 %, 6 beyond 10 %, 74 %; before the plane concentration test 21, 3.36 %, 7, 57 %.
        #expect(s.taps.count >= 25)
        #expect(s.ok.count >= 11)
        #expect((s.medianRelativeError ?? 1) <= 0.025)
        #expect(s.beyond10Percent.count <= 6)
        #expect(s.within2SigmaFraction >= 0.65)
    }

    static func expectPlanes(_ s: WorldCheckScore, maxHeightError: Double) throws {
        #expect(s.planes.contains { $0.surface == "floor" && !$0.phantom })
        #expect(s.phantoms.isEmpty)
        #expect(s.worstHeightError <= maxHeightError)
    }

    @Test("the score: a plane over no surface at its height is a phantom; one over the floor is scored by its height")
    func scoring() throws {
        var b = SceneBuilder()
        try b.addRectangle(name: "floor", kind: .floor, center_W: Vec3(0, 0, 0), normal_W: Vec3(0, 0, 1), axisU: Vec3(1, 0, 0),
                           halfU: 3, axisV: Vec3(0, 1, 0), halfV: 3)
        try b.addBox(name: "box", min_W: Vec3(1, 1, 0), max_W: Vec3(1.5, 1.5, 0.5))
        let scene = b.build(name: "t", walkArea: WalkArea(center: .zero, radii: Vec2(1, 1), eyeHeight: 1.5),
                            orbitTarget: OrbitTarget(center: .zero, radius: 1, eyeHeight: 1.5))
        func square(_ x: Double, _ y: Double, _ s: Double) -> [Vec2] { [Vec2(x, y), Vec2(x + s, y), Vec2(x + s, y + s), Vec2(x, y + s)] }
        let score = WorldCheckScore(taps: [], planes: [
            ObservedPlane(id: "floor", classification: "floor", height: 0.012, boundary: square(-2, -2, 2)),
            ObservedPlane(id: "box", classification: "table", height: 0.49, boundary: square(1.05, 1.05, 0.4)),
            // Half-way between the floor and the box top, over both: no surface within 5 cm of 0.25 m.
            ObservedPlane(id: "ghost", classification: "table", height: 0.25, boundary: square(0.5, 0.5, 1.2)),
        ], scene: scene)
        let v = Dictionary(uniqueKeysWithValues: score.planes.map { ($0.plane.id, $0) })
        #expect(v["floor"]?.phantom == false && abs((v["floor"]?.heightError ?? 1) - 0.012) < 1e-9)
        #expect(v["box"]?.phantom == false && v["box"]?.surface == "box.top" && abs((v["box"]?.heightError ?? 1) + 0.01) < 1e-9)
        #expect(v["ghost"]?.phantom == true)
        #expect(abs(score.worstHeightError - 0.012) < 1e-9)
    }
}
