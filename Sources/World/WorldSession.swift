import Estimation
import Foundation
import Geometry
import Sensors

/// Tuning of the world layer.
public struct WorldOptions: Equatable, Sendable {
    /// Landmark map capacity (landmarks).
    public var landmarkCapacity: Int = 20_000
    /// Landmarks not seen for this long are dropped, ns; `nil` keeps them until capacity is reached.
    public var landmarkMaxAge_ns: TimestampNs? = nil
    /// Plane detection runs at most this often, ns (100 ms: 10 Hz) …
    public var detectionInterval_ns: TimestampNs = 100_000_000
    /// … while the map holds up to this many landmarks; beyond, the interval grows in proportion (a 20 000-landmark
    /// map is searched every 500 ms), bounding the cost deterministically.
    public var detectionLandmarksPerInterval: Int = 4_000
    /// Frames between the landmark snapshot a plane detection starts from and the frame that applies its planes.
    /// 0 detects on the calling thread (that frame waits for it); ≥ 1 detects on a worker thread, so the frame
    /// that starts it does not wait, and applies the result exactly that many frames later (waiting then only if
    /// the worker is not done; up to this many detections queue on the worker): the output depends on the input
    /// alone, not on the worker's speed.
    public var detectionDelayFrames: Int = 0
    /// Plane detector tuning.
    public var detector = PlaneDetectorOptions()
    /// Plane tracking tuning.
    public var tracker = PlaneTrackerOptions()
    /// `existingPlaneGeometry` raycasts accept hits this far outside a plane's boundary, metres (the hull of sparse
    /// landmarks lies inside the true edges).
    public var geometryMargin_m: Double = 0.05
    /// Preferred-order raycasts ignore infinite-plane hits farther than this outside the plane's boundary, and do
    /// not snap an estimated plane onto a plane there, metres.
    public var maxInfiniteExtension_m: Double = 3
    /// Estimated-plane raycast tuning.
    public var estimatedPlane = EstimatedPlaneOptions()
    /// A user anchor on a refined plane is reported as updated once it lies more than this from where its last event
    /// put it, metres.
    public var anchorUpdateThreshold_m: Double = 0.001
    /// Default options.
    public init() {}
}

/// The world layer's state over a session: landmark map, planes, user anchors.
///
/// Feed it one `WorldFrameInput` per tracked frame with `process(_:)`; it returns the `WorldFrame` that the
/// stream and consumers use. Landmarks are integrated, planes detected and anchors reported only while tracking
/// is normal; otherwise the frame carries no planes, no anchors in view, no events and raycasts return nothing.
public final class WorldSession {
    /// Tuning.
    public let options: WorldOptions
    /// The landmark map.
    public private(set) var map: LandmarkMap
    /// Plane tracking state.
    public private(set) var planeTracker: PlaneTracker
    /// User anchors in order of creation.
    public private(set) var userAnchors: [UserAnchor] = []
    /// Each user anchor's position as its last event reported it (world, metres), by id: a plane refinement reports
    /// an anchor as updated when it has moved from there by more than `anchorUpdateThreshold_m`, so that many small
    /// moves cannot carry it away from what the stream said without a report.
    private var reportedAnchorPositions_W: [String: Vec3] = [:]
    /// The latest input processed.
    public private(set) var latestInput: WorldFrameInput?
    private let detector: PlaneDetector
    private let worker: PlaneDetectionWorker?
    private var lastDetection_ns: TimestampNs?
    /// Frames processed (numbers the frames for the worker's schedule).
    private var frameIndex = 0
    /// CPU time the worker spent on the detection applied in the latest frame, ns (0 when none was applied).
    public private(set) var workerDetectionCPU_ns: UInt64 = 0
    private var nextAnchorId = 1

    /// A new, empty session.
    public init(options: WorldOptions = WorldOptions()) {
        self.options = options
        map = LandmarkMap(capacity: options.landmarkCapacity, maxAge_ns: options.landmarkMaxAge_ns)
        planeTracker = PlaneTracker(options: options.tracker)
        detector = PlaneDetector(options: options.detector)
        worker = options.detectionDelayFrames > 0 ? PlaneDetectionWorker(delayFrames: options.detectionDelayFrames) : nil
    }

    /// True when the latest frame had normal tracking.
    public var isTrackingNormal: Bool { latestInput?.isTrackingNormal ?? false }
    /// All detected planes (kept while tracking is not normal, but not reported then).
    public var planes: [PlaneAnchor] { planeTracker.planes }

    /// Integrates one frame and returns what the world layer reports for it. A frame whose camera pose is not
    /// finite is handled as not tracking normally (see ``WorldFrameInput/isTrackingNormal``).
    public func process(_ input: WorldFrameInput) -> WorldFrame {
        latestInput = input
        frameIndex += 1
        workerDetectionCPU_ns = 0
        var events: [AnchorEvent] = []
        if input.isTrackingNormal {
            map.integrate(input.landmarks, at: input.t_ns, viewpoint_W: input.landmarkViewpoint_W)
            if let worker, let detection = worker.finish(frame: frameIndex) {
                workerDetectionCPU_ns = worker.lastCPU_ns
                events += apply(detection, input)
            }
            let scale = max(1, Double(map.count) / Double(max(1, options.detectionLandmarksPerInterval)))
            let interval = TimestampNs(Double(options.detectionInterval_ns) * scale)
            if worker?.isFull != true, lastDetection_ns.map({ input.t_ns - $0 >= interval }) ?? true {
                lastDetection_ns = input.t_ns
                if let worker {
                    worker.start(detector, landmarks: map.all, frame: frameIndex)
                } else {
                    events += apply(detector.detection(map.all), input)
                }
            }
        }
        return WorldFrame(input: input, session: self, events: events)
    }

    /// Hands a detection pass (its candidates and refuted fits) to the plane tracker; returns the anchor events that
    /// follow.
    private func apply(_ detection: PlaneDetection, _ input: WorldFrameInput) -> [AnchorEvent] {
        var events: [AnchorEvent] = []
        let changes = planeTracker.update(with: detection.candidates, refuted: detection.refuted, at: input.t_ns,
                                          cameraPosition_W: input.T_W_C.translation)
        events += changes.map { change -> AnchorEvent in
            switch change {
            case let .added(p): return AnchorEvent(change: .added, t_ns: input.t_ns, anchor: .plane(p))
            case let .updated(p): return AnchorEvent(change: .updated, t_ns: input.t_ns, anchor: .plane(p))
            case let .removed(p, into):
                return AnchorEvent(change: .removed, t_ns: input.t_ns, anchor: .plane(p), mergedInto: into)
            }
        }
        events += followPlanes(changes, at: input.t_ns)
        return events
    }

    /// Re-poses user anchors attached to refined planes and re-attaches those on merged planes. An anchor is reported
    /// as updated when it has moved more than `anchorUpdateThreshold_m` since its last report, and whenever the plane
    /// it is attached to changes (re-attached to a merge's survivor, or detached when its plane is gone), however
    /// little it moved: the stream's `plane_id` must not go stale.
    private func followPlanes(_ changes: [PlaneChange], at t_ns: TimestampNs) -> [AnchorEvent] {
        var mergedInto: [String: String] = [:]
        for case let .removed(p, into?) in changes { mergedInto[p.id] = into }
        var events: [AnchorEvent] = []
        for i in userAnchors.indices {
            guard var planeId = userAnchors[i].planeId else { continue }
            var a = userAnchors[i]
            while let into = mergedInto[planeId] { planeId = into }
            guard let plane = planeTracker.plane(id: planeId) else {
                // Its plane is gone (removed, or merged into one that is gone): it stays where it is, on no plane.
                a.planeId = nil; a.T_P_A = nil; userAnchors[i] = a
                events.append(AnchorEvent(change: .updated, t_ns: t_ns, anchor: .user(a)))
                reportedAnchorPositions_W[a.id] = a.T_W_A.translation
                continue
            }
            let reattached = planeId != a.planeId
            if reattached || a.T_P_A == nil {
                // Re-attach: express in the surviving plane and snap onto it.
                var rel = plane.T_W_P.inverse * a.T_W_A
                rel.translation.z = 0
                a.planeId = planeId; a.T_P_A = rel
            }
            guard var rel = a.T_P_A else { continue }
            // The anchor moves straight onto the refined plane (it keeps its orientation relative to the plane):
            // a plane whose normal turns slightly about its origin must not swing a far-away anchor along it.
            rel.translation = plane.T_W_P.inverse.act(a.T_W_A.translation)
            rel.translation.z = 0
            a.T_P_A = rel
            let moved = plane.T_W_P * rel
            let lastReported = reportedAnchorPositions_W[a.id] ?? a.T_W_A.translation
            let changed = reattached || (moved.translation - lastReported).norm > options.anchorUpdateThreshold_m
            a.T_W_A = moved
            userAnchors[i] = a
            if changed {
                events.append(AnchorEvent(change: .updated, t_ns: t_ns, anchor: .user(a)))
                reportedAnchorPositions_W[a.id] = moved.translation
            }
        }
        return events
    }

    /// Forgets the world (landmarks, planes, user anchors) — call it when the estimator re-initialises its world
    /// frame. Returns an `anchor.removed` event for every plane and user anchor. Ids keep counting.
    @discardableResult
    public func reset(t_ns: TimestampNs) -> [AnchorEvent] {
        let events = planes.map { AnchorEvent(change: .removed, t_ns: t_ns, anchor: .plane($0)) }
            + userAnchors.map { AnchorEvent(change: .removed, t_ns: t_ns, anchor: .user($0)) }
        worker?.cancel()
        map.removeAll()
        planeTracker.removeAll()
        userAnchors.removeAll()
        reportedAnchorPositions_W.removeAll()
        lastDetection_ns = nil
        return events
    }

    // MARK: Raycasts

    /// Raycasts `ray` against one target, nearest hits first. Empty while tracking is not normal.
    /// `horizontalGeometryMargin_m` overrides `geometryMargin_m` for horizontal planes (see `MeasureConsumer`).
    public func raycast(_ ray: WorldRay, target: RaycastTarget, alignment: RaycastAlignment = .any,
                        horizontalGeometryMargin_m: Double? = nil) -> [RaycastResult] {
        guard isTrackingNormal else { return [] }
        switch target {
        case .existingPlaneGeometry, .existingPlaneInfinite:
            return Raycaster.hitPlanes(ray, planes: planes, target: target, alignment: alignment,
                                       geometryMargin_m: options.geometryMargin_m,
                                       horizontalGeometryMargin_m: horizontalGeometryMargin_m)
        case .estimatedPlane:
            return Raycaster.hitEstimatedPlane(ray, map: map, alignment: alignment, options: options.estimatedPlane)
                .map { [$0] } ?? []
        }
    }

    /// The first hit of `ray` trying the targets in order (e.g. geometry, then estimated, then infinite), with
    /// two refinements for sparse maps:
    /// - an `estimatedPlane` hit that agrees with a detected plane is snapped onto that plane (at most
    ///   `maxInfiniteExtension_m` outside its polygon; reported as `existingPlaneInfinite` with its id); one that
    ///   agrees with none yields to an infinite-plane hit that landmarks around the hit point confirm (when
    ///   `existingPlaneInfinite` is also allowed), and is not used at all when the ray meets it more than
    ///   `EstimatedPlaneOptions.maxStandaloneIncidence_deg` from head-on and it is not level;
    /// - among `existingPlaneInfinite` hits the one with most landmark support near the hit point wins, then one near
    ///   its plane's mapped boundary, then the largest plane, then the nearest (see `rankInfinite`) — extended planes
    ///   cross the whole room, and a ray towards the floor beyond its mapped part first meets the table's extension.
    public func raycast(_ ray: WorldRay, preferring targets: [RaycastTarget],
                        alignment: RaycastAlignment = .any, horizontalGeometryMargin_m: Double? = nil) -> RaycastResult? {
        for t in targets {
            let hits = raycast(ray, target: t, alignment: alignment, horizontalGeometryMargin_m: horizontalGeometryMargin_m)
            switch t {
            case .existingPlaneGeometry:
                if let hit = hits.first { return hit }
            case .estimatedPlane:
                guard let hit = hits.first else { continue }
                if let snapped = snapToExistingPlane(hit, ray: ray) { return snapped }
                if targets.contains(.existingPlaneInfinite),
                   let confirmed = rankInfinite(raycast(ray, target: .existingPlaneInfinite, alignment: alignment)),
                   confirmed.support > 0 {
                    return confirmed.hit
                }
                // Met obliquely, a fit to the landmarks around the ray is a guess at which surface it meets, unless
                // it is level (a floor or a top seen from afar: a mixture of surfaces is not level by chance).
                if hit.alignment != .horizontal,
                   hit.incidenceCosine < cos(options.estimatedPlane.maxStandaloneIncidence_deg * Double.pi / 180) { continue }
                return hit
            case .existingPlaneInfinite:
                if let best = rankInfinite(hits) { return best.hit }
            }
        }
        return nil
    }

    /// The best infinite-plane hit: most landmarks within 30 cm of the hit lying on its plane (within 2.5 σ, at
    /// least 2 cm); then a hit within 30 cm of its plane's boundary; then the plane with the largest area (far from
    /// every mapped part, the floor is the likeliest surface); then the nearest. Hits farther than
    /// `maxInfiniteExtension_m` outside their plane's boundary are not used (a guess through unmapped walls).
    func rankInfinite(_ hits: [RaycastResult]) -> (hit: RaycastResult, support: Int)? {
        let scored = hits.map { hit -> (hit: RaycastResult, support: Int, far: Int, area: Double) in
            guard let p = hit.planeId.flatMap(planeTracker.plane(id:)) else { return (hit, 0, 1, 0) }
            let n = p.normal_W, d = n.dot(p.T_W_P.translation)
            let support = map.landmarks(near: hit.position_W, radius: 0.3)
                .filter { abs(n.dot($0.p_W) - d) <= max(0.02, 2.5 * $0.std_m) }.count
            let outside = p.distanceOutsideBoundary(hit.position_W)
            return (hit, support, outside <= 0.3 ? 0 : (outside <= options.maxInfiniteExtension_m ? 1 : 2), p.area_m2)
        }.filter { $0.far < 2 }
        return scored.min {
            (-$0.support, $0.far, -$0.area, $0.hit.distance_m) < (-$1.support, $1.far, -$1.area, $1.hit.distance_m)
        }.map { ($0.hit, $0.support) }
    }

    /// An estimated-plane hit that agrees with a detected plane (normals within 15°, or 3 of the estimate's normal σ
    /// up to 30°, `EstimatedPlaneOptions.snapAngle_deg`; offset within max(10 cm, 3 σ)) is replaced by the hit on that
    /// plane's infinite extension, which many more landmarks support; `nil` when no plane agrees. (The courtyard, 30 s
    /// stereo: a fit to two ground points and a bench's, σ 10–15 cm, tilted 18° with a normal σ of 9°, met the
    /// ground 0.74 m short of a bench's foot, +131 % on its height.) A plane whose hit would lie more than
    /// `maxInfiniteExtension_m` outside its mapped polygon does not count, as in `rankInfinite`: agreement there is
    /// a coincidence of levels (the courtyard: a planter's top corner snapped onto the fountain top's level 5.6 m
    /// from its polygon, +15 % along the ray).
    func snapToExistingPlane(_ hit: RaycastResult, ray: WorldRay) -> RaycastResult? {
        let n = hit.normal_W
        let o = options.estimatedPlane, deg = Double.pi / 180
        let angle = min(o.maxSnapAngle_deg * deg, max(o.snapAngle_deg * deg, o.snapAngleSigmas * hit.normalStd_rad))
        let agreeing = planes.filter { abs($0.normal_W.dot(n)) > cos(angle) }
            .map { p -> (PlaneAnchor, Double) in (p, abs(p.normal_W.dot(hit.position_W - p.T_W_P.translation))) }
            .filter { $0.1 <= max(0.1, 3 * hit.surfaceStd_m) }
            .compactMap { p, offset -> (RaycastResult, Double)? in
                guard let snapped = Raycaster.hitPlanes(ray, planes: [p], target: .existingPlaneInfinite, alignment: .any).first,
                      p.distanceOutsideBoundary(snapped.position_W) <= options.maxInfiniteExtension_m else { return nil }
                return (snapped, offset)
            }
        return agreeing.min(by: { $0.1 < $1.1 })?.0
    }

    // MARK: User anchors

    /// Adds a user anchor at a raycast hit (attached to the hit's plane, if any). Returns its `anchor.added` event.
    @discardableResult
    public func addAnchor(at hit: RaycastResult, t_ns: TimestampNs, name: String? = nil) -> AnchorEvent {
        addAnchor(T_W_A: hit.T_W_Hit, planeId: hit.planeId, t_ns: t_ns, name: name)
    }

    /// Adds a user anchor at a world pose, attached to `planeId` when that plane exists. Returns its event.
    @discardableResult
    public func addAnchor(T_W_A: SE3, planeId: String? = nil, t_ns: TimestampNs, name: String? = nil) -> AnchorEvent {
        var a = UserAnchor(id: "anchor-\(nextAnchorId)", name: name, T_W_A: T_W_A, planeId: nil, T_P_A: nil, created_ns: t_ns)
        nextAnchorId += 1
        if let pid = planeId, let plane = planeTracker.plane(id: pid) {
            a.planeId = pid
            a.T_P_A = plane.T_W_P.inverse * T_W_A
        }
        userAnchors.append(a)
        reportedAnchorPositions_W[a.id] = T_W_A.translation
        return AnchorEvent(change: .added, t_ns: t_ns, anchor: .user(a))
    }

    /// Brings back what an earlier session saved (a loaded world map, already in this session's world frame): its
    /// planes, with their ids (`anchor.added` events, returned), and its points, which join the landmark map so that
    /// plane detection and raycasts use them as they use the landmarks of this session.
    @discardableResult
    public func restore(planes: [PlaneAnchor], landmarks: [Landmark], t_ns: TimestampNs) -> [AnchorEvent] {
        map.integrate(landmarks, at: t_ns)
        return planes.map { AnchorEvent(change: .added, t_ns: t_ns, anchor: .plane(planeTracker.restore($0))) }
    }

    /// Brings back a user anchor saved by an earlier session (a loaded world map), with its id when no anchor has it
    /// yet (a new `anchor-N` otherwise); anchors added later get higher numbers. Not attached to a plane. Returns its
    /// `anchor.added` event.
    @discardableResult
    public func restoreAnchor(id: String, name: String?, T_W_A: SE3, t_ns: TimestampNs) -> AnchorEvent {
        let number = id.hasPrefix("anchor-") ? Int(id.dropFirst("anchor-".count)) : nil
        let free = userAnchor(id: id) == nil
        let a = UserAnchor(id: free ? id : "anchor-\(nextAnchorId)", name: name, T_W_A: T_W_A, planeId: nil, T_P_A: nil,
                           created_ns: t_ns)
        if !free { nextAnchorId += 1 } else if let number { nextAnchorId = max(nextAnchorId, number + 1) }
        userAnchors.append(a)
        reportedAnchorPositions_W[a.id] = T_W_A.translation
        return AnchorEvent(change: .added, t_ns: t_ns, anchor: .user(a))
    }

    /// Removes a user anchor; returns its `anchor.removed` event, or `nil` if no anchor has this id.
    @discardableResult
    public func removeAnchor(id: String, t_ns: TimestampNs) -> AnchorEvent? {
        guard let i = userAnchors.firstIndex(where: { $0.id == id }) else { return nil }
        let a = userAnchors.remove(at: i)
        reportedAnchorPositions_W[a.id] = nil
        return AnchorEvent(change: .removed, t_ns: t_ns, anchor: .user(a))
    }

    /// The user anchor with this id.
    public func userAnchor(id: String) -> UserAnchor? { userAnchors.first { $0.id == id } }
}
