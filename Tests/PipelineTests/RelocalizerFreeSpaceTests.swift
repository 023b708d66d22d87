import Estimation
import Foundation
import Geometry
import Imaging
@testable import Pipeline
import Sensors
import Testing
import WorldMap

/// The relocaliser in a scene whose floor repeats: a floor pattern with a period of 4 m along x, mapped only at
/// x ∈ [4, 8) (region A) where a table stands; region B (x ∈ [0, 4)) looks exactly like A but has no table. A run that
/// sees only B's floor matches every feature to its twin in A, one period away, and those matches agree on an
/// alignment shifted by 4 m — the only one they support, so the ambiguity test has no rival. What refutes it is the
/// structure that does not repeat: at the shifted place, the map's table stands where the run's cameras see the floor
/// through it. No descriptors here: the frames' matches are given (`Relocalizer.consider`), true up to the repetition.
@Suite("Relocaliser: a repeating floor's shifted place is refuted by free space")
struct RelocalizerFreeSpaceTests {
    static let period = 4.0
    static let camera = CameraCalibration(name: "cam0",
                                          model: CameraModel(width: 320, height: 240, intrinsics: PinholeIntrinsics(fx: 300, fy: 300, cx: 160, cy: 120)),
                                          rate_hz: 20, T_B_C: .identity)
    /// The map's frame from the run's: a yaw and a translation.
    static let T_Ws_W = SE3(rotation: SO3(yaw: 0.5), translation: Vec3(1, -2, 0.1))

    /// One period of the floor pattern (x ∈ [0, 4), y ∈ [−1.5, 1.5)), and the table top in A.
    static let pattern: [Vec3] = {
        var random = SeededRandom(seed: 7)
        return (0..<150).map { _ in Vec3(Double(random.next() % 4000) / 1000, Double(random.next() % 3000) / 1000 - 1.5, 0) }
    }()
    static let table: [Vec3] = (0..<20).map { i in Vec3(4.8 + Double(i % 5) * 0.25, -0.5 + Double(i / 5) * 0.33, 0.75) }

    /// What region A shows (its floor, the pattern one period on, and the table): the map's own points, in the map's frame.
    static var regionA: [Vec3] { pattern.map { $0 + Vec3(period, 0, 0) } + table }

    /// A walk along A that zig-zags across it (frame k → camera x, y), seeing most of its 170 points in about 120 frames.
    static func zigZagAlongA(_ k: Int) -> (x: Double, y: Double) { (period - 0.6 + 0.015 * Double(k), 0.9 * sin(0.05 * Double(k))) }

    /// Camera 0 at `(x, y, 1.3)` looking along +x, 50° down (OpenCV axes: z forward, x right, y down).
    static func camera(x: Double, y: Double) -> SE3 {
        let pitch = 50 * Double.pi / 180
        let z = Vec3(cos(pitch), 0, -sin(pitch)), xAxis = Vec3(0, -1, 0)
        return SE3(rotation: SO3(matrix: Mat3(columns: xAxis, z.cross(xAxis), z)), translation: Vec3(x, y, 1.3))
    }

    /// Normalized image coordinates of a world point in a camera, if it is in view.
    static func project(_ p: Vec3, _ T_W_C: SE3) -> SIMD2<Double>? {
        let c = T_W_C.inverse.act(p)
        guard c.z > 0.2 else { return nil }
        let n = SIMD2(c.x / c.z, c.y / c.z)
        guard abs(n.x) <= 160.0 / 300, abs(n.y) <= 120.0 / 300 else { return nil }
        return n
    }

    /// The map: A's floor (the pattern one period on) and the table, with keyframes from three cameras in A.
    static func map() -> WorldMap {
        map(points: pattern.map { $0 + Vec3(period, 0, 0) } + table, keyframes: [-0.3, 0, 0.3].map { camera(x: period + 0.3, y: $0) })
    }

    /// A map of `points` (σ 2 cm, blank descriptors) with a keyframe at each of `keyframes` (`T_W_C`), each linking the
    /// points it sees (the 320 × 240 camera of `project`).
    static func map(points: [Vec3], keyframes: [SE3]) -> WorldMap {
        var map = WorldMap(saved_ns: 0)
        map.points = points.enumerated().map { WorldMap.MapPoint(id: $0.offset, p_W: $0.element, std_m: 0.02, descriptor: ORBDescriptor(words: .zero), lastSeen_ns: 0) }
        map.keyframes = keyframes.map { T in
            WorldMap.Keyframe(t_ns: 0, T_W_C: T, keypoints: points.enumerated().compactMap { i, p in
                project(p, T).map { n in WorldMap.Keypoint(pixel: SIMD2(Float(300 * n.x + 160), Float(300 * n.y + 120)), mapPointId: i, descriptor: ORBDescriptor(words: .zero)) }
            })
        }
        return map
    }

    /// Runs the relocaliser over 30 frames of a camera sliding along y at `x` (world = the map's frame); each frame's
    /// features are the scene's points in view (`scene`, by landmark id), matched to map point `mapIndex(id)`.
    static func run(x: Double, scene: [Vec3], mapIndex: (Int) -> Int, frames: Int = 30,
                    options: RelocalizationOptions = RelocalizationOptions(),
                    path: ((Int) -> (x: Double, y: Double))? = nil) -> (found: Relocalization?, refuted: Int) {
        let relocalizer = Relocalizer(map: map(), camera: camera, options: options, stereo: false)
        let T_W_Ws = T_Ws_W.inverse
        for k in 0..<frames {
            let at: (x: Double, y: Double) = path?(k) ?? (x, -0.3 + 0.02 * Double(k))
            let T_Ws_C = camera(x: at.x, y: at.y)
            let inView = scene.indices.compactMap { i in project(scene[i], T_Ws_C).map { (i, $0) } }
            let landmarks = inView.map { Landmark(id: $0.0, p_W: T_W_Ws.act(scene[$0.0]), std_m: 0.02) }
            if let found = relocalizer.consider(inView.map { (mapIndex: mapIndex($0.0), normalized: $0.1) }, landmarks: landmarks,
                                                T_W_C: T_W_Ws * T_Ws_C, t_ns: TimestampNs(k) * 50_000_000) {
                return (found, found.refuted)
            }
        }
        return (nil, relocalizer.refutedCount)
    }

    @Test("the shifted place (B's floor matched to A's twins) is refuted, never accepted")
    func shiftedPlaceRefuted() {
        // The run is in B: it sees B's floor (no table there); each feature matches its twin in A.
        let (found, refuted) = Self.run(x: 0.3, scene: Self.pattern, mapIndex: { $0 })
        #expect(found == nil, "relocalised at the shifted place: \(String(describing: found?.T_Ws_W))")
        #expect(refuted >= 1)
    }

    @Test("control: in A itself (floor and table in view) it relocalises at the true alignment")
    func truePlaceAccepted() throws {
        // Floor and table tops are horizontal: only texture fixes the alignment along them, so the place is accepted
        // once 150 of the map's points were compared with the run's landmarks (`minContradictionFraction`): the camera
        // walks along A and zig-zags across it, seeing most of its 170 points (about 120 frames).
        let (found, refuted) = Self.run(x: Self.period + 0.3, scene: Self.regionA, mapIndex: { $0 }, frames: 200, path: Self.zigZagAlongA)
        let T = try #require(found)
        #expect((T.T_Ws_W.translation - Self.T_Ws_W.translation).norm < 0.01)
        #expect(abs(T.T_Ws_W.rotation.yaw - Self.T_Ws_W.rotation.yaw) < 0.005)
        #expect(refuted == 0)
    }

    @Test("a confirmed place that waits for enough compared points is accepted as soon as they are, not confirmed again")
    func confirmedPlaceWaitsForStructure() throws {
        // The control's walk: the true place is a candidate in every frame and confirmed 3 frames after the first,
        // long before 150 of the map's points were compared. Without the carry-over the confirmation expires after 6
        // frames and starts over, so the frame that brings the 150th point accepts only if it falls 3–6 frames after
        // the latest restart.
        var off = RelocalizationOptions()
        off.confirmationWaitsForStructure = false
        let withIt = try #require(Self.run(x: 0, scene: Self.regionA, mapIndex: { $0 }, frames: 200, path: Self.zigZagAlongA).found)
        let without = try #require(Self.run(x: 0, scene: Self.regionA, mapIndex: { $0 }, frames: 200, options: off,
                                            path: Self.zigZagAlongA).found)
        #expect(withIt.t_ns < without.t_ns, "accepted at \(withIt.t_ns / 50_000_000) with the carry-over, \(without.t_ns / 50_000_000) without")
        #expect((withIt.T_Ws_W.translation - Self.T_Ws_W.translation).norm < 0.01)
        #expect(withIt.refuted == 0)
    }
}
