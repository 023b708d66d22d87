import Estimation
import Foundation
import Geometry
import Sensors

/// A landmark in the world map: a fused position with uncertainty and bookkeeping.
public struct MapLandmark: Equatable, Sendable {
    /// Estimator feature id.
    public var id: Int
    /// Fused position in W, metres (running average weighted by 1/σ²).
    public var p_W: Vec3
    /// 1-σ uncertainty, metres: the smallest σ reported for this landmark. Repeated reports of the same
    /// landmark by a filter are correlated, so σ is deliberately not shrunk by √n.
    public var std_m: Double
    /// Sum of the weights 1/σ² (m⁻²) of the fused reports.
    public var weight: Double
    /// Number of reports fused.
    public var observations: Int
    /// Time of the first and of the latest report, ns.
    public var firstSeen_ns: TimestampNs, lastSeen_ns: TimestampNs
    /// Where camera 0 was (its centre in W, metres) at the latest report, if the reporter said: the landmark was seen
    /// from there, so the segment between them is free space (``SeeThroughTest``). A report comes from the frame whose
    /// visual update used the point's track, which ends at that frame or the one before it.
    public var viewpoint_W: Vec3? = nil
}

/// An axis-aligned box in the world frame, metres.
public struct WorldBox: Equatable, Sendable {
    /// Lower and upper corners (inclusive).
    public var min: Vec3, max: Vec3
    /// A box from its corners.
    public init(min: Vec3, max: Vec3) { self.min = min; self.max = max }
    /// True when `p` is inside (borders included).
    public func contains(_ p: Vec3) -> Bool {
        p.x >= min.x && p.y >= min.y && p.z >= min.z && p.x <= max.x && p.y <= max.y && p.z <= max.z
    }
}

/// The landmark map: points with uncertainty merged by id, bounded in memory.
///
/// Reports for a known id are fused by a running average weighted by 1/σ². A report farther than
/// `reassociationGate` σ from the fused point replaces it (the estimator re-triangulated the feature).
/// When the map holds more than `capacity` landmarks the least recently seen are culled down to
/// 90 % of capacity; landmarks not seen for `maxAge_ns` (if set) are dropped as stale.
public struct LandmarkMap: Sendable {
    /// Maximum number of landmarks kept.
    public var capacity: Int
    /// Landmarks not seen for this long (ns) are dropped; `nil` keeps them until the capacity is reached.
    public var maxAge_ns: TimestampNs?
    /// Reports with σ above this (metres) are ignored.
    public var maxInputStd_m: Double
    /// Gate in combined σ beyond which a report replaces the fused position instead of averaging.
    public var reassociationGate: Double = 5

    private var byId: [Int: MapLandmark] = [:]

    /// An empty map.
    public init(capacity: Int = 20_000, maxAge_ns: TimestampNs? = nil, maxInputStd_m: Double = 0.25) {
        self.capacity = max(1, capacity); self.maxAge_ns = maxAge_ns; self.maxInputStd_m = maxInputStd_m
        // The storage for a full map (and the new landmarks of the frames before a cull) is taken at once. Grown on
        // demand, the dictionary rehashed every landmark into fresh pages each time it doubled; the last time (12 288
        // landmarks, about 1.4 MB) stalled one frame 83 s into the V1_01 flight by 9-19 ms of CPU. Untouched
        // storage is not resident, so a small map costs no memory for it; a very large capacity is reserved only up
        // to a bound.
        byId.reserveCapacity(Swift.min(self.capacity, Self.reservedLandmarksLimit) * 11 / 10 + 1)
    }

    /// The most landmarks whose storage `init` reserves up front (a larger capacity grows beyond it on demand).
    static let reservedLandmarksLimit = 200_000

    /// Number of landmarks held.
    public var count: Int { byId.count }
    /// All landmarks (unordered).
    public var all: [MapLandmark] { Array(byId.values) }
    /// The landmark with this id, if held.
    public func landmark(id: Int) -> MapLandmark? { byId[id] }

    /// Fuses the reports of one frame taken at `t_ns`, seen from `viewpoint_W` (camera 0's centre in W, metres, when
    /// known), then culls stale and excess landmarks. Non-finite positions and σ ≤ 0 or above `maxInputStd_m` are
    /// ignored.
    public mutating func integrate(_ reports: [Landmark], at t_ns: TimestampNs, viewpoint_W: Vec3? = nil) {
        for r in reports {
            guard r.p_W.isFinite, r.std_m.isFinite, r.std_m > 0, r.std_m <= maxInputStd_m else { continue }
            let w = 1 / (r.std_m * r.std_m)
            if var l = byId[r.id] {
                let gate = reassociationGate * (l.std_m * l.std_m + r.std_m * r.std_m).squareRoot()
                if (r.p_W - l.p_W).norm > gate {
                    l.p_W = r.p_W; l.std_m = r.std_m; l.weight = w; l.observations = 1
                } else {
                    l.p_W = (l.weight * l.p_W + w * r.p_W) / (l.weight + w)
                    l.weight += w
                    l.std_m = Swift.min(l.std_m, r.std_m)
                    l.observations += 1
                }
                l.lastSeen_ns = t_ns
                if let viewpoint_W { l.viewpoint_W = viewpoint_W }
                byId[r.id] = l
            } else {
                byId[r.id] = MapLandmark(id: r.id, p_W: r.p_W, std_m: r.std_m, weight: w, observations: 1,
                                         firstSeen_ns: t_ns, lastSeen_ns: t_ns, viewpoint_W: viewpoint_W)
            }
        }
        cull(now: t_ns)
    }

    /// Drops stale landmarks and, above capacity, the least recently seen ones.
    public mutating func cull(now t_ns: TimestampNs) {
        if let maxAge = maxAge_ns {
            byId = byId.filter { t_ns - $0.value.lastSeen_ns <= maxAge }
        }
        if byId.count > capacity {
            // In place: the landmarks beyond the `keep` most recently seen (the later report first, then the higher
            // id) are removed from the dictionary, whose storage is reused. (Rebuilding it from a sorted copy held three
            // copies of a full map at each cull; on the 10-minute run that churn grew the resident memory by 7 MiB
            // after minute 2.) They are the `count − keep` least recent, which a selection finds without sorting the
            // whole map (the sort of 20 000 was a millisecond of the tracking thread at each cull).
            let keep = Swift.max(1, capacity * 9 / 10)
            var order = byId.values.map { Recency(lastSeen_ns: $0.lastSeen_ns, id: $0.id) }
            let drop = order.count - keep
            order.withUnsafeMutableBufferPointer { b in _ = selectKth(b, drop) }
            for entry in order[..<drop] { byId.removeValue(forKey: entry.id) }
        }
    }

    /// A landmark's place in the cull's order: by the time of its latest report, then by id (ids are unique).
    private struct Recency: Comparable {
        var lastSeen_ns: TimestampNs
        var id: Int
        static func < (a: Recency, b: Recency) -> Bool { (a.lastSeen_ns, a.id) < (b.lastSeen_ns, b.id) }
    }

    /// Removes every landmark.
    public mutating func removeAll() { byId.removeAll(keepingCapacity: true) }

    /// Landmarks inside a world box, sorted by id.
    public func landmarks(in box: WorldBox) -> [MapLandmark] {
        byId.values.filter { box.contains($0.p_W) }.sorted { $0.id < $1.id }
    }

    /// Landmarks within `radius` metres of `center` (world), sorted by id.
    public func landmarks(near center: Vec3, radius: Double) -> [MapLandmark] {
        let r2 = radius * radius
        return byId.values.filter { ($0.p_W - center).squaredNorm <= r2 }.sorted { $0.id < $1.id }
    }

    /// Landmarks whose direction from `origin` is within `maxAngle` radians of the unit `direction`,
    /// in front of the origin (beyond `minDistance` metres), sorted by angle.
    public func landmarks(nearRayFrom origin: Vec3, direction: Vec3, maxAngle: Double,
                          minDistance: Double = 0.05) -> [(landmark: MapLandmark, angle: Double)] {
        let cosMax = cos(maxAngle)
        var out: [(MapLandmark, Double)] = []
        for l in byId.values {
            let v = l.p_W - origin
            let d = v.norm
            guard d > minDistance else { continue }
            let c = v.dot(direction) / d
            if c >= cosMax { out.append((l, acos(Swift.min(1, c)))) }
        }
        return out.sorted { ($0.1, $0.0.id) < ($1.1, $1.0.id) }.map { (landmark: $0.0, angle: $0.1) }
    }
}
