import Foundation
import Imaging
import Vision

/// Draws tracked features on frames for `worldtrack features --draw DIR`: each track as a dot
/// coloured by age (red = new, through yellow, to green = 20+ frames) with a short trail of its
/// last positions; right-image matches of a stereo run as a small cyan tick.
struct FeaturesDrawing {
    /// Output folder (created; must be empty or absent).
    let directory: String
    /// Trail length, frames.
    let trailLength = 10
    private var trails: [Int: [SIMD2<Double>]] = [:]

    /// Prepares `directory`: refuses a non-empty folder or a file, creates it when absent.
    init(directory: String) throws {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: directory, isDirectory: &isDir) {
            guard isDir.boolValue else { throw CLIError.badInput("\(directory): --draw needs a folder, but this is a file") }
            let items = (try? fm.contentsOfDirectory(atPath: directory)) ?? []
            guard items.isEmpty else {
                throw CLIError.badInput("\(directory): --draw folder is not empty (\(items.count) items); give an empty or new folder")
            }
        } else {
            do { try fm.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
                throw CLIError.badInput("\(directory): cannot create the --draw folder: \(error.localizedDescription)")
            }
        }
        self.directory = directory
    }

    /// The colour of a track of `age` frames.
    static func color(age: Int) -> BGRColor {
        let u = min(1, Double(max(age - 1, 0)) / 20)
        // red (255, 0, 0) → yellow (255, 220, 0) → green (0, 200, 0)
        if u < 0.5 {
            return .rgb(255, UInt8(440 * u), 0)
        }
        let v = (u - 0.5) * 2
        return .rgb(UInt8(255 * (1 - v)), UInt8(220 - 20 * v), 0)
    }

    /// Draws `result` on `image` and writes `DIR/NNNNNN.png` (frame index `index`).
    mutating func draw(_ result: FeatureFrameResult, on image: GrayImage, index: Int) throws {
        var canvas = ColorImage(gray: image)
        var next: [Int: [SIMD2<Double>]] = [:]
        for f in result.features {
            var trail = trails[f.id] ?? []
            trail.append(f.pixel)
            if trail.count > trailLength { trail.removeFirst(trail.count - trailLength) }
            next[f.id] = trail
            let color = Self.color(age: f.age)
            if trail.count >= 2 { try canvas.drawPolyline(trail, color: color, thickness: 1, antialiased: true) }
            try canvas.fillCircle(center: f.pixel, radius: 2.5, color: color, antialiased: true)
            if let r = f.rightPixel {
                let d = r - f.pixel
                try canvas.drawLine(from: f.pixel, to: f.pixel + 0.25 * d, color: .cyan)
            }
        }
        trails = next
        let label = "t=\(result.t_ns) features=\(result.features.count) new=\(result.stats.detected) motion=\(String(format: "%.1f", result.meanDisparity_px))px"
        try canvas.drawText(label, at: SIMD2(6, 16), scale: 0.45, color: .yellow)
        let path = (directory as NSString).appendingPathComponent(String(format: "%06d.png", index))
        do { try ImageCodec.writePNG(canvas, to: path) } catch { throw CLIError.failure("\(error)") }
    }
}
