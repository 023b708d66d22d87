import Foundation

/// A fresh folder under the system's temporary directory, removed when the object goes away.
public final class TemporaryDirectory: @unchecked Sendable {
    /// Absolute path of the folder.
    public let path: String

    /// Creates `…/tmp/<prefix>-<uuid>`.
    public init(prefix: String = "worldtrack-test") throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// `path` joined with a relative path.
    public func path(_ relative: String) -> String { (path as NSString).appendingPathComponent(relative) }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
