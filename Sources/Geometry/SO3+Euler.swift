import Foundation

/// Roll, pitch and yaw in the z-up world convention (ZYX intrinsic Tait–Bryan angles).
///
/// `R_W_B = Rz(yaw) · Ry(pitch) · Rx(roll)`: yaw about the world z axis (up), then pitch about the new y,
/// then roll about the new x. Angles in radians; yaw and roll in (−π, π], pitch in [−π/2, π/2].
extension SO3 {
    /// The rotation `Rz(yaw) · Ry(pitch) · Rx(roll)` (radians).
    public init(roll: Double, pitch: Double, yaw: Double) {
        self = SO3(angle: yaw, axis: Vec3(0, 0, 1)) * SO3(angle: pitch, axis: Vec3(0, 1, 0)) * SO3(angle: roll, axis: Vec3(1, 0, 0))
    }

    /// A pure heading rotation about the world z axis by `yaw` radians.
    public init(yaw: Double) { self.init(angle: yaw, axis: Vec3(0, 0, 1)) }

    /// (roll, pitch, yaw) in radians with `self == SO3(roll:pitch:yaw:)`. At gimbal lock (|pitch| within
    /// ~1e-9 of π/2, body x axis vertical) roll and yaw are not separable: roll is returned as 0.
    public var rollPitchYaw: (roll: Double, pitch: Double, yaw: Double) {
        let m = matrix
        // m[2,0] = −sin(pitch), m[2,1] = cos(pitch) sin(roll), m[2,2] = cos(pitch) cos(roll),
        // m[1,0] = sin(yaw) cos(pitch), m[0,0] = cos(yaw) cos(pitch).
        let cp = (m[2, 1] * m[2, 1] + m[2, 2] * m[2, 2]).squareRoot()
        let pitch = atan2(-m[2, 0], cp)
        if cp < 1e-9 {
            // With roll = 0: m[0,1] = −sin(yaw), m[1,1] = cos(yaw).
            return (0, pitch, atan2(-m[0, 1], m[1, 1]))
        }
        return (atan2(m[2, 1], m[2, 2]), pitch, atan2(m[1, 0], m[0, 0]))
    }

    /// The yaw (heading about world z, radians, in (−π, π]) of `R_W_B`.
    public var yaw: Double { rollPitchYaw.yaw }

    /// The roll and pitch (radians) of `R_W_B` — the part gravity makes observable.
    public var rollPitch: (roll: Double, pitch: Double) {
        let e = rollPitchYaw
        return (e.roll, e.pitch)
    }
}
