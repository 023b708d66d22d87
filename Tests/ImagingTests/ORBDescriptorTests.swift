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
        let fixed = try ORBDescriptor.compute(rotated, keypoints: moved.map { ORBDescriptor.Keypoint(position: $0, angleDegrees: 0) })
        let fixedOriginal = try ORBDescriptor.compute(Self.image, keypoints: Self.points.map { ORBDescriptor.Keypoint(position: $0, angleDegrees: 0) })
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
