import Foundation
import Testing
@testable import Sensors
import TestSupport

@Suite("ASL dataset validation")
struct DatasetValidationTests {
    /// Each broken fixture gives a problem that names the right file (and line), with the right
    /// severity; fatal ones make loading throw, warnings leave a usable dataset.
    @Test("Each broken fixture is reported with its file, line and message", arguments: DatasetBreakage.all)
    func breakage(_ c: DatasetBreakage) throws {
        let f = try DatasetFixture(frames: DatasetBreakage.fixtureFrames)
        try c.apply(f)
        let problems: [DatasetProblem]
        if c.fatal {
            let error = try #require(throws: DatasetError.self) { try ASLDataset(path: f.root) }
            problems = error.fatalProblems
            #expect(error.description.contains(c.message), "\(error.description)")
        } else {
            let d = try ASLDataset(path: f.root)
            problems = d.problems
            #expect(problems.allSatisfy { $0.severity == .warning })
        }
        let match = problems.first { $0.message.contains(c.message) }
        let problem = try #require(match, "no problem says '\(c.message)' in \(problems)")
        #expect(problem.file == f.path(c.file))
        #expect(problem.line == c.line)
        #expect(problem.description.hasPrefix(f.path(c.file)))
    }

    @Test("Missing or non-folder dataset path, and a folder without mav0")
    func missingDataset() throws {
        let dir = try TemporaryDirectory()
        let absent = dir.path("nope")
        let e1 = try #require(throws: DatasetError.self) { try ASLDataset(path: absent) }
        #expect(e1.description == "\(absent): no such dataset folder")
        let e2 = try #require(throws: DatasetError.self) { try ASLDataset(path: dir.path) }
        #expect(e2.problems.first?.file == dir.path("mav0"))
        #expect(e2.description.contains("missing folder"))
        try "x".write(toFile: dir.path("file"), atomically: true, encoding: .utf8)
        let e3 = try #require(throws: DatasetError.self) { try ASLDataset(path: dir.path("file")) }
        #expect(e3.description.contains("not a folder"))
    }

    @Test("Absent images are skipped: frames keep the rest, missingImages lists them in order")
    func absentImagesSkipped() throws {
        let f = try DatasetFixture(frames: 6)
        try f.remove("mav0/cam1/data/\(f.frameFileName(5))")
        try f.remove("mav0/cam1/data/\(f.frameFileName(2))")
        let d = try ASLDataset(path: f.root)
        #expect(d.cameras[1].frames.map(\.t_ns) == [0, 1, 3, 4].map(f.frameTime))
        #expect(d.cameras[1].missingImages == [f.frameFileName(2), f.frameFileName(5)])
        #expect(d.cameras[1].listedCount == 6)
        // Stereo events: 4 pairs, 2 cam0 frames alone.
        let frameEvents = Array(d.events()).filter { if case .imu = $0 { return false } else { return true } }
        #expect(frameEvents.count == 6)
    }

    @Test("Repeated problems in one file are capped at 5 and summarised")
    func capped() throws {
        let f = try DatasetFixture(frames: 10)
        try f.write("mav0/cam0/sensor.yaml", DatasetFixture.cameraYAML(cam: 0, width: 32, height: 12))
        let error = try #require(throws: DatasetError.self) { try ASLDataset(path: f.root) }
        let sizeProblems = error.problems.filter { $0.message.contains("image is 16×12") }
        #expect(sizeProblems.count == 5)
        #expect(error.problems.contains { $0.message.contains("10 images of the wrong size in all") })
    }

    @Test("Several fatal problems in different files are all reported")
    func severalProblems() throws {
        let f = try DatasetFixture(frames: 4)
        try f.remove("mav0/cam1/data.csv")
        try f.replaceLine("mav0/imu0/data.csv", line: 3, with: "garbage")
        let error = try #require(throws: DatasetError.self) { try ASLDataset(path: f.root) }
        let files = Set(error.fatalProblems.map(\.file))
        #expect(files == [f.path("mav0/cam1/data.csv"), f.path("mav0/imu0/data.csv")])
    }

    @Test("Binary garbage and empty files give errors, not crashes")
    func garbage() throws {
        let f = try DatasetFixture(frames: 3)
        try f.write("mav0/imu0/data.csv", bytes: (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        try f.write("mav0/cam0/sensor.yaml", "")
        try f.write("mav0/cam1/sensor.yaml", bytes: [0xFF, 0xFE, 0x00, 0x01, 0x3A, 0x0A])
        let error = try #require(throws: DatasetError.self) { try ASLDataset(path: f.root) }
        #expect(error.fatalProblems.contains { $0.file == f.path("mav0/cam0/sensor.yaml") })
        #expect(error.fatalProblems.contains { $0.file == f.path("mav0/cam1/sensor.yaml") })
        #expect(error.fatalProblems.contains { $0.file == f.path("mav0/imu0/data.csv") })
    }
}
