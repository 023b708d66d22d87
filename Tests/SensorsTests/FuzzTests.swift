import Foundation
import Geometry
@testable import Imaging
@testable import Sensors
import Testing
import TestSupport

/// Mutation fuzzing of the readers of user files: the ASL CSV reader (and the IMU listing built on it), the
/// ASL ground-truth and TUM trajectory readers, `sensor.yaml`, the PNG header check and the grayscale PNG
/// decoder (C++, behind Imaging). Requirements: no crash, no hang, every rejection a typed error, naming the
/// line where the format has lines.
///
/// CI runs a few thousand inputs per target (seeded, so every run tries the same inputs). The long run:
/// `WORLDTRACK_FUZZ_ITERATIONS=1000000 swift test -c release -Xswiftc -enable-testing --filter FuzzTests`
/// (the input being tried is kept in `$TMPDIR/worldtrack-fuzz-current-TARGET.bin`, so a crash leaves it behind;
/// every crash found becomes a file of `Tests/FuzzCorpus`, replayed by `corpus()`).
@Suite("fuzzing the file readers (deterministic mutation fuzzer)")
struct FuzzTests {
    static let corpusFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("FuzzCorpus").path
    /// Seed of the fuzzers: `WORLDTRACK_FUZZ_SEED` or a fixed value.
    static let seed = UInt64(ProcessInfo.processInfo.environment["WORLDTRACK_FUZZ_SEED"] ?? "") ?? 0x5EED_2026

    // MARK: Seeds

    static let imuCSV: [UInt8] = {
        var text = "#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]\n"
        for k in 0..<12 { text += "\(1_403_715_273_262_142_976 + Int64(k) * 5_000_000),-0.099134701513277898,0.14032447186034408,0.029321531433504733,8.1476917083333333,-0.37592158333333331,-2.4026292499999999\n" }
        return Array(text.utf8)
    }()

    static let groundTruthCSV: [UInt8] = Array(TrajectoryFile.formatASLGroundTruth((0..<6).map { k in
        GroundTruthState(t_ns: 1_403_715_273_262_142_976 + Int64(k) * 5_000_000,
                         T_W_B: SE3(rotation: SO3(angle: 0.1 * Double(k), axis: Vec3(0, 0, 1)), translation: Vec3(0.1 * Double(k), 2, 0.9)))
    }).utf8)

    static let tum: [UInt8] = Array(TrajectoryFile.formatTUM((0..<6).map { k in
        StampedPose(t_ns: 1_403_715_273_262_142_976 + Int64(k) * 50_000_000,
                    pose: SE3(rotation: SO3(angle: 0.2 * Double(k), axis: Vec3(0, 1, 0)), translation: Vec3(Double(k), -1.5, 1e-3)))
    }).utf8)

    static let tumExtremes: [UInt8] = Array("""
        # times at the ends of the range run writes
        0.000000000 0 0 0 0 0 0 1
        9223372036.854775807 1 2 3 0 0 0 1

        """.utf8)

    /// Small grayscale PNGs: 8-bit (OpenCV's encoder, every filter it picks) and a hand-made 16-bit one.
    static let pngs: [[UInt8]] = {
        func texture(_ w: Int, _ h: Int) -> GrayImage {
            GrayImage(width: w, height: h, pixels: (0..<(w * h)).map { UInt8(truncatingIfNeeded: ($0 % w) * 7 ^ ($0 / w) * 13) })
        }
        var seeds = [(try? ImageCodec.encodePNG(texture(16, 12))) ?? [], (try? ImageCodec.encodePNG(texture(5, 3))) ?? []]
        seeds.append(PNGBytes.gray16(width: 4, height: 3))
        return seeds.filter { !$0.isEmpty }
    }()

    // MARK: Checks

    /// A message printable on a terminal: no control characters but newline and tab.
    static func isPrintable(_ s: String) -> Bool {
        !s.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || $0.value == 0x7F }
    }

    static func expectClean(_ report: FuzzDriver.Report, _ failures: [(input: [UInt8], message: String)]) {
        print(report)
        for f in failures {
            Issue.record("\(report.target): \(f.message) — input (\(f.input.count) bytes): \(String(decoding: f.input.prefix(300), as: UTF8.self).debugDescription)")
        }
        // No hang: a single input of a few hundred bytes must never take long (generous for loaded CI machines).
        #expect(report.slowestInput_s < 2, "\(report.target): an input took \(report.slowestInput_s) s")
    }

    /// A `TrajectoryFileError` names its line unless it is about the whole file.
    static func checkTrajectoryError(_ error: Error) -> String? {
        guard let e = error as? TrajectoryFileError else { return "not a TrajectoryFileError: \(error)" }
        switch e {
        case let .badLine(_, line, _), let .unsorted(_, line, _):
            if line < 1 { return "line \(line) in \(e)" }
        case .empty: break
        case .unreadable: return "unexpected 'unreadable' for text: \(e)"
        }
        return isPrintable(e.description) ? nil : "control characters in: \(e.description.debugDescription)"
    }

    // MARK: Targets

    @Test("ASL CSV reader and IMU listing: rows carry increasing line numbers; every problem names its line")
    func aslCSV() {
        var fuzzer = MutationFuzzer(seed: Self.seed, seeds: [Self.imuCSV], dictionary: MutationFuzzer.textTokens)
        struct Rejected: Error { var problems: [DatasetProblem] }
        let (report, failures) = FuzzDriver.run("asl-csv", fuzzer: &fuzzer, count: FuzzDriver.iterations(ciDefault: 20_000)) { bytes in
            let lineCount = bytes.reduce(1) { $0 + ($1 == 10 || $1 == 13 ? 1 : 0) }
            var previous = 0
            var bad: String?
            CSVReader.forEachRow(bytes: bytes) { row in
                if row.line <= previous || row.line > lineCount || row.fields.isEmpty { bad = "row line \(row.line) after \(previous) of \(lineCount)" }
                previous = row.line
            }
            if let bad { throw Rejected(problems: [DatasetProblem(.fatal, file: "reader", message: bad)]) }
            var log = ProblemLog()
            let samples = ASLIMULoader.parseSamples(bytes: bytes, csvPath: "imu0/data.csv", options: ASLLoadOptions(), log: &log)
            if !samples.allSatisfy({ [$0.gyro_B.x, $0.gyro_B.y, $0.gyro_B.z, $0.accel_B.x, $0.accel_B.y, $0.accel_B.z].allSatisfy(\.isFinite) }) {
                throw Rejected(problems: [DatasetProblem(.fatal, file: "reader", message: "a non-finite sample was accepted")])
            }
            if !log.problems.isEmpty { throw Rejected(problems: log.problems) }
        } check: { error, _ in
            guard let rejected = error as? Rejected else { return "unexpected error \(error)" }
            for p in rejected.problems {
                if p.file == "reader" { return p.message }
                if p.line == nil && !p.message.hasPrefix("empty listing") { return "problem without a line: \(p)" }
                if !Self.isPrintable(p.description) { return "control characters in: \(p.description.debugDescription)" }
            }
            return nil
        }
        Self.expectClean(report, failures)
    }

    @Test("ASL ground-truth and TUM trajectory readers: typed errors with line numbers; accepted rows are sorted, finite, ≥ 0")
    func trajectories() {
        var fuzzer = MutationFuzzer(seed: Self.seed &+ 1, seeds: [Self.tum, Self.tumExtremes, Self.groundTruthCSV],
                                    dictionary: MutationFuzzer.textTokens)
        let (report, failures) = FuzzDriver.run("trajectory", fuzzer: &fuzzer, count: FuzzDriver.iterations(ciDefault: 20_000)) { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            let poses: [StampedPose]
            if bytes.first(where: { $0 != 35 && $0 != 10 }) != nil, text.contains(",") {
                poses = try TrajectoryFile.parseASLGroundTruth(text, source: "gt.csv").map { StampedPose(t_ns: $0.t_ns, pose: $0.T_W_B) }
            } else {
                poses = try TrajectoryFile.parseTUM(text, source: "est.tum")
            }
            for (a, b) in zip(poses, poses.dropFirst()) where !(a.t_ns < b.t_ns) { throw TrajectoryFileError.badLine(path: "accepted", line: 0, reason: "unsorted") }
            if poses.contains(where: { $0.t_ns < 0 || !$0.pose.translation.x.isFinite }) {
                throw TrajectoryFileError.badLine(path: "accepted", line: 0, reason: "negative time or non-finite value accepted")
            }
        } check: { error, _ in Self.checkTrajectoryError(error) }
        Self.expectClean(report, failures)
    }

    @Test("TUM times round-trip exactly over the whole Int64 range that run can write")
    func tumTimeRoundTrip() throws {
        var rng = SplitMix64(seed: Self.seed)
        var times: [TimestampNs] = [0, 1, 999_999_999, 1_000_000_000, .max, .max - 1, 9_000_000_000_000_000_000]
        for _ in 0..<20_000 { times.append(TimestampNs(bitPattern: rng.next() >> 1)) }
        for t in times {
            let line = TrajectoryFile.tumLine(StampedPose(t_ns: t, pose: SE3(rotation: .identity, translation: Vec3(1, 2, 3))))
            let back = try TrajectoryFile.parseTUM(line, source: "t.tum")
            #expect(back.first?.t_ns == t, "\(line)")
        }
        // Beyond Int64 nanoseconds, and negative times: rejected with the line, never a crash or a wrong time.
        for bad in ["9223372036.854775808", "99999999999 0 0 0 0 0 0 1", "1e300", "-0.5", "-1e-3"] {
            let row = bad.contains(" ") ? bad : bad + " 0 0 0 0 0 0 1"
            #expect(throws: TrajectoryFileError.self) { try TrajectoryFile.parseTUM("# header\n" + row + "\n", source: "t.tum") }
            do { _ = try TrajectoryFile.parseTUM("# header\n" + row + "\n", source: "t.tum") } catch {
                #expect("\(error)".contains("t.tum:2:"), "\(error)")
            }
        }
    }

    @Test("sensor.yaml reader: only DatasetErrors, with the line where YAML gives one, no raw control bytes")
    func sensorYAML() {
        let seeds = [Array(DatasetFixture.cameraYAML(cam: 0, width: 752, height: 480).utf8), Array(DatasetFixture.imuYAML.utf8)]
        var fuzzer = MutationFuzzer(seed: Self.seed &+ 2, seeds: seeds, dictionary: MutationFuzzer.textTokens)
        let (report, failures) = FuzzDriver.run("sensor-yaml", fuzzer: &fuzzer, count: FuzzDriver.iterations(ciDefault: 6_000)) { bytes in
            try Self.parseYAML(bytes)
        } check: { error, _ in Self.checkYAMLError(error) }
        Self.expectClean(report, failures)
    }

    static func parseYAML(_ bytes: [UInt8]) throws {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("camera_model") || text.contains("intrinsics") {
            _ = try SensorYAML.parseCamera(yaml: text, file: "cam0/sensor.yaml", name: "cam0")
        } else {
            _ = try SensorYAML.parseIMU(yaml: text, file: "imu0/sensor.yaml")
        }
    }

    static func checkYAMLError(_ error: Error) -> String? {
        guard let e = error as? DatasetError else { return "not a DatasetError: \(error)" }
        for p in e.problems {
            if !isPrintable(p.description) { return "control characters in: \(p.description.debugDescription)" }
            // Syntax errors and key errors carry the line (libyaml's mark); only whole-document ones may not.
            if p.line == nil && !p.message.hasPrefix("expected a YAML mapping") && !p.message.hasPrefix("not valid YAML") {
                return "problem without a line: \(p)"
            }
        }
        return nil
    }

    @Test("PNG header check: typed errors, positive sizes when accepted")
    func pngHeader() {
        var fuzzer = MutationFuzzer(seed: Self.seed &+ 3, seeds: Self.pngs, dictionary: ["IHDR", "IEND", "IDAT", "\u{89}PNG\r\n\u{1A}\n"])
        let (report, failures) = FuzzDriver.run("png-header", fuzzer: &fuzzer, count: FuzzDriver.iterations(ciDefault: 20_000)) { bytes in
            let header = try PNGHeader.parse(head: Array(bytes.prefix(33)), tail: bytes.count >= 45 ? Array(bytes.suffix(12)) : [],
                                             fileSize: bytes.count)
            if header.width <= 0 || header.height <= 0 { throw PNGHeaderError.corruptHeader("accepted a size \(header.width)×\(header.height)") }
        } check: { error, _ in
            guard let e = error as? PNGHeaderError else { return "not a PNGHeaderError: \(error)" }
            if case .corruptHeader(let why) = e, why.hasPrefix("accepted") { return why }
            return nil
        }
        Self.expectClean(report, failures)
    }

    @Test("grayscale PNG decoder (C++ fast path): decode errors only; what it decodes, libpng decodes to the same pixels")
    func grayPNGDecoder() throws {
        #expect(!Self.pngs.isEmpty)
        var fuzzer = MutationFuzzer(seed: Self.seed &+ 4, seeds: Self.pngs, dictionary: ["IHDR", "IEND", "IDAT", "tEXt", "PLTE"])
        var crossChecked = 0
        let compare = !FuzzDriver.isLongRun // libpng is slower than the fast decoder: CI runs only
        let (report, failures) = FuzzDriver.run("png-gray", fuzzer: &fuzzer, count: FuzzDriver.iterations(ciDefault: 20_000)) { raw in
            // Half the inputs get valid chunk CRCs, so the mutations reach the inflate and unfilter stages.
            let bytes = raw.count % 2 == 0 ? PNGBytes.fixingChunkCRCs(raw) : raw
            let image = try ImageCodec.decodeGrayFastPathOnly(data: bytes)
            guard image.pixels.count == image.width * image.height, image.width > 0, image.height > 0 else {
                throw ImagingError.invalidArgument(message: "decoded \(image.pixels.count) pixels for \(image.width)x\(image.height)")
            }
            if compare {
                let reference = try ImageCodec.decodeGrayWithLibpng(data: bytes)
                crossChecked += 1
                if reference != image { throw ImagingError.invalidArgument(message: "pixels differ from libpng's") }
            }
        } check: { error, _ in
            guard let e = error as? ImagingError else { return "not an ImagingError: \(error)" }
            if case .decode = e { return nil }
            return "\(e)"
        }
        print("png-gray: \(crossChecked) decoded inputs compared with libpng")
        Self.expectClean(report, failures)
    }

    @Test("corpus: every saved input (crashes found by fuzzing and edge cases) is handled without a crash")
    func corpus() throws {
        let cases = FuzzDriver.corpus(Self.corpusFolder)
        #expect(cases.count >= 5, "corpus folder \(Self.corpusFolder)")
        for (name, bytes) in cases {
            if name.hasPrefix("yaml-") {
                #expect(throws: DatasetError.self, "\(name)") { try Self.parseYAML(bytes) }
                do { try Self.parseYAML(bytes) } catch { #expect(Self.checkYAMLError(error) == nil, "\(name): \(error)") }
            } else if name.hasPrefix("png-") {
                #expect(throws: ImagingError.self, "\(name)") { try ImageCodec.decodeGray(data: bytes) }
                #expect(throws: ImagingError.self, "\(name)") { try ImageCodec.decodeGrayFastPathOnly(data: bytes) }
            } else if name.hasPrefix("tum-") {
                do { _ = try TrajectoryFile.parseTUM(String(decoding: bytes, as: UTF8.self), source: name) } catch {
                    #expect(Self.checkTrajectoryError(error) == nil, "\(name): \(error)")
                }
            } else if name.hasPrefix("csv-") {
                var log = ProblemLog()
                _ = ASLIMULoader.parseSamples(bytes: bytes, csvPath: name, options: ASLLoadOptions(), log: &log)
                #expect(log.problems.allSatisfy { $0.line != nil || $0.message.hasPrefix("empty listing") }, "\(name): \(log.problems)")
            } else {
                Issue.record("corpus file \(name) has no known prefix (yaml-, png-, tum-, csv-)")
            }
        }
    }
}

/// PNG byte helpers for the fuzz tests.
enum PNGBytes {
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }

    static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + payload
        return be32(UInt32(payload.count)) + body + be32(PNGHeader.crc32(body))
    }

    /// A 16-bit grayscale PNG (filter 0 rows, stored deflate block) of a gradient.
    static func gray16(width: Int, height: Int) -> [UInt8] {
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width { let v = UInt16((x * 4000 + y * 9000) % 65536); raw += [UInt8(v >> 8), UInt8(v & 0xFF)] }
        }
        // zlib: header, one stored block, Adler-32.
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        let n = UInt16(raw.count)
        let zlib: [UInt8] = [0x78, 0x01, 0x01, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8)] + raw + be32(b << 16 | a)
        let ihdr = be32(UInt32(width)) + be32(UInt32(height)) + [16, 0, 0, 0, 0]
        return PNGHeader.signature + chunk("IHDR", ihdr) + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    /// `bytes` with the CRC of every whole chunk recomputed (lengths as they are).
    static func fixingChunkCRCs(_ bytes: [UInt8]) -> [UInt8] {
        var b = bytes
        var pos = 8
        while pos + 12 <= b.count {
            let length = Int(UInt32(b[pos]) << 24 | UInt32(b[pos + 1]) << 16 | UInt32(b[pos + 2]) << 8 | UInt32(b[pos + 3]))
            guard length <= b.count - pos - 12 else { break }
            let crc = be32(PNGHeader.crc32(b[(pos + 4)..<(pos + 8 + length)]))
            b.replaceSubrange((pos + 8 + length)..<(pos + 12 + length), with: crc)
            pos += length + 12
        }
        return b
    }
}
