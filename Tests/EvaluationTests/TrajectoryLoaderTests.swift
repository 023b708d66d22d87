import Foundation
import Geometry
import Sensors
import Testing
@testable import Evaluation

@Suite struct TrajectoryLoaderTests {
    @Test func detectsFormatsByContent() {
        #expect(TrajectoryLoader.detectFormat("# c\n1.0 1 2 3 0 0 0 1\n") == .tum)
        #expect(TrajectoryLoader.detectFormat("#timestamp, p\n1403715273262142976,1,2,3,1,0,0,0\n") == .aslGroundTruth)
        #expect(TrajectoryLoader.detectFormat("{\"type\":\"session\"}\n") == .worldTrackStream)
    }

    @Test func readsBodyPoseFromTheStreamAndSkipsUntrackedFrames() throws {
        let text = """
        {"type":"session","t_ns":0,"schema":1}
        {"type":"frame","t_ns":1000,"tracking_state":"notAvailable","body_position":[0,0,0],"body_orientation":[1,0,0,0]}
        {"type":"frame","t_ns":2000,"tracking_state":"limited(initializing)","body_position":[0,0,0],"body_orientation":[1,0,0,0]}
        {"type":"frame","t_ns":3000,"tracking_state":"normal","body_position":[1,2,3],"body_orientation":[0,1,0,0],"position":[9,9,9],"orientation":[1,0,0,0]}
        {"type":"anchor.added","t_ns":3500}
        {"type":"frame","t_ns":4000,"tracking_state":"normal","body_position":[1.5,2,3],"body_orientation":[1,0,0,0]}
        """
        let loaded = try TrajectoryLoader.parse(text, source: "run.jsonl")
        #expect(loaded.format == .worldTrackStream)
        #expect(loaded.poses.map(\.t_ns) == [3000, 4000])
        #expect(loaded.poses[0].pose.translation == Vec3(1, 2, 3))
        #expect(loaded.poses[0].pose.rotation.quaternion == Quaternion(w: 0, x: 1, y: 0, z: 0))
        #expect(loaded.skippedFrames == 2)
        #expect(loaded.warnings.isEmpty)
        let withLimited = try TrajectoryLoader.parse(text, source: "run.jsonl", includeLimited: true)
        #expect(withLimited.poses.map(\.t_ns) == [2000, 3000, 4000])
    }

    @Test func fallsBackToCameraPoseWithAWarning() throws {
        let text = #"{"type":"frame","t_ns":5,"tracking_state":"normal","position":[1,0,0],"orientation":[1,0,0,0]}"#
        let loaded = try TrajectoryLoader.parse(text, source: "run.jsonl")
        #expect(loaded.poses.count == 1)
        #expect(loaded.warnings.count == 1)
        #expect(loaded.warnings[0].contains("camera pose"))
    }

    @Test func badStreamRecordsNameTheLine() {
        let cases: [(String, String)] = [
            ("{\"type\":\"frame\",\"t_ns\":1,\"body_position\":[0,0,0],\"body_orientation\":[1,0,0,0]}\nnot json\n", "run.jsonl:2: not a JSON object"),
            ("{\"type\":\"frame\",\"t_ns\":1,\"body_position\":[0,0],\"body_orientation\":[1,0,0,0]}\n", "run.jsonl:1: frame without body_position"),
            ("{\"type\":\"frame\",\"t_ns\":2,\"body_position\":[0,0,0],\"body_orientation\":[1,0,0,0]}\n{\"type\":\"frame\",\"t_ns\":1,\"body_position\":[0,0,0],\"body_orientation\":[1,0,0,0]}\n", "run.jsonl:2: frame t_ns 1 is before"),
            ("{\"type\":\"frame\",\"t_ns\":1,\"tracking_state\":\"notAvailable\",\"body_position\":[0,0,0],\"body_orientation\":[1,0,0,0]}\n", "run.jsonl: no usable poses"),
            ("{\"type\":\"session\"}\n", "run.jsonl: no usable poses (no \"type\":\"frame\" records)"),
        ]
        for (text, message) in cases {
            let error = #expect(throws: TrajectoryLoadError.self) { try TrajectoryLoader.parse(text, source: "run.jsonl") }
            #expect(error?.description.hasPrefix(message) == true, "\(error?.description ?? "") vs \(message)")
        }
    }

    @Test func datasetFolderResolvesToItsGroundTruth() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gtFolder = folder.appendingPathComponent("mav0/state_groundtruth_estimate0")
        try FileManager.default.createDirectory(at: gtFolder, withIntermediateDirectories: true)
        try "100,1,2,3,1,0,0,0\n".write(to: gtFolder.appendingPathComponent("data.csv"), atomically: true, encoding: .utf8)
        let loaded = try TrajectoryLoader.load(path: folder.path)
        #expect(loaded.format == .aslGroundTruth)
        #expect(loaded.poses.count == 1)
        let empty = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(throws: TrajectoryLoadError.noGroundTruthInFolder(path: empty.path)) { try TrajectoryLoader.load(path: empty.path) }
    }
}
