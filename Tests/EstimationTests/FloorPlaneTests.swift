import Foundation
import Geometry
import LinearAlgebra
import Sensors
import Testing
import TestSupport
@testable import Estimation

/// The floor in the filter state (`FloorOptions`): finding it among the landmarks, putting it into the state,
/// holding points on it, and the filter's consistency with it.
@Suite struct FloorPlaneTests {
    /// Heights of landmarks: a floor, a table top above it, and clutter between.
    static func heights(floor: Double?, table: Double, clutterRange: ClosedRange<Double>, seed: UInt64) -> [Double] {
        var rng = SeededRandom(seed: seed)
        var z: [Double] = []
        if let floor { for _ in 0..<300 { z.append(floor + rng.gaussian() * 0.008) } }
        for _ in 0..<500 { z.append(table + rng.gaussian() * 0.008) }
        for _ in 0..<200 { z.append(clutterRange.lowerBound + rng.uniform() * (clutterRange.upperBound - clutterRange.lowerBound)) }
        return z
    }

    /// The lowest dense level is the floor, even where a table top holds more landmarks; without the floor's
    /// landmarks it is the table's.
    @Test func findsTheLowestDenseLevel() throws {
        let z = Self.heights(floor: -1.2, table: -0.45, clutterRange: -1.1 ... -0.1, seed: 3)
        let floor = try #require(FloorDetector.level(z, minPoints: 40))
        #expect(abs(floor - -1.2) < 0.004)
        let noFloor = Self.heights(floor: nil, table: -0.45, clutterRange: -1.1 ... -0.1, seed: 3)
        let table = try #require(FloorDetector.level(noFloor, minPoints: 40))
        #expect(abs(table - -0.45) < 0.004)
    }

    /// Landmarks spread evenly over heights (a cloud, or a floor with 15 cm of relief) are no plane: nothing is found.
    @Test func aCloudIsNoFloor() {
        var rng = SeededRandom(seed: 5)
        let cloud = (0..<3000).map { _ in -1.5 + rng.uniform() * 2 }
        #expect(FloorDetector.level(cloud, minPoints: 40) == nil)
        let rough = (0..<3000).map { _ in -1.5 + (rng.uniform() - 0.5) * 0.3 }
        #expect(FloorDetector.level(rough, minPoints: 40) == nil)
    }

    /// `addFloor` inserts `δh = δp_z − δd` just before the clones: its covariance row is the position's z row,
    /// its variance that plus the height's; the rest of `P` is unchanged (the clones shift by one).
    @Test func addFloorSharesThePositionCovariance() throws {
        var rng = SeededRandom(seed: 9)
        var state = FilterState(imu: IMUState(t_ns: 0, p_W: Vec3(0.3, -0.2, 1.4)), covariance: Mat15.identity,
                                timeOffset: (0, 1e-4))
        state.augmentClone(); state.augmentClone()
        // A random SPD covariance.
        let n = state.dimension
        var A = Matrix(rows: n, columns: n)
        for i in 0..<n { for j in 0..<n { A[i, j] = rng.gaussian() } }
        state.setCovariance(A * A.transposed + Matrix.identity(n))
        let before = state
        state.addFloor(cameraHeight_m: 1.25, heightVariance: 0.0004, slopeVariance: 1e-4)
        let f = try #require(state.floorIndex)
        #expect(f == before.cloneStart && state.cloneStart == f + 3 && state.dimension == n + 3)
        #expect(abs(state.floorHeight_m - (1.4 - 1.25)) < 1e-12)
        let z = ErrorIndex.position + 2
        func old(_ i: Int) -> Int { i < f ? i : i - 3 }
        let floor = f..<(f + 3)
        for i in 0..<(n + 3) where !floor.contains(i) {
            #expect(state.covariance(f, i) == before.covariance(z, old(i)))
            #expect(state.covariance(f + 1, i) == 0 && state.covariance(f + 2, i) == 0)
            for j in 0..<(n + 3) where !floor.contains(j) { #expect(state.covariance(i, j) == before.covariance(old(i), old(j))) }
        }
        #expect(abs(state.covariance(f, f) - (before.covariance(z, z) + 0.0004)) < 1e-12)
        #expect(state.covariance(f + 1, f + 1) == 1e-4 && state.covariance(f + 2, f + 2) == 1e-4 && state.covariance(f + 1, f + 2) == 0)
        #expect(state.floorOrigin_m == SIMD2(0.3, -0.2) && state.floorSlope == .zero)
        // A correction moves the height and the slopes by their own entries.
        var dx = [Double](repeating: 0, count: n + 3)
        dx[f] = 0.01; dx[f + 1] = 0.002; dx[f + 2] = -0.001
        state.inject(dx)
        #expect(abs(state.floorHeight_m - 0.16) < 1e-12)
        #expect(abs(state.floorHeight(atX: 1.3, y: 0.8) - (0.16 + 0.002 - 0.001)) < 1e-12)
        #expect(state.clones.count == 2 && state.cloneIndex(0) == f + 3)
    }

    /// The point on the plane that best fits the rays: from cameras that see a floor point, starting 30 cm off.
    @Test func pointOnTheFloorFromItsRays() throws {
        let p = Vec3(1.3, -0.4, -1.1)
        let R = SO3(matrix: Mat3(columns: Vec3(0, -1, 0), Vec3(0, 0, -1), Vec3(1, 0, 0))) * SO3.exp(Vec3(0.5, 0, 0))
        let bearings = [Vec3(0, 0, 0), Vec3(0.1, 0.02, 0.01), Vec3(0.2, -0.03, 0.02)].map { c -> BearingObservation in
            let T = SE3(rotation: R, translation: c)
            let q = T.inverse.act(p)
            return BearingObservation(T_W_C: T, normalized: Vec2(q.x / q.z, q.y / q.z))
        }
        let found = try #require(FeatureTriangulator.onFloorPlane(bearings, height: -1.1, start: p + Vec3(0.3, -0.2, 0.5)))
        #expect((found - p).norm < 1e-8)
        // A floor through the same point sloping 0.01 along x and −0.02 along y (origin (1, 0)).
        let tilted = try #require(FeatureTriangulator.onFloorPlane(bearings, height: -1.1 - 0.003 - 0.008, slope: SIMD2(0.01, -0.02),
                                                                   origin: SIMD2(1, 0), start: p + Vec3(0.3, -0.2, 0.5)))
        #expect((tilted - p).norm < 1e-8)
    }

    /// The box scene with a flat floor (its bottom face without relief): the floor is found and held in the state,
    /// its height within 3 σ and 1 cm of the truth, and the pose NEES over three IMU seeds stays near its 6 degrees
    /// of freedom. Mutation-checked: with the sign of the floor row's `∂/∂δh` flipped the height is 7.9 cm off on
    /// one seed and 3.9 cm on another (beyond 3 σ), one seed holds 44 features, another's NEES is 13. Control: with
    /// the floor off nothing is held.
    @Test func theFloorIsFoundAndTheFilterStaysConsistent() throws {
        var scene = EstimationScene(density: 1.5)
        let floorZ = -1.5
        scene.landmarks_W = scene.landmarks_W.map { $0.z < -1.3 ? Vec3($0.x, $0.y, floorZ) : $0 }
        var config = EstimatorConfiguration()
        config.updater.pixelNoiseStd = 0.5
        config.floor.warmupMono_ns = 3_000_000_000
        var nees: [Double] = []
        for seed: UInt64 in [21, 22, 23] {
            let run = try Self.run(scene: scene, config: config, imuSeed: seed)
            let h = try #require(run.floor, "seed \(seed): no floor in the state")
            let error = abs(h.height - floorZ)
            print("seed \(seed): floor \(h.height) m (truth \(floorZ)), σ \(h.std) m; \(run.held) features held; NEES \(run.meanNees)")
            #expect(error < max(3 * h.std, 0.002) && error < 0.01)
            #expect(run.held > 200)
            nees += run.nees
        }
        let mean = nees.reduce(0, +) / Double(nees.count)
        #expect(nees.count > 1000)
        #expect(mean > 3 && mean < 10)
        var off = config
        off.floor.enabled = false
        let control = try Self.run(scene: scene, config: off, imuSeed: 21)
        #expect(control.floor == nil && control.held == 0)
    }

    /// A floor sloping 0.4° (its height rising 7 mm per metre along the truth's x): the filter estimates the slope
    /// instead of tilting the trajectory to hold the floor level (median tilt error 0.07°). Control: with the slopes
    /// held at 0 (a prior of 10⁻⁶ rad) the body's tilt follows the floor, twice as far from gravity (0.15°).
    @Test func aSlopingFloorIsEstimatedNotFollowed() throws {
        var scene = EstimationScene(density: 1.5)
        let slope = 0.007
        scene.landmarks_W = scene.landmarks_W.map { $0.z < -1.3 ? Vec3($0.x, $0.y, -1.5 + slope * $0.x) : $0 }
        var config = EstimatorConfiguration()
        config.updater.pixelNoiseStd = 0.5
        config.floor.warmupMono_ns = 3_000_000_000
        let run = try Self.run(scene: scene, config: config, imuSeed: 21)
        let s = try #require(run.slope)
        var held = config
        held.floor.slopeStd_rad = 1e-6
        let level = try Self.run(scene: scene, config: held, imuSeed: 21)
        print("sloping floor: slope \(s) (truth (\(slope), 0) in the truth's frame), tilt error median \(run.medianTilt) rad; "
              + "held level: \(level.medianTilt) rad")
        #expect(abs(s.x - slope) < 0.0015 && abs(s.y) < 0.0015)
        #expect(run.medianTilt < 0.002)
        #expect(level.medianTilt > 1.6 * run.medianTilt)
    }

    struct Outcome {
        var nees: [Double] = []
        /// Per normal frame, the angle between the estimated and the true vertical in the body frame, radians.
        var tilts: [Double] = []
        var medianTilt: Double { tilts.isEmpty ? .nan : tilts.sorted()[tilts.count / 2] }
        /// The floor's slopes in the truth's frame (the estimate's turned back by the yaw between the two).
        var slope: SIMD2<Double>?
        var floor: (height: Double, std: Double)?
        var held = 0
        var meanNees: Double { nees.reduce(0, +) / Double(max(1, nees.count)) }
    }

    /// 22 s of the estimation harness's motion over `scene`, mono; the floor's height is expressed in the truth's
    /// frame by the yaw and translation between the estimate and the truth at the first normal frame.
    static func run(scene: EstimationScene, config: EstimatorConfiguration, imuSeed: UInt64) throws -> Outcome {
        let traj = EstimationTrajectory(restDuration: 2, rampDuration: 1.5)
        let duration = 22.0
        let imu = traj.imuSamples(duration: duration, rate_hz: 200, gyroBias: Vec3(0.003, -0.002, 0.004),
                                  accelBias: Vec3(0.02, -0.03, 0.01), noise: .euroc, seed: imuSeed)
        let frames = scene.frames(trajectory: traj, duration: duration, pixelNoise: 0.5, seed: 22)
        let vio = VIOEstimator(configuration: config, cameras: [scene.camera], imu: IMUCalibration(noise: .euroc, rate_hz: 200))
        var outcome = Outcome()
        var k = 0
        var align: (yaw: SO3, t: Vec3)?
        for f in frames {
            while k < imu.count, imu[k].t_ns <= f.t_ns { vio.addIMU(imu[k]); k += 1 }
            let out = vio.addFrame(FeatureFrame(t_ns: f.t_ns, observations: f.observations.map {
                FeatureObservation(id: $0.id, camera: $0.camera, normalized: $0.normalized, rightNormalized: $0.rightNormalized)
            }))
            let d = vio.lastDiagnostics
            outcome.held += d.floorFeatures
            guard out.trackingState == .normal, let P = vio.poseCovariance else { continue }
            let truth = traj.state(at: Double(f.t_ns) * 1e-9)
            if align == nil {
                let yaw = SO3(yaw: out.T_W_B.rotation.yaw - truth.R_W_B.yaw)
                align = (yaw, out.T_W_B.translation - yaw.act(truth.p_W))
            }
            if let h = d.floorHeight_m, let s = d.floorHeightStd_m { outcome.floor = (h - align!.t.z, s) }
            if let s = d.floorSlope {
                let v = align!.yaw.inverse.act(Vec3(s.x, s.y, 0))
                outcome.slope = SIMD2(v.x, v.y)
            }
            let upEstimated = out.T_W_B.rotation.inverse.act(Vec3(0, 0, 1)), upTrue = truth.R_W_B.inverse.act(Vec3(0, 0, 1))
            outcome.tilts.append(acos(min(1, max(-1, upEstimated.dot(upTrue)))))
            let R_true = align!.yaw * truth.R_W_B, p_true = align!.yaw.act(truth.p_W) + align!.t
            let eTheta = (out.T_W_B.rotation.inverse * R_true).log, eP = p_true - out.T_W_B.translation
            let e = [eTheta.x, eTheta.y, eTheta.z, eP.x, eP.y, eP.z]
            let x = try Matrix(rows: 6, columns: 6, rowMajor: P).symmetrized().choleskySolve(Matrix(columnVector: e))
            outcome.nees.append(zip(e, x.elements).map(*).reduce(0, +))
        }
        return outcome
    }
}
