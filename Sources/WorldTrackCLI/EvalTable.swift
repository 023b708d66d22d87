import Evaluation
import Foundation

/// The human-readable table `worldtrack eval` prints.
enum EvalTable {
    static func render(_ r: EvaluationReport, estimatePath: String, groundTruthPath: String) -> String {
        func f(_ x: Double, _ digits: Int = 4) -> String { String(format: "%.\(digits)f", x) }
        var lines: [String] = []
        lines.append("estimate     \(estimatePath) (\(r.estimateCount) poses)")
        lines.append("ground truth \(groundTruthPath) (\(r.groundTruthCount) poses)")
        let o = r.options
        lines.append("pairs        \(r.pairs.count) within \(f(Double(o.maxDt_ns) * 1e-9, 3)) s (\(o.association.rawValue)), "
                     + "\(f(r.duration_s, 2)) s, path \(f(r.pathLength_m, 2)) m")
        let alignNote = o.fixedAlignment != nil ? " of the --alignment-of trajectory (the estimate itself is not aligned)"
            : o.alignFirst == nil ? " on all pairs" : " on the first \(r.alignedOn) pairs"
        lines.append("alignment    \(o.alignment.rawValue)\(alignNote)")
        lines.append("")
        let p = r.ate.position, q = r.ate.rotation
        lines.append("ATE            rmse      mean    median       max")
        lines.append("position m " + [p.rmse, p.mean, p.median, p.max].map { pad(f($0), 10) }.joined())
        lines.append("rotation ° " + [q.rmse, q.mean, q.median, q.max].map { pad(f($0, 3), 10) }.joined())
        let tilt = r.tilt.statistics
        lines.append("tilt °     " + [tilt.rmse, tilt.mean, tilt.median, tilt.max].map { pad(f($0, 3), 10) }.joined()
                     + "   (the vertical in the body frame; no alignment)")
        lines.append("")
        lines.append("scale error  " + (r.scaleErrorPercent.map { "\(f($0, 3)) % (Sim(3) scale \(f(r.sim3Scale ?? 1, 5)))" } ?? "n/a (degenerate)"))
        lines.append("completeness \(f(r.completeness * 100, 1)) %")
        lines.append("")
        lines.append("RPE   length m   pairs   trans mean m   median m   mean %    rot mean °   rot rmse °")
        for s in r.rpe {
            let t = s.translation, pct = s.translationPercent, rot = s.rotation
            let label = s.fractionOfPath.map { pad("\(Int(($0 * 100).rounded()))%", 5) } ?? "     "
            if t.count == 0 {
                lines.append("\(label)\(pad(f(s.length_m, 2), 10))\(pad("0", 8))   — (no pose pair this far apart: no figures)")
                continue
            }
            lines.append(label + pad(f(s.length_m, 2), 10) + pad("\(t.count)", 8) + pad(f(t.mean), 15) + pad(f(t.median), 11)
                         + pad(f(pct.mean, 2), 9) + pad(f(rot.mean, 3), 13) + pad(f(rot.rmse, 3), 13))
        }
        if !r.warnings.isEmpty {
            lines.append("")
            for w in r.warnings { lines.append("warning: \(w)") }
        }
        return lines.joined(separator: "\n")
    }

    static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? " " + s : String(repeating: " ", count: width - s.count) + s
    }
}
