import Estimation
import Foundation
import Geometry
@testable import Pipeline
import Sensors
import Testing
import WorldMap

/// Revoking an accepted place (`RelocalizationOptions.revokesContradictedPlace`), on the repeating floor of
/// `RelocalizerFreeSpaceTests` without its table: the map holds region A's floor only (x ∈ [4, 8)), and region B
/// (x ∈ [0, 4)) looks exactly like it. A run that walks in B matches every feature to its twin in A; nothing there
/// contradicts the shifted place (floor on floor), so it is accepted once enough points were compared. Then the run
/// maps a box that stands only in B: at the shifted place the box lands in A, where the map's keyframes saw the floor
/// through it — and the place is revoked.
@Suite("Relocaliser: an accepted place that the run's own points contradict is revoked")
struct RelocalizerRevocationTests {
    typealias Scene = RelocalizerFreeSpaceTests
    static let period = Scene.period

    /// One period of the floor (x ∈ [0, 4), y ∈ [−1.5, 1.5)), denser than the table scene's: 600 points.
    static let floor: [Vec3] = {
        var random = SeededRandom(seed: 11)
        return (0..<600).map { _ in Vec3(Double(random.next() % 4000) / 1000, Double(random.next() % 3000) / 1000 - 1.5, 0) }
    }()
    /// The top of a 0.4 m box that stands in B only (x ∈ [1.2, 1.6], y ∈ [−0.2, 0.2]): a 5 × 5 grid.
    static let boxInB: [Vec3] = (0..<25).map { i in Vec3(1.2 + Double(i % 5) * 0.1, -0.2 + Double(i / 5) * 0.1, 0.4) }
    /// A's keyframes see its floor at x ≈ 4.7–6.7 (camera at x = 4.3, 1.3 m up, looking 50° down along +x): where the
    /// box lands at the shifted place.
    static func map() -> WorldMap {
        Scene.map(points: floor.map { $0 + Vec3(period, 0, 0) }, keyframes: [-0.3, 0, 0.3].map { Scene.camera(x: period + 0.3, y: $0) })
    }

    /// The free-space radius widened to 30 px (the revocation's too): the synthetic floor is far sparser than a real
    /// map's, and a point is compared only with two or more samples around its direction.
    static var options: RelocalizationOptions {
        var o = RelocalizationOptions()
        o.freeSpaceRadius_px = 30
        o.revocationRadius_px = 30
        return o
    }

    /// A relocaliser on `map()`, fed a walk (frame k → camera x, y; world = the map's frame) over `scene`, whose points
    /// are matched to their twins among the map's (index modulo the floor's count); stops at the acceptance.
    static func accept(scene: [Vec3], path: (Int) -> (x: Double, y: Double), frames: Int = 200,
                       options: RelocalizationOptions = options) -> (relocalizer: Relocalizer, found: Relocalization?) {
        let relocalizer = Relocalizer(map: map(), camera: Scene.camera, options: options, stereo: false)
        let T_W_Ws = Scene.T_Ws_W.inverse
        for k in 0..<frames {
            let at = path(k)
            let T_Ws_C = Scene.camera(x: at.x, y: at.y)
            let inView = scene.indices.compactMap { i in Scene.project(scene[i], T_Ws_C).map { (i, $0) } }
            let landmarks = inView.map { Landmark(id: $0.0, p_W: T_W_Ws.act(scene[$0.0]), std_m: 0.02) }
            if let found = relocalizer.consider(inView.map { (mapIndex: $0.0 % floor.count, normalized: $0.1) }, landmarks: landmarks,
                                                T_W_C: T_W_Ws * T_Ws_C, t_ns: TimestampNs(k) * 50_000_000) {
                return (relocalizer, found)
            }
        }
        return (relocalizer, nil)
    }

    /// The run's own points (ids from 10 000, σ 1 cm) at these places of the true world, in the run's frame.
    static func own(_ points: [Vec3]) -> [(id: Int, p_W: Vec3, std_m: Double)] {
        points.enumerated().map { (id: 10_000 + $0.offset, p_W: Scene.T_Ws_W.inverse.act($0.element), std_m: 0.01) }
    }

    /// A walk in B that zig-zags across it (x 0.2 → 1.8 m), seeing B's floor only.
    static func walkInB(_ k: Int) -> (x: Double, y: Double) { (0.2 + 0.008 * Double(k), 0.9 * sin(0.05 * Double(k))) }

    @Test("the shifted place, accepted on B's floor, is revoked once the run maps the box that stands only in B")
    func shiftedPlaceRevoked() throws {
        let (relocalizer, found) = Self.accept(scene: Self.floor, path: Self.walkInB)
        let accepted = try #require(found, "the shifted place was never accepted: the fixture does not show the failure")
        // Accepted one period off: the map's A shifted onto B.
        let shift = accepted.T_Ws_W.translation - Scene.T_Ws_W.translation
        #expect(abs(shift.norm - Self.period) < 0.05, "accepted at \(accepted.T_Ws_W.translation), shift \(shift)")

        // The run's floor in B agrees with A's (the texture repeats): nothing to revoke.
        #expect(relocalizer.watch(own: Self.own(Self.floor), t_ns: 20_000_000_000) == nil)
        #expect(relocalizer.result != nil)
        // The box in B lands in A at the shifted place, where the keyframes saw the floor through it.
        let revocation = try #require(relocalizer.watch(own: Self.own(Self.floor + Self.boxInB), t_ns: 21_000_000_000))
        #expect(revocation.contradicting >= 3)
        #expect(revocation.T_Ws_W == accepted.T_Ws_W)
        #expect(revocation.accepted_ns == accepted.t_ns)
        #expect(revocation.revoked_ns == 21_000_000_000)
        #expect(revocation.evidence == .seenThroughByKeyframes)
        #expect(revocation.reason == "a map keyframe saw through \(revocation.contradicting) of the \(revocation.compared) run points compared there")
        #expect(relocalizer.result == nil)
        #expect(relocalizer.revocations == [revocation])
    }

    /// A floor 4–8 m behind B (x ∈ [−8, −4)): at the shifted place it lands at x ∈ [−4, 0) of the map's frame, behind
    /// A's keyframes, where none of them looked.
    static let farFloor: [Vec3] = Self.floor.map { $0 - Vec3(2 * period, 0, 0) }
    /// `count` more such points, from id 50 000 on (the run keeps mapping where the map never looked).
    static func farther(_ count: Int) -> [(id: Int, p_W: Vec3, std_m: Double)] {
        (0..<count).map { i in (id: 50_000 + i, p_W: Scene.T_Ws_W.inverse.act(Vec3(-8 - 0.01 * Double(i), 0, 0)), std_m: 0.01) }
    }

    @Test("the shifted place is revoked when the run's first 500 points lie where no map keyframe looked")
    func shiftedPlaceOutsideMapViewsRevoked() throws {
        let (relocalizer, found) = Self.accept(scene: Self.floor, path: Self.walkInB)
        let accepted = try #require(found)
        #expect(abs((accepted.T_Ws_W.translation - Scene.T_Ws_W.translation).norm - Self.period) < 0.05)
        // 499 points: not yet tested.
        #expect(relocalizer.watch(own: Array(Self.own(Self.farFloor).prefix(499)), t_ns: 20_000_000_000) == nil)
        let revocation = try #require(relocalizer.watch(own: Self.own(Self.farFloor), t_ns: 21_000_000_000))
        #expect(revocation.evidence == .outsideMapViews)
        #expect(revocation.judged == 600 && revocation.compared == 0 && revocation.contradicting == 0)
        #expect(revocation.reason == "only 0 of the 600 run points judged there lay where a map keyframe looked")
        #expect(relocalizer.result == nil)
        #expect(relocalizer.revocations == [revocation])
    }

    @Test("control: the true place keeps its acceptance with its floor in the map's views, and is tested only once")
    func truePlaceWithinMapViewsKept() throws {
        let inA = Self.floor.map { $0 + Vec3(Self.period, 0, 0) }
        let (relocalizer, found) = Self.accept(scene: inA, path: Scene.zigZagAlongA)
        let accepted = try #require(found)
        // A's floor and the far floor: enough of them compared.
        #expect(relocalizer.watch(own: Self.own(inA + Self.farFloor), t_ns: 21_000_000_000) == nil)
        #expect(relocalizer.result == accepted)
        // 20 000 more where the map never looked, after the test (the run has left the mapped part): at most 600 of
        // the 21 200 judged are compared, under 6 %, and the place is kept because the share is tested only once.
        #expect(relocalizer.watch(own: Self.farther(20_000), t_ns: 22_000_000_000) == nil)
        #expect(relocalizer.result == accepted)
    }

    @Test("control: with the test off (minRevocationCoverage 0) the shifted place stays accepted")
    func coverageTestOff() throws {
        var off = Self.options
        off.minRevocationCoverage = 0
        let (relocalizer, found) = Self.accept(scene: Self.floor, path: Self.walkInB, options: off)
        _ = try #require(found)
        #expect(relocalizer.watch(own: Self.own(Self.farFloor), t_ns: 21_000_000_000) == nil)
        #expect(relocalizer.result != nil)
    }

    @Test("control: the option off, the box does not revoke the shifted place")
    func optionOff() throws {
        var off = Self.options
        off.revokesContradictedPlace = false
        let (relocalizer, found) = Self.accept(scene: Self.floor, path: Self.walkInB, options: off)
        _ = try #require(found)
        #expect(relocalizer.watch(own: Self.own(Self.floor + Self.boxInB), t_ns: 21_000_000_000) == nil)
        #expect(relocalizer.result != nil)
    }

    @Test("control: the true place, accepted in A, keeps its acceptance with the same points")
    func truePlaceKept() throws {
        let inA = Self.floor.map { $0 + Vec3(Self.period, 0, 0) }
        let (relocalizer, found) = Self.accept(scene: inA, path: Scene.zigZagAlongA)
        let accepted = try #require(found)
        #expect((accepted.T_Ws_W.translation - Scene.T_Ws_W.translation).norm < 0.01)
        // A's floor agrees; B's box stays in B, where no keyframe looked.
        #expect(relocalizer.watch(own: Self.own(inA + Self.floor + Self.boxInB), t_ns: 21_000_000_000) == nil)
        #expect(relocalizer.result == accepted)
    }
}
