import Foundation
import Geometry

/// Loads the IMU folder of an ASL dataset (`sensor.yaml`, `data.csv`), logging problems.
enum ASLIMULoader {
    static func load(folder: String, options: ASLLoadOptions, log: inout ProblemLog) -> IMUStream? {
        guard ASLDataset.isDirectory(folder) else {
            log.fatal(folder, "missing folder: no IMU folder")
            return nil
        }
        let yamlPath = (folder as NSString).appendingPathComponent("sensor.yaml")
        let csvPath = (folder as NSString).appendingPathComponent("data.csv")
        var calibration: IMUCalibration?
        if ASLFiles.requireFile(yamlPath, log: &log) {
            do {
                calibration = try SensorYAML.readIMU(path: yamlPath)
            } catch let error as DatasetError {
                error.problems.forEach { log.add($0) }
            } catch {
                log.fatal(yamlPath, "\(error)")
            }
        }
        guard ASLFiles.requireFile(csvPath, log: &log) else { return nil }

        guard let data = FileManager.default.contents(atPath: csvPath) else {
            log.fatal(csvPath, "cannot read the file")
            return nil
        }
        let samples = parseSamples(bytes: [UInt8](data), csvPath: csvPath, options: options, log: &log)
        guard let calibration else { return nil }
        let stream = IMUStream(calibration: calibration, dataPath: csvPath, samples: samples)
        ASLFiles.checkRate(estimated: stream.estimatedRate_hz, nominal: calibration.rate_hz, what: "IMU rate",
                           file: csvPath, yamlPath: yamlPath, tolerance: options.rateTolerance, log: &log)
        return stream
    }

    /// The IMU samples of `data.csv` bytes; every problem (malformed rows, non-finite values, time going
    /// back, gaps) is logged naming `csvPath` and its line. Never throws: fatal problems make the loader throw.
    static func parseSamples(bytes: [UInt8], csvPath: String, options: ASLLoadOptions, log: inout ProblemLog) -> [IMUSample] {
        var samples: [IMUSample] = []
        var lines: [Int] = []
        var rowCount = 0
        var previous: (t: TimestampNs, line: Int)?
        CSVReader.forEachRow(bytes: bytes) { row in
            rowCount += 1
            guard row.fields.count == 7 else {
                log.capped("malformed rows", DatasetProblem(.fatal, file: csvPath, line: row.line,
                    message: "malformed row: expected 7 columns (timestamp [ns], gyro x y z [rad/s], accel x y z [m/s²]), got \(row.fields.count)"))
                return
            }
            guard let t = ASLFiles.timestamp(row.fields[0], file: csvPath, line: row.line, log: &log) else { return }
            var v = [Double](repeating: 0, count: 6)
            var ok = true
            for k in 0..<6 {
                let field = row.fields[k + 1]
                guard let x = Double(field) else {
                    log.capped("malformed rows", DatasetProblem(.fatal, file: csvPath, line: row.line,
                        message: "malformed row: column \(k + 2) '\(field)' is not a number"))
                    ok = false
                    break
                }
                guard x.isFinite else {
                    log.capped("non-finite values", DatasetProblem(.fatal, file: csvPath, line: row.line,
                        message: "non-finite IMU value \(field) in column \(k + 2)"))
                    ok = false
                    break
                }
                v[k] = x
            }
            ASLFiles.checkIncreasing(t, line: row.line, previous: previous, file: csvPath, log: &log)
            previous = (t, row.line)
            guard ok else { return }
            samples.append(IMUSample(t_ns: t, gyro_B: Vec3(v[0], v[1], v[2]), accel_B: Vec3(v[3], v[4], v[5])))
            lines.append(row.line)
        }
        if rowCount == 0 { log.fatal(csvPath, "empty listing: no IMU samples") }

        let medianPeriod = RateEstimate.medianPeriod_ns(samples.map(\.t_ns))
        if let medianPeriod, medianPeriod > 0 {
            let limit = Double(medianPeriod) * options.imuGapPeriods
            for i in 1..<samples.count {
                let dt = samples[i].t_ns - samples[i - 1].t_ns
                if Double(dt) > limit {
                    log.capped("IMU gaps", DatasetProblem(.warning, file: csvPath, line: lines[i],
                        message: String(format: "IMU gap of %.1f ms (%.1f sample periods) before this row, after t = %lld ns",
                                        Double(dt) * 1e-6, Double(dt) / Double(medianPeriod), samples[i - 1].t_ns)))
                }
            }
        }
        return samples
    }
}
