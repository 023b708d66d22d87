/// The order that sorts `count` items by 64-bit keys, ties in item order: `order[0]` is the item with the smallest key.
/// The same permutation as a stable comparison sort of the indices (`(0..<count).sorted { key($0) < key($1) }`), found
/// by a least-significant-digit radix sort (11-bit digits, passes whose digit all keys share skipped): a few passes
/// over the keys instead of n log n comparisons through a closure. The plane detector orders its tens of thousands of
/// landmarks this way several times per pass (by id, by height).
func radixOrder(count n: Int, key: (Int) -> UInt64) -> [Int] {
    guard n > 1 else { return Array(0..<n) }
    if n <= 1024 {
        // A comparison sort of (key, index) pairs: the same permutation, without the passes' fixed cost (their
        // digit counts are 96 KiB).
        return (0..<n).map { (key($0), $0) }.sorted { $0 < $1 }.map(\.1)
    }
    let bits = 11, buckets = 1 << bits, passes = (64 + bits - 1) / bits
    var keys = [UInt64](unsafeUninitializedCapacity: n) { b, c in for i in 0..<n { b[i] = key(i) }; c = n }
    var counts = [Int](repeating: 0, count: passes * buckets)
    keys.withUnsafeBufferPointer { k in
        counts.withUnsafeMutableBufferPointer { h in
            for x in k { for p in 0..<passes { h[p * buckets + Int((x >> UInt64(p * bits)) & UInt64(buckets - 1))] += 1 } }
        }
    }
    var order = Array(0..<n)
    var nextKeys = keys, nextOrder = order
    for p in 0..<passes {
        let shift = UInt64(p * bits)
        let base = p * buckets
        // A pass whose digit is the same for every key leaves the order as it is.
        if counts[base + Int((keys[0] >> shift) & UInt64(buckets - 1))] == n { continue }
        var start = 0
        for b in 0..<buckets { let c = counts[base + b]; counts[base + b] = start; start += c }
        keys.withUnsafeBufferPointer { k in
            order.withUnsafeBufferPointer { o in
                nextKeys.withUnsafeMutableBufferPointer { nk in
                    nextOrder.withUnsafeMutableBufferPointer { no in
                        counts.withUnsafeMutableBufferPointer { h in
                            for i in 0..<n {
                                let d = base + Int((k[i] >> shift) & UInt64(buckets - 1))
                                let at = h[d]
                                h[d] = at + 1
                                nk[at] = k[i]; no[at] = o[i]
                            }
                        }
                    }
                }
            }
        }
        swap(&keys, &nextKeys); swap(&order, &nextOrder)
    }
    return order
}

/// The order that sorts `keys` ascending, ties in index order: the permutation a stable sort of the indices by
/// `keys[$0] < keys[$1]` gives (−0 and +0 tie, as `<` has them). With a NaN among the keys (which `<` does not order)
/// it is that sort's order.
func radixOrder(_ keys: [Double]) -> [Int] {
    guard !keys.contains(where: { $0.isNaN }) else { return keys.indices.sorted { keys[$0] < keys[$1] } }
    return radixOrder(count: keys.count) { orderedBits(keys[$0]) }
}

/// The order that sorts `keys` ascending, ties in index order.
func radixOrder(_ keys: [Int]) -> [Int] {
    radixOrder(count: keys.count) { UInt64(bitPattern: Int64(keys[$0])) ^ (1 << 63) }
}

/// A Double's bits mapped so that unsigned order is numeric order (−0 taken as +0; not for NaN).
@inline(__always)
func orderedBits(_ x: Double) -> UInt64 {
    let b = (x == 0 ? 0.0 : x).bitPattern
    return b & (1 << 63) != 0 ? ~b : b | (1 << 63)
}
