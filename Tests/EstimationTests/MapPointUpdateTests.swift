import Foundation
import Geometry
import LinearAlgebra
import Sensors
import Testing
import TestSupport
@testable import Estimation

/// The map-point update: a pose that drifted is pulled back by points mapped earlier and seen again; a wrong
/// association is gated out; a point's uncertainty limits how far it can move the pose.
@Suite struct MapPointUpdateTests {
    let scene = EstimationScene()
    let truth = SE3(rotation: EstimationTrajectory.rotation(euler: Vec3(0.05, -0.03, 0.8)), translation: Vec3(0.4, -0.2, 0.6))

    /// A filter at `truth` moved 3 cm and turned 0.5° in yaw, with 1-σ 5 cm / 1° on the pose.
    func driftedState() -> FilterState {
        var imu = IMUState(t_ns: 0)
        imu.R_W_B = SO3.exp(Vec3(0, 0, 0.5 * .pi / 180)) * truth.rotation
        imu.p_W = truth.translation + Vec3(0.02, -0.015, 0.015)
        let dTheta = pow(1 * Double.pi / 180, 2), dP = 0.05 * 0.05
        return FilterState(imu: imu, diagonalCovariance: [dTheta, dTheta, dTheta, dP, dP, dP] + [Double](repeating: 1e-4, count: 9))
    }

    /// Observations of the scene's landmarks in view of the true pose, exact (1 mm map σ).
    func observations(std: Double = 0.001) -> [MapPointObservation] {
        let T_C_W = (truth * scene.camera.T_B_C).inverse
        return scene.landmarks_W.enumerated().compactMap { i, p in
            let p_C = T_C_W.act(p)
            guard p_C.z > 0.3, let px = scene.camera.model.project(p_C), scene.camera.model.contains(px, margin: 5) else { return nil }
            return MapPointObservation(mapId: i, p_W: p, std_m: std, normalized: Vec2(p_C.x / p_C.z, p_C.y / p_C.z))
        }
    }

    func errors(_ s: FilterState) -> (position: Double, angleDeg: Double) {
        ((s.imu.p_W - truth.translation).norm, (truth.rotation.inverse * s.imu.R_W_B).angle * 180 / .pi)
    }

    @Test("exact map points pull a drifted pose back to within 2 mm and 0.02°")
    func exactPointsCorrectTheDrift() throws {
        let updater = MapPointUpdater(cameras: [scene.camera], pixelNoiseStd: 1, gateProbability: 0.95)
        var state = driftedState()
        let obs = observations()
        #expect(obs.count >= 30)
        let before = errors(state)
        // The pose error is 2.9 cm and 0.5°, many pixels: the first update is the gross correction, a second one
        // (an iteration) converges.
        var result = updater.update(state: &state, observations: obs)
        result = updater.update(state: &state, observations: obs)
        let after = errors(state)
        #expect(before.position > 0.02 && before.angleDeg > 0.4)
        #expect(result.accepted >= obs.count * 9 / 10)
        #expect(after.position < 0.002)
        #expect(after.angleDeg < 0.02)
    }

    @Test("a wrong association (the point seen 40 px away) is rejected and leaves the result unchanged")
    func wrongAssociationIsGated() throws {
        let updater = MapPointUpdater(cameras: [scene.camera], pixelNoiseStd: 1, gateProbability: 0.95)
        var clean = driftedState(), dirty = driftedState()
        var obs = observations()
        _ = updater.update(state: &clean, observations: obs)
        _ = updater.update(state: &dirty, observations: obs)
        // A second pass from the converged pose: one observation is now 40 px off.
        let bad = obs.count / 2
        obs[bad].normalized += Vec2(40 / scene.camera.model.intrinsics.fx, 0)
        let resultClean = updater.update(state: &clean, observations: Array(obs[..<bad] + obs[(bad + 1)...]))
        let resultDirty = updater.update(state: &dirty, observations: obs)
        #expect(resultDirty.rejectedByGate >= 1)
        #expect(!resultDirty.acceptedIds.contains(obs[bad].mapId))
        #expect(resultDirty.accepted == resultClean.accepted)
        #expect((clean.imu.p_W - dirty.imu.p_W).norm < 1e-9)
    }

    @Test("uncertain map points (σ = 1 m) barely move the pose")
    func uncertainPointsAreWeak() throws {
        let updater = MapPointUpdater(cameras: [scene.camera], pixelNoiseStd: 1, gateProbability: 0.95)
        let drifted = driftedState()
        var exact = drifted, uncertain = drifted
        _ = updater.update(state: &exact, observations: observations())
        let result = updater.update(state: &uncertain, observations: observations(std: 1))
        let exactStep = (exact.imu.p_W - drifted.imu.p_W).norm
        let uncertainStep = (uncertain.imu.p_W - drifted.imu.p_W).norm
        print("map points σ = 1 m: pose moved \(uncertainStep) m (exact points: \(exactStep) m)")
        // The points are used (not gated out) and the update is applied, but it moves the pose far less than
        // exact points do and leaves most of the drift.
        #expect(result.accepted > 0)
        #expect(uncertainStep > 1e-4)
        #expect(uncertainStep < 0.5 * exactStep)
        #expect(errors(uncertain).position > 0.5 * errors(drifted).position)
    }

    @Test("one point that would move the pose is not applied alone; a second that agrees lets both through")
    func aLonePointThatMovesThePoseWaitsForASecond() throws {
        let updater = MapPointUpdater(cameras: [scene.camera], pixelNoiseStd: 1, gateProbability: 0.95)
        let obs = observations()
        let drifted = driftedState()
        // The drift (2.9 cm, 0.5°) puts every point many pixels off: each passes its own gate (the pose's σ is
        // 5 cm / 1°) but is more than the pixel and point noise explain.
        var alone = drifted
        let single = updater.update(state: &alone, observations: [obs[0]])
        #expect(single.accepted == 0 && single.unconfirmed == 1 && single.rejectedByGate == 0)
        #expect((alone.imu.p_W - drifted.imu.p_W).norm == 0)
        var pair = drifted
        let two = updater.update(state: &pair, observations: [obs[0], obs[obs.count / 2]])
        #expect(two.accepted == 2 && two.unconfirmed == 0)
        #expect((pair.imu.p_W - drifted.imu.p_W).norm > 1e-4)
        // A point the current pose already explains is applied alone (it moves nothing much).
        var converged = drifted
        _ = updater.update(state: &converged, observations: obs)
        _ = updater.update(state: &converged, observations: obs)
        let settled = updater.update(state: &converged, observations: [obs[0]])
        #expect(settled.accepted == 1)
    }

    @Test("a wrong association inside its own gate is dropped when the other points disagree with it")
    func jointCompatibilityDropsAWrongAssociationThatPassesItsGate() throws {
        let updater = MapPointUpdater(cameras: [scene.camera], pixelNoiseStd: 1, gateProbability: 0.95)
        // Six points spread over the view, as map reuse offers a frame (one to six); one is 8 px off: inside the
        // individual gate of a pose known to 5 cm / 1° (tens of pixels), far outside what the other five, which all
        // see the same drift, allow.
        let all = observations()
        var obs = (0..<6).map { all[$0 * all.count / 6] }
        obs[2].normalized += Vec2(8 / scene.camera.model.intrinsics.fx, -6 / scene.camera.model.intrinsics.fy)
        var state = driftedState()
        let result = updater.update(state: &state, observations: obs)
        #expect(result.rejectedByGate == 0)
        #expect(!result.acceptedIds.contains(obs[2].mapId))
        #expect(result.unconfirmed == 1)
        #expect(result.accepted == 5)
        // Control: the same six without the error are all applied.
        var clean = driftedState()
        let control = updater.update(state: &clean, observations: (0..<6).map { all[$0 * all.count / 6] })
        #expect(control.accepted == 6 && control.unconfirmed == 0)
    }

    /// `state` with two clones of its pose (as the sliding window holds them) and a tilt error of `tiltDeg` about the
    /// world's x axis on top of `driftedState`'s yaw and position drift.
    func windowState(tiltDeg: Double) -> FilterState {
        var state = driftedState()
        state.imu.R_W_B = SO3.exp(Vec3(tiltDeg * .pi / 180, 0, 0)) * state.imu.R_W_B
        state.augmentClone(t_ns: 0)
        state.augmentClone(t_ns: 0)
        return state
    }

    /// The world's up in the body frame of every attitude in the state (the inertial one, then the clones').
    func ups(_ s: FilterState) -> [Vec3] {
        ([s.imu.R_W_B] + s.clones.map(\.R_W_B)).map { $0.inverse.act(Vec3(0, 0, 1)) }
    }

    @Test("mono's map update keeps every attitude's gravity direction and its covariance, and still corrects yaw and position")
    func keepingTheTiltCorrectsYawAndPositionOnly() throws {
        let keeping = MapPointUpdater(cameras: [scene.camera], pixelNoiseStd: 1, gateProbability: 0.95, keepsTilt: true)
        let full = MapPointUpdater(cameras: [scene.camera], pixelNoiseStd: 1, gateProbability: 0.95)
        let obs = observations()
        // The tilt exact, yaw and position drifted: the kept-tilt update corrects them as the full one does.
        var state = windowState(tiltDeg: 0)
        let upsBefore = ups(state)
        for _ in 0..<2 { _ = keeping.update(state: &state, observations: obs) }
        #expect(errors(state).position < 0.002)
        #expect(errors(state).angleDeg < 0.02)
        for (a, b) in zip(ups(state), upsBefore) { #expect((a - b).norm < 1e-12) }

        // A 0.3° tilt error: the map says so (the full update removes it) but the kept-tilt update leaves it, with
        // the tilt's covariance, and moves the rest as far as the points allow.
        var kept = windowState(tiltDeg: 0.3), corrected = kept
        let before = kept
        for _ in 0..<2 {
            _ = keeping.update(state: &kept, observations: obs)
            _ = full.update(state: &corrected, observations: obs)
        }
        for (a, b) in zip(ups(kept), ups(before)) { #expect((a - b).norm < 1e-12) }
        #expect(acos(min(1, ups(corrected)[0].dot(ups(truthState())[0]))) * 180 / .pi < 0.02)
        #expect(acos(min(1, ups(kept)[0].dot(ups(truthState())[0]))) * 180 / .pi > 0.29)
        #expect(errors(kept).position < errors(before).position / 2)
        // The covariance of each attitude's tilt directions is what it was; the whole stays symmetric positive
        // semi-definite.
        let P0 = before.covarianceMatrix, P1 = kept.covarianceMatrix
        for (k, R) in ([kept.imu.R_W_B] + kept.clones.map(\.R_W_B)).enumerated() {
            let a = k == 0 ? 0 : kept.cloneIndex(k - 1)
            let g = R.inverse.act(Vec3(0, 0, 1))
            let tilt = [Vec3(1, 0, 0), Vec3(0, 1, 0)].map { ($0 - g * g.dot($0)).normalized }
            for u in tilt {
                var q0 = 0.0, q1 = 0.0
                for i in 0..<3 { for j in 0..<3 {
                    q0 += u[i] * P0[a + i, a + j] * u[j]; q1 += u[i] * P1[a + i, a + j] * u[j]
                } }
                #expect(abs(q1 - q0) <= 1e-12 * q0)
            }
        }
        // (The clones start as copies of the inertial pose, so P is singular from the start: positive semi-definite.)
        for i in 0..<P1.rows { for j in 0..<i { #expect(P1[i, j] == P1[j, i]) } }
        let smallest = try #require(try? P1.symmetricEigen()).eigenvalues.first ?? -1
        #expect(smallest > -1e-12 * (0..<P1.rows).map { P1[$0, $0] }.max()!)
        // And the rotation error falls to about the kept tilt: the yaw's 0.5° is corrected.
        #expect(errors(before).angleDeg > 0.55)
        #expect(errors(kept).angleDeg < 0.35)
    }

    /// `windowState(tiltDeg:)` with the floor in the state, its slopes tied to every attitude's tilt as the floor's
    /// rows tie them (a world tilted by `φ` about its horizontal axes sees a level floor sloped by `(φ_y, −φ_x)`):
    /// two rows per attitude, `δs_x − (R δθ)_y` and `δs_y + (R δθ)_x`, with σ 10⁻⁴.
    func floorWindowState(tiltDeg: Double) throws -> FilterState {
        var state = windowState(tiltDeg: tiltDeg)
        state.addFloor(cameraHeight_m: 1.2, heightVariance: 0.0004, slopeVariance: 1e-4)
        let f = try #require(state.floorIndex)
        let attitudes = [(ErrorIndex.theta, state.imu.R_W_B)] + state.clones.indices.map { (state.cloneIndex($0), state.clones[$0].R_W_B) }
        var H = Matrix(rows: 2 * attitudes.count, columns: state.dimension)
        for (k, (a, R)) in attitudes.enumerated() {
            let M = R.matrix
            H[2 * k, f + 1] = 1e4
            H[2 * k + 1, f + 2] = 1e4
            for j in 0..<3 { H[2 * k, a + j] = -1e4 * M[1, j]; H[2 * k + 1, a + j] = 1e4 * M[0, j] }
        }
        try state.update(H: H, r: [Double](repeating: 0, count: H.rows))
        return state
    }

    @Test("mono's map update keeps the floor's slopes too: they hold the tilt through the floor's rows")
    func keepingTheTiltKeepsTheFloorSlopes() throws {
        let keeping = MapPointUpdater(cameras: [scene.camera], pixelNoiseStd: 1, gateProbability: 0.95, keepsTilt: true)
        let full = MapPointUpdater(cameras: [scene.camera], pixelNoiseStd: 1, gateProbability: 0.95)
        let obs = observations()
        var kept = try floorWindowState(tiltDeg: 0.3), corrected = kept
        let before = kept
        let f = try #require(before.floorIndex)
        for _ in 0..<2 {
            _ = keeping.update(state: &kept, observations: obs)
            _ = full.update(state: &corrected, observations: obs)
        }
        // Control: the map's tilt information reaches the slopes through their correlation with the attitudes.
        #expect((corrected.floorSlope - before.floorSlope).x.magnitude + (corrected.floorSlope - before.floorSlope).y.magnitude > 0.002)
        // Kept: the slopes, their covariance and every attitude's gravity direction stay as they were …
        #expect(kept.floorSlope == before.floorSlope)
        for i in (f + 1)...(f + 2) { for j in (f + 1)...(f + 2) {
            #expect(abs(kept.covariance(i, j) - before.covariance(i, j)) <= 1e-12 * before.covariance(f + 1, f + 1))
        } }
        for (a, b) in zip(ups(kept), ups(before)) { #expect((a - b).norm < 1e-12) }
        // … while the height, position and yaw are corrected.
        #expect(kept.floorHeight_m != before.floorHeight_m)
        #expect(errors(kept).position < errors(before).position / 2)
        #expect(errors(kept).angleDeg < 0.35)
        let P = kept.covarianceMatrix
        for i in 0..<P.rows { for j in 0..<i { #expect(P[i, j] == P[j, i]) } }
    }

    @Test("mono's map update can leave the window's past positions as they were and correct the present pose")
    func keepingTheClonePositionsCorrectsThePresentOnly() throws {
        let keeping = MapPointUpdater(cameras: [scene.camera], pixelNoiseStd: 1, gateProbability: 0.95, keepsTilt: true,
                                      keepsClonePositions: true)
        let tiltOnly = MapPointUpdater(cameras: [scene.camera], pixelNoiseStd: 1, gateProbability: 0.95, keepsTilt: true)
        let obs = observations()
        var kept = windowState(tiltDeg: 0.3), moved = kept
        let before = kept
        for _ in 0..<2 {
            _ = keeping.update(state: &kept, observations: obs)
            _ = tiltOnly.update(state: &moved, observations: obs)
        }
        // Control: the clones start as copies of the drifted pose, and an update that may move them pulls them back
        // with it (2.9 cm of drift).
        for (c, b) in zip(moved.clones, before.clones) { #expect((c.p_W - b.p_W).norm > 0.01) }
        // Kept: every clone's position and the covariance of the clones' positions stay as they were …
        let P0 = before.covarianceMatrix, P1 = kept.covarianceMatrix
        for (i, (c, b)) in zip(kept.clones, before.clones).enumerated() {
            #expect(c.p_W == b.p_W)
            for (j, _) in kept.clones.enumerated() {
                let a = kept.cloneIndex(i) + 3, bj = kept.cloneIndex(j) + 3
                for u in 0..<3 { for v in 0..<3 {
                    #expect(abs(P1[a + u, bj + v] - P0[a + u, bj + v]) <= 1e-12 * P0[a, a])
                } }
            }
        }
        // … with the tilts kept as before (the two kept sets do not interfere) …
        for (a, b) in zip(ups(kept), ups(before)) { #expect((a - b).norm < 1e-12) }
        // … while the present pose is corrected as the tilt-only update corrects it, and the covariance stays
        // symmetric positive semi-definite.
        #expect(errors(kept).position < errors(before).position / 2)
        #expect(abs(errors(kept).position - errors(moved).position) < 0.002)
        for i in 0..<P1.rows { for j in 0..<i { #expect(P1[i, j] == P1[j, i]) } }
        let smallest = try #require(try? P1.symmetricEigen()).eigenvalues.first ?? -1
        #expect(smallest > -1e-12 * (0..<P1.rows).map { P1[$0, $0] }.max()!)
    }

    /// The filter at the true pose, known to 1 cm and 0.05° (a window that has tracked well), with the map's scale in
    /// the state (prior 1-σ 3 %) or not.
    func knownPoseState(estimatingMapScale: Bool) -> FilterState {
        var imu = IMUState(t_ns: 0)
        imu.R_W_B = truth.rotation
        imu.p_W = truth.translation
        var covariance = Mat15()
        for i in 0..<15 { covariance[i, i] = i < 3 ? pow(0.05 * .pi / 180, 2) : 1e-4 }   // 0.05°; 1 cm (and 1e-4 on the rest)
        return FilterState(imu: imu, covariance: covariance, mapScale: estimatingMapScale ? (1, 0.03 * 0.03) : nil)
    }

    @Test("a map made 3 % short moves the map's scale when it is in the state, and the known pose when it is not")
    func aShortMapMovesItsScaleNotAKnownPose() throws {
        let updater = MapPointUpdater(cameras: [scene.camera], pixelNoiseStd: 1, gateProbability: 0.95)
        // The points where a filter whose scale was 3 % short mapped them: scaled about W's origin.
        let short = observations().map { o in var o = o; o.p_W *= 0.97; return o }
        #expect(short.count >= 30 && short.map(\.p_W.norm).min()! > 4)
        var scaled = knownPoseState(estimatingMapScale: true), fixed = knownPoseState(estimatingMapScale: false)
        #expect(scaled.mapScaleIndex == 15 && scaled.cloneStart == 16 && fixed.mapScaleIndex == nil)
        for _ in 0..<3 {
            // The map's keeper follows the estimate (`MapReobserver.follow(scale:)`): its points at the estimated scale.
            let atEstimate = short.map { o in var o = o; o.p_W *= scaled.mapScale; return o }
            #expect(updater.update(state: &scaled, observations: atEstimate).accepted >= short.count * 9 / 10)
        }
        let fixedResult = updater.update(state: &fixed, observations: short)
        // In the state, the scale takes up most of the map's error (1/0.97 = 1.031; 1.025 here: one view tells the
        // scale about W's origin from a shift of the pose only through the points' spread in depth) and the pose stays
        // within its 1 cm; the map is 13–21 cm off at the points' 4.3–7.1 m from the origin.
        #expect(abs(scaled.mapScale * 0.97 - 1) < 0.01)
        #expect(errors(scaled).position < 0.005)
        // Without it, the map pulls the pose by twice its σ: the control.
        #expect(errors(fixed).position > 0.015)
        print("map 3 % short: scale estimated \(scaled.mapScale), pose moved \(errors(scaled).position) m; without the scale in the state \(errors(fixed).position) m, \(fixedResult.accepted) accepted")
    }

    @Test("the map's scale sits after the time offset and before the mounting, and a correction scales it")
    func mapScaleLayoutAndInjection() {
        let T = scene.camera.T_B_C
        var state = FilterState(imu: IMUState(t_ns: 0), covariance: .identity, timeOffset: (0, 1e-4), mapScale: (1.02, 4e-4),
                                extrinsic: (T, 4e-4, 9e-4))
        #expect(state.timeOffsetIndex == 15 && state.mapScaleIndex == 16 && state.extrinsicIndex == 17 && state.cloneStart == 23)
        #expect(state.covariance(16, 16) == 4e-4 && state.covariance(15, 16) == 0 && state.covariance(16, 17) == 0)
        state.augmentClone()
        #expect(state.dimension == 29 && state.cloneIndex(0) == 23)
        var dx = [Double](repeating: 0, count: state.dimension)
        dx[16] = 0.01
        state.inject(dx)
        #expect(abs(state.mapScale - 1.02 * exp(0.01)) < 1e-15)
    }

    /// The filter at the true pose (for its up vectors).
    func truthState() -> FilterState {
        var imu = IMUState(t_ns: 0)
        imu.R_W_B = truth.rotation
        imu.p_W = truth.translation
        return FilterState(imu: imu, diagonalCovariance: [Double](repeating: 1e-4, count: 15))
    }
}
