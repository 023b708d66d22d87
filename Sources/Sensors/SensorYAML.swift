import Foundation
import Geometry
import Yams

/// Reads the `sensor.yaml` calibration files of the ASL layout (EuRoC, TUM-VI, Kalibr output).
///
/// A first line `%YAML:1.0` (OpenCV's YAML header, which libyaml rejects) is turned into a comment
/// before parsing, so line numbers in errors stay those of the file. `T_BS` is the pose of the
/// sensor frame S in the body frame B, given as `{cols: 4, rows: 4, data: [16 values, row-major]}`
/// (a flat list of 16 or 12 values is accepted too).
///
/// Every error is a `DatasetError` whose single problem names the file and, where known, the line.
public enum SensorYAML {
    /// The calibration of camera `name` from the `sensor.yaml` at `path`.
    public static func readCamera(path: String, name: String) throws -> CameraCalibration {
        try parseCamera(yaml: readText(path), file: path, name: name)
    }

    /// The calibration of the IMU from the `sensor.yaml` at `path`.
    public static func readIMU(path: String) throws -> IMUCalibration {
        try parseIMU(yaml: readText(path), file: path)
    }

    /// A camera calibration from `sensor.yaml` text; `file` names the source in errors.
    ///
    /// `resolution` is `[width, height]` (or a mapping with `width` and `height`). Supports
    /// `camera_model: pinhole` with `distortion_model` `radial-tangential` (alias `radtan`,
    /// `plumb_bob`; 4 coefficients k1 k2 p1 p2, or 5 with k3 = 0), `equidistant` (alias `equi`,
    /// `fisheye`, `kannala_brandt`; 4 coefficients k1…k4) or `none`.
    public static func parseCamera(yaml: String, file: String, name: String) throws -> CameraCalibration {
        let root = try parseRoot(yaml, file: file)
        let doc = Document(root: root, file: file)

        let cameraModel = try doc.string("camera_model")
        guard cameraModel.lowercased() == "pinhole" else {
            throw doc.error(at: root["camera_model"], "unsupported camera_model '\(cameraModel)' (only 'pinhole' is supported)")
        }
        let intrinsics = try doc.numbers("intrinsics", count: 4)
        guard intrinsics[0] > 0, intrinsics[1] > 0 else {
            throw doc.error(at: root["intrinsics"], "intrinsics fx, fy must be positive, got \(intrinsics[0]), \(intrinsics[1])")
        }
        let resolution: [Double]
        if let res = root["resolution"], res.mapping != nil, let w = res["width"], let h = res["height"] {
            resolution = [try doc.number(w, "resolution.width"), try doc.number(h, "resolution.height")]
        } else {
            resolution = try doc.numbers("resolution", count: 2)
        }
        guard let width = Int(exactly: resolution[0]), let height = Int(exactly: resolution[1]), width > 0, height > 0 else {
            throw doc.error(at: root["resolution"], "resolution must be two positive integers [width, height], got \(resolution)")
        }
        let distortion = try parseDistortion(doc)
        let rate = try doc.number("rate_hz")
        guard rate > 0 else { throw doc.error(at: root["rate_hz"], "rate_hz must be positive, got \(rate)") }
        let T_B_C = try doc.transform("T_BS")

        let model = CameraModel(width: width, height: height,
                                intrinsics: PinholeIntrinsics(fx: intrinsics[0], fy: intrinsics[1], cx: intrinsics[2], cy: intrinsics[3]),
                                distortion: distortion)
        return CameraCalibration(name: name, model: model, rate_hz: rate, T_B_C: T_B_C)
    }

    /// An IMU calibration from `sensor.yaml` text; `file` names the source in errors.
    ///
    /// Needs `rate_hz` and the four Kalibr noise parameters; `T_BS` defaults to identity.
    public static func parseIMU(yaml: String, file: String) throws -> IMUCalibration {
        let root = try parseRoot(yaml, file: file)
        let doc = Document(root: root, file: file)
        let rate = try doc.number("rate_hz")
        guard rate > 0 else { throw doc.error(at: root["rate_hz"], "rate_hz must be positive, got \(rate)") }
        var noise: [Double] = []
        for key in ["gyroscope_noise_density", "gyroscope_random_walk", "accelerometer_noise_density", "accelerometer_random_walk"] {
            let value = try doc.number(key)
            guard value >= 0 else { throw doc.error(at: root[key], "\(key) must not be negative, got \(value)") }
            noise.append(value)
        }
        let T_B_S = root["T_BS"] == nil ? SE3.identity : try doc.transform("T_BS")
        return IMUCalibration(noise: IMUNoiseModel(gyroscopeNoiseDensity: noise[0], gyroscopeRandomWalk: noise[1],
                                                   accelerometerNoiseDensity: noise[2], accelerometerRandomWalk: noise[3]),
                              rate_hz: rate, T_B_S: T_B_S)
    }

    // MARK: - Internals

    private static func readText(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DatasetError(path: path, file: path, message: "cannot read the file")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The text with an OpenCV `%YAML:1.0` first line commented out (line numbers unchanged).
    static func withoutOpenCVHeader(_ yaml: String) -> String {
        let trimmed = yaml.drop { $0 == "\u{FEFF}" }
        guard trimmed.hasPrefix("%YAML:") else { return String(trimmed) }
        return "#" + trimmed
    }

    /// Deepest nesting accepted (a sensor.yaml nests 2–3 levels). Yams composes nodes recursively, so a
    /// file of thousands of `[` would overflow the stack; such files are refused before parsing.
    public static let maximumNesting = 64

    /// Throws (a `DatasetError` with the line) when `yaml` nests deeper than ``maximumNesting`` on some line (a
    /// conservative estimate: open indentation levels + leading `- ` / `? ` entries + open flow brackets). Call it
    /// before giving untrusted text to Yams (the configuration file reader does too).
    public static func checkNesting(_ yaml: String, file: String) throws {
        var flow = 0
        var indents: [Int] = []
        var lineNumber = 0
        for line in Array(yaml.utf8).split(separator: 10, omittingEmptySubsequences: false) {
            lineNumber += 1
            var i = line.startIndex
            var indent = 0
            while i < line.endIndex, line[i] == 32 || line[i] == 9 { indent += 1; i += 1 }
            if i == line.endIndex || line[i] == UInt8(ascii: "#") || line[i] == 13 { continue }
            if flow == 0 {
                while let top = indents.last, indent < top { indents.removeLast() }
                if indents.last.map({ indent > $0 }) ?? true { indents.append(indent) }
            }
            var entries = 0
            while i < line.endIndex, line[i] == UInt8(ascii: "-") || line[i] == UInt8(ascii: "?") {
                let next = line.index(after: i)
                guard next == line.endIndex || line[next] == 32 || line[next] == 9 else { break }
                entries += 1
                i = next
                while i < line.endIndex, line[i] == 32 || line[i] == 9 { i += 1 }
            }
            var quote: UInt8? = nil
            var previous: UInt8 = 32
            var deepest = flow
            while i < line.endIndex {
                let c = line[i]
                if let q = quote {
                    if c == q { quote = nil }
                } else if c == 34 || c == 39 {
                    quote = c
                } else if c == UInt8(ascii: "#") && (previous == 32 || previous == 9) {
                    break
                } else if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") {
                    flow += 1; deepest = max(deepest, flow)
                } else if c == UInt8(ascii: "]") || c == UInt8(ascii: "}") {
                    flow = max(0, flow - 1)
                }
                previous = c
                i = line.index(after: i)
            }
            if indents.count + entries + deepest > maximumNesting {
                throw DatasetError(path: file, file: file, line: lineNumber,
                                   message: "nesting deeper than \(maximumNesting) levels: not a sensor.yaml")
            }
        }
    }

    private static func parseRoot(_ yaml: String, file: String) throws -> Node {
        try checkNesting(yaml, file: file)
        let node: Node?
        do {
            node = try Yams.compose(yaml: withoutOpenCVHeader(yaml))
        } catch let error as YamlError {
            throw DatasetError(path: file, file: file, line: yamlErrorLine(error), message: "not valid YAML: \(yamlErrorSummary(error))")
        } catch {
            throw DatasetError(path: file, file: file, message: "not valid YAML: \(error)")
        }
        guard let root = node, root.mapping != nil else {
            throw DatasetError(path: file, file: file, message: "expected a YAML mapping of keys (sensor_type, T_BS, rate_hz, …)")
        }
        return root
    }

    private static func yamlErrorLine(_ error: YamlError) -> Int? {
        switch error {
        case let .scanner(_, _, mark, _), let .parser(_, _, mark, _): return mark.line
        case let .composer(_, _, mark, _): return mark.line
        case let .reader(_, offset, _, yaml):
            // libyaml's reader reports a byte offset: the line is one more than the newlines before it.
            guard let offset, offset >= 0 else { return nil }
            return 1 + yaml.utf8.prefix(offset).lazy.filter { $0 == 10 }.count
        default: return nil
        }
    }

    private static func yamlErrorSummary(_ error: YamlError) -> String {
        switch error {
        case let .scanner(context, problem, _, _), let .parser(context, problem, _, _):
            return [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        case let .composer(context, problem, _, _):
            return [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        case let .reader(problem, _, value, _):
            return value >= 0 ? String(format: "%@ (byte 0x%02X)", problem, value) : problem
        default:
            return "\(error)"
        }
    }

    private static func parseDistortion(_ doc: Document) throws -> LensDistortion {
        guard doc.root["distortion_model"] != nil else { return .none }
        let name = try doc.string("distortion_model").lowercased()
        switch name {
        case "none", "":
            return .none
        case "radial-tangential", "radtan", "plumb_bob", "radial_tangential":
            let c = try doc.numbers("distortion_coefficients", count: nil)
            if c.count == 4 { return .radialTangential(k1: c[0], k2: c[1], p1: c[2], p2: c[3]) }
            if c.count == 5, c[4] == 0 { return .radialTangential(k1: c[0], k2: c[1], p1: c[2], p2: c[3]) }
            throw doc.error(at: doc.root["distortion_coefficients"],
                            "radial-tangential needs 4 distortion_coefficients [k1, k2, p1, p2] (or 5 with k3 = 0), got \(c.count)")
        case "equidistant", "equi", "fisheye", "kannala_brandt", "kannala-brandt":
            let c = try doc.numbers("distortion_coefficients", count: 4)
            return .equidistant(k1: c[0], k2: c[1], k3: c[2], k4: c[3])
        default:
            throw doc.error(at: doc.root["distortion_model"],
                            "unsupported distortion_model '\(name)' (supported: radial-tangential, equidistant, none)")
        }
    }

    /// Typed access to the keys of one YAML mapping, with errors naming the file and line.
    private struct Document {
        let root: Node
        let file: String

        func error(at node: Node?, _ message: String) -> DatasetError {
            DatasetError(path: file, file: file, line: (node ?? root).mark?.line, message: message)
        }

        func require(_ key: String) throws -> Node {
            guard let node = root[key] else { throw error(at: nil, "missing key '\(key)'") }
            return node
        }

        func string(_ key: String) throws -> String {
            let node = try require(key)
            guard let s = node.scalar?.string else { throw error(at: node, "'\(key)' must be a single value") }
            return s
        }

        func number(_ key: String) throws -> Double {
            let node = try require(key)
            return try number(node, key)
        }

        func number(_ node: Node, _ what: String) throws -> Double {
            guard let s = node.scalar?.string, let v = Double(s.trimmingCharacters(in: .whitespaces)), v.isFinite else {
                throw error(at: node, "'\(what)' must be a finite number, got \(node.scalar?.string ?? "a list or mapping")")
            }
            return v
        }

        func numbers(_ key: String, count: Int?) throws -> [Double] {
            let node = try require(key)
            return try numbers(node, key, count: count)
        }

        func numbers(_ node: Node, _ what: String, count: Int?) throws -> [Double] {
            guard let seq = node.sequence else { throw error(at: node, "'\(what)' must be a list of numbers") }
            let values = try seq.map { try number($0, what) }
            if let count, values.count != count {
                throw error(at: node, "'\(what)' must have \(count) numbers, got \(values.count)")
            }
            return values
        }

        /// `T_BS` as a transform; checks the matrix shape and that its rotation is orthonormal.
        func transform(_ key: String) throws -> SE3 {
            let node = try require(key)
            var values: [Double]
            if node.mapping != nil {
                guard let data = node["data"] else { throw error(at: node, "'\(key)' needs a 'data' list") }
                values = try numbers(data, "\(key).data", count: nil)
                if let rowsNode = node["rows"], let colsNode = node["cols"] {
                    let rows = try number(rowsNode, "\(key).rows"), cols = try number(colsNode, "\(key).cols")
                    guard (rows == 4 || rows == 3), cols == 4, values.count == Int(rows * cols) else {
                        throw error(at: node, "'\(key)' must be a 4×4 (or 3×4) matrix with rows × cols values, got rows \(rows), cols \(cols), \(values.count) values")
                    }
                }
            } else if let seq = node.sequence, seq.allSatisfy({ $0.sequence != nil }) {
                values = try seq.flatMap { try numbers($0, key, count: 4) }
            } else {
                values = try numbers(node, key, count: nil)
            }
            guard values.count == 16 || values.count == 12 else {
                throw error(at: node, "'\(key)' must have 16 (4×4) or 12 (3×4) values, got \(values.count)")
            }
            let r = Mat3(rowMajor: [values[0], values[1], values[2], values[4], values[5], values[6], values[8], values[9], values[10]])
            // Kalibr writes rotations with ~1e-9 orthonormality error; 1e-3 flags a wrong matrix, not rounding.
            let orthoError = (r * r.transposed - Mat3.identity).maxAbs
            guard orthoError < 1e-3, r.determinant > 0 else {
                throw error(at: node, "'\(key)' rotation is not a proper rotation (|R Rᵀ − I| = \(orthoError), det = \(r.determinant))")
            }
            return SE3(rowMajor4x4: values.count == 16 ? values : values + [0, 0, 0, 1])
        }
    }
}
