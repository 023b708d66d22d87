import Testing
import Foundation
import Geometry
@testable import Sensors

/// Tests of `CameraModel` (pinhole + radial-tangential / equidistant) with real calibrations:
/// EuRoC cam0 (radtan, 752×480) and TUM-VI cam0 (equidistant, 512×512).
struct CameraModelTests {
    static let euroc = CameraModel(
        width: 752, height: 480,
        intrinsics: PinholeIntrinsics(fx: 458.654, fy: 457.296, cx: 367.215, cy: 248.375),
        distortion: .radialTangential(k1: -0.28340811, k2: 0.07395907, p1: 0.00019359, p2: 1.76187114e-05))

    static let tumvi = CameraModel(
        width: 512, height: 512,
        intrinsics: PinholeIntrinsics(fx: 190.978, fy: 190.973, cx: 254.932, cy: 256.897),
        distortion: .equidistant(k1: 0.00348238, k2: 0.000715034, k3: -0.00205323, k4: 0.000202936))

    /// Round-trip tolerance, pixels: the inversion stops at a 1e-12 normalised residual (≈ 5e-10 px here), so
    /// 1e-6 px is met with margin and still catches a wrong Jacobian or early stop.
    static let roundTripTolerance_px = 1e-6

    /// Every pixel centre of a `width × height` image visited with `step`, plus the last row and column.
    static func pixelGrid(_ model: CameraModel, step: Int) -> [Vec2] {
        var xs = Array(stride(from: 0, to: model.width, by: step)), ys = Array(stride(from: 0, to: model.height, by: step))
        if xs.last != model.width - 1 { xs.append(model.width - 1) }
        if ys.last != model.height - 1 { ys.append(model.height - 1) }
        // Quarter-pixel offset on the interior points so sub-pixel positions are exercised too.
        return ys.flatMap { y in xs.map { x in
            Vec2(Double(x) + (x > 0 && x < model.width - 1 ? 0.25 : 0), Double(y) + (y > 0 && y < model.height - 1 ? 0.75 : 0))
        } }
    }

    // MARK: Known answers (computed by hand from the model equations)

    @Test func radtanKnownPoint() throws {
        // p_C = (0.1, 0, 1): r² = 0.01, radial = 1 + k1·0.01 + k2·0.0001 = 0.997173314807;
        // x_d = 0.1·radial + p2·(r² + 2x²) = 0.099717860042; y_d = p1·r² = 1.9359e-6;
        // u = fx·x_d + cx = 412.95099538, v = fy·y_d + cy = 248.37588528.
        let m = Self.euroc
        let u = try #require(m.project(Vec3(0.1, 0, 1)))
        #expect(abs(u.x - 412.95099538) < 1e-7) // 1e-7 px: the rounding of the hand-computed digits
        #expect(abs(u.y - 248.37588528) < 1e-7)
        // Projection is scale invariant along the ray.
        let u2 = try #require(m.project(Vec3(0.3, 0, 3)))
        #expect((u2 - u).norm < 1e-10)
        // The optical axis hits the principal point.
        let c = try #require(m.project(Vec3(0, 0, 2)))
        #expect((c - Vec2(367.215, 248.375)).norm < 1e-12)
    }

    @Test func equidistantKnownPoint() throws {
        // p_C = (1, 0, 1): θ = π/4, θ_d = θ(1 + k1θ² + k2θ⁴ + k3θ⁶ + k4θ⁸) = 0.78694354438;
        // u = fx·θ_d + cx = 405.22090422, v = cy.
        let m = Self.tumvi
        let u = try #require(m.project(Vec3(1, 0, 1)))
        #expect(abs(u.x - 405.22090422) < 1e-7)
        #expect(abs(u.y - 256.897) < 1e-12)
        let n = try #require(m.unproject(u))
        #expect(abs(n.x - 1) < 1e-9 && abs(n.y) < 1e-12)
    }

    @Test func pinholeKnownPoint() throws {
        let m = CameraModel(width: 640, height: 480, intrinsics: PinholeIntrinsics(fx: 500, fy: 400, cx: 320, cy: 240))
        let u = try #require(m.project(Vec3(1, -2, 4)))
        #expect(u == Vec2(500 * 0.25 + 320, 400 * -0.5 + 240))
        #expect(m.unproject(u) == Vec2(0.25, -0.5))
    }

    // MARK: Round trips over the whole image

    @Test func radtanRoundTripOverWholeImage() throws {
        let m = Self.euroc
        var worst = 0.0, count = 0
        for pixel in Self.pixelGrid(m, step: 2) {
            let n = try #require(m.unproject(pixel), "unproject failed at \(pixel)")
            let back = try #require(m.project(Vec3(n.x, n.y, 1)))
            worst = max(worst, (back - pixel).norm)
            count += 1
        }
        #expect(count > 90_000)
        #expect(worst < Self.roundTripTolerance_px, "worst round-trip error \(worst) px")
    }

    @Test func radtanProjectThenUnprojectRecoversTheRay() throws {
        // Points across the field of view (normalised coordinates up to the image corners, ~1.4 undistorted).
        let m = Self.euroc
        for x in stride(from: -1.3, through: 1.0, by: 0.05) {
            for y in stride(from: -0.9, through: 0.85, by: 0.05) {
                let depth = 2.5
                let u = try #require(m.project(Vec3(x * depth, y * depth, depth)))
                guard m.contains(u) else { continue }
                let n = try #require(m.unproject(u))
                // 1e-9 in normalised units ≈ 5e-7 px.
                #expect(abs(n.x - x) < 1e-9 && abs(n.y - y) < 1e-9)
            }
        }
    }

    @Test func equidistantRoundTripOverWholeImage() throws {
        let m = Self.tumvi
        guard case let .equidistant(k1, k2, k3, k4) = m.distortion else { return }
        // Pixels whose distorted angle reaches θ_d(π/2) look 90° or more off axis: no normalised coordinates exist
        // (`unproject` returns nil). The TUM-VI corners are there (~297 px radius vs ~362 px to the corners).
        let t = Double.pi / 2, t2 = t * t
        let thetaDMax = t * (1 + t2 * (k1 + t2 * (k2 + t2 * (k3 + t2 * k4))))
        var worst = 0.0, inside = 0, outside = 0
        for pixel in Self.pixelGrid(m, step: 2) {
            let xd = Vec2((pixel.x - m.intrinsics.cx) / m.intrinsics.fx, (pixel.y - m.intrinsics.cy) / m.intrinsics.fy)
            let thetaD = xd.norm
            if thetaD > thetaDMax - 1e-3 {
                // Beyond (or within 1e-3 rad of) 90°: must not produce a bogus in-front ray.
                if thetaD > thetaDMax { #expect(m.unproject(pixel) == nil, "pixel \(pixel) is beyond 90°") }
                outside += 1
                continue
            }
            let n = try #require(m.unproject(pixel), "unproject failed at \(pixel)")
            let back = try #require(m.project(Vec3(n.x, n.y, 1)))
            worst = max(worst, (back - pixel).norm)
            inside += 1
        }
        #expect(inside > 50_000 && outside > 1000)
        #expect(worst < Self.roundTripTolerance_px, "worst round-trip error \(worst) px")
    }

    @Test func bearingsAreUnitRaysThroughThePixel() throws {
        for m in [Self.euroc, Self.tumvi] {
            for pixel in [Vec2(60, 60), Vec2(300, 200), Vec2(Double(m.width - 1), Double(m.height / 2))] {
                let b = try #require(m.bearing(pixel))
                #expect(abs(b.norm - 1) < 1e-15)
                #expect(b.z > 0)
                let back = try #require(m.project(7 * b))
                #expect((back - pixel).norm < Self.roundTripTolerance_px)
            }
        }
    }

    // MARK: Behind the camera

    @Test func pointsBehindOrOnTheCameraPlaneDoNotProject() {
        for m in [Self.euroc, Self.tumvi] {
            #expect(m.project(Vec3(0, 0, -1)) == nil)
            #expect(m.project(Vec3(0.3, -0.2, -5)) == nil)
            #expect(m.project(Vec3(1, 1, 0)) == nil)
            #expect(m.project(Vec3(0, 0, 5e-4)) == nil) // closer than the 1 mm guard
            #expect(m.project(Vec3(0, 0, 2e-3)) != nil)
        }
    }

    @Test func containsRespectsBordersAndMargin() {
        let m = Self.euroc
        #expect(m.contains(Vec2(0, 0)))
        #expect(m.contains(Vec2(751, 479)))
        #expect(!m.contains(Vec2(751.5, 10)))
        #expect(!m.contains(Vec2(-0.1, 10)))
        #expect(!m.contains(Vec2(5, 5), margin: 10))
        #expect(m.contains(Vec2(10, 10), margin: 10))
    }
}
