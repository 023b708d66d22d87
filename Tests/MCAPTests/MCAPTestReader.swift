import Foundation
@testable import MCAP

/// A minimal MCAP reader for the tests: walks records in file order and decodes the fields the tests check.
/// Independent of the writer's serialisation code (it reads bytes by offset), so a layout mistake in one is not
/// hidden by the same mistake in the other.
struct TestRecord {
    var opcode: UInt8
    /// Offset of the record's opcode byte in the file.
    var offset: Int
    /// The record's content (without opcode and length).
    var content: [UInt8]
    /// Total length including opcode and length prefix.
    var length: Int { 9 + content.count }
}

struct TestMessage: Equatable {
    var channel: UInt16
    var sequence: UInt32
    var logTime: UInt64
    var data: [UInt8]
}

enum TestReaderError: Error { case truncated(at: Int), badMagic }

struct ByteCursor {
    let bytes: [UInt8]
    var at: Int

    init(_ bytes: [UInt8], at: Int = 0) { self.bytes = bytes; self.at = at }

    mutating func take(_ n: Int) throws -> ArraySlice<UInt8> {
        guard n >= 0, at + n <= bytes.count else { throw TestReaderError.truncated(at: at) }
        defer { at += n }
        return bytes[at..<at + n]
    }
    mutating func u8() throws -> UInt8 { try take(1).first! }
    mutating func u16() throws -> UInt16 { UInt16(try uint(2)) }
    mutating func u32() throws -> UInt32 { UInt32(try uint(4)) }
    mutating func u64() throws -> UInt64 { try uint(8) }
    private mutating func uint(_ n: Int) throws -> UInt64 {
        var v: UInt64 = 0
        for (i, b) in try take(n).enumerated() { v |= UInt64(b) << (8 * UInt64(i)) }
        return v
    }
    mutating func string() throws -> String { String(decoding: try take(Int(try u32())), as: UTF8.self) }
}

enum TestReader {
    /// The records after the leading magic, in order, up to the Footer or to the last complete record
    /// (a truncated tail is ignored, as a streaming reader of an interrupted file would).
    static func records(_ file: [UInt8]) throws -> (records: [TestRecord], complete: Bool) {
        guard file.count >= 8, Array(file[0..<8]) == mcapMagic else { throw TestReaderError.badMagic }
        var c = ByteCursor(file, at: 8)
        var out: [TestRecord] = []
        while c.at < file.count {
            let start = c.at
            guard let op = try? c.u8(), let len = try? c.u64(), let content = try? c.take(Int(len)) else {
                return (out, false)
            }
            out.append(TestRecord(opcode: op, offset: start, content: Array(content)))
            if op == MCAPOpcode.footer.rawValue { return (out, true) }
        }
        return (out, false)
    }

    /// The messages of a Chunk record's content, with the offset of each inside the records field.
    static func chunkMessages(_ chunk: [UInt8]) throws -> (messages: [(offset: Int, message: TestMessage)], crc: UInt32, records: [UInt8]) {
        var c = ByteCursor(chunk)
        _ = try c.u64(); _ = try c.u64()
        let size = Int(try c.u64())
        let crc = try c.u32()
        _ = try c.string()
        let recordsLength = Int(try c.u64())
        let records = Array(try c.take(recordsLength))
        precondition(size == recordsLength)
        var r = ByteCursor(records)
        var messages: [(Int, TestMessage)] = []
        while r.at < records.count {
            let start = r.at
            let op = try r.u8(); let len = Int(try r.u64())
            var m = ByteCursor(Array(try r.take(len)))
            if op == MCAPOpcode.message.rawValue {
                let channel = try m.u16(), sequence = try m.u32(), logTime = try m.u64()
                _ = try m.u64()
                messages.append((start, TestMessage(channel: channel, sequence: sequence, logTime: logTime,
                                                    data: Array(m.bytes[m.at...]))))
            }
        }
        return (messages, crc, records)
    }

    /// Every message of the file's chunks, in file order.
    static func messages(_ records: [TestRecord]) throws -> [TestMessage] {
        try records.filter { $0.opcode == MCAPOpcode.chunk.rawValue }.flatMap { try chunkMessages($0.content).messages.map(\.message) }
    }
}
