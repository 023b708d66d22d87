import COpenCV

/// An axis-aligned image box: top-left corner and size, pixels (pixel (0, 0) is the centre of the top-left pixel).
public struct PixelBox: Equatable, Sendable {
    /// Top-left corner, pixels.
    public var x: Double, y: Double
    /// Size, pixels.
    public var width: Double, height: Double

    /// A box from its top-left corner and size.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// A box of the given size centred on (cx, cy).
    public init(centerX cx: Double, centerY cy: Double, width: Double, height: Double) {
        self.init(x: cx - width / 2, y: cy - height / 2, width: width, height: height)
    }

    /// Centre, pixels.
    public var centerX: Double { x + width / 2 }
    /// Centre, pixels.
    public var centerY: Double { y + height / 2 }

    /// True when the whole box lies inside a `width`×`height` image.
    public func isInside(width w: Int, height h: Int) -> Bool {
        x >= 0 && y >= 0 && x + width <= Double(w) && y + height <= Double(h)
    }

    var c: wt_box { wt_box(x: x, y: y, width: width, height: height) }
}

/// A single-object tracker over gray frames (OpenCV contrib's CSRT, through the C layer): started on a box of one
/// image, it follows the object into each next image, or reports it not found.
public final class ObjectTracker {
    private let handle: OpaquePointer
    /// Image size the tracker works on, pixels.
    public let width: Int, height: Int

    /// Starts on `box` (at least 4×4 pixels, inside the image) of `image`.
    public init(image: GrayImage, box: PixelBox) throws {
        try checkImage(image)
        var pointer: OpaquePointer?
        let status = image.pixels.withUnsafeBufferPointer {
            wt_object_tracker_create($0.baseAddress, Int32(image.width), Int32(image.height), box.c, &pointer)
        }
        try checkStatus(status)
        guard let pointer else { throw ImagingError.unknown(status: 0, message: "object tracker creation returned no handle") }
        handle = pointer
        width = image.width; height = image.height
    }

    deinit { wt_object_tracker_destroy(handle) }

    /// The object's box in the next image (same size as the first), or nil when the tracker lost it.
    public func update(_ image: GrayImage) throws -> PixelBox? {
        try checkImage(image)
        guard image.width == width, image.height == height else {
            throw ImagingError.invalidArgument(message: "object tracker: image \(image.width)x\(image.height) is not the first image's \(width)x\(height)")
        }
        var box = wt_box(), found: Int32 = 0
        let status = image.pixels.withUnsafeBufferPointer {
            wt_object_tracker_update(handle, $0.baseAddress, Int32(image.width), Int32(image.height), &box, &found)
        }
        try checkStatus(status)
        return found != 0 ? PixelBox(x: box.x, y: box.y, width: box.width, height: box.height) : nil
    }
}

/// Template matching by normalised cross-correlation (OpenCV's `TM_CCOEFF_NORMED`).
public enum TemplateMatcher {
    /// The best match of `template`, scaled to `width`×`height` pixels, inside `search` (clipped to the image):
    /// its score (−1…1, 1 a perfect match up to brightness and contrast) and box.
    public static func bestMatch(of template: GrayImage, scaledTo width: Int, _ height: Int, in image: GrayImage,
                                 search: PixelBox) throws -> (score: Double, box: PixelBox) {
        try checkImage(image)
        try checkImage(template, "template")
        var score = 0.0, x = 0.0, y = 0.0
        let status = image.pixels.withUnsafeBufferPointer { img in
            template.pixels.withUnsafeBufferPointer { t in
                wt_match_template(img.baseAddress, Int32(image.width), Int32(image.height), t.baseAddress,
                                  Int32(template.width), Int32(template.height), Int32(width), Int32(height), search.c,
                                  &score, &x, &y)
            }
        }
        try checkStatus(status)
        return (score, PixelBox(x: x, y: y, width: Double(width), height: Double(height)))
    }
}

extension GrayImage {
    /// The pixels of a box (rounded to whole pixels, clipped to the image); nil when less than 4×4 remain.
    public func crop(_ box: PixelBox) -> GrayImage? {
        let x0 = max(0, Int(box.x.rounded())), y0 = max(0, Int(box.y.rounded()))
        let x1 = min(width, Int((box.x + box.width).rounded())), y1 = min(height, Int((box.y + box.height).rounded()))
        guard x1 - x0 >= 4, y1 - y0 >= 4 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity((x1 - x0) * (y1 - y0))
        for y in y0..<y1 { out += pixels[(y * width + x0)..<(y * width + x1)] }
        return GrayImage(width: x1 - x0, height: y1 - y0, pixels: out)
    }
}
