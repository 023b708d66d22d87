import Foundation
import Sensors
import StreamFormat
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
    /// Frame conventions of the `frame` and anchor records (give consumers the same, see `ConsumerFactory.make`).
    public let convention: StreamConvention
    private let writer: StreamWriter?

    /// A stream over `session`; records go to `writer` when given (and are returned either way).
    public init(session: WorldSession = WorldSession(), consumers: [any FrameConsumer] = [],
                writer: StreamWriter? = StreamWriter(), convention: StreamConvention = .worldtrack) {
        self.session = session; self.consumers = consumers; self.writer = writer; self.convention = convention
    }

    /// Processes one frame; returns (and writes) its records.
    @discardableResult
    public func process(_ input: WorldFrameInput) throws -> [any StreamRecord] {
        let frame = session.process(input)
        var records: [any StreamRecord] = [FrameRecord(frame, convention: convention)]
        records += frame.events.map { AnchorEventRecord($0, convention: convention) }
        for c in consumers { records += try c.consume(frame) }
        try writer?.write(records)
        return records
    }

    /// Forgets the world (see `WorldSession.reset(t_ns:)`) — call it when the estimator re-initialises its world
    /// frame; returns (and writes) an `anchor.removed` record for every plane and user anchor.
    @discardableResult
    public func reset(t_ns: TimestampNs) throws -> [any StreamRecord] {
        let records: [any StreamRecord] = session.reset(t_ns: t_ns).map { AnchorEventRecord($0, convention: convention) }
        try writer?.write(records)
        return records
    }

    /// Lets every consumer finish; returns (and writes) their last records.
    @discardableResult
    /// See `FrameConsumer.finish()`.
    public func finish() throws -> [any StreamRecord] {
        var records: [any StreamRecord] = []
        for c in consumers { records += try c.finish() }
        try writer?.write(records)
        return records
    }
}
