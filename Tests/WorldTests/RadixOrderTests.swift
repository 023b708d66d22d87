import Foundation
import Geometry
import Testing
@testable import World

/// `radixOrder` against the stable comparison sort it replaces: the same permutation, ties in index order.
@Suite struct RadixOrderTests {
    static func stableOrder<T: Comparable>(_ keys: [T]) -> [Int] {
        // Indices sorted by (key, index): the permutation a stable sort gives, whatever the sort.
        keys.indices.sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }
    }

    @Test func doubleKeysGiveTheStableSortsOrder() {
        var rng = SeededRandom(seed: 21)
        // Sizes on both sides of the comparison-sort threshold (1024) and of the digit passes.
        for n in [0, 1, 2, 3, 31, 1024, 1025, 5000] {
            let continuous = (0..<n).map { _ in rng.uniform(-3, 3) }
            // Many ties, both zeros (which `<` ties), infinities and the extremes of the range.
            let awkward = (0..<n).map { i -> Double in
                switch i % 7 {
                case 0: return 0.0
                case 1: return -0.0
                case 2: return Double(Int(rng.uniform(-3, 3))) * 0.5
                case 3: return i % 2 == 0 ? .infinity : -.infinity
                case 4: return i % 2 == 0 ? .greatestFiniteMagnitude : -.leastNonzeroMagnitude
                default: return rng.uniform(-1e-3, 1e-3)
                }
            }
            let ascending = (0..<n).map { Double($0) }
            for keys in [continuous, awkward, ascending, ascending.reversed()] {
                #expect(radixOrder(keys) == Self.stableOrder(keys), "n = \(n)")
            }
        }
    }

    @Test func intKeysGiveTheStableSortsOrder() {
        var rng = SeededRandom(seed: 22)
        for n in [2, 1000, 3000] {
            let keys = (0..<n).map { i in i % 5 == 0 ? Int.min + i : (i % 5 == 1 ? Int.max - i : Int(rng.uniform(-50, 50))) }
            #expect(radixOrder(keys) == Self.stableOrder(keys), "n = \(n)")
        }
    }

    /// With a NaN among the keys the order is the comparison sort's, as before there was a radix sort.
    @Test func aNaNKeyFallsBackToTheComparisonSort() {
        let keys = (0..<2000).map { $0 == 700 ? Double.nan : Double(($0 * 7919) % 2000) }
        #expect(radixOrder(keys) == keys.indices.sorted { keys[$0] < keys[$1] })
    }
}
