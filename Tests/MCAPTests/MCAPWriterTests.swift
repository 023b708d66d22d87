import Foundation
import Testing
@testable import MCAP

/// The writer's files read back with the tests' own record walker (`TestReader`): structure, summary offsets,
/// indexes, CRCs, interrupted files, and refusals.
struct MCAPWriterTests {
    /// A path in the temporary folder, unique to this process and name (each test removes its file).
    static func scratch(_ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("worldtrack-mcap-test-\(getpid())-\(name)").path
        try? FileManager.default.removeItem(atPath: path)
        return path
    }

    static func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        var c = ByteCursor(bytes, at: at)
        return try! c.u64()
    }

    /// Writes `count` messages alternating between two channels, with payloads of varied sizes (some larger
    /// than the chunk size). Returns the writer (not closed) and the messages written.
    static func writeSample(_ path: String, count: Int, chunkSize: Int) throws -> (MCAPWriter, [TestMessage]) {
        var options = MCAPWriter.Options()
        options.chunkSize = chunkSize
        let w = try MCAPWriter(path: path, options: options)
        let schema = try w.addSchema(name: "test.Thing", encoding: "jsonschema", data: Array(#"{"type":"object"}"#.utf8))
        let a = try w.addChannel(topic: "/a", messageEncoding: "json", schemaID: schema, metadata: ["k": "v"])
        let b = try w.addChannel(topic: "/b", messageEncoding: "json", schemaID: 0)
        var written: [TestMessage] = []
        var sequences: [UInt16: UInt32] = [:]
        for i in 0..<count {
            let channel = i % 3 == 0 ? b : a
            let payload = Array(#"{"i":\#(i),"pad":"\#(String(repeating: "x", count: (i * 37) % 700))"}"#.utf8)
            let t = 1_600_000_000_000_000_000 + Int64(i) * 50_000_000
            try w.write(channel: channel, logTime_ns: t, data: payload)
            written.append(TestMessage(channel: channel, sequence: sequences[channel, default: 0], logTime: UInt64(t), data: payload))
            sequences[channel, default: 0] += 1
        }
        return (w, written)
    }

    @Test func closedFileStructureAndSummaryOffsets() throws {
        let path = try Self.scratch("closed.mcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (w, written) = try Self.writeSample(path, count: 60, chunkSize: 2048)
        try w.close()
        let file = try Self.read(path)

        // Magic at both ends; Header first, Footer last.
        #expect(Array(file.prefix(8)) == mcapMagic)
        #expect(Array(file.suffix(8)) == mcapMagic)
        let (records, complete) = try TestReader.records(file)
        #expect(complete)
        let footer = try #require(records.last)
        #expect(records.first?.opcode == MCAPOpcode.header.rawValue)
        #expect(footer.opcode == MCAPOpcode.footer.rawValue)
        #expect(footer.offset + footer.length + 8 == file.count)

        // Every message comes back, in order, with its channel, sequence, time and bytes; several chunks were used.
        let chunks = records.filter { $0.opcode == MCAPOpcode.chunk.rawValue }
        #expect(chunks.count >= 5, "2 KiB chunks of ~25 kB of messages")
        #expect(try TestReader.messages(records) == written)

        // Footer → summary: its first record starts at summary_start, and the Summary Offset records each point
        // at a group of records of their opcode, exactly covering it.
        let summaryStart = Int(Self.u64(footer.content, 0)), summaryOffsetStart = Int(Self.u64(footer.content, 8))
        let byOffset = Dictionary(uniqueKeysWithValues: records.map { ($0.offset, $0) })
        let dataEnd = try #require(records.last { $0.opcode == MCAPOpcode.dataEnd.rawValue })
        #expect(dataEnd.offset + dataEnd.length == summaryStart)
        #expect(byOffset[summaryStart]?.opcode == MCAPOpcode.schema.rawValue)
        let offsetRecords = records.filter { $0.opcode == MCAPOpcode.summaryOffset.rawValue }
        #expect(offsetRecords.first?.offset == summaryOffsetStart)
        #expect(offsetRecords.map { $0.content[0] } == [MCAPOpcode.schema, .channel, .chunkIndex, .statistics].map(\.rawValue))
        for o in offsetRecords {
            let start = Int(Self.u64(o.content, 1)), length = Int(Self.u64(o.content, 9))
            let group = records.filter { $0.offset >= start && $0.offset < start + length }
            #expect(!group.isEmpty && group.allSatisfy { $0.opcode == o.content[0] }, "group \(o.content[0])")
            #expect(group.map(\.length).reduce(0, +) == length)
        }

        // Chunk Index records point at their chunks and at the Message Index records after them, and those
        // point at the messages inside the chunk.
        let chunkIndexes = records.filter { $0.opcode == MCAPOpcode.chunkIndex.rawValue }
        #expect(chunkIndexes.count == chunks.count)
        for index in chunkIndexes {
            var c = ByteCursor(index.content)
            let start = try c.u64(), end = try c.u64(), offset = Int(try c.u64()), length = Int(try c.u64())
            let chunk = try #require(byOffset[offset])
            #expect(chunk.opcode == MCAPOpcode.chunk.rawValue && chunk.length == length)
            let (messages, crc, recordBytes) = try TestReader.chunkMessages(chunk.content)
            #expect(crc == CRC32Tests.reference(recordBytes))
            #expect(UInt64(messages.map(\.message.logTime).min()!) == start && messages.map(\.message.logTime).max()! == end)
            let mapLength = Int(try c.u32())
            var indexed = 0
            for _ in 0..<(mapLength / 10) {
                let channel = try c.u16(), indexOffset = Int(try c.u64())
                let messageIndex = try #require(byOffset[indexOffset])
                #expect(messageIndex.opcode == MCAPOpcode.messageIndex.rawValue)
                var m = ByteCursor(messageIndex.content)
                #expect(try m.u16() == channel)
                let entries = Int(try m.u32()) / 16
                for _ in 0..<entries {
                    let t = try m.u64(), at = Int(try m.u64())
                    let hit = try #require(messages.first { $0.offset == at })
                    #expect(hit.message.logTime == t && hit.message.channel == channel)
                    indexed += 1
                }
            }
            #expect(indexed == messages.count, "every message of the chunk is indexed once")
        }

        // Statistics: message count and per-channel counts.
        let stats = try #require(records.first { $0.opcode == MCAPOpcode.statistics.rawValue })
        #expect(Self.u64(stats.content, 0) == UInt64(written.count))

        // CRCs: the data section's (from the leading magic to the Data End record) and the summary's.
        var d = ByteCursor(dataEnd.content)
        #expect(try d.u32() == CRC32Tests.reference(Array(file[0..<dataEnd.offset])))
        var f = ByteCursor(footer.content, at: 16)
        #expect(try f.u32() == CRC32Tests.reference(Array(file[summaryStart..<(footer.offset + 9 + 16)])))
    }

    @Test func interruptedFileIsReadableUpToItsLastChunk() throws {
        let path = try Self.scratch("interrupted.mcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var flushed = 0
        do {
            // The writer is dropped without close(), as when the process dies: the open chunk is lost.
            let (w, written) = try Self.writeSample(path, count: 45, chunkSize: 4096)
            #expect(w.chunkCount >= 3)
            flushed = try TestReader.messages(try TestReader.records(try Self.read(path)).records).count
            #expect(flushed > 0 && flushed < written.count)
            #expect(try TestReader.messages(try TestReader.records(try Self.read(path)).records) == Array(written.prefix(flushed)))
        }
        let file = try Self.read(path)
        let (records, complete) = try TestReader.records(file)
        #expect(!complete, "no footer")
        // It ends exactly after a whole record (the last chunk's message indexes): nothing torn.
        let last = try #require(records.last)
        #expect(last.offset + last.length == file.count)
        #expect(last.opcode == MCAPOpcode.messageIndex.rawValue)

        // Cut in the middle of the last chunk: the chunks before it are still read.
        let lastChunk = try #require(records.last { $0.opcode == MCAPOpcode.chunk.rawValue })
        let cut = Array(file[0..<(lastChunk.offset + lastChunk.length / 2)])
        let kept = try TestReader.messages(try TestReader.records(cut).records)
        let inLastChunk = try TestReader.chunkMessages(lastChunk.content).messages.count
        #expect(kept.count == flushed - inLastChunk && !kept.isEmpty)
    }

    @Test func emptyFileIsValid() throws {
        let path = try Self.scratch("empty.mcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try MCAPWriter(path: path).close()
        let (records, complete) = try TestReader.records(try Self.read(path))
        #expect(complete)
        #expect(records.map(\.opcode) == [MCAPOpcode.header, .dataEnd, .statistics, .summaryOffset, .footer].map(\.rawValue))
    }

    @Test func refusesExistingFileUnlessReplacing() throws {
        let path = try Self.scratch("existing.mcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: MCAPError.cannotCreate(path: path, reason: "it exists", exists: true)) { try MCAPWriter(path: path) }
        #expect(String(decoding: try Self.read(path), as: UTF8.self) == "keep me")
        try MCAPWriter(path: path, replace: true).close()
        #expect(Array(try Self.read(path).prefix(8)) == mcapMagic)

        let missing = "/nonexistent-folder-\(getpid())/x.mcap"
        do {
            _ = try MCAPWriter(path: missing)
            Issue.record("a file in a missing folder was created")
        } catch let MCAPError.cannotCreate(p, reason, exists) {
            #expect(p == missing && !exists && reason.contains("No such file"))
        }
    }

    @Test func rejectsBadCalls() throws {
        let path = try Self.scratch("bad.mcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let w = try MCAPWriter(path: path)
        #expect(throws: MCAPError.unknownID("channel id 0")) { try w.write(channel: 0, logTime_ns: 0, data: [1]) }
        #expect(throws: MCAPError.unknownID("schema id 3")) { try w.addChannel(topic: "/x", messageEncoding: "json", schemaID: 3) }
        let c = try w.addChannel(topic: "/x", messageEncoding: "json", schemaID: 0)
        #expect(throws: MCAPError.negativeTime(-1)) { try w.write(channel: c, logTime_ns: -1, data: [1]) }
        try w.close()
        #expect(throws: MCAPError.closed) { try w.write(channel: c, logTime_ns: 0, data: [1]) }
    }
}
