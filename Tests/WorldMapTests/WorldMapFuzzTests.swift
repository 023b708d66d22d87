import Foundation
import Testing
import TestSupport
@testable import WorldMap

/// The world map reader fed mutated files (`MutationFuzzer`, as the other readers of user files): no crash, no slow
/// input, every rejection a `WorldMapError`, and every accepted map the same when written and read again. Half the
/// inputs get their header's length and checksum recomputed, so that mutations reach the payload's checks.
@Suite("World map reader fuzzing")
struct WorldMapFuzzTests {
    @Test("mutated world maps: typed errors only, no slow input, accepted maps round-trip")
    func fuzzReader() throws {
        let seeds = [WorldMapFile.encode(WorldMapFileTests.sampleMap()), WorldMapFile.encode(WorldMap())]
        var fuzzer = MutationFuzzer(seed: 0x19_0001, seeds: seeds, dictionary: ["WTWMAP\r\n", "plane-", "anchor-"])
        var fixHeader = false
        let (report, failures) = FuzzDriver.run("world-map", fuzzer: &fuzzer, count: FuzzDriver.iterations(ciDefault: 6_000)) { input in
            var bytes = input
            fixHeader.toggle()
            if fixHeader, bytes.count >= WorldMapFile.headerSize {
                let payload = bytes[WorldMapFile.headerSize...]
                withUnsafeBytes(of: UInt64(payload.count).littleEndian) { bytes.replaceSubrange(16..<24, with: $0) }
                withUnsafeBytes(of: CRC32.checksum(payload).littleEndian) { bytes.replaceSubrange(24..<28, with: $0) }
            }
            let map = try WorldMapFile.decode(bytes, path: "fuzz.wtmap")
            let again = try WorldMapFile.decode(WorldMapFile.encode(map), path: "again")
            if again != map { throw WorldMapError.corrupt(path: "round trip", reason: "an accepted map changed when written and read") }
        } check: { error, _ in
            guard let e = error as? WorldMapError else { return "not a WorldMapError: \(error)" }
            if case let .corrupt(path, reason) = e, path == "round trip" { return reason }
            return e.description.hasPrefix("fuzz.wtmap: ") ? nil : "the message does not name the file: \(e)"
        }
        print(report)
        for f in failures { Issue.record("\(f.message) — input of \(f.input.count) bytes") }
        #expect(report.slowestInput_s < 2, "an input took \(report.slowestInput_s) s")
        // The header fix-up lets mutations through to the payload: some inputs are accepted, most rejected.
        #expect(report.accepted > 0 && report.rejected > report.inputs / 4, "\(report)")
    }
}
