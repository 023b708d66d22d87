import Foundation
import World

/// The world layer plus consumers plus stream output, in one object the `run` command drives:
/// for each tracked frame call `process(_:)`, at the end `finish()`.
///
/// Per frame it emits, in order: the `frame` record, the frame's anchor lifecycle records, then each
/// consumer's records (in the order the consumers were given).
public final class WorldStream {
    /// The world session.
    public let session: WorldSession
    /// Consumers, called in order.
    public let consumers: [any FrameConsumer]
    private let writer: StreamWriter?

    /// A stream over `session`; records go to `writer` when given (and are returned either way).
    public init(session: WorldSession = WorldSession(), consumers: [any FrameConsumer] = [], writer: StreamWriter? = StreamWriter()) {
        self.session = session; self.consumers = consumers; self.writer = writer
    }

    /// Processes one frame; returns (and writes) its records.
    @discardableResult
    public func process(_ input: WorldFrameInput) throws -> [any StreamRecord] {
        let frame = session.process(input)
        var records: [any StreamRecord] = [FrameRecord(frame)]
        records += frame.events.map(AnchorEventRecord.init)
        for c in consumers { records += try c.consume(frame) }
        try writer?.write(records)
        return records
    }

    /// Lets every consumer finish; returns (and writes) their last records.
    @discardableResult
    public func finish() throws -> [any StreamRecord] {
        var records: [any StreamRecord] = []
        for c in consumers { records += try c.finish() }
        try writer?.write(records)
        return records
    }
}
