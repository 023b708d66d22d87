import Foundation
import Geometry
import Sensors

/// A body trajectory given by recorded ground-truth states (e.g. EuRoC's `state_groundtruth_estimate0`):
/// the trajectory of `simulate --from-recording`.
///
/// Poses are `T_W_B` (body B = IMU frame, world W as the recording's, z up; metres). Trajectory time `t`
/// is seconds since `origin_ns` (a time stamp, nanoseconds). At a time that is one of the states' time stamps
/// (to the nanosecond, after rounding `t · 1e9`), `state(at:)` returns that state's pose and velocity exactly —
/// no interpolation; renders of frames at ground-truth time stamps see exactly the recorded poses. Between
/// states the pose is interpolated (translation linearly, rotation by slerp; used only by sub-frame renders
/// such as motion blur), and outside the recorded span it is held at the first or last state.
/// Accelerations and angular rates are finite differences of neighbouring states (rough; nothing in the
/// simulator synthesises an IMU from them — the recording's IMU is used).
public struct RecordedTrajectory: Trajectory {
    /// Name of the trajectory (`"recording"`).
    public var name: String { "recording" }
    /// The recorded states, strictly increasing in time.
    public let states: [GroundTruthState]
    /// Time stamp of trajectory time t = 0, nanoseconds.
    public let origin_ns: TimestampNs

    /// A trajectory through `states` (at least one, strictly increasing `t_ns`), with t = 0 at `origin_ns`.
    public init(states: [GroundTruthState], origin_ns: TimestampNs) throws {
        guard !states.isEmpty else { throw SimulationError.badConfig("a recorded trajectory needs at least one state") }
        for i in 1..<max(1, states.count) where states[i].t_ns <= states[i - 1].t_ns {
            throw SimulationError.badConfig("recorded states are not in increasing time order at index \(i)")
        }
        self.states = states
        self.origin_ns = origin_ns
    }

    /// Trajectory time (seconds) of the time stamp `t_ns`.
    public func time(ofStamp t_ns: TimestampNs) -> Double { Time.seconds(t_ns - origin_ns) }

    /// Index of the last state with `t_ns ≤ stamp` (−1 when the stamp is before the first state).
    func indexAtOrBefore(_ stamp: TimestampNs) -> Int {
        var lo = 0, hi = states.count - 1
        if stamp < states[0].t_ns { return -1 }
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if states[mid].t_ns <= stamp { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// The pose `T_W_B` at time stamp `t_ns`: the recorded pose when `t_ns` is a state's stamp, otherwise
    /// interpolated (held constant outside the recorded span).
    public func pose(atStamp t_ns: TimestampNs) -> SE3 {
        let i = indexAtOrBefore(t_ns)
        if i < 0 { return states[0].T_W_B }
        if states[i].t_ns == t_ns || i == states.count - 1 { return states[i].T_W_B }
        let a = states[i], b = states[i + 1]
        let f = Double(t_ns - a.t_ns) / Double(b.t_ns - a.t_ns)
        return SE3.interpolate(a.T_W_B, b.T_W_B, f)
    }

    public func state(at t: Double) -> TrajectoryState {
        let stamp = origin_ns + Time.nanoseconds(t)
        let i = max(0, indexAtOrBefore(stamp))
        let exact = states[i].t_ns == stamp
        let T = pose(atStamp: stamp)
        // Neighbours for finite differences.
        let j0 = max(0, i - 1), j1 = min(states.count - 1, i + 1)
        var omega = Vec3.zero, accel = Vec3.zero
        if j1 > j0 {
            let a = states[j0], b = states[j1]
            let dt = Time.seconds(b.t_ns - a.t_ns)
            omega = (a.T_W_B.rotation.inverse * b.T_W_B.rotation).log / dt
            accel = (b.v_W - a.v_W) / dt
        }
        let v = exact ? states[i].v_W : velocityInterpolated(stamp, i)
        return TrajectoryState(t: t, T_W_B: T, v_W: v, a_W: accel, omega_B: omega)
    }

    private func velocityInterpolated(_ stamp: TimestampNs, _ i: Int) -> Vec3 {
        guard stamp > states[i].t_ns, i + 1 < states.count else { return states[i].v_W }
        let a = states[i], b = states[i + 1]
        let f = Double(stamp - a.t_ns) / Double(b.t_ns - a.t_ns)
        return a.v_W + f * (b.v_W - a.v_W)
    }
}
