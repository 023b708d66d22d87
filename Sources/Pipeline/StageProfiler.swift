import Foundation
import Sensors

/// A stage of the tracking pipeline whose time is measured per frame.
public enum PipelineStage: String, CaseIterable, Sendable, Codable {
    /// Reading and decoding the frame's image(s).
    case decode
    /// Feature detection and tracking.
    case frontend
    /// IMU propagation of the filter state up to the frame time.
    case propagation
    /// The estimator's visual update, zero-velocity update and bookkeeping.
    case update
    /// Map reuse: describing new tracks, matching map points, the map-point update.
    case mapReuse
    /// Landmark map, plane detection and anchors.
    case planes
    /// Consumers and the JSON-Lines stream.
    case consumers
    /// Plane detection on its worker thread (`WorldOptions.detectionDelayFrames` ≥ 1): counted at the frame that
    /// applies it, but not in the per-frame total, which is the tracking thread's time.
    case planeWorker
    /// The dynamic initialiser's tries on their worker thread (`InertialInitializerOptions.dynamicInitializationOnWorker`):
    /// counted at the frame that takes the try's outcome, not in the per-frame total.
    case initWorker

    /// True for the stages the tracking thread runs (those the per-frame total adds up).
    public var onTrackingThread: Bool { self != .planeWorker && self != .initWorker }
}

/// Summary statistics of one stage's per-frame times, milliseconds.
public struct StageStatistics: Equatable, Sendable, Codable {
    public var stage: PipelineStage
    /// Number of frames measured.
    public var count: Int
    public var median_ms: Double
    public var p90_ms: Double
    /// 99th percentile (one frame in a hundred is slower), milliseconds.
    public var p99_ms: Double
    public var max_ms: Double
    public var mean_ms: Double
    /// Sum over all frames, milliseconds.
    public var total_ms: Double
}

/// Collects per-frame time of each pipeline stage and summarises it.
///
/// Times are CPU time of the calling thread by default (`.threadCPU`): the pipeline is single-threaded
/// with OpenCV held to one thread, so that is the stage's work on one core, and it stays meaningful when
/// other processes compete for the cores (wall time then includes the time the thread waited for a core).
/// `.wall` measures the monotonic clock instead (it also counts waits for the disk).
///
/// Each frame's time of a stage is the sum of all `measure` calls for that stage since the
/// previous `endFrame()`, so a stage that runs several times per frame (IMU propagation) counts once.
public final class StageProfiler {
    /// The clock stage times are read from.
    public enum Clock: String, Sendable, Codable {
        /// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`).
        case threadCPU
        /// Monotonic wall-clock time.
        case wall
    }
    /// The clock in use.
    public let clock: Clock
    private var current: [PipelineStage: UInt64] = [:]
    private var samples: [PipelineStage: [Double]] = [:]
    /// Frames recorded so far.
    public private(set) var frameCount = 0
    /// Frames to skip at the start (warm-up) before recording.
    public let warmupFrames: Int

    public init(warmupFrames: Int = 0, clock: Clock = .threadCPU) { self.warmupFrames = warmupFrames; self.clock = clock }

    /// The current reading of `clock`, nanoseconds.
    public func now() -> UInt64 {
        switch clock {
        case .wall: return DispatchTime.now().uptimeNanoseconds
        case .threadCPU: return ThreadCPUClock.nanoseconds()
        }
    }

    /// Runs `body` and adds its time to `stage` for the current frame.
    @inlinable @discardableResult
    public func measure<T>(_ stage: PipelineStage, _ body: () throws -> T) rethrows -> T {
        let start = now()
        defer { add(stage, nanoseconds: now() &- start) }
        return try body()
    }

    /// Adds `nanoseconds` to `stage` for the current frame.
    public func add(_ stage: PipelineStage, nanoseconds: UInt64) {
        current[stage, default: 0] &+= nanoseconds
        if !used.contains(stage) { used.insert(stage) }
    }

    /// Stages measured at least once: the others (a stage turned off, e.g. map reuse) are left out of the
    /// statistics instead of showing a row of zeros.
    private var used = Set<PipelineStage>()

    /// Closes the current frame: its stage times become one sample each (after the warm-up). `t_ns`, the frame's
    /// time stamp (ns), labels the frame in `perFrameCSV()`.
    public func endFrame(t_ns: Int64? = nil) {
        defer { current.removeAll(keepingCapacity: true); frameCount += 1 }
        guard frameCount >= warmupFrames else { return }
        frameTimes.append(t_ns)
        var total: UInt64 = 0
        for stage in PipelineStage.allCases {
            let ns = current[stage] ?? 0
            if stage.onTrackingThread { total &+= ns }
            samples[stage, default: []].append(Double(ns) * 1e-6)
        }
        totalSamples.append(Double(total) * 1e-6)
    }

    private var totalSamples: [Double] = []
    /// The recorded frames' time stamps, ns (nil where `endFrame` was not given one).
    private var frameTimes: [Int64?] = []

    /// Every recorded frame's stage times as CSV, one line per frame after the warm-up, for finding the slow frames:
    /// `t_ns` (empty when unknown), one column per measured stage in pipeline order (`<stage>_ms`), `total_ms` (the
    /// tracking thread's stages; `planeWorker` and `initWorker` run on their own threads and are not in it).
    /// Milliseconds with three decimals.
    public func perFrameCSV() -> String {
        let stages = PipelineStage.allCases.filter { used.contains($0) }
        var text = "t_ns," + stages.map { "\($0.rawValue)_ms" }.joined(separator: ",") + ",total_ms\n"
        for (i, t) in frameTimes.enumerated() {
            var fields = [t.map(String.init) ?? ""]
            for stage in stages { fields.append(String(format: "%.3f", samples[stage]?[i] ?? 0)) }
            fields.append(String(format: "%.3f", totalSamples[i]))
            text += fields.joined(separator: ",") + "\n"
        }
        return text
    }

    /// Statistics per stage, in pipeline order.
    public var statistics: [StageStatistics] {
        PipelineStage.allCases.compactMap { stage in
            guard used.contains(stage), let values = samples[stage], !values.isEmpty else { return nil }
            return StageProfiler.summarize(values, stage: stage)
        }
    }

    /// Statistics of the whole pipeline per frame (sum of the tracking thread's stages), or nil before any frame.
    public var total: StageStatistics? {
        totalSamples.isEmpty ? nil : StageProfiler.summarize(totalSamples, stage: .decode)
    }

    static func summarize(_ values: [Double], stage: PipelineStage) -> StageStatistics {
        let sorted = values.sorted()
        func quantile(_ q: Double) -> Double {
            let pos = q * Double(sorted.count - 1)
            let lo = Int(pos.rounded(.down)), hi = min(lo + 1, sorted.count - 1)
            return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - Double(lo))
        }
        let sum = sorted.reduce(0, +)
        return StageStatistics(stage: stage, count: sorted.count, median_ms: quantile(0.5), p90_ms: quantile(0.9),
                               p99_ms: quantile(0.99), max_ms: sorted.last ?? 0, mean_ms: sum / Double(sorted.count), total_ms: sum)
    }

    /// A fixed-width table of the statistics (one line per stage plus the total), for humans.
    public func table() -> String { StageTable.render(stages: statistics, total: total) }
}

/// Renders stage statistics as an aligned text table (milliseconds per frame).
public enum StageTable {
    public static func render(stages: [StageStatistics], total: StageStatistics?) -> String {
        func cell(_ s: String, _ width: Int, left: Bool = false) -> String {
            let pad = String(repeating: " ", count: max(0, width - s.count))
            return left ? s + pad : pad + s
        }
        func ms(_ v: Double) -> String { String(format: "%.3f", v) }
        var lines = [cell("stage", 12, left: true) + cell("frames", 8) + cell("median ms", 11) + cell("p90 ms", 10)
                     + cell("p99 ms", 10) + cell("max ms", 10) + cell("mean ms", 10)]
        var rows = stages.map { ($0.stage.rawValue, $0) }
        if let total { rows.append(("total", total)) }
        for (name, s) in rows {
            lines.append(cell(name, 12, left: true) + cell(String(s.count), 8) + cell(ms(s.median_ms), 11)
                         + cell(ms(s.p90_ms), 10) + cell(ms(s.p99_ms), 10) + cell(ms(s.max_ms), 10) + cell(ms(s.mean_ms), 10))
        }
        return lines.joined(separator: "\n")
    }
}
