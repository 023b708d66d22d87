import Foundation
import Geometry

/// Facts about how a dataset was simulated, stored in `scene.json` next to the scene.
public struct SimulationInfo: Equatable, Sendable, Codable {
    /// Trajectory name (`"handheld"`, `"orbit"`).
    public var trajectory: String
    /// Random seed of the run.
    public var seed: UInt64
    /// Duration, seconds.
    public var seconds: Double
    /// Camera frame rate, Hz.
    public var cameraRate_hz: Double
    /// IMU rate, Hz.
    public var imuRate_hz: Double
    /// Time stamp of trajectory time t = 0, nanoseconds.
    public var startTime_ns: Int64
    /// Camera–IMU time offset, nanoseconds (see `SimulationConfig.timeOffset_ns`).
    public var timeOffset_ns: Int64
    /// Free-form options (stereo, fisheye, noise, …) as text, for people reading the file.
    public var options: [String: String]

    /// `scene.json` keys (docs/NAMING.md: the keys stay as they were written).
    enum CodingKeys: String, CodingKey {
        case trajectory, seed, seconds, options
        case cameraRate_hz = "cameraRateHz", imuRate_hz = "imuRateHz", startTime_ns = "startTimeNs", timeOffset_ns = "timeOffsetNs"
    }

    /// Facts with the given values.
    public init(trajectory: String, seed: UInt64, seconds: Double, cameraRate_hz: Double, imuRate_hz: Double,
                startTime_ns: Int64, timeOffset_ns: Int64, options: [String: String]) {
        self.trajectory = trajectory; self.seed = seed; self.seconds = seconds; self.cameraRate_hz = cameraRate_hz
        self.imuRate_hz = imuRate_hz; self.startTime_ns = startTime_ns; self.timeOffset_ns = timeOffset_ns; self.options = options
    }
}

/// The JSON form of a scene (the schema of `scene.json`):
///
/// ```json
/// { "name": "room", "backgroundGray": 190,
///   "walkArea": {"center": [3, 2.5], "radii": [1.8, 1.3], "eyeHeight": 1.5},
///   "orbitTarget": {"center": [3, 2.5, 0.75], "radius": 1.4, "eyeHeight": 1.45},
///   "surfaces": [{"id": 0, "name": "floor", "kind": "floor", "normal": [0, 0, 1], "offset": 0,
///                 "corners": [[0, 0, 0], [6, 0, 0], [6, 5, 0], [0, 5, 0]],
///                 "texture": {"type": "procedural", "seed": 24301}}],
///   "measurements": [{"name": "floor.length", "a": [0, 0, 0], "b": [6, 0, 0],
///                     "surfaceA": 0, "surfaceB": 0, "distance": 6}],
///   "simulation": {"trajectory": "handheld", "seed": 1, ...} }
/// ```
/// `walkArea`, `orbitTarget`, `backgroundGray`, `offset`, `distance`, `simulation` and `recording` (written by
/// `simulate --from-recording`, see `RecordingInfo`) are optional on input.
struct SceneDocument: Codable {
    struct Surface: Codable {
        var id: Int
        var name: String?
        var kind: SurfaceKind
        var normal: Vec3
        var offset: Double?
        var corners: [Vec3]
        var texture: SurfaceTexture?
    }
    struct Measurement: Codable {
        var name: String
        var a: Vec3
        var b: Vec3
        var surfaceA: Int
        var surfaceB: Int
        var distance: Double?
    }
    var name: String?
    var backgroundGray: Double?
    var walkArea: WalkArea?
    var orbitTarget: OrbitTarget?
    var surfaces: [Surface]
    var measurements: [Measurement]?
    var simulation: SimulationInfo?
    var recording: LenientRecordingInfo?
}

/// The `recording` section, read leniently: a section this version cannot decode (written by another
/// version) is ignored rather than making the whole scene unreadable.
struct LenientRecordingInfo: Codable {
    var value: RecordingInfo?
    init(_ value: RecordingInfo?) { self.value = value }
    init(from decoder: Decoder) throws { value = try? RecordingInfo(from: decoder) }
    func encode(to encoder: Encoder) throws { try value.encode(to: encoder) }
}

extension Scene {
    /// The scene as pretty-printed JSON with sorted keys (deterministic bytes), optionally with run facts
    /// and, for `simulate --from-recording`, the facts about the recording it followed.
    public func jsonData(simulation: SimulationInfo? = nil, recording: RecordingInfo? = nil) throws -> Data {
        let doc = SceneDocument(
            name: name, backgroundGray: backgroundGray, walkArea: walkArea, orbitTarget: orbitTarget,
            surfaces: surfaces.map {
                SceneDocument.Surface(id: $0.id, name: $0.name, kind: $0.kind, normal: $0.normal_W, offset: $0.offset,
                                      corners: $0.corners_W, texture: $0.texture)
            },
            measurements: measurements.map {
                SceneDocument.Measurement(name: $0.name, a: $0.a_W, b: $0.b_W, surfaceA: $0.surfaceA,
                                          surfaceB: $0.surfaceB, distance: $0.distance)
            },
            simulation: simulation, recording: recording.map(LenientRecordingInfo.init))
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try enc.encode(doc)
    }

    /// Reads a scene from JSON (the `scene.json` schema). `source` names the input in error messages.
    public static func fromJSON(_ data: Data, source: String) throws -> Scene {
        let doc: SceneDocument
        do {
            doc = try JSONDecoder().decode(SceneDocument.self, from: data)
        } catch let e as DecodingError {
            if case .dataCorrupted(let c) = e, c.codingPath.isEmpty {
                // Syntax error: JSONSerialization says what and (often) where.
                var detail = c.debugDescription
                do { _ = try JSONSerialization.jsonObject(with: data) } catch {
                    detail = ((error as NSError).userInfo["NSDebugDescription"] as? String) ?? "\(error)"
                }
                throw SceneError.badFile(path: source, reason: "not valid JSON: \(detail)")
            }
            throw SceneError.badFile(path: source, reason: describe(e))
        } catch {
            throw SceneError.badFile(path: source, reason: "not valid JSON: \(error)")
        }
        guard !doc.surfaces.isEmpty else { throw SceneError.badFile(path: source, reason: "scene has no surfaces") }
        var surfaces: [SceneSurface] = []
        for (i, s) in doc.surfaces.enumerated() {
            guard s.id == i else {
                throw SceneError.badFile(path: source, reason: "surfaces[\(i)] has id \(s.id); ids must be 0, 1, 2, … in order")
            }
            do {
                let surface = try SceneSurface(id: i, name: s.name ?? "surface\(i)", kind: s.kind, normal_W: s.normal,
                                               corners_W: s.corners, texture: s.texture ?? .procedural(seed: UInt64(i) &+ 0x5EED))
                if let off = s.offset, abs(off - surface.offset) > 1e-3 {
                    throw SceneError.invalid("surface '\(surface.name)': offset \(off) disagrees with its corners (\(surface.offset))")
                }
                surfaces.append(surface)
            } catch let e as SceneError {
                throw SceneError.badFile(path: source, reason: "surfaces[\(i)]: \(e)")
            }
        }
        var pairs: [MeasurementPair] = []
        for (i, m) in (doc.measurements ?? []).enumerated() {
            guard surfaces.indices.contains(m.surfaceA), surfaces.indices.contains(m.surfaceB) else {
                throw SceneError.badFile(path: source, reason: "measurements[\(i)] '\(m.name)' refers to a missing surface")
            }
            pairs.append(MeasurementPair(name: m.name, a_W: m.a, b_W: m.b, surfaceA: m.surfaceA, surfaceB: m.surfaceB))
        }
        // Defaults derived from the floor when the file gives no walk area / orbit target.
        let floorCorners = surfaces.filter { $0.kind == .floor }.flatMap(\.corners_W)
        let all = floorCorners.isEmpty ? surfaces.flatMap(\.corners_W) : floorCorners
        let lo = all.reduce(Vec3(repeating: .infinity)) { pointwiseMin($0, $1) }
        let hi = all.reduce(Vec3(repeating: -.infinity)) { pointwiseMax($0, $1) }
        let centre = Vec2((lo.x + hi.x) / 2, (lo.y + hi.y) / 2)
        let walk = doc.walkArea ?? WalkArea(center: centre, radii: Vec2((hi.x - lo.x) * 0.3, (hi.y - lo.y) * 0.3),
                                             eyeHeight: lo.z + 1.5)
        let tableTop = surfaces.first { $0.kind == .tableTop }?.centroid_W ?? Vec3(centre.x, centre.y, lo.z)
        let orbit = doc.orbitTarget ?? OrbitTarget(center: tableTop, radius: 1.4, eyeHeight: tableTop.z + 0.7)
        return Scene(name: doc.name ?? URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent,
                     surfaces: surfaces, measurements: pairs, walkArea: walk, orbitTarget: orbit,
                     backgroundGray: doc.backgroundGray ?? 190)
    }

    /// Reads a scene from a JSON file; errors name the file.
    public static func load(jsonFile path: String) throws -> Scene {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SceneError.badFile(path: path, reason: "cannot read the file")
        }
        return try fromJSON(data, source: path)
    }

    private static func describe(_ e: DecodingError) -> String {
        func path(_ p: [CodingKey]) -> String {
            p.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch e {
        case .typeMismatch(_, let c): return "wrong type at \(path(c.codingPath)): \(c.debugDescription)"
        case .valueNotFound(_, let c): return "missing value at \(path(c.codingPath)): \(c.debugDescription)"
        case .keyNotFound(let k, let c): return "missing key '\(k.stringValue)' at \(path(c.codingPath))"
        case .dataCorrupted(let c):
            let under = c.underlyingError.map { " (\($0))" } ?? ""
            return "bad data at \(path(c.codingPath)): \(c.debugDescription)\(under)"
        @unknown default: return "\(e)"
        }
    }
}
