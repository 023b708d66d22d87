// Imaging — WorldTrack's only door to OpenCV.
//
// Every OpenCV call goes through the C layer `COpenCV` (pure C header `wt_opencv.h`, C++17
// implementation that catches every exception) and through this module, which turns status
// codes into `ImagingError`s. No other module imports `COpenCV`.
//
// What is here:
// - `GrayImage`, `ColorImage` (BGR8), `BGRColor`            — image types
// - `ImageCodec`                                              — PNG/JPEG decode, PNG/JPEG encode, PNG files
// - `FeatureDetector` (FAST, Shi-Tomasi), `DetectedCorner`    — corners
// - `ORBDescriptor`                                           — binary descriptors, Hamming distance
// - `ImagePyramid`, `OpticalFlow`, `TrackedPoint`             — pyramidal Lucas-Kanade
// - `Contrast`                                                — CLAHE, histogram equalisation
// - `Undistortion`                                            — radial-tangential / equidistant to normalised
// - `EpipolarRANSAC`                                          — essential / fundamental RANSAC, recoverPose
// - `Canvas` (drawing on GrayImage / ColorImage)              — lines, circles, rectangles, polygons, text
// - `OpenCVRuntime`                                           — version, thread count
//
// Conventions: pixel coordinates have (0, 0) at the centre of the top-left pixel, x right, y
// down (OpenCV's). Normalised coordinates are x/z, y/z in the camera frame (x right, y down,
// z forward). OpenCV runs single-threaded with OpenCL off unless `OpenCVRuntime.setThreadCount`
// says otherwise, so results are repeatable.
