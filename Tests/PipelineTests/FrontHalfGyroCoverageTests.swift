import Geometry
import Sensors
import Testing
@testable import Pipeline

/// `FrontHalf.gyroCovers`: whether the gyro samples of a frame interval may predict its rotation, or the interval
/// holds an IMU gap (then the frontend measures the rotation from its tracks).
struct FrontHalfGyroCoverageTests {
    /// Samples at `times` (ms).
    static func samples(_ times: [Int64]) -> [IMUSample] {
        times.map { IMUSample(t_ns: $0 * 1_000_000, gyro_B: Vec3(0, 0, 1), accel_B: Vec3(0, 0, 9.81)) }
    }
    static let limit: TimestampNs = 25_000_000

    @Test func aSampleEvery5msCoversTheInterval() {
        let s = Self.samples(Array(stride(from: 0, through: 120, by: 5)))
        #expect(FrontHalf.gyroCovers(s, from: 50_000_000, to: 100_000_000, limit_ns: Self.limit))
        // Frame times between samples, and the samples ending just after the frame.
        #expect(FrontHalf.gyroCovers(s, from: 52_000_000, to: 98_000_000, limit_ns: Self.limit))
    }

    @Test func aHoleInsideOrAtAnEndIsAGap() {
        // 30 ms without a sample inside the interval.
        #expect(!FrontHalf.gyroCovers(Self.samples([40, 45, 50, 55, 60, 90, 95, 100, 105]), from: 50_000_000, to: 100_000_000,
                                      limit_ns: Self.limit))
        // The gap's end: nothing from 10 ms before the previous frame until 30 ms before this one.
        #expect(!FrontHalf.gyroCovers(Self.samples([40, 70, 75, 80, 85, 90, 95, 100]), from: 50_000_000, to: 100_000_000,
                                      limit_ns: Self.limit))
        // The gap's start: the samples stop 30 ms before the frame.
        #expect(!FrontHalf.gyroCovers(Self.samples([45, 50, 55, 60, 65, 70]), from: 50_000_000, to: 100_000_000,
                                      limit_ns: Self.limit))
        // No samples at all.
        #expect(!FrontHalf.gyroCovers([], from: 50_000_000, to: 100_000_000, limit_ns: Self.limit))
        // A hole just under the limit is no gap.
        #expect(FrontHalf.gyroCovers(Self.samples([45, 50, 74, 98, 102]), from: 50_000_000, to: 100_000_000, limit_ns: Self.limit))
    }
}
