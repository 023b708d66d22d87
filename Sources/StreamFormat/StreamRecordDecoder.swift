import Foundation
import Sensors

/// A stream record read back: one of the built-in record types of docs/STREAM.md, or the header of a record
/// of any other type (a plug-in consumer's).
public enum DecodedStreamRecord: Equatable {
    /// `frame`.
    case frame(FrameRecord)
    /// `anchor.added`, `anchor.updated` or `anchor.removed`.
    case anchor(AnchorEventRecord)
    /// `cursor`.
    case cursor(CursorRecord)
    /// `measurement`.
    case measurement(MeasurementRecord)
    /// `burst.captured`.
    case burstCaptured(BurstCapturedRecord)
    /// `world_input`.
    case worldInput(WorldInputRecord)
    /// `divide`.
    case divide(DivideRecord)
    /// `object`.
    case object(ObjectRecord)
    /// A record of another type: its common fields only.
    case other(StreamRecordHeader)

    /// A record as it reads back after encoding: a built-in record in its case, any other as `.other`.
    public init(_ record: any StreamRecord) {
        switch record {
        case let r as FrameRecord: self = .frame(r)
        case let r as AnchorEventRecord: self = .anchor(r)
        case let r as CursorRecord: self = .cursor(r)
        case let r as MeasurementRecord: self = .measurement(r)
        case let r as BurstCapturedRecord: self = .burstCaptured(r)
        case let r as WorldInputRecord: self = .worldInput(r)
        case let r as DivideRecord: self = .divide(r)
        case let r as ObjectRecord: self = .object(r)
        default: self = .other(StreamRecordHeader(type: record.type, t_ns: record.t_ns, schema: record.schema))
        }
    }

    /// The record's common fields.
    public var header: StreamRecordHeader {
        switch self {
        case .frame(let r): return StreamRecordHeader(type: r.type, t_ns: r.t_ns, schema: r.schema)
        case .anchor(let r): return StreamRecordHeader(type: r.type, t_ns: r.t_ns, schema: r.schema)
        case .cursor(let r): return StreamRecordHeader(type: r.type, t_ns: r.t_ns, schema: r.schema)
        case .measurement(let r): return StreamRecordHeader(type: r.type, t_ns: r.t_ns, schema: r.schema)
        case .burstCaptured(let r): return StreamRecordHeader(type: r.type, t_ns: r.t_ns, schema: r.schema)
        case .worldInput(let r): return StreamRecordHeader(type: r.type, t_ns: r.t_ns, schema: r.schema)
        case .divide(let r): return StreamRecordHeader(type: r.type, t_ns: r.t_ns, schema: r.schema)
        case .object(let r): return StreamRecordHeader(type: r.type, t_ns: r.t_ns, schema: r.schema)
        case .other(let h): return h
        }
    }

    /// The frame record, if this is one.
    public var frame: FrameRecord? { if case .frame(let r) = self { return r } else { return nil } }
    /// The anchor event record, if this is one.
    public var anchor: AnchorEventRecord? { if case .anchor(let r) = self { return r } else { return nil } }
    /// The cursor record, if this is one.
    public var cursor: CursorRecord? { if case .cursor(let r) = self { return r } else { return nil } }
    /// The measurement record, if this is one.
    public var measurement: MeasurementRecord? { if case .measurement(let r) = self { return r } else { return nil } }
    /// The burst record, if this is one.
    public var burstCaptured: BurstCapturedRecord? { if case .burstCaptured(let r) = self { return r } else { return nil } }
    /// The world-input record, if this is one.
    public var worldInput: WorldInputRecord? { if case .worldInput(let r) = self { return r } else { return nil } }
    /// The cake-divider record, if this is one.
    public var divide: DivideRecord? { if case .divide(let r) = self { return r } else { return nil } }
    /// The object record, if this is one.
    public var object: ObjectRecord? { if case .object(let r) = self { return r } else { return nil } }
}

/// Reads stream lines back into typed records (``DecodedStreamRecord``): the reader side of `StreamWriter`.
///
/// Strict: a built-in record must have every required field of docs/STREAM.md with its JSON type, any other
/// record at least `type`, `t_ns` and `schema`; otherwise it throws the `DecodingError` that says which.
public struct StreamRecordDecoder {
    private let decoder = JSONDecoder()

    /// A decoder.
    public init() {}

    /// One record from one line (without its newline).
    public func decode(_ line: Data) throws -> DecodedStreamRecord {
        let header = try decoder.decode(StreamRecordHeader.self, from: line)
        switch header.type {
        case FrameRecord.recordType: return .frame(try decoder.decode(FrameRecord.self, from: line))
        case _ where AnchorEventRecord.recordTypes.contains(header.type):
            return .anchor(try decoder.decode(AnchorEventRecord.self, from: line))
        case CursorRecord.recordType: return .cursor(try decoder.decode(CursorRecord.self, from: line))
        case MeasurementRecord.recordType: return .measurement(try decoder.decode(MeasurementRecord.self, from: line))
        case BurstCapturedRecord.recordType: return .burstCaptured(try decoder.decode(BurstCapturedRecord.self, from: line))
        case WorldInputRecord.recordType: return .worldInput(try decoder.decode(WorldInputRecord.self, from: line))
        case DivideRecord.recordType: return .divide(try decoder.decode(DivideRecord.self, from: line))
        case ObjectRecord.recordType: return .object(try decoder.decode(ObjectRecord.self, from: line))
        default: return .other(header)
        }
    }

    /// One record from one line (without its newline).
    public func decode(_ line: some StringProtocol) throws -> DecodedStreamRecord { try decode(Data(line.utf8)) }

    /// Every record of JSON Lines text (empty lines skipped).
    public func decodeLines(_ text: String) throws -> [DecodedStreamRecord] {
        try text.split(separator: "\n").map { try decode($0) }
    }
}
