import Foundation
import Geometry
import Sensors

/// Gravity's direction in a ground truth's world frame, measured from the recording's own IMU, and the rotation
/// that levels that frame (gravity along −z).
///
/// A visual-inertial estimator puts its world's z against the gravity its accelerometer feels. A motion-capture
/// frame is levelled by hand (a wand on the floor) and can be off by a fraction of a degree: EuRoC V1_01's is 0.24°
/// off. A posyaw (4-DoF) alignment assumes both worlds share the vertical, so it counts that tilt as the
/// estimator's error (in ATE, growing with the distance from the trajectory's centroid, and in the tilt error,
/// where it is a floor no estimator can go below). Levelling the ground truth first removes it from the comparison.
///
/// The measurement uses no estimator. Over a span `[t0, t1]` of the ground truth, the specific force measured in
/// the body, `f_B = R_W_Bᵀ (a_W − g_W) + b_a`, gives
/// `g_W = (v_W(t1) − v_W(t0)) / (t1 − t0) − mean(R_W_B (f_B − b_a))`,
/// with the velocities from the ground truth's positions (central differences) and the accelerometer bias from the
/// ground truth's own bias columns when it has them (EuRoC's refined estimate does). Without them the bias enters
/// the tilt as up to |b_a| / g (0.4° for 0.07 m/s²) and averages out only as far as the body turns in yaw, so the
/// result says whether they were used, and the spread over windows says how consistent the direction is: a tilt
/// of the world frame is the same in every window, an error fixed in the body turns with it.
public struct GroundTruthGravity: Equatable, Sendable {
    /// Gravity in the ground truth's world frame W over the whole span, m/s².
    public var gravity_W: Vec3
    /// Angle between W's −z and gravity, radians.
    public var tilt_rad: Double
    /// The rotation taking W to the levelled world L (gravity along L's −z, the smallest rotation doing it; no
    /// yaw). A ground-truth pose `T_W_B` becomes `T_L_B = R_L_W · T_W_B`.
    public var R_L_W: SO3
    /// Per window (`window_s` long): gravity's horizontal direction, the x and y of −ĝ_W (radians for small tilts).
    public var windowTilts: [Vec2]
    /// RMS distance of the windows' tilts from their mean, radians: small (≪ `tilt_rad`) for a tilt of the frame.
    public var spread_rad: Double
    /// Whether the ground truth's accelerometer-bias columns were used (else the bias is taken as zero).
    public var usedGroundTruthBias: Bool
    /// Span of the ground truth measured over, seconds.
    public var span_s: Double

    /// Why gravity could not be measured.
    public enum Failure: Error, CustomStringConvertible, Equatable {
        case tooShort(span_s: Double)
        case noIMUOverlap
        /// The dataset folder has no ground truth (`measure(datasetFolder:)`).
        case noGroundTruth(path: String)
        public var description: String {
            switch self {
            case .noGroundTruth(let path):
                return "no ground truth in \(path)"
            case .tooShort(let s):
                return String(format: "the ground truth and the IMU overlap for %.1f s; measuring gravity needs at least 2 s", s)
            case .noIMUOverlap:
                return "no IMU sample lies inside the ground truth's span"
            }
        }
    }

    /// Measures gravity in the ground truth's frame of the ASL dataset folder at `path`, from the folder's own IMU.
    /// Throws the dataset's loading errors, or ``Failure``.
    public static func measure(datasetFolder path: String) throws -> GroundTruthGravity {
        let dataset = try ASLDataset(path: path)
        guard let groundTruthPath = dataset.groundTruthPath else { throw Failure.noGroundTruth(path: path) }
        return try measure(groundTruth: try TrajectoryFile.readASLGroundTruth(path: groundTruthPath), imu: dataset.imu.samples)
    }

    /// Measures gravity in the frame of `groundTruth` (states in time order, poses of the IMU's body frame B) from
    /// `imu` (samples in time order, in B).
    /// - Parameter window_s: length of the windows whose spread is reported, seconds.
    public static func measure(groundTruth: [GroundTruthState], imu: [IMUSample], window_s: Double = 10) throws -> GroundTruthGravity {
        guard let first = groundTruth.first, let last = groundTruth.last else { throw Failure.tooShort(span_s: 0) }
        // Central differences need ground truth 50 ms either side of a span's ends.
        let h_ns: TimestampNs = 50_000_000
        let start = first.t_ns + h_ns, end = last.t_ns - h_ns
        let inside = imu.filter { $0.t_ns >= start && $0.t_ns <= end }
        guard let imuFirst = inside.first, let imuLast = inside.last else { throw Failure.noIMUOverlap }
        let span_s = Double(imuLast.t_ns - imuFirst.t_ns) * 1e-9
        guard span_s >= 2 else { throw Failure.tooShort(span_s: span_s) }
        let usedBias = groundTruth.contains { $0.accelBias_B != .zero }
        let states = GroundTruthSampler(groundTruth)

        /// Gravity over the samples `inside[range]`.
        func gravity(_ range: Range<Int>) -> Vec3 {
            let t0 = inside[range.lowerBound].t_ns, t1 = inside[range.upperBound - 1].t_ns
            // mean(R (f − b)), each sample weighted by half the intervals to its neighbours (trapezoid).
            var sum = Vec3.zero, weight = 0.0
            for k in range {
                let s = inside[k]
                let prev = k > range.lowerBound ? inside[k - 1].t_ns : s.t_ns
                let next = k < range.upperBound - 1 ? inside[k + 1].t_ns : s.t_ns
                let w = Double(next - prev) * 0.5e-9
                let state = states.state(at: s.t_ns)
                let bias = usedBias ? state.accelBias_B : .zero
                sum = sum + state.T_W_B.rotation.act(s.accel_B - bias) * w
                weight += w
            }
            let dv = states.velocity(at: t1, h_ns: h_ns) - states.velocity(at: t0, h_ns: h_ns)
            let T = Double(t1 - t0) * 1e-9
            return dv / T - sum / weight
        }

        let g = gravity(0..<inside.count)
        var windows: [Vec2] = []
        let window_ns = TimestampNs(max(1, window_s) * 1e9)
        var lower = 0
        while lower < inside.count {
            // Saturating: a recording may be stamped up to the end of Int64's range.
            let limit = inside[lower].t_ns > TimestampNs.max - window_ns ? TimestampNs.max : inside[lower].t_ns + window_ns
            var upper = lower
            while upper < inside.count && (upper == lower || inside[upper].t_ns < limit) { upper += 1 }
            if Double(inside[upper - 1].t_ns - inside[lower].t_ns) * 1e-9 >= 0.8 * window_s {
                let up = -gravity(lower..<upper).normalized
                windows.append(Vec2(up.x, up.y))
            }
            lower = upper
        }
        let mean = windows.isEmpty ? Vec2(0, 0) : windows.reduce(Vec2(0, 0), +) / Double(windows.count)
        let spread = windows.isEmpty ? 0
            : (windows.map { ($0 - mean).norm * ($0 - mean).norm }.reduce(0, +) / Double(windows.count)).squareRoot()

        let up_W = -g.normalized
        let tilt = acos(min(1, max(-1, up_W.z)))
        // The smallest rotation taking up_W to +z: about up_W × z by the tilt.
        let axis = up_W.cross(Vec3(0, 0, 1))
        let R_L_W = axis.norm > 1e-15 ? SO3(angle: tilt, axis: axis.normalized) : SO3(angle: 0, axis: Vec3(0, 0, 1))
        return GroundTruthGravity(gravity_W: g, tilt_rad: tilt, R_L_W: R_L_W, windowTilts: windows, spread_rad: spread,
                                  usedGroundTruthBias: usedBias, span_s: span_s)
    }

    /// `pose` (`T_W_X`) expressed in the levelled world: `T_L_X`.
    public func levelled(_ pose: SE3) -> SE3 {
        SE3(rotation: R_L_W * pose.rotation, translation: R_L_W.act(pose.translation))
    }

    /// One line for people: the tilt, its direction, how consistent it is and what it was measured from.
    public var summary: String {
        let deg = 180 / Double.pi
        let up = -gravity_W.normalized
        let azimuth = atan2(up.y, up.x) * deg
        return String(format: "the ground truth's world z is %.3f° from gravity (up leans toward azimuth %.0f° in its x-y plane); "
                      + "measured from the IMU over %.0f s, %d windows within %.3f° RMS, %@",
                      tilt_rad * deg, azimuth, span_s, windowTilts.count, spread_rad * deg,
                      usedGroundTruthBias ? "with the ground truth's accelerometer bias" : "without an accelerometer bias (none in the ground truth)")
    }
}

/// Ground-truth states looked up by time: the nearest state's orientation and bias, positions linearly interpolated.
struct GroundTruthSampler {
    let states: [GroundTruthState]
    init(_ states: [GroundTruthState]) { self.states = states }

    /// Index of the first state at or after `t_ns`, clamped to the last.
    private func index(atOrAfter t_ns: TimestampNs) -> Int {
        var lo = 0, hi = states.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if states[mid].t_ns < t_ns { lo = mid + 1 } else { hi = mid }
        }
        return min(lo, states.count - 1)
    }

    /// The state nearest in time to `t_ns`.
    func state(at t_ns: TimestampNs) -> GroundTruthState {
        let i = index(atOrAfter: t_ns)
        guard i > 0 else { return states[i] }
        return abs(states[i - 1].t_ns - t_ns) <= abs(states[i].t_ns - t_ns) ? states[i - 1] : states[i]
    }

    /// Position in W at `t_ns`, linear between the neighbouring states, m.
    func position(at t_ns: TimestampNs) -> Vec3 {
        let i = index(atOrAfter: t_ns)
        guard i > 0, states[i].t_ns > t_ns else { return states[i].T_W_B.translation }
        let a = states[i - 1], b = states[i]
        let s = Double(t_ns - a.t_ns) / Double(b.t_ns - a.t_ns)
        return a.T_W_B.translation * (1 - s) + b.T_W_B.translation * s
    }

    /// Velocity in W at `t_ns` from the positions `h_ns` either side, m/s.
    func velocity(at t_ns: TimestampNs, h_ns: TimestampNs) -> Vec3 {
        (position(at: t_ns + h_ns) - position(at: t_ns - h_ns)) / (2 * Double(h_ns) * 1e-9)
    }
}
