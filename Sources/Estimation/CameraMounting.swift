import Geometry
import Sensors

/// The rig's camera mountings as the filter sees them: the calibration's `T_B_Ci` as given, or, when the state
/// refines camera 0's mounting (`FilterState.T_B_C0`), that estimate with the other cameras rigidly attached to
/// it: `T_B_Ci = T_B_C0 · T_C0_Ci`, `T_C0_Ci` from the calibration.
struct CameraMounting {
    /// Each camera's pose relative to camera 0 from the calibration, `T_C0_Ci` (identity for camera 0).
    let T_C0_C: [SE3]
    /// The calibration's mountings `T_B_Ci`.
    let calibrated: [SE3]

    init(cameras: [CameraCalibration]) {
        calibrated = cameras.map(\.T_B_C)
        let T_C0_B = (cameras.first?.T_B_C ?? SE3()).inverse
        T_C0_C = cameras.map { T_C0_B * $0.T_B_C }
    }

    /// The mounting of camera `c` in the state's current estimate, `T_B_Cc`.
    func T_B_C(_ c: Int, state: FilterState) -> SE3 {
        guard let T_B_C0 = state.T_B_C0 else { return calibrated[c] }
        return c == 0 ? T_B_C0 : T_B_C0 * T_C0_C[c]
    }

    /// The Jacobian of the point in camera `c`'s frame w.r.t. camera 0's mounting error `[δφ_BC, δp_BC]`
    /// (`R_B_C0 = R̂ Exp(δφ)`, `p_B_C0 = p̂ + δp`), for the point `p_C0` in camera 0's frame (metres):
    /// `p_C0 = R_B_C0ᵀ (p_B − p_B_C0)` gives `∂p_C0/∂δφ = [p_C0]×`, `∂p_C0/∂δp = −R̂_B_C0ᵀ`, and
    /// `p_Cc = R_C0_Ccᵀ (p_C0 − p_C0_Cc)` multiplies both by `R_C0_Ccᵀ`.
    func jacobian(camera c: Int, p_C0: Vec3, R_B_C0: SO3) -> (dRotation: Mat3, dTranslation: Mat3) {
        let R = T_C0_C[c].rotation.inverse.matrix
        return (R * p_C0.skew, -(R * R_B_C0.inverse.matrix))
    }
}
