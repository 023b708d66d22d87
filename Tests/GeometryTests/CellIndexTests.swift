import Geometry
import Testing

/// `CellIndex`, the plane detector's and map reuse's grid: the same cells and items, in the same order, as the
/// dictionary of arrays it replaced, and nothing for an empty cell.
@Suite struct CellIndexTests {
    /// Keys in a small box (the counting sort and the lookup table) and keys spread far apart (sorted keys and
    /// binary search) must index alike.
    @Test(arguments: [1, 1000]) func itemsComeBackPerCellInTheOrderGiven(spread: Int) {
        var rng = SeededRandom(seed: 7)
        let keys = (0..<500).map { _ in
            SIMD2<Int>(spread * Int(rng.uniform(-6, 6).rounded(.down)), Int(rng.uniform(-4, 9).rounded(.down)))
        }
        var reference: [SIMD2<Int>: [Int]] = [:]
        for (i, k) in keys.enumerated() { reference[k, default: []].append(i) }
        let index = CellIndex(keys)
        #expect(index.cells == reference.keys.sorted { ($0.x, $0.y) < ($1.x, $1.y) })
        for (k, items) in reference {
            #expect(Array(index.items(in: k)) == items)
            #expect(index.cellIndex(k).map { Array(index.items(ofCell: $0)) } == items)
        }
        for empty in [SIMD2<Int>(-7 * spread, 0), SIMD2<Int>(0, 9), SIMD2<Int>(100, -100), SIMD2<Int>(1, 0)]
            where reference[empty] == nil {
            #expect(index.items(in: empty).isEmpty && index.cellIndex(empty) == nil)
        }
        #expect(CellIndex([]).cells.isEmpty && CellIndex([]).items(in: .zero).isEmpty)
    }
}
