import Foundation
import Geometry
import Sensors

/// A user anchor: a pose the user placed (e.g. at a raycast hit), persisted by the world session.
///
/// When placed on a detected plane it is stored relative to that plane (`T_P_A`) and follows the plane's
/// refinements; when that plane is merged into another it is re-attached to the survivor.
public struct UserAnchor: Equatable, Sendable {
    /// Stable id (`anchor-1`, `anchor-2`, …).
    public var id: String
    /// Optional user label.
    public var name: String?
    /// Pose of the anchor in the world (z along the surface normal when placed on a surface).
    public var T_W_A: SE3
    /// The plane it sits on, if any.
    public var planeId: String?
    /// Pose relative to that plane's frame (`T_P_A`), when attached.
    public var T_P_A: SE3?
    /// Creation time, ns.
    public var created_ns: TimestampNs
}

/// The two kinds of anchors the world layer reports.
public enum AnchorKind: String, Equatable, Sendable, Codable {
    /// A detected plane (`PlaneAnchor`).
    case plane
    /// A user anchor (`UserAnchor`).
    case user
}

/// A plane or user anchor, as carried by lifecycle events.
public enum WorldAnchor: Equatable, Sendable {
    /// A detected plane.
    case plane(PlaneAnchor)
    /// A user anchor.
    case user(UserAnchor)

    /// The anchor's id.
    public var id: String {
        switch self { case let .plane(p): return p.id; case let .user(u): return u.id }
    }
    /// Plane or user.
    public var kind: AnchorKind {
        switch self { case .plane: return .plane; case .user: return .user }
    }
    /// The anchor's pose in the world: `T_W_P` for planes (origin fixed in the plane, z along the normal),
    /// `T_W_A` for user anchors.
    public var T_W_A: SE3 {
        switch self { case let .plane(p): return p.T_W_P; case let .user(u): return u.T_W_A }
    }
}

/// An anchor lifecycle event (ARKit's `didAdd` / `didUpdate` / `didRemove`).
public struct AnchorEvent: Equatable, Sendable {
    /// What happened; the raw values are the stream record types.
    public enum Change: String, Equatable, Sendable, Codable {
        /// The anchor appeared.
        case added = "anchor.added"
        /// The anchor moved or changed.
        case updated = "anchor.updated"
        /// The anchor is gone (planes: merged into another).
        case removed = "anchor.removed"
    }
    /// Added, updated or removed.
    public var change: Change
    /// Time of the frame that caused it, ns.
    public var t_ns: TimestampNs
    /// The anchor after the change (before removal for `removed`).
    public var anchor: WorldAnchor
    /// For a plane removed by a merge: the plane that absorbed it.
    public var mergedInto: String?

    /// An event.
    public init(change: Change, t_ns: TimestampNs, anchor: WorldAnchor, mergedInto: String? = nil) {
        self.change = change; self.t_ns = t_ns; self.anchor = anchor; self.mergedInto = mergedInto
    }
}

/// An anchor visible in a frame: in front of the camera and projecting inside the image.
public struct AnchorInView: Equatable, Sendable {
    /// The anchor's id.
    public var id: String
    /// Plane or user.
    public var kind: AnchorKind
    /// The anchor's pose in the world (see `WorldAnchor.T_W_A`).
    public var T_W_A: SE3
    /// Pixel where the anchor's reference point projects (plane: its centre or the first visible boundary
    /// vertex; user: its origin).
    public var pixel: Vec2
    /// Depth of that point in the camera frame, metres.
    public var depth_m: Double
    /// The plane's classification (planes only).
    public var classification: PlaneClassification?
}
