import COpenCV

/// A gray image's pyramid (with derivatives) for Lucas-Kanade tracking, built once per frame
/// and reused by every `OpticalFlow.track` call involving that frame.
///
/// Owns a copy of the image and the OpenCV pyramid; freed when the last reference goes.
/// Immutable after construction, so it may be shared across threads.
public final class ImagePyramid: @unchecked Sendable {
    let handle: OpaquePointer
    /// Base image size, pixels.
    public let width: Int, height: Int
    /// Largest LK window side (pixels) this pyramid supports.
    public let windowSize: Int
    /// Number of levels, base included (each level halves the size).
    public let levelCount: Int

    /// Builds the pyramid of `image` for LK windows up to `windowSize` pixels and levels
    /// 0...`maxLevel` (fewer when the image gets too small).
    public init(_ image: GrayImage, windowSize: Int = 21, maxLevel: Int = 3) throws {
        try checkImage(image)
        let requestedWindow = try checkCount(windowSize, "pyramid window size")
        let levels = try checkCount(maxLevel, "pyramid max level")
        var pointer: OpaquePointer?
        let status = image.pixels.withUnsafeBufferPointer {
            wt_pyramid_create($0.baseAddress, Int32(image.width), Int32(image.height), requestedWindow, levels, &pointer)
        }
        try checkStatus(status)
        guard let pointer else { throw ImagingError.unknown(status: 0, message: "pyramid creation returned no handle") }
        var w: Int32 = 0, h: Int32 = 0, ws: Int32 = 0, n: Int32 = 0
        _ = wt_pyramid_info(pointer, &w, &h, &ws, &n)
        handle = pointer
        self.width = Int(w); self.height = Int(h); self.windowSize = Int(ws); self.levelCount = Int(n)
    }

    deinit { wt_pyramid_destroy(handle) }
}
