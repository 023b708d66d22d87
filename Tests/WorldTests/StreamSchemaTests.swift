import Estimation
import Foundation
import Geometry
import Testing
import TestSupport
@testable import Consumers
@testable import World

/// The field tables of docs/STREAM.md, parsed: section name (record type) → fields.
struct StreamDoc {
    struct Field { var path: String; var type: String; var required: Bool }
    var sections: [String: [Field]] = [:]

    static func packageRoot() -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    init(markdown: String) {
        var names: [String] = []
        var inTable = false
        for raw in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") {
                // Every `backticked` word of a heading names a section the next table describes.
                names = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                    .filter { $0.offset % 2 == 1 }.map { String($0.element) }
                inTable = false
                continue
            }
            guard line.hasPrefix("|") else { inTable = false; continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.first == "field" && cells.count >= 3 && cells[1] == "type" && cells[2] == "required" { inTable = true; continue }
            guard inTable, cells.count >= 3, cells[0].hasPrefix("`") else { continue }
            let f = Field(path: cells[0].replacingOccurrences(of: "`", with: ""), type: cells[1], required: cells[2] == "yes")
            for n in names { sections[n, default: []].append(f) }
        }
    }
}

/// Checks JSON objects against a documented field table.
struct SchemaChecker {
    let fields: [StreamDoc.Field]
    var seen = Set<String>()
    var problems: [String] = []

    init(fields: [StreamDoc.Field]) { self.fields = fields }

    /// JSON numbers as Foundation's JSONSerialization returns them (native Int/Double on Linux, NSNumber on Darwin).
    static func isNumber(_ v: Any) -> Bool {
        // (On Linux an NSNumber 0 or 1 also casts to Bool, so only a native Bool is excluded.)
        if type(of: v) == Bool.self { return false }
        return v is Int || v is Int64 || v is Double || v is NSNumber
    }

    func typeMatches(_ v: Any, _ fieldType: String) -> Bool {
        let type = fieldType
        switch type {
        case "string": return v is String
        case "number": return Self.isNumber(v)
        case "integer":
            if v is Int || v is Int64 { return true }
            guard Swift.type(of: v) != Bool.self, !(v is Double), let n = v as? NSNumber else { return false }
            return n.doubleValue == n.doubleValue.rounded() && !"\(n)".contains(".")
        case "boolean": return v is Bool
        case "object": return v is [String: Any]
        case "object[]": return (v as? [Any])?.allSatisfy { $0 is [String: Any] } ?? false
        case "number[]": return (v as? [Any])?.allSatisfy(Self.isNumber) ?? false
        case "number[3][]":
            return (v as? [Any])?.allSatisfy { ($0 as? [Any]).map { $0.count == 3 && $0.allSatisfy(Self.isNumber) } ?? false } ?? false
        default:
            if type.hasPrefix("number["), type.hasSuffix("]"), let n = Int(type.dropFirst(7).dropLast()) {
                return (v as? [Any]).map { $0.count == n && $0.allSatisfy(Self.isNumber) } ?? false
            }
            return false
        }
    }

    mutating func check(_ obj: [String: Any], prefix: String = "", context: String) {
        let children = fields.filter { f in
            f.path.hasPrefix(prefix) && !f.path.dropFirst(prefix.count).contains(".")
        }
        for (key, value) in obj {
            let path = prefix + key
            guard let f = children.first(where: { $0.path == path }) else {
                problems.append("\(context): undocumented field '\(path)'"); continue
            }
            seen.insert(path)
            guard typeMatches(value, f.type) else {
                problems.append("\(context): '\(path)' is not \(f.type): \(String("\(value)".prefix(60)))"); continue
            }
            if f.type == "object", let o = value as? [String: Any] { check(o, prefix: path + ".", context: context) }
            if f.type == "object[]", let list = value as? [[String: Any]] {
                for o in list { check(o, prefix: path + "[].", context: context) }
            }
        }
        for f in children where f.required && obj[String(f.path.dropFirst(prefix.count))] == nil {
            problems.append("\(context): missing required field '\(f.path)'")
        }
    }
}

@Suite struct StreamSchemaTests {
    /// Records of every type, from real runs, with every optional field exercised somewhere.
    func sampleRecords(dir: TemporaryDirectory) throws -> (records: [any StreamRecord], sidecars: [String]) {
        let tapsPath = dir.path("taps.json")
        let taps: [[String: Any]] = [
            ["t_s": 1.0, "pixels": [try pixel(Vec3(0.0, -0.8, 0)), try pixel(Vec3(1.0, -0.8, 0))], "label": "ok"],
            ["t_s": 0.0, "pixels": [[319.5, 300.0], [319.5, 400.0]], "label": "early"], // before tracking is normal: fails
        ]
        try JSONSerialization.data(withJSONObject: taps).write(to: URL(fileURLWithPath: tapsPath))
        let consumers = try ["cursor:place=0.5", "measure:taps=\(tapsPath)", "burst:count=2,start=1,out=\(dir.path("b"))"]
            .map(ConsumerFactory.make)
        var records = try streamRoom(consumers: consumers, frames: 30, images: true, normalFrom: 2)
        // Separate patches merge: plane removal with merged_into, and a user anchor following it.
        let session = WorldSession()
        var strips = RoomLandmarks(seed: 7)
        func patch(_ x: ClosedRange<Double>, _ n: Int) -> [Landmark] { strips.floorStrip(x: x, count: n) }
        records += session.process(frameInput(0, landmarks: patch(0...1, 60) + patch(2...3, 60))).events.map(AnchorEventRecord.init)
        records.append(AnchorEventRecord(session.addAnchor(T_W_A: SE3(translation: Vec3(2.5, 0.5, 0)), planeId: "plane-2", t_ns: 1, name: "pin")))
        for i in 1...4 { records += session.process(frameInput(2 * i, landmarks: patch(1...2, 40))).events.map(AnchorEventRecord.init) }
        // A frame with the estimator's output: velocity, biases and σ.
        var tracked = frameInput(20, landmarks: [])
        var estimate = EstimatorOutput(t_ns: tracked.t_ns, trackingState: .normal, T_W_B: tracked.T_W_B, v_W: Vec3(0.3, -0.1, 0.02),
                                       gyroBias_B: Vec3(0.001, -0.002, 0.003), accelBias_B: Vec3(0.05, 0, -0.02), T_W_C: tracked.T_W_C,
                                       positionStd_m: 0.012, landmarks: [])
        estimate.orientationStd_rad = 0.004
        tracked.estimate = estimate
        var trackedRecord = FrameRecord(WorldSession().process(tracked))
        trackedRecord.points = [FeaturePointJSON(id: 7, position: [1, 2, 0.5]), FeaturePointJSON(id: 9, position: [1.5, 2, 0.7])]
        records.append(trackedRecord)
        let sidecars = records.compactMap { ($0 as? BurstCapturedRecord)?.sidecar }
        return (records, sidecars)
    }

    @Test func encodedRecordsMatchTheDocumentedSchema() throws {
        let docPath = StreamDoc.packageRoot().appendingPathComponent("docs/STREAM.md")
        let doc = StreamDoc(markdown: try String(contentsOf: docPath, encoding: .utf8))
        let recordTypes = ["frame", "anchor.added", "anchor.updated", "anchor.removed", "cursor", "measurement", "burst.captured"]
        for t in recordTypes + ["burst-sidecar"] { #expect(doc.sections[t]?.isEmpty == false, "docs/STREAM.md lacks a table for \(t)") }

        let dir = try TemporaryDirectory()
        let (records, sidecars) = try sampleRecords(dir: dir)
        let writer = StreamWriter()
        var checkers: [String: SchemaChecker] = [:]
        for t in recordTypes where !["anchor.updated", "anchor.removed"].contains(t) {
            checkers[t] = SchemaChecker(fields: doc.sections[t] ?? [])
        }
        for r in records {
            let obj = try #require(try JSONSerialization.jsonObject(with: writer.encode(r)) as? [String: Any])
            let type = try #require(obj["type"] as? String)
            #expect(recordTypes.contains(type), "undocumented record type \(type)")
            #expect(obj["schema"] as? String == StreamSchema.version)
            // The three anchor types share one table (and so one checker: coverage is over the table).
            checkers[type.hasPrefix("anchor.") ? "anchor.added" : type]?.check(obj, context: type)
        }
        var sidecarChecker = SchemaChecker(fields: doc.sections["burst-sidecar"] ?? [])
        #expect(sidecars.count == 2)
        for p in sidecars {
            let obj = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: p))) as? [String: Any])
            sidecarChecker.check(obj, context: "burst sidecar")
        }
        checkers["burst-sidecar"] = sidecarChecker
        for (name, c) in checkers {
            #expect(c.problems.isEmpty, "\(name): \(c.problems.count) problems, first: \(c.problems.prefix(3))")
            // Every documented field was produced by some record: the doc lists no phantom fields.
            let unseen = c.fields.map(\.path).filter { !c.seen.contains($0) }
            #expect(unseen.isEmpty, "\(name): documented but never produced: \(unseen)")
        }
    }

    @Test func checkerCatchesDeviations() {
        let fields = [StreamDoc.Field(path: "a", type: "number[3]", required: true),
                      StreamDoc.Field(path: "o", type: "object", required: false),
                      StreamDoc.Field(path: "o.n", type: "integer", required: true)]
        var c = SchemaChecker(fields: fields)
        c.check(["a": [1, 2], "o": ["n": 1.5], "extra": "x"], context: "t")
        #expect(c.problems.count == 3) // a wrong length, o.n not integer, extra undocumented
        var d = SchemaChecker(fields: fields)
        d.check(["o": ["n": 2]], context: "t")
        #expect(d.problems == ["t: missing required field 'a'"])
    }
}
