import Imaging

/// Global photometric alignment of two images of one scene: a gain and offset that give the second
/// image the first one's mean and standard deviation. Cheap compensation for stereo cameras whose
/// exposures differ (KLT assumes equal brightness).
enum PhotometricAlignment {
    /// Mean and standard deviation of an image's intensities, from every `step`-th pixel.
    /// (A histogram of the sampled values, then integer sums: the same figures as summing the samples in `Double`,
    /// which is exact for integers this small, at a fraction of the cost.)
    static func statistics(_ image: GrayImage, step: Int = 3) -> (mean: Double, std: Double) {
        var histogram = [Int](repeating: 0, count: 256)
        histogram.withUnsafeMutableBufferPointer { h in
            image.pixels.withUnsafeBufferPointer { p in
                var i = 0
                while i < p.count { h[Int(p[i])] &+= 1; i += step }
            }
        }
        var count = 0, total = 0, total2 = 0
        for v in 0..<256 { let c = histogram[v]; count += c; total += c * v; total2 += c * v * v }
        let sum = Double(total), sum2 = Double(total2), n = Double(count)
        guard n > 0 else { return (0, 0) }
        let mean = sum / n
        return (mean, max(0, sum2 / n - mean * mean).squareRoot())
    }

    /// `image` mapped by the gain and offset that give it the mean and standard deviation of
    /// `reference` (values clamped to 0...255). Unchanged when either image is flat.
    static func align(_ image: GrayImage, to reference: GrayImage) -> GrayImage {
        let a = statistics(reference), b = statistics(image)
        guard a.std > 1, b.std > 1 else { return image }
        let gain = a.std / b.std, offset = a.mean - gain * b.mean
        if abs(gain - 1) < 0.02 && abs(offset) < 2 { return image }
        var table = [UInt8](repeating: 0, count: 256)
        for v in 0..<256 { table[v] = UInt8(max(0, min(255, (gain * Double(v) + offset).rounded()))) }
        let count = image.pixels.count
        let mapped = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            image.pixels.withUnsafeBufferPointer { p in
                table.withUnsafeBufferPointer { t in
                    for i in 0..<count { out[i] = t[Int(p[i])] }
                }
            }
            initialized = count
        }
        return GrayImage(width: image.width, height: image.height, pixels: mapped)
    }
}
