import Foundation
import Simulation

/// The embedded default dataset: a simulated furnished room walked through with a handheld camera,
/// written on first use by the simulator and cached.
///
/// The cache lives in `Datasets/cache/` when the current directory is the repository (it has a
/// `Datasets/` folder), else in `$XDG_CACHE_HOME/worldtrack` (default `~/.cache/worldtrack`).
public enum DefaultDataset {
    /// Folder name of the cached dataset; it encodes everything that defines it, including the simulator's
    /// output version, so a simulator change never reuses a stale cache.
    public static let name = "room-handheld-30s-seed1-sim\(SimulationModule.outputVersion)"

    /// The simulation that defines the default dataset (`SimulationConfig.defaultDataset()`): room scene, handheld
    /// walk starting at rest, 30 s, mono 752×480 at 20 Hz, EuRoC-like IMU noise and biases, seed 1.
    public static func configuration() throws -> SimulationConfig { try SimulationConfig.defaultDataset() }

    /// The folder that holds cached simulated datasets.
    public static func cacheDirectory(currentDirectory: String = FileManager.default.currentDirectoryPath) -> String {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: currentDirectory + "/Datasets", isDirectory: &isDir), isDir.boolValue {
            return currentDirectory + "/Datasets/cache"
        }
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.cache")
        return base + "/worldtrack"
    }

    /// The path of the default dataset, simulating and caching it first if needed.
    ///
    /// The dataset is written into a temporary sibling folder and renamed into place when complete,
    /// so an interrupted first run never leaves a half-written dataset behind.
    /// - Parameter progress: called with (frames done, frames total) while simulating.
    public static func ensure(cacheDirectory: String = cacheDirectory(),
                              progress: ((Int, Int) -> Void)? = nil) throws -> String {
        let fm = FileManager.default
        let path = cacheDirectory + "/" + name
        if fm.fileExists(atPath: path + "/mav0/cam0/data.csv") { return path }
        try fm.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
        let staging = cacheDirectory + "/.\(name).partial-\(ProcessInfo.processInfo.processIdentifier)"
        try? fm.removeItem(atPath: staging)
        try DatasetWriter.write(try configuration(), to: staging, progress: progress)
        if fm.fileExists(atPath: path) { try fm.removeItem(atPath: path) } // an incomplete earlier copy
        try fm.moveItem(atPath: staging, toPath: path)
        return path
    }
}
