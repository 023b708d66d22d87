/// Namespace of the `Consumers` module. See README.md in this folder for its job.
public enum ConsumersModule {
    /// The module's name, for logs.
    public static let name = "Consumers"
}
