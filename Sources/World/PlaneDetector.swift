import Foundation
import Geometry

/// A plane found in one pass over the landmark map, before it is matched to the tracked planes.
public struct PlaneCandidate: Equatable, Sendable {
    /// Horizontal or vertical.
    public var alignment: PlaneAlignment
    /// Unit normal in W (world +z for horizontal candidates).
    public var normal_W: Vec3
    /// Offset along the normal (`n·p`), metres: the height for horizontal candidates.
    public var offset_m: Double
    /// 1-σ uncertainty of the offset, metres.
    public var offsetStd_m: Double
    /// Supporting landmark positions, world.
    public var points: [Vec3]
    /// Half-width of the inlier band the candidate was selected with, metres (grows with the landmarks' σ).
    public var band_m: Double
    /// Ids of the supporting landmarks (same order as `points`; empty when the candidate was built by hand).
    public var landmarkIds: [Int] = []
    /// The supporting points that can bound the candidate's outline (`withOutlinePoints()`), or nil when not worked
    /// out (then all of `points` can). Seen along `normal_W`, every point of `points` left out lies inside the convex
    /// hull of `points` by more than `PlaneCandidate.outlineMargin_m`, so a plane looking along the same normal gets
    /// the same convex outline from these as from all the points: the detector works them out on its worker thread,
    /// and the tracker, on the tracking thread, hulls a few per cent of a floor's thousands of points.
    public var outlinePoints: [Vec3]? = nil
}

extension PlaneCandidate {
    /// How far inside the outline a point must lie to be left out of `outlinePoints`, metres: far more than the
    /// rounding of a plane's frame moves a point (1e-9 of its distance from the origin, within
    /// `outlineMaxRadius_m`), far less than any landmark's σ.
    public static let outlineMargin_m = 1e-6
    /// Beyond this distance from the world origin, metres, a candidate gets no `outlinePoints` (rounding of a frame
    /// could then move a point by the margin).
    public static let outlineMaxRadius_m = 500.0
    /// The largest difference between a plane's normal and the candidate's (unit vectors) for which the plane may hull
    /// `outlinePoints` instead of `points`.
    public static let outlineNormalTolerance = 1e-9

    /// The candidate with `outlinePoints` worked out (one pass over the points, then eight tests per point); unchanged
    /// when its points do not span an area or lie farther than `outlineMaxRadius_m` from the origin.
    public func withOutlinePoints() -> PlaneCandidate {
        guard points.count > 3, points.allSatisfy({ $0.isFinite && $0.norm <= Self.outlineMaxRadius_m }) else { return self }
        let frame = PlaneAnchor.frameRotation(normal: normal_W).inverse
        let inPlane = points.map { p -> Vec2 in let q = frame.act(p); return Vec2(q.x, q.y) }
        // The polygon through the extreme points in eight directions is convex and inside the hull
        // (`PlaneGeometry2D.extremeOctagon`): a point deeper inside it than the margin is so inside the hull, and
        // cannot bound the outline. (The points between the two are kept: a few more than the hull's vertices, for
        // one pass instead of a hull.)
        var polygon: [Vec2] = []
        for v in PlaneGeometry2D.extremeOctagon(inPlane).points where polygon.last != v && polygon.first != v { polygon.append(v) }
        // Its edges a → b with the inside on their left; a polygon with no area leaves every point in.
        let edges = polygon.indices.compactMap { k -> (a: Vec2, inward: Vec2)? in
            let a = polygon[k], d = polygon[(k + 1) % polygon.count] - a
            let length = d.norm
            return length > 0 ? (a, Vec2(-d.y, d.x) / length) : nil
        }
        let area = PlaneGeometry2D.area(polygon)
        guard edges.count >= 3, area > 0 else { return self }
        var c = self
        c.outlinePoints = points.indices.filter { i in
            let q = inPlane[i]
            return edges.contains { $0.inward.dot(q - $0.a) <= Self.outlineMargin_m }
        }.map { points[$0] }
        return c
    }
}

/// One detection pass: the candidates (horizontal first, each group ordered by support, largest first), and the
/// candidates dropped because landmarks were seen through them.
public struct PlaneDetection: Equatable, Sendable {
    /// Planes found.
    public var candidates: [PlaneCandidate] = []
    /// Fits that free space refutes (`PlaneDetectorOptions.rejectSeenThrough`).
    public var refuted: [PlaneCandidate] = []
}

/// Tuning of the plane detector; defaults suit hand-held or drone VIO indoors (landmark σ ≈ 1–3 cm).
public struct PlaneDetectorOptions: Equatable, Sendable {
    /// Landmarks with σ above this are ignored, metres.
    public var maxLandmarkStd_m: Double = 0.08
    /// Minimum supporting landmarks for a plane.
    public var minPoints: Int = 15
    /// Height histogram bin, metres.
    public var binSize_m: Double = 0.01
    /// Smallest half-width of the inlier band around a plane, metres (the band is max(this, 2.5 × median σ)).
    public var minBand_m: Double = 0.02
    /// Peaks closer than this in height are treated as one, metres.
    public var minPeakSeparation_m: Double = 0.06
    /// Grid cell for the x-y connected components, metres: gaps wider than about this split planes.
    public var componentCell_m: Double = 0.3
    /// Upper bound of the adaptive grid cell used when landmarks are sparse, metres.
    public var maxComponentCell_m: Double = 1.0
    /// Both sides of a plane's enclosing rectangle must be at least this, metres.
    public var minSide_m: Double = 0.12
    /// Largest tilt of a horizontal plane's landmarks (e.g. from a small gravity error) still followed when
    /// selecting its inliers, degrees.
    public var maxTilt_deg: Double = 3
    /// Horizontal levels and planes are built only from landmarks without others straight above and below them
    /// (within 15 cm horizontally, 5–50 cm vertically): such landmarks lie inside vertical structure, and a
    /// densely mapped wall would otherwise offer a "level" at every height.
    public var ignoreStackedLandmarks: Bool = true
    /// A wall or horizontal candidate is rejected when the median of its landmarks' distances to it, each divided by that
    /// landmark's inlier gate, exceeds this: landmarks spread evenly across the band (uniform: 0.5) are a line
    /// through unrelated structure (table legs and box sides), not a face (Gaussian with honest σ: 0.27; walls in
    /// the simulated room: 0.09–0.16).
    public var maxMedianGateResidual: Double = 0.4
    /// Horizontal candidates must pass the same concentration test as walls (`maxMedianGateResidual`); `false`
    /// accepts them as before that test (for comparisons).
    public var rejectDiffuseLevels: Bool = true
    /// Horizontal candidates whose landmarks are less precise than the inlier band resolves — their median σ more than
    /// `impreciseStdRatio` times the σ the band was sized for (`band / 2.5`, the map's median σ or more) — must
    /// concentrate more tightly than others: the median of their distances to the fit over their gates at most this
    /// instead of `maxMedianGateResidual`. Such members' gates all saturate at the band, so the usual bound (0.4, set
    /// between a surface with honest σ and a uniform slice) lets through points of vertical faces that happen to lie
    /// within a band of one height (V1_01 arrangement 23, stereo: 17–19 points of box B's four sides and of a wall 1.3 m
    /// behind it, median σ 6.3 cm against the map's 3.6 cm, ratio 1.72–1.77, filling 0.29–0.35 of the band about their
    /// tilted fit; shown as a top 0.43 m up for 10 s and again for 29 s where there is none). A top's landmarks are
    /// imprecise mostly along the line of sight and lie on it more closely than their σ says: over six whole real-IMU
    /// flights (three rooms, mono and stereo; 1 190 candidates) no candidate within 3 cm of a real surface had a σ
    /// ratio above 1.29. nil applies `maxMedianGateResidual` to all (for comparisons).
    public var impreciseMaxMedianGateResidual: Double? = 0.2
    /// See `impreciseMaxMedianGateResidual`.
    public var impreciseStdRatio: Double = 1.5
    /// Horizontal candidates whose landmarks do not resolve a second horizontal dimension beyond their own σ are
    /// rejected (`PlaneDetector.isRowOnAVerticalFace`): a row of one vertical face's points at one height, spread
    /// in depth by their σ (V1_01 seed 3, stereo: a 0.83 × 0.13 m "table" 0.18 m up along box B's front face, shown
    /// for 6.6 s); `false` keeps them (for comparisons).
    public var rejectRows: Bool = true
    /// A horizontal surface's height is fitted as a surface plus one adjacent face (``OneSidedHeightFit``: a top's
    /// side faces just under its rim, a wall's foot just above a floor) instead of as the mode of its landmarks'
    /// heights alone; `false` keeps the mode (for comparisons).
    public var oneSidedHeight: Bool = true
    /// The share of a landmark's σ that the landmarks of one patch hold in common, so that a patch's height is known
    /// no better than this times its median σ however many landmarks it has (`floorPatches`). Landmarks
    /// triangulated in the same seconds share the filter's pose, tilt and scale of those seconds: a take-off's short
    /// scale lifts every ground landmark of those seconds together. On the V1_01 courtyards (mono) 18 ground
    /// landmarks seen only during the take-off (σ 3.5–8 cm, median 6 cm) lay 5–7 cm above the floor's later level,
    /// within ±1 cm of one another, and were shown as a "table" over bare ground for about a minute
    /// (docs/ACCURACY.md, "Fortieth round"). 0 turns the rule off.
    public var commonErrorFraction: Double = 0.5
    /// Detect vertical (wall) planes as well.
    public var detectVertical: Bool = true
    /// A vertical face whose landmarks fall into two pieces along it, separated by a gap wider than
    /// `componentCell_m`, is cut to its larger piece when the smaller piece's landmarks mostly lie off the larger
    /// piece's own line (`PlaneDetector.piecesOnTwoLines`): a sparse map's coarse grid joins a wall and a table's leg
    /// a metre away into one piece, and a line through both is turned from each. false keeps such faces (for
    /// comparisons).
    public var splitFacesAtGaps: Bool = true
    /// A vertical candidate whose direction its own landmarks fix only to worse than this (1 σ, degrees:
    /// `PlaneDetector.lineDirectionStd`, their median σ over their RMS length along the face × √n) is dropped: a blob
    /// of landmarks, such as a table leg's, has no direction of its own, and a plane turned anyhow through it misleads
    /// every ray that meets it. 180 keeps them all (for comparisons).
    public var maxFaceDirectionStd_deg: Double = 8
    /// Minimum vertical span of a wall's points, metres.
    public var minWallHeight_m: Double = 0.4
    /// A candidate is rejected when landmarks were seen through it (``SeeThroughTest``): at least
    /// `seeThroughMinWitnesses` and at least `seeThroughMinWitnessFraction` of its own landmark count. A fit through
    /// points of several objects that line up (table legs, a box side and a table edge) is seen through; on the
    /// V1_01 renders a real wall, floor or top had no witness.
    public var rejectSeenThrough: Bool = true
    /// Fewest witnesses that reject a candidate.
    public var seeThroughMinWitnesses: Int = 3
    /// Fewest witnesses that reject a candidate, as a fraction of its landmark count.
    public var seeThroughMinWitnessFraction: Double = 0.1
    /// How far inside the candidate's polygon (the hull of its landmarks) a witness's line of sight must cross it,
    /// and how far in front of it the viewpoint must be, metres.
    public var seeThroughMargin_m: Double = 0.05

    /// Default options.
    public init() {}
}

/// Finds gravity-aligned planes in a landmark map.
///
/// 0. Landmarks with others straight above *and* below them (within 15 cm horizontally, from their inlier gate
///    (at least 5 cm) to 50 cm vertically) lie inside vertical structure; levels and horizontal planes use only
///    the others ("flat" landmarks). A top surface's edge has landmarks below only, the floor at a wall's foot
///    above only; a table top is 0.7 m or more above the floor seen beneath it.
/// 1. Levels: a 1-cm histogram of flat landmark heights, smoothed with a Gaussian of the landmarks' median σ; each
///    local peak with enough support is refined by a mean shift from the peak (the smoothing's Gaussian, weights
///    1/σ², over the band), so a level keeps to its own surface when another lies inside its band; then the same
///    at half that σ, for levels the first smoothing blurs into a stronger one's shoulder. The band half-width is
///    max(`minBand_m`, 2.5 × median σ).
/// 2. Walls: RANSAC on 2-D lines in x-y over the landmarks inside vertical structure or off every level (so floor
///    and table points never make a wall), refined by a principal-axis fit, split into connected components in
///    the wall's plane, each refitted on its own and needing `minWallHeight_m` of vertical extent; a refit whose
///    landmarks are two pieces along the line that do not share it (a wall and a table's leg in front of it, joined
///    by a sparse map's coarse grid) keeps the larger piece only (`splitFacesAtGaps`); a face whose landmarks fix its
///    direction only to worse than `maxFaceDirectionStd_deg` (a table leg's blob) is dropped.
/// 3. Horizontal planes: per level, the flat landmarks not on a wall are gated individually
///    (|Δz| ≤ min(band, max(`minBand_m`, 2.5 σᵢ))) against a tilt-tolerant least-squares plane, split into x-y
///    connected components (grid adaptive to the landmark spacing), cleared of isolated points, and rejected when
///    too small, when they make a row rather than an area (`rejectRows`: one vertical face's points at one height),
///    or when its landmarks fill the band evenly instead of concentrating on a surface (`maxMedianGateResidual`;
///    more tightly, `impreciseMaxMedianGateResidual`, for landmarks less precise than the band resolves).
/// 4. Free space: a wall or horizontal candidate that landmarks were seen through is no surface and is dropped
///    (`rejectSeenThrough`, ``SeeThroughTest``): each landmark keeps the camera centre of its latest report, and the
///    segment between them crossed nothing opaque. Walls are tested before they take their landmarks out of the
///    horizontal planes.
///
/// Candidates carry the inlier band they were selected with; `PlaneTracker` turns them into tracked planes.
public struct PlaneDetector: Sendable {
    /// Tuning.
    public var options: PlaneDetectorOptions

    /// A detector with the given options.
    public init(options: PlaneDetectorOptions = PlaneDetectorOptions()) { self.options = options }

    /// All candidates (horizontal first, each group ordered by support, largest first).
    public func detect(_ landmarks: [MapLandmark]) -> [PlaneCandidate] { detection(landmarks).candidates }

    /// The candidates, and those dropped because landmarks were seen through them (`rejectSeenThrough`): a tracked
    /// plane that matches a refuted candidate is refuted with it (``PlaneTracker/update(with:refuted:at:cameraPosition_W:)``).
    public func detection(_ landmarks: [MapLandmark]) -> PlaneDetection {
        var refuted: [PlaneCandidate] = []
        let witnesses = options.rejectSeenThrough ? SeeThroughWitnesses(landmarks) : SeeThroughWitnesses([])
        func keep(_ c: [PlaneCandidate]) -> [PlaneCandidate] {
            c.filter { candidate in
                guard seenThrough(candidate, by: witnesses) else { return true }
                refuted.append(candidate)
                return false
            }
        }
        // In id order (the map's own order is a dictionary's), sorting ids (`radixOrder`), each landmark then copied
        // once into the few bytes the pass reads (`DetectorPoint`).
        let kept = landmarks.indices.filter { landmarks[$0].std_m <= options.maxLandmarkStd_m }
        var pts = radixOrder(kept.map { landmarks[$0].id }).map { DetectorPoint(landmarks[kept[$0]]) }
        guard pts.count >= options.minPoints else { return PlaneDetection() }
        let band = max(options.minBand_m, 2.5 * Self.median(pts.map(\.std_m)))
        // The landmarks in order of height, sorted once: the vertical-structure grid, the levels and the horizontal
        // candidates each read their landmarks in this order (a subset's order is this one filtered).
        let heightOrder = radixOrder(pts.map { $0.p_W.z })
        func subsetHeightOrder(_ subset: [Int]) -> [Int] {
            var position = [Int](repeating: -1, count: pts.count)
            for (k, i) in subset.enumerated() { position[i] = k }
            return heightOrder.compactMap { position[$0] >= 0 ? position[$0] : nil }
        }
        // Horizontal surfaces are where landmarks are not stacked: a landmark with others straight above or
        // below it lies on vertical structure (a wall, a cabinet's side). Levels and horizontal candidates use
        // the unstacked landmarks only, so a densely mapped wall cannot make a "level" at every height.
        var isFlat = [Bool](repeating: true, count: pts.count)
        if options.ignoreStackedLandmarks || options.oneSidedHeight {
            let column = VerticalNeighbours(pts, radius: 0.15, maxDz: 0.5, heightOrder: heightOrder)
            let sides = column.structureSides { max(0.05, gate(pts[$0], band)) }
            for i in pts.indices { pts[i].sides = sides[i] }
            if options.ignoreStackedLandmarks { isFlat = sides.map { !$0.inside } }
        }
        let flatIndices = pts.indices.filter { isFlat[$0] }
        let flat = flatIndices.map { pts[$0] }
        let flatHeightOrder = subsetHeightOrder(flatIndices)
        let levels = flat.count >= options.minPoints ? horizontalLevels(flat, band: band, heightOrder: flatHeightOrder) : []
        guard options.detectVertical else {
            let horizontal = keep(horizontalCandidates(flat, levels: levels, band: band, heightOrder: flatHeightOrder)
                .map { $0.withOutlinePoints() })
            return PlaneDetection(candidates: horizontal, refuted: refuted)
        }
        // Walls are searched among the landmarks inside vertical structure and those off every level (so floor
        // and table points never make a "wall"); then the flat landmarks on a wall are left out of the horizontal
        // planes (so a sparsely mapped wall's slice at some height never makes a thin or L-shaped "table").
        func inBand(_ p: DetectorPoint) -> Bool { levels.contains { abs(p.p_W.z - $0) <= band } }
        let vertical = keep(detectVertical(pts.indices.filter { !isFlat[$0] || !inBand(pts[$0]) }.map { pts[$0] }, band: band)
            .map { $0.withOutlinePoints() })
        let walls = vertical.map { c -> (n: Vec3, d: Double, rot: SO3, lo: Double, hi: Double) in
            let rot = PlaneAnchor.frameRotation(normal: c.normal_W)
            let xs = c.points.map { rot.inverse.act($0).x }
            return (c.normal_W, c.offset_m, rot, xs.min() ?? 0, xs.max() ?? 0)
        }
        let horizontalIndices = flatIndices.filter { i in
            let p = pts[i]
            return !walls.contains { w in
                let x = w.rot.inverse.act(p.p_W).x
                return abs(w.n.dot(p.p_W) - w.d) <= band && x >= w.lo - band && x <= w.hi + band
            }
        }
        let horizontal = keep(horizontalCandidates(horizontalIndices.map { pts[$0] }, levels: levels, band: band,
                                                   heightOrder: subsetHeightOrder(horizontalIndices)).map { $0.withOutlinePoints() })
        return PlaneDetection(candidates: horizontal + vertical, refuted: refuted)
    }

    /// True when `landmarks` were seen through the candidate (see `rejectSeenThrough`); a witness must lie behind it
    /// by more than max(the candidate's band, 3 σ). Any landmark may witness, also one too uncertain to support a
    /// plane (`maxLandmarkStd_m`): its 3 σ gate already says how far behind it must be.
    func seenThrough(_ c: PlaneCandidate, by witnesses: SeeThroughWitnesses) -> Bool {
        guard options.rejectSeenThrough else { return false }
        return seeThroughWitnesses(c, by: witnesses, stopAt: seeThroughNeeded(c)) >= seeThroughNeeded(c)
    }

    /// How many witnesses reject `c` (`seeThroughMinWitnesses`, `seeThroughMinWitnessFraction`).
    public func seeThroughNeeded(_ c: PlaneCandidate) -> Int {
        max(options.seeThroughMinWitnesses, Int((options.seeThroughMinWitnessFraction * Double(c.points.count)).rounded(.up)))
    }

    /// The number of `landmarks` seen through `c` (``SeeThroughTest`` over the hull of its points; counting stops at
    /// `stopAt`).
    public func seeThroughWitnesses(_ c: PlaneCandidate, by landmarks: [MapLandmark], stopAt: Int = .max) -> Int {
        seeThroughWitnesses(c, by: SeeThroughWitnesses(landmarks), stopAt: stopAt)
    }

    /// The number of `witnesses` seen through `c` (counting stops at `stopAt`).
    func seeThroughWitnesses(_ c: PlaneCandidate, by witnesses: SeeThroughWitnesses, stopAt: Int = .max) -> Int {
        let rot = PlaneAnchor.frameRotation(normal: c.normal_W)
        let T_W_P = SE3(rotation: rot, translation: c.offset_m * c.normal_W)
        let local = rot.inverse
        // The outline points (when worked out) have the same hull in this frame as all the points.
        let hull = PlaneGeometry2D.convexHull((c.outlinePoints ?? c.points).map { let q = local.act($0); return Vec2(q.x, q.y) })
        let test = SeeThroughTest(T_W_P: T_W_P, polygon: hull, margin_m: options.seeThroughMargin_m)
        var count = 0
        for i in witnesses.p_W.indices
        where test.isWitness(witnesses.p_W[i], seenFrom: witnesses.viewpoint_W[i], gate_m: max(c.band_m, 3 * witnesses.std_m[i])) {
            count += 1
            if count >= stopAt { break }
        }
        return count
    }

    /// Median of a non-empty array: the middle order statistic (the mean of the two middle ones for an even count),
    /// found by selection rather than a full sort; the same value as sorting gives.
    static func median(_ v: [Double]) -> Double {
        if v.contains(where: { $0.isNaN }) {
            let s = v.sorted()
            return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }
        var a = v
        let k = a.count / 2
        return a.withUnsafeMutableBufferPointer { b -> Double in
            let upper = selectKth(b, k)
            guard b.count % 2 == 0 else { return upper }
            // After selection every element before k is ≤ the k-th: the largest of them is the (k − 1)-th.
            var lower = b[0]
            for i in 1..<k where b[i] > lower { lower = b[i] }
            return (lower + upper) / 2
        }
    }

    // MARK: Horizontal

    /// Heights of horizontal planes: robust peaks of the landmark height histogram.
    ///
    /// The histogram is smoothed at two scales: the landmarks' median σ (its peaks first, strongest first), then half
    /// of it, whose peaks add the levels the first scale blurs into a shoulder of a stronger one. A landmark's σ is
    /// mostly along its ray, and tops are seen from above at a slant, so their landmarks' heights scatter well under
    /// their σ: two tops 13.5 cm apart in height whose landmarks report σ 4–5 cm make one peak and a shoulder at the
    /// median σ and two peaks at half of it. Each peak is refined by a mean shift with its scale's Gaussian (weights
    /// 1/σᵢ², over the band), so it keeps to its own surface's mode when another surface lies inside its band;
    /// a level within `minPeakSeparation_m` of one already found is not added.
    /// `heightOrder`: the landmarks' indices in order of height (ties in index order), when known.
    func horizontalLevels<L: PlaneSupport>(_ pts: [L], band: Double, heightOrder: [Int]? = nil) -> [Double] {
        let medStd = Self.median(pts.map(\.std_m))
        let zs = pts.map { $0.p_W.z }
        // Landmarks sorted by height: a band's inliers are a contiguous range found by binary search.
        let order = heightOrder ?? radixOrder(zs)
        let sortedZ = order.map { zs[$0] }
        // Keep the histogram bounded: heights farther than 50 m from the median are ignored.
        let mid = sortedZ.count / 2
        let zMed = sortedZ.count % 2 == 1 ? sortedZ[mid] : (sortedZ[mid - 1] + sortedZ[mid]) / 2
        let zLo = max(zs.min() ?? 0, zMed - 50), zHi = min(zs.max() ?? 0, zMed + 50)
        let bin = options.binSize_m
        let nBins = Int(((zHi - zLo) / bin).rounded(.down)) + 1
        var hist = [Double](repeating: 0, count: nBins)
        for z in zs where z >= zLo && z <= zHi { hist[min(nBins - 1, Int((z - zLo) / bin))] += 1 }
        // The local maxima of the histogram smoothed by a Gaussian of `sBins` bins, strongest first.
        func peaks(smoothing sBins: Double) -> [Int] {
            let r = Int((3 * sBins).rounded(.up))
            let kernel = (-r...r).map { exp(-0.5 * Double($0 * $0) / (sBins * sBins)) }
            var smooth = [Double](repeating: 0, count: nBins)
            for i in 0..<nBins {
                var s = 0.0
                for k in -r...r where i + k >= 0 && i + k < nBins { s += kernel[k + r] * hist[i + k] }
                smooth[i] = s
            }
            var found: [Int] = []
            for i in 0..<nBins where smooth[i] > 0 {
                let left = i > 0 ? smooth[i - 1] : 0, right = i + 1 < nBins ? smooth[i + 1] : 0
                if smooth[i] >= left && smooth[i] > right { found.append(i) }
            }
            return found.sorted { (smooth[$0], -$0) > (smooth[$1], -$1) }
        }
        // Prefix sums of the raw histogram: a peak's support is checked in O(1) before any per-point work.
        var cumulative = [0.0]
        cumulative.reserveCapacity(nBins + 1)
        for c in hist { cumulative.append(cumulative[cumulative.count - 1] + c) }
        let halfBins = Int((band / bin).rounded(.up))
        func bandMembers(around h: Double) -> ArraySlice<Int> {
            order[lowerBound(sortedZ, h - band)..<lowerBound(sortedZ, h + band + 1e-12)]
        }
        var accepted: [Double] = []
        // The median σ (at least one bin), then half of it (at least one bin; the second pass is skipped when it is
        // the first scale again).
        let firstSmoothing_bins = max(1.0, medStd / bin), secondSmoothing_bins = max(1.0, medStd / (2 * bin))
        let smoothings = secondSmoothing_bins < firstSmoothing_bins ? [firstSmoothing_bins, secondSmoothing_bins] : [firstSmoothing_bins]
        for sBins in smoothings {
            let kernel_m = sBins * bin
            for p in peaks(smoothing: sBins) {
                let support = cumulative[min(nBins, p + halfBins + 1)] - cumulative[max(0, p - halfBins)]
                guard support >= Double(options.minPoints) else { continue }
                let h0 = zLo + (Double(p) + 0.5) * bin
                if accepted.contains(where: { abs($0 - h0) < options.minPeakSeparation_m }) { continue }
                guard bandMembers(around: h0).count >= options.minPoints else { continue }
                // Mean shift from the peak. (A plain weighted mean of the band, three times, walked two tops' levels
                // into one: mono, V1_01 arrangement 107, table A's level onto table B's 13.5 cm above it with a
                // 12 cm band; table A's plane then followed a stray 17-point candidate 4 cm low.)
                var h = h0
                for _ in 0..<20 {
                    var s = 0.0, w = 0.0
                    for i in bandMembers(around: h) {
                        let u = (zs[i] - h) / kernel_m
                        let wi = exp(-0.5 * u * u) / (pts[i].std_m * pts[i].std_m)
                        s += wi * zs[i]; w += wi
                    }
                    guard w > 0 else { break }
                    let next = s / w, converged = abs(next - h) < 1e-5
                    h = next
                    if converged { break }
                }
                guard bandMembers(around: h).count >= options.minPoints else { continue }
                if accepted.contains(where: { abs($0 - h) < options.minPeakSeparation_m }) { continue }
                accepted.append(h)
            }
        }
        return accepted
    }

    /// Horizontal candidates: per level (strongest first), its landmarks split into x-y connected components.
    ///
    /// A level's inliers are chosen against a least-squares plane `z = a·x + b·y + c` refitted three times to them
    /// (from a 3 × wider band), so a floor that the estimator sees slightly tilted (up to `maxTilt_deg`, e.g. a
    /// small gravity error) is not cut into rings; the reported plane stays gravity-aligned, at the mode of the
    /// inliers' heights (`surfaceHeight`). Landmarks claimed by one level are not reused by the next.
    /// `heightOrder`: the landmarks' indices in order of height (ties in index order), when known.
    func horizontalCandidates<L: PlaneSupport>(_ pts: [L], levels: [Double], band: Double, heightOrder: [Int]? = nil) -> [PlaneCandidate] {
        var candidates: [PlaneCandidate] = []
        var levelGroups: [(level: Double, candidates: [(candidate: PlaneCandidate, medianStd: Double)])] = []
        var claimed = [Bool](repeating: false, count: pts.count)
        // Sorted by height, so each level's wide band is a contiguous range (binary search).
        let order = heightOrder ?? radixOrder(pts.map { $0.p_W.z })
        let sortedZ = order.map { pts[$0].p_W.z }
        for level in levels {
            let range = lowerBound(sortedZ, level - 3 * band)..<lowerBound(sortedZ, level + 3 * band + 1e-12)
            let wide = order[range].filter { !claimed[$0] }
            var inliers = wide.filter { abs(pts[$0].p_W.z - level) <= gate(pts[$0], band) }
            guard inliers.count >= options.minPoints else { continue }
            for _ in 0..<3 {
                guard let tilted = tiltedFit(inliers.map { pts[$0] }) else { break }
                let next = wide.filter { abs(pts[$0].p_W.z - tilted(pts[$0].p_W)) <= gate(pts[$0], band) }
                guard next.count >= options.minPoints else { break }
                inliers = next
            }
            for i in inliers { claimed[i] = true }
            let comps = components(inliers.map { pts[$0] }, indices: inliers, adaptive: true) { Vec2($0.x, $0.y) }
                .flatMap { splitByHeight($0, pts) }
            var levelCandidates: [(candidate: PlaneCandidate, medianStd: Double)] = []
            for comp in comps {
                let members = dropIsolated(comp.map { pts[$0] }) { Vec2($0.x, $0.y) }
                guard members.count >= options.minPoints else { continue }
                let hull = PlaneGeometry2D.convexHull(members.map { Vec2($0.p_W.x, $0.p_W.y) })
                let rect = PlaneGeometry2D.minimumAreaRectangle(hull)
                guard min(rect.width, rect.length) >= options.minSide_m else { continue }
                // A row of a vertical face's points at one height (a box's side seen face-on) is a level too.
                if options.rejectRows, isRowOnAVerticalFace(members) { continue }
                // A level can also be a slice through unrelated structure (box sides, a wall's sparse rows, badly
                // triangulated points) at one height: its landmarks then fill the inlier band evenly instead of
                // concentrating on a surface (the same test as for walls, about the members' own tilted fit).
                let surface = tiltedFit(members)
                let (hc, sc, modeHeight) = surfaceHeight(members, tilted: surface)
                // Members less precise than the band resolves must concentrate more tightly (`impreciseMaxMedianGateResidual`).
                let imprecise = Self.median(members.map(\.std_m)) > options.impreciseStdRatio * band / 2.5
                let bound = imprecise ? (options.impreciseMaxMedianGateResidual ?? options.maxMedianGateResidual) : options.maxMedianGateResidual
                guard !options.rejectDiffuseLevels
                    || concentrated(members, band: band, residual: { $0.z - (surface?($0) ?? modeHeight) }, bound: bound) else { continue }
                levelCandidates.append((PlaneCandidate(alignment: .horizontal, normal_W: Vec3(0, 0, 1), offset_m: hc,
                                                       offsetStd_m: sc, points: members.map(\.p_W), band_m: band,
                                                       landmarkIds: members.map(\.id)),
                                        Self.median(members.map(\.std_m))))
            }
            levelGroups.append((level, levelCandidates))
        }
        candidates = floorPatches(levelGroups)
        candidates.sort { $0.points.count > $1.points.count }
        return candidates
    }

    /// The levels' candidates, the other pieces of the floor's level joined to the floor's when their landmarks cannot
    /// tell the two heights apart. The floor's level is the lowest level, when it holds the largest candidate and
    /// that covers at least `floorPatchMinFloorArea_m2`: nothing lies under a floor, so a piece at its height is the
    /// floor there. A piece is at the floor's height, its largest candidate's, when the two differ by at most 3
    /// combined standard errors, each no smaller than the error the landmarks share (`commonErrorFraction` × their
    /// median σ). The take-off's ground landmarks by its spot (courtyards, mono: 18 of them, 5–7 cm over the floor's
    /// level, apart from its other landmarks) then extend the floor's outline there and are not a "table" over bare
    /// ground; the floor's height stays its own landmarks'. Other levels keep their pieces' own heights: objects at
    /// about one height (a bench's top and a fountain's, 5 cm apart) are measured right apart and wrong together.
    func floorPatches(_ levels: [(level: Double, candidates: [(candidate: PlaneCandidate, medianStd: Double)])]) -> [PlaneCandidate] {
        var out = levels.flatMap { $0.candidates.map(\.candidate) }
        guard options.commonErrorFraction > 0,
              let lowest = levels.indices.filter({ !levels[$0].candidates.isEmpty }).min(by: { levels[$0].level < levels[$1].level }),
              let largest = out.max(by: { $0.points.count < $1.points.count }) else { return out }
        let floor = levels[lowest]
        guard let main = floor.candidates.indices.max(by: { floor.candidates[$0].candidate.points.count < floor.candidates[$1].candidate.points.count }),
              floor.candidates[main].candidate.points.count == largest.points.count,
              PlaneGeometry2D.area(PlaneGeometry2D.convexHull(floor.candidates[main].candidate.points.map { Vec2($0.x, $0.y) }))
                >= Self.floorPatchMinFloorArea_m2 else { return out }
        func variance(_ e: (candidate: PlaneCandidate, medianStd: Double)) -> Double {
            max(e.candidate.offsetStd_m * e.candidate.offsetStd_m, pow(options.commonErrorFraction * e.medianStd, 2))
        }
        let reference = floor.candidates[main]
        let first = levels[..<lowest].reduce(0) { $0 + $1.candidates.count }
        var joined = Set<Int>()
        for k in floor.candidates.indices where k != main {
            let e = floor.candidates[k]
            let tolerance = max(options.minBand_m, 3 * (variance(e) + variance(reference)).squareRoot())
            guard abs(e.candidate.offset_m - reference.candidate.offset_m) <= tolerance else { continue }
            // The floor there: its landmarks join the floor's candidate, whose height stays its own.
            out[first + main].points += e.candidate.points
            out[first + main].landmarkIds += e.candidate.landmarkIds
            joined.insert(first + k)
        }
        return out.indices.filter { !joined.contains($0) }.map { out[$0] }
    }

    /// True when the landmarks' horizontal positions do not resolve a second dimension beyond their own noise: their
    /// RMS distance to the best vertical line through them (in x-y) is at most 1.5 × their median σ. Such a level is a
    /// row of one vertical face's points (a texture row on a box's side) spread in depth by their σ, not a top.
    func isRowOnAVerticalFace<L: PlaneSupport>(_ l: [L]) -> Bool {
        guard l.count >= 3 else { return false }
        let n = Double(l.count)
        let mx = l.reduce(0) { $0 + $1.p_W.x } / n, my = l.reduce(0) { $0 + $1.p_W.y } / n
        var sxx = 0.0, syy = 0.0, sxy = 0.0
        for m in l { let dx = m.p_W.x - mx, dy = m.p_W.y - my; sxx += dx * dx; syy += dy * dy; sxy += dx * dy }
        // The smaller eigenvalue of the 2×2 scatter: the mean squared distance to the best line.
        let tr = (sxx + syy) / n, det = (sxx * syy - sxy * sxy) / (n * n)
        let minor = max(0, tr / 2 - (tr * tr / 4 - det).squareRoot())
        let sigma = l.map(\.std_m).sorted()[l.count / 2]
        return minor.squareRoot() <= 1.5 * sigma
    }

    /// A landmark's inlier gate: 2.5 of its own σ (at least `minBand_m`), never wider than the common `band`, so
    /// precise landmarks of nearby structures (edges, a wall behind a table) are not taken as inliers.
    func gate<L: PlaneSupport>(_ l: L, _ band: Double) -> Double {
        min(band, max(options.minBand_m, 2.5 * l.std_m))
    }

    /// Index of the first element of the ascending array `a` that is ≥ `x`.
    func lowerBound(_ a: [Double], _ x: Double) -> Int {
        var lo = 0, hi = a.count
        while lo < hi { let mid = (lo + hi) / 2; if a[mid] < x { lo = mid + 1 } else { hi = mid } }
        return lo
    }

    /// A weighted least-squares plane `z = a·x + b·y + c` through the landmarks, as a function giving the plane's
    /// z at a point's x-y; `nil` when degenerate or tilted more than `maxTilt_deg`.
    /// `weights` multiply each landmark's 1/σ² (all 1 when nil).
    func tiltedFit<L: PlaneSupport>(_ l: [L], weights: [Double]? = nil) -> ((Vec3) -> Double)? {
        guard l.count >= 3 else { return nil }
        let mean = weightedMean(l, weights: weights)
        var ata = Mat3.zero, atb = Vec3.zero
        for (k, m) in l.enumerated() {
            let w = (weights?[k] ?? 1) / (m.std_m * m.std_m)
            let row = Vec3(m.p_W.x - mean.x, m.p_W.y - mean.y, 1)
            ata = ata + w * Mat3.outer(row, row)
            atb += (w * (m.p_W.z - mean.z)) * row
        }
        guard abs(ata.determinant) > 1e-12 * max(1, ata.maxAbs * ata.maxAbs * ata.maxAbs) else { return nil }
        let abc = ata.inverse * atb
        guard Vec2(abc.x, abc.y).norm <= tan(options.maxTilt_deg * Double.pi / 180) else { return nil }
        return { p in mean.z + abc.z + abc.x * (p.x - mean.x) + abc.y * (p.y - mean.y) }
    }

    /// True when the landmarks concentrate on their plane: the median of |residual| / gate is at most `bound`
    /// (`maxMedianGateResidual` when nil).
    func concentrated<L: PlaneSupport>(_ l: [L], band: Double, residual: (Vec3) -> Double, bound: Double? = nil) -> Bool {
        guard !l.isEmpty else { return false }
        return Self.median(l.map { abs(residual($0.p_W)) / gate($0, band) }) <= (bound ?? options.maxMedianGateResidual)
    }

    /// The 1/σ²-weighted mean position.
    /// `weights` multiply each landmark's 1/σ² (all 1 when nil; the plain weighted mean when they sum to nothing).
    func weightedMean<L: PlaneSupport>(_ l: [L], weights: [Double]? = nil) -> Vec3 {
        var s = Vec3.zero, w = 0.0
        for (k, m) in l.enumerated() { let wi = (weights?[k] ?? 1) / (m.std_m * m.std_m); s += wi * m.p_W; w += wi }
        guard w > 0 || weights == nil else { return weightedMean(l) }
        return s / w
    }

    /// Weighted mean of `value` over the landmarks and its standard error (scatter / √n, at least 1 mm).
    func offsetAndStd<L: PlaneSupport>(_ l: [L], _ value: (Vec3) -> Double) -> (Double, Double) {
        var s = 0.0, w = 0.0
        for m in l { let wi = 1 / (m.std_m * m.std_m); s += wi * value(m.p_W); w += wi }
        let mean = s / w
        var v = 0.0
        for m in l { let wi = 1 / (m.std_m * m.std_m); v += wi * pow(value(m.p_W) - mean, 2) }
        let scatter = (v / w).squareRoot()
        return (mean, max(0.001, scatter / Double(l.count).squareRoot()))
    }

    /// Smallest area of a floor whose patches `floorPatches` joins to it, m²: more than any top's (the renders'
    /// largest, a fountain's, is 2 × 2 m), so a level of tops without a floor under them is not taken for one.
    static let floorPatchMinFloorArea_m2 = 6.0

    /// Smallest kernel of the mean shift in `surfaceHeight`, metres.
    static let minModeKernel_m = 0.005

    /// The height of a horizontal surface from its landmarks, and its standard error (`offsetAndStd`'s): the mode
    /// of their heights rather than their mean. A top's inlier band also holds landmarks on one side of the surface
    /// only: its sides just below the rim (nothing lies above them, so they count as flat) and the rim's occlusion
    /// edge. On the V1_01 render, tracked stereo, the landmarks within 8 cm of a box or table top are spread
    /// ±1 cm about it with a tail down to −8 cm and none above 2 cm, and the weighted mean lies 0.5–1.5 cm low,
    /// which makes lengths measured on the top 1–2 % long from 0.5–1 m above it.
    ///
    /// Mean shift (weights 1/σᵢ² times a Gaussian kernel) on the heights about the members' tilt-tolerant fit
    /// `tilted` (so a floor seen slightly tilted does not widen the spread), from their median, with a kernel of
    /// their robust spread (1.4826 × the median absolute deviation, at least `minModeKernel_m`: 5 mm, about the
    /// scatter of well-triangulated landmarks on a surface); the surface is the tilted fit at the members' weighted
    /// centroid plus that mode, as a gravity-aligned plane.
    ///
    /// With `oneSidedHeight` the mode is then refined as a surface plus one adjacent face (``OneSidedHeightFit``), the
    /// tilt refitted on the landmarks the fit places on the surface (so a face's rows do not tilt the fit either) and
    /// the fit repeated once; the height is taken at the centroid of those landmarks. Returns the height, its standard
    /// error and the mode's height (what the concentration test measures the members' spread about).
    func surfaceHeight<L: PlaneSupport>(_ l: [L], tilted: ((Vec3) -> Double)?) -> (Double, Double, Double) {
        let (mean, std) = offsetAndStd(l) { $0.z }
        guard l.count >= 3 else { return (mean, std, mean) }
        let base = tilted ?? { _ in mean }
        let r0 = l.map { $0.p_W.z - base($0.p_W) }
        var mode = Self.median(r0)
        let kernel = max(Self.minModeKernel_m, 1.4826 * Self.median(r0.map { abs($0 - mode) }))
        for _ in 0..<30 {
            var s = 0.0, w = 0.0
            for (m, ri) in zip(l, r0) {
                let u = (ri - mode) / kernel
                let wi = exp(-0.5 * u * u) / (m.std_m * m.std_m)
                s += wi * ri; w += wi
            }
            guard w > 0 else { break }
            let next = s / w, converged = abs(next - mode) < 1e-5
            mode = next
            if converged { break }
        }
        let modeHeight = base(weightedMean(l)) + mode
        guard options.oneSidedHeight else { return (modeHeight, std, modeHeight) }
        // The side the adjacent face lies on, where the members tell it: a top's rim and the highest rows of its faces
        // have landmarks straight below them (the faces' lower rows), a floor's edge and a wall's foot straight above.
        let below = l.count { $0.sides.below && !$0.sides.above }, above = l.count { $0.sides.above && !$0.sides.below }
        let sides: [OneSidedHeightFit.Side] = below >= max(3, 2 * above) ? [.below]
            : above >= max(3, 2 * below) ? [.above] : [.below, .above]
        let fitter = OneSidedHeightFit(sides: sides)
        guard var fit = fitter.fit(r0, start: mode, scatter: kernel) else {
            return (modeHeight, std, modeHeight)
        }
        var surface = base
        // The members' tilted fit leans towards a face's rows when they are many; the fit about a level plane
        // through their mean is tried too, and the likelier kept.
        var r = r0
        if tilted != nil {
            let flat = l.map { $0.p_W.z - mean }
            if let level = fitter.fit(flat, start: modeHeight - mean, scatter: kernel),
               level.logLikelihood > fit.logLikelihood {
                fit = level; r = flat; surface = { _ in mean }
            }
        }
        // The tilt refitted on the landmarks the fit places on the surface, and the fit repeated about it when that
        // explains the heights better.
        var weights = r.map { fit.surfaceResponsibility($0) }
        if let refit = tiltedFit(l, weights: weights) {
            let r2 = l.map { $0.p_W.z - refit($0.p_W) }
            if let next = fitter.fit(r2, start: fit.height, scatter: kernel),
               next.logLikelihood >= fit.logLikelihood {
                fit = next; surface = refit; weights = r2.map { next.surfaceResponsibility($0) }
            }
        }
        return (surface(weightedMean(l, weights: weights)) + fit.height, std, modeHeight)
    }

    /// Removes landmarks that have no neighbour within 2 × the component's mean spacing (√(hull area / n),
    /// at least 10 cm) in a 2-D projection: stray points (outliers, a wall's slice) that joined a component
    /// through the coarse grid would otherwise stretch its boundary.
    func dropIsolated<L: PlaneSupport>(_ l: [L], project: (Vec3) -> Vec2) -> [L] {
        guard l.count >= 3 else { return l }
        let q = l.map { project($0.p_W) }
        let spacing = (PlaneGeometry2D.area(PlaneGeometry2D.convexHull(q)) / Double(l.count)).squareRoot()
        // For uniformly scattered points P(nearest neighbour > 2 × spacing) = e^(−4π) ≈ 4e-6.
        let r = max(0.1, 2 * spacing)
        let (near, _) = Self.neighbours(q, within: r)
        return l.indices.filter { near[$0] }.map { l[$0] }
    }

    /// For each of the points `q` (metres, any 2-D frame), whether another lies within `r` (metres; `norm ≤ r`), found
    /// on a grid of cells of `r`, and how many have one. The search ends once `stopAt` points have one (the flags
    /// after that are false). Coordinates must be finite and within 1e15 `r` of the origin.
    static func neighbours(_ q: [Vec2], within r: Double, stopAt: Int = .max) -> (near: [Bool], count: Int) {
        func key(_ p: Vec2) -> SIMD2<Int> { SIMD2<Int>(Int((p.x / r).rounded(.down)), Int((p.y / r).rounded(.down))) }
        let keys = q.map(key)
        let grid = CellIndex(keys)
        var near = [Bool](repeating: false, count: q.count), count = 0
        search: for (i, p) in q.enumerated() {
            let k = keys[i]
            for dx in -1...1 { for dy in -1...1 {
                for slot in grid.span(in: SIMD2<Int>(k.x + dx, k.y + dy)) {
                    let j = grid.item(at: slot)
                    if j != i && (q[j] - p).norm <= r {
                        near[i] = true
                        count += 1
                        if count >= stopAt { break search }
                        continue search
                    }
                }
            } }
        }
        return (near, count)
    }

    /// Groups landmarks into 8-connected components of occupied grid cells in a 2-D projection.
    /// Returns the original `indices` of each component, largest first.
    func components<L: PlaneSupport>(_ l: [L], indices: [Int], adaptive: Bool, cell fixedCell: Double? = nil,
                    project: (Vec3) -> Vec2) -> [[Int]] {
        let q2 = l.map { project($0.p_W) }
        // Sparse maps (early in a session) get a coarser grid: about 1.5 × the mean landmark spacing, so a
        // plane seen with few landmarks is not shattered; dense maps use `componentCell_m`.
        var lo = Vec2(Double.infinity, .infinity), hi = -lo
        for q in q2 { lo = Vec2(min(lo.x, q.x), min(lo.y, q.y)); hi = Vec2(max(hi.x, q.x), max(hi.y, q.y)) }
        let spacing = q2.isEmpty ? 0 : (max(0, (hi.x - lo.x) * (hi.y - lo.y)) / Double(q2.count)).squareRoot()
        let cell = fixedCell
            ?? (adaptive ? min(max(options.componentCell_m, 1.5 * spacing), options.maxComponentCell_m) : options.componentCell_m)
        let grid = CellIndex(q2.map { SIMD2<Int>(Int(($0.x / cell).rounded(.down)), Int(($0.y / cell).rounded(.down))) })
        var seen = [Bool](repeating: false, count: grid.cells.count)
        var out: [[Int]] = []
        // Occupied cells in ascending (x, y), each flooded to its 8-connected component.
        for start in grid.cells.indices where !seen[start] {
            var stack = [start]; seen[start] = true
            var comp: [Int] = []
            while let c = stack.popLast() {
                for slot in grid.span(ofCell: c) { comp.append(indices[grid.item(at: slot)]) }
                let cc = grid.cells[c]
                for dx in -1...1 { for dy in -1...1 {
                    if let n = grid.cellIndex(SIMD2<Int>(cc.x + dx, cc.y + dy)), !seen[n] { seen[n] = true; stack.append(n) }
                } }
            }
            out.append(comp.sorted())
        }
        return out.sorted { ($0.count, -($0.first ?? 0)) > ($1.count, -($1.first ?? 0)) }
    }

    /// A horizontal component split where it joins surfaces at different heights. The adaptive grid's cell comes from
    /// the level's bounding box (its area over its count), which is the room's size when a level holds a few small
    /// tops spread across it, and a level's band admits landmarks of a lower top whose σ widens their gate: on the
    /// 30 s V1_01 render box B's top and box C's, 14 cm lower and 1.5 m away, made one plane whose polygon covered
    /// box C. The component's pieces on a grid of the landmarks' own spacing (3 × their median nearest-neighbour
    /// distance, `componentCell_m` to `maxComponentCell_m`) are regrouped by height: taken in order of height, a
    /// piece joins the group below when their weighted mean heights differ by at most 3 combined standard errors
    /// (each the pieces' median landmark σ / √n), at least `minBand_m`. One surface's pieces stay one component.
    /// Pieces whose height is too uncertain to resolve two levels (3 standard errors above `minPeakSeparation_m`:
    /// one or two loose landmarks) join a group of pieces that resolve it only within `maxComponentCell_m` of it;
    /// the others are grouped among themselves.
    func splitByHeight<L: PlaneSupport>(_ comp: [Int], _ pts: [L]) -> [[Int]] {
        let members = comp.map { pts[$0] }
        let q = members.map { Vec2($0.p_W.x, $0.p_W.y) }
        let cell = Self.spacingCell(q, lo: options.componentCell_m, hi: options.maxComponentCell_m)
        let pieces = components(members, indices: comp, adaptive: true, cell: cell) { Vec2($0.x, $0.y) }
        guard pieces.count > 1 else { return [comp] }
        typealias Group = HeightGroup
        let stats = pieces.map { piece -> Group in
            let l = piece.map { pts[$0] }
            let h = weightedMean(l).z
            let se2 = pow(Self.median(l.map(\.std_m)), 2) / Double(l.count)
            return Group(indices: piece, height: h, weight: Double(l.count), variance: se2)
        }.sorted { $0.height < $1.height }
        // A piece too small to tell this level from the next one (its height known no better than
        // ±`minPeakSeparation_m` / 3: one or two loose landmarks) agrees in height with anything, so its height is
        // no evidence that it lies on the surface of a well-measured piece far away. The level's tilt-tolerant band
        // admits stray landmarks metres away (3° is 10 cm over 2 m), and pairs of them at the right height, joined
        // to box C's top 1.4–1.7 m away, stretched its polygon over 2.6 m² of floor (30 s V1_01 render, mono). So
        // the pieces that resolve heights are grouped first; a small piece joins such a group (the nearest in
        // height) only within `maxComponentCell_m` of it (a sparse top's rim: the gap the coarse grid is meant to
        // bridge); the other small pieces are grouped among themselves, as before, and a group of them must reach
        // `minPoints` on its own to be a plane.
        func agree(_ a: Group, _ b: Group) -> Bool {
            abs(a.height - b.height) <= max(options.minBand_m, 3 * (a.variance + b.variance).squareRoot())
        }
        func grouped(_ pieces: [Group]) -> [Group] {
            var groups: [Group] = []
            for g in pieces {
                if var last = groups.last, agree(g, last) {
                    let w = last.weight + g.weight
                    last.height = (last.weight * last.height + g.weight * g.height) / w
                    last.variance = 1 / (1 / last.variance + 1 / g.variance)
                    last.weight = w
                    last.indices += g.indices
                    groups[groups.count - 1] = last
                } else {
                    groups.append(g)
                }
            }
            return groups
        }
        func resolves(_ g: Group) -> Bool { 3 * g.variance.squareRoot() <= options.minPeakSeparation_m }
        var groups = grouped(stats.filter(resolves))
        let resolved = groups
        let reach = options.maxComponentCell_m, reach2 = reach * reach
        // Each well-measured group's landmarks on a grid of `reach`: a small piece's neighbours within reach lie in
        // the 3 × 3 cells around it (the floor's group holds thousands of landmarks).
        func reachCell(_ p: Vec3) -> SIMD2<Int> { SIMD2<Int>(Int((p.x / reach).rounded(.down)), Int((p.y / reach).rounded(.down))) }
        let grids = resolved.map { g in CellIndex(g.indices.map { reachCell(pts[$0].p_W) }) }
        func within(_ i: Int, _ k: Int) -> Bool {
            let c = reachCell(pts[i].p_W)
            for dx in -1...1 { for dy in -1...1 {
                for position in grids[k].span(in: SIMD2<Int>(c.x + dx, c.y + dy)) {
                    let d = pts[i].p_W - pts[resolved[k].indices[grids[k].item(at: position)]].p_W
                    if d.x * d.x + d.y * d.y <= reach2 { return true }
                }
            } }
            return false
        }
        var unattached: [Group] = []
        for g in stats where !resolves(g) {
            let near = resolved.indices.filter { k in agree(g, resolved[k]) && g.indices.contains { within($0, k) } }
            if let k = near.min(by: { abs(resolved[$0].height - g.height) < abs(resolved[$1].height - g.height) }) {
                groups[k].indices += g.indices
            } else {
                unattached.append(g)
            }
        }
        groups += grouped(unattached)
        return groups.map { $0.indices.sorted() }.sorted { ($0.count, -($0.first ?? 0)) > ($1.count, -($1.first ?? 0)) }
    }

    /// `min(max(lo, 3 × medianNearestNeighbour(q)), hi)`, metres, settled without the median when ⌊n / 2⌋ + 1 of the
    /// n points have a neighbour within a third of `lo` (a dense surface, the usual case): the median is then at most
    /// that, and the value `min(lo, hi)`. The same value either way.
    static func spacingCell(_ q: [Vec2], lo: Double, hi: Double) -> Double {
        let t = lo / 3 * (1 - 1e-9)
        if q.count >= 2, t > 0 {
            // Counted until the upper middle order statistic is reached: s[n / 2] ≤ t, so the median is too.
            let needed = q.count / 2 + 1
            if q.allSatisfy({ $0.x.isFinite && $0.y.isFinite && abs($0.x / t) < 1e15 && abs($0.y / t) < 1e15 }) {
                let near = neighbours(q, within: t, stopAt: needed).count
                if near >= needed { return min(lo, hi) }
            }
        }
        return min(max(lo, 3 * medianNearestNeighbour(q)), hi)
    }

    /// The median distance from each point to its nearest neighbour, metres (0 for fewer than two points; at most
    /// 4 × the bounding-box spacing √(area / n), which bounds the search).
    static func medianNearestNeighbour(_ q: [Vec2]) -> Double {
        guard q.count >= 2 else { return 0 }
        var lo = Vec2(Double.infinity, .infinity), hi = -lo
        for p in q { lo = Vec2(min(lo.x, p.x), min(lo.y, p.y)); hi = Vec2(max(hi.x, p.x), max(hi.y, p.y)) }
        let spacing = (max(0, (hi.x - lo.x) * (hi.y - lo.y)) / Double(q.count)).squareRoot()
        let r = max(1e-3, spacing)
        // Cells of half the spacing: landmarks clump (texture), so most nearest neighbours are much nearer than the
        // spacing, and smaller cells hold fewer landmarks to measure (the same neighbours are found either way).
        let cell = r / 2
        func key(_ p: Vec2) -> SIMD2<Int> { SIMD2<Int>(Int(((p.x - lo.x) / cell).rounded(.down)), Int(((p.y - lo.y) / cell).rounded(.down))) }
        let keys = q.map(key)
        let grid = CellIndex(keys)
        var nn: [Double] = []
        nn.reserveCapacity(q.count)
        for (i, p) in q.enumerated() {
            let k = keys[i]
            // The nearest squared distance so far: its root is the nearest distance (the root is monotonic).
            var nearest2 = Double.infinity
            func visit(_ dx: Int, _ dy: Int) {
                for slot in grid.span(in: SIMD2<Int>(k.x + dx, k.y + dy)) {
                    let j = grid.item(at: slot)
                    if j != i { let d = q[j] - p; nearest2 = min(nearest2, (d * d).sum()) }
                }
            }
            // Rings of cells out to 8 (4 r), each cell of a ring once: a neighbour in ring k is at least (k − 1)·cell
            // away.
            for ring in 0...8 {
                if Double(ring - 1) * cell >= min(4 * r, nearest2.squareRoot()) { break }
                if ring == 0 { visit(0, 0); continue }
                for dx in -ring...ring { visit(dx, -ring); visit(dx, ring) }
                for dy in (1 - ring)..<ring { visit(-ring, dy); visit(ring, dy) }
            }
            nn.append(min(4 * r, nearest2.squareRoot()))
        }
        return median(nn)
    }

    // MARK: Vertical

    func detectVertical<L: PlaneSupport>(_ pts: [L], band: Double) -> [PlaneCandidate] {
        var remaining = pts
        var out: [PlaneCandidate] = []
        var rng = SeededRandom(seed: 0x5EED)
        for _ in 0..<6 {
            guard remaining.count >= options.minPoints else { break }
            // RANSAC on lines in x-y: a wall is a line of landmarks seen from above.
            let xy = remaining.map { Vec2($0.p_W.x, $0.p_W.y) }
            // Score hypotheses on at most ~800 points (evenly strided) to bound the cost.
            let stride = max(1, xy.count / 800)
            let sample = Swift.stride(from: 0, to: xy.count, by: stride).map { xy[$0] }
            var best: (score: Int, n: Vec2, c: Double) = (0, Vec2(1, 0), 0)
            for _ in 0..<120 {
                let a = xy[Int(rng.next() % UInt64(xy.count))], b = xy[Int(rng.next() % UInt64(xy.count))]
                let d = b - a
                guard d.norm > 0.2 else { continue }
                let n = Vec2(-d.y, d.x) / d.norm
                let c = n.dot(a)
                // Counting stops once the points left cannot lift this line's score above the best one's.
                var score = 0
                for (k, p) in sample.enumerated() {
                    if score + (sample.count - k) <= best.score { break }
                    if abs(n.dot(p) - c) <= band { score += 1 }
                }
                if score > best.score { best = (score, n, c) }
            }
            var n2 = best.n, c = best.c
            var inliers = xy.indices.filter { abs(n2.dot(xy[$0]) - c) <= gate(remaining[$0], band) }
            guard best.score > 0, inliers.count >= options.minPoints else { break }
            // Least-squares refinement: the normal is the minor principal direction of the inliers in x-y.
            for _ in 0..<3 {
                guard let line = Self.principalLine(inliers.map { xy[$0] }) else { break }
                n2 = line.normal; c = line.offset
                let next = xy.indices.filter { abs(n2.dot(xy[$0]) - c) <= gate(remaining[$0], band) }
                if next.count < options.minPoints { break }
                inliers = next
            }
            let n = Vec3(n2.x, n2.y, 0)
            let inv = PlaneAnchor.frameRotation(normal: n).inverse
            let comps = components(inliers.map { remaining[$0] }, indices: inliers, adaptive: true) { p in
                let q = inv.act(p); return Vec2(q.x, q.y)
            }
            // The landmarks of the faces accepted so far on this line (by index into `remaining`).
            var accepted = [Bool](repeating: false, count: remaining.count)
            for comp in comps where comp.count >= options.minPoints {
                // Each piece is refitted on its own: a line through several objects (a box side, a cabinet's
                // corner) is pulled onto the face the piece mostly lies on, gathering that face's landmarks
                // within the piece's span along the wall.
                guard let face = refitFace(comp, xy: xy, landmarks: remaining, taken: accepted, band: band) else { continue }
                let faceInv = PlaneAnchor.frameRotation(normal: face.normal).inverse
                func inPlane(_ p: Vec3) -> Vec2 { let q = faceInv.act(p); return Vec2(q.x, q.y) }
                let m = dropIsolated(face.members.map { remaining[$0] }, project: inPlane)
                guard m.count >= options.minPoints else { continue }
                let zs = m.map { $0.p_W.z }
                guard (zs.max() ?? 0) - (zs.min() ?? 0) >= options.minWallHeight_m else { continue }
                let rect = PlaneGeometry2D.minimumAreaRectangle(PlaneGeometry2D.convexHull(m.map { inPlane($0.p_W) }))
                guard min(rect.width, rect.length) >= options.minSide_m else { continue }
                let (off, sd) = offsetAndStd(m) { face.normal.dot($0) }
                guard concentrated(m, band: band, residual: { face.normal.dot($0) - off }) else { continue }
                // A face must have a direction of its own: a blob of landmarks (a table leg's) gives any.
                guard Self.lineDirectionStd(m.map { Vec2($0.p_W.x, $0.p_W.y) }, direction: Vec2(-face.normal.y, face.normal.x),
                                            sigmas: m.map(\.std_m)) <= options.maxFaceDirectionStd_deg * .pi / 180 else { continue }
                out.append(PlaneCandidate(alignment: .vertical, normal_W: face.normal, offset_m: off, offsetStd_m: sd,
                                          points: m.map(\.p_W), band_m: band, landmarkIds: m.map(\.id)))
                for i in face.members { accepted[i] = true }
            }
            var drop = accepted
            for i in inliers { drop[i] = true }
            remaining = remaining.indices.filter { !drop[$0] }.map { remaining[$0] }
        }
        return out
    }

    /// The vertical face a piece of a RANSAC line lies on: up to four rounds of a principal-axis fit to the
    /// members, then re-gathering the landmarks within their gate of that line and within the members' span
    /// along it (± 30 cm), leaving out those `taken` (one flag per landmark: on a face accepted before). `nil` when
    /// it keeps fewer than `minPoints`.
    func refitFace<L: PlaneSupport>(_ start: [Int], xy: [Vec2], landmarks: [L], taken: [Bool],
                   band: Double) -> (normal: Vec3, members: [Int])? {
        precondition(taken.count == xy.count, "refitFace: one taken flag per landmark")
        var members = start
        var normal = Vec2(1, 0)
        for round in 0..<3 {
            // Two objects joined by the piece (checked on the piece as given, before the refit's gathering pulls the
            // larger one's landmarks onto the joint line, and again after it): go on with the larger one alone,
            // which must then hold a face by itself.
            var split = false
            if options.splitFacesAtGaps, let line = Self.principalLine(members.map { xy[$0] }),
               let larger = piecesOnTwoLines(members, normal: line.normal, xy: xy, landmarks: landmarks, band: band) {
                guard larger.count >= options.minPoints else { return nil }
                members = larger
                split = true
            }
            if round > 0 && !split { break }
            for _ in 0..<4 {
                guard let line = Self.principalLine(members.map { xy[$0] }) else { return nil }
                normal = line.normal
                let along = Vec2(-normal.y, normal.x)
                let ts = members.map { along.dot(xy[$0]) }
                let lo = (ts.min() ?? 0) - 0.3, hi = (ts.max() ?? 0) + 0.3
                let next = xy.indices.filter { i in
                    !taken[i] && abs(normal.dot(xy[i]) - line.offset) <= gate(landmarks[i], band)
                        && (lo...hi).contains(along.dot(xy[i]))
                }
                guard next.count >= options.minPoints else { return nil }
                if next == members { break }
                members = next
            }
        }
        return (Vec3(normal.x, normal.y, 0), members)
    }

    /// The larger piece of a face's `members` when they are two objects on one line: sorted along the face's line
    /// (`normal` in x-y), they split at their widest gap; when that gap is wider than `componentCell_m` (a dense
    /// map's grid would have cut there), the larger piece's own line is fitted, and fewer than half of the smaller
    /// piece's landmarks lie within their gate of it, widened by that line's direction error carried to the landmark
    /// (2.5 × distance along the line from the piece's centre × σ_θ, σ_θ = the piece's median landmark σ / (its RMS
    /// extent along the line × √n)). One wall on both sides of a gap (a doorway) agrees with itself; a wall and a
    /// table's leg a metre in front of it do not. `nil` when the members are one face.
    func piecesOnTwoLines<L: PlaneSupport>(_ members: [Int], normal: Vec2, xy: [Vec2], landmarks: [L], band: Double) -> [Int]? {
        guard members.count >= 2 else { return nil }
        let along = Vec2(-normal.y, normal.x)
        let order = radixOrder(members.map { along.dot(xy[$0]) }).map { members[$0] }
        var cut = 0, widest = 0.0
        for k in 1..<order.count {
            let gap = along.dot(xy[order[k]]) - along.dot(xy[order[k - 1]])
            if gap > widest { widest = gap; cut = k }
        }
        guard widest > options.componentCell_m else { return nil }
        let first = Array(order[..<cut]), second = Array(order[cut...])
        let (larger, smaller) = first.count >= second.count ? (first, second) : (second, first)
        let q = larger.map { xy[$0] }
        guard larger.count >= 3, let line = Self.principalLine(q) else { return nil }
        let direction = Vec2(-line.normal.y, line.normal.x)
        let centre = q.reduce(Vec2.zero, +) / Double(q.count)
        let sigmaTheta = Self.lineDirectionStd(q, direction: direction, sigmas: larger.map { landmarks[$0].std_m })
        let agreeing = smaller.filter { i in
            let carried = 2.5 * abs(direction.dot(xy[i] - centre)) * sigmaTheta
            let g = gate(landmarks[i], band)
            return abs(line.normal.dot(xy[i]) - line.offset) <= (g * g + carried * carried).squareRoot()
        }.count
        return 2 * agreeing < smaller.count ? larger : nil
    }

    /// The direction error (1 σ, radians) of a line fitted through `q` (x-y, metres) along `direction`: the points'
    /// median σ over (their RMS distance from their centre along the line × √n). A blob has no direction of its own;
    /// a metre of wall has one within a few degrees.
    static func lineDirectionStd(_ q: [Vec2], direction: Vec2, sigmas: [Double]) -> Double {
        guard !q.isEmpty else { return .infinity }
        let centre = q.reduce(Vec2.zero, +) / Double(q.count)
        let extent = (q.reduce(0) { $0 + pow(direction.dot($1 - centre), 2) } / Double(q.count)).squareRoot()
        return median(sigmas) / (max(extent, 1e-3) * Double(q.count).squareRoot())
    }

    /// The total-least-squares line through 2-D points: unit normal and offset (`normal · p = offset`); `nil` for
    /// fewer than two points.
    static func principalLine(_ q: [Vec2]) -> (normal: Vec2, offset: Double)? {
        guard q.count >= 2 else { return nil }
        let mean = q.reduce(Vec2.zero, +) / Double(q.count)
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        for p in q { let d = p - mean; sxx += d.x * d.x; sxy += d.x * d.y; syy += d.y * d.y }
        let theta = 0.5 * atan2(2 * sxy, sxx - syy) // major axis angle
        let n = Vec2(-sin(theta), cos(theta))
        return (n, n.dot(mean))
    }
}

/// Pieces of a horizontal component grouped by height (`PlaneDetector.splitByHeight`): their landmarks (indices),
/// weighted mean height (metres), weight (landmarks) and the variance of that height (m²).
struct HeightGroup { var indices: [Int]; var height: Double; var weight: Double; var variance: Double }

/// What the plane detector reads of a landmark: its id, its position in W (metres) and its σ (metres).
protocol PlaneSupport {
    var id: Int { get }
    var p_W: Vec3 { get }
    var std_m: Double { get }
    /// Whether other landmarks lie straight above and below it, where known (none when not looked for).
    var sides: StructureSides { get }
}

extension PlaneSupport {
    var sides: StructureSides { StructureSides() }
}

extension MapLandmark: PlaneSupport {}

/// A landmark as the detector carries it through a pass: what it reads (``PlaneSupport``: id, position, σ, and whether
/// landmarks lie straight above and below it) in a few dozen bytes, where a map landmark is 144. A pass copies its landmarks many times (subsets, components, refits); copying map landmarks was
/// a tenth of its instructions.
struct DetectorPoint: PlaneSupport {
    var id: Int
    var p_W: Vec3
    var std_m: Double
    /// Whether other landmarks lie straight above and below it (set by the detection when it looks).
    var sides = StructureSides()
    init(_ l: MapLandmark) { id = l.id; p_W = l.p_W; std_m = l.std_m }
}

/// The landmarks that can witness a see-through (``SeeThroughTest``: those with a viewpoint), in the map's order, as
/// contiguous arrays of what the test reads (positions and viewpoints in W, metres; σ, metres). Every candidate of a
/// detection is tested against the whole map: reading these (72 bytes a landmark) instead of copying each landmark's
/// record was 15 % of a detection's instructions.
struct SeeThroughWitnesses {
    private(set) var p_W: [Vec3] = [], viewpoint_W: [Vec3] = [], std_m: [Double] = []

    init(_ landmarks: [MapLandmark]) {
        p_W.reserveCapacity(landmarks.count); viewpoint_W.reserveCapacity(landmarks.count); std_m.reserveCapacity(landmarks.count)
        for l in landmarks {
            guard let c = l.viewpoint_W else { continue }
            p_W.append(l.p_W); viewpoint_W.append(c); std_m.append(l.std_m)
        }
    }
}

/// Finds landmarks inside vertical structure: a grid over x-y with cells of `radius`, each cell's landmarks sorted by
/// height, so a query reads only the landmarks in its two height windows (a densely mapped wall puts a hundred
/// landmarks of every height into one cell).
struct VerticalNeighbours {
    let radius: Double, maxDz: Double
    private let grid: CellIndex
    /// The landmarks (W, metres) in the grid's item order, each cell's run sorted by height (ties in the order given).
    private let byHeight: [Vec3]
    /// The index (as given) of the landmark at each position of `byHeight`.
    private let given: [Int]

    /// `heightOrder`: the landmarks' indices in order of height (ties in index order), when known.
    init<L: PlaneSupport>(_ l: [L], radius: Double, maxDz: Double, heightOrder: [Int]? = nil) {
        self.radius = radius; self.maxDz = maxDz
        // Given to the grid in order of height (ties in the order given), each cell's run comes out sorted.
        let points = l.map(\.p_W)
        let order = heightOrder ?? radixOrder(points.map { $0.z })
        let grid = CellIndex(order.map { Self.key(points[$0], radius) })
        self.grid = grid
        // The cells' runs follow one another in the item order.
        given = (0..<points.count).map { order[grid.item(at: $0)] }
        byHeight = given.map { points[$0] }
    }

    /// For each landmark given (by its index), whether it is inside vertical structure
    /// (`isInsideVerticalStructure(_:minDz:)` with `minDz(index)`): asked cell by cell, so the landmarks of one
    /// neighbourhood are read while they are in cache instead of once per landmark in the order given.
    func insideVerticalStructure(minDz: (Int) -> Double) -> [Bool] {
        var inside = [Bool](repeating: false, count: given.count)
        for (position, i) in given.enumerated() { inside[i] = isInsideVerticalStructure(byHeight[position], minDz: minDz(i)) }
        return inside
    }

    /// For each landmark given (by its index), whether other landmarks lie straight above it and straight below it
    /// (`neighbourSides(_:minDz:)` with `minDz(index)`), asked cell by cell as `insideVerticalStructure` is.
    func structureSides(minDz: (Int) -> Double) -> [StructureSides] {
        var sides = [StructureSides](repeating: StructureSides(), count: given.count)
        for (position, i) in given.enumerated() { sides[i] = neighbourSides(byHeight[position], minDz: minDz(i)) }
        return sides
    }

    static func key(_ p: Vec3, _ radius: Double) -> SIMD2<Int> {
        SIMD2<Int>(Int((p.x / radius).rounded(.down)), Int((p.y / radius).rounded(.down)))
    }

    /// True when other landmarks lie within `radius` horizontally both above and below `p`, between `minDz` and
    /// `maxDz` away vertically: `p` is inside a wall or a box side, not on a top surface's edge (landmarks below
    /// only) or on the floor at a wall's foot (landmarks above only).
    func isInsideVerticalStructure(_ p: Vec3, minDz: Double) -> Bool {
        neighbourSides(p, minDz: minDz, stopWhenInside: true).inside
    }

    /// Whether other landmarks lie within `radius` horizontally above `p` and below it, between `minDz` and `maxDz`
    /// away vertically. `stopWhenInside`: stop searching once both are found.
    func neighbourSides(_ p: Vec3, minDz: Double, stopWhenInside: Bool = false) -> StructureSides {
        let k = Self.key(p, radius)
        // The height windows are searched 1 nm wider than the test, which is then applied exactly as written.
        let slack = 1e-9
        var above = false, below = false
        return byHeight.withUnsafeBufferPointer { pts -> StructureSides in
            func lowerBound(_ span: Range<Int>, _ z: Double) -> Int {
                var lo = span.lowerBound, hi = span.upperBound
                while lo < hi { let mid = (lo + hi) >> 1; if pts[mid].z < z { lo = mid + 1 } else { hi = mid } }
                return lo
            }
            func found(_ span: Range<Int>, from zLo: Double, to zHi: Double) -> Bool {
                var j = lowerBound(span, zLo)
                while j < span.upperBound && pts[j].z <= zHi {
                    let q = pts[j]
                    let dz = q.z - p.z
                    if abs(dz) >= minDz && abs(dz) <= maxDz && Vec2(q.x - p.x, q.y - p.y).norm <= radius { return true }
                    j += 1
                }
                return false
            }
            for dx in -1...1 { for dy in -1...1 {
                let span = grid.span(in: SIMD2<Int>(k.x + dx, k.y + dy))
                if span.isEmpty { continue }
                if !above { above = found(span, from: p.z + minDz - slack, to: p.z + maxDz + slack) }
                if !below { below = found(span, from: p.z - maxDz - slack, to: p.z - minDz + slack) }
                if above && below { return StructureSides(above: true, below: true) }
            } }
            return StructureSides(above: above, below: below)
        }
    }
}

/// Whether a landmark has others straight above it and straight below it (``VerticalNeighbours``): with both it lies
/// inside vertical structure; with one only, on a surface's edge or a face's end (a top's rim, a face's highest row
/// under a rim: landmarks below; the floor at a wall's foot: landmarks above).
struct StructureSides: Equatable {
    var above = false, below = false
    var inside: Bool { above && below }
}
