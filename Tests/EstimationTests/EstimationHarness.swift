import Foundation
import Geometry
import Sensors
import Simulation
import TestSupport
@testable import Estimation

/// Runs a `VIOEstimator` over simulated IMU samples and frames and compares with the truth.
struct EstimationRun {
    var outputs: [EstimatorOutput] = []
    var truths: [TrajectoryState] = []
    var diagnostics: [EstimatorDiagnostics] = []
    /// Thread CPU time spent inside `addIMU`/`addFrame`, seconds.
    var estimatorSeconds = 0.0

    init(estimator: VIOEstimator, trajectory: some Trajectory, imu: [IMUSample], frames: [EstimationSimFrame],
         frameDisparity: Bool = false) {
        var k = 0
        for f in frames {
            let obs = f.observations.map {
                FeatureObservation(id: $0.id, camera: $0.camera, normalized: $0.normalized, rightNormalized: $0.rightNormalized)
            }
            let start = Self.threadCPUSeconds()
            while k < imu.count, imu[k].t_ns <= f.t_ns { estimator.addIMU(imu[k]); k += 1 }
            outputs.append(estimator.addFrame(FeatureFrame(t_ns: f.t_ns, observations: obs)))
            estimatorSeconds += Self.threadCPUSeconds() - start
            truths.append(trajectory.state(at: Double(f.t_ns) * 1e-9))
            diagnostics.append(estimator.lastDiagnostics)
        }
    }

    /// CPU time of the calling thread, seconds (immune to other processes' load, unlike wall time).
    static func threadCPUSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// Indices of frames with an initialised estimate.
    var initializedIndices: [Int] { outputs.indices.filter { outputs[$0].positionStd_m.isFinite } }

    /// Position errors after a 4-DoF (position + yaw) least-squares alignment over `indices`.
    func alignedPositionErrors(_ indices: [Int]) -> [Double] {
        guard !indices.isEmpty else { return [] }
        let est = indices.map { outputs[$0].T_W_B.translation }, tru = indices.map { truths[$0].p_W }
        let n = Double(indices.count)
        let ce = est.reduce(Vec3.zero, +) / n, ct = tru.reduce(Vec3.zero, +) / n
        var sxx = 0.0, sxy = 0.0
        for (e, t) in zip(est, tru) {
            let a = e - ce, b = t - ct
            sxx += a.x * b.x + a.y * b.y
            sxy += a.x * b.y - a.y * b.x
        }
        let yaw = atan2(sxy, sxx)
        let R = SO3(angle: yaw, axis: Vec3(0, 0, 1))
        let t = ct - R.act(ce)
        return zip(est, tru).map { (R.act($0) + t - $1).norm }
    }

    static func rmse(_ e: [Double]) -> Double { (e.reduce(0) { $0 + $1 * $1 } / Double(max(1, e.count))).squareRoot() }
}
