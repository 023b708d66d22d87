import Consumers
import Foundation
import Geometry
import Simulation
import World

/// `WT_TAP_DIAG=label,label|all` (environment) with `worldtrack-bench --world`: what the world held around each tapped
/// pixel when the tap was measured, on stderr: the planes (with their classification), every plane the ray crosses
/// (geometry with the consumer's 15 cm horizontal margin, and infinite, with how far outside its polygon), the
/// estimated plane (with its normal's tilt σ), the chosen hit, the hits of rays 4, 8 and 16 px around it in 8
/// directions, the landmarks within 32 px of the ray (offset in px, depth, σ, height, time since last reported), and
/// where the true point lies in the estimate's frame (the true point relative to the true camera, put at the estimated
/// camera); with the scene, for each plane the scene surfaces its landmarks lie on and the landmarks seen through it
/// (`SeeThroughTest`), the detector's candidates on the frame's map without the see-through check, with their
/// witnesses, for each landmark near the ray the surface it lies on and its depth error in metres and in its σ, and for
/// the whole map in view (8 m) how its σ compares with its depth errors (median and 90 % of |e|/σ: 0.67 and 1.64 for an
/// honest Gaussian σ), with its depth error against the nearest surface along each ray (`nearestDepthError`) and with
/// its distance to the nearest scene surface (`surfaceDistance`): the first-surface depth error jumps to the surface
/// behind wherever a landmark sits on a silhouette. `WT_TAP_DIAG_DIR=DIR` also writes `DIR/LABEL.txt`: the whole map
/// (`L id x y z σ`), the planes (`P id alignment normal offset band boundary…`) and the rays (`R pixel origin direction
/// truePoint`). A debugging aid (docs/ACCURACY.md, "World on real motion").
enum TapDiagnostics {
    /// A landmark's depth error along the true camera's ray through it (estimated minus true depth, metres): the
    /// landmark taken into the truth with this frame's pose correspondence `T_true_est`, and the scene's first surface
    /// along the ray from the true camera centre towards it; `nil` when the ray meets nothing.
    static func depthError(_ p_W: Vec3, T_true_est: SE3, cameraCentre c_W: Vec3, scene: Scene) -> Double? {
        let x = T_true_est.act(p_W), c = T_true_est.act(c_W)
        guard let hit = scene.raycast(origin_W: c, direction_W: x - c) else { return nil }
        return (x - c).norm - hit.distance
    }

    /// A landmark's distance to the nearest scene surface, metres: the landmark taken into the truth with this frame's
    /// pose correspondence `T_true_est`, then the distance to the closest point of any surface's polygon. Unlike
    /// `depthError` it does not jump at a silhouette: a landmark on a table's rim whose ray from the camera passes
    /// just past the rim is measured against the rim, not against the floor behind it. It sees only the part of the
    /// error that takes the point off its surface (not a slide along it), so it is a lower bound on the error.
    static func surfaceDistance(_ p_W: Vec3, T_true_est: SE3, scene: Scene) -> Double {
        scene.distanceToNearestSurface(T_true_est.act(p_W))
    }

    /// A landmark's depth error against the nearest surface along its ray, metres: as `depthError` (the landmark taken
    /// into the truth with `T_true_est`, the ray from the true camera centre towards it), but against whichever surface
    /// the ray crosses (inside its polygon, within `margin_m`) nearest the landmark's depth, not only the first one it
    /// meets: a landmark on a table's rim whose ray passes just past the rim is measured against the table top, not
    /// against the floor behind it. `nil` when the ray crosses no surface.
    static func nearestDepthError(_ p_W: Vec3, T_true_est: SE3, cameraCentre c_W: Vec3, scene: Scene, margin_m: Double = 0.02) -> Double? {
        let x = T_true_est.act(p_W), c = T_true_est.act(c_W)
        let depth = (x - c).norm
        return scene.crossings(origin_W: c, direction_W: x - c, margin_m: margin_m).map { depth - $0 }.min { abs($0) < abs($1) }
    }

    static let wanted: Set<String>? = ProcessInfo.processInfo.environment["WT_TAP_DIAG"].map { Set($0.split(separator: ",").map(String.init)) }

    static func wants(_ label: String) -> Bool {
        guard let w = wanted else { return false }
        return w.contains("all") || w.contains(label)
    }

    static func dump(tap: PlannedTap, record: MeasurementRecord, frame: WorldFrame, T_W_C_true: SE3?, scene: Scene? = nil,
                     log: (String) -> Void) {
        var s = "=== \(tap.label) (\(tap.kind)) true \(String(format: "%.3f", tap.length)) status \(record.status) \(record.reason ?? "")\n"
        let f = frame.camera.model.intrinsics.fx
        let cam = frame.T_W_C.translation
        s += String(format: "  camera est (%.2f %.2f %.2f)\n", cam.x, cam.y, cam.z)
        // This frame's pose correspondence: the estimate's world into the truth's, through the true camera.
        let T_true_est = T_W_C_true.map { $0 * frame.T_W_C.inverse }
        for p in frame.session.planes {
            s += String(format: "  %@ %@ %@ n=(%.2f %.2f %.2f) off %.3f σ %.3f band %.3f area %.2f pts %d\n", p.id as NSString,
                        p.alignment.rawValue as NSString, p.classification.rawValue as NSString, p.normal_W.x, p.normal_W.y,
                        p.normal_W.z, p.offset_m, p.offsetStd_m, p.inlierBand_m, p.area_m2, p.pointCount)
            // What the plane's landmarks lie on in the scene (each mapped through the true camera; the nearest
            // surface within 5 cm, "nothing" otherwise).
            if let scene, let T_true_est {
                var on: [String: Int] = [:]
                for l in frame.session.map.all where p.holds(l.p_W) {
                    on[scene.surface(near: T_true_est.act(l.p_W), reach: 0.05)?.name ?? "nothing", default: 0] += 1
                }
                let test = SeeThroughTest(T_W_P: p.T_W_P, polygon: p.boundaryLocal, margin_m: 0.05)
                let seen = frame.session.map.all.filter { test.isWitness($0, gate_m: max(p.inlierBand_m, 3 * $0.std_m)) }
                var seenOn: [String: Int] = [:]
                for l in seen { seenOn[scene.surface(near: T_true_est.act(l.p_W), reach: 0.05)?.name ?? "nothing", default: 0] += 1 }
                s += "    seen through by \(seen.count): " + seenOn.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "\n"
                s += "    on: " + on.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "\n"
            }
        }
        // The detector's candidates on this frame's map, without the see-through check, and their witnesses.
        var off = PlaneDetectorOptions(); off.rejectSeenThrough = false
        let detector = PlaneDetector(options: off)
        let all = frame.session.map.all
        for c in detector.detect(all) {
            s += String(format: "  candidate %@ n=(%.2f %.2f %.2f) off %.3f pts %d band %.3f witnesses %d (rejects at %d)\n",
                        c.alignment.rawValue as NSString, c.normal_W.x, c.normal_W.y, c.normal_W.z, c.offset_m, c.points.count,
                        c.band_m, detector.seeThroughWitnesses(c, by: all), detector.seeThroughNeeded(c))
        }
        for (i, px) in tap.pixels.enumerated() {
            guard let ray = frame.ray(pixel: px) else { continue }
            let truth = i == 0 ? tap.a_W : tap.b_W
            var trueDepth = Double.nan
            if let T = T_W_C_true {
                let pEst = frame.T_W_C.act(T.inverse.act(truth))
                trueDepth = (pEst - ray.origin_W).norm
                let off = (pEst - ray.origin_W) - trueDepth * ray.direction_W
                s += String(format: "  pixel %d (%.1f, %.1f): true point in the estimate's frame at %.3f m, %.1f px off the ray, z %.3f\n",
                            i, px.x, px.y, trueDepth, off.norm / trueDepth * f, pEst.z)
            }
            for t in [RaycastTarget.existingPlaneGeometry, .existingPlaneInfinite] {
                for h in frame.session.raycast(ray, target: t, horizontalGeometryMargin_m: 0.15) {
                    let outside = h.planeId.flatMap(frame.session.planeTracker.plane(id:))?.distanceOutsideBoundary(h.position_W)
                    s += String(format: "    %@ %@ d=%.3f cos %.2f%@\n", t.rawValue as NSString, (h.planeId ?? "-") as NSString,
                                h.distance_m, h.incidenceCosine,
                                (outside.map { $0 > 0 ? String(format: ", %.2f m outside its polygon", $0) : "" } ?? "") as NSString)
                }
            }
            if let e = frame.session.raycast(ray, target: .estimatedPlane).first {
                s += String(format: "    estimated d=%.3f n=(%.2f %.2f %.2f) σ %.3f tilt σ %.1f° cos %.2f\n", e.distance_m, e.normal_W.x,
                            e.normal_W.y, e.normal_W.z, e.surfaceStd_m, e.normalStd_rad * 180 / Double.pi, e.incidenceCosine)
            }
            if let h = frame.raycast(pixel: px, horizontalGeometryMargin_m: 0.15) {
                s += String(format: "    chosen %@ %@ d=%.3f\n", h.target.rawValue as NSString, (h.planeId ?? "-") as NSString, h.distance_m)
            }
            var ring = "    ring:"
            for r in [4.0, 8.0, 16.0] {
                ring += String(format: " r%.0f[", r)
                for k in 0..<8 {
                    let a = Double(k) * Double.pi / 4
                    let q = px + Vec2(r * cos(a), r * sin(a))
                    if let h = frame.raycast(pixel: q, horizontalGeometryMargin_m: 0.15) {
                        ring += String(format: " %@%.2f", (h.planeId?.replacingOccurrences(of: "plane-", with: "p") ?? "e") as NSString, h.distance_m)
                    } else { ring += " -" }
                }
                ring += " ]"
            }
            s += ring + "\n"
            let near = frame.session.map.landmarks(nearRayFrom: ray.origin_W, direction: ray.direction_W, maxAngle: atan(32 / f))
            // With the scene: the surface each landmark lies on (within 10 cm, through the true camera) and how far off
            // it, and its depth error (`depthError`).
            for (l, ang) in near.prefix(30) {
                let d = (l.p_W - ray.origin_W).dot(ray.direction_W)
                s += String(format: "    lm %d %.1f px depth %.3f σ %.3f z %.3f age %.1f s obs %d", l.id, tan(ang) * f, d, l.std_m, l.p_W.z,
                            Double(frame.t_ns - l.lastSeen_ns) * 1e-9, l.observations)
                if let scene, let T = T_true_est {
                    let x = T.act(l.p_W)
                    let on = scene.surface(near: x, reach: 0.1)
                    s += " on " + (on.map { String(format: "%@ (%.0f cm off)", $0.name as NSString, 100 * abs($0.normal_W.dot(x) - $0.offset)) } ?? "nothing")
                    if let e = Self.depthError(l.p_W, T_true_est: T, cameraCentre: frame.T_W_C.translation, scene: scene) {
                        s += String(format: " depth error %+.3f (%.1f σ)", e, abs(e) / l.std_m)
                    }
                }
                s += "\n"
            }
        }
        // How the map's σ compares with its landmarks' true depth errors (`MapSigmaCheck`).
        if let scene, let T = T_true_est {
            var check = MapSigmaCheck()
            check.add(frame: frame, T_true_est: T, scene: scene)
            if let summary = check.summary() { s += "  " + summary + "\n" }
        }
        log(s)
        if let dir = ProcessInfo.processInfo.environment["WT_TAP_DIAG_DIR"] {
            var lines = ["# landmark id x y z std"]
            for l in frame.session.map.all { lines.append("L \(l.id) \(l.p_W.x) \(l.p_W.y) \(l.p_W.z) \(l.std_m)") }
            for p in frame.session.planes {
                lines.append("P \(p.id) \(p.alignment.rawValue) \(p.normal_W.x) \(p.normal_W.y) \(p.normal_W.z) \(p.offset_m) \(p.inlierBand_m) "
                    + p.boundary.map { "\($0.x),\($0.y),\($0.z)" }.joined(separator: " "))
            }
            for (i, px) in tap.pixels.enumerated() {
                guard let ray = frame.ray(pixel: px) else { continue }
                let truth = i == 0 ? tap.a_W : tap.b_W
                let pEst = T_W_C_true.map { frame.T_W_C.act($0.inverse.act(truth)) } ?? ray.origin_W
                lines.append("R \(i) \(ray.origin_W.x) \(ray.origin_W.y) \(ray.origin_W.z) \(ray.direction_W.x) \(ray.direction_W.y) \(ray.direction_W.z) \(pEst.x) \(pEst.y) \(pEst.z)")
            }
            try? lines.joined(separator: "\n").write(toFile: dir + "/\(tap.label).txt", atomically: true, encoding: .utf8)
        }
    }
}
