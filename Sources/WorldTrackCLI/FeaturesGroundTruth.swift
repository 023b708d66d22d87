import Foundation
import Geometry
import Sensors
import Simulation

/// The truth `worldtrack features` checks tracks against: the scene of a simulated dataset and its
/// ground-truth body poses, interpolated at frame times.
struct FeaturesGroundTruth {
    /// The scene (from `scene.json`).
    let scene: Scene
    /// Ground-truth body poses in time order.
    let poses: [StampedPose]
    /// Camera–IMU time offset of the simulation: the image stamped t shows the world at t + offset.
    let timeOffset_ns: Int64

    /// Loads `DATASET/scene.json` and the ground-truth CSV; `nil` when the dataset has no `scene.json`
    /// or no ground truth. Throws `CLIError.badInput` naming the file when either is unreadable.
    static func load(dataset: ASLDataset) throws -> FeaturesGroundTruth? {
        let scenePath = (dataset.path as NSString).appendingPathComponent("scene.json")
        guard FileManager.default.fileExists(atPath: scenePath), let csv = dataset.groundTruthPath else { return nil }
        let scene: Scene
        do { scene = try Scene.load(jsonFile: scenePath) } catch { throw CLIError.badInput("\(error)") }
        let offset = try readTimeOffset(scenePath)
        let poses = try readPoses(csv)
        guard poses.count >= 2 else { throw CLIError.badInput("\(csv): fewer than 2 ground-truth poses") }
        return FeaturesGroundTruth(scene: scene, poses: poses, timeOffset_ns: offset)
    }

    /// `simulation.timeOffsetNs` of `scene.json` (0 when absent).
    private static func readTimeOffset(_ path: String) throws -> Int64 {
        struct Doc: Decodable {
            struct Sim: Decodable { var timeOffset_ns: Int64?; enum CodingKeys: String, CodingKey { case timeOffset_ns = "timeOffsetNs" } }
            var simulation: Sim?
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError.badInput("\(path): cannot read the file") }
        do { return try JSONDecoder().decode(Doc.self, from: data).simulation?.timeOffset_ns ?? 0 } catch {
            throw CLIError.badInput("\(path): bad simulation facts: \(error)")
        }
    }

    /// Rows `t_ns, px, py, pz, qw, qx, qy, qz, …` of an ASL ground-truth CSV.
    private static func readPoses(_ path: String) throws -> [StampedPose] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CLIError.badInput("\(path): cannot read the file")
        }
        var poses: [StampedPose] = []
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count >= 8, let t = Int64(fields[0]) else {
                throw CLIError.badInput("\(path):\(lineNumber): expected a timestamp and at least 7 numbers")
            }
            let v = fields[1...7].compactMap(Double.init)
            guard v.count == 7, v.allSatisfy(\.isFinite) else {
                throw CLIError.badInput("\(path):\(lineNumber): expected 7 finite numbers after the timestamp")
            }
            if let last = poses.last, t <= last.t_ns {
                throw CLIError.badInput("\(path):\(lineNumber): timestamp \(t) is not after the previous one")
            }
            let q = Quaternion(w: v[3], x: v[4], y: v[5], z: v[6])
            let qNorm = (v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6]).squareRoot()
            guard abs(qNorm - 1) < 0.1 else {
                throw CLIError.badInput("\(path):\(lineNumber): quaternion norm \(qNorm) is not 1")
            }
            poses.append(StampedPose(t_ns: t, pose: SE3(rotation: SO3(q), translation: Vec3(v[0], v[1], v[2]))))
        }
        return poses
    }

    /// The body pose at the time an image stamped `t_ns` shows, interpolated; `nil` outside the truth.
    func T_W_B(imageStamp t_ns: TimestampNs) -> SE3? {
        let t = t_ns + timeOffset_ns
        guard let first = poses.first, let last = poses.last, t >= first.t_ns, t <= last.t_ns else { return nil }
        var lo = 0, hi = poses.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if poses[mid].t_ns <= t { lo = mid } else { hi = mid }
        }
        let a = poses[lo], b = poses[hi]
        if b.t_ns == a.t_ns { return a.pose }
        return SE3.interpolate(a.pose, b.pose, Double(t - a.t_ns) / Double(b.t_ns - a.t_ns))
    }

    /// The first scene point on a world ray.
    func raycast(origin_W: Vec3, direction_W: Vec3) -> Vec3? {
        scene.raycast(origin_W: origin_W, direction_W: direction_W)?.point_W
    }
}
