/// Errors of the feature frontend.
public enum VisionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A setting of `FeatureTrackerOptions` is out of range.
    case invalidOptions(String)
    /// An image does not match the camera (size), or a stereo image is missing or unexpected.
    case invalidImage(String)
    /// Frames arrived out of time order.
    case outOfOrder(previous: Int64, current: Int64)

    public var description: String {
        switch self {
        case .invalidOptions(let m): return "feature tracker options: \(m)"
        case .invalidImage(let m): return "feature tracker image: \(m)"
        case let .outOfOrder(previous, current):
            return "feature tracker: frame at \(current) ns is not after the previous frame (\(previous) ns)"
        }
    }
}
