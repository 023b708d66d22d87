import Foundation
import Geometry
import Imaging
import Sensors
import Simulation
import Testing
@testable import Vision

/// The frontend's appearance check (`FeatureTrackerOptions.appearanceMinCorrelation`): a track ends when its window
/// no longer looks like its window at birth, carried by the camera's rotation since.
struct AppearanceCheckTests {
    /// A random texture smoothed over a few pixels, like the renders' (corners everywhere, no repetition).
    static func texture(width: Int, height: Int, seed: UInt64, cell: Int = 4) -> GrayImage {
        var state = seed &* 6364136223846793005 &+ 1442695040888963407
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        let coarse = (0..<((width / cell + 2) * (height / cell + 2))).map { _ in next() * 255 }
        let cw = width / cell + 2
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let gx = Double(x) / Double(cell), gy = Double(y) / Double(cell)
                let x0 = Int(gx), y0 = Int(gy), fx = gx - Double(x0), fy = gy - Double(y0)
                let a = coarse[y0 * cw + x0], b = coarse[y0 * cw + x0 + 1]
                let c = coarse[(y0 + 1) * cw + x0], d = coarse[(y0 + 1) * cw + x0 + 1]
                let v = (a + fx * (b - a)) * (1 - fy) + (c + fx * (d - c)) * fy
                pixels[y * width + x] = UInt8(max(0, min(255, v.rounded())))
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// `image` turned by `angle` (radians, counter-clockwise as displayed) about `centre`, bilinear.
    static func rotated(_ image: GrayImage, by angle: Double, about centre: SIMD2<Double>) -> GrayImage {
        warped(image, by: [cos(angle), -sin(angle), sin(angle), cos(angle)], about: centre)
    }

    @Test func aWindowCorrelatesWithItselfTurnedOnlyAlongTurnedAxes() throws {
        let image = Self.texture(width: 200, height: 200, seed: 3)
        let centre = SIMD2<Float>(100, 100)
        let reference = try #require(NormalizedPatch(image: image, centre: centre))
        #expect(reference.hasContrast)
        #expect(abs(reference.correlation(with: reference) - 1) < 1e-5)
        // Gain and offset do not matter (ZNCC).
        let brighter = GrayImage(width: 200, height: 200, pixels: image.pixels.map { UInt8(min(255, Double($0) * 0.7 + 40)) })
        #expect(try #require(NormalizedPatch(image: brighter, centre: centre)).correlation(with: reference) > 0.99)
        // The image turned by 40° about the window's centre: read along the turned axes it is the same window;
        // read along the image axes it is not.
        let angle = 40 * Double.pi / 180
        let turned = Self.rotated(image, by: angle, about: SIMD2(100, 100))
        let u = SIMD2(Float(cos(angle)), Float(sin(angle))), v = SIMD2(Float(-sin(angle)), Float(cos(angle)))
        let along = try #require(NormalizedPatch(image: turned, centre: centre, axisU: u, axisV: v)).correlation(with: reference)
        let across = try #require(NormalizedPatch(image: turned, centre: centre)).correlation(with: reference)
        #expect(along > 0.97, "\(along)")
        #expect(across < 0.8, "\(across)")
        // A window elsewhere is another window; a flat one has no contrast.
        #expect(try #require(NormalizedPatch(image: image, centre: SIMD2(40, 150))).correlation(with: reference) < 0.5)
        let flat = try #require(NormalizedPatch(image: GrayImage(width: 20, height: 20, fill: 90), centre: SIMD2(10, 10)))
        #expect(!flat.hasContrast && flat.correlation(with: reference) == 0)
        // A window that reaches outside the image is not made (4 samples from the centre, 4.5 from the edge: inside).
        #expect(NormalizedPatch(image: image, centre: SIMD2(3.9, 100)) == nil)
        #expect(NormalizedPatch(image: image, centre: SIMD2(195.1, 100)) == nil)
        #expect(NormalizedPatch(image: image, centre: SIMD2(4.5, 194.5)) != nil)
        // A window turned 45° reaches farther along the image axes (4√2 ≈ 5.66 px).
        let d = Float(0.5.squareRoot())
        #expect(NormalizedPatch(image: image, centre: SIMD2(5.5, 100), axisU: SIMD2(d, d), axisV: SIMD2(-d, d)) == nil)
        #expect(NormalizedPatch(image: image, centre: SIMD2(5.7, 100), axisU: SIMD2(d, d), axisV: SIMD2(-d, d)) != nil)
    }

    /// `image` mapped by the linear map `a` (2×2, row-major) about `centre`: output pixel p shows the input at
    /// `a⁻¹ (p − centre) + centre`, so a window read along the axes `a·(1, 0)`, `a·(0, 1)` at `centre` is the input's.
    static func warped(_ image: GrayImage, by a: [Double], about centre: SIMD2<Double>) -> GrayImage {
        var out = GrayImage(width: image.width, height: image.height)
        let det = a[0] * a[3] - a[1] * a[2]
        let inv = [a[3] / det, -a[1] / det, -a[2] / det, a[0] / det]
        for y in 0..<image.height {
            for x in 0..<image.width {
                let dx = Double(x) - centre.x, dy = Double(y) - centre.y
                let sx = inv[0] * dx + inv[1] * dy + centre.x, sy = inv[2] * dx + inv[3] * dy + centre.y
                guard sx >= 0, sy >= 0, sx < Double(image.width - 1), sy < Double(image.height - 1) else { continue }
                let x0 = Int(sx), y0 = Int(sy), fx = sx - Double(x0), fy = sy - Double(y0)
                let p = Double(image[x0, y0]), q = Double(image[x0 + 1, y0])
                let r = Double(image[x0, y0 + 1]), t = Double(image[x0 + 1, y0 + 1])
                out[x, y] = UInt8(((p + fx * (q - p)) * (1 - fy) + (r + fx * (t - r)) * fy).rounded())
            }
        }
        return out
    }

    @Test func aLinearWarpAboutTheCentreExplainsAChangeOfShapeNotOfContent() throws {
        // A surface seen from elsewhere: the window stretched 1.5× along x and sheared (a floor tile approached along
        // the floor). Along the image axes it no longer matches; the fitted axes find the stretch and match again.
        let image = Self.texture(width: 200, height: 200, seed: 5, cell: 2)
        let centre = SIMD2<Float>(100, 100)
        let reference = try #require(NormalizedPatch(image: image, centre: centre))
        let a = [1.5, 0.3, 0.1, 0.9]
        let stretched = Self.warped(image, by: a, about: SIMD2(100, 100))
        let plain = try #require(NormalizedPatch(image: stretched, centre: centre)).correlation(with: reference)
        let fit = try #require(WindowWarpFit.fit(image: stretched, centre: centre, axisU: SIMD2(1, 0), axisV: SIMD2(0, 1),
                                                 reference: reference))
        let refit = try #require(NormalizedPatch(image: stretched, centre: centre, axisU: fit.axisU, axisV: fit.axisV))
        print("warp fit: axes \(fit.axisU), \(fit.axisV) (truth (1.5, 0.1), (0.3, 0.9)); ZNCC \(plain) → \(refit.correlation(with: reference))")
        #expect(plain < 0.8)
        #expect(refit.correlation(with: reference) > 0.97)
        // Within 0.08 of the true axes (the warped image is itself a bilinear resampling of the texture).
        #expect(abs(fit.axisU.x - 1.5) < 0.08 && abs(fit.axisU.y - 0.1) < 0.08)
        #expect(abs(fit.axisV.x - 0.3) < 0.08 && abs(fit.axisV.y - 0.9) < 0.08)
        let (small, big) = try #require(WindowWarpFit.stretch(from: SIMD2(1, 0), SIMD2(0, 1), to: fit.axisU, fit.axisV))
        #expect(small > 0.7 && small < 1 && big > 1.5 && big < 1.7, "\(small) \(big)")
        // A change of content (the window moved onto other texture, 6 px away) is not explained by any shape.
        let elsewhere = SIMD2<Float>(106, 100)
        let moved = try #require(NormalizedPatch(image: image, centre: elsewhere)).correlation(with: reference)
        if let other = WindowWarpFit.fit(image: image, centre: elsewhere, axisU: SIMD2(1, 0), axisV: SIMD2(0, 1),
                                         reference: reference),
           let (s, b) = WindowWarpFit.stretch(from: SIMD2(1, 0), SIMD2(0, 1), to: other.axisU, other.axisV), s >= 0.5, b <= 2,
           let patch = NormalizedPatch(image: image, centre: elsewhere, axisU: other.axisU, axisV: other.axisV) {
            #expect(patch.correlation(with: reference) < 0.8, "moved \(moved)")
        }
        #expect(moved < 0.5)
    }

    @Test func aRollOfTheCameraIsNoChangeOfAppearance() throws {
        // The camera turns about its optical axis by 2° a frame, 40° in all (noise-free renders from one centre):
        // every window turns with it. Carried by the rotation the tracker is given, the birth windows still match.
        let seq = try SimulatedSequence(startTime: 3)
        let turn = SO3.exp(Vec3(0, 0, 2 * Double.pi / 180)) // R_Cnew_Cold
        let R_W_C0 = seq.T_W_C(0).rotation
        func render(_ k: Int) -> GrayImage {
            var R = R_W_C0
            for _ in 0..<k { R = R * turn.inverse }
            let radiance = seq.synthesizer.renderer.renderRadiance(
                map: seq.maps[0], T_W_C: SE3(rotation: R, translation: seq.T_W_C(0).translation)).radiance
            return GrayImage(width: 752, height: 480, pixels: radiance.map { UInt8(max(0, min(255, $0.rounded()))) })
        }
        // Each track's true position: its birth pixel turned by the roll since (pure rotation: exact).
        func run(_ options: FeatureTrackerOptions) throws -> (rejected: Int, carried: Int, oldest: Int, errors: [Double]) {
            let tracker = try FeatureTracker(camera: seq.left, options: options)
            var rejected = 0, carried = 0, oldest = 0
            var births: [Int: (pixel: Vec2, frame: Int)] = [:]
            var errors: [Double] = []
            for k in 0...20 {
                let r = try tracker.track(render(k), t_ns: seq.stamp(k), R_Cnew_Cold: k > 0 ? turn : nil)
                rejected += r.stats.rejectedByAppearance
                if k > 0 { carried += r.stats.tracked }
                oldest = max(oldest, r.features.map(\.age).max() ?? 0)
                for f in r.features where f.age == 1 { births[f.id] = (f.pixel, k) }
                guard k == 20 else { continue }
                for f in r.features where f.age >= 10 {
                    let birth = try #require(births[f.id])
                    var R = SO3.identity
                    for _ in birth.frame..<k { R = turn * R }
                    let truth = try #require(RotationPrediction.predict(birth.pixel, camera: seq.left.model, R_Cnew_Cold: R))
                    errors.append((truth - f.pixel).norm)
                }
            }
            return (rejected, carried, oldest, errors.sorted())
        }
        var off = FeatureTrackerOptions()
        off.appearanceMinCorrelation = nil
        let checked = try run(FeatureTrackerOptions()), unchecked = try run(off)
        print("roll: \(checked.rejected) of \(checked.carried) ended; tracks ≥ 10 frames old at 40°: error median "
              + "\(checked.errors[checked.errors.count / 2]) max \(checked.errors.last!) px (\(checked.errors.count)); "
              + "unchecked median \(unchecked.errors[unchecked.errors.count / 2]) max \(unchecked.errors.last!) px "
              + "(\(unchecked.errors.count))")
        // Tracks born in the first frame live through the 40° (a window read along the image axes fails at 40°, the
        // test above), and few tracks are ended. (Frame-to-frame KLT drifts under a roll, about 1 px in 20 frames
        // here; the check, with its warp fit, does not catch that: docs/ACCURACY.md.)
        #expect(checked.oldest == 21)
        #expect(Double(checked.rejected) < 0.05 * Double(checked.carried), "\(checked.rejected) of \(checked.carried)")
        #expect(unchecked.rejected == 0)
    }

    @Test func trackedCornersAtDepthEdgesEndAndTheOutliersFall() throws {
        // Issue #17, item 5: the frontend's outliers are mostly corners where a near edge crosses farther texture;
        // they slide along the edge a little each frame, which the forward-backward and epipolar checks pass. Against
        // its birth window such a track fails. 30 s of walking in the room, noise and exposure changes on; each frame
        // rendered once and tracked with the check and without.
        let seq = try SimulatedSequence(startTime: 0)
        let frames = 600
        var off = FeatureTrackerOptions()
        off.appearanceMinCorrelation = nil
        let trackers = [try FeatureTracker(camera: seq.left, options: off), try FeatureTracker(camera: seq.left)]
        var quality = trackers.map { _ in TrackQualityAccumulator(camera: seq.left.model) }
        var ended = [0, 0], features = [0, 0]
        for k in 0..<frames {
            let image = seq.image(k)
            let R = k > 0 ? seq.R_Cnew_Cold(from: k - 1, to: k) : nil
            for (i, tracker) in trackers.enumerated() {
                let result = try tracker.track(image, t_ns: seq.stamp(k), R_Cnew_Cold: R)
                quality[i].add(result, T_W_C: seq.T_W_C(k), raycast: seq.raycast)
                ended[i] += result.stats.rejectedByAppearance
                features[i] += result.features.count
            }
        }
        let without = quality[0].summary(), with = quality[1].summary()
        print("appearance check, 30 s: outliers \(without.outlierRatio ?? -1) → \(with.outlierRatio ?? -1), at depth "
              + "edges \(without.depthEdgeOutlierRatio ?? -1) → \(with.depthEdgeOutlierRatio ?? -1), elsewhere "
              + "\(without.otherOutlierRatio ?? -1) → \(with.otherOutlierRatio ?? -1); \(ended[1]) tracks ended; "
              + "track length \(without.trackLengthMedian) → \(with.trackLengthMedian); reprojection "
              + "\(without.reprojectionErrorMedianPx ?? -1) → \(with.reprojectionErrorMedianPx ?? -1) px")
        #expect(ended[0] == 0 && ended[1] > 0)
        let before = try #require(without.outlierRatio), after = try #require(with.outlierRatio)
        #expect(after < 0.85 * before, "\(before) → \(after)")
        #expect(after <= 0.01, "\(after)")
        let edgesBefore = try #require(without.depthEdgeOutlierRatio), edgesAfter = try #require(with.depthEdgeOutlierRatio)
        #expect(edgesAfter < 0.85 * edgesBefore, "\(edgesBefore) → \(edgesAfter)")
        // It costs few tracks: the budget is kept, tracks stay long, and the tracked pixels are as accurate.
        #expect(Double(features[1]) >= 0.97 * Double(features[0]), "\(features)")
        #expect(with.featuresPerFrameMean >= 150 && with.trackLengthMedian >= 12, "\(with)")
        #expect((with.reprojectionErrorMedianPx ?? .infinity) <= (without.reprojectionErrorMedianPx ?? 0) + 0.01)
    }

    @Test func withoutARotationTracksAreNotChecked() throws {
        // Frames with neither a gyroscope rotation nor a measured one: the rotation since birth is unknown, so the
        // references are dropped and no track is ended by the check.
        let seq = try SimulatedSequence(startTime: 3)
        let (_, blind) = try SimulatedTrackingTests.run(seq, frames: 40, gyro: false)
        #expect(blind.allSatisfy { $0.stats.rejectedByAppearance == 0 })
        // With the rotation the frontend measures in their place (an IMU gap's frames) they are checked.
        let (_, measured) = try SimulatedTrackingTests.run(seq, frames: 40, gyro: false, measureRotation: true)
        #expect(measured.map(\.stats.rejectedByAppearance).reduce(0, +) > 0)
    }

    @Test func aStereoTrackerChecksOnlyWhenAskedTo() throws {
        // Stereo tracks are checked against the right image every frame; the appearance check is mono's unless
        // `appearanceCheckStereo` (measured: it did not help stereo's trajectories, docs/ACCURACY.md).
        let seq = try SimulatedSequence(stereo: true, startTime: 3)
        let right = try #require(seq.right)
        var on = FeatureTrackerOptions()
        on.appearanceCheckStereo = true
        var ended: [Int] = []
        for options in [FeatureTrackerOptions(), on] {
            let tracker = try FeatureTracker(camera: seq.left, rightCamera: right, options: options)
            var count = 0
            for k in 0..<60 {
                let R = k > 0 ? seq.R_Cnew_Cold(from: k - 1, to: k) : nil
                count += try tracker.track(seq.image(k), right: seq.image(k, camera: 1), t_ns: seq.stamp(k),
                                           R_Cnew_Cold: R).stats.rejectedByAppearance
            }
            ended.append(count)
        }
        #expect(ended[0] == 0 && ended[1] > 0, "\(ended)")
    }
}
