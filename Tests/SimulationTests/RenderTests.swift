import Foundation
import Geometry
import Imaging
import Sensors
import Testing
import TestSupport
@testable import Simulation

/// A calibration-target world: a dark floor (20) and far walls (60), and a box centred at the origin,
/// 0.6 × 0.6 × 0.5 m, with a bright top (230) and sides as dark as the floor, so every top corner is a
/// clean two-edge corner (no third silhouette edge) in any view. Orbits circle the box top.
private func targetScene() throws -> Scene {
    var b = SceneBuilder()
    let ex = Vec3(1, 0, 0), ey = Vec3(0, 1, 0), ez = Vec3(0, 0, 1)
    try b.addRectangle(name: "floor", kind: .floor, center_W: .zero, normal_W: ez, axisU: ex, halfU: 6, axisV: ey, halfV: 6,
                       texture: .uniform(gray: 20))
    for (c, n, u) in [(Vec3(6, 0, 1.5), -ex, ey), (Vec3(-6, 0, 1.5), ex, ey), (Vec3(0, 6, 1.5), -ey, ex), (Vec3(0, -6, 1.5), ey, ex)] {
        try b.addRectangle(name: "wall", kind: .wall, center_W: c, normal_W: n, axisU: u, halfU: 6, axisV: ez, halfV: 1.5,
                           texture: .uniform(gray: 60))
    }
    try b.addBox(name: "box", min_W: Vec3(-0.3, -0.3, 0), max_W: Vec3(0.3, 0.3, 0.5), top: false, texture: .uniform(gray: 20))
    try b.addRectangle(name: "box.top", kind: .boxTop, center_W: Vec3(0, 0, 0.5), normal_W: ez, axisU: ex, halfU: 0.3,
                       axisV: ey, halfV: 0.3, texture: .uniform(gray: 230))
    return b.build(name: "target", walkArea: WalkArea(center: .zero, radii: Vec2(2, 2), eyeHeight: 1.5),
                   orbitTarget: OrbitTarget(center: Vec3(0, 0, 0.5), radius: 1.4, eyeHeight: 1.3))
}

@Test(arguments: [false, true])
func projectedBoxCornersMatchRenderedCorners(fisheye: Bool) throws {
    let scene = try targetScene()
    let rig = SimRig.euroc(fisheye: fisheye).scaled(width: 376, height: 240)
    let cam = rig.cameras[0]
    let traj = try AnalyticTrajectory.make(name: "orbit", scene: scene, options: TrajectoryOptions(startMoving: true), rig: rig)
    let synth = ImageSynthesizer(renderer: SceneRenderer(scene: scene, options: .fast), effects: .perfect, seed: 1)
    let map = BearingMap(model: cam.model)
    var errors: [Double] = []
    for t in [0.0, 2.5, 5.0, 7.5] {
        let img = synth.image(trajectory: traj, t: t, T_B_C: cam.T_B_C, map: map, frameIndex: 0, cameraIndex: 0)
        let T_C_W = (traj.pose(at: t) * cam.T_B_C).inverse
        let top = [Vec3(-0.3, -0.3, 0.5), Vec3(0.3, -0.3, 0.5), Vec3(0.3, 0.3, 0.5), Vec3(-0.3, 0.3, 0.5)]
        let uvs = try top.map { try #require(cam.model.project(T_C_W.act($0))) }
        for i in 0..<4 {
            let uv = uvs[i], prev = uvs[(i + 3) % 4], next = uvs[(i + 1) % 4]
            guard cam.model.contains(uv, margin: 20) else { continue }
            // The edges' directions come from the neighbouring corners; their positions are measured in the
            // image, starting from a guess 1.5 px off so the result cannot just echo the projection.
            let found = try #require(SimCornerFinder.intersectEdges(img, guess: uv + Vec2(1.2, -0.9), dirA: prev - uv, dirB: next - uv),
                                     "no corner near \(uv)")
            errors.append((found - uv).norm)
        }
    }
    #expect(errors.count >= 12, "too few corners in view: \(errors.count)")
    // Anti-aliased edges (16 rays per edge pixel) put a corner within ~0.1 px of its exact projection;
    // 0.5 px is the task's bound. A wrong extrinsic, intrinsic or distortion sign errs by pixels.
    for e in errors { #expect(e < 0.5, "corner off by \(e) px") }
    let mean = errors.reduce(0, +) / Double(errors.count)
    #expect(mean < 0.2, "mean corner error \(mean) px")
}

@Test func renderedSurfaceIdsAgreeWithRaycast() throws {
    let room = Scene.room()
    let rig = SimRig.euroc().scaled(width: 160, height: 120)
    let cam = rig.cameras[0]
    let traj = try AnalyticTrajectory.make(name: "handheld", scene: room, rig: rig)
    let renderer = SceneRenderer(scene: room, options: RenderOptions(metresPerTexel: 0.05, maxTextureSize: 64))
    let map = BearingMap(model: cam.model)
    for t in [1.0, 6.0, 11.0] {
        let T_W_C = traj.pose(at: t) * cam.T_B_C
        let ids = renderer.renderRadiance(map: map, T_W_C: T_W_C).surfaceIds
        var checked = 0
        for y in stride(from: 0, to: 120, by: 7) {
            for x in stride(from: 0, to: 160, by: 7) {
                let b = try #require(cam.model.bearing(Vec2(Double(x), Double(y))))
                let hit = room.raycast(origin_W: T_W_C.translation, direction_W: T_W_C.rotation.act(b))
                #expect(Int(ids[y * 160 + x]) == (hit?.surfaceId ?? -1), "pixel (\(x), \(y)) at t=\(t)")
                checked += 1
            }
        }
        #expect(checked > 300)
    }
}

@Test func renderingIsDeterministicAndSeeded() throws {
    let room = Scene.room()
    let rig = SimRig.euroc().scaled(width: 160, height: 120)
    let cam = rig.cameras[0]
    let traj = try AnalyticTrajectory.make(name: "orbit", scene: room, rig: rig)
    let opts = RenderOptions(metresPerTexel: 0.03, maxTextureSize: 128)
    let map = BearingMap(model: cam.model)
    func frame(_ seed: UInt64, renderer: SceneRenderer) -> GrayImage {
        ImageSynthesizer(renderer: renderer, seed: seed).image(trajectory: traj, t: 4.2, T_B_C: cam.T_B_C, map: map,
                                                               frameIndex: 84, cameraIndex: 0)
    }
    let a = frame(5, renderer: SceneRenderer(scene: room, options: opts))
    let b = frame(5, renderer: SceneRenderer(scene: room, options: opts))
    let c = frame(6, renderer: SceneRenderer(scene: room, options: opts))
    #expect(a == b)
    #expect(a != c)
    // Different seeds differ only by noise (σ = 2 gray levels): mean absolute difference ≈ 2.3.
    let mad = zip(a.pixels, c.pixels).map { abs(Double($0) - Double($1)) }.reduce(0, +) / Double(a.pixels.count)
    #expect(mad > 1 && mad < 4)
}

@Test func texturesGiveFastPlentyOfCorners() throws {
    let room = Scene.room()
    let rig = SimRig.euroc().scaled(width: 376, height: 240)
    let cam = rig.cameras[0]
    let traj = try AnalyticTrajectory.make(name: "handheld", scene: room, rig: rig)
    let synth = ImageSynthesizer(renderer: SceneRenderer(scene: room, options: RenderOptions(metresPerTexel: 0.008, maxTextureSize: 512)), seed: 1)
    let map = BearingMap(model: cam.model)
    for t in [0.0, 8.0] {
        let img = synth.image(trajectory: traj, t: t, T_B_C: cam.T_B_C, map: map, frameIndex: 0, cameraIndex: 0)
        let corners = try FeatureDetector.fast(img, threshold: 20)
        // A half-resolution EuRoC frame yields ~100–300 FAST corners; a flat or blurred texture gives < 30.
        #expect(corners.count > 80, "only \(corners.count) FAST corners at t=\(t)")
        // Spread: corners in at least 3 of the 4 image quadrants.
        let quadrants = Set(corners.map { ($0.x < 188 ? 0 : 1) + ($0.y < 120 ? 0 : 2) })
        #expect(quadrants.count >= 3)
    }
}

@Test func mipPyramidAveragesAndAvoidsAliasing() throws {
    let tex = ProceduralTexture.generate(seed: 3, size: 64, metresPerTexel: 0.01)
    let pyr = TexturePyramid(level0: tex, size: 64, metresPerTexel: 0.01)
    #expect(pyr.levels.count == 7)
    let mean = tex.map(Double.init).reduce(0, +) / Double(tex.count)
    // A footprint larger than the whole texture returns its mean (1×1 level), to float precision.
    #expect(abs(Double(pyr.sample(u: 0.123, v: 0.456, footprint: 10)) - mean) < 1e-3)
    // At a texel centre with a tiny footprint the sample is the texel itself.
    #expect(pyr.sample(u: 0.105, v: 0.205, footprint: 1e-4) == tex[20 * 64 + 10])
    // Wrap-around: one period away gives the same value.
    #expect(abs(pyr.sample(u: 0.105 + 0.64, v: 0.205 - 0.64, footprint: 0.003) - pyr.sample(u: 0.105, v: 0.205, footprint: 0.003)) < 1e-3)
    // Detail at many scales: the texture has strong contrast.
    #expect((tex.max() ?? 0) - (tex.min() ?? 0) > 150)
}
