/// Namespace of the `Evaluation` module. See README.md in this folder for its job.
public enum EvaluationModule {
    /// The module's name, for logs.
    public static let name = "Evaluation"
}
