import Foundation
import Geometry
import Sensors

/// A change to a plane found by the tracker.
public enum PlaneChange: Equatable, Sendable {
    /// A new plane.
    case added(PlaneAnchor)
    /// A plane refined (height, boundary, extent or classification changed).
    case updated(PlaneAnchor)
    /// A plane removed; `mergedInto` names the plane that absorbed it, if any.
    case removed(PlaneAnchor, mergedInto: String?)
}

/// Tuning of plane tracking (matching candidates to planes, merging, classification).
public struct PlaneTrackerOptions: Equatable, Sendable {
    /// A candidate matches a plane when their offsets differ by at most max(this, the candidate's inlier band,
    /// 3 σ), metres.
    public var matchOffset_m: Double = 0.05
    /// … and their boundaries are at most this far apart, metres.
    public var matchDistance_m: Double = 0.3
    /// Two planes merge when their offsets differ by at most max(this, the smaller of their inlier bands), metres …
    public var mergeOffset_m: Double = 0.04
    /// … and their boundaries touch (are at most this far apart), metres.
    public var mergeDistance_m: Double = 0.05
    /// A horizontal plane needs at least this area to be the floor, m².
    public var floorMinArea_m2: Double = 0.5
    /// A horizontal plane more than this above the camera is a ceiling, metres.
    public var ceilingAboveCamera_m: Double = 0.2
    /// An `updated` change is reported when the plane has moved along its normal by more than this anywhere on its
    /// origin or boundary (a height change, or a wall's turn) since its last reported change (not since the previous
    /// pass), metres …
    public var updateOffset_m: Double = 0.001
    /// … or the area changes by more than this fraction.
    public var updateAreaFraction: Double = 0.01
    /// A refinement whose candidate holds at least this fraction of the plane's landmarks replaces the boundary
    /// (instead of growing it).
    public var boundaryRefitFraction: Double = 0.8
    /// A plane that no candidate has matched for this many detection passes in a row is removed: its landmarks
    /// no longer make a plane (an early detection from a sparse map, or landmarks re-estimated elsewhere).
    public var maxMissedPasses: Int = 20
    /// Default options.
    public init() {}
}

/// Tracks planes over time: matches each detection pass's candidates to known planes, grows, refines
/// and merges them, classifies them, and reports the changes. Ids are `plane-1`, `plane-2`, … in order.
public struct PlaneTracker: Sendable {
    /// Tuning.
    public var options: PlaneTrackerOptions
    /// Planes in order of creation.
    public private(set) var planes: [PlaneAnchor] = []
    private var nextId = 1
    /// Detection passes in a row in which no candidate matched the plane, by id.
    private var missedPasses: [String: Int] = [:]
    /// Each plane as its last change reported it (`added` or `updated`), by id. A refinement is reported when the
    /// plane differs significantly from this, not from the previous pass: otherwise steps each under the thresholds
    /// (`updateOffset_m`, …) would move a plane away from what its listeners were told without telling them.
    private var reported: [String: PlaneAnchor] = [:]

    /// An empty tracker.
    public init(options: PlaneTrackerOptions = PlaneTrackerOptions()) { self.options = options }

    /// The plane with this id.
    public func plane(id: String) -> PlaneAnchor? { planes.first { $0.id == id } }

    /// Integrates one detection pass made at `t_ns` with the camera at `cameraPosition_W` (world, metres).
    /// Vertical planes get the normal that faces the camera when they are first seen. Planes that no candidate
    /// matched for more than `maxMissedPasses` passes are removed, and so at once is a plane that matches one of the
    /// `refuted` fits (landmarks were seen through it, `PlaneDetection.refuted`) and no candidate of this pass: it
    /// was made before the landmarks behind it were, and it is no surface.
    public mutating func update(with detected: [PlaneCandidate], refuted: [PlaneCandidate] = [], at t_ns: TimestampNs,
                                cameraPosition_W: Vec3) -> [PlaneChange] {
        let cameraHeight_m = cameraPosition_W.z
        let candidates = detected.map { c -> PlaneCandidate in
            var c = c
            if c.alignment == .vertical && c.normal_W.dot(cameraPosition_W) - c.offset_m < 0 {
                c.normal_W = -c.normal_W; c.offset_m = -c.offset_m
            }
            return c
        }
        let before = Dictionary(uniqueKeysWithValues: planes.map { ($0.id, $0) })
        var removed: [(PlaneAnchor, String)] = []
        var added = Set<String>()
        var matched = Set<String>()
        for c in candidates {
            let matches = planes.indices.filter { matchesCandidate(planes[$0], c) }
            if matches.isEmpty {
                let p = makePlane(c, at: t_ns)
                planes.append(p); added.insert(p.id)
                continue
            }
            let primary = matches[0] // oldest
            matched.insert(planes[primary].id)
            refine(&planes[primary], with: c, at: t_ns)
            for other in matches.dropFirst().reversed() {
                let absorbed = planes[other]
                absorb(absorbed, into: &planes[primary], at: t_ns)
                removed.append((absorbed, planes[primary].id))
                planes.remove(at: other)
            }
        }
        var unsupported: [PlaneAnchor] = []
        let refutedIds = Set(planes.filter { p in
            !matched.contains(p.id) && !added.contains(p.id) && refuted.contains { matchesCandidate(p, $0) }
        }.map(\.id))
        planes.removeAll { p in
            guard refutedIds.contains(p.id) else { return false }
            unsupported.append(p); missedPasses[p.id] = nil
            return true
        }
        for p in planes where !added.contains(p.id) {
            missedPasses[p.id] = matched.contains(p.id) ? 0 : (missedPasses[p.id] ?? 0) + 1
        }
        planes.removeAll { p in
            guard (missedPasses[p.id] ?? 0) > options.maxMissedPasses else { return false }
            unsupported.append(p); missedPasses[p.id] = nil
            return true
        }
        mergeTouchingPlanes(at: t_ns, removed: &removed)
        let live = Set(planes.map(\.id))
        missedPasses = missedPasses.filter { live.contains($0.key) }
        classify(cameraHeight_m: cameraHeight_m)

        var changes: [PlaneChange] = []
        let removedIds = Set(removed.map { $0.0.id })
        for (p, into) in removed where before[p.id] != nil { changes.append(.removed(p, mergedInto: into)) }
        for p in unsupported { changes.append(.removed(p, mergedInto: nil)) }
        for p in planes {
            if let old = before[p.id] {
                if significantlyChanged(reported[p.id] ?? old, p) { changes.append(.updated(p)); reported[p.id] = p }
            } else if added.contains(p.id) && !removedIds.contains(p.id) {
                changes.append(.added(p)); reported[p.id] = p
            }
        }
        let remaining = Set(planes.map(\.id))
        reported = reported.filter { remaining.contains($0.key) }
        return changes
    }

    /// Removes every plane (ids keep counting).
    public mutating func removeAll() { planes.removeAll(); missedPasses.removeAll(); reported.removeAll() }

    /// Adds a plane saved by an earlier session (a loaded world map), keeping its id when no plane has it (a new
    /// `plane-N` otherwise); planes detected later get higher numbers. Returns the plane as added.
    public mutating func restore(_ plane: PlaneAnchor) -> PlaneAnchor {
        var p = plane
        if self.plane(id: p.id) != nil { p.id = "plane-\(nextId)"; nextId += 1 }
        if p.id.hasPrefix("plane-"), let n = Int(p.id.dropFirst("plane-".count)) { nextId = max(nextId, n + 1) }
        planes.append(p)
        reported[p.id] = p
        return p
    }

    // MARK: Matching and refinement

    func matchesCandidate(_ p: PlaneAnchor, _ candidate: PlaneCandidate) -> Bool {
        let c = aligned(candidate, to: p)
        guard p.alignment == c.alignment, p.normal_W.dot(c.normal_W) > cos(10 * Double.pi / 180) else { return false }
        let tol = max(options.matchOffset_m, c.band_m,
                      3 * (p.offsetStd_m * p.offsetStd_m + c.offsetStd_m * c.offsetStd_m).squareRoot())
        guard abs(offset(of: p, along: c.normal_W) - c.offset_m) <= tol else { return false }
        let hull = PlaneGeometry2D.convexHull(outlineSupport(c, in: p).map { p.local($0) })
        return PlaneGeometry2D.distance(hull, p.boundaryLocal) <= options.matchDistance_m
    }

    /// The candidate's points that can bound its outline in `p`'s frame: its `outlinePoints` when `p` looks along the
    /// candidate's normal (their convex hull there is that of all its points), else all of them.
    func outlineSupport(_ c: PlaneCandidate, in p: PlaneAnchor) -> [Vec3] {
        guard let outline = c.outlinePoints, (p.normal_W - c.normal_W).norm <= PlaneCandidate.outlineNormalTolerance else { return c.points }
        return outline
    }

    /// The candidate with its normal flipped, if needed, to agree with the plane's.
    func aligned(_ c: PlaneCandidate, to p: PlaneAnchor) -> PlaneCandidate {
        guard p.normal_W.dot(c.normal_W) < 0 else { return c }
        var f = c
        f.normal_W = -c.normal_W; f.offset_m = -c.offset_m
        return f
    }

    /// The plane's offset measured along `n` (n·origin).
    func offset(of p: PlaneAnchor, along n: Vec3) -> Double { n.dot(p.T_W_P.translation) }

    mutating func makePlane(_ c: PlaneCandidate, at t_ns: TimestampNs) -> PlaneAnchor {
        let rot = PlaneAnchor.frameRotation(normal: c.normal_W)
        let mean = c.points.reduce(Vec3.zero, +) / Double(c.points.count)
        let origin = mean + (c.offset_m - c.normal_W.dot(mean)) * c.normal_W
        var p = PlaneAnchor(id: "plane-\(nextId)", alignment: c.alignment,
                            classification: c.alignment == .vertical ? .wall : .none,
                            T_W_P: SE3(rotation: rot, translation: origin), center: origin,
                            extent: PlaneExtent(width: 0, length: 0, yaw: 0), boundaryLocal: [],
                            offset_m: c.offset_m, offsetStd_m: c.offsetStd_m, pointCount: c.points.count,
                            firstSeen_ns: t_ns, lastUpdated_ns: t_ns)
        nextId += 1
        p.inlierBand_m = c.band_m
        p.boundaryLocal = PlaneGeometry2D.convexHull(outlineSupport(c, in: p).map { p.local($0) })
        p.refreshExtent()
        p.fullSupport = FullSupportEstimate(p)
        return p
    }

    /// Moves the plane along its normal to `offset` (keeping its in-plane origin), boundary unchanged.
    func setOffset(_ p: inout PlaneAnchor, _ offset: Double) {
        let n = p.normal_W
        p.T_W_P.translation += (offset - n.dot(p.T_W_P.translation)) * n
        p.offset_m = offset
    }

    func refine(_ p: inout PlaneAnchor, with candidate: PlaneCandidate, at t_ns: TimestampNs) {
        let c = aligned(candidate, to: p)
        // The candidate sees every landmark the map holds on this plane; it replaces the estimate unless it has
        // fewer points than the plane had (landmarks culled), in which case it is count-weighted with the plane as
        // its largest support placed it (`fullSupport`), not with the plane as the last pass left it: the same subset,
        // blended every pass with a plane it already moved, would walk the plane onto itself.
        let support = p.fullSupport ?? FullSupportEstimate(p)
        let nc = Double(c.points.count), np = Double(max(0, p.pointCount - c.points.count))
        // Vertical planes also refine their normal (a wall first seen with a few landmarks can be several degrees
        // off); horizontal planes stay gravity-aligned.
        let normal = p.alignment == .vertical ? (nc * c.normal_W + np * support.normal_W).normalized : p.normal_W
        let centroid = c.points.reduce(Vec3.zero, +) / nc
        let onCandidate = centroid + (c.offset_m - c.normal_W.dot(centroid)) * c.normal_W
        let offset = (nc * normal.dot(onCandidate) + np * normal.dot(support.point_W)) / (nc + np)
        let std = (nc * c.offsetStd_m + np * support.offsetStd_m) / (nc + np)
        let oldBoundary = p.boundary
        reorient(&p, normal: normal, offset: offset)
        p.offsetStd_m = std
        // The boundary is the hull of the current support when the candidate holds (nearly) all the plane's
        // landmarks — so it can also shrink when stray points are rejected — and grows monotonically otherwise
        // (landmarks culled from the map still count).
        let local = outlineSupport(c, in: p).map { p.local($0) }
        if Double(c.points.count) >= options.boundaryRefitFraction * Double(p.pointCount) {
            p.boundaryLocal = PlaneGeometry2D.convexHull(local)
        } else {
            p.boundaryLocal = PlaneGeometry2D.convexHull(oldBoundary.map { p.local($0) } + local)
        }
        p.fullSupport = np == 0 ? FullSupportEstimate(p) : support
        p.pointCount = max(p.pointCount, c.points.count)
        p.inlierBand_m = c.band_m
        p.refreshExtent()
        p.lastUpdated_ns = t_ns
    }

    /// Gives the plane a new normal and offset: its frame turns by the smallest rotation taking the old normal to
    /// the new one and its origin moves straight onto the new plane; the boundary is left for the caller.
    func reorient(_ p: inout PlaneAnchor, normal n: Vec3, offset: Double) {
        let old = p.normal_W
        if (n - old).norm > 1e-12 {
            let axis = old.cross(n)
            let angle = atan2(axis.norm, old.dot(n))
            if axis.norm > 1e-12 { p.T_W_P.rotation = SO3(angle: angle, axis: axis.normalized) * p.T_W_P.rotation }
        }
        setOffset(&p, offset)
    }

    func absorb(_ q: PlaneAnchor, into p: inout PlaneAnchor, at t_ns: TimestampNs) {
        let np = Double(p.pointCount), nq = Double(q.pointCount)
        let qOffset = offset(of: q, along: p.normal_W)
        setOffset(&p, (np * p.offset_m + nq * qOffset) / (np + nq))
        p.offsetStd_m = min(p.offsetStd_m, q.offsetStd_m)
        p.pointCount += q.pointCount
        p.boundaryLocal = PlaneGeometry2D.convexHull(p.boundaryLocal + q.boundary.map { p.local($0) })
        p.firstSeen_ns = min(p.firstSeen_ns, q.firstSeen_ns)
        p.fullSupport = FullSupportEstimate(p)
        p.refreshExtent()
        p.lastUpdated_ns = t_ns
    }

    mutating func mergeTouchingPlanes(at t_ns: TimestampNs, removed: inout [(PlaneAnchor, String)]) {
        var merged = true
        while merged {
            merged = false
            outer: for i in planes.indices {
                for j in planes.indices where j > i {
                    let a = planes[i], b = planes[j]
                    guard a.alignment == b.alignment, abs(a.normal_W.dot(b.normal_W)) > cos(5 * Double.pi / 180),
                          abs(offset(of: b, along: a.normal_W) - a.offset_m)
                            <= max(options.mergeOffset_m, min(a.inlierBand_m, b.inlierBand_m)) else { continue }
                    let d = PlaneGeometry2D.distance(a.boundaryLocal, PlaneGeometry2D.convexHull(b.boundary.map { a.local($0) }))
                    guard d <= options.mergeDistance_m else { continue }
                    absorb(b, into: &planes[i], at: t_ns)
                    removed.append((b, a.id))
                    planes.remove(at: j)
                    merged = true
                    break outer
                }
            }
        }
    }

    /// Floor: the lowest horizontal plane with at least `floorMinArea_m2`; ceiling: horizontal planes more than
    /// `ceilingAboveCamera_m` above the camera; table: other horizontal planes above the floor; none: below it.
    mutating func classify(cameraHeight_m: Double) {
        let horizontal = planes.indices.filter { planes[$0].alignment == .horizontal }
        let floor = horizontal.filter { planes[$0].area_m2 >= options.floorMinArea_m2 &&
            planes[$0].height_m < cameraHeight_m }
            .min { planes[$0].height_m < planes[$1].height_m }
        for i in horizontal {
            let h = planes[i].height_m
            if i == floor { planes[i].classification = .floor }
            else if h > cameraHeight_m + options.ceilingAboveCamera_m { planes[i].classification = .ceiling }
            else if let f = floor, h < planes[f].height_m { planes[i].classification = .none }
            else { planes[i].classification = .table }
        }
    }

    func significantlyChanged(_ a: PlaneAnchor, _ b: PlaneAnchor) -> Bool {
        if a.classification != b.classification { return true }
        // How far the plane moved where it is: the farthest of `a`'s origin and boundary from `b`'s plane. (Not the
        // difference of the offsets, which are measured at the world origin: a wall whose normal turns by 0.03°
        // there moved 2.3 mm at its own origin on the simulated room, with the offset within 1 mm.)
        let n = b.normal_W, d = b.normal_W.dot(b.T_W_P.translation)
        if ([a.T_W_P.translation] + a.boundary).contains(where: { abs(n.dot($0) - d) > options.updateOffset_m }) { return true }
        let area = max(a.area_m2, 1e-9)
        if abs(b.area_m2 - a.area_m2) / area > options.updateAreaFraction { return true }
        return (a.center - b.center).norm > 0.01
    }
}
