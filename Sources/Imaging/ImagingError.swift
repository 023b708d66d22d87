import COpenCV

/// A failure of an imaging operation, carrying OpenCV's (or the C layer's) message and, for file
/// operations, the file's path.
public enum ImagingError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file could not be read or written (missing, permissions, disk full, a directory...).
    case fileIO(path: String, message: String)
    /// The data is not a decodable image: unknown format, truncated or corrupt. `path` is the
    /// file it came from, `nil` for in-memory data.
    case decode(path: String?, message: String)
    /// Encoding failed. `path` is the destination file, `nil` for in-memory encoding.
    case encode(path: String?, message: String)
    /// An argument was out of range or inconsistent (sizes, counts, parameters).
    case invalidArgument(message: String)
    /// OpenCV raised an error (`cv::Exception`) or found no solution.
    case openCV(message: String)
    /// Memory allocation failed.
    case outOfMemory(message: String)
    /// Any other failure of the C layer.
    case unknown(status: Int, message: String)

    public var description: String {
        switch self {
        case let .fileIO(path, message): return "\(path): \(message)"
        case let .decode(path, message): return path.map { "\($0): cannot decode image: \(message)" } ?? "cannot decode image: \(message)"
        case let .encode(path, message): return path.map { "\($0): cannot encode image: \(message)" } ?? "cannot encode image: \(message)"
        case let .invalidArgument(message): return "invalid argument: \(message)"
        case let .openCV(message): return message
        case let .outOfMemory(message): return "out of memory: \(message)"
        case let .unknown(status, message): return "imaging failure (status \(status)): \(message)"
        }
    }
}

/// The single funnel from C status codes to thrown errors: throws unless `status` is `WT_OK`,
/// using this thread's `wt_last_error()` message and the file `path` when one is involved.
@inline(__always)
func checkStatus(_ status: wt_status, path: String? = nil) throws {
    if status == WT_OK { return }
    throw makeError(status, path: path)
}

func makeError(_ status: wt_status, path: String?) -> ImagingError {
    let message = String(cString: wt_last_error())
    switch status {
    case WT_ERR_INVALID_ARGUMENT: return .invalidArgument(message: message)
    case WT_ERR_DECODE: return .decode(path: path, message: message)
    case WT_ERR_ENCODE: return .encode(path: path, message: message)
    case WT_ERR_IO: return .fileIO(path: path ?? "<unknown file>", message: message)
    case WT_ERR_OPENCV: return .openCV(message: message)
    case WT_ERR_OUT_OF_MEMORY: return .outOfMemory(message: message)
    default: return .unknown(status: Int(status.rawValue), message: message)
    }
}

/// Validates that an image has a positive size and fits the C layer's 32-bit dimensions.
func checkDimensions(_ width: Int, _ height: Int, _ what: String = "image") throws {
    guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
        throw ImagingError.invalidArgument(message: "\(what) size \(width)x\(height) is empty or too large")
    }
}

/// Validates a gray image before its pixels go to C: positive size, 32-bit dimensions and a
/// pixel buffer of exactly `width * height` bytes (`pixels` is a public `var`, so it is checked).
func checkImage(_ image: GrayImage, _ what: String = "image") throws {
    try checkDimensions(image.width, image.height, what)
    guard image.pixels.count == image.width * image.height else {
        throw ImagingError.invalidArgument(
            message: "\(what) has \(image.pixels.count) pixels but is \(image.width)x\(image.height)")
    }
}

/// Validates that a count fits the C layer's 32-bit counts.
func checkCount(_ count: Int, _ what: String) throws -> Int32 {
    guard count >= 0, count <= Int(Int32.max) else {
        throw ImagingError.invalidArgument(message: "\(what): count \(count) out of range")
    }
    return Int32(count)
}
