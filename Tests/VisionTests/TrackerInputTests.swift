import Foundation
import Geometry
import Imaging
import Sensors
import Simulation
import Testing
@testable import Vision

/// Bad settings and bad frames give clear errors, never a crash.
struct TrackerInputTests {
    let camera = SimRig.euroc().cameras[0]

    @Test func badOptionsAreRejected() {
        var cases: [(String, (inout FeatureTrackerOptions) -> Void)] = []
        cases.append(("budget", { $0.featureBudget = 0 }))
        cases.append(("FAST threshold", { $0.fastThreshold = 300 }))
        cases.append(("grid", { $0.gridColumns = 0 }))
        cases.append(("window", { $0.kltWindow = 8 }))
        cases.append(("levels", { $0.kltLevels = -1 }))
        cases.append(("forward-backward", { $0.forwardBackwardThreshold = 0 }))
        cases.append(("RANSAC", { $0.ransacThresholdPx = .nan }))
        cases.append(("max track age", { $0.maxTrackAge = 1 }))
        cases.append(("appearance correlation", { $0.appearanceMinCorrelation = 1 }))
        cases.append(("appearance correlation NaN", { $0.appearanceMinCorrelation = .nan }))
        cases.append(("appearance window", { $0.appearanceWindow = 8 }))
        cases.append(("appearance stretch", { $0.appearanceMaxStretch = 0.5 }))
        cases.append(("still-frame max motion", { $0.stillFrameMaxMotionPx = 0 }))
        cases.append(("still-frame median motion", { $0.stillFrameMedianMotionPx = -1 }))
        cases.append(("CLAHE", { $0.contrast = .clahe(clipLimit: -1) }))
        cases.append(("mask size", { $0.mask = GrayImage(width: 10, height: 10, fill: 255) }))
        for (name, change) in cases {
            var options = FeatureTrackerOptions()
            change(&options)
            #expect(throws: VisionError.self, "\(name)") { _ = try FeatureTracker(camera: camera, options: options) }
        }
    }

    @Test func badFramesAreRejected() throws {
        let tracker = try FeatureTracker(camera: camera)
        let image = GrayImage(width: 752, height: 480, fill: 128)
        #expect(throws: VisionError.self) { _ = try tracker.track(GrayImage(width: 640, height: 480), t_ns: 1) }
        #expect(throws: VisionError.self) { _ = try tracker.track(image, right: image, t_ns: 1) } // mono tracker
        let flat = try tracker.track(image, t_ns: 10)
        #expect(flat.features.isEmpty) // a flat image has no corners: no features, no error
        #expect(throws: VisionError.outOfOrder(previous: 10, current: 10)) { _ = try tracker.track(image, t_ns: 10) }
        tracker.reset()
        #expect(try tracker.track(image, t_ns: 5).features.isEmpty) // after a reset time may restart
    }
}
