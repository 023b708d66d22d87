import Foundation
import Imaging

/// Loads one camera folder of an ASL dataset (`sensor.yaml`, `data.csv`, `data/`), logging problems.
enum ASLCameraLoader {
    /// How many absent image names a warning lists before "…".
    static let missingNamesShown = 3

    static func load(index: Int, name: String, folder: String, options: ASLLoadOptions, log: inout ProblemLog) -> CameraStream? {
        let yamlPath = (folder as NSString).appendingPathComponent("sensor.yaml")
        let csvPath = (folder as NSString).appendingPathComponent("data.csv")
        let imageFolder = (folder as NSString).appendingPathComponent("data")

        var calibration: CameraCalibration?
        if ASLFiles.requireFile(yamlPath, log: &log) {
            do {
                calibration = try SensorYAML.readCamera(path: yamlPath, name: name)
            } catch let error as DatasetError {
                error.problems.forEach { log.add($0) }
            } catch {
                log.fatal(yamlPath, "\(error)")
            }
        }
        let haveCSV = ASLFiles.requireFile(csvPath, log: &log)
        let haveImages = ASLDataset.isDirectory(imageFolder)
        if !haveImages { log.fatal(imageFolder, "missing image folder") }
        guard haveCSV, haveImages, let rows = ASLFiles.readRows(csvPath, log: &log) else { return nil }

        let present = Set((try? FileManager.default.contentsOfDirectory(atPath: imageFolder)) ?? [])
        var frames: [CameraFrameRef] = []
        var missing: [String] = []
        var listed = 0
        var previous: (t: TimestampNs, line: Int)?
        for row in rows {
            guard row.fields.count == 2 else {
                log.capped("malformed rows", DatasetProblem(.fatal, file: csvPath, line: row.line,
                    message: "malformed row: expected 2 columns (timestamp [ns], filename), got \(row.fields.count)"))
                continue
            }
            guard let t = ASLFiles.timestamp(row.fields[0], file: csvPath, line: row.line, log: &log) else { continue }
            listed += 1
            ASLFiles.checkIncreasing(t, line: row.line, previous: previous, file: csvPath, log: &log)
            previous = (t, row.line)
            let fileName = row.fields[1]
            guard !fileName.isEmpty else {
                log.capped("malformed rows", DatasetProblem(.fatal, file: csvPath, line: row.line, message: "malformed row: empty filename"))
                continue
            }
            if present.contains(fileName) {
                frames.append(CameraFrameRef(t_ns: t, path: (imageFolder as NSString).appendingPathComponent(fileName)))
            } else {
                missing.append(fileName)
            }
        }

        if rows.isEmpty {
            log.fatal(csvPath, "empty listing: no frames listed")
        } else if frames.isEmpty && !missing.isEmpty {
            log.fatal(csvPath, "none of the \(missing.count) listed images exist in \(imageFolder)")
        } else if !missing.isEmpty {
            let shown = missing.prefix(missingNamesShown).joined(separator: ", ") + (missing.count > missingNamesShown ? ", …" : "")
            log.warning(csvPath, "\(missing.count) of \(listed) listed images are absent from data/ and skipped: \(shown)")
        }

        guard let calibration else { return nil }
        var badHeaders = Set<String>()
        if options.checkImageHeaders {
            badHeaders = checkImages(frames, calibration: calibration, yamlPath: yamlPath, log: &log)
        }
        var stream = CameraStream(index: index, calibration: calibration, folder: folder, frames: frames,
                                  listedCount: listed, missingImages: missing)
        if options.decodeImages {
            stream.undecodableImages = decodeImages(frames.filter { !badHeaders.contains($0.path) }, log: &log)
        }
        ASLFiles.checkRate(estimated: stream.estimatedRate_hz, nominal: calibration.rate_hz, what: "frame rate",
                           file: csvPath, yamlPath: yamlPath, tolerance: options.rateTolerance, log: &log)
        return stream
    }

    /// Decodes every image; each one that fails is a warning (a run skips its frame). Returns their file names.
    static func decodeImages(_ frames: [CameraFrameRef], log: inout ProblemLog) -> [String] {
        let folder = frames.first.map { ($0.path as NSString).deletingLastPathComponent } ?? ""
        var bad: [String] = []
        for frame in frames {
            do { _ = try frame.loadImage() } catch {
                bad.append(frame.fileName)
                let reason: String
                if case let ImagingError.decode(_, message) = error { reason = message } else { reason = "\(error)" }
                log.capped("undecodable images", group: folder, DatasetProblem(.warning, file: frame.path,
                    message: "cannot decode the image: \(reason) (`run` skips this frame)"))
            }
        }
        return bad
    }

    /// Checks each image's PNG structure and that its size is the `sensor.yaml` resolution; returns the
    /// paths of the images that failed.
    @discardableResult
    static func checkImages(_ frames: [CameraFrameRef], calibration: CameraCalibration, yamlPath: String, log: inout ProblemLog) -> Set<String> {
        var failed = Set<String>()
        let w = calibration.model.width, h = calibration.model.height
        let folder = frames.first.map { ($0.path as NSString).deletingLastPathComponent } ?? ""
        for frame in frames {
            do {
                let header = try PNGHeader.read(path: frame.path)
                if header.width != w || header.height != h {
                    failed.insert(frame.path)
                    log.capped("images of the wrong size", group: folder, DatasetProblem(.fatal, file: frame.path,
                        message: "image is \(header.width)×\(header.height) but \(yamlPath) says resolution [\(w), \(h)]"))
                }
            } catch {
                failed.insert(frame.path)
                log.capped("corrupt images", group: folder, DatasetProblem(.fatal, file: frame.path, message: "\(error)"))
            }
        }
        return failed
    }
}

/// File checks shared by the ASL loaders.
enum ASLFiles {
    /// True when `path` is a readable regular file; logs a fatal "missing file" otherwise.
    static func requireFile(_ path: String, log: inout ProblemLog) -> Bool {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            log.fatal(path, "missing file")
            return false
        }
        if isDir.boolValue {
            log.fatal(path, "expected a file, found a folder")
            return false
        }
        return true
    }

    /// The rows of a CSV file; logs a fatal problem when it cannot be read.
    static func readRows(_ path: String, log: inout ProblemLog) -> [CSVRow]? {
        guard let rows = CSVReader.rows(path: path) else {
            log.fatal(path, "cannot read the file")
            return nil
        }
        return rows
    }

    /// The integer nanosecond time stamp in `field`; logs a fatal problem when it is not one.
    static func timestamp(_ field: String, file: String, line: Int, log: inout ProblemLog) -> TimestampNs? {
        guard let t = TimestampNs(field), t >= 0 else {
            log.capped("malformed rows", DatasetProblem(.fatal, file: file, line: line,
                message: "malformed row: timestamp '\(field)' is not a non-negative integer number of nanoseconds"))
            return nil
        }
        return t
    }

    /// Logs a fatal problem when `t` does not come strictly after the previous row's time stamp.
    static func checkIncreasing(_ t: TimestampNs, line: Int, previous: (t: TimestampNs, line: Int)?, file: String, log: inout ProblemLog) {
        guard let previous, t <= previous.t else { return }
        let what = t == previous.t ? "duplicate timestamp \(t) (also on line \(previous.line))"
            : "timestamp \(t) goes back in time (line \(previous.line) has \(previous.t)); timestamps must increase"
        log.capped("out-of-order timestamps", DatasetProblem(.fatal, file: file, line: line, message: what))
    }

    /// Warns when a rate estimated from time stamps disagrees with the `sensor.yaml` rate.
    static func checkRate(estimated: Double?, nominal: Double, what: String, file: String, yamlPath: String,
                          tolerance: Double, log: inout ProblemLog) {
        guard let estimated, abs(estimated - nominal) > tolerance * nominal else { return }
        log.warning(file, "\(what) from timestamps is \(format(estimated)) Hz but \(yamlPath) says rate_hz \(format(nominal))")
    }

    static func format(_ x: Double) -> String {
        x == x.rounded() ? String(Int(x)) : String(format: "%.2f", x)
    }
}
