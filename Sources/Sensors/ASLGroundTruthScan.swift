import Foundation

/// Finds a dataset's ground-truth file and scans its extent (row count, first and last time) without
/// building poses; problems in it are warnings, since ground truth is optional for tracking.
enum ASLGroundTruthScan {
    /// Ground-truth folders in order of preference: EuRoC's estimate, then TUM-VI's motion capture.
    static let folders = ["state_groundtruth_estimate0", "mocap0", "groundtruth0"]

    static func scan(sensorFolder: String, log: inout ProblemLog) -> GroundTruthInfo? {
        for name in folders {
            let folder = (sensorFolder as NSString).appendingPathComponent(name)
            guard ASLDataset.isDirectory(folder) else { continue }
            let csvPath = (folder as NSString).appendingPathComponent("data.csv")
            guard FileManager.default.fileExists(atPath: csvPath) else {
                log.warning(csvPath, "missing file: ground-truth folder without data.csv; no ground truth")
                return nil
            }
            guard let rows = CSVReader.rows(path: csvPath) else {
                log.warning(csvPath, "cannot read the file; no ground truth")
                return nil
            }
            var count = 0
            var first: TimestampNs?, last: TimestampNs?
            for row in rows {
                // A pose row needs at least the timestamp, position (3) and quaternion (4).
                guard row.fields.count >= 8, let t = TimestampNs(row.fields[0]) else {
                    log.capped("malformed rows", DatasetProblem(.warning, file: csvPath, line: row.line,
                        message: "malformed ground-truth row: expected a timestamp and at least 7 numbers, got \(row.fields.count) columns"))
                    continue
                }
                if let last, t <= last {
                    log.capped("out-of-order timestamps", DatasetProblem(.warning, file: csvPath, line: row.line,
                        message: "ground-truth timestamp \(t) is not after the previous one (\(last))"))
                }
                count += 1
                if first == nil { first = t }
                last = t
            }
            if count == 0 {
                log.warning(csvPath, "empty listing: no ground-truth rows")
                return nil
            }
            return GroundTruthInfo(path: csvPath, rows: count, firstT_ns: first, lastT_ns: last)
        }
        return nil
    }
}
