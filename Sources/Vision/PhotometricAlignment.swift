import Imaging

/// Global photometric alignment of two images of one scene: a gain and offset that give the second
/// image the first one's mean and standard deviation. Cheap compensation for stereo cameras whose
/// exposures differ (KLT assumes equal brightness).
enum PhotometricAlignment {
    /// Mean and standard deviation of an image's intensities, from every `step`-th pixel.
    static func statistics(_ image: GrayImage, step: Int = 3) -> (mean: Double, std: Double) {
        var sum = 0.0, sum2 = 0.0, n = 0.0
        image.pixels.withUnsafeBufferPointer { p in
            var i = 0
            while i < p.count {
                let v = Double(p[i]); sum += v; sum2 += v * v; n += 1
                i += step
            }
        }
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
        var out = image
        out.pixels.withUnsafeMutableBufferPointer { p in
            table.withUnsafeBufferPointer { t in
                for i in 0..<p.count { p[i] = t[Int(p[i])] }
            }
        }
        return out
    }
}
