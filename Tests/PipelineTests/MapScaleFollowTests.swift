import Foundation
import Sensors
import Testing
import TestSupport
@testable import Pipeline

/// The map's scale in a whole mono pipeline run (`MapScaleOptions`): the estimator's estimate moves off 1 as map
/// points are seen again, and the map reuse's points follow it (`MapReobserver.follow(scale:)`, called each frame).
@Suite("The map follows the map's scale (simulated room, whole pipeline, mono)")
struct MapScaleFollowTests {
    static func run(_ configure: (inout PipelineOptions) -> Void) throws -> (estimator: Double, map: Double?) {
        var options = PipelineOptions()
        configure(&options)
        let pipeline = try TrackingPipeline(dataset: try ASLDataset(path: try SimSequenceCache.roomHandheld(seconds: 20, seed: 5)),
                                            options: options)
        _ = try pipeline.run()
        return pipeline.mapScales
    }

    @Test("mono: the estimate leaves 1 and the map is at it (to one frame's updates); with the option off both stay 1")
    func theMapIsAtTheEstimatedScale() throws {
        let on = try Self.run { _ in }
        let map = try #require(on.map)
        print("map's scale after 20 s: estimator \(on.estimator), map \(map)")
        // The estimate moved (re-observed points told it something) …
        #expect(abs(on.estimator - 1) > 1e-5)
        // … and the map followed it: what is left is the last frame's own updates, far less than the whole move.
        #expect(abs(map - on.estimator) < 0.1 * abs(on.estimator - 1))
        // Control: with the option off nothing moves.
        let off = try Self.run { $0.estimator.state.mapScale.estimateMono = false }
        #expect(off.estimator == 1 && off.map == 1)
    }
}
