import Estimation
import Foundation
import Geometry
import Pipeline
import Sensors
import Testing
import TestSupport
@testable import World
@testable import Consumers

/// The measure consumer's image check (`TapPointChecker.photometric`) on real stereo images: EuRoC's own cameras,
/// calibration and exposure, where the renders' exact calibration and shared lighting do not hold.
@Suite("The images' depth check on real stereo images (EuRoC V1_01 excerpt)")
struct StereoDepthProbeOnRealImagesTests {
    @Test("at the stereo map's points the right image agrees with their depth, and the check fails none of them",
          .enabled(if: SharedDatasets.eurocMicroIsPresent, "needs ../shared/datasets/euroc-v101-micro"))
    func mapPointsAgreeWithTheRightImage() throws {
        let dataset = try ASLDataset(path: try SharedDatasets.eurocMicro())
        var options = PipelineOptions()
        options.stereo = true
        var frames: [WorldFrame] = []
        _ = try TrackingPipeline(dataset: dataset, options: options).run(onFrame: { if $0.world.isTrackingNormal { frames.append($0.world) } })
        #expect(frames.count >= 70)
        let checker = TapPointChecker()
        let probe = try #require(checker.photometric)
        var confident = 0, agreeing = 0, failed = 0, points = 0
        // The map's points as last reported (the estimator reports a point when it triangulates or refines it).
        var map: [Int: Landmark] = [:]
        for f in frames { for l in f.input.landmarks { map[l.id] = l } }
        let sigmas = map.values.map(\.std_m).sorted()
        print("EuRoC excerpt, stereo: \(map.count) map points, median σ \(sigmas.isEmpty ? 0 : sigmas[sigmas.count / 2]) m")
        // Every tenth normal frame, every map point known to 25 cm (the excerpt barely moves: its points are
        // triangulated from the 11 cm baseline at 2–6 m) and in view.
        for frame in stride(from: 0, to: frames.count, by: 10).map({ frames[$0] }) {
            let view = try #require(frame.input.stereoView, "a stereo frame carries its right image")
            let image = try #require(frame.image)
            let camera = frame.camera.model
            for l in map.values.sorted(by: { $0.id < $1.id }) where l.std_m <= 0.25 {
                let p_C = frame.T_W_C.inverse.act(l.p_W)
                guard p_C.z > 0.3, let px = camera.project(p_C), camera.contains(px, margin: 10) else { continue }
                points += 1
                let d = p_C.norm
                // A hit exactly at the point, head-on, with the point's σ: the check must not fail it.
                let hit = RaycastResult(T_W_Hit: SE3(rotation: .identity, translation: l.p_W), distance_m: d,
                                        target: .existingPlaneGeometry, alignment: .any, planeId: nil, surfaceStd_m: l.std_m,
                                        incidenceCosine: 1)
                if checker.photometricDisagreement(hit, pixel: px, frame: frame, view: view, surfaceStd_m: l.std_m) != nil { failed += 1 }
                guard let profile = probe.profile(pixel: px, image: image, camera: camera, view: view,
                                                  nearest_m: 0.4 * d, farthest_m: 2.5 * d),
                      let b = profile.bestIndex, profile.samples[b].score >= checker.photometricMinScore,
                      !profile.hasRival(to: b, margin: checker.photometricRivalMargin, dip: 0.05) else { continue }
                confident += 1
                // Agreement: the best match within the point's window in the right image (its 3 σ along the ray, at least
                // 1.5 px), as the check draws it.
                let best = profile.samples[b]
                let at = try #require(view.camera.project(view.T_C0_C1.inverse.act(p_C)))
                let u = p_C / d
                let ends = [d - 3 * l.std_m, d + 3 * l.std_m].compactMap { view.camera.project(view.T_C0_C1.inverse.act(u * max($0, 0.05))) }
                let window = ends.map { ($0 - at).norm }.reduce(checker.photometricTolerance_px, max)
                if (best.pixel - at).norm <= window { agreeing += 1 }
            }
        }
        print("EuRoC excerpt, stereo: \(points) map points in view; \(confident) confident unique matches, \(agreeing) of them "
              + "at the point's depth; the check failed \(failed)")
        #expect(confident >= 50)
        #expect(Double(agreeing) >= 0.9 * Double(confident))
        #expect(Double(failed) <= 0.02 * Double(points))
    }
}
