import COpenCV

/// Contrast normalisation of gray images, e.g. before feature detection in changing light.
public enum Contrast {
    /// Contrast-limited adaptive histogram equalisation (OpenCV's CLAHE).
    /// - Parameters:
    ///   - clipLimit: histogram clip limit relative to a uniform histogram (OpenCV's unit; 2-4 typical).
    ///   - tilesX: number of tiles across the width.
    ///   - tilesY: number of tiles down the height.
    public static func clahe(_ image: GrayImage, clipLimit: Double = 2.0, tilesX: Int = 8, tilesY: Int = 8) throws -> GrayImage {
        try checkImage(image)
        let tx = try checkCount(tilesX, "CLAHE tiles x"), ty = try checkCount(tilesY, "CLAHE tiles y")
        var out = GrayImage(width: image.width, height: image.height)
        let status = image.pixels.withUnsafeBufferPointer { src in
            out.pixels.withUnsafeMutableBufferPointer { dst in
                wt_clahe(src.baseAddress, Int32(image.width), Int32(image.height), clipLimit, tx, ty, dst.baseAddress)
            }
        }
        try checkStatus(status)
        return out
    }

    /// Global histogram equalisation: spreads the intensities so their cumulative histogram is
    /// roughly linear over 0...255.
    public static func equalizeHistogram(_ image: GrayImage) throws -> GrayImage {
        try checkImage(image)
        var out = GrayImage(width: image.width, height: image.height)
        let status = image.pixels.withUnsafeBufferPointer { src in
            out.pixels.withUnsafeMutableBufferPointer { dst in
                wt_equalize_histogram(src.baseAddress, Int32(image.width), Int32(image.height), dst.baseAddress)
            }
        }
        try checkStatus(status)
        return out
    }
}
