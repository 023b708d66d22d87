/// The quality of the estimated pose, mirroring ARKit's `ARCamera.TrackingState`.
public enum TrackingState: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Why tracking is limited.
    public enum Reason: String, Equatable, Hashable, Sendable, CaseIterable {
        /// Not initialised yet, or the position uncertainty is still large.
        case initializing
        /// The device moves or turns faster than the feature tracks can follow.
        case excessiveMotion
        /// Too few features are tracked for the visual update.
        case insufficientFeatures
        /// The filter diverged and was reset; it is re-initialising.
        case relocalizing
        /// IMU samples or camera frames are missing (a gap in the data): the pose is predicted or bridged with
        /// inflated uncertainty, and stays limited until the filter has recovered after the gap. (Not in ARKit,
        /// whose sensors do not drop out.)
        case sensorGap
    }

    /// No estimate yet (no IMU data or no frame).
    case notAvailable
    /// An estimate exists but is of limited quality.
    case limited(Reason)
    /// Tracking normally.
    case normal

    /// The stable string form used in JSON: `"notAvailable"`, `"normal"`, `"limited(initializing)"`, ….
    public var description: String {
        switch self {
        case .notAvailable: return "notAvailable"
        case .normal: return "normal"
        case let .limited(reason): return "limited(\(reason.rawValue))"
        }
    }

    /// Parses the string form written by `description`; `nil` for anything else.
    public init?(string: String) {
        switch string {
        case "notAvailable": self = .notAvailable
        case "normal": self = .normal
        default:
            guard string.hasPrefix("limited("), string.hasSuffix(")") else { return nil }
            let inner = String(string.dropFirst("limited(".count).dropLast())
            guard let reason = Reason(rawValue: inner) else { return nil }
            self = .limited(reason)
        }
    }
}
