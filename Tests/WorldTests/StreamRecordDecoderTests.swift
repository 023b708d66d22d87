import Foundation
import Sensors
import Testing
@testable import Consumers

/// `StreamRecordDecoder`, the reader side of `StreamWriter`: built-in records read back field for field, other
/// records by their common fields, and incomplete built-in records are refused.
@Suite struct StreamRecordDecoderTests {
    let writer = StreamWriter(), reader = StreamRecordDecoder()

    /// A plug-in consumer's record: only the three common fields are known to the reader.
    struct PluginRecord: StreamRecord {
        var type = "plugin.hello", t_ns: TimestampNs = 42, schema = StreamSchema.version, greeting = "hi"
    }

    @Test func consumerRecordsReadBackUnchanged() throws {
        let measurement = MeasurementRecord(
            t_ns: 5, tap_t_ns: 4, label: "table", status: "ok",
            points: [.init(pixel: [1.5, 2], position: [0.1, -0.2, 0.75], target: "existingPlaneGeometry", plane_id: "plane-2",
                           distance: 1.25),
                     .init(pixel: [300, 200.25], position: [1.1, -0.2, 0.75], target: "estimatedPlane", plane_id: nil, distance: 1.5)],
            segments: [1.0], total: 1.0, total_std: 0.01, segment_std: [0.01])
        let burst = BurstCapturedRecord(t_ns: 6, burst: 0, index: 3, image: nil, sidecar: "/tmp/b/000003.json")
        let cursor = CursorRecord(t_ns: 7, state: "none")
        for record in [measurement, burst, cursor] as [any StreamRecord] {
            #expect(try reader.decode(writer.encode(record)) == DecodedStreamRecord(record))
        }
        #expect(try reader.decode(writer.encode(measurement)).measurement?.points[1].plane_id == nil)
    }

    @Test func otherRecordsReadAsTheirHeader() throws {
        let decoded = try reader.decode(writer.encode(PluginRecord()))
        #expect(decoded == .other(StreamRecordHeader(type: "plugin.hello", t_ns: 42, schema: "worldtrack.stream/1")))
        #expect(decoded.frame == nil)
    }

    @Test func incompleteRecordsAreRefused() {
        // A frame without intrinsics, a record without t_ns, a cursor whose state is a number, not a JSON object.
        let lines = [
            #"{"type":"frame","t_ns":1,"schema":"worldtrack.stream/1","tracking_state":"normal","position":[0,0,0],"orientation":[1,0,0,0],"T_world_camera":[],"body_position":[0,0,0],"body_orientation":[1,0,0,0],"features":3,"anchors":[]}"#,
            #"{"type":"plugin.hello","schema":"worldtrack.stream/1"}"#,
            #"{"type":"cursor","t_ns":1,"schema":"worldtrack.stream/1","state":3}"#,
            "[1,2,3]",
        ]
        for line in lines {
            #expect(throws: DecodingError.self, "\(line)") { try reader.decode(line) }
        }
    }
}
