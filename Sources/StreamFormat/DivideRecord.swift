import Foundation
import Sensors

/// The `divide` record of the cake divider (`--consumer divide:…`): a disc of `radius` metres centred where the tap
/// met a horizontal plane, cut into `pieces` equal sectors. Emitted once when the tap is placed (`placed`) or
/// refused (`failed`), then in every following frame in which the centre is in view (`inView`), with the cut lines
/// in that frame's pixels.
///
/// Cut k runs from `center` to `cut_ends[k]`, at angle 2πk/pieces about the plane's normal from the first, which
/// points away from the camera that placed it. Positions are world W, metres; pixels are the frame's image.
public struct DivideRecord: StreamRecord, Codable, Equatable {
    /// The `type` of every divide record.
    public static let recordType = "divide"
    /// Record type: `divide`.
    public private(set) var type = DivideRecord.recordType
    /// Frame time, ns.
    public var t_ns: TimestampNs
    /// `StreamSchema.version` when written.
    public private(set) var schema = StreamSchema.version
    /// `placed`, `failed` or `inView`.
    public var state: String
    /// Why the tap was refused (`failed` only).
    public var reason: String?
    /// The tap: time it was due (ns) and pixel.
    public var tap_t_ns: TimestampNs
    /// The tapped pixel.
    public var tap_pixel: [Double]
    /// Number of pieces.
    public var pieces: Int
    /// Disc radius, metres.
    public var radius: Double
    /// The user anchor that holds the division (it follows the plane as it is refined).
    public var anchor_id: String?
    /// The plane the division lies on.
    public var plane_id: String?
    /// Centre of the disc, W, metres.
    public var center: [Double]?
    /// The plane's normal, W.
    public var normal: [Double]?
    /// The outer end of each cut, W, metres.
    public var cut_ends: [[Double]]?
    /// The centre's pixel in this frame.
    public var center_pixel: [Double]?
    /// Each cut as a pixel polyline in this frame (samples along the 3-D segment from the centre out, so lens
    /// distortion bends it as the image does); a cut stops at the first sample behind the camera.
    public var cut_pixels: [[[Double]]]?

    /// A record with the given fields.
    public init(t_ns: TimestampNs, state: String, reason: String? = nil, tap_t_ns: TimestampNs, tap_pixel: [Double],
                pieces: Int, radius: Double, anchor_id: String? = nil, plane_id: String? = nil, center: [Double]? = nil,
                normal: [Double]? = nil, cut_ends: [[Double]]? = nil, center_pixel: [Double]? = nil,
                cut_pixels: [[[Double]]]? = nil) {
        self.t_ns = t_ns; self.state = state; self.reason = reason; self.tap_t_ns = tap_t_ns; self.tap_pixel = tap_pixel
        self.pieces = pieces; self.radius = radius; self.anchor_id = anchor_id; self.plane_id = plane_id
        self.center = center; self.normal = normal; self.cut_ends = cut_ends; self.center_pixel = center_pixel
        self.cut_pixels = cut_pixels
    }

    enum CodingKeys: String, CodingKey {
        case type, t_ns, schema, state, reason, tap_t_ns, tap_pixel, pieces, radius, anchor_id, plane_id, center, normal,
             cut_ends, center_pixel, cut_pixels
    }
}
