import Foundation
import Imaging

extension CameraFrameRef {
    /// Decodes the frame's image file into an 8-bit gray image (colour images are converted).
    /// - Throws: an error naming the file when it cannot be read or decoded.
    public func loadImage() throws -> GrayImage {
        try FrameImageDecoder.decodeGray(path: path)
    }
}

/// The one place the Sensors module decodes images; it calls the Imaging module's codec.
enum FrameImageDecoder {
    static func decodeGray(path: String) throws -> GrayImage {
        // Pending: `Imaging.ImageCodec.decodeGray(contentsOf:)` lands with the imaging branch;
        // this becomes `try ImageCodec.decodeGray(contentsOf: URL(fileURLWithPath: path))`.
        throw DatasetError(path: path, file: path, message: "image decoding is not available in this build (Imaging.ImageCodec missing)")
    }
}
