import Testing
@testable import Imaging

@Suite struct FeatureDetectorTests {
    // Integer-pixel detections: 1 px catches a detection on the wrong pixel or the wrong corner
    // (the squares' corners are 12 px apart) while allowing the pixel grid.
    let tolerance: Float = 1.0

    @Test func fastFindsSquareCorners() throws {
        let (image, corners) = SyntheticImages.squareGridPixelCorners()
        let found = try FeatureDetector.fast(image, threshold: 40)
        #expect(found.count >= corners.count)
        for c in corners { #expect(SyntheticImages.nearestDistance(c, found.map(\.position)) <= tolerance, "missed \(c)") }
        for f in found { #expect(SyntheticImages.nearestDistance(f.position, corners) <= tolerance, "spurious \(f)") }
        // Strongest first.
        #expect(zip(found, found.dropFirst()).allSatisfy { $0.response >= $1.response })
    }

    @Test func fastMaxCountKeepsStrongest() throws {
        let image = SyntheticImages.quantise(SyntheticImages.texture(width: 120, height: 90, seed: 5), width: 120, height: 90)
        let all = try FeatureDetector.fast(image, threshold: 10)
        let top = try FeatureDetector.fast(image, threshold: 10, maxCount: 10)
        #expect(all.count > 10)
        #expect(top == Array(all.prefix(10)))
    }

    @Test func fastRespectsMask() throws {
        let (image, _) = SyntheticImages.squareGrid()
        var mask = GrayImage(width: image.width, height: image.height, fill: 0)
        for y in 0..<image.height { for x in 80..<image.width { mask[x, y] = 255 } }
        let all = try FeatureDetector.fast(image, threshold: 40)
        let masked = try FeatureDetector.fast(image, threshold: 40, mask: mask)
        #expect(!masked.isEmpty)
        #expect(masked.allSatisfy { $0.x >= 80 })
        // The mask only filters: the kept set is exactly the unmasked detections on the right.
        #expect(masked == all.filter { $0.x >= 80 })
    }

    @Test func flatImageHasNoCorners() throws {
        #expect(try FeatureDetector.fast(GrayImage(width: 64, height: 64, fill: 100)).isEmpty)
        #expect(try FeatureDetector.shiTomasi(GrayImage(width: 64, height: 64, fill: 100), maxCorners: 10).isEmpty)
    }

    @Test func shiTomasiFindsSquareCorners() throws {
        let (image, pixelCorners) = SyntheticImages.squareGridPixelCorners()
        let found = try FeatureDetector.shiTomasi(image, maxCorners: 100, qualityLevel: 0.1, minDistance: 5)
        #expect(found.count == pixelCorners.count)
        for c in pixelCorners { #expect(SyntheticImages.nearestDistance(c, found.map(\.position)) <= tolerance) }
        for f in found { #expect(SyntheticImages.nearestDistance(f.position, pixelCorners) <= tolerance) }
        #expect(zip(found, found.dropFirst()).allSatisfy { $0.response >= $1.response })
    }

    @Test func shiTomasiSubPixelFindsGeometricCorners() throws {
        let (image, corners) = SyntheticImages.squareGrid()
        let found = try FeatureDetector.shiTomasi(image, maxCorners: 100, qualityLevel: 0.1, minDistance: 5,
                                                  subPixel: true)
        #expect(found.count == corners.count)
        // Refined corners of a blurred 90-degree corner sit about 0.3 px inside the geometric
        // corner (Euclidean); 0.5 px still rejects an unrefined (>= 0.71 px) position.
        for c in corners { #expect(SyntheticImages.nearestDistance(c, found.map(\.position)) <= 0.5) }
        for f in found { #expect(SyntheticImages.nearestDistance(f.position, corners) <= 0.5) }
    }

    @Test func shiTomasiRespectsMaskAndLimit() throws {
        let (image, corners) = SyntheticImages.squareGridPixelCorners()
        var mask = GrayImage(width: image.width, height: image.height, fill: 0)
        for y in 0..<60 { for x in 0..<image.width { mask[x, y] = 1 } }
        let masked = try FeatureDetector.shiTomasi(image, maxCorners: 100, qualityLevel: 0.1, minDistance: 5, mask: mask)
        #expect(masked.count == corners.filter { $0.y < 60 }.count)
        #expect(masked.allSatisfy { $0.y < 60 })
        let limited = try FeatureDetector.shiTomasi(image, maxCorners: 5, qualityLevel: 0.1, minDistance: 5)
        #expect(limited.count == 5)
    }

    @Test func mismatchedMaskThrows() {
        let (image, _) = SyntheticImages.squareGrid()
        #expect(throws: ImagingError.self) {
            try FeatureDetector.fast(image, mask: GrayImage(width: 10, height: 10))
        }
        #expect(throws: ImagingError.self) { try FeatureDetector.fast(image, threshold: 300) }
        #expect(throws: ImagingError.self) { try FeatureDetector.shiTomasi(image, maxCorners: 5, qualityLevel: 0) }
    }

    @Test(.enabled(if: TestData.eurocFramesArePresent, "needs ../shared/datasets/euroc-v101-micro"))
    func fastOnEuRoCFrame() throws {
        let frames = try #require(TestData.eurocCam0Frames())
        let image = try ImageCodec.decodeGray(contentsOf: frames[0])
        let corners = try FeatureDetector.fast(image, threshold: 20)
        #expect(corners.count > 100)
        #expect(corners.allSatisfy { $0.x >= 0 && $0.y >= 0 && $0.x < 752 && $0.y < 480 })
    }
}
