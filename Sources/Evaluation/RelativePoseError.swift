import Foundation
import Geometry
import Sensors

/// Sub-trajectory lengths for the relative pose error.
public enum SegmentLengths: Equatable, Sendable {
    /// Fractions (0…1) of the ground-truth path length, as rpg_trajectory_evaluation (10–50 %).
    case fractionsOfPath([Double])
    /// Explicit lengths in metres, as OpenVINS (8–48 m).
    case metres([Double])

    /// rpg_trajectory_evaluation's default: 10, 20, 30, 40 and 50 % of the path length.
    public static let `default` = SegmentLengths.fractionsOfPath([0.1, 0.2, 0.3, 0.4, 0.5])

    /// Parses `10%,20%,30%` (percent of the path) or `8,16,24m` / `8m,16m` (metres; a bare list of numbers
    /// with a trailing `m` on the last, or on each). Returns nil for anything else.
    public init?(parsing text: String) {
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !items.isEmpty, items.allSatisfy({ !$0.isEmpty }) else { return nil }
        if items.allSatisfy({ $0.hasSuffix("%") }) {
            let values = items.compactMap { Double($0.dropLast()) }
            guard values.count == items.count, values.allSatisfy({ $0 > 0 && $0 <= 100 && $0.isFinite }) else { return nil }
            self = .fractionsOfPath(values.map { $0 / 100 })
        } else if items.last?.hasSuffix("m") == true {
            let values = items.compactMap { Double($0.hasSuffix("m") ? String($0.dropLast()) : $0) }
            guard values.count == items.count, values.allSatisfy({ $0 > 0 && $0.isFinite }) else { return nil }
            self = .metres(values)
        } else {
            return nil
        }
    }

    /// The lengths in metres for a ground-truth path of `pathLength_m`.
    public func lengths(pathLength_m: Double) -> [Double] {
        switch self {
        case .fractionsOfPath(let f): return f.map { $0 * pathLength_m }
        case .metres(let m): return m
        }
    }
}

/// The relative pose error for one sub-trajectory length.
public struct RelativeErrorSegment: Equatable, Sendable {
    /// The sub-trajectory length, metres.
    public var length_m: Double
    /// The fraction of the path length this length was made from (nil for explicit metres).
    public var fractionOfPath: Double?
    /// Translation error of each pose pair, metres.
    public var translationErrors_m: [Double]
    /// Translation error of each pose pair as a percentage of `length_m`.
    public var translationErrors_pct: [Double]
    /// Rotation error angle of each pose pair, degrees.
    public var rotationErrors_deg: [Double]

    /// Statistics of the translation errors (metres).
    public var translation: ErrorStatistics { ErrorStatistics(translationErrors_m) }
    /// Statistics of the translation errors (percent of `length_m`).
    public var translationPercent: ErrorStatistics { ErrorStatistics(translationErrors_pct) }
    /// Statistics of the rotation errors (degrees).
    public var rotation: ErrorStatistics { ErrorStatistics(rotationErrors_deg) }
}

/// Relative pose error over sub-trajectories of given travelled distance, as rpg_trajectory_evaluation.
///
/// Travelled distance is accumulated along the associated ground-truth positions. For each start pose i
/// and length L the end pose j is the one whose travelled distance is closest to `d_i + L`, used only when
/// within 20 % of L (rpg's `max_dist_diff`), and only when the path goes on to at least `d_i + L` (unlike
/// rpg, a shorter tail is not counted as a segment of length L). The error of the pair is
/// `ΔT = (G_i⁻¹ G_j)⁻¹ (E_i⁻¹ E_j)` with `E` the aligned estimate (scaled for Sim(3)): its translation norm
/// (metres, and percent of L) and its rotation angle (degrees). Both are invariant to the choice of rigid
/// alignment.
public enum RelativePoseError {
    /// Largest mismatch between the travelled distance of a pair and the segment length, as a fraction of it.
    public static let distanceTolerance = 0.2

    /// Cumulative travelled distance along `positions`, metres (first element 0).
    public static func travelledDistances(_ positions: [Vec3]) -> [Double] {
        var d = [Double](repeating: 0, count: positions.count)
        for k in positions.indices.dropFirst() { d[k] = d[k - 1] + (positions[k] - positions[k - 1]).norm }
        return d
    }

    /// The relative errors of `pairs` (estimate mapped by `alignment`) for each length of `segments`.
    public static func compute(pairs: [AssociatedPair], alignment: SimilarityTransform,
                               segments: SegmentLengths = .default) -> [RelativeErrorSegment] {
        let gt = pairs.map(\.groundTruth)
        let est = pairs.map { alignment.act($0.estimate) }
        let dist = travelledDistances(gt.map(\.translation))
        let total = dist.last ?? 0
        let lengths = segments.lengths(pathLength_m: total)
        let fractions: [Double?]
        if case .fractionsOfPath(let f) = segments { fractions = f } else { fractions = lengths.map { _ in nil } }
        return zip(lengths, fractions).map { length, fraction in
            var segment = RelativeErrorSegment(length_m: length, fractionOfPath: fraction,
                                               translationErrors_m: [], translationErrors_pct: [], rotationErrors_deg: [])
            guard length > 0 else { return segment }
            for i in pairs.indices {
                guard let j = endIndex(distances: dist, start: i, length: length) else { continue }
                let relGT = gt[i].inverse * gt[j]
                let relEst = est[i].inverse * est[j]
                let error = relGT.inverse * relEst
                let t = error.translation.norm
                segment.translationErrors_m.append(t)
                segment.translationErrors_pct.append(t / length * 100)
                segment.rotationErrors_deg.append(error.rotation.angle * 180 / .pi)
            }
            return segment
        }
    }

    /// The index j ≥ start whose distance is closest to `distances[start] + length`, if within tolerance.
    static func endIndex(distances: [Double], start: Int, length: Double) -> Int? {
        let target = distances[start] + length
        // The path must reach the target: a shorter tail is not a sub-trajectory of this length
        // (1e-9 relative allows for rounding in the accumulated distances).
        guard let last = distances.last, target <= last + 1e-9 * max(1, length) else { return nil }
        // First index with distance ≥ target (binary search; distances are non-decreasing).
        var lo = start, hi = distances.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if distances[mid] < target { lo = mid + 1 } else { hi = mid }
        }
        var best: Int?
        var bestDiff = distanceTolerance * length
        for k in [lo - 1, lo] where k > start && k < distances.count {
            let diff = abs(distances[k] - target)
            if diff < bestDiff { best = k; bestDiff = diff }
        }
        return best
    }
}
