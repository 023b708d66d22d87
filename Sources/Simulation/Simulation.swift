/// Namespace of the `Simulation` module. See README.md in this folder for its job.
public enum SimulationModule {
    /// The module's name, for logs.
    public static let name = "Simulation"
}
