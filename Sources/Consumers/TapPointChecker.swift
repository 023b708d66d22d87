import Foundation
import Geometry
import Imaging
import Sensors
import World

/// Whether a raycast hit can be measured from, and how well its surface is known.
public enum TapPointVerdict: Equatable {
    /// The landmarks along the ray agree with the hit (or are too few to say otherwise); the surface is known to
    /// this 1-σ along its normal, metres; `onEdge` when it lies on the rim of its surface (a farther surface within
    /// `TapPointChecker.edgeRadius_px` of it), where the tap's pixel error is `edgeRadius_px` rather than a pixel.
    case confirmed(surfaceStd_m: Double, onEdge: Bool)
    /// The point cannot be measured; the reason says why.
    case failed(String)
}

/// Where the images alone place a tapped pixel (`TapPointChecker.imagePlacement`).
public enum ImagePlacement: Equatable {
    /// At this distance along the pixel's unit ray, metres, with this 1-σ along the ray, metres; `score` is the
    /// match's normalised cross-correlation.
    case placed(distance_m: Double, std_m: Double, score: Double)
    /// The images cannot place it; the reason says why.
    case failure(String)
}

/// Checks a tapped point's raycast hit against the landmark map (and, where a second view is at hand, the images) before a
/// length is measured from it.
///
/// A raycast answers with a plane even where that plane is not: an extension of the floor under a table, a table
/// top's polygon reaching past its edge, a plane met at a grazing angle. A wrong surface makes a length several
/// times off with a small σ, which is worse than a refusal, so each tapped point must pass:
/// 1. **incidence**: the ray meets the surface at most `maxIncidence_deg` from head-on; **edges**: the rays
///    `edgeRadius_px` around the tap meet surfaces at depths the hit's surface allows;
/// 1a. **far extensions**: a hit on the infinite extension of a plane other than the floor lies at most
///    `maxExtensionOffFloor_m` outside that plane's mapped polygon: the floor runs on under everything, but a top or
///    a face ends, and its level or line met farther from where it was seen is another object's by coincidence;
/// 1b. **rims**: the ray must not cross the level of another horizontal plane in front of the hit inside its
///    boundary, or after passing over it just beyond its boundary (`rimMargin_m`; `extensionRimMargin_m` when the
///    hit is on the infinite extension of a plane other than the floor; at least `rimSpacingFactor` spacings of the
///    top's landmarks): a top's polygon is the hull of its landmarks and stops short of its edges, so a tap at a
///    top's far corner can miss the polygon and meet the wall or floor behind (box A's corner measured 1.49 m for
///    0.30 m on the V1_01 render, stereo) or another top's extension;
/// 1c. **top rims from above**: a hit on a vertical plane's extension above its mapped top edge, on a ray coming
///    down from above that edge, fails (`overTopRim`): the ray passed over a face's rim towards the top behind it;
///    so does one near that edge on a ray coming down too shallowly for a top behind the rim to be measured, or
///    from a camera at the edge's level (the top seen edge-on);
/// 1d. **hidden feet**: a hit on a vertical plane's extension at or under the lower edge of its mapped part, where
///    that edge stands clear of the floor, on a ray coming down too shallowly to measure a top at that edge's level,
///    fails (`atHiddenFoot`): what hides the face under that edge from the views that mapped it may be such a top;
/// 2. **depth agreement**: of the landmarks within `rayRadius_px` of the ray (those whose 3 σ is within
///    `alongRayMaxRelativeStd` of the hit's depth: a vaguer one says nothing), at least one lies at the hit's depth
///    (within its own 3 σ, the hit surface's σ, and what an oblique surface spans over the landmark's own angle from
///    the ray: `agreementBearingMargin_px`), when there are at least `minLandmarks` of them, unless the hit's plane
///    has landmarks of its own around the hit; and no more than `maxOccluders` lie in front of it (by more than the
///    cone's whole span, or, within `ownAngleOccluderRadius_px` of the ray, by more than their own window) — else
///    the hit is on the wrong surface (behind mapped structure, or on a polygon that reaches too far) or on a depth
///    edge; a hit in the margin outside its polygon needs one at its depth even with its
///    plane's landmarks around it (the ray can pass beside the mapped edge);
/// 2b. **silhouettes**: no landmark that no plane holds, and that is not on the hit's own surface, lies within
///    `silhouetteRadius_px` of the tap well in front of the hit (`silhouetteDepthRatio`): the ray may pass the
///    silhouette of a face the map holds by a point or two;
/// 2c. **the nearest structure**: a hit that nothing along the ray confirms fails when the `nearestNeighbours`
///    landmarks nearest the tap that can say anything (within `silhouetteRadius_px`) all lie clearly in front of it:
///    the tap may be on that structure (a box top that no plane holds yet, with the floor behind it);
/// 3. **support**: a hit on a plane's infinite extension, or on an estimated plane, needs a landmark along the ray at
///    its depth (it is a guess through unmapped space otherwise: a wall's extension in front of a cabinet, the floor's
///    under a table, a plane fitted to landmarks several degrees beside the ray); for an estimated plane with fewer
///    than `minLandmarks` points along the ray, one of them at the hit's depth itself, not merely inside the depth
///    window an oblique surface opens (too few points to check the fitted plane's slant otherwise); and a hit on the
///    extension of a plane other than the floor fails when the most precise landmark near the ray lies clearly behind
///    it and every landmark that confirms it fits that one's depth as well (`precisePointBehindRefutesExtension`);
/// 4. **images**: where a second view of the scene is at hand (stereo: the right image; mono: an earlier frame the
///    `measure` consumer keeps), the tapped pixel's patch, matched along its epipolar line, must not place the pixel
///    clearly nearer than the hit (`photometric`): the map cannot contradict a ray that passes the silhouette of a
///    surface with no landmark on it (nor clearly farther, off a rim: `photometricFartherMinScore`); an estimated
///    plane's hit fails where the patch clearly prefers another depth at all, inside the hit's window or not
///    (`estimatedPlaneImageMinScore`), and so does a hit in the margin outside its polygon with a surface behind it
///    that landmarks along the ray confirm (`marginAlternativeLandmarks`: the map holds two answers there).
///
/// The σ it returns is the larger of the plane's offset σ and its landmarks' typical σ (see `planeSigma`); for an
/// estimated plane, at least the RMS distance of the landmarks along the ray to it.
public struct TapPointChecker: Equatable, Sendable {
    /// Rays meeting their surface farther than this from head-on fail: at 80° a 1 cm error of the surface moves the
    /// point 5.7 cm along it, and one pixel of tap 5.8 × farther than head-on.
    public var maxIncidence_deg: Double = 80
    /// A hit on the infinite extension of a plane other than the floor (a top, a wall, a face) farther than this
    /// outside that plane's mapped polygon fails, metres (the raycast itself uses extensions up to 3 m out,
    /// `WorldOptions.maxInfiniteExtension_m`, and the edge test keeps seeing them). Over sixteen runs (seven whole
    /// V1_01 flights and the simulated room, mono and stereo) all 26 tapped ends on such an extension more than 2 m out
    /// were wrong, by 18–90 % (table B's top level met where table A's corners are; a wall's line behind a cabinet),
    /// and all 29 right ones lay within 1.7 m of their polygon (the courtyard fountain's partly mapped 2 × 2 m top); the
    /// floor's right ends reach 3 m out (docs/ACCURACY.md, thirty-second round). `.infinity` turns it off.
    public var maxExtensionOffFloor_m: Double = 2
    /// Landmarks whose bearing is within this many pixels (of focal length) of the ray are "along the ray": about
    /// the radius of a fingertip's uncertainty and of the feature detector's spacing (a few landmarks per 16 px).
    public var rayRadius_px: Double = 12
    /// An estimated plane whose landmarks along the ray scatter about it by more than this many times their median
    /// σ fails (see `check`): a surface's own landmarks scatter by about 1 σ, two surfaces by their separation.
    public var maxScatterRatio: Double = 2.5
    /// The edge test looks this many pixels around the tap: twice a careful finger's error of a few pixels, so a
    /// tap that the finger's error could move onto another surface is caught.
    public var edgeRadius_px: Double = 8
    /// At least this many landmarks along the ray are needed to disagree with a hit (fewer can be outliers).
    public var minLandmarks: Int = 3
    /// A landmark along the ray whose 3 σ exceeds this fraction of the hit's depth says nothing about the hit: it
    /// neither confirms it, nor contradicts it, nor counts towards `minLandmarks`. Its depth window would take in a
    /// surface a third nearer or farther. On a whole V1_01 flight (arrangement 53, mono), one point 0.6 m behind a
    /// hit on a cabinet face's extension, 1.34 m away, confirmed that hit because its σ was 18 cm. The hit was a
    /// top's far corner, 1.96 m away, and the cabinet's width was measured 0.357 m for 0.500 m. A landmark whose σ is
    /// up to a tenth of the hit's depth still counts (docs/ACCURACY.md, twenty-ninth round). `.infinity` turns it off.
    public var alongRayMaxRelativeStd: Double = 0.3
    /// A landmark along the ray confirms a hit on an oblique surface only within what that surface spans over the
    /// landmark's **own** angle from the ray, widened by this many pixels (of focal length) for its bearing's error: a
    /// point at angle β on the hit's surface lies up to t · tan β / cos(incidence) nearer or deeper than the hit. The
    /// cone's whole angle (12 px, 24 px when it widens) stays the window for points in front, which say the ray passes
    /// structure wherever in the cone they lie. On a whole V1_01 courtyard flight (seed 15, mono) a bench top's corner
    /// point 4 px from the tap, 3.65 m away (σ 0.2 m), confirmed the ground's extension met 5.27 m away 76° from head-on:
    /// the 24 px cone spans 1.1 m of depth there, the point's own 4 px 0.2 m; the bench's height measured 1.72 m for 0.45 m
    /// (docs/ACCURACY.md, thirtieth round). `.infinity` gives every landmark the cone's angle.
    public var agreementBearingMargin_px: Double = 2
    /// A landmark within this many pixels (of focal length) of the ray that lies in front of the hit by more than its
    /// own window (its 3 σ and what the hit's surface spans over its own angle, as for confirming) counts as in front
    /// of the hit, even where the cone's whole span (24 px when the search widens) would take it in: on the hit's
    /// surface it could not lie that far in front, so it is structure the ray passes. Beyond this radius only the
    /// cone's window counts (a point 20 px off may be a face the ray passes beside). On a whole V1_01 courtyard flight
    /// (seed 17, mono) a bench top's point 8 px from the tap, 1.1 m in front of the ground's extension (σ 0.23 m), lay
    /// inside the 24 px cone's window there (1.3 m) and said nothing, while a ground point 3 px off confirmed the hit:
    /// the bench's height measured 1.20 m for 0.45 m (docs/ACCURACY.md, thirty-first round). 0 turns it off.
    public var ownAngleOccluderRadius_px: Double = 12
    /// A hit with more landmarks than this in front of it (nearer by more than their tolerance, which includes 3 of
    /// their σ, so a landmark there is a mapped surface) is behind mapped structure: the ray passes an edge or a
    /// surface the planes do not hold.
    public var maxOccluders: Int = 0
    /// A hit in the margin outside its plane's polygon (a geometry raycast's `WorldOptions.geometryMargin_m`; the
    /// `measure` consumer's 15 cm edge tolerance for tops) holds two answers for the pixel when, behind it, the ray
    /// meets another surface that is there (inside its polygon, or the floor's extension) and at least this many
    /// landmarks along the ray lie on that surface at that depth: which is right depends on where the edge truly ends,
    /// which the polygon does not know (the hull of the landmarks can stop short of the edge or reach it). The map alone
    /// cannot choose: on fifteen whole real-IMU flights (mono) 13 right taps had such an end, 0.5–4.3 cm outside its
    /// polygon, and 3 wrong ones (two ends) 7–8 cm out. The images choose, with the bar they refute an estimated plane
    /// with: the hit fails when the tapped pixel's patch clearly prefers the surface behind (`estimatedPlaneImageMinScore`,
    /// `estimatedPlaneImageMinGap`, its best match within that surface's window), on a rim or not, unless the two
    /// answers lie within a patch's width of each other in the second view, where a patch on the rim straddles both.
    /// The wrong ends: a floor point seen beside table B's top met the top's margin 8 cm out at 1.63 m, floor points
    /// along the ray at 3.4 m (arrangement 107: a 4.15 m floor length measured 3.15 m, a 5.24 m one 4.09 m; the patch
    /// matched 0.99 on the floor, 0.80 at the hit), and a point on table A's top seen beside box A's met the box's
    /// margin 7 cm out at 1.06 m, table A's points along the ray at 2.06–2.11 m (arrangement 113: 1.10 m measured
    /// 0.31 m; 0.997 against −0.77). A right stereo end, table A's corner on arrangement 109, 2.73 m away with the wall
    /// 0.3 m behind, matched the wall at 0.98 with the two answers 1.7 px apart (docs/ACCURACY.md, "Thirty-third
    /// round"). 0 turns the test off.
    public var marginAlternativeLandmarks: Int = 1
    /// A hit on the infinite extension of a plane other than the floor (a guess past where that top, wall or face was
    /// mapped) fails when the most precise landmark within `ownAngleOccluderRadius_px` of the ray lies behind the hit
    /// by more than its own window (its 3 σ with the surface's, and what the surface spans over its angle, as for
    /// confirming), and every landmark that confirms the hit lies within 3 of their combined σ of that one's depth too.
    /// Agreement is any-of: a vague landmark confirms whatever lies inside its wide window, so where its window takes
    /// in the precise one's depth as well it cannot choose between the two, and the precise one says where the surface
    /// under the tap is. Landmarks behind a hit are no evidence against it in general (seen from elsewhere, past what
    /// occludes them here), but an extension is itself no mapped surface that could occlude them. On a whole V1_01
    /// flight (arrangement 101, mono) a vertical plane fitted across a table leg and a box face was met on its
    /// extension 2.68 m away, confirmed by points of σ 0.10 m and more, while a point of σ 0.046 m lay 0.28 m behind
    /// the hit (6 σ): the wall's length measured 25 % short. Over thirty whole flights (fifteen real-IMU V1_01
    /// arrangements, mono and stereo) it refuses that tap and no tap that measured (docs/ACCURACY.md, "Thirty-fourth
    /// round"). The floor is left out: it runs on under everything. `false` turns the test off.
    public var precisePointBehindRefutesExtension = true
    /// A hit with no landmark at its depth along the ray stands when its plane has landmarks within this of it,
    /// metres: the `measure` consumer's edge tolerance (a top's landmarks thin out towards its rim by about that).
    public var supportRadius_m: Double = 0.15
    /// Smallest depth tolerance, metres: landmark positions are not better than about a centimetre, and a tapped
    /// point 3 cm in front of or behind a landmark is on the same surface for any length worth measuring.
    public var minDepthTolerance_m: Double = 0.03
    /// A hit behind the level of another horizontal plane that the ray crosses, after passing over it, within this of
    /// that plane's boundary fails (see `pastRim`), metres; 0 turns the test off. On the 30 s V1_01 renders the
    /// polygons of box tops fell 18–24 cm short of the edges tapped, while floor taps seen past a table's far edge
    /// crossed its level 34–38 cm beyond its polygon. On six whole V1_01 flights (fifty-first session) the far corners of
    /// box C's top (0.5 × 0.4 m, its landmarks 5–6 cm apart) and of table B's were measured on the floor or a lower top
    /// behind them with rays crossing the top's level 25–27 cm past its hull (+73 % to +110 %), while every end that
    /// was right and crossed a top's level past its rim did so 35 cm or more past it (docs/ACCURACY.md, "Twenty-third
    /// round"): hence 30 cm, between the two. A seventh flight, checked afterwards, had a wrong end at 28.9 cm (now
    /// refused) and right ones at 33.7 cm.
    public var rimMargin_m: Double = 0.30
    /// The same test, for a hit on the infinite extension of a plane other than the floor: the rim margin is this,
    /// metres. Such an extension is itself a guess past its plane's landmarks (a top or a wall piece ends somewhere),
    /// so a top whose mapped rim the ray passed within this distance is at least as likely to be what the tap meant
    /// (its polygon can stop that short of its edge). The floor's extension is not a guess in a room: floor taps
    /// past a table's rim land on it (the simulated room's `floor.width`, 57 cm past box C's polygon). On the
    /// renders, top polygons fell 18–47 cm short of tapped corners (table A 9 s into the 30 s V1_01 render:
    /// 40–47 cm; the courtyard's planter 2: 25–32 cm, where the rays then met the fountain top's extension 10 cm lower
    /// and measured 1.54 m for 1.00 m). Hits inside a polygon keep `rimMargin_m` (the floor seen past a table's far
    /// edge).
    public var extensionRimMargin_m: Double = 1.0
    /// The rim margin grows to this many times the spacing of a top's landmarks, √(area / landmarks), when that is
    /// larger: the hull of few landmarks falls short of the top's edges by a few spacings. Half a second after table
    /// A's top was found on the 30 s V1_01 render (18 landmarks over a 0.77 m² hull, 21 cm apart) the taps at its
    /// far corners crossed its level 40–47 cm (1.9–2.3 spacings) past the hull and met the wall behind (+28 % and
    /// +34 %, stereo); the floor taps past mapped tops that measured right crossed 3.0–22 spacings past them.
    public var rimSpacingFactor: Double = 2.5

    /// Landmarks within this many pixels (of focal length: an angle, as `rayRadius_px`) of the tap that no plane holds
    /// and that lie well in front of the hit (see `silhouetteDepthRatio`) fail it: they are structure of unknown
    /// extent beside the ray (a box's side face mapped by a point or two), whose silhouette the tap may be on, with
    /// the surface behind it answering. About the spacing of the map's points in the image (some 200 tracked
    /// features on 752 × 480: one per 42 px square): a face with a landmark this far from the tap may well cover the
    /// tap. Structure a plane holds is left to the edge test, which knows its boundary. On the 30 s V1_01 renders
    /// (stereo) the side faces of box A, seen from below its top, held 1–3 landmarks 25–47 px from taps at its top
    /// corner; the rays met the wall 1.5 m behind, and the box's height measured 1.42–1.56 m for 0.25–0.27 m (+426
    /// to +525 %, with a 2 σ of ±0.35–0.43 m). 0 turns the test off.
    public var silhouetteRadius_px: Double = 40
    /// A landmark counts for the silhouette test when its depth along the ray is less than this fraction of the hit's
    /// (by more than 3 of its σ) and it does not lie on the hit's own surface (within 3 σ of it; an oblique surface
    /// comes that much nearer across the radius). At 0.7 (twenty-first session) table A's points 75 % of the way to the
    /// wall its far corner's ray met let the corner measure +34 % (stereo, seed 5), and box C's top points at 68 % of
    /// the depth of the floor behind its corner let that corner measure +182 % (mono, seed 7; docs/ACCURACY.md,
    /// fourteenth round).
    public var silhouetteDepthRatio: Double = 0.8
    /// A hit that no landmark along the ray confirms (fewer than `minLandmarks` within the ray's cone, none of them at
    /// its depth on its surface) fails when the `nearestNeighbours` decisive landmarks nearest the tap, within
    /// `silhouetteRadius_px`, all lie clearly in front of it: the map's only say about the tapped pixel is then the
    /// structure around it, and that says the pixel may lie on it. A neighbour is decisive when its 3 σ is at most
    /// `neighbourMaxRelativeStd` of the hit's depth and it either lies clearly in front (nearer by more than 3 of its and
    /// the surface's combined σ, and off the hit's surface by as much) or supports the hit (on its surface, at its depth
    /// within that tolerance and what an oblique surface spans over the neighbour's angle); a supporting neighbour
    /// among the nearest clears the hit. On a whole V1_01 render (arrangement 6, mono) a tap on box C's top, with no
    /// landmark within 24 px of it, met the floor 0.6 m behind the top while the box had no plane yet: box C's height
    /// measured 0.60 m for 0.36 m (±0.045 m), and the silhouette test did not count the box's points, which lay at
    /// 78–82 % of the hit's depth (docs/ACCURACY.md, eighteenth round). 0 turns the test off.
    public var nearestNeighbours: Int = 3
    /// See `nearestNeighbours`: a landmark whose 3 σ exceeds this fraction of the hit's depth cannot tell the hit's
    /// surface from one a tenth nearer, the error this check exists to refuse, and says nothing either way.
    public var neighbourMaxRelativeStd: Double = 0.1

    /// The images' own say on the hit's depth, where there is a second view (the right image of a stereo frame,
    /// `WorldFrameInput.stereoView`, or the earlier frame `check`'s caller passes): the tapped pixel's patch is matched
    /// along its epipolar line in it (``PhotometricDepthProbe``), from `photometricRange.lowerBound` to
    /// `photometricRange.upperBound` times the hit's depth. A hit fails when the images place the tapped pixel clearly
    /// **nearer** than it: the best match scores at least `photometricMinScore`, has no rival within
    /// `photometricRivalMargin` that could speak for the hit (a rival on the best match's side of the hit, outside its
    /// window, cannot: `photometricRivalsOnOneSide`), lies outside the hit's window (its 3 σ along the ray, at least
    /// `photometricTolerance_px` in the second image), and the hypothesis at the hit's own depth scores at least
    /// `photometricMinGap` less. The failure this catches is a ray that passes the silhouette of a surface the map does
    /// not hold and meets what lies behind it, which no landmark contradicts. On a 30 s V1_01 render (stereo, seeds 5
    /// and 6) table B, seen end-on with no landmark on it, had its width's corners measured on the wall 0.5–1.2 m
    /// behind them (0.083 m for 0.600 m), every landmark along the rays being the wall's. A best match **behind** the
    /// hit fails it only under the stricter `photometricFartherMinScore` and off a rim: a tap on a corner, whose patch
    /// straddles two surfaces, can match the one behind better than its own. `nil` turns the check off.
    public var photometric: PhotometricDepthProbe? = PhotometricDepthProbe()
    /// The depths searched, as multiples of the hit's.
    public var photometricRange: ClosedRange<Double> = 0.4...2.5
    /// The best match must score at least this (normalised cross-correlation): a textured surface seen in both views
    /// matches at 0.95–1.0 on the renders, a patch straddling a depth edge at 0.5–0.9. A tap on the near rim or far
    /// corner of a top the map does not hold yet straddles the top and what lies behind it, so its best match on the
    /// top scores less than a whole patch's: 0.86 and 0.88 on two whole V1_01 flights (arrangement 79 mono, 73
    /// stereo), where the map met the wall behind at 1.6 and 2.1 times the true depth while the hit's depth scored
    /// 0.20 and 0.59 (docs/ACCURACY.md, twenty-ninth round).
    public var photometricMinScore: Double = 0.85
    /// The hypothesis at the hit's depth must score at least this much less than the best (a few times the score's
    /// noise between the two cameras' images).
    public var photometricMinGap: Double = 0.2
    /// Another peak within this of the best (behind a dip) makes the match ambiguous: no verdict.
    public var photometricRivalMargin: Double = 0.1
    /// A rival match (`photometricRivalMargin`) leaves the images' verdict standing when it lies on the same side of
    /// the hit as the best match, outside the hit's window: the two disagree on where the pixel is, not on whether it
    /// is at the hit. On a whole V1_01 flight (arrangement 107, mono) table B's far edge was met on the wall 2.10 m
    /// away, the top 0.41 m past its mapped polygon there (true 1.38 m); the tapped patch matched 0.98 at 1.36 m and
    /// 0.95 at 1.15 m (the top's near edge), 0.69 at the hit, and the rival silenced it: the inset length measured
    /// +61 %. Over thirty whole flights (fifteen real-IMU arrangements, mono and stereo) it refuses that tap and no tap
    /// that measured (docs/ACCURACY.md, "Thirty-fifth round"). `false`: any rival silences the images.
    public var photometricRivalsOnOneSide = true
    /// The smallest window around the hit's projection in the second view, pixels: a patch on a slanted surface or
    /// near a depth edge shifts its peak by up to about a pixel and a half on the renders.
    public var photometricTolerance_px: Double = 1.5
    /// A best match **behind** the hit fails it too when it scores at least this, with the same gap, window and
    /// rival tests as a nearer one, unless the hit is on its surface's rim (the edge test found a farther surface
    /// `edgeRadius_px` beside it). What it catches is a plane that reaches where its surface is not: on the simulated
    /// room (seeds 7 and 12), box B's top polygon met 0.7 m and 1 m in front of the floor the pixels see, while the
    /// images matched the pixels at 0.96–0.99 within 2 % of the floor's true depth. At a rim the tapped patch
    /// straddles what lies behind and can match that better than its own surface (arrangement 5, box C's top corner:
    /// 0.98 on the floor 0.7 m behind a correct hit). Higher than `photometricMinScore` because a match behind is
    /// weaker evidence: the patch may still be partly on the hit's surface. `nil`: nearer only (docs/ACCURACY.md,
    /// twenty-seventh session).
    public var photometricFartherMinScore: Double? = 0.95
    /// An **estimated** plane's hit (``RaycastTarget/estimatedPlane``) fails when the tapped pixel's own patch, matched in
    /// the second view, clearly prefers another depth, even inside the hit's window: the best match scores at least
    /// this, has no rival, lies more than `estimatedPlaneImageMinSeparation` of the hit's depth from it (nearer or
    /// farther, rim or not) and the hypothesis at the hit's depth scores at least `estimatedPlaneImageMinGap` less.
    /// An estimated plane is an extrapolation from the landmarks within several degrees of the ray, which at a corner
    /// of a box seen from 4 m come from its top, its face and the wall behind, each known to 7–18 cm; its σ window
    /// then lets through a depth the images refute. On fifteen 30 s and six whole-flight real-IMU renders, mono and
    /// stereo (docs/ACCURACY.md, "Seventeenth round"): 153 estimated-plane ends reached
    /// this check, 65 of them more than 10 % off; this rule would refuse 20, 17 of those more than 10 % off and 1 within
    /// 5 %; the images' depth was within 5 % of the truth on 18 of the 20. The same score and gap let the images
    /// choose the surface behind a margin hit (`marginAlternativeLandmarks`). `nil` turns both off.
    public var estimatedPlaneImageMinScore: Double? = 0.95
    /// See `estimatedPlaneImageMinScore`: how much less the hit's own depth must score (normalised cross-correlation).
    public var estimatedPlaneImageMinGap: Double = 0.1
    /// See `estimatedPlaneImageMinScore`: the smallest disagreement, as a fraction of the hit's depth, that refutes an
    /// estimated plane (less is within what the match itself knows at a few metres).
    public var estimatedPlaneImageMinSeparation: Double = 0.05

    /// Where the map cannot place a tapped pixel (no hit, or a hit the checks fail), the images may
    /// (`imagePlacement`): the pixel's patch is matched along its epipolar line in each of two other views over
    /// `imageRange_m` (the same probe as `photometric`; `nil` there turns this off too). Each best match must score at
    /// least `imageMinScore`, have no rival within `photometricRivalMargin` and not lie at the range's end; the views'
    /// epipolar lines through the pixel must cross at `imageMinCrossing_deg` or more (two frames of one straight motion
    /// do not: an edge or a repeating texture along their common direction fools both alike); the two depths must
    /// agree within `imageAgreementSigmas`; their combined σ must be at most `imageMaxRelativeStd` of the depth; and no
    /// mapped point within `rayRadius_px` of the ray may lie clearly in front. Each match's σ along the ray is
    /// `imageMatchStd_px` plus half the peak's width (in its view), turned into depth at the match. On the real-IMU
    /// renders one view alone placed 34 of 187 pixels more than 10 % off (docs/ACCURACY.md, thirteenth round).
    /// `false` turns this off.
    public var measureWithImages = true
    /// The depths the images search for a pixel the map cannot place, metres along the ray.
    public var imageRange_m: ClosedRange<Double> = 0.3...8
    /// The score the images' best match needs to place a point on its own.
    public var imageMinScore: Double = 0.95
    /// The 1-σ of the images' match along the epipolar line, pixels of the second view.
    public var imageMatchStd_px: Double = 0.5
    /// The images place a pixel only when this many other views each match it, all at one depth (within
    /// `imageAgreementSigmas` of their σ).
    public var imageMinViews: Int = 2
    /// See `imageMinViews`.
    public var imageAgreementSigmas: Double = 2
    /// The images place a pixel only when they know its depth to this fraction of it (1 σ): a match that slides along
    /// its epipolar line (an edge that runs along it) places nothing.
    public var imageMaxRelativeStd: Double = 0.1
    /// The views' epipolar lines through the tapped pixel must cross at this angle at least, degrees (see
    /// `imagePlacement`).
    public var imageMinCrossing_deg: Double = 30
    /// A checked map hit fails when the images place its pixel farther from it than this many of the two's combined σ
    /// along the ray.
    public var imageContradictionSigmas: Double = 3

    /// `false` measures every hit as the consumer did before these checks (no failure, the hit's own σ): for
    /// comparisons (`worldtrack-bench --world-baseline`).
    public var enabled = true

    /// The default checks.
    public init() {}

    /// Checks one hit of `ray` (through `pixel`) on `frame`'s world; `raycast` answers the same query for another
    /// pixel (for the edge test); `secondView`, when given, is the image the pixel is matched in for the images' check
    /// (by default the frame's right image, if it has one).
    public func check(_ hit: RaycastResult, ray: WorldRay, pixel: Vec2, frame: WorldFrame, secondView: SecondView? = nil,
                      raycast: (Vec2) -> RaycastResult?) -> TapPointVerdict {
        guard enabled else { return .confirmed(surfaceStd_m: 0, onEdge: false) }
        let incidence = acos(min(1, hit.incidenceCosine)) * 180 / Double.pi
        if incidence > maxIncidence_deg {
            return .failed(String(format: "the ray meets the surface %.0f° from head-on (more than %.0f°: too oblique to place the point)",
                                  incidence, maxIncidence_deg))
        }
        if hit.target == .existingPlaneInfinite, let id = hit.planeId, let plane = frame.session.planeTracker.plane(id: id),
           plane.classification != .floor {
            let outside = plane.distanceOutsideBoundary(hit.position_W)
            if outside > maxExtensionOffFloor_m {
                return .failed(String(format: "far past a mapped part: the hit on %@'s extension lies %.2f m outside its polygon (more "
                                      + "than %.1f m: a top or a face ends, and its level met that far from where it was seen may be "
                                      + "another object's)", id as NSString, outside, maxExtensionOffFloor_m))
            }
        }
        let f = frame.camera.model.intrinsics.fx
        let t = hit.distance_m
        // Edge test: the pixels `edgeRadius_px` around the tap must meet a surface at a depth the hit's own surface
        // allows (its slope across that many pixels, plus 3 σ); otherwise the tap is on a depth edge (a top's corner
        // against the floor or wall behind it), where the finger's pixel of error decides the surface.
        // The checks' tolerances use the plane's σ; the σ reported for an estimated plane also has its landmarks'
        // (`fittedLandmarkSigma`), which would widen them where the map is worst.
        let surfaceSigma = planeSigma(hit, frame: frame)
        let slope = t * (edgeRadius_px / f) / max(hit.incidenceCosine, 0.17)
        var onEdge = false
        for d in [Vec2(edgeRadius_px, 0), Vec2(-edgeRadius_px, 0), Vec2(0, edgeRadius_px), Vec2(0, -edgeRadius_px)] {
            guard let other = raycast(pixel + d) else { continue }
            let tol = max(minDepthTolerance_m, 3 * max(surfaceSigma, other.surfaceStd_m)) + 2 * slope
            if other.distance_m < t - tol {
                // A nearer surface next to the tap: the tap slipped off its edge onto what lies behind.
                return .failed(String(format: "on an edge: %.0f px away the ray meets %@ at %.2f m, nearer than this one's %@ at %.2f m",
                                      edgeRadius_px, describe(other) as NSString, other.distance_m, describe(hit) as NSString, t))
            }
            // A farther surface next to it: the tap is on its surface's rim (a top's corner), which is what people
            // tap; it stands, with the edge's uncertainty (see `edgeStd`).
            if other.distance_m > t + tol { onEdge = true }
        }
        if let rim = pastRim(of: hit, ray: ray, frame: frame, tolerance: max(minDepthTolerance_m, 3 * surfaceSigma)) {
            let where_ = rim.beyond_m > 0 ? String(format: "%.2f m beyond its mapped edge (the top may reach there)", rim.beyond_m)
                : "inside its boundary"
            return .failed(String(format: "past a rim: the ray crosses %@'s level at %.2f m, %@, in front of the hit on %@ at %.2f m",
                                  rim.plane as NSString, rim.depth_m, where_ as NSString, describe(hit) as NSString, t))
        }
        if let over = overTopRim(of: hit, ray: ray, frame: frame, tolerance: max(minDepthTolerance_m, 3 * surfaceSigma)) {
            if over.edgeOn {
                let slope = asin(max(-1, min(1, ray.direction_W.z))) * 180 / Double.pi
                return .failed(String(format: "at a top rim seen edge-on: the camera is %+.2f m from the level of the mapped top edge of "
                                      + "the surface under the hit on %@ at %.2f m (%+.2f m from that edge), and the ray runs %+.1f° "
                                      + "from the horizontal (a top at that level is seen edge-on: the pixel is any point of it)",
                                      over.cameraAbove_m, describe(hit) as NSString, t, over.above_m, slope))
            }
            if over.grazing {
                let descent = asin(min(1, -ray.direction_W.z)) * 180 / Double.pi
                return .failed(String(format: "at a top rim seen from just above: the hit on %@ at %.2f m lies %+.2f m from that surface's "
                                      + "mapped top edge, and the ray comes down %.0f° below the horizontal from %.2f m above it (it may "
                                      + "pass over the rim onto a top, met more than %.0f° from head-on)",
                                      describe(hit) as NSString, t, over.above_m, descent, over.cameraAbove_m, maxIncidence_deg))
            }
            return .failed(String(format: "over a top rim: the hit on %@ at %.2f m lies %.2f m above that surface's mapped top edge, "
                                  + "seen from %.2f m above it (the ray came down past the edge: what it meets there may be the top)",
                                  describe(hit) as NSString, t, over.above_m, over.cameraAbove_m))
        }
        if let foot = atHiddenFoot(of: hit, ray: ray, frame: frame, tolerance: max(minDepthTolerance_m, 3 * surfaceSigma)) {
            let descent = asin(min(1, -ray.direction_W.z)) * 180 / Double.pi
            return .failed(String(format: "at a hidden foot seen from just above: the hit on %@ at %.2f m lies %+.2f m from the lower "
                                  + "edge of that surface's mapped part, which stands %.2f m above the floor, and the ray comes down "
                                  + "%.1f° below the horizontal (what hides the surface under that edge may be a top at its level, met "
                                  + "more than %.0f° from head-on)", describe(hit) as NSString, t, foot.above_m,
                                  foot.footAboveFloor_m, descent, maxIncidence_deg))
        }
        let map = frame.session.map
        // Where the map is sparse the search widens once, to twice the radius (still within a few degrees).
        var alpha = atan(rayRadius_px / f)
        // Landmarks too uncertain to tell the hit's depth from a third off it say nothing (`alongRayMaxRelativeStd`).
        func alongRay(_ angle: Double) -> [(landmark: MapLandmark, angle: Double)] {
            map.landmarks(nearRayFrom: ray.origin_W, direction: ray.direction_W, maxAngle: angle)
                .filter { 3 * $0.landmark.std_m <= alongRayMaxRelativeStd * t }
        }
        var near = alongRay(alpha)
        if near.count < minLandmarks {
            alpha = atan(2 * rayRadius_px / f)
            near = alongRay(alpha)
        }
        // A landmark within the cone, on the hit's surface, lies up to what the surface spans over the cone deeper or
        // nearer along the ray.
        let spread = surfaceDepthSpan(hit, overAngle: alpha)
        let ownWindowOccluderAngle = atan(ownAngleOccluderRadius_px / f)
        // The landmarks that confirm the hit: their depth along the ray and σ, metres.
        var agreeing: [(depth_m: Double, std_m: Double)] = [], inFront = 0
        // The most precise landmark within `ownAngleOccluderRadius_px` of the ray, and whether it lies behind the hit by
        // more than its own window (`precisePointBehindRefutesExtension`).
        var mostPrecise: (std_m: Double, depth_m: Double, behind: Bool)?
        // Agreeing landmarks within the depth window without `spread`: at the hit's depth whatever the surface's slant.
        var agreeingAtDepth = 0
        var depths: [Double] = []
        for (l, beta) in near {
            let depth = (l.p_W - ray.origin_W).dot(ray.direction_W)
            depths.append(depth)
            let ownTol = max(minDepthTolerance_m, 3 * (l.std_m * l.std_m + hit.surfaceStd_m * hit.surfaceStd_m).squareRoot())
            let tol = ownTol + spread
            // At the hit's depth, a landmark confirms the hit only when it lies on the hit's surface: the depth window
            // widens with `spread` on an oblique surface (90 cm for a 24 px cone at 4.4 m and 75°), and a landmark of
            // other structure inside that window (the wall behind a cabinet's edge) says nothing for it.
            let onSurface = abs(hit.normal_W.dot(l.p_W - hit.position_W))
                <= max(minDepthTolerance_m, 3 * (l.std_m * l.std_m + surfaceSigma * surfaceSigma).squareRoot())
            // A landmark at β on the hit's surface lies within what the surface spans over β, not the whole cone
            // (`agreementBearingMargin_px`).
            let ownSpread = surfaceDepthSpan(hit, overAngle: min(alpha, beta + agreementBearingMargin_px / f))
            if beta <= ownWindowOccluderAngle, l.std_m < (mostPrecise?.std_m ?? .infinity) {
                mostPrecise = (l.std_m, depth, depth > t + ownTol + ownSpread)
            }
            if abs(depth - t) <= tol {
                if onSurface && abs(depth - t) <= ownTol + ownSpread {
                    agreeing.append((depth, l.std_m))
                    if abs(depth - t) <= ownTol { agreeingAtDepth += 1 }
                } else if beta <= ownWindowOccluderAngle && depth < t - (ownTol + ownSpread) {
                    // Inside the cone's window but in front of its own: not on the hit's surface (`ownAngleOccluderRadius_px`).
                    inFront += 1
                }
            } else if depth < t - tol { inFront += 1 }
        }
        let lo = depths.min() ?? 0, hi = depths.max() ?? 0   // the depth range of the landmarks along the ray, metres
        // A hit in the margin a geometry raycast allows outside its plane's polygon (`WorldOptions.geometryMargin_m`, the
        // consumer's `edgeTolerance_m` for horizontal planes) is a guess past the mapped edge, as an extension is: with
        // mapped points along the ray and none at its depth, the ray passes beside the surface (V1_01, seed 3: table A's
        // far corners, seen 3–12 cm beside box A's top polygon, measured on the box's level 0.8 m in front of them,
        // 0.51 m for 0.80 m). Its own plane's landmarks around it do not excuse it here.
        if near.count >= minLandmarks && agreeing.isEmpty, let outside = distanceOutsideBoundary(hit, frame: frame), outside > 0 {
            return .failed(String(format: "beside a mapped edge: the hit on %@ at %.2f m lies %.2f m outside its polygon and the %d "
                                  + "mapped points along the ray lie %.2f–%.2f m away (the ray may pass beside it)",
                                  (hit.planeId ?? "?") as NSString, t, outside, near.count, lo, hi))
        }
        // A hit in that margin with another surface behind it that the map confirms along the ray: the map holds two
        // answers for the pixel, and the images choose as for an estimated plane (`marginAlternativeLandmarks`).
        var behindMargin: (hit: RaycastResult, count: Int)?
        if let outside = distanceOutsideBoundary(hit, frame: frame), outside > 0 {
            behindMargin = confirmedSurfaceBehind(hit, ray: ray, near: near, maxAngle: alpha, frame: frame,
                                                  tolerance: max(minDepthTolerance_m, 3 * surfaceSigma))
        }
        // Landmarks behind a hit are no evidence against it on their own (the map holds points seen from elsewhere,
        // behind what occludes them here), but with none at its depth the hit must have its own plane's landmarks
        // around it: else it is on a polygon or an extension reaching where its surface is not.
        if near.count >= minLandmarks && agreeing.isEmpty && !hasOwnSupport(hit, frame: frame) {
            return .failed(String(format: "the %d mapped points along the ray lie %.2f–%.2f m away, the hit on %@ at %.2f m (wrong surface)",
                                  near.count, lo, hi, describe(hit) as NSString, t))
        }
        if inFront > maxOccluders {
            return .failed(String(format: "%d mapped points lie in front of the hit on %@ at %.2f m (an edge, or a surface no plane holds)",
                                  inFront, describe(hit) as NSString, t))
        }
        if let beside = unheldStructureInFront(of: hit, ray: ray, frame: frame) {
            return .failed(String(format: "beside structure no plane holds: %d mapped points within %.0f px lie nearer than %.2f m, the hit on "
                                  + "%@ at %.2f m (the ray may pass the silhouette of an unmapped face)",
                                  beside, silhouetteRadius_px, silhouetteDepthRatio * t, describe(hit) as NSString, t))
        }
        if agreeing.isEmpty, near.count < minLandmarks,
           let around = nearestStructureInFront(of: hit, ray: ray, frame: frame, surfaceStd_m: surfaceSigma) {
            return .failed(String(format: "nothing mapped along the ray confirms the hit on %@ at %.2f m, and the %d mapped points nearest "
                                  + "the tap that say anything (%.0f–%.0f px from it) lie in front of it at %.2f–%.2f m (the tap may "
                                  + "be on that structure)", describe(hit) as NSString, t, around.count,
                                  around.nearest_px, around.farthest_px, around.nearestDepth_m, around.farthestDepth_m))
        }
        // A guessed extension whose confirming landmarks would fit the depth of the most precise one near the ray, which
        // lies behind the hit: they cannot choose between the two depths, the precise one says where the surface under
        // the tap is (`precisePointBehindRefutesExtension`).
        if precisePointBehindRefutesExtension, hit.target == .existingPlaneInfinite, let id = hit.planeId,
           frame.session.planeTracker.plane(id: id)?.classification != .floor,
           let precise = mostPrecise, precise.behind, let bestAgreeing = agreeing.map(\.std_m).min(),
           agreeing.allSatisfy({ abs($0.depth_m - precise.depth_m) <= 3 * hypot($0.std_m, precise.std_m) }) {
            return .failed(String(format: "a precise point behind the guess: the hit on %@ at %.2f m is confirmed only by mapped points of "
                                  + "σ %.2f m or more, which fit as well the depth of one of σ %.3f m along the ray %.2f m behind it "
                                  + "(the surface under the tap is there)", describe(hit) as NSString, t, bestAgreeing, precise.std_m,
                                  precise.depth_m - t))
        }
        if agreeing.isEmpty, hit.target == .existingPlaneInfinite, let id = hit.planeId {
            return .failed("nothing mapped along the ray confirms \(id)'s extension there (\(near.count) points near the ray, none at "
                + String(format: "%.2f m)", t))
        }
        // An estimated plane is fitted to the landmarks within several degrees of the ray (`EstimatedPlaneOptions`:
        // 8°, some 60 px); with none along the ray itself its hit is an extrapolation from structure beside the
        // tap (a cabinet's front edge and the wall behind it, 5 m away: 12 % off with a 3 cm σ).
        if agreeing.isEmpty, hit.target == .estimatedPlane {
            return .failed(String(format: "nothing mapped along the ray confirms the estimated surface at %.2f m (%d points near the ray, "
                                  + "none at its depth): an extrapolation from structure beside the tap", t, near.count))
        }
        // With fewer than `minLandmarks` points along the ray, an estimated plane's orientation cannot be checked (the
        // scatter test below needs them), so the points that confirm it must lie at its depth, not merely inside the
        // window an oblique surface opens: the cabinet's top seen from 4.4 m (V1_01, every render) had a plane fitted
        // through its front edge and the wall behind, tilted 49°, met at 75°, and "confirmed" by 2 points 0.7 m
        // behind the hit (+12 %).
        if hit.target == .estimatedPlane, near.count < minLandmarks, agreeingAtDepth == 0 {
            return .failed(String(format: "the estimated surface at %.2f m, met %.0f° from head-on, is confirmed by no mapped point at its "
                                  + "depth (%d along the ray, %.2f–%.2f m away): too few to check its slant",
                                  t, incidence, near.count, lo, hi))
        }
        // An estimated plane is fitted on the fly to the landmarks within a few degrees of the ray: at a corner of
        // the room or of a cabinet they come from two surfaces and the fit lies between them. The scatter of the
        // landmarks along the ray about it says how well it stands for the surface under the tap.
        var sigma = hit.target == .estimatedPlane ? max(surfaceSigma, fittedLandmarkSigma(hit, frame: frame)) : surfaceSigma
        if hit.target == .estimatedPlane, near.count >= minLandmarks {
            let n = hit.normal_W
            let rms = (near.map { pow(n.dot($0.landmark.p_W - hit.position_W), 2) }.reduce(0, +) / Double(near.count)).squareRoot()
            let typical = near.map(\.landmark.std_m).sorted()[near.count / 2]
            // Landmarks of one surface scatter about it by their own σ; more than `maxScatterRatio` × their median
            // σ (and more than the depth tolerance) means they come from more than one surface.
            if rms > max(minDepthTolerance_m, maxScatterRatio * typical) {
                return .failed(String(format: "the landmarks along the ray do not make one surface (%.0f cm RMS about the fitted plane, "
                                      + "their σ %.0f cm): a corner or mixed structure", 100 * rms, 100 * typical))
            }
            sigma = max(sigma, rms)
        }
        switch photometricDisagreement(hit, pixel: pixel, frame: frame, view: secondView ?? frame.input.stereoView, surfaceStd_m: sigma,
                                       onRim: onEdge, alternative: behindMargin.map { ($0.hit, planeSigma($0.hit, frame: frame)) }) {
        case nil:
            break
        case let .nearer(best, hitScore):
            return .failed(String(format: "the images place the tapped pixel at %.2f m (match %.2f in the second view), nearer than the "
                                  + "hit on %@ at %.2f m (match %.2f there): the ray may pass the silhouette of a surface in front",
                                  best.distance_m, best.score, describe(hit) as NSString, t, hitScore))
        case let .farther(best, hitScore):
            return .failed(String(format: "the images place the tapped pixel at %.2f m (match %.2f in the second view), farther than the "
                                  + "hit on %@ at %.2f m (match %.2f there): the surface may end before the pixel",
                                  best.distance_m, best.score, describe(hit) as NSString, t, hitScore))
        case let .choosesAlternative(best, hitScore):
            let outside = distanceOutsideBoundary(hit, frame: frame) ?? 0
            return .failed(String(format: "at a mapped edge: the hit on %@ at %.2f m lies %.2f m outside its polygon, behind it the ray "
                                  + "meets %@ at %.2f m, which the map holds %d point%@ of along the ray, and the images place the "
                                  + "tapped pixel at %.2f m (match %.2f in the second view, %.2f at the hit): the tap is past the edge",
                                  (hit.planeId ?? "?") as NSString, t, outside, describe(behindMargin?.hit ?? hit) as NSString,
                                  behindMargin?.hit.distance_m ?? 0, behindMargin?.count ?? 0,
                                  behindMargin?.count == 1 ? "" : "s", best.distance_m, best.score, hitScore))
        case let .refutesEstimate(best, hitScore):
            return .failed(String(format: "the images place the tapped pixel at %.2f m (match %.2f in the second view), the surface "
                                  + "estimated from the landmarks beside the ray at %.2f m (match %.2f there): the tap's own patch "
                                  + "refutes the estimate", best.distance_m, best.score, t, hitScore))
        }
        return .confirmed(surfaceStd_m: sigma, onEdge: onEdge)
    }

    /// What the images say against a hit (see `photometric` and `photometricFartherMinScore`).
    enum PhotometricDisagreement: Equatable {
        /// The best match lies clearly nearer than the hit; the score at the hit's own depth.
        case nearer(DepthProfile.Sample, hitScore: Double)
        /// The best match lies clearly farther than the hit.
        case farther(DepthProfile.Sample, hitScore: Double)
        /// The best match lies clearly elsewhere than an estimated plane's hit (see `estimatedPlaneImageMinScore`).
        case refutesEstimate(DepthProfile.Sample, hitScore: Double)
        /// The best match lies clearly at the other answer the map holds for the pixel, the surface behind a margin hit
        /// (see `marginAlternativeLandmarks`).
        case choosesAlternative(DepthProfile.Sample, hitScore: Double)
    }

    /// The tapped pixel's profile along its epipolar line in the frame's second view, judged against the hit (see
    /// `photometric`); `nil` when the images agree with it or cannot say (no second view, no texture, a weak or
    /// ambiguous match). `alternative`: the other answer the map holds for the pixel, a surface behind a margin hit
    /// (`marginAlternativeLandmarks`), with its σ along its normal, metres.
    func photometricDisagreement(_ hit: RaycastResult, pixel: Vec2, frame: WorldFrame, view: SecondView?, surfaceStd_m: Double,
                                 onRim: Bool = false, alternative: (hit: RaycastResult, std_m: Double)? = nil)
        -> PhotometricDisagreement? {
        guard let probe = photometric, let view, let image = frame.image,
              let bearing = frame.camera.model.bearing(pixel) else { return nil }
        let t = hit.distance_m
        guard let profile = probe.profile(pixel: pixel, image: image, camera: frame.camera.model, view: view,
                                          nearest_m: photometricRange.lowerBound * t, farthest_m: photometricRange.upperBound * t),
              let bestIndex = profile.bestIndex else { return nil }
        let best = profile.samples[bestIndex]
        let T_C1_C0 = view.T_C0_C1.inverse
        func projected(_ distance: Double) -> Vec2? { view.camera.project(T_C1_C0.act(bearing * max(distance, 0.05))) }
        let along = 3 * surfaceStd_m / max(hit.incidenceCosine, 0.17)
        guard let at = projected(t), let nearer = projected(t - along), let farther = projected(t + along),
              let atHit = profile.sample(nearest: at) else { return nil }
        let window = max(photometricTolerance_px, (nearer - at).norm, (farther - at).norm)
        guard (atHit.pixel - at).norm <= window else { return nil }
        // Where the map holds two answers (a margin hit and a confirmed surface behind it), the images choose the one
        // behind by a clear preference of the tapped patch, on a rim or not, as they refute an estimated plane
        // (`estimatedPlaneImageMinScore`): when the best match lies within that surface's window, and the two answers
        // lie farther apart in the second view than the patch is wide (nearer, a patch on the rim straddles both).
        if let alt = alternative, hit.target != .estimatedPlane, let minScore = estimatedPlaneImageMinScore, best.score >= minScore,
           atHit.score <= best.score - estimatedPlaneImageMinGap {
            let altAlong = 3 * alt.std_m / max(alt.hit.incidenceCosine, 0.17)
            if let atAlt = projected(alt.hit.distance_m), let altNearer = projected(alt.hit.distance_m - altAlong),
               let altFarther = projected(alt.hit.distance_m + altAlong),
               (atAlt - at).norm > Double(2 * probe.patchRadius_px + 1),
               (best.pixel - atAlt).norm <= max(photometricTolerance_px, (altNearer - atAlt).norm, (altFarther - atAlt).norm),
               !profile.hasRival(to: bestIndex, margin: photometricRivalMargin, dip: 0.05) {
                return .choosesAlternative(best, hitScore: atHit.score)
            }
        }
        // An estimated plane is refuted by a clear preference of the tapped patch, window or not
        // (see `estimatedPlaneImageMinScore`).
        if hit.target == .estimatedPlane, let minScore = estimatedPlaneImageMinScore, best.score >= minScore,
           atHit.score <= best.score - estimatedPlaneImageMinGap,
           abs(best.distance_m - t) > estimatedPlaneImageMinSeparation * t,
           !profile.hasRival(to: bestIndex, margin: photometricRivalMargin, dip: 0.05) {
            return .refutesEstimate(best, hitScore: atHit.score)
        }
        // Behind the hit only off a rim (see `photometricFartherMinScore`).
        let minScore = best.distance_m < t ? photometricMinScore : onRim ? .infinity : (photometricFartherMinScore ?? .infinity)
        // A rival match says the same as the best one when it too lies on that side of the hit, outside its window
        // (`photometricRivalsOnOneSide`): wherever exactly the pixel is, it is not at the hit.
        let rivalSpeaksForHit = profile.rivals(to: bestIndex, margin: photometricRivalMargin, dip: 0.05).contains { r in
            let rival = profile.samples[r]
            return !photometricRivalsOnOneSide || (rival.distance_m < t) != (best.distance_m < t) || (rival.pixel - at).norm <= window
        }
        guard best.score >= minScore, (best.pixel - at).norm > window, atHit.score <= best.score - photometricMinGap,
              !rivalSpeaksForHit else { return nil }
        return best.distance_m < t ? .nearer(best, hitScore: atHit.score) : .farther(best, hitScore: atHit.score)
    }

    /// Where the images alone place `pixel` (see `measureWithImages`), matched in each of `views` (at least
    /// `imageMinViews` of them; the frame's own image is the reference); `.failure` says why they cannot.
    /// `mappedPointsInFront: false` leaves out the test against mapped points in front of the match (for comparing
    /// the images' placement with a map hit).
    public func imagePlacement(pixel: Vec2, ray: WorldRay, frame: WorldFrame, views: [SecondView],
                               mappedPointsInFront: Bool = true) -> ImagePlacement {
        guard enabled, measureWithImages, let probe = photometric, let image = frame.image else { return .failure("no images") }
        guard views.count >= imageMinViews else {
            return .failure("\(views.count) other view\(views.count == 1 ? "" : "s") at hand, \(imageMinViews) needed")
        }
        // The views' epipolar lines through the pixel must cross: along one line, an edge or a repeating texture
        // that runs along it fools every view alike (two earlier frames of one motion do).
        guard let bearing = frame.camera.model.bearing(pixel) else { return .failure("the pixel cannot be unprojected") }
        let lines = views.map { v -> Vec2 in
            let n = bearing.cross(v.T_C0_C1.translation)
            return Vec2(n.y, -n.x)
        }
        var widest = 0.0
        for a in lines.indices {
            for b in lines.indices where b > a {
                let la = lines[a].norm, lb = lines[b].norm
                guard la > 1e-12, lb > 1e-12 else { continue }
                widest = max(widest, acos(min(1, abs(lines[a].dot(lines[b])) / (la * lb))))
            }
        }
        guard widest * 180 / Double.pi >= imageMinCrossing_deg else {
            return .failure(String(format: "the other views' epipolar lines cross at %.0f° only (%.0f° needed)",
                                   widest * 180 / Double.pi, imageMinCrossing_deg))
        }
        var found: [(distance_m: Double, std_m: Double, score: Double)] = []
        for view in views {
            switch placement(pixel: pixel, image: image, camera: frame.camera.model, view: view, probe: probe) {
            case let .placed(d, std, score): found.append((d, std, score))
            case let .failure(why): return .failure(why)
            }
        }
        // Every view must put the pixel at one depth: a chance match (a texture that looks alike, a patch seen too
        // obliquely to match where it is) lands elsewhere in another view, whose epipolar line runs another way.
        for a in found.indices {
            for b in found.indices where b > a {
                let tol = imageAgreementSigmas * (found[a].std_m * found[a].std_m + found[b].std_m * found[b].std_m).squareRoot()
                if abs(found[a].distance_m - found[b].distance_m) > tol {
                    return .failure(String(format: "two views disagree (%.2f m and %.2f m)", found[a].distance_m, found[b].distance_m))
                }
            }
        }
        var wsum = 0.0, wd = 0.0
        for p in found {
            let w: Double = 1 / (p.std_m * p.std_m)
            wsum += w; wd += w * p.distance_m
        }
        let d = wd / wsum, std = 1 / wsum.squareRoot()
        guard std <= imageMaxRelativeStd * d else {
            return .failure(String(format: "they place it at %.2f m only to ±%.2f m (1 σ)", d, std))
        }
        guard mappedPointsInFront else { return .placed(distance_m: d, std_m: std, score: found.map(\.score).min() ?? 0) }
        // A mapped point clearly in front of the match, along the ray: the pixel's patch matched what lies behind.
        let f = frame.camera.model.intrinsics.fx
        let inFront = frame.session.map.landmarks(nearRayFrom: ray.origin_W, direction: ray.direction_W,
                                                  maxAngle: atan(rayRadius_px / f)).filter { l, _ in
            let depth = (l.p_W - ray.origin_W).dot(ray.direction_W)
            return depth < d - max(minDepthTolerance_m, 3 * (l.std_m * l.std_m + std * std).squareRoot())
        }.count
        guard inFront == 0 else {
            return .failure(String(format: "%d mapped points lie in front of their match at %.2f m", inFront, d))
        }
        return .placed(distance_m: d, std_m: std, score: found.map(\.score).min() ?? 0)
    }

    /// Where one other view places `pixel` (see `measureWithImages`).
    func placement(pixel: Vec2, image: GrayImage, camera: CameraModel, view: SecondView, probe: PhotometricDepthProbe) -> ImagePlacement {
        guard let profile = probe.profile(pixel: pixel, image: image, camera: camera, view: view,
                                          nearest_m: imageRange_m.lowerBound, farthest_m: imageRange_m.upperBound),
              let k = profile.bestIndex else { return .failure("no texture to match") }
        let samples = profile.samples, best = samples[k]
        guard best.score >= imageMinScore else {
            return .failure(String(format: "their best match scores %.2f (less than %.2f)", best.score, imageMinScore))
        }
        guard k > 0, k < samples.count - 1 else { return .failure("their best match is at the end of the range searched") }
        guard !profile.hasRival(to: k, margin: photometricRivalMargin, dip: 0.05) else {
            return .failure(String(format: "their best match (%.2f m) has a rival", best.distance_m))
        }
        // The peak's width: the samples around it scoring within 0.05 of it.
        var lo = k, hi = k
        while lo > 0, samples[lo - 1].score >= best.score - 0.05 { lo -= 1 }
        while hi < samples.count - 1, samples[hi + 1].score >= best.score - 0.05 { hi += 1 }
        let width_px = (samples[hi].pixel - samples[lo].pixel).norm
        let span_m: Double = abs(samples[k + 1].distance_m - samples[k - 1].distance_m)
        let span_px: Double = (samples[k + 1].pixel - samples[k - 1].pixel).norm
        let std: Double = span_m / max(span_px, 1e-9) * (imageMatchStd_px + width_px / 2)
        return .placed(distance_m: best.distance_m, std_m: std, score: best.score)
    }

    /// The 1-σ of a hit's surface along its normal: for a detected plane the larger of its offset σ (a statistical
    /// σ, scatter / √n) and its landmarks' typical σ (their errors are correlated, as they come from the same poses,
    /// so a plane is not known better than one of its landmarks: the inlier band is 2.5 × their median σ, at least
    /// `PlaneDetectorOptions.minBand_m`); for an estimated plane, its own σ.
    func planeSigma(_ hit: RaycastResult, frame: WorldFrame) -> Double {
        guard let id = hit.planeId, let p = frame.session.planeTracker.plane(id: id) else { return hit.surfaceStd_m }
        return max(hit.surfaceStd_m, p.inlierBand_m / 2.5)
    }

    /// The median σ of the landmarks an estimated plane is fitted to (those of its cone, `EstimatedPlaneOptions`, within
    /// its inlier distance of it): its own σ is divided by √n, but the landmarks' errors are correlated as a detected
    /// plane's are, so it is not known better than one of them (0 when there are none).
    func fittedLandmarkSigma(_ hit: RaycastResult, frame: WorldFrame) -> Double {
        let cone = frame.session.options.estimatedPlane
        let origin = frame.T_W_C.translation
        let near = frame.session.map.landmarks(nearRayFrom: origin, direction: (hit.position_W - origin).normalized,
                                               maxAngle: cone.maxAngle_rad).prefix(cone.maxPoints).map(\.landmark)
        guard !near.isEmpty else { return 0 }
        let all = near.map(\.std_m).sorted()
        let tol = max(cone.inlierDistance_m, 3 * all[all.count / 2])
        let inliers = near.filter { abs(hit.normal_W.dot($0.p_W - hit.position_W)) <= tol }.map(\.std_m).sorted()
        return inliers.isEmpty ? 0 : inliers[inliers.count / 2]
    }

    /// How many landmarks within `silhouetteRadius_px` of the tap's ray lie nearer than `silhouetteDepthRatio` × the
    /// hit's depth (by more than 3 of their σ) and on no plane (within its inlier band, inside its polygon with 5 cm
    /// to spare): structure whose extent nothing maps, beside the ray in front of the hit. `nil` when there are none
    /// or the test is off.
    func unheldStructureInFront(of hit: RaycastResult, ray: WorldRay, frame: WorldFrame) -> Int? {
        guard silhouetteRadius_px > 0 else { return nil }
        let f = frame.camera.model.intrinsics.fx
        let planes = frame.session.planes
        let beside = frame.session.map.landmarks(nearRayFrom: ray.origin_W, direction: ray.direction_W,
                                                 maxAngle: atan(silhouetteRadius_px / f)).filter { l, _ in
            let depth = (l.p_W - ray.origin_W).dot(ray.direction_W)
            guard depth > 0, depth < silhouetteDepthRatio * hit.distance_m - 3 * l.std_m else { return false }
            // A landmark on the hit's own surface is no structure in front of it (an oblique surface comes nearer
            // across 40 px: at 70° from head-on by a quarter of the depth).
            let offSurface = abs(hit.normal_W.dot(l.p_W - hit.position_W))
            guard offSurface > max(minDepthTolerance_m, 3 * (l.std_m * l.std_m + hit.surfaceStd_m * hit.surfaceStd_m).squareRoot())
            else { return false }
            return !planes.contains { $0.holds(l.p_W, boundaryTolerance_m: 0.05) }
        }
        return beside.isEmpty ? nil : beside.count
    }

    /// The `nearestNeighbours` decisive landmarks nearest the tap within `silhouetteRadius_px` (by angle from the ray),
    /// when all of them lie clearly in front of the hit (see `nearestNeighbours`); `nil` when one nearer than the last
    /// of them supports the hit, or when fewer are found. Depths are along the ray, metres; the pixel distances are
    /// angles times the focal length.
    func nearestStructureInFront(of hit: RaycastResult, ray: WorldRay, frame: WorldFrame, surfaceStd_m: Double)
        -> (count: Int, nearest_px: Double, farthest_px: Double, nearestDepth_m: Double, farthestDepth_m: Double)? {
        guard nearestNeighbours > 0, silhouetteRadius_px > 0 else { return nil }
        let f = frame.camera.model.intrinsics.fx
        let t = hit.distance_m
        var angles: [Double] = [], depths: [Double] = []
        for (l, angle) in frame.session.map.landmarks(nearRayFrom: ray.origin_W, direction: ray.direction_W,
                                                       maxAngle: atan(silhouetteRadius_px / f)) {
            guard 3 * l.std_m <= neighbourMaxRelativeStd * t else { continue }
            let depth = (l.p_W - ray.origin_W).dot(ray.direction_W)
            let tol = max(minDepthTolerance_m, 3 * (l.std_m * l.std_m + surfaceStd_m * surfaceStd_m).squareRoot())
            // How much nearer or deeper the hit's own surface lies at this angle from the ray, if it is oblique.
            let spread = surfaceDepthSpan(hit, overAngle: angle)
            let onSurface = abs(hit.normal_W.dot(l.p_W - hit.position_W)) <= tol
            if onSurface && abs(depth - t) <= tol + spread { return nil }
            guard !onSurface, depth > 0, depth < t - tol else { continue }
            angles.append(angle); depths.append(depth)
            if depths.count == nearestNeighbours {
                return (depths.count, angles.first! * f, angles.last! * f, depths.min()!, depths.max()!)
            }
        }
        return nil
    }

    /// How much nearer or deeper than the hit, along the ray, the hit's surface lies at `angle` (radians) from the
    /// ray: t · tan(angle) / cos(incidence), with the incidence taken at most 80° (cosine 0.17); metres.
    func surfaceDepthSpan(_ hit: RaycastResult, overAngle angle: Double) -> Double {
        hit.distance_m * tan(angle) / max(hit.incidenceCosine, 0.17)
    }

    /// True when the hit's detected plane has landmarks on it (within 3 of their σ, at least the depth tolerance)
    /// within `supportRadius_m` of the hit.
    func hasOwnSupport(_ hit: RaycastResult, frame: WorldFrame) -> Bool {
        guard let id = hit.planeId, let p = frame.session.planeTracker.plane(id: id) else { return false }
        let n = p.normal_W, d = n.dot(p.T_W_P.translation)
        return frame.session.map.landmarks(near: hit.position_W, radius: supportRadius_m)
            .contains { abs(n.dot($0.p_W) - d) <= max(minDepthTolerance_m, 3 * $0.std_m) }
    }

    /// The nearest horizontal plane, other than the hit's, whose level the ray crosses from above in front of the hit
    /// (by more than `tolerance`) inside its boundary, or after passing over it within `rimMargin_m` beyond its far
    /// boundary (`extensionRimMargin_m` for a hit on a non-floor plane's extension; at least `rimSpacingFactor` times
    /// its landmarks' spacing): the tap is just past the mapped rim of a top, whose true edge can lie there (a polygon
    /// is the hull of the top's landmarks, which stop short of its edges), and the hit behind it may be on the wrong
    /// surface. `nil` when there is none.
    func pastRim(of hit: RaycastResult, ray: WorldRay, frame: WorldFrame, tolerance: Double)
        -> (plane: String, depth_m: Double, beyond_m: Double)? {
        guard rimMargin_m > 0 else { return nil }
        let margin = isGuessedExtension(hit, frame: frame) ? max(rimMargin_m, extensionRimMargin_m) : rimMargin_m
        // Every horizontal plane's level the ray crosses, nearest first.
        let crossings = Raycaster.hitPlanes(ray, planes: frame.session.planeTracker.planes, target: .existingPlaneInfinite,
                                            alignment: .horizontal)
        for c in crossings where c.distance_m < hit.distance_m - tolerance {
            guard let id = c.planeId, id != hit.planeId, c.normal_W.dot(ray.direction_W) < 0,
                  let p = frame.session.planeTracker.plane(id: id) else { continue }
            let q = p.T_W_P.inverse.act(c.position_W), o = p.T_W_P.inverse.act(ray.origin_W)
            let crossing = Vec2(q.x, q.y), heading = Vec2(q.x - o.x, q.y - o.y)
            guard p.boundaryLocal.count >= 3, let rim = PlaneGeometry2D.nearestBoundaryPoint(p.boundaryLocal, to: crossing) else { continue }
            if PlaneGeometry2D.convexContains(p.boundaryLocal, crossing) { return (id, c.distance_m, 0) }
            // The nearest boundary point must not lie ahead of the crossing (more than 60° from the ray's heading):
            // the ray passed over the top, or beside it, and came down past its mapped rim. A ray that comes down
            // in front of a top (to its side face, or the floor at its foot) crosses the level before reaching it.
            let toRim = rim - crossing, beyond = toRim.norm
            if beyond <= max(margin, rimSpacingFactor * p.landmarkSpacing_m) && heading.dot(toRim) < 0.5 * heading.norm * beyond {
                return (id, c.distance_m, beyond)
            }
        }
        return nil
    }

    /// The first surface behind `hit` along `ray` (deeper by more than `tolerance`) that is there, inside its
    /// polygon or on the floor's extension (up to `WorldOptions.maxInfiniteExtension_m` out), with the number of
    /// landmarks of `near` (those along the ray, within `maxAngle` radians of it) that lie on it at its depth: within 3
    /// of their and its combined σ, and what it spans over their own angle from the ray, as for confirming a hit.
    /// `nil` when there is none, it has fewer than `marginAlternativeLandmarks` such landmarks, or the test is off
    /// (see `marginAlternativeLandmarks`).
    func confirmedSurfaceBehind(_ hit: RaycastResult, ray: WorldRay, near: [(landmark: MapLandmark, angle: Double)],
                                maxAngle: Double, frame: WorldFrame, tolerance: Double) -> (hit: RaycastResult, count: Int)? {
        guard marginAlternativeLandmarks > 0 else { return nil }
        let f = frame.camera.model.intrinsics.fx
        let tracker = frame.session.planeTracker
        for c in Raycaster.hitPlanes(ray, planes: tracker.planes, target: .existingPlaneInfinite, alignment: .any)
        where c.distance_m > hit.distance_m + tolerance {
            guard let id = c.planeId, id != hit.planeId, let p = tracker.plane(id: id), p.boundaryLocal.count >= 3 else { continue }
            let outside = p.distanceOutsideBoundary(c.position_W)
            let there = outside <= 0 || (p.classification == .floor && outside <= frame.session.options.maxInfiniteExtension_m)
            guard there else { continue }
            var c = c
            if outside <= 0 { c.target = .existingPlaneGeometry }   // said "inside" in the reason
            let sigma = planeSigma(c, frame: frame)
            let count = near.filter { l, beta in
                let depth = (l.p_W - ray.origin_W).dot(ray.direction_W)
                let tol = max(minDepthTolerance_m, 3 * (l.std_m * l.std_m + sigma * sigma).squareRoot())
                let onSurface = abs(c.normal_W.dot(l.p_W - c.position_W)) <= tol
                let span = surfaceDepthSpan(c, overAngle: min(maxAngle, beta + agreementBearingMargin_px / f))
                return onSurface && abs(depth - c.distance_m) <= tol + span
            }.count
            return count >= marginAlternativeLandmarks ? (c, count) : nil
        }
        return nil
    }

    /// How far a geometry hit lies outside its plane's polygon, metres (0 inside; it can lie up to the raycast's
    /// margin outside, see `Raycaster.hitPlanes`); `nil` for other hits.
    func distanceOutsideBoundary(_ hit: RaycastResult, frame: WorldFrame) -> Double? {
        guard hit.target == .existingPlaneGeometry, let id = hit.planeId,
              let p = frame.session.planeTracker.plane(id: id), p.boundaryLocal.count >= 3 else { return nil }
        return p.distanceOutsideBoundary(hit.position_W)
    }

    /// A hit on the infinite extension of a vertical plane above that plane's mapped top edge (by more than
    /// `tolerance`), on a ray coming down from a camera above that edge: the ray passed over the rim of a face (a
    /// cabinet's front seen from 20 cm above its top), and what it meets beyond is the top behind the rim, not the
    /// face's extension in the air above it (V1_01 30 s: a cabinet top's far corner measured on the front face's
    /// extension 13 cm above its mapped top, 0.08 m for 0.80 m; the courtyard: a planter's far corner 29 cm above).
    ///
    /// A ray that comes down at a shallow angle (less than 90° − `maxIncidence_deg` below the horizontal) fails
    /// within `tolerance` of the mapped top as well (`grazing`): `tolerance` is the face's σ along its normal, which
    /// says nothing of how far up the face reaches (its polygon is the hull of its landmarks and stops short of the
    /// rim), and a top behind the rim would be met more obliquely than any surface may be (V1_01 30 s, seeds 4 and
    /// 5: the cabinet top's far corners, seen from 11 cm above the top at 1.5 m, 4–6° below the horizontal, met the
    /// front's extension 7–13 cm above its mapped top, inside the face's 14 cm tolerance, and measured 0.075 m for
    /// 0.80 m).
    ///
    /// So does a hit there from a camera at the level of the mapped top edge (up to `tolerance` above it, up to
    /// `minDepthTolerance_m` below it) on a ray as shallow, rising or falling (`edgeOn`): a top at that level is seen
    /// edge-on, and every point of it, from its near rim to its far corner, lies on the tapped pixel (V1_01
    /// arrangement 67, mono: the cabinet top's far corners, tapped from a camera 3 mm above the top's level, met the
    /// side facing the camera 0.8 m nearer, −42 % and −40 %). Hits inside the polygon, or well below its top, or
    /// from a camera well under the edge (a wall above head height) are not concerned. `nil` when it does not apply.
    func overTopRim(of hit: RaycastResult, ray: WorldRay, frame: WorldFrame, tolerance: Double)
        -> (above_m: Double, cameraAbove_m: Double, grazing: Bool, edgeOn: Bool)? {
        guard hit.target == .existingPlaneInfinite, hit.alignment == .vertical, let id = hit.planeId,
              let p = frame.session.planeTracker.plane(id: id), let top = p.boundary.map(\.z).max() else { return nil }
        let above = hit.position_W.z - top, cameraAbove = ray.origin_W.z - top
        let shallow = grazesHorizontal(ray)
        if ray.direction_W.z < 0, cameraAbove > 0 {
            if above > tolerance { return (above, cameraAbove, false, false) }
            if above > -tolerance, shallow { return (above, cameraAbove, true, false) }
        }
        // Level with the edge: up to `tolerance` above it, and no more than `minDepthTolerance_m` below it (a mapped top
        // edge lies at or under the true one, which a camera further under it cannot see at all).
        if cameraAbove <= tolerance, cameraAbove >= -minDepthTolerance_m, above > -tolerance, shallow {
            return (above, cameraAbove, true, true)
        }
        return nil
    }

    /// A hit on a vertical plane's infinite extension less than `tolerance` above the lower edge of its mapped part
    /// (or under it), where that edge stands more than `tolerance` above the floor, on a ray coming down less steeply
    /// than 90° − `maxIncidence_deg`: `above_m` is the hit's height over that edge (negative under it), metres, and
    /// `footAboveFloor_m` the edge's height over the floor plane.
    ///
    /// A face's landmarks stop above the floor where something in front hid the face from the views that mapped it
    /// (a cabinet before a wall, its top at that edge's level). A ray this shallow that reaches the face there has
    /// passed over that something as over a rim, and a top at the edge's level would be met more obliquely than any
    /// surface may be: the map cannot tell whether the tap is on the face or on that top (V1_01 arrangement 29,
    /// stereo: the cabinet top's far corners, seen 5–6° from above, met the wall behind 3–9 cm under the lower edge of
    /// its mapped part, which stood 1.06 m above the floor, 0.45–0.96 m behind the corners: +60 % and +85 %). A face
    /// mapped down to within `tolerance` of the floor is not concerned (its foot is the floor's edge, nothing hides
    /// it), nor is a hit clearly above the lower edge, nor one on a steeper ray. Walls whose landmarks stop a little
    /// above the floor (7–16 cm on the V1_01 renders, beyond a stereo 3 σ) are concerned only on rays this shallow:
    /// a wall's foot tapped from farther than about 7 m at eye height fails. `nil` when it does not apply, or when no
    /// floor is known.
    func atHiddenFoot(of hit: RaycastResult, ray: WorldRay, frame: WorldFrame, tolerance: Double)
        -> (above_m: Double, footAboveFloor_m: Double)? {
        guard hit.target == .existingPlaneInfinite, hit.alignment == .vertical, let id = hit.planeId,
              ray.direction_W.z < 0, grazesHorizontal(ray),
              let p = frame.session.planeTracker.plane(id: id), let foot = p.boundary.map(\.z).min(),
              let floor = frame.planes.first(where: { $0.classification == .floor }) else { return nil }
        let above = hit.position_W.z - foot, footAboveFloor = foot - floor.height_m
        guard footAboveFloor > tolerance, above < tolerance else { return nil }
        return (above, footAboveFloor)
    }

    /// True when `ray` runs so close to the horizontal, rising or falling, that a horizontal surface would be met more
    /// than `maxIncidence_deg` from head-on (the cosine of that incidence is the ray's slope, |direction.z|): a top
    /// the ray may be meeting cannot be measured from here.
    func grazesHorizontal(_ ray: WorldRay) -> Bool {
        abs(ray.direction_W.z) < cos(maxIncidence_deg * Double.pi / 180)
    }

    /// True for a hit on the infinite extension of a plane other than the floor: a top or a wall piece ends where
    /// its landmarks end, as far as anything says, while the floor runs on under everything in a room.
    func isGuessedExtension(_ hit: RaycastResult, frame: WorldFrame) -> Bool {
        guard hit.target == .existingPlaneInfinite else { return false }
        guard let id = hit.planeId, let p = frame.session.planeTracker.plane(id: id) else { return true }
        return p.classification != .floor
    }

    func describe(_ hit: RaycastResult) -> String {
        hit.planeId.map { "\($0) (\(hit.target == .existingPlaneInfinite ? "extended" : "inside"))" } ?? "the estimated surface"
    }
}
