import Foundation
import Geometry
import Testing
@testable import Sensors
import TestSupport

@Suite("sensor.yaml parsing")
struct SensorYAMLTests {
    @Test("EuRoC camera sensor.yaml: intrinsics, radial-tangential, resolution, rate, T_BS")
    func eurocCamera() throws {
        let yaml = DatasetFixture.cameraYAML(cam: 0, width: 752, height: 480)
        #expect(yaml.hasPrefix("%YAML:1.0"))
        let cal = try SensorYAML.parseCamera(yaml: yaml, file: "cam0/sensor.yaml", name: "cam0")
        #expect(cal.name == "cam0")
        #expect(cal.model.width == 752 && cal.model.height == 480)
        #expect(cal.model.intrinsics == PinholeIntrinsics(fx: 458.654, fy: 457.296, cx: 367.215, cy: 248.375))
        #expect(cal.model.distortion == .radialTangential(k1: -0.28340811, k2: 0.07395907, p1: 0.00019359, p2: 1.76187114e-05))
        #expect(cal.rate_hz == 20)
        // T_BS is +90° about z with translation (0.1, -0.2, 0.3): it maps the camera x axis to body y.
        let xInBody = cal.T_B_C.rotation.act(Vec3(1, 0, 0))
        // 1e-12: the matrix is exact; only quaternion round-off remains.
        #expect((xInBody - Vec3(0, 1, 0)).norm < 1e-12)
        #expect((cal.T_B_C.translation - Vec3(0.1, -0.2, 0.3)).norm < 1e-12)
    }

    @Test("TUM-VI style equidistant camera")
    func equidistantCamera() throws {
        let yaml = DatasetFixture.cameraYAML(cam: 0, width: 512, height: 512, distortionModel: "equidistant",
                                             coefficients: [0.0034823894022493434, 0.0007150348452162257, -0.0020532361418706202, 0.00020293673591811182])
        let cal = try SensorYAML.parseCamera(yaml: yaml, file: "sensor.yaml", name: "cam0")
        #expect(cal.model.distortion == .equidistant(k1: 0.0034823894022493434, k2: 0.0007150348452162257,
                                                     k3: -0.0020532361418706202, k4: 0.00020293673591811182))
        #expect(cal.model.width == 512)
    }

    @Test("Variants: flat T_BS list, resolution as a mapping, 5 radtan coefficients with k3 = 0, '---' after the header")
    func variants() throws {
        let yaml = """
        %YAML:1.0
        ---
        T_BS: [1.0, 0.0, 0.0, 0.5,  0.0, 1.0, 0.0, 0.0,  0.0, 0.0, 1.0, 0.0,  0.0, 0.0, 0.0, 1.0]
        rate_hz: 30
        resolution:
          width: 1242
          height: 375
        camera_model: pinhole
        intrinsics: [721.5377, 721.5377, 609.5593, 172.8540]
        distortion_model: radtan
        distortion_coefficients: [0.1, 0.2, 0.3, 0.4, 0.0]
        """
        let cal = try SensorYAML.parseCamera(yaml: yaml, file: "kitti.yaml", name: "cam0")
        #expect(cal.model.width == 1242 && cal.model.height == 375)
        #expect(cal.model.distortion == .radialTangential(k1: 0.1, k2: 0.2, p1: 0.3, p2: 0.4))
        #expect(cal.T_B_C.translation == Vec3(0.5, 0, 0))
        #expect(cal.rate_hz == 30)
    }

    @Test("The real EuRoC cam0 sensor.yaml from ../shared/datasets", .enabled(if: SharedDatasets.eurocMicroIsPresent, "needs ../shared/datasets/euroc-v101-micro"))
    func realEurocCamera() throws {
        let root = try SharedDatasets.eurocMicro()
        let cal = try SensorYAML.readCamera(path: root + "/mav0/cam0/sensor.yaml", name: "cam0")
        #expect(cal.model.intrinsics.array == [458.654, 457.296, 367.215, 248.375])
        // EuRoC cam0 sits 6.5 cm along −y of the body (T_BS translation -0.0216, -0.0647, 0.0098).
        #expect((cal.T_B_C.translation - Vec3(-0.0216401454975, -0.064676986768, 0.00981073058949)).norm < 1e-12)
    }

    @Test("IMU sensor.yaml: noise densities and rate")
    func imu() throws {
        let cal = try SensorYAML.parseIMU(yaml: DatasetFixture.imuYAML, file: "imu0/sensor.yaml")
        #expect(cal.noise == IMUNoiseModel.euroc)
        #expect(cal.rate_hz == 200)
        #expect(cal.T_B_S == .identity)
    }

    @Test("Errors name the file and the line of the bad key")
    func errorsNameFileAndLine() throws {
        let good = DatasetFixture.cameraYAML(cam: 0, width: 752, height: 480)
        let omni = good.replacingOccurrences(of: "camera_model: pinhole", with: "camera_model: omni")
        let error = try #require(throws: DatasetError.self) { try SensorYAML.parseCamera(yaml: omni, file: "x/sensor.yaml", name: "cam0") }
        let line = omni.components(separatedBy: "\n").firstIndex { $0.hasPrefix("camera_model") }.map { $0 + 1 }
        #expect(error.problems.first?.file == "x/sensor.yaml")
        #expect(error.problems.first?.line == line)
        #expect(error.description.contains("unsupported camera_model 'omni'"))
    }

    @Test("Missing key, wrong list length, bad distortion model, bad rotation and bad YAML are errors")
    func otherErrors() {
        let good = DatasetFixture.cameraYAML(cam: 0, width: 752, height: 480)
        let cases: [(String, String)] = [
            (good.replacingOccurrences(of: "rate_hz: 20.0\n", with: ""), "missing key 'rate_hz'"),
            (good.replacingOccurrences(of: "resolution: [752, 480]", with: "resolution: [752]"), "'resolution' must have 2 numbers"),
            (good.replacingOccurrences(of: "distortion_model: radial-tangential", with: "distortion_model: fov"), "unsupported distortion_model 'fov'"),
            (good.replacingOccurrences(of: "data: [0.0, -1.0", with: "data: [2.0, -1.0"), "not a proper rotation"),
            (good.replacingOccurrences(of: "intrinsics: [458.654", with: "intrinsics: [abc"), "'intrinsics' must be a finite number"),
            (good + "bad: [unclosed\n", "not valid YAML"),
        ]
        for (yaml, expected) in cases {
            #expect(yaml != good)
            do {
                _ = try SensorYAML.parseCamera(yaml: yaml, file: "f.yaml", name: "cam0")
                Issue.record("expected an error containing \(expected)")
            } catch let error as DatasetError {
                #expect(error.description.contains(expected), "\(error.description)")
                #expect(error.description.hasPrefix("f.yaml"))
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test("OpenCV %YAML:1.0 header is commented out, keeping line numbers")
    func header() {
        #expect(SensorYAML.withoutOpenCVHeader("%YAML:1.0\na: 1") == "#%YAML:1.0\na: 1")
        #expect(SensorYAML.withoutOpenCVHeader("a: 1") == "a: 1")
    }
}
