import Foundation
import Imaging
import Testing

/// The C layer's object tracker (CSRT) and template matcher on synthetic images with known motion.
@Suite("Object tracker and template matching")
struct ObjectTrackerTests {
    /// A textured background with a differently textured square object of `side` pixels at (x, y).
    static func scene(objectAt x: Int, _ y: Int, side: Int = 48, width: Int = 320, height: Int = 240) -> GrayImage {
        let background = SyntheticImages.quantise(SyntheticImages.texture(width: width, height: height, seed: 3, sigma: 4),
                                                  width: width, height: height)
        let object = SyntheticImages.quantise(SyntheticImages.texture(width: side, height: side, seed: 11, sigma: 1.5),
                                              width: side, height: side)
        var pixels = background.pixels
        for j in 0..<side where y + j >= 0 && y + j < height {
            for i in 0..<side where x + i >= 0 && x + i < width { pixels[(y + j) * width + x + i] = object[i, j] }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    @Test("the tracker follows an object moving 3 px per frame (centre within 2 px); template matching finds it exactly")
    func followsMovingObject() throws {
        let tracker = try ObjectTracker(image: Self.scene(objectAt: 60, 80), box: PixelBox(x: 60, y: 80, width: 48, height: 48))
        for k in 1...30 {
            let x = 60 + 3 * k, y = 80 + k
            let box = try #require(try tracker.update(Self.scene(objectAt: x, y)))
            #expect(abs(box.centerX - Double(x + 24)) <= 2 && abs(box.centerY - Double(y + 24)) <= 2, "frame \(k): \(box) vs (\(x), \(y))")
        }
        // Template matching finds the object's pixels exactly, with a near-perfect score, and scores background low.
        let template = try #require(Self.scene(objectAt: 60, 80).crop(PixelBox(x: 60, y: 80, width: 48, height: 48)))
        let image = Self.scene(objectAt: 200, 150)
        let match = try TemplateMatcher.bestMatch(of: template, scaledTo: 48, 48, in: image,
                                                  search: PixelBox(x: 150, y: 100, width: 150, height: 130))
        #expect(match.box.x == 200 && match.box.y == 150 && match.score > 0.99)
        let background = try TemplateMatcher.bestMatch(of: template, scaledTo: 48, 48, in: image,
                                                       search: PixelBox(x: 0, y: 0, width: 120, height: 120))
        #expect(background.score < 0.6)
    }

    @Test("bad boxes and images are refused")
    func badInput() throws {
        let image = Self.scene(objectAt: 60, 80)
        #expect(throws: ImagingError.self) { try ObjectTracker(image: image, box: PixelBox(x: 300, y: 10, width: 48, height: 48)) }
        #expect(throws: ImagingError.self) { try ObjectTracker(image: image, box: PixelBox(x: 10, y: 10, width: 2, height: 48)) }
        let tracker = try ObjectTracker(image: image, box: PixelBox(x: 60, y: 80, width: 48, height: 48))
        #expect(throws: ImagingError.self) { try tracker.update(GrayImage(width: 100, height: 100)) }
        let template = GrayImage(width: 48, height: 48, fill: 7)
        #expect(throws: ImagingError.self) {
            try TemplateMatcher.bestMatch(of: template, scaledTo: 48, 48, in: image, search: PixelBox(x: 0, y: 0, width: 20, height: 20))
        }
    }
}
