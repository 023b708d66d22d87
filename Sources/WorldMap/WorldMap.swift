import Geometry
import Imaging

/// A saved world: the map points the estimator triangulated (with their ORB descriptors), keyframes, planes and
/// user anchors, all in the world frame W of the run that made it (gravity-aligned, z up). `run --save-map` writes
/// one at the end of a run and `run --load-map` relocalises against it; the file format is `WorldMapFile`
/// (docs/WORLDMAP.md).
public struct WorldMap: Equatable, Sendable {
    /// A triangulated point with the descriptor of the feature track it came from.
    public struct MapPoint: Equatable, Sendable {
        /// Id within this map (keyframe keypoints refer to it); not a feature track id.
        public var id: Int
        /// Position in W, metres.
        public var p_W: Vec3
        /// 1-σ position uncertainty, metres.
        public var std_m: Double
        /// ORB descriptor of the track, computed where the track started.
        public var descriptor: ORBDescriptor
        /// Last time the point was seen, ns (the saving run's clock).
        public var lastSeen_ns: Int64

        /// A point (see the properties for frames and units).
        public init(id: Int, p_W: Vec3, std_m: Double, descriptor: ORBDescriptor, lastSeen_ns: Int64) {
            self.id = id; self.p_W = p_W; self.std_m = std_m; self.descriptor = descriptor; self.lastSeen_ns = lastSeen_ns
        }
    }

    /// A feature of a keyframe.
    public struct Keypoint: Equatable, Sendable {
        /// Pixel position in camera 0's (distorted) image.
        public var pixel: SIMD2<Float>
        /// The map point it observes (`MapPoint.id`), or nil.
        public var mapPointId: Int?
        /// ORB descriptor of its track.
        public var descriptor: ORBDescriptor

        /// A keypoint.
        public init(pixel: SIMD2<Float>, mapPointId: Int?, descriptor: ORBDescriptor) {
            self.pixel = pixel; self.mapPointId = mapPointId; self.descriptor = descriptor
        }
    }

    /// A view of the map: camera 0's pose and the features it tracked.
    public struct Keyframe: Equatable, Sendable {
        /// Frame time, ns.
        public var t_ns: Int64
        /// Pose of camera 0 (OpenCV frame) in W.
        public var T_W_C: SE3
        /// Its features that have a descriptor.
        public var keypoints: [Keypoint]

        /// A keyframe.
        public init(t_ns: Int64, T_W_C: SE3, keypoints: [Keypoint]) {
            self.t_ns = t_ns; self.T_W_C = T_W_C; self.keypoints = keypoints
        }
    }

    /// A detected plane, as the stream reports it.
    public struct Plane: Equatable, Sendable {
        /// Stable id (`plane-N`).
        public var id: String
        /// True for walls (vertical planes), false for horizontal ones.
        public var isVertical: Bool
        /// Classification word (`floor`, `table`, `ceiling`, `wall`, `none`).
        public var classification: String
        /// Plane frame P in W (z along the normal).
        public var T_W_P: SE3
        /// Convex boundary in the plane frame's x-y, metres.
        public var boundaryLocal: [Vec2]
        /// `normal · p` for points of the plane, metres.
        public var offset_m: Double
        /// 1-σ of `offset_m`, metres.
        public var offsetStd_m: Double
        /// Supporting landmarks.
        public var pointCount: Int

        /// A plane (see the properties for frames and units).
        public init(id: String, isVertical: Bool, classification: String, T_W_P: SE3, boundaryLocal: [Vec2],
                    offset_m: Double, offsetStd_m: Double, pointCount: Int) {
            self.id = id; self.isVertical = isVertical; self.classification = classification; self.T_W_P = T_W_P
            self.boundaryLocal = boundaryLocal; self.offset_m = offset_m; self.offsetStd_m = offsetStd_m
            self.pointCount = pointCount
        }
    }

    /// A user anchor.
    public struct Anchor: Equatable, Sendable {
        /// Stable id (`anchor-N`).
        public var id: String
        /// Label, if any.
        public var name: String?
        /// Pose in W.
        public var T_W_A: SE3
        /// The plane it was placed on, if any.
        public var planeId: String?
        /// Creation time, ns (the saving run's clock).
        public var created_ns: Int64

        /// An anchor (see the properties).
        public init(id: String, name: String?, T_W_A: SE3, planeId: String?, created_ns: Int64) {
            self.id = id; self.name = name; self.T_W_A = T_W_A; self.planeId = planeId; self.created_ns = created_ns
        }
    }

    /// Time of the last frame of the saving run, ns.
    public var saved_ns: Int64
    /// Map points, ids unique.
    public var points: [MapPoint]
    /// Keyframes in time order.
    public var keyframes: [Keyframe]
    /// Planes.
    public var planes: [Plane]
    /// User anchors in order of creation.
    public var anchors: [Anchor]

    /// A map (see the properties).
    public init(saved_ns: Int64 = 0, points: [MapPoint] = [], keyframes: [Keyframe] = [], planes: [Plane] = [],
                anchors: [Anchor] = []) {
        self.saved_ns = saved_ns; self.points = points; self.keyframes = keyframes; self.planes = planes
        self.anchors = anchors
    }
}
