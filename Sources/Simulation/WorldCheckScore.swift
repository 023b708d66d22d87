import Foundation
import Geometry

/// What the `measure` consumer answered for one planned tap.
public struct TapOutcome: Equatable, Sendable, Codable {
    /// The planned tap (truth).
    public var tap: PlannedTap
    /// `ok` or `failed`.
    public var status: String
    /// Why it failed.
    public var reason: String?
    /// Measured length and its reported 1-σ, metres (when ok).
    public var total: Double?, totalStd: Double?
    /// Free-form diagnostics (what each end hit).
    public var detail: String?

    /// An outcome (see the properties).
    public init(tap: PlannedTap, status: String, reason: String?, total: Double?, totalStd: Double?, detail: String? = nil) {
        self.tap = tap; self.status = status; self.reason = reason; self.total = total; self.totalStd = totalStd
        self.detail = detail
    }

    /// |measured − true| / true, when ok.
    public var relativeError: Double? { total.map { abs($0 - tap.length) / tap.length } }
    /// True when ok and the true length lies within the reported 2 σ.
    public var within2Sigma: Bool { total.map { abs($0 - tap.length) <= 2 * (totalStd ?? 0) } ?? false }
}

/// A horizontal plane the world layer reported, already mapped into the scene's world frame (e.g. by the posyaw
/// alignment of the estimated trajectory to the ground truth).
public struct ObservedPlane: Equatable, Sendable, Codable {
    /// Plane id.
    public var id: String
    /// Classification reported (`floor`, `table`, …).
    public var classification: String
    /// Height, scene world z, metres.
    public var height: Double
    /// Convex boundary, scene world (x, y), metres.
    public var boundary: [Vec2]
    /// An observed plane (see the properties).
    public init(id: String, classification: String, height: Double, boundary: [Vec2]) {
        self.id = id; self.classification = classification; self.height = height; self.boundary = boundary
    }
}

/// One observed plane scored against the scene's horizontal surfaces.
public struct PlaneVerdict: Equatable, Sendable, Codable {
    /// The plane.
    public var plane: ObservedPlane
    /// Area of its boundary, m².
    public var area: Double
    /// The true surface it stands for (under it and within `phantomHeight_m` of its height, under most of it; for a
    /// phantom the one nearest in height), with the plane's height minus that surface's, metres.
    public var surface: String?
    public var heightError: Double?
    /// Fraction of the plane's area over true horizontal surfaces within `phantomHeight_m` of its height.
    public var supportedFraction: Double
    /// True when (almost) nothing under the plane is a true surface within `phantomHeight_m` of its height: less than
    /// `phantomSupport` of its area (the rim of a real surface's hull can reach past it).
    public var phantom: Bool
    /// True when it is not a phantom but less than half of it lies over its surface (a polygon reaching past it).
    public var overextended: Bool
}

/// Scores a world-layer run against a scene: measurement taps (median relative error, taps beyond 10 %, true
/// length within the reported 2 σ, failures and their reasons) and horizontal planes (phantoms, height errors).
public struct WorldCheckScore: Equatable, Sendable, Codable {
    /// Every tap's outcome.
    public var taps: [TapOutcome]
    /// Every horizontal plane's verdict.
    public var planes: [PlaneVerdict]

    /// A plane is a phantom when no true horizontal surface lies within this of its height under (most of) it.
    public static let phantomHeight_m = 0.05
    /// … over less than this fraction of its area.
    public static let phantomSupport = 0.1
    /// True surfaces are grown by this in x-y when testing which lies under a plane (the landmarks of a top's rim
    /// are triangulated a little beyond it).
    public static let footprintMargin_m = 0.05

    /// Scores taps and planes; `surfaces` are the scene's horizontal surfaces (floor, tops, ceiling).
    public init(taps: [TapOutcome], planes: [ObservedPlane], scene: Scene) {
        self.taps = taps
        let horizontal = scene.surfaces.filter { abs($0.normal_W.z) > 0.999 }
        self.planes = planes.map { Self.verdict($0, horizontal) }
    }

    static func verdict(_ p: ObservedPlane, _ horizontal: [SceneSurface]) -> PlaneVerdict {
        // Sample the plane's polygon on a grid (≥ 400 samples, ≤ 5 cm spacing) and look what lies under each sample.
        let xs = p.boundary.map(\.x), ys = p.boundary.map(\.y)
        let area = polygonArea(p.boundary)
        var samples: [Vec2] = []
        if let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max() {
            let step = min(0.05, max(1e-3, ((x1 - x0) * (y1 - y0) / 400).squareRoot()))
            var y = y0 + step / 2
            while y < y1 {
                var x = x0 + step / 2
                while x < x1 { if contains(p.boundary, Vec2(x, y)) { samples.append(Vec2(x, y)) }; x += step }
                y += step
            }
        }
        if samples.isEmpty, !p.boundary.isEmpty { samples = [p.boundary.reduce(Vec2.zero, +) / Double(p.boundary.count)] }
        // Which true surface the plane stands for: of those under it within `phantomHeight_m` of its height, the one
        // under most of it; for a phantom, the one nearest in height under most of it.
        var under: [Int: Int] = [:], near: [Int: Int] = [:]
        var supported = 0
        for s in samples {
            let covering = horizontal.filter { covers($0, s) }
            let close = covering.filter { abs($0.corners_W[0].z - p.height) <= phantomHeight_m }
            if !close.isEmpty { supported += 1 }
            for c in close { near[c.id, default: 0] += 1 }
            if let top = covering.min(by: { abs($0.corners_W[0].z - p.height) < abs($1.corners_W[0].z - p.height) }) {
                under[top.id, default: 0] += 1
            }
        }
        let pick = near.isEmpty ? under : near
        let main = pick.max { ($0.value, -$0.key) < ($1.value, -$1.key) }.flatMap { k in horizontal.first { $0.id == k.key } }
        let fraction = samples.isEmpty ? 0 : Double(supported) / Double(samples.count)
        return PlaneVerdict(plane: p, area: area, surface: main?.name, heightError: main.map { p.height - $0.corners_W[0].z },
                            supportedFraction: fraction, phantom: fraction < phantomSupport,
                            overextended: fraction >= phantomSupport && fraction < 0.5)
    }

    static func covers(_ s: SceneSurface, _ q: Vec2) -> Bool {
        let xs = s.corners_W.map(\.x), ys = s.corners_W.map(\.y)
        let m = footprintMargin_m
        return q.x >= xs.min()! - m && q.x <= xs.max()! + m && q.y >= ys.min()! - m && q.y <= ys.max()! + m
    }

    static func polygonArea(_ p: [Vec2]) -> Double {
        guard p.count >= 3 else { return 0 }
        var s = 0.0
        for i in p.indices { let a = p[i], b = p[(i + 1) % p.count]; s += a.x * b.y - b.x * a.y }
        return abs(s) / 2
    }

    /// True when `q` lies inside the convex polygon `poly` (either orientation).
    public static func contains(_ poly: [Vec2], _ q: Vec2) -> Bool {
        guard poly.count >= 3 else { return false }
        var sign = 0.0
        for i in poly.indices {
            let a = poly[i], b = poly[(i + 1) % poly.count]
            let c = (b.x - a.x) * (q.y - a.y) - (b.y - a.y) * (q.x - a.x)
            if abs(c) < 1e-15 { continue }
            if sign == 0 { sign = c } else if (c > 0) != (sign > 0) { return false }
        }
        return true
    }

    // MARK: Summary figures

    /// Taps answered `ok`.
    public var ok: [TapOutcome] { taps.filter { $0.status == "ok" } }
    /// Median relative error of the ok taps (`nil` when none).
    public var medianRelativeError: Double? {
        let e = ok.compactMap(\.relativeError).sorted()
        guard !e.isEmpty else { return nil }
        return e.count % 2 == 1 ? e[e.count / 2] : (e[e.count / 2 - 1] + e[e.count / 2]) / 2
    }
    /// Ok taps more than 10 % off.
    public var beyond10Percent: [TapOutcome] { ok.filter { ($0.relativeError ?? 0) > 0.10 } }
    /// Fraction of ok taps whose true length lies within the reported 2 σ.
    public var within2SigmaFraction: Double { ok.isEmpty ? 0 : Double(ok.filter(\.within2Sigma).count) / Double(ok.count) }
    /// Failed taps by reason.
    public var failureReasons: [String: Int] {
        var r: [String: Int] = [:]
        for t in taps where t.status != "ok" { r[t.reason ?? "?", default: 0] += 1 }
        return r
    }
    /// Phantom planes.
    public var phantoms: [PlaneVerdict] { planes.filter(\.phantom) }
    /// Largest |height error| of the non-phantom planes, metres.
    public var worstHeightError: Double { planes.filter { !$0.phantom }.compactMap(\.heightError).map(abs).max() ?? 0 }

    /// A human-readable report: one line per tap and plane, then the summary.
    public func text(title: String, verbose: Bool = false) -> String {
        var s = "\(title)\n"
        for t in taps {
            let what = String(format: "%-28@ %-9@ t=%.2f true %.3f m", t.tap.label as NSString, t.tap.kind as NSString,
                              Double(t.tap.t_ns) * 1e-9, t.tap.length)
            if t.status == "ok", let total = t.total, let e = t.relativeError {
                s += what + String(format: "  measured %.3f ± %.3f (2σ %@)  %+.1f %%\n", total, 2 * (t.totalStd ?? 0),
                                   t.within2Sigma ? "ok" : "MISS", 100 * (total - t.tap.length) / t.tap.length)
                if verbose, let d = t.detail { s += "      \(d)\n" }
                _ = e
            } else {
                s += what + "  failed: \(t.reason ?? "?")\n"
                if verbose, let d = t.detail { s += "      \(d)\n" }
            }
        }
        for v in planes {
            s += String(format: "%-9@ %-8@ h=%.3f m  area %.2f m²  over %@  Δh %@  supported %.0f %%%@\n",
                        v.plane.id as NSString, v.plane.classification as NSString, v.plane.height, v.area,
                        (v.surface ?? "nothing") as NSString,
                        (v.heightError.map { String(format: "%+.1f cm", 100 * $0) } ?? "–") as NSString,
                        100 * v.supportedFraction, v.phantom ? "  PHANTOM" : (v.overextended ? "  overextended" : ""))
        }
        let failed = taps.count - ok.count
        s += String(format: "taps %d: ok %d, failed %d; median relative error %.2f %%; beyond 10 %%: %d; within 2σ: %.0f %% (%d of %d)\n",
                    taps.count, ok.count, failed, 100 * (medianRelativeError ?? .nan), beyond10Percent.count,
                    100 * within2SigmaFraction, ok.filter(\.within2Sigma).count, ok.count)
        if !failureReasons.isEmpty {
            s += "failed: " + failureReasons.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key)" }.joined(separator: "; ") + "\n"
        }
        s += String(format: "horizontal planes %d: phantom %d, overextended %d; worst height error %.1f cm\n", planes.count,
                    phantoms.count, planes.filter(\.overextended).count, 100 * worstHeightError)
        return s
    }
}
