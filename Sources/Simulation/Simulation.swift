/// Namespace of the `Simulation` module: the world simulator behind WorldTrack's accuracy tests.
///
/// Entry points: `Scene` (`room()`, `courtyard()`, `load(jsonFile:)`, `raycast`), `AnalyticTrajectory`
/// (`make(name:scene:options:rig:)`), `ImuSynthesizer`, `SceneRenderer` + `BearingMap` +
/// `ImageSynthesizer`, and `DatasetWriter.write(_:to:)` for a whole ASL dataset from a `SimulationConfig`.
public enum SimulationModule {
    /// The module's name, for logs.
    public static let name = "Simulation"
}
