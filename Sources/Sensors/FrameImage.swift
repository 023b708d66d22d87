import Imaging

extension CameraFrameRef {
    /// Decodes the frame's image file into an 8-bit gray image (colour and 16-bit images are converted).
    /// - Throws: `ImagingError` naming the file when it cannot be read or decoded.
    public func loadImage() throws -> GrayImage {
        try ImageCodec.decodeGray(contentsOf: path)
    }
}
