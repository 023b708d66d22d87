/// Summary statistics of a list of non-negative errors (metres, degrees or percent, as the caller says).
public struct ErrorStatistics: Equatable, Sendable, Codable {
    /// Number of values.
    public var count: Int
    /// Root mean square.
    public var rmse: Double
    /// Arithmetic mean.
    public var mean: Double
    /// Median (mean of the two middle values for an even count).
    public var median: Double
    /// Smallest and largest value.
    public var min: Double, max: Double
    /// Population standard deviation (divides by `count`, as evo does).
    public var std: Double

    /// Statistics of `values`; all zero for an empty list.
    public init(_ values: [Double]) {
        count = values.count
        guard !values.isEmpty else { rmse = 0; mean = 0; median = 0; min = 0; max = 0; std = 0; return }
        let n = Double(values.count)
        let sorted = values.sorted()
        mean = values.reduce(0, +) / n
        rmse = (values.reduce(0) { $0 + $1 * $1 } / n).squareRoot()
        let mid = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid])
        min = sorted[0]; max = sorted[sorted.count - 1]
        let m = mean
        std = (values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / n).squareRoot()
    }
}
