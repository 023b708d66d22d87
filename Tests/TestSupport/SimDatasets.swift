import Foundation
import Simulation

/// Small simulated ASL datasets for tests of any module (fast enough for debug builds).
public enum SimDatasets {
    /// A fresh, empty temporary folder path (not created), inside the test process's scratch folder
    /// (removed when the process exits).
    public static func temporaryPath(_ label: String = "sim") -> String {
        SimSequenceCache.scratchRoot + "/\(label)-\(UUID().uuidString)"
    }

    /// A small, quick configuration: `width`×`height` EuRoC-like camera(s), coarse textures, given scene,
    /// trajectory and duration. Adjust the returned config (noise, options) before writing if needed.
    public static func smallConfig(scene: Scene = .room(), trajectory: String = "handheld", seconds: Double = 0.5,
                                   seed: UInt64 = 1, stereo: Bool = false, width: Int = 160, height: Int = 120) -> SimulationConfig {
        SimulationConfig(scene: scene, trajectoryName: trajectory, seconds: seconds, seed: seed,
                         rig: SimRig.euroc(stereo: stereo).scaled(width: width, height: height),
                         render: RenderOptions(metresPerTexel: 0.02, maxTextureSize: 256))
    }

    /// Writes `config` into a new temporary folder and returns its path (the dataset root holding `mav0/`).
    public static func write(_ config: SimulationConfig, label: String = "sim") throws -> String {
        let dir = temporaryPath(label)
        try DatasetWriter.write(config, to: dir)
        return dir
    }
}
