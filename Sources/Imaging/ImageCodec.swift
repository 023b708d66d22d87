import COpenCV

/// Image file decoding and encoding: PNG and JPEG (other formats throw `ImagingError.decode`, "unsupported image
/// format").
///
/// Decoding yields the stored pixels (EXIF orientation is ignored), the ones OpenCV 4.6's `imdecode` gave: libpng and
/// libjpeg are called the way OpenCV called them (the C layer no longer links OpenCV's imgcodecs). Grayscale 8- and
/// 16-bit PNGs (the camera datasets' format) decode to gray through a faster decoder (ISA-L inflate) to the same
/// pixels as libpng's (16-bit samples keep their high byte); every other file goes through libpng or libjpeg.
/// Truncated or corrupt PNG and JPEG data throws `ImagingError.decode` rather than yielding a partial image. PNG
/// output is lossless, so `decodeGray(data: encodePNG(image)) == image`.
public enum ImageCodec {
    /// Decodes an image file to 8-bit gray (colour files are converted with BT.601 luma).
    /// Throws `.fileIO` when the file cannot be read, `.decode` when it is not a valid image.
    public static func decodeGray(contentsOf path: String) throws -> GrayImage {
        let (pixels, width, height) = try decodeFile(path, channels: 1)
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// Decodes encoded image bytes (e.g. a PNG file's contents) to 8-bit gray.
    public static func decodeGray(data: [UInt8]) throws -> GrayImage {
        let (pixels, width, height) = try decodeMemory(data, channels: 1)
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// Decodes an image file to 8-bit BGR (gray files are replicated into the three channels).
    public static func decodeColor(contentsOf path: String) throws -> ColorImage {
        let (pixels, width, height) = try decodeFile(path, channels: 3)
        return ColorImage(width: width, height: height, pixels: pixels)
    }

    /// Decodes encoded image bytes to 8-bit BGR.
    public static func decodeColor(data: [UInt8]) throws -> ColorImage {
        let (pixels, width, height) = try decodeMemory(data, channels: 3)
        return ColorImage(width: width, height: height, pixels: pixels)
    }

    /// Encodes a gray image as an 8-bit gray PNG file's bytes.
    public static func encodePNG(_ image: GrayImage) throws -> [UInt8] {
        try encode(image.pixels, image.width, image.height, channels: 1)
    }

    /// Encodes a colour image as an 8-bit RGB PNG file's bytes.
    public static func encodePNG(_ image: ColorImage) throws -> [UInt8] {
        try encode(image.pixels, image.width, image.height, channels: 3)
    }

    /// Encodes a gray image as JPEG bytes (lossy; `quality` 1...100).
    public static func encodeJPEG(_ image: GrayImage, quality: Int = 90) throws -> [UInt8] {
        try encode(image.pixels, image.width, image.height, channels: 1, jpegQuality: quality)
    }

    /// Encodes a colour image as JPEG bytes (lossy; `quality` 1...100).
    public static func encodeJPEG(_ image: ColorImage, quality: Int = 90) throws -> [UInt8] {
        try encode(image.pixels, image.width, image.height, channels: 3, jpegQuality: quality)
    }

    /// Writes a gray image as a PNG file (replacing any existing file).
    public static func writePNG(_ image: GrayImage, to path: String) throws {
        try write(image.pixels, image.width, image.height, channels: 1, path: path)
    }

    /// Writes a colour image as a PNG file (replacing any existing file).
    public static func writePNG(_ image: ColorImage, to path: String) throws {
        try write(image.pixels, image.width, image.height, channels: 3, path: path)
    }

    // MARK: - C calls

    private static func takePixels(_ buffer: UnsafeMutablePointer<UInt8>?, _ width: Int32, _ height: Int32,
                                   channels: Int) -> ([UInt8], Int, Int) {
        let count = Int(width) * Int(height) * channels
        let pixels = buffer.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        return (pixels, Int(width), Int(height))
    }

    private static func decodeFile(_ path: String, channels: Int32) throws -> ([UInt8], Int, Int) {
        var buffer: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        defer { wt_free(buffer) }
        try checkStatus(wt_decode_file(path, channels, &buffer, &width, &height), path: path)
        return takePixels(buffer, width, height, channels: Int(channels))
    }

    private static func decodeMemory(_ data: [UInt8], channels: Int32) throws -> ([UInt8], Int, Int) {
        var buffer: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        defer { wt_free(buffer) }
        let status = data.withUnsafeBufferPointer {
            wt_decode_memory($0.baseAddress, $0.count, channels, &buffer, &width, &height)
        }
        try checkStatus(status)
        return takePixels(buffer, width, height, channels: Int(channels))
    }

    /// Decodes encoded image bytes to 8-bit gray always through libpng / libjpeg (with OpenCV's transforms),
    /// bypassing the fast grayscale PNG decoder `decodeGray` uses: the reference that decoder is tested against.
    static func decodeGrayWithLibpng(data: [UInt8]) throws -> GrayImage {
        var buffer: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        defer { wt_free(buffer) }
        let status = data.withUnsafeBufferPointer {
            wt_decode_memory_opencv($0.baseAddress, $0.count, 1, &buffer, &width, &height)
        }
        try checkStatus(status)
        let (pixels, w, h) = takePixels(buffer, width, height, channels: 1)
        return GrayImage(width: w, height: h, pixels: pixels)
    }

    /// Decodes with the fast grayscale PNG decoder alone (no libpng fallback): for fuzzing that decoder.
    /// Throws `.decode` for corrupt data and for any file that decoder does not handle.
    static func decodeGrayFastPathOnly(data: [UInt8]) throws -> GrayImage {
        var buffer: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        defer { wt_free(buffer) }
        let status = data.withUnsafeBufferPointer {
            wt_decode_png_gray_fast($0.baseAddress, $0.count, &buffer, &width, &height)
        }
        try checkStatus(status)
        let (pixels, w, h) = takePixels(buffer, width, height, channels: 1)
        return GrayImage(width: w, height: h, pixels: pixels)
    }

    private static func encode(_ pixels: [UInt8], _ width: Int, _ height: Int, channels: Int32,
                               jpegQuality: Int? = nil) throws -> [UInt8] {
        try checkDimensions(width, height)
        try checkByteCount(pixels, width, height, channels)
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        defer { wt_free(bytes) }
        let status = pixels.withUnsafeBufferPointer {
            if let jpegQuality {
                return wt_encode_jpeg($0.baseAddress, Int32(width), Int32(height), channels,
                                      Int32(clamping: jpegQuality), &bytes, &size)
            }
            return wt_encode_png($0.baseAddress, Int32(width), Int32(height), channels, &bytes, &size)
        }
        try checkStatus(status)
        return bytes.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    }

    private static func checkByteCount(_ pixels: [UInt8], _ width: Int, _ height: Int, _ channels: Int32) throws {
        guard pixels.count == width * height * Int(channels) else {
            throw ImagingError.invalidArgument(message: "image has \(pixels.count) bytes but is \(width)x\(height)x\(channels)")
        }
    }

    private static func write(_ pixels: [UInt8], _ width: Int, _ height: Int, channels: Int32, path: String) throws {
        do {
            try checkDimensions(width, height)
            try checkByteCount(pixels, width, height, channels)
        } catch let ImagingError.invalidArgument(message) {
            throw ImagingError.encode(path: path, message: message)
        }
        let status = pixels.withUnsafeBufferPointer {
            wt_write_png(path, $0.baseAddress, Int32(width), Int32(height), channels)
        }
        try checkStatus(status, path: path)
    }
}
