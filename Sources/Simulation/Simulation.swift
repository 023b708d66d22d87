/// Namespace of the `Simulation` module: the world simulator behind WorldTrack's accuracy tests.
///
/// Entry points: `Scene` (`room()`, `courtyard()`, `load(jsonFile:)`, `raycast`), `AnalyticTrajectory`
/// (`make(name:scene:options:rig:)`), `IMUSynthesizer`, `SceneRenderer` + `BearingMap` +
/// `ImageSynthesizer`, and `DatasetWriter.write(_:to:)` for a whole ASL dataset from a `SimulationConfig`.
public enum SimulationModule {
    /// The module's name, for logs.
    public static let name = "Simulation"
    /// Version of what the simulator writes for a given configuration and seed. Bump it whenever a change
    /// alters the output (textures, renderer, trajectories, IMU synthesis), so caches of simulated datasets
    /// keyed by it (the default dataset of `worldtrack run`) are simulated afresh instead of going stale.
    /// `OutputVersionTests` holds a digest of a short render for each version and fails when the output changes
    /// without a new version.
    public static let outputVersion = 2
}
