/// The IMU samples of a dataset, in time order, with the IMU's calibration.
///
/// All samples are in memory: 200 Hz for 145 s is 29 000 samples, under 2 MB.
public struct IMUStream: Equatable, Sendable {
    /// Calibration from `imu0/sensor.yaml`.
    public var calibration: IMUCalibration
    /// The `data.csv` the samples came from.
    public var dataPath: String
    /// Samples, strictly increasing in time, finite.
    public var samples: [IMUSample]
    /// Sample rate estimated from the time stamps (1 / median period), Hz; `nil` with fewer than 2 samples.
    public var estimatedRate_hz: Double?

    /// Creates a stream (loaders build these; tests and simulators may too).
    public init(calibration: IMUCalibration, dataPath: String, samples: [IMUSample], estimatedRate_hz: Double? = nil) {
        self.calibration = calibration; self.dataPath = dataPath; self.samples = samples
        self.estimatedRate_hz = estimatedRate_hz ?? RateEstimate.medianRate_hz(samples.map(\.t_ns))
    }

    /// The samples with `from_ns <= t_ns <= to_ns`, found by binary search (O(log n)).
    public func samples(from from_ns: TimestampNs, to to_ns: TimestampNs) -> ArraySlice<IMUSample> {
        guard from_ns <= to_ns else { return samples[samples.endIndex...] }
        let lower = firstIndex(atOrAfter: from_ns)
        var upper = firstIndex(atOrAfter: to_ns)
        if upper < samples.endIndex, samples[upper].t_ns == to_ns { upper += 1 }
        return samples[lower..<upper]
    }

    /// Index of the first sample at or after `t_ns` (`samples.endIndex` when none).
    public func firstIndex(atOrAfter t_ns: TimestampNs) -> Int {
        var lo = 0, hi = samples.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if samples[mid].t_ns < t_ns { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Time of the first sample, nanoseconds.
    public var firstT_ns: TimestampNs? { samples.first?.t_ns }
    /// Time of the last sample, nanoseconds.
    public var lastT_ns: TimestampNs? { samples.last?.t_ns }
    /// Time from the first to the last sample, seconds.
    public var duration_s: Double {
        guard let a = firstT_ns, let b = lastT_ns else { return 0 }
        return Time.seconds(b - a)
    }
}

/// What a dataset's ground-truth file holds, from a quick scan (the rows themselves are read by
/// the evaluation module's trajectory readers).
public struct GroundTruthInfo: Equatable, Sendable {
    /// Path of the ground-truth `data.csv` (`…/mav0/state_groundtruth_estimate0/data.csv`).
    public var path: String
    /// Number of data rows.
    public var rows: Int
    /// Time of the first row, nanoseconds.
    public var firstT_ns: TimestampNs?
    /// Time of the last row, nanoseconds.
    public var lastT_ns: TimestampNs?

    /// Creates a summary.
    public init(path: String, rows: Int, firstT_ns: TimestampNs?, lastT_ns: TimestampNs?) {
        self.path = path; self.rows = rows; self.firstT_ns = firstT_ns; self.lastT_ns = lastT_ns
    }

    /// Time from the first to the last row, seconds.
    public var duration_s: Double {
        guard let a = firstT_ns, let b = lastT_ns else { return 0 }
        return Time.seconds(b - a)
    }
}
