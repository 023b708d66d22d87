import Foundation
import Geometry
import Imaging
import Sensors
import Testing
@testable import World

/// A ray-traced scene for stereo tests: the textured floor (z = `floorHeight`, 0 by default), a textured back wall
/// (y = 3, as `Room`'s) and, optionally, a textured square card facing a point, in front of them. Texture is value
/// noise on each surface's own coordinates (2 cm and 5 cm cells), so every patch is distinct.
struct TexturedScene {
    /// A square card: its centre and unit normal (world), and half its side, metres.
    var card: (centre: Vec3, normal: Vec3, halfSide: Double)?
    /// The floor's height, metres (0 where the tests' maps put it; lower to show a floor farther than the map's).
    var floorHeight: Double = 0
    /// With a period, the card's texture repeats across it (along its horizontal axis) every this many metres: a
    /// patch of it matches at more than one depth.
    var cardPeriod_m: Double?

    /// A stereo pair's right camera: 11 cm to the right of the left one (EuRoC's baseline), axes parallel.
    static let T_left_right = SE3(rotation: .identity, translation: Vec3(0.11, 0, 0))

    /// The intensity seen along a ray from `origin` in direction `d` (world).
    func intensity(origin: Vec3, d: Vec3) -> Double {
        var best = Double.infinity, value = 128.0
        if let c = card {
            let denom = d.dot(c.normal)
            if abs(denom) > 1e-9 {
                let t = (c.centre - origin).dot(c.normal) / denom
                let p = origin + d * t - c.centre
                let u = c.normal.cross(Vec3(0, 0, 1)).normalized, v = c.normal.cross(u)
                if t > 0, abs(p.dot(u)) <= c.halfSide, abs(p.dot(v)) <= c.halfSide {
                    let across = cardPeriod_m.map { p.dot(u) - $0 * floor(p.dot(u) / $0) } ?? p.dot(u)
                    best = t; value = Self.texture(across, p.dot(v), seed: 3)
                }
            }
        }
        if d.z < -1e-9 {
            let t = (floorHeight - origin.z) / d.z
            if t < best { let p = origin + d * t; best = t; value = Self.texture(p.x, p.y, seed: 1) }
        }
        if d.y > 1e-9 {
            let t = (3 - origin.y) / d.y
            if t < best { let p = origin + d * t; value = Self.texture(p.x, p.z, seed: 2) }
        }
        return value
    }

    /// The scene seen by `camera` at `T_W_C`.
    func render(_ camera: CameraModel, T_W_C: SE3) -> GrayImage {
        var px = [UInt8](repeating: 0, count: camera.width * camera.height)
        for y in 0..<camera.height {
            for x in 0..<camera.width {
                let b = camera.bearing(Vec2(Double(x), Double(y)))!
                let v = intensity(origin: T_W_C.translation, d: T_W_C.rotation.act(b))
                px[y * camera.width + x] = UInt8(max(0, min(255, v.rounded())))
            }
        }
        return GrayImage(width: camera.width, height: camera.height, pixels: px)
    }

    /// The left image and the second view (the right camera) of a stereo pair whose left camera is at `T_W_C`.
    func stereoPair(_ camera: CameraModel, T_W_C: SE3) -> (GrayImage, SecondView) {
        let right = render(camera, T_W_C: T_W_C * Self.T_left_right)
        return (render(camera, T_W_C: T_W_C), SecondView(image: right, camera: camera, T_C0_C1: Self.T_left_right))
    }

    /// Two octaves of value noise, 40–216 grey levels.
    static func texture(_ u: Double, _ v: Double, seed: UInt64) -> Double {
        func lattice(_ i: Int, _ j: Int, _ s: UInt64) -> Double {
            var h = UInt64(bitPattern: Int64(i)) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: Int64(j)) &* 0xC2B2_AE3D_27D4_EB4F ^ s &* 0x1656_67B1_9E37_79F9
            h ^= h >> 29; h = h &* 0xBF58_476D_1CE4_E5B9; h ^= h >> 32
            return Double(h % 1000) / 999
        }
        func noise(_ cell: Double, _ s: UInt64) -> Double {
            let x = u / cell, y = v / cell
            let i = Int(floor(x)), j = Int(floor(y)), fx = x - floor(x), fy = y - floor(y)
            let a = lattice(i, j, s), b = lattice(i + 1, j, s), c = lattice(i, j + 1, s), d = lattice(i + 1, j + 1, s)
            return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
        }
        return 40 + 110 * noise(0.02, seed) + 66 * noise(0.05, seed &+ 7)
    }
}

/// `PhotometricDepthProbe`: where a stereo pair places a pixel's surface.
@Suite struct PhotometricDepthProbeTests {
    @Test func theBestMatchIsAtTheSurfacesDepth() throws {
        let camera = testCamera.model
        // A card 1.8 m in front of the camera, facing it, with the floor and wall behind.
        let eye = defaultPose.translation, forward = defaultPose.rotation.act(Vec3(0, 0, 1))
        let scene = TexturedScene(card: (eye + forward * 1.8, -forward, 0.25))
        let (left, view) = scene.stereoPair(camera, T_W_C: defaultPose)
        let probe = PhotometricDepthProbe()
        // The image centre sees the card at 1.8 m; a pixel low in the image sees the floor, whose depth is known.
        let centre = Vec2(319.5, 239.5)
        let onCard = try #require(probe.profile(pixel: centre, image: left, camera: camera, view: view, nearest_m: 0.7, farthest_m: 7))
        let best = try #require(onCard.best)
        #expect(abs(best.distance_m - 1.8) < 0.03, "card at 1.8 m, best match at \(best.distance_m) m")
        #expect(best.score > 0.95)
        let low = Vec2(200, 440)
        let floorRay = try #require(WorldRay(pixel: low, camera: camera, T_W_C: defaultPose))
        let floorDepth = -floorRay.origin_W.z / floorRay.direction_W.z
        let onFloor = try #require(probe.profile(pixel: low, image: left, camera: camera, view: view, nearest_m: 0.5, farthest_m: 6))
        let floorBest = try #require(onFloor.best)
        #expect(abs(floorBest.distance_m - floorDepth) < 0.03 * floorDepth, "floor at \(floorDepth) m, best at \(floorBest.distance_m) m")
        #expect(!onFloor.hasRival(to: try #require(onFloor.bestIndex), margin: 0.1, dip: 0.05))
    }

    @Test func aPatchWithoutTextureHasNoProfile() {
        let camera = testCamera.model
        let flat = GrayImage(width: camera.width, height: camera.height, fill: 90)
        let view = SecondView(image: flat, camera: camera, T_C0_C1: TexturedScene.T_left_right)
        #expect(PhotometricDepthProbe().profile(pixel: Vec2(320, 240), image: flat, camera: camera, view: view,
                                                nearest_m: 0.5, farthest_m: 5) == nil)
    }

    @Test func aRepeatingTextureHasARival() {
        // Vertical stripes 12 px apart, identical in both images: every 12 px of disparity matches as well.
        let camera = testCamera.model
        var px = [UInt8](repeating: 0, count: camera.width * camera.height)
        for y in 0..<camera.height { for x in 0..<camera.width { px[y * camera.width + x] = UInt8(128 + 100 * sin(Double(x) * 2 * Double.pi / 12)) } }
        let image = GrayImage(width: camera.width, height: camera.height, pixels: px)
        let view = SecondView(image: image, camera: camera, T_C0_C1: TexturedScene.T_left_right)
        guard let profile = PhotometricDepthProbe().profile(pixel: Vec2(320, 240), image: image, camera: camera, view: view,
                                                            nearest_m: 0.5, farthest_m: 20),
              let best = profile.bestIndex else { Issue.record("no profile"); return }
        #expect(profile.hasRival(to: best, margin: 0.1, dip: 0.05))
    }
}
