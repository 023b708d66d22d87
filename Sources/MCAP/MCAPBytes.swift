/// MCAP's record opcodes (the spec's "record type" byte) for the records this module writes.
public enum MCAPOpcode: UInt8, Sendable {
    case header = 0x01, footer = 0x02, schema = 0x03, channel = 0x04, message = 0x05, chunk = 0x06
    case messageIndex = 0x07, chunkIndex = 0x08, statistics = 0x0B, summaryOffset = 0x0E, dataEnd = 0x0F
}

/// The eight magic bytes that begin and end every MCAP file: `0x89 M C A P 0 \r \n` (major version 0).
public let mcapMagic: [UInt8] = [0x89, 0x4D, 0x43, 0x41, 0x50, 0x30, 0x0D, 0x0A]

/// A growing byte buffer with MCAP's serialisation: little-endian integers, `uint32`-length-prefixed strings,
/// byte strings and maps, and whole records (`<opcode><uint64 content length><content>`).
struct MCAPBytes {
    var bytes: [UInt8] = []

    var count: Int { bytes.count }

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    /// A `uint32` byte length and the UTF-8 bytes.
    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        u32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// A `uint32` byte length and the bytes.
    mutating func prefixedBytes(_ data: [UInt8]) {
        u32(UInt32(data.count))
        bytes.append(contentsOf: data)
    }

    /// `Map<string, string>`, keys in sorted order (so equal maps serialise identically).
    mutating func map(_ m: [String: String]) {
        var body = MCAPBytes()
        for key in m.keys.sorted() { body.string(key); body.string(m[key]!) }
        prefixedBytes(body.bytes)
    }

    /// `Map<uint16, uint64>`, keys in increasing order.
    mutating func map(_ m: [UInt16: UInt64]) {
        u32(UInt32(m.count * 10))
        for key in m.keys.sorted() { u16(key); u64(m[key]!) }
    }

    /// A whole record: opcode, content length, content.
    mutating func record(_ op: MCAPOpcode, _ content: MCAPBytes) {
        u8(op.rawValue)
        u64(UInt64(content.count))
        bytes.append(contentsOf: content.bytes)
    }
}

/// The content of each record type, as the spec lays it out.
enum MCAPRecord {
    static func header(profile: String, library: String) -> MCAPBytes {
        var c = MCAPBytes(); c.string(profile); c.string(library); return c
    }

    static func schema(_ s: MCAPSchema) -> MCAPBytes {
        var c = MCAPBytes(); c.u16(s.id); c.string(s.name); c.string(s.encoding); c.prefixedBytes(s.data); return c
    }

    static func channel(_ ch: MCAPChannel) -> MCAPBytes {
        var c = MCAPBytes(); c.u16(ch.id); c.u16(ch.schemaID); c.string(ch.topic); c.string(ch.messageEncoding)
        c.map(ch.metadata); return c
    }

    /// A message record's opcode, length and fixed fields; the data follows it.
    static func messagePrefix(channel: UInt16, sequence: UInt32, logTime: UInt64, publishTime: UInt64, dataCount: Int) -> MCAPBytes {
        var c = MCAPBytes()
        c.u8(MCAPOpcode.message.rawValue)
        c.u64(UInt64(2 + 4 + 8 + 8 + dataCount))
        c.u16(channel); c.u32(sequence); c.u64(logTime); c.u64(publishTime)
        return c
    }

    static func messageIndex(channel: UInt16, entries: [(logTime: UInt64, offset: UInt64)]) -> MCAPBytes {
        var c = MCAPBytes(); c.u16(channel); c.u32(UInt32(entries.count * 16))
        for e in entries { c.u64(e.logTime); c.u64(e.offset) }
        return c
    }

    static func dataEnd(crc: UInt32) -> MCAPBytes { var c = MCAPBytes(); c.u32(crc); return c }
}

/// A schema registered with an ``MCAPWriter``.
public struct MCAPSchema: Sendable, Equatable {
    /// Schema id (≥ 1), unique within the file.
    public var id: UInt16
    /// Schema name, e.g. `foxglove.CompressedImage`.
    public var name: String
    /// Schema encoding, e.g. `jsonschema`; empty for none.
    public var encoding: String
    /// The schema text (for `jsonschema`: a JSON Schema document).
    public var data: [UInt8]
}

/// A channel (a topic with its message encoding and schema) registered with an ``MCAPWriter``.
public struct MCAPChannel: Sendable, Equatable {
    /// Channel id, unique within the file.
    public var id: UInt16
    /// Schema id, 0 for none.
    public var schemaID: UInt16
    /// Topic, e.g. `/cam0/image`.
    public var topic: String
    /// Message encoding, e.g. `json`.
    public var messageEncoding: String
    /// Free-form metadata.
    public var metadata: [String: String]
}
