import Foundation
import StreamFormat
import World

/// A plug-in that sees every world frame and may emit stream records (and write files).
///
/// `consume` is called once per frame in time order; `finish` once after the last frame.
public protocol FrameConsumer: AnyObject {
    /// The consumer's name as used in `--consumer` specs.
    var name: String { get }
    /// Handles one frame; returns the records to stream.
    func consume(_ frame: WorldFrame) throws -> [any StreamRecord]
    /// Called after the last frame; returns the final records.
    func finish() throws -> [any StreamRecord]
    /// What the user should hear about once the run has ended, one line each (read after `finish()`; `run` prints
    /// them as warnings on stderr): e.g. a requested time the data never reached. Default: none.
    var finishWarnings: [String] { get }
}

extension FrameConsumer {
    /// None.
    public var finishWarnings: [String] { [] }
}
