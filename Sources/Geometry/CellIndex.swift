/// A fixed set of items binned into integer 2-D grid cells, for neighbour searches: each occupied cell's items in
/// the order they were given. Built once, then read only.
///
/// The plane detector's neighbour searches and map reuse's descriptor search use it instead of a
/// `[SIMD2<Int>: [Int]]` dictionary, which cost a quarter of the detector's instructions in hashing. When the
/// occupied cells' bounding box is small against the item count (the usual case: grids sized from the points' own
/// spacing), the items are binned by a counting sort over that box and a cell is found by indexing a table;
/// otherwise the keys are sorted once and a cell is found by binary search. Both give the same cells and items in
/// the same order. Cells are whatever the caller bins by (metres or pixels over a cell size); the index has no unit.
public struct CellIndex: Sendable {
    /// The occupied cells, ascending by (x, y).
    public private(set) var cells: [SIMD2<Int>] = []
    /// `items[starts[c] ..< starts[c + 1]]` are cell `c`'s items.
    @usableFromInline var starts: [Int] = [0]
    @usableFromInline var items: [Int] = []
    /// Dense lookup table over the bounding box `origin ..< origin + (width, height)`, x-major: the number of the
    /// cell in `cells`, or −1 when empty; empty when the box was too large (binary search instead).
    @usableFromInline var table: [Int32] = []
    @usableFromInline var origin = SIMD2<Int>.zero
    @usableFromInline var width = 0, height = 0

    /// Largest dense table, in cells, for `n` items: a few times the items, so the table costs about as much as the
    /// items themselves.
    static func maxTableCells(items n: Int) -> Int { 8 * n + 1024 }

    /// Items `0 ..< keys.count`, item `i` in cell `keys[i]`.
    public init(_ keys: [SIMD2<Int>]) {
        guard let first = keys.first else { return }
        var lo = first, hi = first
        for k in keys { lo = pointwiseMin(lo, k); hi = pointwiseMax(hi, k) }
        let (w, o1) = hi.x.subtractingReportingOverflow(lo.x)
        let (h, o2) = hi.y.subtractingReportingOverflow(lo.y)
        let (area, o3) = (w &+ 1).multipliedReportingOverflow(by: h &+ 1)
        if !o1 && !o2 && !o3 && w < Int.max && h < Int.max && area <= Self.maxTableCells(items: keys.count) {
            buildDense(keys, origin: lo, width: w + 1, height: h + 1)
        } else {
            buildSorted(keys)
        }
    }

    /// Counting sort over the bounding box: slot `(x − origin.x) · height + (y − origin.y)`.
    private mutating func buildDense(_ keys: [SIMD2<Int>], origin: SIMD2<Int>, width: Int, height: Int) {
        self.origin = origin; self.width = width; self.height = height
        var counts = [Int](repeating: 0, count: width * height)
        for k in keys { counts[(k.x - origin.x) * height + (k.y - origin.y)] += 1 }
        table = [Int32](repeating: -1, count: width * height)
        starts = []
        var running = 0
        for slot in counts.indices where counts[slot] > 0 {
            table[slot] = Int32(cells.count)
            cells.append(SIMD2<Int>(origin.x + slot / height, origin.y + slot % height))
            starts.append(running)
            running += counts[slot]
        }
        starts.append(running)
        var next = starts
        items = [Int](repeating: 0, count: keys.count)
        for (i, k) in keys.enumerated() {
            let c = Int(table[(k.x - origin.x) * height + (k.y - origin.y)])
            items[next[c]] = i
            next[c] += 1
        }
    }

    /// The keys sorted once by (x, y, item).
    private mutating func buildSorted(_ keys: [SIMD2<Int>]) {
        let order = keys.indices.sorted { a, b in
            let ka = keys[a], kb = keys[b]
            return ka.x != kb.x ? ka.x < kb.x : (ka.y != kb.y ? ka.y < kb.y : a < b)
        }
        starts = []
        items.reserveCapacity(keys.count)
        for i in order {
            if cells.last != keys[i] { cells.append(keys[i]); starts.append(items.count) }
            items.append(i)
        }
        starts.append(items.count)
    }

    /// The index of `cell` among `cells`, or nil when it holds no item.
    @inlinable public func cellIndex(_ cell: SIMD2<Int>) -> Int? {
        if !table.isEmpty {
            let x = cell.x &- origin.x, y = cell.y &- origin.y
            guard x >= 0 && x < width && y >= 0 && y < height else { return nil }
            let c = Int(table[x * height + y])
            return c >= 0 ? c : nil
        }
        var lo = 0, hi = cells.count
        while lo < hi {
            let mid = (lo + hi) >> 1, c = cells[mid]
            if c.x < cell.x || (c.x == cell.x && c.y < cell.y) { lo = mid + 1 } else { hi = mid }
        }
        return lo < cells.count && cells[lo] == cell ? lo : nil
    }

    /// Where cell number `index`'s items sit in the item order (`item(at:)`): a range of positions.
    @inlinable public func span(ofCell index: Int) -> Range<Int> { starts[index] ..< starts[index + 1] }

    /// Where the items of `cell` sit in the item order (empty when none).
    @inlinable public func span(in cell: SIMD2<Int>) -> Range<Int> {
        guard let c = cellIndex(cell) else { return 0 ..< 0 }
        return span(ofCell: c)
    }

    /// The item at a position of the item order (cells ascending, each cell's items in the order given).
    @inlinable public func item(at position: Int) -> Int { items[position] }

    /// The items of cell number `index` (of `cells`), in the order they were given.
    @inlinable public func items(ofCell index: Int) -> ArraySlice<Int> { items[span(ofCell: index)] }

    /// The items in `cell`, in the order they were given (empty when none).
    @inlinable public func items(in cell: SIMD2<Int>) -> ArraySlice<Int> { items[span(in: cell)] }
}
