import Foundation
import Geometry
import Sensors
import Testing
import TestSupport

@Suite struct TrajectoryFileTests {
    @Test func tumRoundTripIsExact() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // EuRoC-sized timestamps with odd nanoseconds: seconds with 9 decimals must keep every one.
        let poses = Synthetic.trajectory(rate_hz: 200, duration: 1, start: 1_403_715_273.262142976, offset_ns: 7)
        let path = folder.appendingPathComponent("est.tum").path
        try TrajectoryFile.writeTUM(poses, to: path)
        let back = try TrajectoryFile.readTUM(path: path)
        #expect(back.count == poses.count)
        #expect(zip(back, poses).allSatisfy { $0.t_ns == $1.t_ns })
        // Positions print in round-trip precision; quaternions are renormalised on read (≤ a few ulp).
        #expect(zip(back, poses).allSatisfy { $0.pose.translation == $1.pose.translation })
        #expect(zip(back, poses).allSatisfy { ($0.pose.rotation.inverse * $1.pose.rotation).angle < 1e-14 })
    }

    @Test func tumSecondsParseExactlyAndRound() throws {
        let text = """
        # comment
        1403715273.262142976 1 2 3 0 0 0 1
        1403715273.3121431045 1 2 3 0 0 0 1
        1403715273.5 1 2 3 0 0 0 1
        1.4037152736e9 1 2 3 0 0 0 1
        """
        let poses = try TrajectoryFile.parseTUM(text, source: "mem")
        #expect(poses.map(\.t_ns) == [1_403_715_273_262_142_976, 1_403_715_273_312_143_105, 1_403_715_273_500_000_000,
                                      1_403_715_273_600_000_000])
    }

    @Test func aslRoundTripIsExactAndAcceptsEightColumns() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var random = SeededRandom(seed: 7)
        let states = Synthetic.trajectory(rate_hz: 200, duration: 0.5).map {
            GroundTruthState(t_ns: $0.t_ns + 1_403_715_273_262_142_976, T_W_B: $0.pose, v_W: random.gaussian3(1),
                             gyroBias_B: random.gaussian3(0.01), accelBias_B: random.gaussian3(0.1))
        }
        let path = folder.appendingPathComponent("data.csv").path
        try TrajectoryFile.writeASLGroundTruth(states, to: path)
        let back = try TrajectoryFile.readASLGroundTruth(path: path)
        #expect(back.count == states.count)
        for (b, s) in zip(back, states) {
            #expect(b.t_ns == s.t_ns && b.v_W == s.v_W && b.gyroBias_B == s.gyroBias_B && b.accelBias_B == s.accelBias_B)
            #expect(b.T_W_B.translation == s.T_W_B.translation)
            #expect((b.T_W_B.rotation.inverse * s.T_W_B.rotation).angle < 1e-14)
        }
        let short = try TrajectoryFile.parseASLGroundTruth("#t,p,q\n100,1,2,3,1,0,0,0\n200, 1, 2, 3, 0, 1, 0, 0\n", source: "mem")
        #expect(short.map(\.t_ns) == [100, 200])
        #expect(short[1].T_W_B.rotation.quaternion == Quaternion(w: 0, x: 1, y: 0, z: 0))
        #expect(short[1].v_W == .zero)
    }

    @Test(.enabled(if: SharedDatasets.eurocMicroIsPresent, "needs ../shared/datasets/euroc-v101-micro"))
    func readsTheEuRoCGroundTruth() throws {
        let csv = try SharedDatasets.eurocMicro() + "/mav0/state_groundtruth_estimate0/data.csv"
        let states = try TrajectoryFile.readASLGroundTruth(path: csv)
        #expect(states.count > 100)
        // First row of EuRoC V1_01's ground truth.
        #expect(states[0].t_ns == 1_403_715_273_262_142_976)
        #expect((states[0].T_W_B.translation - Vec3(0.878895, 2.1834, 0.948427)).norm < 1e-12)
        #expect(abs(states[0].accelBias_B.z - 0.0309774) < 1e-12)
    }

    /// Each bad input must fail with the file named, and the line when there is one.
    @Test(arguments: [
        ("", "no trajectory rows", 0),
        ("# only a comment\n\n", "no trajectory rows", 0),
        ("1.0 1 2 3 0 0 0 1\n2.0 1 2 3 0 0 1\n", "expected 8 columns", 2),
        ("1.0 1 2 3 0 0 0 1\n2.0 1 two 3 0 0 0 1\n", "'two' is not a number", 2),
        ("1.0 1 2 3 0 0 0 1\n# c\n2.0 1 2 nan 0 0 0 1\n", "not finite", 3),
        ("1.0 1 2 3 0 0 0 1\n2.0 1 2 inf 0 0 0 1\n", "not finite", 2),
        ("x 1 2 3 0 0 0 1\n", "is not a finite number of seconds", 1),
        ("2.0 1 2 3 0 0 0 1\n1.0 1 2 3 0 0 0 1\n", "before the previous row", 2),
        ("1.0 1 2 3 0 0 0 1\n1.0 1 2 3 0 0 0 1\n", "duplicate timestamp", 2),
        ("1.0 1 2 3 0 0 0 0\n", "has norm 0", 1),
        ("1403715273262142976 1 2 3 0 0 0 1\n", "nanoseconds?", 1),
    ])
    func badTUMNamesFileAndLine(text: String, message: String, line: Int) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("bad.tum").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: TrajectoryFileError.self) { try TrajectoryFile.readTUM(path: path) }
        let description = error?.description ?? ""
        #expect(description.contains(message), "\(description)")
        #expect(description.hasPrefix(line > 0 ? "\(path):\(line): " : "\(path): "), "\(description)")
    }

    @Test(arguments: [
        ("100,1,2,3,1,0,0,0,0\n", "found 9", 1),
        ("100,1,2,3,1,0,0,0\n1.5,1,2,3,1,0,0,0\n", "not an integer number of nanoseconds", 2),
        ("100,1,2,3,1,0,0,0\n100,1,2,3,1,0,0,0\n", "duplicate timestamp", 2),
        ("100,1,2,3,1,0,0,0\n200,1,2,,1,0,0,0\n", "column 4", 2),
    ])
    func badASLNamesFileAndLine(text: String, message: String, line: Int) throws {
        let error = #expect(throws: TrajectoryFileError.self) { try TrajectoryFile.parseASLGroundTruth(text, source: "gt.csv") }
        let description = error?.description ?? ""
        #expect(description.contains(message), "\(description)")
        #expect(description.hasPrefix("gt.csv:\(line): "), "\(description)")
    }

    @Test func missingFileIsNamed() {
        let error = #expect(throws: TrajectoryFileError.self) { try TrajectoryFile.readTUM(path: "/nonexistent/x.tum") }
        #expect(error?.description == "/nonexistent/x.tum: no such file")
    }
}
