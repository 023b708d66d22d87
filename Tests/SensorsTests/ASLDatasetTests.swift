import Foundation
import Geometry
import Imaging
import Testing
@testable import Sensors
import TestSupport

@Suite("ASL dataset loader")
struct ASLDatasetTests {
    @Test("A valid fixture loads with no problems: frames, IMU samples, rates, ground truth")
    func fixtureLoads() throws {
        let f = try DatasetFixture(frames: 10)
        let d = try ASLDataset(path: f.root)
        #expect(d.problems.isEmpty, "\(d.problems)")
        #expect(d.cameras.map(\.name) == ["cam0", "cam1"])
        for cam in d.cameras {
            #expect(cam.frames.count == 10)
            #expect(cam.frames.map(\.t_ns) == (0..<10).map(f.frameTime))
            #expect(cam.frames.first?.path == f.path("mav0/\(cam.name)/data/\(f.frameFileName(0))"))
            #expect(cam.missingImages.isEmpty)
            // Timestamps are exact multiples of 50 ms, so the median period gives exactly 20 Hz.
            #expect(cam.estimatedRate_hz == 20)
            #expect(cam.calibration.model.width == 16)
        }
        #expect(d.imu.samples.count == f.imuCount)
        #expect(d.imu.samples[3] == IMUSample(t_ns: f.imuTime(3), gyro_B: Vec3(0.01, -0.02, 0.033), accel_B: Vec3(0.1, -0.2, 9.81)))
        #expect(d.imu.estimatedRate_hz == 200)
        #expect(d.imu.calibration.noise == .euroc)
        #expect(d.groundTruth?.rows == 10)
        #expect(d.groundTruth?.firstT_ns == f.frameTime(0))
        #expect(d.groundTruth?.lastT_ns == f.frameTime(9))
        #expect(d.groundTruthPath == f.path("mav0/state_groundtruth_estimate0/data.csv"))
        #expect(d.bodyYAMLPath == f.path("mav0/body.yaml"))
    }

    @Test("Frames decode lazily to the pixels that were written; a broken file throws naming it")
    func loadImage() throws {
        let f = try DatasetFixture(frames: 3)
        let d = try ASLDataset(path: f.root)
        let image = try d.cameras[1].frames[2].loadImage()
        // cam1 frame 2 was written with seed 2 + 1 (see DatasetFixture).
        #expect(image == GrayImage(width: f.width, height: f.height, pixels: DatasetPNG.testPattern(width: f.width, height: f.height, seed: 3)))
        try f.write("mav0/cam0/data/\(f.frameFileName(0))", bytes: Array(try f.readBytes("mav0/cam0/data/\(f.frameFileName(0))").prefix(40)))
        let error = try #require(throws: (any Error).self) { try d.cameras[0].frames[0].loadImage() }
        #expect("\(error)".contains(f.frameFileName(0)))
    }

    @Test("Ground truth is optional")
    func noGroundTruth() throws {
        let f = try DatasetFixture(frames: 4, groundTruth: false)
        let d = try ASLDataset(path: f.root)
        #expect(d.groundTruth == nil)
        #expect(d.problems.isEmpty)
    }

    @Test("Events: IMU and stereo frames merged in time order, IMU first at equal times")
    func events() throws {
        let f = try DatasetFixture(frames: 5)
        let d = try ASLDataset(path: f.root)
        let events = Array(d.events())
        #expect(events.count == f.imuCount + 5)
        #expect(events.count == d.events().count)
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.t_ns <= $1.t_ns })
        let stereo = events.compactMap { e -> (CameraFrameRef, CameraFrameRef)? in
            if case let .stereoFrame(l, r) = e { return (l, r) } else { return nil }
        }
        #expect(stereo.count == 5)
        #expect(stereo.allSatisfy { $0.0.t_ns == $0.1.t_ns && $0.0.path.contains("/cam0/") && $0.1.path.contains("/cam1/") })
        // Frame 0 is at t0; IMU sample 1 is at t0 too and must come just before the frame.
        let firstFrame = try #require(events.firstIndex { if case .stereoFrame = $0 { return true } else { return false } })
        #expect(events[firstFrame - 1] == .imu(d.imu.samples[1]))
        // Without stereo pairing each camera's frames come separately, cam0 before cam1.
        let mono = Array(d.events(stereo: false)).filter { if case .imu = $0 { return false } else { return true } }
        #expect(mono.count == 10)
        #expect(mono.prefix(2) == [.frame(camera: 0, d.cameras[0].frames[0]), .frame(camera: 1, d.cameras[1].frames[0])])
    }

    @Test("IMU samples between two times, inclusive, by binary search")
    func imuWindow() throws {
        let f = try DatasetFixture(frames: 5)
        let imu = try ASLDataset(path: f.root).imu
        // Frames 1 and 2 are 50 ms apart: samples at both ends plus 9 between (200 Hz).
        let window = imu.samples(from: f.frameTime(1), to: f.frameTime(2))
        #expect(window.count == 11)
        #expect(window.first?.t_ns == f.frameTime(1) && window.last?.t_ns == f.frameTime(2))
        #expect(imu.samples(from: f.frameTime(1) + 1, to: f.frameTime(2) - 1).count == 9)
        #expect(imu.samples(from: 0, to: 10).isEmpty)
        #expect(imu.samples(from: f.frameTime(2), to: f.frameTime(1)).isEmpty)
        #expect(imu.firstIndex(atOrAfter: .max) == imu.samples.count)
    }

    @Test("Stereo pairing leaves unmatched frames single")
    func stereoPairing() {
        let l = [CameraFrameRef(t_ns: 0, path: "l0"), CameraFrameRef(t_ns: 100, path: "l1"), CameraFrameRef(t_ns: 300, path: "l3")]
        let r = [CameraFrameRef(t_ns: 0, path: "r0"), CameraFrameRef(t_ns: 200, path: "r2"), CameraFrameRef(t_ns: 300, path: "r3")]
        let events = Array(SensorEventSequence(imu: [], cameras: [l, r], stereoTolerance_ns: 10))
        #expect(events == [.stereoFrame(left: l[0], right: r[0]), .frame(camera: 0, l[1]), .frame(camera: 1, r[1]),
                           .stereoFrame(left: l[2], right: r[2])])
    }

    @Test("The real euroc-v101-micro: 95 frames per camera, 4 absent cam1 images, IMU 200 Hz over 145.6 s", .enabled(if: SharedDatasets.eurocMicroIsPresent, "needs ../shared/datasets/euroc-v101-micro"))
    func realEuroc() throws {
        let root = try SharedDatasets.eurocMicro()
        let d = try ASLDataset(path: root)
        #expect(d.cameras.map(\.frames.count) == [95, 95])
        #expect(d.cameras[1].listedCount == 99)
        #expect(d.cameras[1].missingImages == ["1403715278012143104.png", "1403715278062142976.png",
                                               "1403715278112143104.png", "1403715278162142976.png"])
        // The only problem is the warning about the 4 absent images.
        #expect(d.problems.count == 1)
        #expect(d.problems.first?.severity == .warning)
        #expect(d.problems.first?.file.hasSuffix("mav0/cam1/data.csv") == true)
        #expect(d.imu.samples.count == 29120)
        // Median period 4 999 936 ns → 200.0026 Hz; 0.01 Hz tolerance allows for the 256-ns clock quantisation.
        #expect(abs((d.imu.estimatedRate_hz ?? 0) - 200) < 0.01)
        // 29 119 periods of 5 ms = 145.595 s; 1 ms tolerance covers the clock jitter.
        #expect(abs(d.imu.duration_s - 145.595) < 1e-3)
        #expect(d.groundTruth?.rows == 2895)
        #expect(abs((d.cameras[0].estimatedRate_hz ?? 0) - 20) < 0.01)
        #expect(d.cameras[0].calibration.model.distortion.yamlName == "radial-tangential")
        let image = try d.cameras[0].frames[0].loadImage()
        #expect(image.width == 752 && image.height == 480)
        // A real indoor image: not flat (the mean is neither black nor white).
        let mean = Double(image.pixels.reduce(0) { $0 + Int($1) }) / Double(image.pixels.count)
        #expect(mean > 20 && mean < 235)
    }
}
