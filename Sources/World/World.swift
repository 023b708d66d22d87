/// Namespace of the `World` module. See README.md in this folder for its job.
public enum WorldModule {
    /// The module's name, for logs.
    public static let name = "World"
}
