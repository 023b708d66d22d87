import Foundation
import Sensors

/// The `object` record of the object consumer (`--consumer object:…`): where a user-chosen image box is in this
/// frame, how sure the tracker is, and where its centre is in the world. One record per frame from the box's time on.
public struct ObjectRecord: StreamRecord, Codable, Equatable {
    /// The `type` of every object record.
    public static let recordType = "object"
    /// Record type: `object`.
    public private(set) var type = ObjectRecord.recordType
    /// Frame time, ns.
    public var t_ns: TimestampNs
    /// `StreamSchema.version` when written.
    public private(set) var schema = StreamSchema.version
    /// The object's name (`name=`, default `object`).
    public var name: String
    /// `tracked` (found in this frame), `recovered` (found again after being lost), `lost` (not found: out of view,
    /// occluded or changed beyond recognition) or `failed` (the box could not be started; see `reason`).
    public var state: String
    /// Why the box could not be started (`failed` only).
    public var reason: String?
    /// The box in this frame, `[x, y, width, height]` (top-left corner and size), pixels; absent while lost.
    public var box: [Double]?
    /// Normalised cross-correlation of the box's pixels with the first frame's (−1…1); absent while lost.
    public var confidence: Double?
    /// The box centre's 3-D position, W, metres: the raycast of the centre pixel onto planes and landmarks while
    /// found (the last one while lost); absent until a raycast has hit.
    public var position: [Double]?
    /// The raycast target that gave `position` in this frame (absent when it is an earlier frame's).
    public var target: String?

    /// A record with the given fields.
    public init(t_ns: TimestampNs, name: String, state: String, reason: String? = nil, box: [Double]? = nil,
                confidence: Double? = nil, position: [Double]? = nil, target: String? = nil) {
        self.t_ns = t_ns; self.name = name; self.state = state; self.reason = reason; self.box = box
        self.confidence = confidence; self.position = position; self.target = target
    }

    enum CodingKeys: String, CodingKey { case type, t_ns, schema, name, state, reason, box, confidence, position, target }
}
