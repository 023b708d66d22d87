import Estimation
import Foundation
import Geometry
import Imaging
import Sensors

/// What the world layer reports for one frame: pose, camera, planes, anchors in view, lifecycle events,
/// and raycasts against the session's current world state. Consumers receive this.
public struct WorldFrame {
    /// The input this frame was made from.
    public let input: WorldFrameInput
    /// Anchor lifecycle events caused by this frame (planes and plane-following user anchors).
    public let events: [AnchorEvent]
    /// Detected planes (empty while tracking is not normal).
    public let planes: [PlaneAnchor]
    /// User anchors (empty while tracking is not normal).
    public let userAnchors: [UserAnchor]
    /// Plane and user anchors in view (in front of the camera, projecting inside the image).
    public let anchorsInView: [AnchorInView]
    /// The session, for raycasts and placing anchors.
    public let session: WorldSession

    /// Frame time, ns.
    public var t_ns: TimestampNs { input.t_ns }
    /// The estimator's tracking state (its `description` is the stream's string: `normal`, `limited(…)`, `notAvailable`).
    public var trackingState: TrackingState { input.trackingState }
    /// True when tracking is normal and the pose finite (``WorldFrameInput/isTrackingNormal``).
    public var isTrackingNormal: Bool { input.isTrackingNormal }
    /// Camera pose in the world (OpenCV camera frame).
    public var T_W_C: SE3 { input.T_W_C }
    /// Body pose in the world.
    public var T_W_B: SE3 { input.T_W_B }
    /// Camera calibration.
    public var camera: CameraCalibration { input.camera }
    /// The frame's image, if the caller supplied it.
    public var image: GrayImage? { input.image }
    /// Tracked feature count.
    public var featureCount: Int { input.featureCount }

    /// Builds the frame, computing the anchors in view.
    init(input: WorldFrameInput, session: WorldSession, events: [AnchorEvent]) {
        self.input = input; self.session = session; self.events = events
        guard input.isTrackingNormal else {
            planes = []; userAnchors = []; anchorsInView = []
            return
        }
        planes = session.planes
        userAnchors = session.userAnchors
        anchorsInView = WorldFrame.visibleAnchors(planes: planes, users: userAnchors, T_W_C: input.T_W_C,
                                                  camera: input.camera.model)
    }

    /// Anchors whose reference point is in front of the camera and inside the image.
    public static func visibleAnchors(planes: [PlaneAnchor], users: [UserAnchor], T_W_C: SE3,
                                      camera: CameraModel) -> [AnchorInView] {
        let T_C_W = T_W_C.inverse
        func view(_ p_W: Vec3) -> (Vec2, Double)? {
            let p_C = T_C_W.act(p_W)
            guard p_C.z > 0.05, let px = camera.project(p_C), camera.contains(px) else { return nil }
            return (px, p_C.z)
        }
        var out: [AnchorInView] = []
        for p in planes {
            if let (px, z) = ([p.center] + p.boundary).lazy.compactMap(view).first {
                out.append(AnchorInView(id: p.id, kind: .plane, T_W_A: p.T_W_P, pixel: px, depth_m: z,
                                        classification: p.classification))
            }
        }
        for u in users {
            if let (px, z) = view(u.T_W_A.translation) {
                out.append(AnchorInView(id: u.id, kind: .user, T_W_A: u.T_W_A, pixel: px, depth_m: z, classification: nil))
            }
        }
        return out
    }

    /// The world ray through a pixel of this frame; `nil` if the pixel cannot be unprojected.
    public func ray(pixel: Vec2) -> WorldRay? { WorldRay(pixel: pixel, camera: camera.model, T_W_C: T_W_C) }

    /// Raycasts from a pixel of this frame against one target, nearest first (empty while not tracking normally).
    public func raycast(pixel: Vec2, target: RaycastTarget, alignment: RaycastAlignment = .any) -> [RaycastResult] {
        guard isTrackingNormal, let r = ray(pixel: pixel) else { return [] }
        return session.raycast(r, target: target, alignment: alignment)
    }

    /// The first hit from a pixel trying `targets` in order (default: plane geometry, estimated plane, infinite plane).
    /// `horizontalGeometryMargin_m`, when given, is how far outside a horizontal plane's boundary a geometry hit
    /// still counts (the session's `geometryMargin_m` otherwise).
    public func raycast(pixel: Vec2, preferring targets: [RaycastTarget] = [.existingPlaneGeometry, .estimatedPlane,
                                                                           .existingPlaneInfinite],
                        alignment: RaycastAlignment = .any, horizontalGeometryMargin_m: Double? = nil) -> RaycastResult? {
        guard isTrackingNormal, let r = ray(pixel: pixel) else { return nil }
        return session.raycast(r, preferring: targets, alignment: alignment,
                               horizontalGeometryMargin_m: horizontalGeometryMargin_m)
    }

    /// Places a user anchor at a hit (see `WorldSession.addAnchor(at:t_ns:name:)`); returns its `anchor.added` event.
    @discardableResult
    public func addAnchor(at hit: RaycastResult, name: String? = nil) -> AnchorEvent {
        session.addAnchor(at: hit, t_ns: t_ns, name: name)
    }
}
