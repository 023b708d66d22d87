/// Namespace of the `Vision` module. See README.md in this folder for its job.
public enum VisionModule {
    /// The module's name, for logs.
    public static let name = "Vision"
}
