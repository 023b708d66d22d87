import COpenCV

/// A detected corner: its position and detector response.
public struct DetectedCorner: Equatable, Sendable {
    /// Position in pixels, (0, 0) the centre of the top-left pixel. FAST gives integer pixel
    /// positions; Shi-Tomasi with sub-pixel refinement gives fractional ones.
    public var position: SIMD2<Float>
    /// Detector response: the FAST score (intensity units), or for Shi-Tomasi the smaller
    /// eigenvalue of the gradient matrix. Larger is stronger.
    public var response: Float

    /// A corner at `position` (pixels) with `response`.
    public init(position: SIMD2<Float>, response: Float) { self.position = position; self.response = response }
    /// Column, pixels.
    public var x: Float { position.x }
    /// Row, pixels.
    public var y: Float { position.y }
}

/// Corner detectors on gray images (OpenCV's FAST and Shi-Tomasi).
///
/// A `mask` is a gray image of the same size: corners are kept only where it is non-zero.
/// Flat images have no corners: detectors need texture.
public enum FeatureDetector {
    /// FAST-9/16 corners, strongest first (ties by row, then column).
    /// - Parameters:
    ///   - threshold: minimum intensity difference between the centre and the arc (0...255).
    ///   - nonmaxSuppression: keep only local maxima of the score.
    ///   - mask: optional mask (same size; non-zero = allowed).
    ///   - maxCount: keep at most this many (the strongest); 0 = all.
    public static func fast(_ image: GrayImage, threshold: Int = 20, nonmaxSuppression: Bool = true,
                            mask: GrayImage? = nil, maxCount: Int = 0) throws -> [DetectedCorner] {
        try checkImage(image)
        try checkMask(mask, for: image)
        guard (0...255).contains(threshold) else {
            throw ImagingError.invalidArgument(message: "FAST threshold \(threshold) is outside 0...255")
        }
        let limit = try checkCount(maxCount, "FAST max count")
        return try detect { out, count in
            image.pixels.withUnsafeBufferPointer { img in
                withMask(mask) { m in
                    wt_detect_fast(img.baseAddress, Int32(image.width), Int32(image.height), m,
                                   Int32(threshold), nonmaxSuppression ? 1 : 0, limit, out, count)
                }
            }
        }
    }

    /// Shi-Tomasi ("good features to track") corners, strongest first.
    /// - Parameters:
    ///   - maxCorners: keep at most this many; 0 = all.
    ///   - qualityLevel: minimum response relative to the strongest corner, in (0, 1).
    ///   - minDistance: minimum distance between returned corners, pixels.
    ///   - blockSize: side of the gradient-averaging window, pixels.
    ///   - mask: optional mask (same size; non-zero = allowed).
    ///   - subPixel: refine positions to sub-pixel accuracy (cornerSubPix, 5x5 window).
    public static func shiTomasi(_ image: GrayImage, maxCorners: Int, qualityLevel: Double = 0.01,
                                 minDistance: Double = 10, blockSize: Int = 3, mask: GrayImage? = nil,
                                 subPixel: Bool = false) throws -> [DetectedCorner] {
        try checkImage(image)
        try checkMask(mask, for: image)
        let limit = try checkCount(maxCorners, "Shi-Tomasi max corners")
        let block = try checkCount(blockSize, "Shi-Tomasi block size")
        return try detect { out, count in
            image.pixels.withUnsafeBufferPointer { img in
                withMask(mask) { m in
                    wt_detect_shi_tomasi(img.baseAddress, Int32(image.width), Int32(image.height), m, limit,
                                         qualityLevel, minDistance, block, subPixel ? 1 : 0, out, count)
                }
            }
        }
    }

    private static func checkMask(_ mask: GrayImage?, for image: GrayImage) throws {
        if let mask { try checkImage(mask, "mask") }
        if let mask, mask.width != image.width || mask.height != image.height {
            throw ImagingError.invalidArgument(
                message: "mask is \(mask.width)x\(mask.height) but the image is \(image.width)x\(image.height)")
        }
    }

    private static func withMask<R>(_ mask: GrayImage?, _ body: (UnsafePointer<UInt8>?) -> R) -> R {
        guard let mask else { return body(nil) }
        return mask.pixels.withUnsafeBufferPointer { body($0.baseAddress) }
    }

    private static func detect(
        _ call: (UnsafeMutablePointer<UnsafeMutablePointer<wt_corner>?>, UnsafeMutablePointer<Int32>) -> wt_status
    ) throws -> [DetectedCorner] {
        var corners: UnsafeMutablePointer<wt_corner>?
        var count: Int32 = 0
        defer { wt_free(corners) }
        try checkStatus(call(&corners, &count))
        guard let corners else { return [] }
        return UnsafeBufferPointer(start: corners, count: Int(count)).map {
            DetectedCorner(position: SIMD2($0.x, $0.y), response: $0.response)
        }
    }
}
