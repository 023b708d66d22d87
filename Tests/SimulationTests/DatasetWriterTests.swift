import Foundation
import Geometry
import Imaging
import Sensors
import Testing
import TestSupport
@testable import Simulation

/// All files under `dir`, relative paths, sorted.
private func files(_ dir: String) -> [String] {
    let e = FileManager.default.enumerator(atPath: dir)
    var out: [String] = []
    while let p = e?.nextObject() as? String {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: dir + "/" + p, isDirectory: &isDir), !isDir.boolValue { out.append(p) }
    }
    return out.sorted()
}

@Test func sameSeedGivesByteIdenticalDatasets() throws {
    var config = SimDatasets.smallConfig(seconds: 0.2, seed: 11, stereo: true)
    config.effects.motionBlur = true
    config.effects.blurSamples = 2
    let a = try SimDatasets.write(config, label: "detA"), b = try SimDatasets.write(config, label: "detB")
    defer { try? FileManager.default.removeItem(atPath: a); try? FileManager.default.removeItem(atPath: b) }
    let fa = files(a)
    #expect(fa == files(b))
    #expect(fa.filter { $0.hasSuffix(".png") }.count == 10) // 5 frames × 2 cameras
    for f in fa {
        let da = try Data(contentsOf: URL(fileURLWithPath: a + "/" + f)), db = try Data(contentsOf: URL(fileURLWithPath: b + "/" + f))
        #expect(da == db, "\(f) differs between runs")
    }
    // Another seed changes the IMU data and images.
    config.seed = 12
    let c = try SimDatasets.write(config, label: "detC")
    defer { try? FileManager.default.removeItem(atPath: c) }
    #expect(try Data(contentsOf: URL(fileURLWithPath: a + "/mav0/imu0/data.csv")) != Data(contentsOf: URL(fileURLWithPath: c + "/mav0/imu0/data.csv")))
}

@Test func writesTheASLLayout() throws {
    var config = SimDatasets.smallConfig(seconds: 0.25, seed: 3, stereo: true)
    config.timeOffset_ns = 5_000_000
    let dir = try SimDatasets.write(config, label: "layout")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    func text(_ p: String) throws -> String { try String(contentsOfFile: dir + "/" + p, encoding: .utf8) }
    for cam in ["cam0", "cam1"] {
        let yaml = try text("mav0/\(cam)/sensor.yaml")
        #expect(yaml.hasPrefix("%YAML:1.0\n"))
        for key in ["T_BS:", "cols: 4", "rows: 4", "rate_hz: 20", "resolution: [160, 120]", "camera_model: pinhole",
                    "intrinsics: [", "distortion_model: radial-tangential", "distortion_coefficients: ["] {
            #expect(yaml.contains(key), "\(cam)/sensor.yaml lacks \(key)")
        }
        let csv = try text("mav0/\(cam)/data.csv").split(separator: "\n")
        #expect(csv[0] == "#timestamp [ns],filename")
        #expect(csv.count == 1 + 6) // 0, 50, …, 250 ms
        for line in csv.dropFirst() {
            let parts = line.split(separator: ",")
            #expect(parts[1] == "\(parts[0]).png")
            let img = try ImageCodec.decodeGray(contentsOf: dir + "/mav0/\(cam)/data/\(parts[1])")
            #expect(img.width == 160 && img.height == 120)
        }
    }
    // The extrinsics in the YAML are EuRoC's (baseline ≈ 11 cm).
    #expect(try text("mav0/cam1/sensor.yaml").contains("0.0453689425024"))
    let imu = try text("mav0/imu0/data.csv").split(separator: "\n")
    #expect(imu[0].hasPrefix("#timestamp [ns],w_RS_S_x [rad s^-1]"))
    #expect(imu.count == 1 + 51)
    let imuYAML = try text("mav0/imu0/sensor.yaml")
    #expect(imuYAML.hasPrefix("%YAML:1.0\n") && imuYAML.contains("gyroscope_noise_density: 0.00016968")
            && imuYAML.contains("accelerometer_random_walk: 0.003") && imuYAML.contains("rate_hz: 200"))
    let gt = try text("mav0/state_groundtruth_estimate0/data.csv").split(separator: "\n")
    #expect(gt.count == imu.count)
    #expect(gt[0].hasPrefix("#timestamp, p_RS_R_x [m]"))
    // Ground-truth rows parse back to the exact trajectory (shortest round-trip formatting).
    let traj = try config.trajectory()
    let row = gt[20].split(separator: ",").map { Double($0)! }
    let t_ns = Int64(gt[20].split(separator: ",")[0])!
    let s = traj.state(at: Time.seconds(t_ns - config.startTime_ns))
    #expect(Vec3(row[1], row[2], row[3]) == s.T_W_B.translation)
    let q = s.T_W_B.rotation.quaternion.normalized
    #expect(row[4] == q.w && row[5] == q.x && row[6] == q.y && row[7] == q.z)
    #expect(Vec3(row[8], row[9], row[10]) == s.v_W)
    #expect(try text("mav0/body.yaml").hasPrefix("%YAML:1.0"))
    // scene.json reads back as the same scene and records the run.
    let sceneData = try Data(contentsOf: URL(fileURLWithPath: dir + "/scene.json"))
    #expect(try Scene.fromJSON(sceneData, source: "scene.json") == config.scene)
    let json = try #require(try JSONSerialization.jsonObject(with: sceneData) as? [String: Any])
    let sim = try #require(json["simulation"] as? [String: Any])
    #expect(sim["trajectory"] as? String == "handheld")
    #expect((sim["seed"] as? NSNumber)?.intValue == 3)
    #expect((sim["timeOffsetNs"] as? NSNumber)?.intValue == 5_000_000)
    #expect(config.trajectoryTime(ofImageStamped: config.startTime_ns) == 0.005)
}

@Test func refusesNonEmptyOutputUnlessForced() throws {
    let dir = SimDatasets.temporaryPath("refuse")
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Data("keep me".utf8).write(to: URL(fileURLWithPath: dir + "/notes.txt"))
    let config = SimDatasets.smallConfig(seconds: 0.05)
    #expect(throws: SimulationError.outputNotEmpty(dir)) { try DatasetWriter.write(config, to: dir) }
    #expect(!FileManager.default.fileExists(atPath: dir + "/mav0"))
    try DatasetWriter.write(config, to: dir, force: true)
    #expect(FileManager.default.fileExists(atPath: dir + "/mav0/cam0/data.csv"))
    #expect(try String(contentsOfFile: dir + "/notes.txt", encoding: .utf8) == "keep me")
    var bad = config
    bad.seconds = 0
    #expect(throws: SimulationError.badConfig("seconds must be > 0 (got 0.0)")) {
        try DatasetWriter.write(bad, to: SimDatasets.temporaryPath("bad"))
    }
}

@Test func cameraTimestampsAt20And30Hz() throws {
    var config = SimulationConfig(scene: .room(), seconds: 1, seed: 1)
    let s20 = config.cameraTimestamps()
    #expect(s20.count == 21 && s20[1] - s20[0] == 50_000_000 && s20.last! - s20[0] == 1_000_000_000)
    config.rig = .euroc(rate_hz: 30)
    let s30 = config.cameraTimestamps().map { $0 - config.startTime_ns }
    // Rounded to the nearest nanosecond: 33 333 333, 66 666 667, 100 000 000, …
    #expect(s30.count == 31 && s30[1] == 33_333_333 && s30[2] == 66_666_667 && s30[3] == 100_000_000)
    // A camera–IMU offset shifts what the image shows, not its stamp.
    config.timeOffset_ns = -2_000_000
    #expect(config.cameraTimestamps()[0] == config.startTime_ns)
    #expect(config.trajectoryTime(ofImageStamped: config.startTime_ns + 50_000_000) == 0.048)
}

@Test func writtenDatasetLoadsWithTheSensorsLoader() throws {
    let config = SimDatasets.smallConfig(seconds: 0.3, seed: 5, stereo: true)
    let dir = try SimDatasets.write(config, label: "loader")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let ds = try ASLDataset(path: dir)
    #expect(ds.problems.isEmpty, "\(ds.problems)")
    #expect(ds.cameras.count == 2)
    for (stream, cam) in zip(ds.cameras, config.rig.cameras) {
        #expect(stream.frames.count == 7)
        #expect(stream.calibration.model == cam.model)
        // T_BS round-trips through the YAML text exactly (shortest round-trip number formatting).
        #expect((stream.calibration.T_B_C.translation - cam.T_B_C.translation).norm < 1e-15)
        #expect((stream.calibration.T_B_C.rotation.inverse * cam.T_B_C.rotation).angle < 1e-12)
    }
    #expect(ds.imu.samples.count == 61)
    #expect(ds.imu.calibration.noise == config.imu.noise)
    let gt = try TrajectoryFile.readASLGroundTruth(path: dir + "/mav0/state_groundtruth_estimate0/data.csv")
    let imu = IMUSynthesizer.synthesize(trajectory: try config.trajectory(), seconds: config.seconds,
                                        startTime_ns: config.startTime_ns, options: config.imu, seed: config.seed)
    #expect(gt.count == imu.groundTruth.count)
    #expect(gt[30].t_ns == imu.groundTruth[30].t_ns && gt[30].v_W == imu.groundTruth[30].v_W)
    #expect(gt[30].gyroBias_B == imu.groundTruth[30].gyroBias_B && gt[30].accelBias_B == imu.groundTruth[30].accelBias_B)
    #expect(ds.imu.samples[30] == imu.samples[30])
}
