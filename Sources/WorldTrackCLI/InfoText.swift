import Foundation
import Sensors

extension InfoReport {
    /// The report as aligned, human-readable text.
    func text() -> String {
        var out: [String] = []
        out.append("Dataset  \(dataset)")
        out.append("")
        out.append("Cameras")
        var cams = OutputTable(header: ["name", "model", "distortion", "resolution", "rate", "frames", "span", "missing images"])
        for c in cameras {
            let rate = c.rateHz.map { "\(Self.fixed($0, 2)) Hz" } ?? "-"
            let missing = c.missingImages == 0 ? "0"
                : "\(c.missingImages) of \(c.listed) (first: \(c.missingImageNames.first ?? "?"))"
            cams.add([c.name, c.model, c.distortion, "\(c.width)×\(c.height)", rate + " (yaml \(Self.short(c.rateHzYaml)))",
                      "\(c.frames)", Self.span(c.durationS, c.firstTNs, c.lastTNs), missing])
        }
        out.append(cams.text)
        out.append("")
        out.append("IMU")
        let rate = imu.rateHz.map { "\(Self.fixed($0, 2)) Hz" } ?? "-"
        var imuTable = OutputTable(header: ["rate", "samples", "span"])
        imuTable.add([rate + " (yaml \(Self.short(imu.rateHzYaml)))", "\(imu.samples)", Self.span(imu.durationS, imu.firstTNs, imu.lastTNs)])
        out.append(imuTable.text)
        var noise = OutputTable(header: ["noise", "white noise density", "bias random walk"])
        noise.add(["gyroscope", Self.sci(imu.gyroscopeNoiseDensity) + " rad/s/√Hz", Self.sci(imu.gyroscopeRandomWalk) + " rad/s²/√Hz"])
        noise.add(["accelerometer", Self.sci(imu.accelerometerNoiseDensity) + " m/s²/√Hz", Self.sci(imu.accelerometerRandomWalk) + " m/s³/√Hz"])
        out.append(noise.text)
        out.append("")
        out.append("Ground truth")
        if groundtruth.present {
            var gt = OutputTable(header: ["rows", "span", "file"])
            gt.add(["\(groundtruth.rows)", Self.span(groundtruth.durationS, groundtruth.firstTNs, groundtruth.lastTNs), groundtruth.path ?? ""])
            out.append(gt.text)
        } else {
            out.append("  none")
        }
        out.append("")
        if problems.isEmpty {
            out.append("Problems  none")
        } else {
            out.append("Problems (\(problems.count))")
            for p in problems { out.append("  \(p.severity.rawValue): \(p.description)") }
        }
        return out.joined(separator: "\n")
    }

    static func fixed(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }
    static func sci(_ x: Double) -> String { String(format: "%.4e", x) }
    static func short(_ x: Double) -> String { x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x) }
    static func span(_ seconds: Double, _ first: Int64?, _ last: Int64?) -> String {
        guard let first, let last else { return "-" }
        return "\(fixed(seconds, 2)) s (\(first) … \(last) ns)"
    }
}
