import Geometry
import LinearAlgebra

extension FilterState {
    /// Adds uncertainty along the unobservable directions only (the gauge: a rotation of the whole trajectory
    /// about the world's vertical through the current position, and a translation of it), with 1-σ `yaw_rad` and
    /// `position_m` per axis. The inertial state and every clone move together along these directions, so relative
    /// (visual) constraints cannot remove this uncertainty; only absolute ones (map points seen before) can.
    ///
    /// For a yaw `δψ` about `e_z` through `p_ref = p̂`: `δθ = R̂ᵀ e_z δψ` (right error), `δp = e_z × (p̂ − p_ref) δψ`,
    /// `δv = e_z × v̂ δψ`, the same for every clone with its own attitude and position; a translation `δt` adds to
    /// every position. `P ← P + J diag(σ_ψ², σ_t², σ_t², σ_t²) Jᵀ`.
    mutating func inflateGauge(yaw_rad: Double, position_m: Double) {
        guard yaw_rad > 0 || position_m > 0 else { return }
        let n = dimension
        let ez = Vec3(0, 0, 1)
        let pRef = imu.p_W
        var columns: [(vector: [Double], variance: Double)] = []
        var yaw = [Double](repeating: 0, count: n)
        func setYaw(theta: Int, position: Int, R: SO3, p: Vec3) {
            let dTheta = R.inverse.act(ez), dP = ez.cross(p - pRef)
            for i in 0..<3 { yaw[theta + i] = dTheta[i]; yaw[position + i] = dP[i] }
        }
        setYaw(theta: ErrorIndex.theta, position: ErrorIndex.position, R: imu.R_W_B, p: imu.p_W)
        let dV = ez.cross(imu.v_W)
        for i in 0..<3 { yaw[ErrorIndex.velocity + i] = dV[i] }
        for (k, c) in clones.enumerated() { setYaw(theta: cloneIndex(k), position: cloneIndex(k) + 3, R: c.R_W_B, p: c.p_W) }
        if let f = floorIndex {
            // The floor's slopes turn with the world (its height at its origin moves by the slope times that
            // origin's displacement, second order: left out).
            yaw[f + 1] = -floorSlope.y
            yaw[f + 2] = floorSlope.x
        }
        columns.append((yaw, yaw_rad * yaw_rad))
        for axis in 0..<3 {
            var t = [Double](repeating: 0, count: n)
            t[ErrorIndex.position + axis] = 1
            for k in clones.indices { t[cloneIndex(k) + 3 + axis] = 1 }
            if axis == 2, let f = floorIndex { t[f] = 1 } // the floor moves with the world
            columns.append((t, position_m * position_m))
        }
        var m = covarianceMatrix
        for (v, variance) in columns where variance > 0 {
            for j in 0..<n where v[j] != 0 {
                for i in 0..<n where v[i] != 0 { m[i, j] += variance * v[i] * v[j] }
            }
        }
        setCovariance(m)
    }
}
