import Estimation
import Foundation
import Geometry
import Testing
@testable import World

/// The plane detector's inner kernels against the plain computations they replace: they must give the same answers
/// bit for bit, since a plane found or missed changes the stream.
@Suite struct PlaneDetectorKernelTests {
    /// The sorted-array median the selection replaces.
    static func sortedMedian(_ v: [Double]) -> Double {
        let s = v.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    @Test func medianBySelectionEqualsTheSortedMedian() {
        var rng = SeededRandom(seed: 11)
        for n in [1, 2, 3, 4, 5, 8, 17, 64, 101, 1000, 1001] {
            // Continuous values, heavy ties (a few distinct values) and already-sorted input (a bad pivot case).
            let continuous = (0..<n).map { _ in rng.uniform(-3, 3) }
            let ties = (0..<n).map { _ in Double(Int(rng.uniform(0, 4))) * 0.25 }
            let ascending = (0..<n).map { Double($0) * 0.01 }
            for v in [continuous, ties, ascending, ascending.reversed()] {
                #expect(PlaneDetector.median(v) == Self.sortedMedian(v), "n = \(n)")
            }
        }
    }

    /// Landmarks for the neighbour kernels: a floor, two walls (landmarks stacked in columns) and a box.
    static func room(_ rng: inout SeededRandom) -> [MapLandmark] {
        var p: [Vec3] = []
        for _ in 0..<600 { p.append(Vec3(rng.uniform(-3, 3), rng.uniform(-2, 2), 0.01 * rng.gaussian())) }
        for _ in 0..<400 { p.append(Vec3(rng.uniform(-3, 3), 2 + 0.01 * rng.gaussian(), rng.uniform(0, 2.5))) }
        for _ in 0..<300 { p.append(Vec3(3 + 0.01 * rng.gaussian(), rng.uniform(-2, 2), rng.uniform(0, 2.5))) }
        for _ in 0..<80 { p.append(Vec3(rng.uniform(0, 0.4), rng.uniform(0, 0.3), 0.5 + 0.005 * rng.gaussian())) }
        return p.enumerated().map { i, q in
            MapLandmark(id: i, p_W: q, std_m: 0.01, weight: 1, observations: 1, firstSeen_ns: 0, lastSeen_ns: 0)
        }
    }

    @Test func verticalNeighboursAgreeWithABruteForceSearch() {
        var rng = SeededRandom(seed: 5)
        let l = Self.room(&rng)
        let column = VerticalNeighbours(l, radius: 0.15, maxDz: 0.5)
        var inside = 0
        for p in l {
            for minDz in [0.05, 0.08] {
                var above = false, below = false
                for q in l {
                    let dz = q.p_W.z - p.p_W.z
                    guard abs(dz) >= minDz && abs(dz) <= 0.5
                        && Vec2(q.p_W.x - p.p_W.x, q.p_W.y - p.p_W.y).norm <= 0.15 else { continue }
                    if dz > 0 { above = true } else { below = true }
                }
                let got = column.isInsideVerticalStructure(p.p_W, minDz: minDz)
                #expect(got == (above && below))
                if got { inside += 1 }
            }
        }
        // Both answers occur: the walls' landmarks are inside vertical structure, the floor's are not.
        #expect(inside > 500 && inside < 2 * l.count - 1000)
        // Asked all at once (cell by cell), each landmark with its own minimum, the answers are the same.
        let minDz = l.indices.map { $0 % 2 == 0 ? 0.05 : 0.08 }
        let batch = column.insideVerticalStructure { minDz[$0] }
        #expect(batch == l.indices.map { column.isInsideVerticalStructure(l[$0].p_W, minDz: minDz[$0]) })
    }

    @Test func medianNearestNeighbourAgreesWithABruteForceSearch() {
        var rng = SeededRandom(seed: 9)
        for n in [2, 3, 50, 700] {
            // Clustered points: a dense patch inside a sparse spread, so grid cells hold very different counts.
            let q = (0..<n).map { i in
                i % 3 == 0 ? Vec2(rng.uniform(-4, 4), rng.uniform(-1, 1)) : Vec2(rng.uniform(0, 0.3), rng.uniform(0, 0.2))
            }
            var lo = Vec2(Double.infinity, .infinity), hi = -lo
            for p in q { lo = Vec2(min(lo.x, p.x), min(lo.y, p.y)); hi = Vec2(max(hi.x, p.x), max(hi.y, p.y)) }
            let cap = 4 * max(1e-3, ((hi.x - lo.x) * (hi.y - lo.y) / Double(n)).squareRoot())
            let nn = q.indices.map { i in
                q.indices.reduce(cap) { $1 == i ? $0 : min($0, (q[$1] - q[i]).norm) }
            }
            #expect(PlaneDetector.medianNearestNeighbour(q) == Self.sortedMedian(nn), "n = \(n)")
        }
    }
}

/// The component cell of `splitByHeight`, settled without the median nearest-neighbour distance when half the
/// points have close neighbours, against the formula with the median.
@Suite struct SpacingCellTests {
    static func formula(_ q: [Vec2], lo: Double, hi: Double) -> Double {
        min(max(lo, 3 * PlaneDetector.medianNearestNeighbour(q)), hi)
    }

    @Test func theCellIsTheFormulasOnDenseSparseAndBorderlineSets() {
        var rng = SeededRandom(seed: 41)
        var sets: [[Vec2]] = [[], [Vec2(1, 1)], [Vec2(0, 0), Vec2(0.05, 0)], [Vec2(0, 0), Vec2(2, 0)]]
        for n in [3, 40, 400, 3000] {
            // Dense (a floor's landmarks: a few centimetres apart), sparse (metres apart), and mixed.
            sets.append((0..<n).map { _ in Vec2(rng.uniform(0, 1), rng.uniform(0, 1)) * (Double(n).squareRoot() * 0.03) })
            sets.append((0..<n).map { _ in Vec2(rng.uniform(0, 1), rng.uniform(0, 1)) * (Double(n).squareRoot() * 1.5) })
            sets.append((0..<n).map { i in i % 2 == 0 ? Vec2(rng.uniform(0, 0.5), rng.uniform(0, 0.5))
                                                      : Vec2(rng.uniform(0, 30), rng.uniform(0, 30)) })
        }
        // Exactly half the points in close pairs, the rest metres apart: the median is the mean of a close and a far
        // distance, above the threshold, though half the points have close neighbours.
        var borderline: [Vec2] = []
        for k in 0..<10 { borderline += [Vec2(Double(k) * 3, 0), Vec2(Double(k) * 3 + 0.01, 0)] }
        for k in 0..<20 { borderline.append(Vec2(Double(k) * 3, 50)) }
        sets.append(borderline)
        for q in sets {
            for (lo, hi) in [(0.3, 1.0), (0.1, 0.5), (0.3, 0.3)] {
                #expect(PlaneDetector.spacingCell(q, lo: lo, hi: hi) == Self.formula(q, lo: lo, hi: hi), "n = \(q.count)")
            }
        }
        #expect(PlaneDetector.spacingCell(borderline, lo: 0.3, hi: 1.0) == 1.0)
    }
}

/// The convex hull with its interior pre-filter against the plain monotone chain: the same vertices in the same
/// order, on scattered, clustered, collinear and duplicated points.
@Suite struct ConvexHullFilterTests {
    @Test func theFilteredHullEqualsThePlainOne() {
        var rng = SeededRandom(seed: 3)
        var sets: [[Vec2]] = []
        for n in [3, 31, 32, 33, 100, 2000] {
            sets.append((0..<n).map { _ in Vec2(rng.uniform(-2, 5), rng.uniform(-1, 1)) })
            // A disc (many points near the hull), a rectangle's grid (collinear edges, exact duplicates).
            sets.append((0..<n).map { _ in
                let a = rng.uniform(0, 2 * Double.pi), r = 0.5 + 0.01 * rng.uniform()
                return Vec2(r * cos(a), r * sin(a))
            })
            let side = max(2, Int(Double(n).squareRoot()))
            sets.append((0..<n).map { i in Vec2(Double(i % side) * 0.1, Double(i / side % side) * 0.1) })
        }
        sets.append([Vec2](repeating: Vec2(1, 1), count: 50))
        sets.append((0..<50).map { Vec2(Double($0) * 0.01, 2 * Double($0) * 0.01) })
        for points in sets {
            #expect(PlaneGeometry2D.convexHull(points) == PlaneGeometry2D.monotoneChain(points), "\(points.count) points")
        }
        // The filter does leave out the interior of a large scattered set (the 2000 points of the first kind).
        let many = sets[15]
        #expect(many.count == 2000 && PlaneGeometry2D.outsideExtremeOctagon(many).count < many.count / 4)
    }

    /// Candidates for the outline tests: dense slabs (1 cm thick) of several shapes, horizontal and tilted, some with
    /// rows of exactly collinear points along their edges (a grid), where the hull drops collinear points.
    static func outlineCandidates(_ rng: inout SeededRandom) -> [PlaneCandidate] {
        var out: [PlaneCandidate] = []
        let normals = [Vec3(0, 0, 1), Vec3(1, 0, 0), Vec3(0.6, 0.8, 0), Vec3(0.3, -0.2, 0.93).normalized, Vec3(-0.7, 0.1, 0.2).normalized]
        for (k, n) in normals.enumerated() {
            let frame = PlaneAnchor.frameRotation(normal: n)
            let shift = Vec3(rng.uniform(-5, 5), rng.uniform(-5, 5), rng.uniform(0, 2))
            for shape in 0..<3 {
                var local: [Vec2] = []
                switch shape {
                case 0: // a disc
                    for _ in 0..<2000 { let r = 1.5 * rng.uniform(0, 1).squareRoot(), a = rng.uniform(0, 2 * .pi); local.append(Vec2(r * cos(a), r * sin(a))) }
                case 1: // an L of two rectangles
                    for _ in 0..<1000 { local.append(Vec2(rng.uniform(0, 3), rng.uniform(0, 0.8))) }
                    for _ in 0..<1000 { local.append(Vec2(rng.uniform(0, 0.8), rng.uniform(0, 2.5))) }
                default: // a grid: whole rows of points on the outline's edges
                    for i in 0...40 { for j in 0...25 { local.append(Vec2(0.05 * Double(i), 0.04 * Double(j))) } }
                }
                let points = local.map { q in frame.act(Vec3(q.x, q.y, shape == 2 ? 0 : 0.01 * rng.gaussian())) + shift }
                out.append(PlaneCandidate(alignment: k == 0 ? .horizontal : .vertical, normal_W: n, offset_m: n.dot(shift),
                                          offsetStd_m: 0.005, points: points, band_m: 0.03))
            }
        }
        return out
    }

    /// A plane looking along `c`'s normal, its frame turned about it and moved, as a tracker's plane is.
    static func plane(along c: PlaneCandidate, yaw: Double, origin: Vec3) -> PlaneAnchor {
        let R = PlaneAnchor.frameRotation(normal: c.normal_W) * SO3(angle: yaw, axis: Vec3(0, 0, 1))
        return PlaneAnchor(id: "plane-1", alignment: c.alignment, classification: .none, T_W_P: SE3(rotation: R, translation: origin),
                           center: origin, extent: PlaneExtent(width: 0, length: 0, yaw: 0), boundaryLocal: [],
                           offset_m: c.offset_m, offsetStd_m: c.offsetStd_m, pointCount: c.points.count,
                           firstSeen_ns: 0, lastUpdated_ns: 0)
    }

    /// The points the detector keeps for the tracker's outlines (worked out on its worker thread) give, in any frame
    /// that looks along the candidate's normal, the same convex outline as all the candidate's points, bit for bit: the
    /// tracker's planes, and so the stream, do not change. And they are few, or there would be nothing gained.
    @Test func outlinePointsGiveTheSameOutlineAsAllThePoints() {
        var rng = SeededRandom(seed: 23)
        for c in Self.outlineCandidates(&rng) {
            let o = c.withOutlinePoints()
            guard let outline = o.outlinePoints else { Issue.record("no outline points"); continue }
            #expect(outline.count * 8 < c.points.count, "\(outline.count) of \(c.points.count) kept")
            #expect(Set(outline.map { [$0.x, $0.y, $0.z] }).isSubset(of: Set(c.points.map { [$0.x, $0.y, $0.z] })))
            for _ in 0..<4 {
                let p = Self.plane(along: c, yaw: rng.uniform(-.pi, .pi), origin: c.points[Int(rng.uniform(0, Double(c.points.count)))])
                let all = PlaneGeometry2D.convexHull(c.points.map { p.local($0) })
                #expect(PlaneGeometry2D.convexHull(outline.map { p.local($0) }) == all)
                #expect(PlaneTracker().outlineSupport(o, in: p) == outline)
            }
            // A plane that looks along another normal (a wall refined towards its own) hulls all the points.
            var turned = Self.plane(along: c, yaw: 0, origin: c.points[0])
            turned.T_W_P.rotation = SO3(angle: 0.01, axis: Vec3(0, 1, 0)) * turned.T_W_P.rotation
            #expect(PlaneTracker().outlineSupport(o, in: turned) == c.points)
        }
    }

    /// Fed the same detections with and without their outline points, the tracker makes the same planes and changes.
    @Test func trackerOutputIsTheSameWithOutlinePoints() {
        var rng = SeededRandom(seed: 29)
        var plain = PlaneTracker(), fast = PlaneTracker()
        for pass in 0..<8 {
            // A floor and a wall that grow pass by pass (the boundary refit and the matching both hull them).
            let grow = 1 + 0.2 * Double(pass)
            let floor = (0..<(800 + 100 * pass)).map { _ in Vec3(rng.uniform(-2, 2) * grow, rng.uniform(-1.5, 1.5), 0.005 * rng.gaussian()) }
            let wall = (0..<(400 + 50 * pass)).map { _ in Vec3(rng.uniform(-2, 2) * grow, 2 + 0.005 * rng.gaussian(), rng.uniform(0, 2.5)) }
            let detected = [PlaneCandidate(alignment: .horizontal, normal_W: Vec3(0, 0, 1), offset_m: 0, offsetStd_m: 0.003, points: floor, band_m: 0.03),
                            PlaneCandidate(alignment: .vertical, normal_W: Vec3(0, 1, 0), offset_m: 2, offsetStd_m: 0.003, points: wall, band_m: 0.03)]
            let t = Int64(pass) * 500_000_000
            let a = plain.update(with: detected, at: t, cameraPosition_W: Vec3(0, 0, 1.5))
            let b = fast.update(with: detected.map { $0.withOutlinePoints() }, at: t, cameraPosition_W: Vec3(0, 0, 1.5))
            #expect(a == b, "pass \(pass)")
            #expect(plain.planes == fast.planes, "pass \(pass)")
        }
        #expect(plain.planes.count == 2)
    }
}
