import Foundation
import Geometry
import Sensors
import Testing
@testable import Estimation

/// `IMUNoiseEstimator` keeps its window sorted as blocks come and go instead of sorting it for every estimate:
/// the estimates must be bit for bit those of sorting the whole window.
@Suite struct ImuNoiseEstimatorWindowTests {
    @Test("the kept-sorted window gives exactly the sorted window's estimate, through many wrap-arounds, shocks and ties")
    func incrementalEqualsSorting() throws {
        var rng = SeededRandom(seed: 5)
        // A small window (30 blocks of 2 samples) wraps around many times in 2 000 samples.
        var e = IMUNoiseEstimator(blockSamples: 2, windowBlocks: 30, minimumBlocks: 5)
        var compared = 0, differentFromFirst = 0
        var first: (gyro_B: Vec3, accel_B: Vec3)?
        for i in 0..<2_000 {
            // Vibration with heavy tails, a shock now and then (kept out by the 50×-median limit), and stretches
            // of a constant signal (equal values in the window).
            let shock = i % 397 < 6 ? 200.0 : 1.0
            let constant = (800..<900).contains(i)
            let gyro = constant ? Vec3(0.1, 0.1, 0.1) : rng.gaussian3(0.01 * shock)
            let accel = constant ? Vec3(0, 0, 9.81) : Vec3(0, 0, 9.81) + rng.gaussian3(0.2 * shock)
            e.add(IMUSample(t_ns: 1_000_000_000 + TimestampNs(i) * 5_000_000, gyro_B: gyro, accel_B: accel))
            let reference = e.measuredBySorting
            let fast = e.measured
            #expect((fast == nil) == (reference == nil))
            if let fast, let reference {
                #expect(fast.gyro_B == reference.gyro_B && fast.accel_B == reference.accel_B, "sample \(i)")
                compared += 1
                if let f = first, f.gyro_B != fast.gyro_B { differentFromFirst += 1 } else if first == nil { first = fast }
            }
        }
        #expect(compared > 1_900)
        #expect(differentFromFirst > 1_000)   // the estimate really moves with the window
    }

    @Test("a NaN in the window falls back to sorting and the window recovers once it has left")
    func nanFallsBackAndRecovers() throws {
        var e = IMUNoiseEstimator(blockSamples: 1, windowBlocks: 20, minimumBlocks: 5)
        var rng = SeededRandom(seed: 9)
        for i in 0..<200 {
            // Two finite samples whose fourth differences overflow (6x − 4x: ∞ − ∞ = NaN) at samples 50 and 51.
            let huge = (50..<52).contains(i) ? Double.greatestFiniteMagnitude : 0
            e.add(IMUSample(t_ns: TimestampNs(i + 1) * 5_000_000, gyro_B: rng.gaussian3(0.01) + Vec3(huge, 0, 0),
                            accel_B: rng.gaussian3(0.1)))
            let reference = e.measuredBySorting, fast = e.measured
            #expect((fast == nil) == (reference == nil))
            if let fast, let reference {
                #expect(fast.accel_B == reference.accel_B, "sample \(i)")
                #expect(fast.gyro_B.x.isNaN == reference.gyro_B.x.isNaN, "sample \(i)")
                if !reference.gyro_B.x.isNaN { #expect(fast.gyro_B == reference.gyro_B, "sample \(i)") }
            }
        }
        // 150 samples after the overflow it has left the 20-block window: a finite estimate again.
        let m = try #require(e.measured)
        #expect(m.gyro_B.x.isFinite && m.gyro_B.x > 0)
    }
}
