import Estimation
import Foundation
import Geometry
import Sensors
import Testing
@testable import World


/// A room with a floor (z = 0), a table top (z = 0.75, 1.2 m × 0.8 m) and two walls, as ground truth.
enum Room {
    static let floorZ = 0.0
    static let tableZ = 0.75
    /// Table top: x ∈ [0.5, 1.7], y ∈ [-0.4, 0.4] (1.2 × 0.8 m).
    static let tableX = 0.5...1.7, tableY = -0.4...0.4
    /// Floor: x, y ∈ [-3, 3].
    static let floorXY = -3.0...3.0
    /// Wall at x = -3 (y ∈ [-3, 3]) and at y = 3 (x ∈ [-3, 3]); z ∈ [0, 2.5].
    static let wallTop = 2.5

    static func onTable(_ x: Double, _ y: Double) -> Bool { tableX.contains(x) && tableY.contains(y) }

    /// Landmark ground-truth samples of each surface.
    static func floorPoint(_ r: inout SeededRandom) -> Vec3 {
        while true {
            let x = r.uniform(-3, 3), y = r.uniform(-3, 3)
            if !onTable(x, y) { return Vec3(x, y, floorZ) }
        }
    }
    static func tablePoint(_ r: inout SeededRandom) -> Vec3 { Vec3(r.uniform(0.5, 1.7), r.uniform(-0.4, 0.4), tableZ) }
    static func wallPoint(_ r: inout SeededRandom) -> Vec3 {
        r.uniform(0, 1) < 0.5 ? Vec3(-3, r.uniform(-3, 3), r.uniform(0, wallTop)) : Vec3(r.uniform(-3, 3), 3, r.uniform(0, wallTop))
    }
}

/// A 640×480 pinhole camera (fx = fy = 400 px).
let testCamera = CameraCalibration(
    name: "cam0",
    model: CameraModel(width: 640, height: 480, intrinsics: PinholeIntrinsics(fx: 400, fy: 400, cx: 319.5, cy: 239.5)),
    rate_hz: 20, T_B_C: .identity)

/// The pose of an OpenCV camera at `eye` looking at `target` (world z up).
func lookAt(eye: Vec3, target: Vec3) -> SE3 {
    let z = (target - eye).normalized
    let x = z.cross(Vec3(0, 0, 1)).normalized
    let y = z.cross(x)
    return SE3(rotation: SO3(matrix: Mat3(columns: x, y, z)), translation: eye)
}

/// The default viewpoint: 1.5 m high, behind the table, looking at it.
let defaultPose = lookAt(eye: Vec3(1.1, -2.0, 1.5), target: Vec3(1.1, 0, 0.5))

/// A frame input at 20 Hz frame index `i`. The fixtures' landmark clouds ignore occlusion (the room's floor runs on
/// behind and under the table whatever the camera sees), so by default they carry no line of sight
/// (`landmarksSeenFromCamera` false: no free-space evidence, `SeeThroughTests` test that separately).
func frameInput(_ i: Int, landmarks: [Landmark], normal: Bool = true, T_W_C: SE3 = defaultPose,
                image: Bool = false, seenFromCamera: Bool = false) -> WorldFrameInput {
    WorldFrameInput(t_ns: 1_000_000_000 + TimestampNs(i) * 50_000_000,
                    trackingState: normal ? .normal : .limited(.initializing), T_W_C: T_W_C, T_W_B: T_W_C,
                    camera: testCamera, landmarks: landmarks, featureCount: landmarks.count,
                    image: image ? testImage(i) : nil, landmarksSeenFromCamera: seenFromCamera)
}

/// A small textured image whose content depends on `seed`.
import Imaging
func testImage(_ seed: Int) -> GrayImage {
    var px = [UInt8](repeating: 0, count: 640 * 480)
    for y in 0..<480 { for x in 0..<640 { px[y * 640 + x] = UInt8(truncatingIfNeeded: (x ^ y) &+ seed * 7) } }
    return GrayImage(width: 640, height: 480, pixels: px)
}

/// Generates batches of noisy room landmarks with unique ids.
struct RoomLandmarks {
    var rng: SeededRandom
    var nextId = 0
    let sigma: Double
    init(seed: UInt64, sigma: Double = 0.01) { rng = SeededRandom(seed: seed); self.sigma = sigma }
    mutating func batch(floor: Int, table: Int, wall: Int) -> [Landmark] {
        var out: [Landmark] = []
        func add(_ p: Vec3) { out.append(Landmark(id: nextId, p_W: p + rng.gaussian3(sigma), std_m: sigma)); nextId += 1 }
        for _ in 0..<floor { add(Room.floorPoint(&rng)) }
        for _ in 0..<table { add(Room.tablePoint(&rng)) }
        for _ in 0..<wall { add(Room.wallPoint(&rng)) }
        return out
    }
    /// `count` floor points (z = 0, before noise) with x uniform in `x` and y uniform in [0, 1], metres.
    mutating func floorStrip(x: ClosedRange<Double>, count: Int) -> [Landmark] {
        points({ r in Vec3(r.uniform(x.lowerBound, x.upperBound), r.uniform(0, 1), 0) }, count: count)
    }
    mutating func points(_ gen: (inout SeededRandom) -> Vec3, count: Int) -> [Landmark] {
        (0..<count).map { _ in
            defer { nextId += 1 }
            return Landmark(id: nextId, p_W: gen(&rng) + rng.gaussian3(sigma), std_m: sigma)
        }
    }
}

/// Runs the room for `frames` frames at 20 Hz and returns the session and every frame.
func runRoom(frames: Int = 30, seed: UInt64 = 1, floor: Int = 40, table: Int = 10, wall: Int = 15,
             session: WorldSession = WorldSession()) -> (WorldSession, [WorldFrame]) {
    var gen = RoomLandmarks(seed: seed)
    var out: [WorldFrame] = []
    for i in 0..<frames { out.append(session.process(frameInput(i, landmarks: gen.batch(floor: floor, table: table, wall: wall)))) }
    return (session, out)
}

/// A session whose landmarks age out after 1 s, after one frame (frame 0) that saw a shelf at 0.4 m (x, y ∈ [−1, 0],
/// 25 points) and the floor; `gen` goes on from there. Fed the floor alone, the shelf's plane is removed once its
/// landmarks have aged out and `maxMissedPasses` passes have missed it.
func sessionWithAShelfSeenOnce() throws -> (session: WorldSession, gen: RoomLandmarks, shelf: PlaneAnchor) {
    var options = WorldOptions()
    options.landmarkMaxAge_ns = 1_000_000_000
    let session = WorldSession(options: options)
    var gen = RoomLandmarks(seed: 9)
    let shelf = gen.points({ r in Vec3(r.uniform(-1, 0), r.uniform(-1, 0), 0.4) }, count: 25)
    _ = session.process(frameInput(0, landmarks: shelf + gen.batch(floor: 60, table: 0, wall: 0)))
    let plane = try #require(session.planes.first { abs($0.height_m - 0.4) < 0.02 })
    return (session, gen, plane)
}

/// Landmarks spread uniformly over a horizontal patch `x` × `y` at height `z` (W, metres), each displaced by
/// isotropic Gaussian noise of 1 cm and reported with σ 1 cm; ids from `firstId`, deterministic for `seed`.
func levelPatch(_ x: ClosedRange<Double>, _ y: ClosedRange<Double>, z: Double, count: Int, firstId: Int, seed: UInt64) -> [Landmark] {
    var rng = SeededRandom(seed: seed)
    return (0..<count).map {
        Landmark(id: firstId + $0, p_W: Vec3(rng.uniform(x.lowerBound, x.upperBound), rng.uniform(y.lowerBound, y.upperBound), z)
                 + rng.gaussian3(0.01), std_m: 0.01)
    }
}
