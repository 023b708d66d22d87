import Estimation
import Foundation
import Geometry
import Imaging
import Sensors
import Testing
import Vision
@testable import Pipeline

/// Map reuse's association: a new track at a mapped point's projection, with the same appearance, is matched
/// to it (once its gap has passed); a different appearance, a far projection or a recent point are not.
@Suite struct MapReobserverTests {
    let camera = CameraCalibration(name: "cam0",
                                   model: CameraModel(width: 320, height: 240, intrinsics: PinholeIntrinsics(fx: 300, fy: 300, cx: 160, cy: 120)),
                                   rate_hz: 20, T_B_C: SE3())
    /// Camera 0 at the world origin looking along +z.
    let T_W_C = SE3()

    /// Random values on an 8-px lattice, bilinearly interpolated: smooth, textured everywhere, every 31-px patch
    /// different.
    static func texture(seed: UInt64) -> GrayImage {
        var rng = SeededRandom(seed: seed)
        let w = 320, h = 240, step = 8, gw = w / step + 2
        var lattice = [Double](repeating: 0, count: gw * (h / step + 2))
        for i in lattice.indices { lattice[i] = rng.uniform(0, 255) }
        var px = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let gx = x / step, gy = y / step
                let fx = Double(x % step) / Double(step), fy = Double(y % step) / Double(step)
                let top = lattice[gy * gw + gx] * (1 - fx) + lattice[gy * gw + gx + 1] * fx
                let bottom = lattice[(gy + 1) * gw + gx] * (1 - fx) + lattice[(gy + 1) * gw + gx + 1] * fx
                px[y * w + x] = UInt8((top * (1 - fy) + bottom * fy).rounded())
            }
        }
        return GrayImage(width: w, height: h, pixels: px)
    }

    /// Features at a 5 × 4 grid of pixels, ids from `firstId`, `age` frames old.
    func features(firstId: Int, age: Int, shift: Vec2 = .zero) -> [TrackedFeature] {
        var out: [TrackedFeature] = []
        for j in 0..<4 {
            for i in 0..<5 {
                let px = Vec2(60 + 50 * Double(i), 50 + 45 * Double(j)) + shift
                let n = camera.model.intrinsics
                out.append(TrackedFeature(id: firstId + out.count, pixel: px,
                                          normalized: Vec2((px.x - n.cx) / n.fx, (px.y - n.cy) / n.fy), age: age))
            }
        }
        return out
    }

    /// Landmarks at 2 m depth behind the features' pixels.
    func landmarks(for f: [TrackedFeature]) -> [Landmark] {
        f.map { Landmark(id: $0.id, p_W: T_W_C.act(Vec3($0.normalized.x, $0.normalized.y, 1) * 2), std_m: 0.005) }
    }

    /// A reobserver that mapped the grid's points (tracks 0…19 on `image`) at t = 0 (after its warm-up).
    func mapped(image: GrayImage) throws -> MapReobserver {
        var options = MapReuseOptions()
        options.warmup_ns = 0
        let r = MapReobserver(camera: camera, options: options, stereo: false)
        let first = features(firstId: 0, age: 1)
        try r.describeNewTracks(first, image: image, t_ns: 0)
        r.add(landmarks(for: first), t_ns: 0)
        #expect(r.pointCount == first.count)
        return r
    }

    @Test("new tracks on the same spots of the same image, 3 s later, re-observe the mapped points")
    func sameAppearanceMatches() throws {
        let image = Self.texture(seed: 1)
        let r = try mapped(image: image)
        let again = features(firstId: 100, age: 1, shift: Vec2(0.5, -0.5))   // re-detected half a pixel off
        let t: TimestampNs = 3_000_000_000
        try r.describeNewTracks(again, image: image, t_ns: t)
        let obs = r.observations(again, T_W_C: T_W_C, t_ns: t)
        #expect(obs.count >= again.count * 8 / 10)
        // Each re-observation pairs the track with the point mapped at that spot (ids 100 + k ↔ k).
        for o in obs {
            let track = try #require(again.first { $0.normalized == o.normalized })
            #expect(o.mapId == track.id - 100)
        }
    }

    @Test("the map follows the estimator's map scale: its points and their σ scale about W's origin, once per change")
    func theMapFollowsTheMapScale() throws {
        let image = Self.texture(seed: 1)
        let r = try mapped(image: image)
        let before = r.mapPoints
        r.follow(scale: 1.02)
        r.follow(scale: 1.02)   // unchanged: nothing moves again
        r.follow(scale: 0.99)
        #expect(r.scale == 0.99)
        for (a, b) in zip(r.mapPoints, before) {
            #expect((a.p_W - 0.99 * b.p_W).norm < 1e-12)
            #expect(abs(a.std_m - 0.99 * b.std_m) < 1e-15)
        }
        // Seen again from the origin the scaled points still project onto the same pixels, and are matched.
        let again = features(firstId: 100, age: 1)
        let t: TimestampNs = 3_000_000_000
        try r.describeNewTracks(again, image: image, t_ns: t)
        let obs = r.observations(again, T_W_C: T_W_C, t_ns: t)
        #expect(obs.count >= again.count * 8 / 10)
        #expect(obs.allSatisfy { o in abs(o.p_W.z - 0.99 * 2) < 1e-9 })
    }

    @Test("removed points (a revoked place's loaded map) are no longer matched; the others still are")
    func removedPointsAreNotMatched() throws {
        let image = Self.texture(seed: 1)
        let r = try mapped(image: image)
        r.remove(where: { $0 >= 10 })
        #expect(r.pointCount == 10)
        #expect(r.mapPoints.map(\.id) == Array(0..<10))
        let again = features(firstId: 100, age: 1)
        let t: TimestampNs = 3_000_000_000
        try r.describeNewTracks(again, image: image, t_ns: t)
        let obs = r.observations(again, T_W_C: T_W_C, t_ns: t)
        #expect(obs.count >= 8)
        #expect(obs.allSatisfy { $0.mapId < 10 })
    }

    @Test("a matched track is offered again every 0.5 s; a match the estimator rejects is dropped")
    func reapplyCadenceAndRejection() throws {
        let image = Self.texture(seed: 1)
        let r = try mapped(image: image)
        let again = features(firstId: 100, age: 1)
        var t: TimestampNs = 3_000_000_000
        try r.describeNewTracks(again, image: image, t_ns: t)
        let first = r.observations(again, T_W_C: T_W_C, t_ns: t)
        #expect(first.count >= again.count * 8 / 10)
        var accepted = MapUpdateResult()
        accepted.acceptedIds = first.map(\.mapId); accepted.accepted = first.count
        r.applied(accepted, offered: first, t_ns: t)
        // The same tracks, 0.2 s later: nothing (already applied); 0.5 s after the match: all again.
        let older = again.map { f -> TrackedFeature in var g = f; g.age = 5; return g }
        t += 200_000_000
        #expect(r.observations(older, T_W_C: T_W_C, t_ns: t).isEmpty)
        t += 300_000_000
        let second = r.observations(older, T_W_C: T_W_C, t_ns: t)
        #expect(Set(second.map(\.mapId)) == Set(first.map(\.mapId)))
        // The estimator rejects them all: the matches are dropped, and the points (last seen at 3 s) are not
        // matched again before the gap (mono's 1 s) has passed, by these tracks or others.
        r.applied(MapUpdateResult(), offered: second, t_ns: t)
        #expect(r.minGap_ns == 1_000_000_000)
        t = 3_000_000_000 + r.minGap_ns - 1
        #expect(r.observations(older, T_W_C: T_W_C, t_ns: t).isEmpty)
        t = 3_000_000_000 + r.minGap_ns
        #expect(r.observations(older, T_W_C: T_W_C, t_ns: t).count == first.count)
    }

    @Test("the re-observation gap: mono matches a point again 1 s after it was last seen, stereo only after 2 s")
    func monoAndStereoGaps() throws {
        let image = Self.texture(seed: 1)
        func matches(stereo: Bool, at t: TimestampNs) throws -> Int {
            var options = MapReuseOptions()
            options.warmup_ns = 0
            let r = MapReobserver(camera: camera, options: options, stereo: stereo)
            let first = features(firstId: 0, age: 1)
            try r.describeNewTracks(first, image: image, t_ns: 0)
            r.add(landmarks(for: first), t_ns: 0)
            let again = features(firstId: 100, age: 1)
            try r.describeNewTracks(again, image: image, t_ns: t)
            return r.observations(again, T_W_C: T_W_C, t_ns: t).count
        }
        let all = features(firstId: 0, age: 1).count
        #expect(try matches(stereo: false, at: 999_999_999) == 0)
        #expect(try matches(stereo: false, at: 1_000_000_000) >= all * 8 / 10)
        #expect(try matches(stereo: true, at: 1_500_000_000) == 0)
        #expect(try matches(stereo: true, at: 2_000_000_000) >= all * 8 / 10)
    }

    @Test("point σ bound: stereo keeps ≤ 3 cm; mono keeps up to 6 cm, the looser ones only after the loose warm-up")
    func pointStdBound() throws {
        let image = Self.texture(seed: 7)
        var options = MapReuseOptions()
        options.warmup_ns = 0
        options.maxPointStdMono_m = 0.06
        let first = features(firstId: 0, age: 1)
        // 9 points at σ 2 cm, 10 at 5 cm (looser than stereo's bound, inside mono's) and one at 8 cm.
        func graded() -> [Landmark] {
            self.landmarks(for: first).enumerated().map { k, l in
                Landmark(id: l.id, p_W: l.p_W, std_m: k == 0 ? 0.08 : k % 2 == 0 ? 0.02 : 0.05)
            }
        }
        func mappedCount(stereo: Bool, at t_ns: TimestampNs) throws -> Int {
            let r = MapReobserver(camera: camera, options: options, stereo: stereo)
            try r.describeNewTracks(first, image: image, t_ns: 0)
            r.add([], t_ns: 0)   // tracking normal from t = 0
            r.add(graded(), t_ns: t_ns)
            return r.pointCount
        }
        let tight = graded().filter { $0.std_m <= 0.03 }.count, mono = graded().filter { $0.std_m <= 0.06 }.count
        #expect(tight == 9 && mono == 19)
        #expect(try mappedCount(stereo: true, at: 20_000_000_000) == tight)
        #expect(try mappedCount(stereo: false, at: options.looseWarmup_ns - 1) == tight)
        #expect(try mappedCount(stereo: false, at: options.looseWarmup_ns) == mono)
    }

    @Test("a point seen within the gap, another image, or a far projection gives no re-observation")
    func noMatchWithoutGapAppearanceOrProximity() throws {
        let image = Self.texture(seed: 1)
        // Too soon: the sliding window still has these points.
        do {
            let r = try mapped(image: image)
            let again = features(firstId: 100, age: 1)
            try r.describeNewTracks(again, image: image, t_ns: 500_000_000)
            #expect(r.observations(again, T_W_C: T_W_C, t_ns: 500_000_000).isEmpty)
        }
        // Other appearance: a different texture at the same spots.
        do {
            let r = try mapped(image: image)
            let other = Self.texture(seed: 2)
            let again = features(firstId: 100, age: 1)
            try r.describeNewTracks(again, image: other, t_ns: 3_000_000_000)
            #expect(r.observations(again, T_W_C: T_W_C, t_ns: 3_000_000_000).isEmpty)
        }
        // Same appearance and spots, but the pose says the points project 25 px away (beyond the 12 px radius).
        do {
            let r = try mapped(image: image)
            let again = features(firstId: 100, age: 1)
            try r.describeNewTracks(again, image: image, t_ns: 3_000_000_000)
            let turned = SE3(rotation: SO3(angle: atan(25.0 / 300), axis: Vec3(0, 1, 0)), translation: .zero)
            #expect(r.observations(again, T_W_C: turned, t_ns: 3_000_000_000).isEmpty)
            #expect(!r.observations(again, T_W_C: T_W_C, t_ns: 3_000_000_000).isEmpty)
        }
    }
}
