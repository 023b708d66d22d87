/// Writes an MCAP file (https://mcap.dev/spec) as a recording goes: chunked, indexed, uncompressed.
///
/// Schema and Channel records go to the data section when registered. Messages are buffered into a chunk;
/// when the chunk reaches ``Options/chunkSize`` it is written, followed by its Message Index records, so a file
/// whose writer dies (a crash, `kill -9`, a full disk) is readable from the start up to its last complete chunk
/// by a reader that scans records in order. `close()` writes the last chunk, the Data End record, the summary
/// (Schema, Channel, Chunk Index and Statistics records, grouped), the Summary Offset records, the Footer and
/// the closing magic; indexed readers need those.
///
/// ```swift
/// let writer = try MCAPWriter(path: "/tmp/run.mcap")
/// let schema = try writer.addSchema(name: "foxglove.Log", encoding: "jsonschema", data: Array(schemaText.utf8))
/// let channel = try writer.addChannel(topic: "/log", messageEncoding: "json", schemaID: schema)
/// try writer.write(channel: channel, logTime_ns: t_ns, data: Array(json.utf8))
/// try writer.close()
/// ```
public final class MCAPWriter {
    /// How the file is laid out.
    public struct Options: Sendable {
        /// A chunk is written once its records reach this many bytes (a message larger than that gets a chunk
        /// of its own). 1 MiB by default: small enough that an interrupted run loses little, large enough that
        /// the index stays small.
        public var chunkSize: Int = 1 << 20
        /// The Header's profile (empty: none; JSON-encoded channels need no profile).
        public var profile: String = ""
        /// The Header's library string (the writing program).
        public var library: String = "worldtrack"

        /// The defaults.
        public init() {}
    }

    /// The file's path.
    public var path: String { sink.path }
    /// Bytes written to the file so far (buffered messages not included).
    public var bytesWritten: UInt64 { sink.position }
    /// Messages written so far (including those buffered in the open chunk).
    public private(set) var messageCount: UInt64 = 0
    /// Chunks written so far.
    public var chunkCount: Int { chunkIndexes.count }

    private let options: Options
    private let sink: MCAPFileSink
    private var schemas: [MCAPSchema] = []
    private var channels: [MCAPChannel] = []
    private var sequences: [UInt32] = []            // next sequence number, by channel id
    private var channelMessageCounts: [UInt16: UInt64] = [:]
    private var startTime: UInt64 = .max, endTime: UInt64 = 0
    private var chunkIndexes: [MCAPBytes] = []
    private var closed = false
    private var failure: MCAPError?

    // The open chunk.
    private var chunk = MCAPBytes()
    private var chunkCRC = CRC32()
    private var chunkStart: UInt64 = .max, chunkEnd: UInt64 = 0
    private var chunkMessages: [UInt16: [(logTime: UInt64, offset: UInt64)]] = [:]

    /// Creates the file at `path` and writes the magic and the Header.
    /// - Parameter replace: replace an existing file (otherwise an existing file is refused).
    /// - Throws: ``MCAPError/cannotCreate(path:reason:exists:)``, ``MCAPError/writeFailed(path:reason:)``.
    public init(path: String, replace: Bool = false, options: Options = Options()) throws {
        self.options = options
        sink = try MCAPFileSink(path: path, replace: replace)
        var start = MCAPBytes()
        start.bytes = mcapMagic
        start.record(.header, MCAPRecord.header(profile: options.profile, library: options.library))
        try sink.write(start.bytes)
    }

    /// Registers a schema and writes its record; returns its id (1, 2, …).
    /// - Parameters:
    ///   - name: e.g. `foxglove.PointCloud`.
    ///   - encoding: e.g. `jsonschema`.
    ///   - data: the schema document.
    public func addSchema(name: String, encoding: String, data: [UInt8]) throws -> UInt16 {
        try usable()
        guard schemas.count < Int(UInt16.max) else { throw MCAPError.tooManyIDs }
        let schema = MCAPSchema(id: UInt16(schemas.count + 1), name: name, encoding: encoding, data: data)
        var record = MCAPBytes()
        record.record(.schema, MCAPRecord.schema(schema))
        try guarded { try sink.write(record.bytes) }
        schemas.append(schema)
        return schema.id
    }

    /// Registers a channel and writes its record; returns its id (0, 1, …).
    /// - Parameters:
    ///   - topic: e.g. `/cam0/image`.
    ///   - messageEncoding: e.g. `json`.
    ///   - schemaID: an id from ``addSchema(name:encoding:data:)``, or 0 for none.
    ///   - metadata: free-form key–value pairs.
    public func addChannel(topic: String, messageEncoding: String, schemaID: UInt16, metadata: [String: String] = [:]) throws -> UInt16 {
        try usable()
        guard schemaID == 0 || Int(schemaID) <= schemas.count else { throw MCAPError.unknownID("schema id \(schemaID)") }
        guard channels.count <= Int(UInt16.max) else { throw MCAPError.tooManyIDs }
        let channel = MCAPChannel(id: UInt16(channels.count), schemaID: schemaID, topic: topic,
                                  messageEncoding: messageEncoding, metadata: metadata)
        var record = MCAPBytes()
        record.record(.channel, MCAPRecord.channel(channel))
        try guarded { try sink.write(record.bytes) }
        channels.append(channel)
        sequences.append(0)
        return channel.id
    }

    /// Adds a message to the open chunk, writing the chunk when it is full.
    /// - Parameters:
    ///   - channel: an id from ``addChannel(topic:messageEncoding:schemaID:metadata:)``.
    ///   - logTime_ns: when the message was recorded, ns (≥ 0).
    ///   - publishTime_ns: when it was published, ns; nil: the log time.
    ///   - data: the encoded message.
    public func write(channel: UInt16, logTime_ns: Int64, publishTime_ns: Int64? = nil, data: [UInt8]) throws {
        try data.withUnsafeBytes { try write(channel: channel, logTime_ns: logTime_ns, publishTime_ns: publishTime_ns, data: $0) }
    }

    /// Adds a message whose bytes are in `data` (see ``write(channel:logTime_ns:publishTime_ns:data:)-([UInt8])``).
    public func write(channel: UInt16, logTime_ns: Int64, publishTime_ns: Int64? = nil, data: UnsafeRawBufferPointer) throws {
        try write(channel: channel, logTime_ns: logTime_ns, publishTime_ns: publishTime_ns, count: data.count) {
            $0.copyMemory(from: data)
        }
    }

    /// Adds a message of `count` bytes that `encode` writes straight into the chunk (no intermediate copy: for
    /// large messages such as images). `encode` must fill the whole buffer.
    public func write(channel: UInt16, logTime_ns: Int64, publishTime_ns: Int64? = nil, count: Int,
                      encode: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        try usable()
        guard Int(channel) < channels.count else { throw MCAPError.unknownID("channel id \(channel)") }
        guard logTime_ns >= 0 else { throw MCAPError.negativeTime(logTime_ns) }
        let publish = publishTime_ns ?? logTime_ns
        guard publish >= 0 else { throw MCAPError.negativeTime(publish) }
        let logTime = UInt64(logTime_ns)

        let offset = chunk.count
        let prefix = MCAPRecord.messagePrefix(channel: channel, sequence: sequences[Int(channel)], logTime: logTime,
                                              publishTime: UInt64(publish), dataCount: count)
        chunk.bytes.append(contentsOf: prefix.bytes)
        chunk.bytes.append(contentsOf: repeatElement(0, count: count))
        do {
            try chunk.bytes.withUnsafeMutableBytes { all in
                try encode(UnsafeMutableRawBufferPointer(rebasing: all[(offset + prefix.count)...]))
                chunkCRC.update(UnsafeRawBufferPointer(rebasing: all[offset...]))
            }
        } catch {
            chunk.bytes.removeSubrange(offset...)           // the message is left out; the chunk stays whole
            throw error
        }

        sequences[Int(channel)] &+= 1
        chunkMessages[channel, default: []].append((logTime, UInt64(offset)))
        channelMessageCounts[channel, default: 0] += 1
        messageCount += 1
        chunkStart = min(chunkStart, logTime); chunkEnd = max(chunkEnd, logTime)
        startTime = min(startTime, logTime); endTime = max(endTime, logTime)
        if chunk.count >= options.chunkSize { try flush() }
    }

    /// Writes the open chunk (if it holds any message) and its Message Index records now.
    public func flush() throws {
        try usable()
        guard !chunkMessages.isEmpty else { return }
        let chunkOffset = sink.position
        let records = chunk.bytes
        let recordsCRC = chunkCRC.value

        // Chunk record: fixed fields, then the records (checksummed once: their CRC is folded into the data section's).
        var head = MCAPBytes()
        head.u8(MCAPOpcode.chunk.rawValue)
        head.u64(UInt64(8 + 8 + 8 + 4 + 4 + 8 + records.count))
        head.u64(chunkStart); head.u64(chunkEnd); head.u64(UInt64(records.count)); head.u32(recordsCRC)
        head.string("")                                   // compression: none
        head.u64(UInt64(records.count))
        try guarded {
            try sink.write(head.bytes)
            try records.withUnsafeBytes { try sink.write($0, checksum: false) }
        }
        sink.dataCRC = CRC32(combining: sink.dataCRC, recordsCRC, length: records.count)
        let chunkLength = sink.position - chunkOffset

        // Message Index records, one per channel, in channel order.
        var indexOffsets: [UInt16: UInt64] = [:]
        var indexes = MCAPBytes()
        for id in chunkMessages.keys.sorted() {
            indexOffsets[id] = sink.position + UInt64(indexes.count)
            indexes.record(.messageIndex, MCAPRecord.messageIndex(channel: id, entries: chunkMessages[id]!))
        }
        try guarded { try sink.write(indexes.bytes) }

        var index = MCAPBytes()
        index.u64(chunkStart); index.u64(chunkEnd); index.u64(chunkOffset); index.u64(chunkLength)
        index.map(indexOffsets); index.u64(UInt64(indexes.count))
        index.string(""); index.u64(UInt64(records.count)); index.u64(UInt64(records.count))
        chunkIndexes.append(index)

        chunk.bytes.removeAll(keepingCapacity: true)
        chunkCRC = CRC32()
        chunkMessages.removeAll(keepingCapacity: true)
        chunkStart = .max; chunkEnd = 0
    }

    /// Writes the last chunk, the Data End record, the summary, the summary offsets, the Footer and the magic,
    /// and closes the file. Calling it again does nothing.
    public func close() throws {
        if closed { return }
        try usable()
        try flush()
        var end = MCAPBytes()
        end.record(.dataEnd, MCAPRecord.dataEnd(crc: sink.dataCRC.value))
        try guarded { try sink.write(end.bytes) }
        sink.checksumming = false

        // Summary: records grouped by opcode, each group listed by a Summary Offset record.
        let summaryStart = sink.position
        var summary = MCAPBytes()
        var offsets = MCAPBytes()
        func group(_ op: MCAPOpcode, _ contents: [MCAPBytes]) {
            guard !contents.isEmpty else { return }
            let start = summaryStart + UInt64(summary.count)
            for c in contents { summary.record(op, c) }
            var o = MCAPBytes()
            o.u8(op.rawValue); o.u64(start); o.u64(summaryStart + UInt64(summary.count) - start)
            offsets.record(.summaryOffset, o)
        }
        group(.schema, schemas.map(MCAPRecord.schema))
        group(.channel, channels.map(MCAPRecord.channel))
        group(.chunkIndex, chunkIndexes)
        group(.statistics, [statistics()])
        let summaryOffsetStart = summaryStart + UInt64(summary.count)

        var footer = MCAPBytes()
        footer.u8(MCAPOpcode.footer.rawValue); footer.u64(20); footer.u64(summaryStart); footer.u64(summaryOffsetStart)
        var summaryCRC = CRC32()
        summaryCRC.update(summary.bytes); summaryCRC.update(offsets.bytes); summaryCRC.update(footer.bytes)
        footer.u32(summaryCRC.value)
        try guarded {
            try sink.write(summary.bytes + offsets.bytes + footer.bytes + mcapMagic)
            try sink.close()
        }
        closed = true
    }

    private func statistics() -> MCAPBytes {
        var s = MCAPBytes()
        s.u64(messageCount); s.u16(UInt16(schemas.count)); s.u32(UInt32(channels.count))
        s.u32(0); s.u32(0)                                  // attachments, metadata
        s.u32(UInt32(chunkIndexes.count))
        s.u64(messageCount == 0 ? 0 : startTime); s.u64(messageCount == 0 ? 0 : endTime)
        s.map(channelMessageCounts)
        return s
    }

    /// Throws if the writer is closed or an earlier write failed (the file then ends at its last whole chunk).
    private func usable() throws {
        if let failure { throw failure }
        if closed { throw MCAPError.closed }
    }

    /// Runs a write; a failure is remembered and thrown again by every later call.
    private func guarded(_ body: () throws -> Void) throws {
        do { try body() } catch {
            let e = error as? MCAPError ?? .writeFailed(path: path, reason: "\(error)")
            failure = e
            throw e
        }
    }
}

extension CRC32 {
    /// The CRC of the bytes `first` covers followed by `length` bytes whose checksum is `second`.
    init(combining first: CRC32, _ second: UInt32, length: Int) {
        self.init(value: CRC32.combine(first.value, second, length: length))
    }
}
