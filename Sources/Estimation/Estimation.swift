/// Namespace of the `Estimation` module. See README.md in this folder for its job.
public enum EstimationModule {
    /// The module's name, for logs.
    public static let name = "Estimation"
}
