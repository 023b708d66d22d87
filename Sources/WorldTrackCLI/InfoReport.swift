import Foundation
import Sensors

/// What `worldtrack info` reports about a dataset; encodes to the `--json` object (snake_case keys).
struct InfoReport: Codable, Equatable {
    /// One camera.
    struct Camera: Codable, Equatable {
        var name: String
        var model: String
        var distortion: String
        var distortionCoefficients: [Double]
        /// `[fx, fy, cx, cy]`, pixels.
        var intrinsics: [Double]
        var width: Int
        var height: Int
        /// Estimated from time stamps (1 / median period), Hz.
        var rateHz: Double?
        /// `rate_hz` of `sensor.yaml`.
        var rateHzYaml: Double
        /// Frames whose image exists.
        var frames: Int
        /// Rows `data.csv` lists.
        var listed: Int
        /// Listed images absent from `data/`.
        var missingImages: Int
        /// The first few absent file names.
        var missingImageNames: [String]
        /// With `--check-images`: images that could not be decoded (a run skips their frames); absent otherwise.
        var undecodableImages: [String]?
        var firstTNs: Int64?
        var lastTNs: Int64?
        var durationS: Double
    }

    /// The IMU.
    struct IMU: Codable, Equatable {
        var rateHz: Double?
        var rateHzYaml: Double
        var samples: Int
        var firstTNs: Int64?
        var lastTNs: Int64?
        var durationS: Double
        /// rad/s/√Hz
        var gyroscopeNoiseDensity: Double
        /// rad/s²/√Hz
        var gyroscopeRandomWalk: Double
        /// m/s²/√Hz
        var accelerometerNoiseDensity: Double
        /// m/s³/√Hz
        var accelerometerRandomWalk: Double
    }

    /// The ground truth.
    struct GroundTruth: Codable, Equatable {
        var present: Bool
        var path: String?
        var rows: Int
        var firstTNs: Int64?
        var lastTNs: Int64?
        var durationS: Double
    }

    var dataset: String
    var cameras: [Camera]
    var imu: IMU
    var groundtruth: GroundTruth
    var problems: [DatasetProblem]

    /// How many absent image names the report lists per camera.
    static let missingNamesListed = 5

    init(_ d: ASLDataset) {
        dataset = d.path
        cameras = d.cameras.map { c in
            let m = c.calibration.model
            return Camera(name: c.name, model: "pinhole", distortion: m.distortion.yamlName,
                          distortionCoefficients: m.distortion.coefficients, intrinsics: m.intrinsics.array,
                          width: m.width, height: m.height, rateHz: c.estimatedRate_hz.map { Self.round($0, 3) },
                          rateHzYaml: c.calibration.rate_hz, frames: c.frames.count, listed: c.listedCount,
                          missingImages: c.missingImages.count,
                          missingImageNames: Array(c.missingImages.prefix(Self.missingNamesListed)),
                          undecodableImages: c.undecodableImages,
                          firstTNs: c.firstT_ns, lastTNs: c.lastT_ns, durationS: Self.round(c.duration_s, 6))
        }
        let noise = d.imu.calibration.noise
        imu = IMU(rateHz: d.imu.estimatedRate_hz.map { Self.round($0, 3) }, rateHzYaml: d.imu.calibration.rate_hz,
                  samples: d.imu.samples.count, firstTNs: d.imu.firstT_ns, lastTNs: d.imu.lastT_ns,
                  durationS: Self.round(d.imu.duration_s, 6),
                  gyroscopeNoiseDensity: noise.gyroscopeNoiseDensity, gyroscopeRandomWalk: noise.gyroscopeRandomWalk,
                  accelerometerNoiseDensity: noise.accelerometerNoiseDensity, accelerometerRandomWalk: noise.accelerometerRandomWalk)
        if let gt = d.groundTruth {
            groundtruth = GroundTruth(present: true, path: gt.path, rows: gt.rows, firstTNs: gt.firstT_ns, lastTNs: gt.lastT_ns,
                                      durationS: Self.round(gt.duration_s, 6))
        } else {
            groundtruth = GroundTruth(present: false, path: nil, rows: 0, firstTNs: nil, lastTNs: nil, durationS: 0)
        }
        problems = d.problems
    }

    /// `x` rounded to `digits` decimals (so JSON shows 200.003, not 200.00256002621468).
    static func round(_ x: Double, _ digits: Int) -> Double {
        let scale = pow(10.0, Double(digits))
        return (x * scale).rounded() / scale
    }

    /// The report as one JSON object with sorted snake_case keys.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
