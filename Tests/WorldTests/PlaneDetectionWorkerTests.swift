import Foundation
import Testing
@testable import World

/// Plane detection on a worker thread (`WorldOptions.detectionDelayFrames`): same planes as on the calling thread,
/// applied a fixed number of frames later, the same events on every run.
@Suite struct PlaneDetectionWorkerTests {
    static func delayedSession(_ frames: Int) -> WorldSession {
        var options = WorldOptions()
        options.detectionDelayFrames = frames
        return WorldSession(options: options)
    }

    @Test(arguments: [2, 6])
    func workerPlanesArriveExactlyTheDelayLaterAndMatchTheSynchronousOnes(delay: Int) throws {
        // Detection is due every 2 frames (100 ms at 20 Hz): with a delay of 6 frames three detections queue.
        let (sync, syncFrames) = runRoom(frames: 40)
        let (delayed, delayedFrames) = runRoom(frames: 40, session: Self.delayedSession(delay))
        func firstAdded(_ frames: [WorldFrame]) -> Int? { frames.firstIndex { $0.events.contains { $0.change == .added } } }
        let s = try #require(firstAdded(syncFrames)), d = try #require(firstAdded(delayedFrames))
        #expect(d == s + delay)
        // The first detection saw the same landmarks: the same planes are added, in the same order.
        let syncAdded = syncFrames[s].events.filter { $0.change == .added }.map(\.anchor.id)
        let delayedAdded = delayedFrames[d].events.filter { $0.change == .added }.map(\.anchor.id)
        #expect(!syncAdded.isEmpty && syncAdded == delayedAdded)
        // Queued detections keep the cadence: one applied every 2 frames, as the synchronous session detects.
        #expect(delayedFrames.filter { !$0.events.isEmpty }.count >= syncFrames.filter { !$0.events.isEmpty }.count - delay / 2 - 1)
        // At the end both hold the room's floor, table and two walls, at the same heights and offsets (1 cm).
        func summary(_ w: WorldSession) -> [String] {
            w.planes.map { "\($0.classification.rawValue) \($0.alignment)" }.sorted()
        }
        #expect(summary(delayed) == summary(sync))
        #expect(delayed.planes.count == 4)
        for p in delayed.planes {
            let q = try #require(sync.planes.first { $0.classification == p.classification && $0.normal_W.dot(p.normal_W) > 0.99 })
            #expect(abs(p.normal_W.dot(p.T_W_P.translation) - q.normal_W.dot(q.T_W_P.translation)) < 0.01)
        }
    }

    @Test(arguments: [1, 4])
    func delayedDetectionGivesTheSameEventsOnEveryRun(delay: Int) {
        let runs = (0..<3).map { _ in runRoom(frames: 40, session: Self.delayedSession(delay)).1.flatMap(\.events) }
        #expect(!runs[0].isEmpty)
        #expect(runs[1] == runs[0] && runs[2] == runs[0])
    }

    @Test func resetDropsADetectionInFlight() {
        var gen = RoomLandmarks(seed: 3)
        let session = Self.delayedSession(3)
        for i in 0..<2 { _ = session.process(frameInput(i, landmarks: gen.batch(floor: 40, table: 10, wall: 15))) }
        session.reset(t_ns: frameInput(2, landmarks: []).t_ns)
        // The detection started before the reset must not bring its planes back into the empty world.
        var events: [AnchorEvent] = []
        for i in 3..<5 { events += session.process(frameInput(i, landmarks: [])).events }
        #expect(events.isEmpty)
        #expect(session.planes.isEmpty)
    }
}
