import Consumers
import Evaluation
import Foundation
import Geometry
import Pipeline
import Sensors
import Simulation
import World

/// `worldtrack-bench --world DATASET`: the world layer on a sequence rendered from a scene (`simulate`, with or
/// without `--from-recording`): plans measurement taps of known length from `scene.json` and the ground truth
/// (`MeasurementTapPlanner`), writes them as a `measure:taps=FILE` file, tracks the dataset mono and stereo with
/// that consumer (the pipeline of `worldtrack run … --consumer measure:taps=FILE`, in process), and scores the
/// measurements and the final horizontal planes against the scene (`WorldCheckScore`), the horizontal planes shown
/// during the run (`planesDuringTheRun`) and the final vertical ones (`verticalPlanes`), after mapping the estimate
/// into the scene's frame with the posyaw alignment of the whole estimated trajectory to the ground truth. The final
/// horizontal planes are scored a second time through the ground truth levelled by gravity (`levelledPlanes`). The
/// landmark map's σ is compared with its true errors at the frames the taps were measured on (`MapSigmaCheck`).
enum WorldCheck {
    /// The figures of one run, for `--json`.
    struct Result: Encodable {
        var dataset: String
        var stereo: Bool
        var tapsFile: String
        var score: WorldCheckScore
        var medianRelativeError: Double?
        var beyond10Percent: Int
        var within2SigmaFraction: Double
        var failed: Int
        var phantomPlanes: Int
        var worstHeightError_m: Double
        /// The same against the ground truth levelled by gravity (`levelledPlanes`); nil where gravity cannot be
        /// measured from the recording.
        var worstHeightErrorLevelled_m: Double?
        var ateRmse_m: Double
    }

    /// Plans the taps of `path` and writes them to `tapsFile`; returns the plan.
    static func planTaps(path: String, tapsFile: String) throws -> [PlannedTap] {
        let dataset = try ASLDataset(path: path)
        guard let cam0 = dataset.cameras.first else { throw BenchError("\(path): no camera") }
        let scene = try Scene.load(jsonFile: path + "/scene.json")
        guard let gtPath = dataset.groundTruthPath else { throw BenchError("\(path): no ground truth") }
        let truth = try TrajectoryFile.readASLGroundTruth(path: gtPath)
        let planner = MeasurementTapPlanner(scene: scene, camera: cam0.calibration, frameTimes: cam0.frames.map(\.t_ns),
                                            groundTruth: truth, timeOffset_ns: try timeOffset(path))
        let taps = planner.plan()
        try MeasurementTapPlanner.tapsJSON(taps).write(to: URL(fileURLWithPath: tapsFile))
        return taps
    }

    /// `simulation.timeOffsetNs` of `scene.json` (0 when absent).
    static func timeOffset(_ path: String) throws -> Int64 {
        let data = try Data(contentsOf: URL(fileURLWithPath: path + "/scene.json"))
        let obj = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return ((obj?["simulation"] as? [String: Any])?["timeOffsetNs"] as? NSNumber)?.int64Value ?? 0
    }

    /// Tracks `path` with the taps and scores the result; `options` are the settings to track with (its `stereo` is
    /// replaced by `stereo`).
    static func run(path: String, stereo: Bool, taps: [PlannedTap], tapsFile: String,
                    options base: PipelineOptions = PipelineOptions(), baseline: Bool = false,
                    log: (String) -> Void) throws -> Result {
        let dataset = try ASLDataset(path: path)
        let scene = try Scene.load(jsonFile: path + "/scene.json")
        var options = base
        options.stereo = stereo
        options.world.detector.rejectDiffuseLevels = !baseline
        let consumer = try MeasureConsumer(spec: ConsumerSpec(parsing: "measure:taps=\(tapsFile)"))
        consumer.checker.enabled = !baseline
        var measured: [String: MeasurementRecord] = [:]
        var lastPlanes: [PlaneAnchorSnapshot] = []
        var lastLandmarks: [Vec3] = []
        var lastWalls: [PlaneAnchor] = []
        // The ground truth, to place the estimate's frame at each tap in the truth's (`WT_TAP_DIAG`, `MapSigmaCheck`).
        guard let gtPath = dataset.groundTruthPath else { throw BenchError("\(path): no ground truth") }
        let truthRows = try TrajectoryFile.readASLGroundTruth(path: gtPath).sorted { $0.t_ns < $1.t_ns }
        let diagOffset = try timeOffset(path)
        let T_B_C = dataset.cameras.first?.calibration.T_B_C ?? .identity
        let tapsByLabel = Dictionary(uniqueKeysWithValues: taps.map { ($0.label, $0) })
        var previousWorld: WorldFrame?
        // The map's σ against the truth at every frame a tap was measured on.
        var sigmaCheck = MapSigmaCheck()
        var sigmaCheckedFrame: TimestampNs?
        // The horizontal planes as the stream showed them during the run, once a second (the final ones are scored
        // below; a plane that was a phantom for a while and then went or moved is seen only here).
        var shown: [(t_ns: TimestampNs, camera_W: Vec3, plane: PlaneAnchorSnapshot)] = []
        // The vertical planes likewise, with the landmarks of the moment (a wall's verdict counts what lies on it).
        var shownWalls: [(t_ns: TimestampNs, walls: [PlaneAnchor], landmarks: [Vec3])] = []
        var frames = 0, firstFrame_ns: TimestampNs?
        log("world: tracking \(path) \(stereo ? "stereo" : "mono") with \(taps.count) taps "
            + "(worldtrack run \(path)\(stereo ? " --stereo" : "") --consumer measure:taps=\(tapsFile)) …")
        let summary = try TrackingPipeline(dataset: dataset, options: options, consumers: [consumer]).run(onFrame: { r in
            for case let m as MeasurementRecord in r.records {
                measured[m.label ?? ""] = m
                // The record's frame (the consumer measures on the frame nearest the tap, this one or the one
                // before; both share the session, which already holds this frame's map and planes).
                let frame = previousWorld.map { $0.t_ns == m.t_ns ? $0 : r.world } ?? r.world
                let want = frame.t_ns + diagOffset
                let row = truthRows.min { abs($0.t_ns - want) < abs($1.t_ns - want) }
                if sigmaCheckedFrame != frame.t_ns, let row {
                    sigmaCheckedFrame = frame.t_ns
                    sigmaCheck.add(frame: frame, T_true_est: row.T_W_B * T_B_C * frame.T_W_C.inverse, scene: scene)
                }
                if let label = m.label, TapDiagnostics.wants(label), let tap = tapsByLabel[label] {
                    TapDiagnostics.dump(tap: tap, record: m, frame: frame, T_W_C_true: row.map { $0.T_W_B * T_B_C }, scene: scene) {
                        FileHandle.standardError.write(Data(($0 + "\n").utf8))
                    }
                }
            }
            previousWorld = r.world
            if r.world.isTrackingNormal, frames % 20 == 0 {
                shown += r.world.planes.filter { $0.alignment == .horizontal }.map {
                    (r.world.t_ns, r.world.T_W_C.translation,
                     PlaneAnchorSnapshot(id: $0.id, classification: $0.classification.rawValue, boundary: $0.boundary))
                }
                let walls = r.world.planes.filter { $0.alignment == .vertical }
                if !walls.isEmpty { shownWalls.append((r.world.t_ns, walls, r.world.session.map.all.map(\.p_W))) }
            }
            frames += 1
            if firstFrame_ns == nil { firstFrame_ns = r.world.t_ns }
            if r.world.isTrackingNormal {
                lastLandmarks = r.world.session.map.all.map(\.p_W)
                lastWalls = r.world.planes.filter { $0.alignment == .vertical }
                lastPlanes = r.world.planes.filter { $0.alignment == .horizontal }.map {
                    PlaneAnchorSnapshot(id: $0.id, classification: $0.classification.rawValue, boundary: $0.boundary)
                }
            }
        })
        let truth = truthRows.map { StampedPose(t_ns: $0.t_ns, pose: $0.T_W_B) }
        if let line = sigmaCheck.summary() { log(line) }
        let report = try Evaluator.evaluate(estimate: summary.bodyTrajectory, groundTruth: truth,
                                            options: EvaluationOptions(alignment: .posyaw))
        let align = report.transform
        let outcomes = taps.map { tap -> TapOutcome in
            guard let m = measured[tap.label] else {
                return TapOutcome(tap: tap, status: "failed", reason: "no record", total: nil, totalStd: nil)
            }
            let trueRanges = [tap.a_W, tap.b_W].map { String(format: "%.2f", ($0 - tap.camera_W).norm) }
            let ends = m.points.map { "\($0.target)\($0.plane_id.map { "/" + $0 } ?? "") d=\(String(format: "%.2f", $0.distance))" }
            let detail = "true ranges \(trueRanges.joined(separator: ", ")); " + ends.joined(separator: "; ")
            return TapOutcome(tap: tap, status: m.status, reason: m.reason.map(Self.category), total: m.total, totalStd: m.total_std,
                              detail: detail)
        }
        let planes = lastPlanes.map { p -> ObservedPlane in
            p.observed(through: align)
        }
        let score = WorldCheckScore(taps: outcomes, planes: planes, scene: scene)
        let levelled = try levelledPlanes(path: path, estimate: summary.bodyTrajectory, truth: truth, planes: lastPlanes,
                                          scene: scene)
        if let levelled { log(levelled.line) }
        // The true camera at each snapshot, for the planes' heights against the camera.
        let cameraTruth: (TimestampNs) -> Vec3? = { t in
            let want = t + diagOffset
            return truthRows.min { abs($0.t_ns - want) < abs($1.t_ns - want) }.map { ($0.T_W_B * T_B_C).translation }
        }
        log(planesDuringTheRun(shown, since: firstFrame_ns ?? 0, align: align, scene: scene, cameraTruth: cameraTruth))
        // Diagnostics: what the landmarks of each phantom plane lie on (the scene surface within 5 cm, if any).
        for v in score.planes where v.phantom || v.overextended {
            var on: [String: Int] = [:]
            for l in lastLandmarks.map({ align.act($0) }) where abs(l.z - v.plane.height) <= 0.05
                && WorldCheckScore.contains(v.plane.boundary, Vec2(l.x, l.y)) {
                on[scene.surface(near: l, reach: 0.05)?.name ?? "nothing", default: 0] += 1
            }
            log("world: phantom \(v.plane.id) at \(v.plane.height) m: its landmarks lie on " + on.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        log(verticalPlanes(lastWalls, landmarks: lastLandmarks, align: align, scene: scene))
        log(verticalPlanesDuringTheRun(shownWalls, since: firstFrame_ns ?? 0, align: align, scene: scene))
        return Result(dataset: path, stereo: stereo, tapsFile: tapsFile, score: score,
                      medianRelativeError: score.medianRelativeError, beyond10Percent: score.beyond10Percent.count,
                      within2SigmaFraction: score.within2SigmaFraction, failed: score.taps.count - score.ok.count,
                      phantomPlanes: score.phantoms.count, worstHeightError_m: score.worstHeightError,
                      worstHeightErrorLevelled_m: levelled?.score.worstHeightError,
                      ateRmse_m: report.ate.position.rmse)
    }

    /// The final vertical planes against the scene: each plane's landmarks (within its inlier band, inside its
    /// polygon) mapped by `align` onto the scene's surfaces (the nearest within the plane's band, at least 5 cm). A plane is mixed when no
    /// surface holds half of them (a fit through several objects: a table's legs, a box's side and the wall behind);
    /// otherwise its normal is compared with that surface's, and it is turned when they differ by more than 10°.
    static func verticalPlanes(_ walls: [PlaneAnchor], landmarks: [Vec3], align: SimilarityTransform, scene: Scene) -> String {
        var mixed: [String] = [], turned: [String] = []
        for w in walls {
            switch verticalVerdict(w, landmarks: landmarks, align: align, scene: scene) {
            case .mixed(let line): mixed.append(line)
            case .turned(let line): turned.append(line)
            case .ok: break
            }
        }
        return "vertical planes \(walls.count): mixed \(mixed.count), turned more than 10° \(turned.count)"
            + (mixed.isEmpty ? "" : "; mixed: " + mixed.joined(separator: ", "))
            + (turned.isEmpty ? "" : "; turned: " + turned.joined(separator: ", "))
    }

    /// A vertical plane's verdict (`verticalPlanes`), with a description of it for the report.
    enum VerticalVerdict { case ok, mixed(String), turned(String) }

    /// Scores one vertical plane against the scene (see `verticalPlanes`).
    static func verticalVerdict(_ w: PlaneAnchor, landmarks: [Vec3], align: SimilarityTransform, scene: Scene) -> VerticalVerdict {
        let local = w.T_W_P.inverse
        let n = align.rotation.act(w.normal_W)
        var on: [String: Int] = [:], members = 0
        for p in landmarks {
            let q = local.act(p)
            guard abs(q.z) <= w.inlierBand_m, WorldCheckScore.contains(w.boundaryLocal, Vec2(q.x, q.y)) else { continue }
            members += 1
            let x = align.act(p)
            if let surface = scene.surface(near: x, reach: max(0.05, w.inlierBand_m)) { on[surface.name, default: 0] += 1 }
        }
        let best = on.max { ($0.value, $1.key) < ($1.value, $0.key) }
        let line = String(format: "%@ (%.2f m², %d landmarks, %d on %@", w.id as NSString, w.area_m2, members,
                          best?.value ?? 0, (best?.key ?? "nothing") as NSString)
        if members == 0 || 2 * (best?.value ?? 0) < members {
            return .mixed(line + ")")
        } else if let name = best?.key, let surface = scene.surfaces.first(where: { $0.name == name }) {
            let angle = acos(min(1, abs(surface.normal_W.dot(n)))) * 180 / Double.pi
            if angle > 10 { return .turned(line + String(format: ", normal %.0f° off)", angle)) }
        }
        return .ok
    }

    /// The vertical planes shown during the run (`shown`: once a second, with the landmarks of that moment), each
    /// scored as the final ones are (`verticalVerdict`): how many planes were ever mixed or turned, with when (seconds
    /// since `since`, the run's first frame). A plane that was wrong for a while and then went or was corrected is
    /// seen only here.
    static func verticalPlanesDuringTheRun(_ shown: [(t_ns: TimestampNs, walls: [PlaneAnchor], landmarks: [Vec3])],
                                           since t0: TimestampNs, align: SimilarityTransform, scene: Scene) -> String {
        var ids = Set<String>()
        var wrong: [String: (kind: String, times: [Double], first: String)] = [:]
        for s in shown {
            let t = Double(s.t_ns - t0) * 1e-9
            for w in s.walls {
                ids.insert(w.id)
                let (kind, line): (String, String)
                switch verticalVerdict(w, landmarks: s.landmarks, align: align, scene: scene) {
                case .ok: continue
                case .mixed(let l): (kind, line) = ("mixed", l)
                case .turned(let l): (kind, line) = ("turned", l)
                }
                if wrong[w.id] == nil { wrong[w.id] = (kind, [], line) }
                wrong[w.id]!.times.append(t)
            }
        }
        let mixed = wrong.values.filter { $0.kind == "mixed" }.count
        var line = "vertical planes during the run (every second): \(ids.count), ever mixed \(mixed), ever turned more than 10° "
            + "\(wrong.count - mixed)"
        if !wrong.isEmpty {
            line += " (" + wrong.keys.sorted().map { id in
                let w = wrong[id]!
                return String(format: "%@ %.0f–%.0f s, %d snapshots, first %@", w.kind as NSString, w.times.min()!, w.times.max()!,
                              w.times.count, w.first as NSString)
            }.joined(separator: "; ") + ")"
        }
        return line
    }

    /// The horizontal planes shown during the run (`shown`: snapshots with the estimated camera position, mapped by
    /// `align` into the scene's frame) scored as the final ones are: how many planes were ever a phantom (with when,
    /// and at what height), and the worst height error any plane had while it was shown, in the scene's frame and
    /// against the camera (the plane's height above or below the estimated camera against the true surface's below
    /// the true camera, `cameraTruth`): the first is the world as the whole run's alignment sees it, the second as
    /// the user then saw it. Times are seconds since `since` (the run's first frame).
    static func planesDuringTheRun(_ shown: [(t_ns: TimestampNs, camera_W: Vec3, plane: PlaneAnchorSnapshot)], since t0: TimestampNs,
                                   align: SimilarityTransform, scene: Scene, cameraTruth: (TimestampNs) -> Vec3?) -> String {
        guard !shown.isEmpty else { return "horizontal planes during the run: none shown" }
        let planes = shown.map { s -> (TimestampNs, ObservedPlane) in
            (s.t_ns, s.plane.observed(through: align))
        }
        let verdicts = WorldCheckScore(taps: [], planes: planes.map(\.1), scene: scene).planes
        var phantomTimes: [String: [Double]] = [:], phantomHeights: [String: Double] = [:]
        var worst: (error: Double, id: String, t: Double)?, worstRelative: (error: Double, id: String, t: Double)?
        let horizontal = scene.surfaces.filter { abs($0.normal_W.z) > 0.999 }
        for (k, ((t, _), v)) in zip(planes, verdicts).enumerated() {
            let s = Double(t - t0) * 1e-9
            if v.phantom {
                phantomTimes[v.plane.id, default: []].append(s); phantomHeights[v.plane.id] = v.plane.height
            } else if let e = v.heightError, abs(e) > abs(worst?.error ?? 0) {
                worst = (e, v.plane.id, s)
            }
            // Against the camera: the surface it stands for (or, for a phantom, the nearest in height under it).
            if let name = v.surface, let surface = horizontal.first(where: { $0.name == name }), let c = cameraTruth(t) {
                let e = (v.plane.height - align.act(shown[k].camera_W).z) - (surface.corners_W[0].z - c.z)
                if abs(e) > abs(worstRelative?.error ?? 0) { worstRelative = (e, v.plane.id, s) }
            }
        }
        let ids = Set(planes.map(\.1.id))
        var line = String(format: "horizontal planes during the run (every second; times from the first frame): %d, ever a phantom %d",
                          ids.count, phantomTimes.count)
        if !phantomTimes.isEmpty {
            line += " (" + phantomTimes.keys.sorted().map { id in
                let ts = phantomTimes[id]!
                return String(format: "%@ at %.2f m, %.0f–%.0f s, %d snapshots", id as NSString, phantomHeights[id]!, ts.min()!, ts.max()!, ts.count)
            }.joined(separator: "; ") + ")"
        }
        if let w = worst { line += String(format: "; worst height error while shown %+.1f cm (%@ at %.0f s)", 100 * w.error, w.id as NSString, w.t) }
        if let w = worstRelative {
            line += String(format: ", against the camera %+.1f cm (%@ at %.0f s)", 100 * w.error, w.id as NSString, w.t)
        }
        return line
    }

    /// The final horizontal planes scored again with the estimate mapped into the scene's frame through the ground
    /// truth levelled by gravity: posyaw to the levelled ground truth (gravity measured in its frame from the
    /// recording's own IMU, `GroundTruthGravity`, as `eval --level-groundtruth`), then the levelling undone. Posyaw
    /// keeps the vertical, so against the ground truth as given it turns a tilt of the ground truth's own frame into
    /// height errors that grow with the distance from the trajectory's centre (V1_01's frame is 0.237° off gravity:
    /// 1.4 cm at 3.5 m), where a perfect estimate would show none; through the levelled one it maps exactly onto the
    /// scene. Nil when gravity cannot be measured (no IMU, or too short), or only with the accelerometer's bias taken as
    /// zero (a ground truth without bias columns: the bias would then read as a tilt), as `bench-suite` does.
    static func levelledPlanes(path: String, estimate: [StampedPose], truth: [StampedPose], planes: [PlaneAnchorSnapshot],
                               scene: Scene) throws -> (score: WorldCheckScore, line: String)? {
        guard let gravity = try? GroundTruthGravity.measure(datasetFolder: path), gravity.usedGroundTruthBias else { return nil }
        let report = try Evaluator.evaluate(estimate: estimate, groundTruth: truth.map { StampedPose(t_ns: $0.t_ns, pose: gravity.levelled($0.pose)) },
                                            options: EvaluationOptions(alignment: .posyaw))
        let R_W_L = gravity.R_L_W.inverse
        let align = SimilarityTransform(rotation: R_W_L * report.transform.rotation,
                                        translation: R_W_L.act(report.transform.translation), scale: report.transform.scale)
        let observed = planes.map { p -> ObservedPlane in
            p.observed(through: align)
        }
        let score = WorldCheckScore(taps: [], planes: observed, scene: scene)
        let each = score.planes.compactMap { v in v.heightError.map { String(format: "%@ %+.1f cm", v.plane.id as NSString, 100 * $0) } }
        let line = String(format: "final horizontal planes through the ground truth levelled by gravity (%.3f°): phantom %d, worst height error %.1f cm",
                          gravity.tilt_rad * 180 / .pi, score.phantoms.count, 100 * score.worstHeightError)
            + (each.isEmpty ? "" : " (" + each.joined(separator: ", ") + ")")
        return (score, line)
    }

    /// A failure reason without its tap-specific numbers (pixel coordinates), so reasons can be counted.
    static func category(_ reason: String) -> String {
        reason.replacingOccurrences(of: #"\([-0-9.e, ]+\)"#, with: "(…)", options: .regularExpression)
    }

    /// A horizontal plane as the stream showed it: id, classification, boundary (estimate's world frame, metres).
    struct PlaneAnchorSnapshot {
        var id: String; var classification: String; var boundary: [Vec3]

        /// The plane in the scene's frame through `align` (estimate → scene): its height the mean z of its mapped
        /// boundary, metres, and that boundary's (x, y).
        func observed(through align: SimilarityTransform) -> ObservedPlane {
            let b = boundary.map { align.act($0) }
            let h = b.map(\.z).reduce(0, +) / Double(max(1, b.count))
            return ObservedPlane(id: id, classification: classification, height: h, boundary: b.map { Vec2($0.x, $0.y) })
        }
    }
}

/// A bench failure with a message.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

extension Scene {
    /// The surface nearest to `x` (the scene's frame, metres) of those within `reach` metres of it, both off its plane
    /// and outside its polygon; nil when none is.
    func surface(near x: Vec3, reach: Double) -> SceneSurface? {
        surfaces.filter { abs($0.normal_W.dot(x) - $0.offset) <= reach && $0.contains(planePoint: $0.planeCoordinates(x), tolerance: reach) }
            .min { abs($0.normal_W.dot(x) - $0.offset) < abs($1.normal_W.dot(x) - $1.offset) }
    }
}
