import COpenCV

/// A 256-bit ORB (oriented FAST, rotated BRIEF) binary descriptor, compared by Hamming distance.
public struct ORBDescriptor: Hashable, Sendable {
    /// The 32 descriptor bytes as four little-endian 64-bit words (byte i is bits 8(i%8)... of word i/8).
    public var words: SIMD4<UInt64>

    /// A descriptor from its four words.
    public init(words: SIMD4<UInt64>) { self.words = words }

    /// A descriptor from its 32 bytes (OpenCV's row order); `nil` unless exactly 32 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        var w = SIMD4<UInt64>(repeating: 0)
        for i in 0..<32 { w[i / 8] |= UInt64(bytes[i]) << UInt64(8 * (i % 8)) }
        words = w
    }

    /// The 32 descriptor bytes, OpenCV's order.
    public var bytes: [UInt8] { (0..<32).map { UInt8(truncatingIfNeeded: words[$0 / 8] >> UInt64(8 * ($0 % 8))) } }

    /// Number of differing bits (0...256).
    @inlinable public func hammingDistance(to other: ORBDescriptor) -> Int {
        let x = words ^ other.words
        return x[0].nonzeroBitCount + x[1].nonzeroBitCount + x[2].nonzeroBitCount + x[3].nonzeroBitCount
    }

    /// Where to compute a descriptor.
    public struct Keypoint: Equatable, Sendable {
        /// Position, pixels.
        public var position: SIMD2<Float>
        /// Patch diameter, pixels (31 is ORB's native size).
        public var size: Float
        /// Orientation in degrees (0...360, clockwise in the image since y points down);
        /// `nil` = computed from the patch's intensity centroid (ORB's rule).
        public var angle_deg: Float?
        /// A keypoint at `position` (pixels).
        public init(position: SIMD2<Float>, size: Float = 31, angle_deg: Float? = nil) {
            self.position = position; self.size = size; self.angle_deg = angle_deg
        }
    }

    /// ORB descriptors at the given points (orientation from the intensity centroid).
    /// Entry i is `nil` when point i is too close to the border (within 31 pixels).
    public static func compute(_ image: GrayImage, at points: [SIMD2<Float>]) throws -> [ORBDescriptor?] {
        try compute(image, keypoints: points.map { Keypoint(position: $0) })
    }

    /// ORB descriptors at the given keypoints, in input order; `nil` for keypoints too close to
    /// the border (within 31 pixels) to describe.
    public static func compute(_ image: GrayImage, keypoints: [Keypoint]) throws -> [ORBDescriptor?] {
        try checkImage(image)
        let count = try checkCount(keypoints.count, "ORB keypoints")
        if keypoints.isEmpty { return [] }
        let cKeypoints = keypoints.map {
            wt_orb_keypoint(x: $0.position.x, y: $0.position.y, size: $0.size, angle: $0.angle_deg ?? -1)
        }
        var descriptors = [UInt8](repeating: 0, count: keypoints.count * 32)
        var valid = [UInt8](repeating: 0, count: keypoints.count)
        let status = image.pixels.withUnsafeBufferPointer { img in
            wt_orb_compute(img.baseAddress, Int32(image.width), Int32(image.height), cKeypoints, count,
                           &descriptors, &valid, nil)
        }
        try checkStatus(status)
        return (0..<keypoints.count).map { i in
            valid[i] != 0 ? ORBDescriptor(bytes: Array(descriptors[(32 * i)..<(32 * i + 32)])) : nil
        }
    }
}
