/// A fixed set of items binned into integer 2-D grid cells, for neighbour searches: each occupied cell's items in
/// the order they were given. Built once, then read only.
///
/// The plane detector's neighbour searches use it instead of a `[SIMD2<Int>: [Int]]` dictionary: the cells are
/// sorted once and a lookup is a binary search over them, which costs a fraction of hashing a key with the standard
/// library's `Hasher` and needs no array per cell (the dictionaries were a quarter of the detector's instructions).
struct CellIndex {
    /// The occupied cells, ascending by (x, y).
    private(set) var cells: [SIMD2<Int>] = []
    /// `items[starts[c] ..< starts[c + 1]]` are cell `c`'s items.
    private var starts: [Int] = []
    private var items: [Int] = []

    /// Items `0 ..< keys.count`, item `i` in cell `keys[i]`.
    init(_ keys: [SIMD2<Int>]) {
        let order = keys.indices.sorted { a, b in
            let ka = keys[a], kb = keys[b]
            return ka.x != kb.x ? ka.x < kb.x : (ka.y != kb.y ? ka.y < kb.y : a < b)
        }
        items.reserveCapacity(keys.count)
        for i in order {
            if cells.last != keys[i] { cells.append(keys[i]); starts.append(items.count) }
            items.append(i)
        }
        starts.append(items.count)
    }

    /// The index of `cell` among `cells`, or nil when it holds no item.
    func cellIndex(_ cell: SIMD2<Int>) -> Int? {
        var lo = 0, hi = cells.count
        while lo < hi {
            let mid = (lo + hi) >> 1, c = cells[mid]
            if c.x < cell.x || (c.x == cell.x && c.y < cell.y) { lo = mid + 1 } else { hi = mid }
        }
        return lo < cells.count && cells[lo] == cell ? lo : nil
    }

    /// The items of cell number `index` (of `cells`), in the order they were given.
    func items(ofCell index: Int) -> ArraySlice<Int> { items[starts[index] ..< starts[index + 1]] }

    /// The items in `cell`, in the order they were given (empty when none).
    func items(in cell: SIMD2<Int>) -> ArraySlice<Int> {
        guard let c = cellIndex(cell) else { return [] }
        return items(ofCell: c)
    }
}
