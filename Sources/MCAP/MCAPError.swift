/// Why an ``MCAPWriter`` could not do what it was asked.
public enum MCAPError: Error, Equatable, CustomStringConvertible {
    /// The file could not be created (`exists`: it is there and replacing was not allowed).
    case cannotCreate(path: String, reason: String, exists: Bool)
    /// A write to the file failed (`errno`'s text, e.g. a full disk); the file keeps its complete chunks.
    case writeFailed(path: String, reason: String)
    /// A message or channel named a channel or schema id that was not registered.
    case unknownID(String)
    /// A time before the epoch: MCAP times are unsigned nanoseconds.
    case negativeTime(Int64)
    /// More than 65 535 schemas or channels (MCAP ids are 16-bit).
    case tooManyIDs
    /// The writer was used after `close()`.
    case closed

    /// A one-line message.
    public var description: String {
        switch self {
        case let .cannotCreate(path, reason, _): return "\(path): cannot create the file: \(reason)"
        case let .writeFailed(path, reason): return "\(path): write failed: \(reason)"
        case let .unknownID(what): return "unknown \(what)"
        case let .negativeTime(t): return "time \(t) ns is negative (MCAP times are unsigned)"
        case .tooManyIDs: return "more than 65535 schemas or channels"
        case .closed: return "the MCAP writer is closed"
        }
    }
}
