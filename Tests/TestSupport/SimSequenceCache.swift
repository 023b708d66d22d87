import Foundation
import Simulation

/// Simulated datasets shared by the tests of one test process: each is written once (the first test
/// that asks waits for it, others reuse it), into a temporary folder of this process that is removed when
/// the process exits (the datasets of a full run take almost 1 GB).
///
/// Whole-sequence simulations at 752×480 cost tens of CPU seconds; sharing keeps the suite fast. For quick
/// iterations on one test, set `WORLDTRACK_TEST_SEQUENCES=DIR`: sequences are then kept in `DIR` across test
/// processes (named by configuration and the simulator's output version) and reused.
public enum SimSequenceCache {
    private static let lock = NSLock()
    private static var paths: [String: String] = [:]
    private static var keyLocks: [String: NSLock] = [:]
    private static let root: String = {
        let dir = scratchRoot + "/sequences"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }()

    /// A folder of this test process for scratch files that must outlive a single test; it is removed
    /// when the process exits.
    public static let scratchRoot: String = {
        let dir = NSTemporaryDirectory() + "worldtrack-tests-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: SimSequenceCache.scratchRoot) }
        return dir
    }()

    /// The path of the dataset named `key`, simulating it with `make()` the first time.
    /// `key` must identify the configuration (same key → same dataset).
    public static func dataset(_ key: String, _ make: () throws -> SimulationConfig) throws -> String {
        lock.lock()
        let keyLock = keyLocks[key] ?? NSLock()
        keyLocks[key] = keyLock
        lock.unlock()
        keyLock.lock()
        defer { keyLock.unlock() }
        lock.lock()
        if let p = paths[key] { lock.unlock(); return p }
        lock.unlock()
        if let keep = ProcessInfo.processInfo.environment["WORLDTRACK_TEST_SEQUENCES"], !keep.isEmpty {
            let path = keep + "/" + key + "-sim\(SimulationModule.outputVersion)"
            let complete = path + ".complete"   // written only after the whole dataset
            if !FileManager.default.fileExists(atPath: complete) {
                try? FileManager.default.removeItem(atPath: path)
                try DatasetWriter.write(try make(), to: path)
                try Data().write(to: URL(fileURLWithPath: complete))
            }
            lock.lock(); paths[key] = path; lock.unlock()
            return path
        }
        let path = root + "/" + key
        try? FileManager.default.removeItem(atPath: path)
        try DatasetWriter.write(try make(), to: path)
        lock.lock(); paths[key] = path; lock.unlock()
        return path
    }

    /// The room scene, handheld walk, at full EuRoC-like resolution (752×480, 20 Hz).
    /// `timeOffset_ms`: the camera–IMU time offset (the image stamped t shows the world at IMU time t + offset).
    public static func roomHandheld(seconds: Double, seed: UInt64, stereo: Bool = false, startMoving: Bool = false,
                                    shakeAt: Double? = nil, timeOffset_ms: Double = 0) throws -> String {
        let key = "room-handheld-\(Int(seconds))s-seed\(seed)\(stereo ? "-stereo" : "")\(startMoving ? "-moving" : "")"
            + (shakeAt.map { "-shake\(Int($0))" } ?? "") + (timeOffset_ms != 0 ? "-offset\(Int(timeOffset_ms))ms" : "")
        return try dataset(key) {
            var options = TrajectoryOptions(startMoving: startMoving)
            if let shakeAt { options.fastShakeSegment = TimeSegment(start: shakeAt, duration: 2) }
            return SimulationConfig(scene: try Scene.builtIn(named: "room"), trajectoryName: "handheld",
                                    trajectoryOptions: options, seconds: seconds, seed: seed,
                                    rig: .euroc(stereo: stereo, fisheye: false, rate_hz: 20),
                                    timeOffset_ns: Int64((timeOffset_ms * 1e6).rounded()))
        }
    }
}
