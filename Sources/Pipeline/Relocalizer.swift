import Estimation
import Foundation
import Geometry
import Imaging
import Sensors
import Vision
import World
import WorldMap

/// Settings of `Relocalizer`.
public struct RelocalizationOptions: Equatable, Sendable {
    /// Search from the estimator's initialisation on, while it converges (`limited(initializing)` with an estimate),
    /// not only once it tracks `normal`: a start in motion converges some 0.2 s after its initialisation, and the place
    /// seen then may be out of view by the time it tracks (docs/WORLDMAP.md, "Searching from the initialisation").
    public var searchWhileInitializing = true
    /// Largest Hamming distance of a descriptor match (of 256 bits).
    public var maxHamming = 64
    /// Lowe's ratio on Hamming distances: the best map point must beat the second best by this factor.
    public var ratio = 0.9
    /// A match is an inlier when its map point projects within this distance of the feature, pixels.
    public var inlierThreshold_px = 4.0
    /// Matches are pooled over this many frames (the latest per map point).
    public var windowFrames = 10
    /// An alignment is a candidate only with at least this many inliers (distinct map points) …
    public var minInliers = 15
    /// … making at least this fraction of the pooled matches.
    public var minInlierFraction = 0.2
    /// An alignment is ambiguous (no candidate) when the matches outside its inliers support another one with at least
    /// this fraction of its inliers.
    public var ambiguityRatio = 0.5
    /// RANSAC samples (three matches each) per frame.
    public var ransacIterations = 300
    /// Two candidates agree when their translations differ by at most this, metres …
    public var agreement_m = 0.05
    /// … and their yaws by at most this, radians (2°).
    public var agreement_rad = 2 * Double.pi / 180
    /// The candidate that confirms another comes this many frames after it (at most twice as many).
    public var verifyAfterFrames = 3
    /// Once accepted, the alignment's 1-σ in position, metres, per axis …
    public var alignmentStd_m = 0.05
    /// … and in yaw, radians (2°), added to the filter's gauge so that the map's points pull its pose onto the map.
    public var alignmentYawStd_rad = 0.035
    /// Free-space check of a candidate (`FreeSpaceCheck`): a point is compared with what a camera saw within this
    /// angle of its direction (pixels over the focal length) …
    public var freeSpaceRadius_px = 12.0
    /// … at a range within 3 σ plus this fraction of the range.
    public var freeSpaceRelativeTolerance = 0.1
    /// A place is refuted when at least this many points (map points seen through by the run's cameras, or the run's
    /// landmarks seen through by the map's keyframes; distinct, over the frames it was a candidate) contradict it …
    public var minContradictions = 3
    /// … making at least this fraction of the points compared (agreeing or contradicting). A place whose inliers leave
    /// a direction to appearance alone (`surfaceGroupAngle_rad`) is accepted only once
    /// `minContradictions / minContradictionFraction` of the map's points were compared (with the run's landmarks, as
    /// the run's cameras see them): enough that a wrong place whose share of contradicting map points is this fraction
    /// would have shown `minContradictions` of them. (The run's landmarks compared with the map's keyframe views do not
    /// count towards it: most lie on the repeating surfaces, which agree at any shift along them, and the keyframes'
    /// views are dense since their keypoints are linked to the points their tracks became.)
    public var minContradictionFraction = 0.02
    /// Surfaces of the inliers: a map point's normal is fitted to the map points within `normalRadius_m` (at least 6,
    /// RMS off their plane at most `normalMaxRMS_m`); inliers whose normals are within this angle (sign aside) face the
    /// same way, and only groups of at least 3 count. Unless three groups face independent directions, the inliers'
    /// surfaces all contain a direction along which only their texture fixes the alignment — and a texture may repeat.
    public var surfaceGroupAngle_rad = 30 * Double.pi / 180
    public var normalRadius_m = 0.3
    public var normalMaxRMS_m = 0.05
    /// Candidates within this distance, metres, and yaw, radians (10°), of each other are the same place (the run's
    /// frame drifts slowly from the map's): their free-space evidence adds up, and a refuted place stays refuted.
    public var placeRadius_m = 0.5
    public var placeYaw_rad = 10 * Double.pi / 180
    /// Free space per surface: the run's planes are gravity-aligned planes among its recent landmarks with σ up to this,
    /// metres (a run that is relocalising has only young landmarks, mono ones loose along their rays), with at least
    /// `PlaneDetectorOptions.minPoints` landmarks (as many as the world layer needs for a plane) …
    public var planeMaxLandmarkStd_m = 0.15
    /// … within this distance of it, metres. A place is refuted when the map's keyframes looked through one of them:
    /// at least `minContradictions` map points seen through it (the keyframe's ray meets the plane inside its landmarks'
    /// outline, the point lies beyond it by more than 3 σ plus `freeSpaceRelativeTolerance` of the ray's length), more
    /// than the map points seen on it (`FreeSpaceCheck.rays`).
    public var planeInlier_m = 0.05
    /// … and, in a monocular run, off along its normal by the run's scale error times the camera's distance to it,
    /// beyond its σ: a mono run's young landmarks share its scale, which the first seconds of tracking leave several per
    /// cent off (render 1 of the V1_01 room from 75 s: a wall 12 % short, whose 35 landmarks' σ, averaged as if
    /// independent, gave the plane 1.3 cm, and the true place was refuted for good). The scale error is measured at
    /// each candidate: the run's landmarks' depths along the inliers' rays against the aligned map points' (the median
    /// ratio's distance from 1, the largest over the last 1.5 s, the age of the landmarks the planes are made of); this
    /// fraction (10 %) is the scale error assumed where fewer than 3 inliers carry a landmark. A stereo run's depths
    /// come from each landmark's own disparity, and its planes keep their σ alone.
    public var unmeasuredScaleError = 0.1
    /// … in at least this many frames it was a candidate. One frame's planes are a RANSAC draw over its recent
    /// landmarks, and a draw can join points of two surfaces into a face that stands nowhere (on the simulated room a
    /// 15-landmark "wall" 30 cm above the floor once refuted the true place for good); a surface that is there is
    /// found again. A place contradicted once is held: its pending confirmation starts over.
    public var minPlaneContradictionFrames = 2
    /// A confirmed candidate that waits for enough map points compared (the structure rule) stays confirmed while the
    /// candidates of the following frames agree with it (each within `2 × verifyAfterFrames` of the last), instead of
    /// being confirmed again from scratch once its pending candidate expired.
    public var confirmationWaitsForStructure = true
    /// After acceptance, the run's own precise points (the map reuse's, in the run's frame) keep being compared with what
    /// the map's keyframes saw, at the accepted place: once at least `minContradictions` of them, and
    /// `minContradictionFraction` of those compared, sit where a keyframe looked through them, the place is revoked —
    /// the run reports `limited(relocalizing)` again, the place stays refuted and the search goes on. A texture that
    /// repeats can pass every check while the run sees only a part of the room the map does not hold; the structure
    /// the run maps afterwards (its own points, centimetre-precise, not only the last 1.5 s of young landmarks)
    /// is then what exposes the wrong place.
    public var revokesContradictedPlace = true
    /// The revocation's free-space radius, pixels (over the focal length, as an angle): a run point is compared with
    /// the map points a keyframe saw within this angle of its direction. Wider than `freeSpaceRadius_px`: a keyframe's
    /// view holds only the map points its keypoints observed, sparser than the run's 1.5 s of landmarks that a
    /// candidate is checked against, and with 12 px most of the run's points had fewer than two samples around them.
    public var revocationRadius_px = 20.0
    /// Once this many of the run's own points were judged since the acceptance (the first call judges every point the
    /// run has mapped so far) …
    public var revocationCoverageSample = 500
    /// … at least this fraction of them must have been compared (a map keyframe saw around their direction), or the
    /// place is revoked; tested once. A place is accepted because the run sees what the map saw, so the run's points
    /// lie largely where the map's keyframes looked; at a place shifted by a repeating texture they lie where the map
    /// never looked. On the V1_01 room's runs (39 accepted true places, run 2 mono from 35–90 s on eight renders) 12–63 %
    /// of the first 500 or more were compared; arrangement 3 from 60 s, accepted 5.7 m off and never contradicted, had 16 of
    /// 500 (3.2 %), its camera flying through the map's wall into space no keyframe saw. A true place that the run leaves
    /// at once for a part of the scene the map does not hold may fall under it: it is then revoked and found again, the
    /// safe failure. 0 turns it off.
    public var minRevocationCoverage = 0.06
    /// Defaults.
    public init() {}
}

/// What a relocalisation found.
public struct Relocalization: Equatable, Sendable {
    /// Time of the frame that confirmed it, ns.
    public var t_ns: TimestampNs
    /// The saved map's frame from the run's own world frame: `p_Ws = T_Ws_W · p_W` (a yaw and a translation).
    public var T_Ws_W: SE3
    /// Inliers (distinct map points) of the confirming candidate.
    public var inliers: Int
    /// Candidate alignments refuted by the free-space check before this one (a repeating scene's other places).
    public var refuted: Int = 0
}

/// A relocalisation that the run's own structure contradicted after it was accepted.
public struct Revocation: Equatable, Sendable {
    /// Time of the frame that accepted the place, ns, …
    public var accepted_ns: TimestampNs
    /// … and of the frame that revoked it, ns.
    public var revoked_ns: TimestampNs
    /// The place: the saved map's frame from the run's (`p_Ws = T_Ws_W · p_W`).
    public var T_Ws_W: SE3
    /// The run's points that a map keyframe looked through at that place …
    public var contradicting: Int
    /// … and those compared (agreeing or contradicting; a point no keyframe saw around its direction says nothing) …
    public var compared: Int
    /// … of the run's points judged there (compared or not).
    public var judged: Int
    /// What showed the place wrong.
    public var evidence: Evidence = .seenThroughByKeyframes

    /// The evidence in words, with its counts (for logs and the CLI's end-of-run line).
    public var reason: String {
        switch evidence {
        case .seenThroughByKeyframes:
            "a map keyframe saw through \(contradicting) of the \(compared) run points compared there"
        case .outsideMapViews:
            "only \(compared) of the \(judged) run points judged there lay where a map keyframe looked"
        }
    }

    /// Why a place was revoked.
    public enum Evidence: Equatable, Sendable {
        /// `contradicting` of the run's points sat where a map keyframe looked through them.
        case seenThroughByKeyframes
        /// Of the first `RelocalizationOptions.revocationCoverageSample` run points judged, too few (`compared`) lay
        /// where any map keyframe looked.
        case outsideMapViews
    }
}

/// Finds a loaded world map in the live frames: the features' ORB descriptors (computed where they are now) are
/// matched against the map points' by brute force with Lowe's ratio. The matches of the last `windowFrames` frames
/// are pooled (each with its own camera pose from the filter, which is consistent over a fraction of a second; one
/// per map point, the latest), so a view that shows few map points at a time still gathers enough. A 4-DoF RANSAC
/// (`YawTranslationSolver`, three matches per sample: gravity is known, so the cameras' tilt comes from the filter)
/// finds the yaw and translation between the map's frame and the run's; a candidate needs `minInliers` inliers and
/// no rival alignment among the other matches (a repeating scene), and is accepted when the candidate found
/// `verifyAfterFrames` frames later (mostly other frames' matches) agrees with it.
///
/// Appearance alone cannot tell a place from another that looks the same: a texture that repeats (a tiled floor, a
/// patterned wall, a row of identical windows) gives consistent matches at every repetition, and when the place the
/// camera really sees is not in the map, the shifted one is the only alignment the matches support — no rival for the
/// ambiguity test. So every candidate is also checked against the 3-D structure both runs saw (`FreeSpaceCheck`): the
/// map's points against the run's own landmarks as the run's recent cameras see them, and the run's landmarks against
/// what each map keyframe saw. Structure that does not repeat (furniture, the end of a wall) then sits, at a shifted
/// place, where a camera saw through it. The evidence adds up over the frames a place is a candidate; a place with
/// `minContradictions` such points, or with one of the run's planes standing across what the map's keyframes saw in
/// `minPlaneContradictionFrames` frames, is refuted (for the rest of the run), and a place is accepted only once enough
/// points were compared for a wrong one to have shown them. An accepted place keeps being checked (`watch`): the run's
/// own precise points, as it maps them, against what the map's keyframes saw; a place they contradict is revoked and
/// the search goes on. Deterministic (the RANSAC's generator is seeded with the frame time).
final class Relocalizer {
    private typealias Match = (correspondence: YawTranslationSolver.Correspondence, mapIndex: Int, frame: Int)
    private let points: [WorldMap.MapPoint]
    private let camera: CameraCalibration
    private let options: RelocalizationOptions
    /// Whether the run tracks with stereo depth (its planes' offsets are then as precise as their landmarks' σ say).
    private let stereo: Bool
    /// The pooled matches of the last frames, by map point index.
    private var window: [Int: Match] = [:]
    private var frame = 0
    private var lastT_ns: TimestampNs = 0
    private var pending: (frame: Int, T: SE3)?
    /// A candidate a later one confirmed that only the structure rule holds back (too few map points compared yet):
    /// it waits for that evidence instead of being confirmed again, followed from frame to frame by the candidates that
    /// agree with it.
    private var confirmed: (frame: Int, T: SE3)?
    /// The run's own landmarks (its frame W) reported over the last `liveWindow_ns`, by track id.
    private var live: [Int: (p_W: Vec3, std_m: Double, t_ns: TimestampNs)] = [:]
    private let liveWindow_ns: TimestampNs = 1_500_000_000
    /// How far the run's scale was off the map's (`runScaleError`) at the candidates of the last `liveWindow_ns`.
    private var scaleErrors: [(t_ns: TimestampNs, error: Double)] = []
    /// Camera 0 in the run's frame at the frames of the window.
    private var cameras: [(frame: Int, T_W_C: SE3)] = []
    /// What the map's keyframes saw: camera 0 in the map's frame and its keypoints' map points.
    private let keyframeViews: [(T_Ws_C: SE3, samples: [FreeSpaceCheck.Sample])]
    /// What the map's keyframes saw, as rays: camera centre (map frame) to each map point a keyframe observed.
    private let keyframeRays: [(o: Vec3, point: Int)]
    /// Each map point's surface normal (map frame), where its neighbours lie on a plane.
    private let normals: [Vec3?]
    /// The places that were candidates, with their free-space evidence.
    private var places: [Place] = []
    /// How many places the free-space check refuted so far before they were accepted (revoked places aside).
    var refutedCount: Int { places.filter(\.refuted).count - revocations.count }

    /// What the free-space check gathered for one place over the frames it was a candidate: the distinct points
    /// (map point indices ≥ 0, the run's landmarks as −1 − track id) that agreed with it or contradicted it.
    private struct Place {
        var T_Ws_W: SE3
        var agreeing = Set<Int>()
        var contradicting = Set<Int>()
        var refuted = false
        /// Frames in which one of the run's planes stood across what the map's keyframes saw.
        var planeContradictedFrames = 0
        /// Points that contradicted it and never agreed.
        var contradictions: Int { contradicting.subtracting(agreeing).count }
        var compared: Int { agreeing.union(contradicting).count }
        /// The map's points among them (the run's recent cameras compared them with the run's landmarks).
        var mapPointsCompared: Int { agreeing.union(contradicting).filter { $0 >= 0 }.count }
    }
    /// The accepted alignment, once found.
    private(set) var result: Relocalization?
    /// Places revoked so far, oldest first.
    private(set) var revocations: [Revocation] = []
    /// The run's own precise points judged at the accepted place (`watch`; each once, when first offered), by id;
    /// how many of them agreed or contradicted, and how many contradicted.
    private var ownJudged = Set<Int>()
    private var ownCompared = 0, ownContradicting = 0
    /// Whether the share of the run's points within the map's views was tested since the acceptance.
    private var coverageTested = false

    init(map: WorldMap, camera: CameraCalibration, options: RelocalizationOptions, stereo: Bool) {
        self.points = map.points
        self.camera = camera
        self.options = options
        self.stereo = stereo
        normals = Self.normals(map.points.map(\.p_W), radius: options.normalRadius_m, maxRMS: options.normalMaxRMS_m)
        var byId: [Int: WorldMap.MapPoint] = [:], indexOf: [Int: Int] = [:]
        for (i, p) in map.points.enumerated() { byId[p.id] = p; indexOf[p.id] = i }
        keyframeRays = map.keyframes.flatMap { k in
            Set(k.keypoints.compactMap { $0.mapPointId.flatMap { indexOf[$0] } }).sorted().map { (o: k.T_W_C.translation, point: $0) }
        }
        keyframeViews = map.keyframes.map { k in
            let T_C_Ws = k.T_W_C.inverse
            let seen = k.keypoints.compactMap { $0.mapPointId.flatMap { byId[$0] } }.map { (p_C: T_C_Ws.act($0.p_W), std_m: $0.std_m) }
            return (k.T_W_C, FreeSpaceCheck.samples(seen).compactMap { $0 })
        }
    }

    /// Tries this frame (camera 0 at `T_W_C` in the run's frame, from a converged filter; `landmarks` the estimator's
    /// of this frame, run's frame). Returns the alignment when this frame confirms it.
    func attempt(_ features: [TrackedFeature], landmarks: [Landmark], image: GrayImage, T_W_C: SE3, t_ns: TimestampNs) throws -> Relocalization? {
        guard result == nil, !points.isEmpty else { return result }
        let descriptors = try ORBDescriptor.compute(image, at: features.map { SIMD2<Float>(Float($0.pixel.x), Float($0.pixel.y)) })
        // Brute-force matching, one feature per map point (the closest wins).
        var byPoint: [Int: (feature: Int, distance: Int)] = [:]
        for (i, d) in descriptors.enumerated() {
            guard let d else { continue }
            var best = (index: -1, distance: Int.max), second = Int.max
            for (j, p) in points.enumerated() {
                let h = d.hammingDistance(to: p.descriptor)
                if h < best.distance { second = best.distance; best = (j, h) } else if h < second { second = h }
            }
            guard best.index >= 0, best.distance <= options.maxHamming,
                  second == Int.max || Double(best.distance) < options.ratio * Double(second) else { continue }
            if let other = byPoint[best.index], other.distance <= best.distance { continue }
            byPoint[best.index] = (i, best.distance)
        }
        let matches = byPoint.map { index, match in
            let n = features[match.feature].normalized
            return (mapIndex: index, normalized: SIMD2(n.x, n.y))
        }
        return consider(matches, landmarks: landmarks, T_W_C: T_W_C, t_ns: t_ns)
    }

    /// The frame's matches (a map point's index in the loaded map, the feature's normalized image coordinates), after
    /// descriptor matching: pooled, aligned, checked, confirmed. Returns the alignment when this frame confirms it.
    func consider(_ frameMatches: [(mapIndex: Int, normalized: SIMD2<Double>)], landmarks: [Landmark], T_W_C: SE3,
                  t_ns: TimestampNs) -> Relocalization? {
        guard result == nil, !points.isEmpty else { return result }
        frame += 1
        lastT_ns = t_ns
        live = live.filter { t_ns - $0.value.t_ns <= liveWindow_ns }
        for l in landmarks { live[l.id] = (l.p_W, l.std_m, t_ns) }
        cameras = cameras.filter { frame - $0.frame < options.windowFrames } + [(frame, T_W_C)]
        let R = T_W_C.rotation, o = T_W_C.translation
        window = window.filter { frame - $0.value.frame < options.windowFrames }
        for (index, n) in frameMatches {
            let a = R.act(Vec3(n.x, n.y, 1)).normalized
            window[index] = (.init(p_Ws: points[index].p_W, a_W: a, o_W: o, std_m: points[index].std_m), index, frame)
        }
        let pooled = window.sorted { $0.key < $1.key }
        let matches = pooled.map(\.value.correspondence)
        guard matches.count >= max(options.minInliers, 3),
              let (T, inliers) = ransac(matches, t_ns: t_ns), inliers.count >= options.minInliers,
              Double(inliers.count) >= options.minInlierFraction * Double(matches.count) else { return nil }
        // The place's free-space evidence: a refuted place is no candidate, nor one that what the cameras saw through
        // refutes now.
        let place: Int
        if let i = places.firstIndex(where: { samePlace($0.T_Ws_W, T) }) { place = i } else { places.append(Place(T_Ws_W: T)); place = places.count - 1 }
        guard !places[place].refuted else { return nil }
        places[place].T_Ws_W = T
        gatherFreeSpace(T, into: &places[place])
        let evidence = places[place]
        let pointsSeenThrough = evidence.contradictions >= options.minContradictions
            && Double(evidence.contradictions) >= options.minContradictionFraction * Double(evidence.compared)
        // The run's planes take their landmarks' latest estimates over the last `liveWindow_ns`: their scale may be
        // any the run had in that time.
        scaleErrors = scaleErrors.filter { t_ns - $0.t_ns <= liveWindow_ns }
            + [(t_ns, runScaleError(inliers.map { pooled[$0].value.correspondence }, T))]
        let planeContradicts = !pointsSeenThrough && planeSeenThrough(T, scaleError: scaleErrors.map(\.error).max() ?? 0)
        if planeContradicts { places[place].planeContradictedFrames += 1 }
        if pointsSeenThrough || planeContradicts {
            if pointsSeenThrough || places[place].planeContradictedFrames >= options.minPlaneContradictionFrames {
                places[place].refuted = true
            }
            if let p = pending, samePlace(p.T, T) { pending = nil }
            if let c = confirmed, samePlace(c.T, T) { confirmed = nil }
            return nil
        }
        if let c = confirmed, frame - c.frame > 2 * options.verifyAfterFrames || !agree(c.T, T) { confirmed = nil }
        if confirmed == nil {
            if let p = pending, frame - p.frame > 2 * options.verifyAfterFrames { pending = nil }
            guard let p = pending else { pending = (frame, T); return nil }
            guard frame - p.frame >= options.verifyAfterFrames else { return nil }
            guard agree(p.T, T) else { pending = (frame, T); return nil }
        }
        // Inliers, and map points the free-space check found where the run's cameras see a surface, whose surfaces leave
        // a direction to appearance alone: accepted only once enough of the map was compared to have refuted a wrong
        // place (the run's own structure grows as it moves); until then the confirmed candidate waits, followed by the
        // candidates that agree with it.
        if !spansThreeDirections(inliers.map { pooled[$0].key } + evidence.agreeing.filter { $0 >= 0 }.sorted()),
           Double(evidence.mapPointsCompared) * options.minContradictionFraction < Double(options.minContradictions) {
            if options.confirmationWaitsForStructure { confirmed = (frame, T) }
            return nil
        }
        result = Relocalization(t_ns: t_ns, T_Ws_W: T, inliers: inliers.count, refuted: refutedCount)
        pending = nil
        confirmed = nil
        return result
    }

    /// After acceptance, once per frame: the run's own precise points (`own`: id, position in the run's frame W, 1-σ;
    /// the map reuse's, not the loaded map's; in any order) not judged yet are compared with what the map's keyframes
    /// saw, at the accepted place, each once (so the outcome does not depend on the order). Returns the revocation
    /// when the points a keyframe looked through reach `minContradictions` and `minContradictionFraction` of those
    /// compared, or when, once `revocationCoverageSample` were judged, fewer than `minRevocationCoverage` of them were
    /// compared at all; the place is then refuted and the search starts again. (The run's young landmarks are not used:
    /// σ 0.1–0.2 m, they agree with nearly anything, and the hundreds that agree would dilute the few that contradict
    /// below the fraction.)
    func watch(own: [(id: Int, p_W: Vec3, std_m: Double)], t_ns: TimestampNs) -> Revocation? {
        guard options.revokesContradictedPlace, let accepted = result, !keyframeViews.isEmpty else { return nil }
        let fresh = own.filter { !ownJudged.contains($0.id) }
        guard !fresh.isEmpty else { return nil }
        for p in fresh { ownJudged.insert(p.id) }
        for v in judge(fresh, at: accepted.T_Ws_W, radius_px: options.revocationRadius_px) where v != .unknown {
            ownCompared += 1
            if v == .contradicts { ownContradicting += 1 }
        }
        let compared = ownCompared, contradicting = ownContradicting, judged = ownJudged.count
        var evidence: Revocation.Evidence?
        if contradicting >= options.minContradictions,
           Double(contradicting) >= options.minContradictionFraction * Double(compared) {
            evidence = .seenThroughByKeyframes
        } else if !coverageTested, options.minRevocationCoverage > 0, judged >= options.revocationCoverageSample {
            coverageTested = true
            if Double(compared) < options.minRevocationCoverage * Double(judged) { evidence = .outsideMapViews }
        }
        guard let evidence else { return nil }
        let revocation = Revocation(accepted_ns: accepted.t_ns, revoked_ns: t_ns, T_Ws_W: accepted.T_Ws_W,
                                    contradicting: contradicting, compared: compared, judged: judged, evidence: evidence)
        revocations.append(revocation)
        if let i = places.firstIndex(where: { samePlace($0.T_Ws_W, accepted.T_Ws_W) }) { places[i].refuted = true }
        else { places.append(Place(T_Ws_W: accepted.T_Ws_W, refuted: true)) }
        result = nil
        ownJudged = []; ownCompared = 0; ownContradicting = 0; coverageTested = false
        window = [:]; cameras = []
        return revocation
    }

    /// The run's points (its frame W) aligned by `T_Ws_W` and compared with what the map's keyframes saw within
    /// `radius_px` of their directions, one verdict each (`FreeSpaceCheck.combine` over the keyframes).
    private func judge(_ run: [(id: Int, p_W: Vec3, std_m: Double)], at T_Ws_W: SE3, radius_px: Double) -> [FreeSpaceCheck.Verdict] {
        guard !run.isEmpty else { return [] }
        let radius = radius_px / camera.model.intrinsics.fx
        let run_Ws = run.map { (p: T_Ws_W.act($0.p_W), std: $0.std_m) }
        return FreeSpaceCheck.combine(keyframeViews.map { k -> [FreeSpaceCheck.Verdict] in
            let T_C_Ws = k.T_Ws_C.inverse
            let seen = FreeSpaceCheck.samples(run_Ws.map { (p_C: T_C_Ws.act($0.p), std_m: $0.std) })
            return FreeSpaceCheck.compare(seen, view: k.samples, radius_rad: radius, relativeTolerance: options.freeSpaceRelativeTolerance)
        })
    }

    /// Adds this frame's free-space evidence on the alignment `T_Ws_W` to a place's: the map's points against the run's
    /// recent landmarks seen from the window's cameras (every third frame and this one), and the run's landmarks
    /// against what each map keyframe saw (`FreeSpaceCheck`).
    private func gatherFreeSpace(_ T_Ws_W: SE3, into place: inout Place) {
        let radius = options.freeSpaceRadius_px / camera.model.intrinsics.fx
        let tolerance = options.freeSpaceRelativeTolerance
        let landmarks = live.map { (id: $0.key, p_W: $0.value.p_W, std_m: $0.value.std_m) }
        guard !landmarks.isEmpty else { return }
        let T_W_Ws = T_Ws_W.inverse
        var mapVerdicts: [[FreeSpaceCheck.Verdict]] = []
        for (k, c) in cameras.reversed().enumerated() where k % 3 == 0 {
            let T_C_W = c.T_W_C.inverse, T_C_Ws = T_C_W * T_W_Ws
            let view = FreeSpaceCheck.samples(landmarks.map { (p_C: T_C_W.act($0.p_W), std_m: $0.std_m) }).compactMap { $0 }
            let seen = FreeSpaceCheck.samples(points.map { (p_C: T_C_Ws.act($0.p_W), std_m: $0.std_m) })
            mapVerdicts.append(FreeSpaceCheck.compare(seen, view: view, radius_rad: radius, relativeTolerance: tolerance))
        }
        for (i, v) in FreeSpaceCheck.combine(mapVerdicts).enumerated() {
            if v == .agrees { place.agreeing.insert(i) } else if v == .contradicts { place.contradicting.insert(i) }
        }
        for (k, v) in judge(landmarks, at: T_Ws_W, radius_px: options.freeSpaceRadius_px).enumerated() {
            if v == .agrees { place.agreeing.insert(-1 - landmarks[k].id) } else if v == .contradicts { place.contradicting.insert(-1 - landmarks[k].id) }
        }
    }

    /// Free space per surface: whether the map's keyframes looked through one of the run's planes, aligned by
    /// `T_Ws_W`. The point-wise comparison needs a landmark of the run near each keyframe ray's direction at a similar
    /// range; a young surface is sparsely and loosely triangulated (mono landmarks 1 s old: σ 0.1–0.2 m along their
    /// rays), so the map's floor a metre behind a wall is "at about the range" of the wall's landmarks and agrees. A plane
    /// fitted to many of those landmarks is denser and more precise than any of them. The run's planes
    /// (`FreeSpaceCheck.gravityAlignedPlanes`: landmarks of the last 1.5 s with σ ≤ `planeMaxLandmarkStd_m`, at least
    /// `PlaneDetectorOptions.minPoints` within `planeInlier_m`) are tested against every keyframe ray (its camera centre
    /// to a map point it observed, `FreeSpaceCheck.rays`). The place is contradicted when, on one plane, at least
    /// `minContradictions` distinct map points were seen through it and more than were seen on it: a real surface of
    /// the run, at the right place, is where the map saw it or where the map saw nothing; at a shifted place it can
    /// stand across what the map saw (a wall standing across the map's floor, a table top above it). `scaleError`: how
    /// far, as a fraction, the run's scale may be off the map's (`runScaleError`); a plane of the run's landmarks may
    /// then be off along its normal by that fraction of the run's camera's distance to it, beyond its σ.
    private func planeSeenThrough(_ T_Ws_W: SE3, scaleError: Double) -> Bool {
        guard !keyframeRays.isEmpty else { return false }
        let landmarks = live.sorted { $0.key < $1.key }.map(\.value).filter { $0.std_m <= options.planeMaxLandmarkStd_m }
        let planes = FreeSpaceCheck.gravityAlignedPlanes(landmarks.map { T_Ws_W.act($0.p_W) }, std_m: landmarks.map(\.std_m),
                                                         inlier_m: options.planeInlier_m, minPoints: PlaneDetectorOptions().minPoints,
                                                         seed: UInt64(bitPattern: lastT_ns))
        let rays = keyframeRays.map { (o: $0.o, p: points[$0.point].p_W, std_m: points[$0.point].std_m) }
        // The run's camera now, map frame.
        let o_Ws = cameras.last.map { T_Ws_W.act($0.T_W_C.translation) }
        for plane in planes {
            let centroid = plane.points.reduce(Vec3.zero, +) / Double(plane.points.count)
            let runRange = o_Ws.map { abs(plane.normal.dot(centroid - $0)) } ?? 0
            let seen = FreeSpaceCheck.rays(rays, meeting: plane.points, normal: plane.normal, offsetStd_m: plane.offsetStd_m,
                                           offsetTolerance_m: scaleError * runRange,
                                           relativeTolerance: options.freeSpaceRelativeTolerance)
            let through = Set(seen.through.map { keyframeRays[$0].point }), on = Set(seen.on.map { keyframeRays[$0].point })
            if through.count >= options.minContradictions, through.count > on.count { return true }
        }
        return false
    }

    /// Whether the inliers' surfaces face three independent directions (groups of at least 3 inliers whose normals
    /// are within `surfaceGroupAngle_rad`); if not, the alignment along the direction they all contain rests on their
    /// texture alone.
    private func spansThreeDirections(_ mapIndices: [Int]) -> Bool {
        let cosGroup = cos(options.surfaceGroupAngle_rad)
        var groups: [(normal: Vec3, count: Int)] = []
        for n in Set(mapIndices).sorted().compactMap({ normals[$0] }) {
            if let g = groups.firstIndex(where: { abs($0.normal.dot(n)) >= cosGroup }) { groups[g].count += 1 } else { groups.append((n, 1)) }
        }
        let faces = groups.filter { $0.count >= 3 }.map(\.normal)
        // Three normals are independent when no one of them lies within the group angle of the others' plane.
        let sinGroup = sin(options.surfaceGroupAngle_rad)
        for i in faces.indices { for j in faces.indices where j > i { for k in faces.indices where k > j {
            let c = faces[i].cross(faces[j])
            if c.norm > sinGroup, abs(faces[k].dot(c.normalized)) > sinGroup { return true }
        } } }
        return false
    }

    /// Surface normals of points from their neighbours within `radius` (a plane fitted to at least 6 of them, RMS at
    /// most `maxRMS`); nil elsewhere (edges, corners, sparse points). Neighbours are found through a grid of
    /// `radius` cells.
    static func normals(_ points: [Vec3], radius: Double, maxRMS: Double) -> [Vec3?] {
        func cell(_ p: Vec3) -> SIMD3<Int> { SIMD3(Int((p.x / radius).rounded(.down)), Int((p.y / radius).rounded(.down)), Int((p.z / radius).rounded(.down))) }
        var grid: [SIMD3<Int>: [Int]] = [:]
        for (i, p) in points.enumerated() { grid[cell(p), default: []].append(i) }
        return points.map { p in
            let c = cell(p)
            var near: [Vec3] = []
            for dx in -1...1 { for dy in -1...1 { for dz in -1...1 {
                for j in grid[c &+ SIMD3(dx, dy, dz)] ?? [] where (points[j] - p).norm <= radius { near.append(points[j]) }
            } } }
            guard near.count >= 6, let plane = FittedPlane.fit(near), plane.rms_m <= maxRMS else { return nil }
            return plane.normal
        }
    }

    /// How far a mono run's scale is off the map's at a candidate, as a fraction: the depths of the run's landmarks
    /// along the inliers' rays against the aligned map points' (`depthRatios`), their median's distance from 1 when
    /// there are at least 3, `unmeasuredScaleError` with fewer. 0 for a stereo run (its depths come from each
    /// landmark's own disparity).
    private func runScaleError(_ inliers: [YawTranslationSolver.Correspondence], _ T_Ws_W: SE3) -> Double {
        guard !stereo else { return 0 }
        let ratios = depthRatios(inliers, T_Ws_W).sorted()
        guard ratios.count >= 3 else { return options.unmeasuredScaleError }
        return abs(ratios[ratios.count / 2] - 1)
    }

    /// For each correspondence whose ray carries one of the run's recent landmarks (within 1.5 px of its bearing from
    /// the camera that matched it; the closest in angle): that landmark's depth along the ray over the aligned map
    /// point's.
    private func depthRatios(_ matches: [YawTranslationSolver.Correspondence], _ T_Ws_W: SE3) -> [Double] {
        let T_W_Ws = T_Ws_W.inverse
        let cosMax = cos(1.5 / camera.model.intrinsics.fx)
        let landmarks = live.sorted { $0.key < $1.key }.map(\.value.p_W)
        return matches.compactMap { m in
            let mapDepth = (T_W_Ws.act(m.p_Ws) - m.o_W).dot(m.a_W)
            guard mapDepth > 0.1 else { return nil }
            var best: (cos: Double, depth: Double)?
            for p in landmarks {
                let d = p - m.o_W, n = d.norm
                guard n > 0.1 else { continue }
                let c = d.dot(m.a_W) / n
                if c >= cosMax, c > (best?.cos ?? -1) { best = (c, d.dot(m.a_W)) }
            }
            return best.map { $0.depth / mapDepth }
        }
    }

    /// Two alignments put the map at the same place, up to the run's drift (`placeRadius_m`, `placeYaw_rad`).
    private func samePlace(_ a: SE3, _ b: SE3) -> Bool {
        var dyaw = a.rotation.yaw - b.rotation.yaw
        dyaw = atan2(sin(dyaw), cos(dyaw))
        return (a.translation - b.translation).norm <= options.placeRadius_m && abs(dyaw) <= options.placeYaw_rad
    }

    private func agree(_ a: SE3, _ b: SE3) -> Bool {
        var dyaw = a.rotation.yaw - b.rotation.yaw
        dyaw = atan2(sin(dyaw), cos(dyaw))
        return (a.translation - b.translation).norm <= options.agreement_m && abs(dyaw) <= options.agreement_rad
    }

    /// The best alignment of the matches and its inliers, unless the matches left out of it support another alignment
    /// almost as well (at least `ambiguityRatio` of its inliers, and `minInliers / 2`): a scene that repeats itself (a
    /// tiled floor, a texture that repeats along a wall) offers two consistent places, and choosing one would be a guess.
    private func ransac(_ matches: [YawTranslationSolver.Correspondence], t_ns: TimestampNs) -> (SE3, [Int])? {
        var random = SeededRandom(seed: UInt64(bitPattern: t_ns) ^ 0x5EED_5EED)
        guard let (T, inliers) = bestAlignment(matches, random: &random) else { return nil }
        let taken = Set(inliers)
        let rest = matches.indices.filter { !taken.contains($0) }
        if rest.count >= 3, let (T2, inliers2) = bestAlignment(rest.map { matches[$0] }, random: &random),
           Double(inliers2.count) >= options.ambiguityRatio * Double(inliers.count), 2 * inliers2.count >= options.minInliers,
           !agree(T, T2) {
            return nil
        }
        return (T, inliers)
    }

    /// RANSAC over three-match samples; the winner refitted on its inliers (twice). Inliers are matches whose map point
    /// lies within `inlierThreshold_px / fx` radians of its ray.
    private func bestAlignment(_ matches: [YawTranslationSolver.Correspondence], random: inout SeededRandom) -> (SE3, [Int])? {
        let threshold = options.inlierThreshold_px / camera.model.intrinsics.fx
        func inliers(_ T_Ws_W: SE3) -> [Int] {
            let T_W_Ws = T_Ws_W.inverse
            return matches.indices.filter { i in
                let d = T_W_Ws.act(matches[i].p_Ws) - matches[i].o_W
                let along = d.dot(matches[i].a_W)
                guard along > 0.05 else { return false }
                return (d - along * matches[i].a_W).norm / along <= threshold
            }
        }
        var best: [Int] = []
        let n = matches.count
        for _ in 0..<options.ransacIterations {
            let i = random.int(n), j = random.int(n), k = random.int(n)
            guard i != j, j != k, i != k, let T = YawTranslationSolver.solve([matches[i], matches[j], matches[k]], reweightings: 0) else { continue }
            let set = inliers(T)
            if set.count > best.count { best = set }
        }
        guard best.count >= 3 else { return nil }
        var T: SE3?
        for _ in 0..<2 {
            guard let refit = YawTranslationSolver.solve(best.map { matches[$0] }, rayStd_rad: 1 / camera.model.intrinsics.fx) else { break }
            T = refit
            let set = inliers(refit)
            if set.count < 3 { break }
            best = set
        }
        return T.map { ($0, best) }
    }
}

extension EstimatorOutput {
    /// The output with its poses, velocity and landmarks moved into another gravity-aligned frame: `T_Ws_W` maps the
    /// estimator's frame W into it. Biases (body frame) and uncertainties are unchanged.
    func transformed(by T_Ws_W: SE3) -> EstimatorOutput {
        var out = self
        out.T_W_B = T_Ws_W * T_W_B
        out.T_W_C = T_Ws_W * T_W_C
        out.v_W = T_Ws_W.rotation.act(v_W)
        out.landmarks = landmarks.map { Landmark(id: $0.id, p_W: T_Ws_W.act($0.p_W), std_m: $0.std_m) }
        return out
    }
}
