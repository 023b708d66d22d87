import Evaluation
import Foundation
import Sensors
import Testing
import TestSupport

/// Mutation fuzzing of eval's input detection and the JSON-Lines stream reader (`TrajectoryLoader.parse`),
/// seeded with a real stream excerpt, a TUM file and an ASL ground-truth CSV: typed errors naming the line.
@Suite("fuzzing eval's trajectory loader (stream, TUM, ASL detection)")
struct StreamFuzzTests {
    static let stream: [UInt8] = Array("""
        {"body_orientation":[1,0,0,0],"body_position":[0,0,0],"features":120,"schema":"worldtrack.stream/1","t_ns":1000000000,"tracking_state":"limited(initializing)","type":"frame"}
        {"body_orientation":[0.9999,0.01,0,0],"body_position":[0.1,0.2,0.3],"features":118,"schema":"worldtrack.stream/1","t_ns":1050000000,"tracking_state":"normal","type":"frame"}
        {"id":"plane-1","kind":"plane","schema":"worldtrack.stream/1","t_ns":1050000000,"type":"anchor.added"}
        {"orientation":[1,0,0,0],"position":[0.2,0.2,0.3],"schema":"worldtrack.stream/1","t_ns":1100000000,"tracking_state":"normal","type":"frame"}
        {"body_orientation":[1,0,0,0],"body_position":[0.3,0.2,0.3],"schema":"worldtrack.stream/1","t_ns":9223372036854775807,"tracking_state":"normal","type":"frame"}

        """.utf8)

    @Test("TrajectoryLoader.parse: only TrajectoryLoadErrors, naming the line for line errors; accepted poses sorted and finite")
    func loader() {
        let tum = Array("# t x y z qx qy qz qw\n1.0 0 0 0 0 0 0 1\n1.05 0.1 0 0 0 0 0 1\n".utf8)
        let asl = Array("#t,x,y,z,qw,qx,qy,qz\n1000,0,0,0,1,0,0,0\n2000,1,0,0,1,0,0,0\n".utf8)
        var fuzzer = MutationFuzzer(seed: 0x57EA_2026, seeds: [Self.stream, tum, asl], dictionary: MutationFuzzer.textTokens)
        let (report, failures) = FuzzDriver.run("eval-loader", fuzzer: &fuzzer, count: FuzzDriver.iterations(ciDefault: 20_000)) { bytes in
            let loaded = try TrajectoryLoader.parse(String(decoding: bytes, as: UTF8.self), source: "input", includeLimited: bytes.count % 2 == 0)
            for (a, b) in zip(loaded.poses, loaded.poses.dropFirst()) where !(a.t_ns < b.t_ns) {
                throw TrajectoryLoadError.noPoses(path: "accepted", reason: "unsorted poses")
            }
            if loaded.poses.contains(where: { $0.t_ns < 0 || !$0.pose.translation.x.isFinite }) {
                throw TrajectoryLoadError.noPoses(path: "accepted", reason: "negative time or non-finite position")
            }
        } check: { error, _ in
            guard let e = error as? TrajectoryLoadError else { return "not a TrajectoryLoadError: \(error)" }
            switch e {
            case .noPoses(let path, let reason) where path == "accepted": return reason
            case .badRecord(_, let line, _) where line < 1: return "line \(line): \(e)"
            case .file(let f):
                if case let .badLine(_, line, _) = f, line < 1 { return "line \(line): \(e)" }
                if case .unreadable = f { return "unexpected: \(e)" }
            default: break
            }
            let printable = !e.description.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || $0.value == 0x7F }
            return printable ? nil : "control characters in: \(e.description.debugDescription)"
        }
        print(report)
        for f in failures {
            Issue.record("\(f.message) — input: \(String(decoding: f.input.prefix(300), as: UTF8.self).debugDescription)")
        }
        #expect(report.slowestInput_s < 2)
    }
}
