import Testing
@testable import Imaging

@Suite struct ContrastTests {
    /// A low-contrast image: intensities 100...131 in a smooth pattern.
    static let dim: GrayImage = {
        let t = SyntheticImages.texture(width: 96, height: 64, seed: 4)
        return GrayImage(width: 96, height: 64, pixels: t.map { UInt8(max(100, min(131, 115.5 + ($0 - 128) / 3))) })
    }()

    static func standardDeviation(_ image: GrayImage) -> Double {
        let v = image.pixels.map(Double.init)
        let mean = v.reduce(0, +) / Double(v.count)
        return (v.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(v.count)).squareRoot()
    }

    @Test func equalisationStretchesAndPreservesOrder() throws {
        let out = try Contrast.equalizeHistogram(Self.dim)
        #expect(out.width == Self.dim.width && out.height == Self.dim.height)
        #expect(out.pixels.max() == 255)
        #expect(out.pixels.min()! < 20)
        // A global monotone mapping: brighter input never becomes darker output.
        var mapping = [Int: UInt8]()
        for (a, b) in zip(Self.dim.pixels, out.pixels) { #expect(mapping.updateValue(b, forKey: Int(a)) ?? b == b) }
        let keys = mapping.keys.sorted()
        #expect(zip(keys, keys.dropFirst()).allSatisfy { mapping[$0]! <= mapping[$1]! })
    }

    @Test func claheRaisesLocalContrast() throws {
        let out = try Contrast.clahe(Self.dim, clipLimit: 4, tilesX: 4, tilesY: 4)
        // A clip limit of 4 allows at least a few-fold stretch of a 31-level range.
        #expect(Self.standardDeviation(out) > 2 * Self.standardDeviation(Self.dim))
        let flat = try Contrast.clahe(GrayImage(width: 32, height: 32, fill: 77))
        #expect(Set(flat.pixels).count == 1)
        #expect(throws: ImagingError.self) { try Contrast.clahe(Self.dim, tilesX: 0) }
    }
}
