import Foundation
import Geometry

/// The frame conventions the stream's poses, points and normals are written in.
///
/// - `worldtrack` (default): world z up (gravity −z), camera OpenCV (x right, y down, z forward), anchor and
///   raycast-hit frames with z along the surface normal.
/// - `arkit`: ARKit's — world y up (`x_A = x_W, y_A = z_W, z_A = −y_W`), camera x right, y up, looking down −z,
///   anchor and hit frames with y along the surface normal (`x_a = x, y_a = z, z_a = −y` of ours).
/// Intrinsics, pixels, distances and times are the same in both.
public enum StreamConvention: String, Equatable, Sendable, CaseIterable {
    /// WorldTrack's own: z-up world, OpenCV camera, z along surface normals.
    case worldtrack
    /// ARKit's: y-up world, camera looking down −z, y along surface normals.
    case arkit

    /// `R_A_W`: world axes of ours expressed in ARKit's world.
    static let R_A_W = SO3(matrix: Mat3(rows: Vec3(1, 0, 0), Vec3(0, 0, 1), Vec3(0, -1, 0)))
    /// `R_C_Ca`: ARKit's camera axes in the OpenCV camera frame (flip y and z).
    static let R_C_Ca = SO3(matrix: Mat3(diagonal: Vec3(1, -1, -1)))
    /// `R_S_Sa`: ARKit's surface-frame axes (y along the normal) in ours (z along the normal).
    static let R_S_Sa = SO3(matrix: Mat3(columns: Vec3(1, 0, 0), Vec3(0, 0, 1), Vec3(0, -1, 0)))

    /// A world point (or direction) in this convention's world.
    public func point(_ p_W: Vec3) -> Vec3 { self == .arkit ? Self.R_A_W.act(p_W) : p_W }
    /// A camera pose `T_W_C` as `T_world_camera` in this convention.
    public func cameraPose(_ T_W_C: SE3) -> SE3 {
        guard self == .arkit else { return T_W_C }
        return SE3(rotation: Self.R_A_W) * T_W_C * SE3(rotation: Self.R_C_Ca)
    }
    /// A body pose `T_W_B` (the body frame itself is unchanged).
    public func bodyPose(_ T_W_B: SE3) -> SE3 { self == .arkit ? SE3(rotation: Self.R_A_W) * T_W_B : T_W_B }
    /// An anchor or raycast-hit pose (z along the surface normal in ours).
    public func surfacePose(_ T_W_S: SE3) -> SE3 {
        guard self == .arkit else { return T_W_S }
        return SE3(rotation: Self.R_A_W) * T_W_S * SE3(rotation: Self.R_S_Sa)
    }
}
