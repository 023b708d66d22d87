import Foundation
import Geometry
import Sensors

/// What a raycast may hit (ARKit's `ARRaycastQuery.Target`).
public enum RaycastTarget: String, Equatable, Sendable, Codable, CaseIterable {
    /// A detected plane, inside its boundary polygon.
    case existingPlaneGeometry
    /// A detected plane, extended to infinity.
    case existingPlaneInfinite
    /// A plane fitted on the fly to the landmarks near the ray.
    case estimatedPlane
}

/// Which plane orientations a raycast accepts.
public enum RaycastAlignment: String, Equatable, Sendable, Codable {
    /// Horizontal planes only.
    case horizontal
    /// Vertical planes only.
    case vertical
    /// Any orientation.
    case any
}

/// A ray in the world frame.
public struct WorldRay: Equatable, Sendable {
    /// Start point (the camera centre for pixel rays), world, metres.
    public var origin_W: Vec3
    /// Unit direction, world.
    public var direction_W: Vec3
    /// A ray from an origin and a direction (normalised here).
    public init(origin_W: Vec3, direction_W: Vec3) { self.origin_W = origin_W; self.direction_W = direction_W.normalized }

    /// The world ray through a pixel of a camera at pose `T_W_C`; `nil` when the pixel cannot be unprojected.
    public init?(pixel: Vec2, camera: CameraModel, T_W_C: SE3) {
        guard let b_C = camera.bearing(pixel) else { return nil }
        self.init(origin_W: T_W_C.translation, direction_W: T_W_C.rotation.act(b_C))
    }
    /// The point at distance `t` metres along the ray.
    public func point(at t: Double) -> Vec3 { origin_W + t * direction_W }
}

/// One raycast hit (ARKit's `ARRaycastResult`).
public struct RaycastResult: Equatable, Sendable {
    /// Pose of the hit: origin at the hit point, z along the surface normal (facing the ray's side for
    /// estimated planes; the plane's own frame for detected planes), world.
    public var T_W_Hit: SE3
    /// Distance from the ray origin, metres.
    public var distance_m: Double
    /// Which target produced the hit.
    public var target: RaycastTarget
    /// Orientation of the surface hit.
    public var alignment: RaycastAlignment
    /// The detected plane hit, if any.
    public var planeId: String?
    /// 1-σ uncertainty of the surface position along its normal, metres.
    public var surfaceStd_m: Double
    /// Cosine of the angle between the ray and the surface normal (|n·d|, 1 when head-on).
    public var incidenceCosine: Double
    /// For an estimated plane, the 1-σ of its normal's tilt about the axis it is least sure of, radians (the fit's
    /// point σ over √n times the points' spread across that axis); 0 for detected planes.
    public var normalStd_rad: Double = 0

    /// The hit point, world, metres.
    public var position_W: Vec3 { T_W_Hit.translation }
    /// The surface normal, world.
    public var normal_W: Vec3 { T_W_Hit.rotation.act(Vec3(0, 0, 1)) }
}

/// Options of the estimated-plane raycast.
public struct EstimatedPlaneOptions: Equatable, Sendable {
    /// Landmarks within this angle of the ray are considered, radians.
    public var maxAngle_rad: Double = 8 * Double.pi / 180
    /// At most this many of the angularly closest landmarks are used.
    public var maxPoints: Int = 40
    /// At least this many inliers are needed.
    public var minInliers: Int = 6
    /// Inlier distance to the plane, metres (at least; 3 × the landmarks' median σ when larger).
    public var inlierDistance_m: Double = 0.02
    /// Hits whose incidence cosine is below this are rejected (grazing rays are unreliable).
    public var minIncidenceCosine: Double = 0.1
    /// An estimated plane agrees with a detected plane (and is snapped onto it, `WorldSession.raycast`) when their
    /// normals are within this angle, degrees, or within `snapAngleSigmas` of the estimate's normal σ when that is
    /// wider, up to `maxSnapAngle_deg`: a fit to a few far landmarks with σ of 10–15 cm has a normal known to 8–9°.
    public var snapAngle_deg: Double = 15
    /// See `snapAngle_deg`.
    public var snapAngleSigmas: Double = 3
    /// See `snapAngle_deg`; below the 90° between a floor and a wall by a wide margin.
    public var maxSnapAngle_deg: Double = 30
    /// An estimated hit that no detected plane confirms (no snap, no supported infinite hit; `WorldSession.raycast`)
    /// answers a preferred-order raycast only when the ray meets its fit within this angle of head-on, degrees;
    /// beyond it the raycast goes on to the next target. The fit takes the landmarks within `maxAngle_rad` of the
    /// ray; on a surface met θ from head-on those span about ±tan(8°)·tan θ of the hit's depth (±12 % at 40°, ±24 %
    /// at 60°), so an oblique fit takes in whatever lies in that depth band and passes for one surface: an object's
    /// side beside the silhouette a ray passes, the floor behind a top's corner. On nine whole real-IMU flights
    /// (six V1_01 rooms, three courtyard draws, mono and stereo) the 25 measured ends an estimated hit put 5 % or
    /// more off their true depth met their fit 35–78° from head-on (those of lengths more than 10 % off: 45–78°),
    /// while 18 of the 26 within 5 % met theirs within 29° (docs/ACCURACY.md, "Twenty-fifth round"); 30° and 40°
    /// give the same taps there, 50° lets one wrong end back. A level fit (`RaycastAlignment.horizontal`: a floor
    /// or a top seen from afar) is used at any incidence: a mixture of surfaces does not come out level by chance.
    public var maxStandaloneIncidence_deg: Double = 40
    /// Default options.
    public init() {}
}

/// Raycasting against planes and landmarks.
public enum Raycaster {
    /// Hits of `ray` against detected planes for one target (`existingPlaneGeometry` or `existingPlaneInfinite`),
    /// nearest first. `geometryMargin_m` grows each boundary for `existingPlaneGeometry` (the convex hull of sparse
    /// landmarks lies a little inside the true edges).
    public static func hitPlanes(_ ray: WorldRay, planes: [PlaneAnchor], target: RaycastTarget,
                                 alignment: RaycastAlignment, geometryMargin_m: Double = 0,
                                 horizontalGeometryMargin_m: Double? = nil) -> [RaycastResult] {
        var out: [RaycastResult] = []
        for p in planes {
            switch (alignment, p.alignment) {
            case (.horizontal, .vertical), (.vertical, .horizontal): continue
            default: break
            }
            let n = p.normal_W
            let denom = n.dot(ray.direction_W)
            guard abs(denom) > 1e-9 else { continue }
            let t = (n.dot(p.T_W_P.translation) - n.dot(ray.origin_W)) / denom
            guard t > 0, t.isFinite, t < 1000 else { continue }
            let hit = ray.point(at: t)
            let margin = p.alignment == .horizontal ? (horizontalGeometryMargin_m ?? geometryMargin_m) : geometryMargin_m
            if target == .existingPlaneGeometry && !p.boundaryContains(hit, tolerance: max(1e-6, margin)) { continue }
            out.append(RaycastResult(T_W_Hit: SE3(rotation: p.T_W_P.rotation, translation: hit), distance_m: t,
                                     target: target, alignment: p.alignment == .horizontal ? .horizontal : .vertical,
                                     planeId: p.id, surfaceStd_m: p.offsetStd_m, incidenceCosine: abs(denom)))
        }
        return out.sorted { $0.distance_m < $1.distance_m }
    }

    /// The hit of `ray` on a plane fitted to the landmarks near it (3-point RANSAC, then a weighted PCA
    /// fit on the inliers); `nil` when too few landmarks support a plane or the ray grazes it.
    public static func hitEstimatedPlane(_ ray: WorldRay, map: LandmarkMap, alignment: RaycastAlignment,
                                         options: EstimatedPlaneOptions = EstimatedPlaneOptions()) -> RaycastResult? {
        let near = map.landmarks(nearRayFrom: ray.origin_W, direction: ray.direction_W, maxAngle: options.maxAngle_rad)
            .prefix(options.maxPoints).map(\.landmark)
        guard near.count >= options.minInliers else { return nil }
        let pts = near.map(\.p_W)
        let medStd = PlaneDetector.median(near.map(\.std_m))
        let tol = max(options.inlierDistance_m, 3 * medStd)
        var rng = SeededRandom(seed: 0xCA57)
        var best: [Int] = []
        for _ in 0..<100 {
            let i = Int(rng.next() % UInt64(pts.count)), j = Int(rng.next() % UInt64(pts.count)),
                k = Int(rng.next() % UInt64(pts.count))
            let nrm = (pts[j] - pts[i]).cross(pts[k] - pts[i])
            guard nrm.norm > 1e-6 else { continue }
            let n = nrm.normalized
            let inl = pts.indices.filter { abs(n.dot(pts[$0] - pts[i])) <= tol }
            // Prefer more inliers; on ties, the surface nearer the camera.
            if inl.count > best.count { best = inl }
        }
        guard best.count >= options.minInliers else { return nil }
        let inl = best.map { near[$0] }
        guard let fit = FittedPlane.fit(inl.map(\.p_W), weights: inl.map { 1 / ($0.std_m * $0.std_m) }) else { return nil }
        var n = fit.normal
        let denom = n.dot(ray.direction_W)
        guard abs(denom) >= options.minIncidenceCosine else { return nil }
        if denom > 0 { n = -n } // face the camera
        let t = n.dot(fit.centroid - ray.origin_W) / n.dot(ray.direction_W)
        // The hit must lie within the depth range of the supporting landmarks (with a margin).
        let depths = inl.map { ($0.p_W - ray.origin_W).dot(ray.direction_W) }
        guard t > 0, let dMin = depths.min(), let dMax = depths.max(), t >= 0.5 * dMin, t <= 1.5 * dMax else { return nil }
        let hit = ray.point(at: t)
        let cosUp = abs(n.z)
        let align: RaycastAlignment = cosUp > cos(10 * Double.pi / 180) ? .horizontal
            : (cosUp < sin(10 * Double.pi / 180) ? .vertical : .any)
        switch (alignment, align) {
        case (.horizontal, .horizontal), (.vertical, .vertical), (.any, _): break
        default: return nil
        }
        let std = max(fit.rms_m / Double(fit.count).squareRoot(), medStd / Double(fit.count).squareRoot())
        // The normal's σ: a slope fitted to n points with σ spread over s across the plane is known to σ / (√n s).
        let tilt = max(fit.rms_m, medStd) / (Double(fit.count).squareRoot() * max(fit.minorVariance_m2, 1e-12).squareRoot())
        return RaycastResult(T_W_Hit: SE3(rotation: surfaceRotation(normal: n), translation: hit), distance_m: t,
                             target: .estimatedPlane, alignment: align, planeId: nil, surfaceStd_m: std,
                             incidenceCosine: abs(denom), normalStd_rad: tilt)
    }

    /// A rotation whose z axis is `n` and whose x axis is world x projected on the surface (world y when x is
    /// nearly along the normal), so hit orientations do not depend on the camera.
    public static func surfaceRotation(normal n: Vec3) -> SO3 {
        let ref = abs(n.x) < 0.9 ? Vec3(1, 0, 0) : Vec3(0, 1, 0)
        let x = (ref - ref.dot(n) * n).normalized
        let y = n.cross(x)
        return SO3(matrix: Mat3(columns: x, y, n))
    }
}
