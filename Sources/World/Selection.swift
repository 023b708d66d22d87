/// Rearranges `b` so that `b[k]` is the k-th smallest (0-based), everything before it ≤ and after it ≥; returns it.
/// Quickselect with a median-of-three pivot and a three-way partition: O(n) on average, where a sort is O(n log n).
/// `b` must be totally ordered by `<` (no NaN among Doubles).
func selectKth<T: Comparable>(_ b: UnsafeMutableBufferPointer<T>, _ k: Int) -> T {
    precondition(b.indices.contains(k))
    var lo = 0, hi = b.count - 1
    while lo < hi {
        let mid = lo + (hi - lo) / 2
        let x = b[lo], y = b[mid], z = b[hi]
        let pivot = max(min(x, y), min(max(x, y), z))
        // Dutch-flag partition of b[lo...hi]: < pivot, == pivot, > pivot.
        var lt = lo, i = lo, gt = hi
        while i <= gt {
            if b[i] < pivot { b.swapAt(lt, i); lt += 1; i += 1 }
            else if b[i] > pivot { b.swapAt(i, gt); gt -= 1 }
            else { i += 1 }
        }
        if k < lt { hi = lt - 1 } else if k > gt { lo = gt + 1 } else { return b[k] }
    }
    return b[k]
}
