import Testing
@testable import Imaging

@Suite struct ORBDescriptorTests {
    static let size = 128
    static let image = SyntheticImages.quantise(SyntheticImages.texture(width: size, height: size, seed: 21, sigma: 1.2),
                                                width: size, height: size)
    static let points: [SIMD2<Float>] = [SIMD2(40, 40), SIMD2(64, 50), SIMD2(80, 90), SIMD2(50, 85), SIMD2(85, 40)]

    @Test func descriptorsAre32BytesAndRepeatable() throws {
        let a = try ORBDescriptor.compute(Self.image, at: Self.points)
        let copy = GrayImage(width: Self.size, height: Self.size, pixels: Self.image.pixels)
        let b = try ORBDescriptor.compute(copy, at: Self.points)
        #expect(a.count == Self.points.count)
        for (da, db) in zip(a, b) {
            let da = try #require(da), db = try #require(db)
            #expect(da.bytes.count == 32)
            #expect(da == db)
            #expect(ORBDescriptor(bytes: da.bytes) == da)
        }
        // Different places of a random texture differ in about half of the 256 bits.
        let d = a.compactMap { $0 }
        for i in d.indices { for j in d.indices where i < j { #expect(d[i].hammingDistance(to: d[j]) > 60) } }
    }

    /// A few keypoints in a large image are described from a mosaic of tiles around them (cheaper than ORB's
    /// whole-image blur); the descriptors must be the ones OpenCV computes on the whole image. The reference: the
    /// same pixels as a 128x128 image, which is described whole.
    @Test func fewKeypointsInALargeImageGiveTheWholeImageDescriptors() throws {
        let w = 752, h = 480, ox = 300, oy = 200
        var large = GrayImage(width: w, height: h, fill: 0)
        let background = SyntheticImages.quantise(SyntheticImages.texture(width: w, height: h, seed: 5, sigma: 1.2), width: w, height: h)
        for y in 0..<h { for x in 0..<w { large[x, y] = background[x, y] } }
        for y in 0..<Self.size { for x in 0..<Self.size { large[ox + x, oy + y] = Self.image[x, y] } }
        // Sub-pixel positions, rounding both ways, and exact halves.
        let points = Self.points.enumerated().map { i, p in p + SIMD2<Float>([0, 0.3, -0.4, 0.5, -0.5][i], [0.2, -0.5, 0.5, 0, 0.45][i]) }
        let whole = try ORBDescriptor.compute(Self.image, at: points)
        let tiled = try ORBDescriptor.compute(large, at: points.map { $0 + SIMD2(Float(ox), Float(oy)) })
        for (a, b) in zip(whole, tiled) { #expect(try #require(a) == (try #require(b))) }
        // The border rule is OpenCV's in the mosaic too: a keypoint is described when its rounded position is at
        // least 31 px inside. On the small image (described whole, OpenCV's own rule) …
        let edgeWhole = try ORBDescriptor.compute(Self.image, at: [SIMD2(30.4, 60), SIMD2(30.6, 60), SIMD2(60, 96.4), SIMD2(60, 96.6)])
        #expect(edgeWhole.map { $0 != nil } == [false, true, true, false])
        // … and on the large one, where a tile 31 px in reaches a pixel past the edge (reflected).
        let edge = try ORBDescriptor.compute(large, at: [SIMD2(30.4, 100), SIMD2(30.6, 100), SIMD2(400, 448.4), SIMD2(400, 448.6)])
        #expect(edge.map { $0 != nil } == [false, true, true, false])
        let edgeTiled = try ORBDescriptor.compute(large, at: [SIMD2(30.6, 100)])
        let edgeReference = try ORBDescriptor.compute(GrayImage(width: 128, height: 128, pixels: (0..<(128 * 128)).map { large[$0 % 128, 40 + $0 / 128] }),
                                                     at: [SIMD2(30.6, 60)])
        #expect(edgeTiled[0] != nil && edgeTiled[0] == edgeReference[0])
    }

    @Test func pointsNearTheBorderHaveNoDescriptor() throws {
        let result = try ORBDescriptor.compute(Self.image, at: [SIMD2(5, 60), SIMD2(64, 64), SIMD2(64, 125)])
        #expect(result[0] == nil && result[1] != nil && result[2] == nil)
    }

    @Test func translationLeavesDescriptorsUnchanged() throws {
        // Shift by whole pixels (7, 5): the patch around p + (7, 5) is the same pixels.
        var shifted = GrayImage(width: Self.size, height: Self.size, fill: 0)
        for y in 0..<Self.size { for x in 0..<Self.size {
            shifted[x, y] = Self.image[min(max(x - 7, 0), Self.size - 1), min(max(y - 5, 0), Self.size - 1)]
        } }
        let a = try ORBDescriptor.compute(Self.image, at: Self.points)
        let b = try ORBDescriptor.compute(shifted, at: Self.points.map { $0 + SIMD2(7, 5) })
        for (da, db) in zip(a, b) { #expect(try #require(da).hammingDistance(to: try #require(db)) == 0) }
    }

    @Test func orientationMakesDescriptorsRotationInvariant() throws {
        // Rotate the image by 90 degrees: (x, y) -> (size-1-y, x). The intensity-centroid angle
        // turns with the patch, so descriptors stay close (a 90-degree turn maps the sampling
        // grid onto itself: measured 0 bits; 40 allows other angle roundings); a fixed angle
        // does not follow the rotation and looks unrelated (measured 99-141 bits).
        let n = Self.size
        var rotated = GrayImage(width: n, height: n, fill: 0)
        for y in 0..<n { for x in 0..<n { rotated[n - 1 - y, x] = Self.image[x, y] } }
        let moved = Self.points.map { SIMD2<Float>(Float(n - 1) - $0.y, $0.x) }
        let a = try ORBDescriptor.compute(Self.image, at: Self.points)
        let b = try ORBDescriptor.compute(rotated, at: moved)
        let fixed = try ORBDescriptor.compute(rotated, keypoints: moved.map { ORBDescriptor.Keypoint(position: $0, angle_deg: 0) })
        let fixedOriginal = try ORBDescriptor.compute(Self.image, keypoints: Self.points.map { ORBDescriptor.Keypoint(position: $0, angle_deg: 0) })
        for i in Self.points.indices {
            let oriented = try #require(a[i]).hammingDistance(to: try #require(b[i]))
            let unoriented = try #require(fixedOriginal[i]).hammingDistance(to: try #require(fixed[i]))
            #expect(oriented < 40, "oriented distance \(oriented)")
            #expect(unoriented > 60, "unoriented distance \(unoriented)")
        }
    }

    @Test func rejectsBadKeypoints() {
        #expect(throws: ImagingError.self) { try ORBDescriptor.compute(Self.image, at: [SIMD2(.nan, 3)]) }
        #expect(throws: ImagingError.self) {
            try ORBDescriptor.compute(Self.image, keypoints: [ORBDescriptor.Keypoint(position: SIMD2(60, 60), size: 0)])
        }
        #expect((try? ORBDescriptor.compute(Self.image, at: [])) == [])
    }
}
