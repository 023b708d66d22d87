/* WorldTrack's C-interop layer over OpenCV 4.6: a pure C API (no C++ types cross it).
 * Every function catches C++ exceptions and returns a wt_status; the message of the last
 * failure on the calling thread is available from wt_last_error().
 *
 * Conventions
 * - Images are 8-bit, row-major, tightly packed (stride = width * channels); channels is 1 (gray)
 *   or 3 (BGR, OpenCV's order). Pixel (x, y) is column x, row y; coordinates are in pixels with
 *   (0, 0) the centre of the top-left pixel (OpenCV's convention).
 * - Buffers the library allocates (decoded pixels, encoded bytes, detected corners) are released
 *   with wt_free(). Other outputs are caller-allocated with the sizes stated per function.
 * - Points are interleaved (x0, y0, x1, y1, ...).
 * - OpenCV is initialised lazily by the first call: one worker thread (wt_set_num_threads changes
 *   it) and OpenCL off, so results are repeatable. */
#ifndef WORLDTRACK_WT_OPENCV_H
#define WORLDTRACK_WT_OPENCV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes: 0 is success, negative values are failures. */
typedef enum wt_status {
    WT_OK = 0,
    WT_ERR_INVALID_ARGUMENT = -1,
    WT_ERR_DECODE = -2,
    WT_ERR_ENCODE = -3,
    WT_ERR_IO = -4,
    WT_ERR_OPENCV = -5,
    WT_ERR_OUT_OF_MEMORY = -6,
    WT_ERR_UNKNOWN = -99
} wt_status;

/** The message of the last failure on this thread (empty when none). Valid until the next call. */
const char *wt_last_error(void);

/** OpenCV's version string, e.g. "4.6.0". */
const char *wt_opencv_version(void);

/** Sets OpenCV's worker-thread count (>= 1; 1 = run on the calling thread). Default 1. */
wt_status wt_set_num_threads(int32_t threads);

/** OpenCV's current worker-thread count. */
int32_t wt_get_num_threads(void);

/** Releases a buffer this library allocated (NULL is ignored). */
void wt_free(void *buffer);

/* ---------------------------------------------------------------- codecs */

/** Decodes an encoded PNG or JPEG image from memory into 8-bit pixels with `channels` channels
 *  (1 = gray, 3 = BGR), to the pixels OpenCV 4.6's cv::imdecode gave (libpng and libjpeg called
 *  the way it called them; colour to gray with BT.601 luma, 16-bit samples keep their high byte).
 *  On success *out_pixels holds width*height*channels bytes to release with wt_free. Truncated or
 *  corrupt PNG/JPEG data fails with WT_ERR_DECODE; so does any other format ("unsupported image
 *  format (PNG and JPEG are read)"). */
wt_status wt_decode_memory(const uint8_t *data, size_t size, int32_t channels,
                           uint8_t **out_pixels, int32_t *out_width, int32_t *out_height);

/** wt_decode_memory always through libpng / libjpeg, without the fast grayscale PNG decoder and its
 *  image-data pre-check (wt_decode_memory decodes 8- and 16-bit grayscale PNGs to gray with that
 *  faster decoder, to the same pixels): the reference for tests. The name is from when this path was
 *  OpenCV's imgcodecs; it makes the same libpng/libjpeg calls imgcodecs made. */
wt_status wt_decode_memory_opencv(const uint8_t *data, size_t size, int32_t channels,
                                  uint8_t **out_pixels, int32_t *out_width, int32_t *out_height);

/** Only the fast grayscale PNG decoder, never libpng: WT_OK with 8-bit gray pixels, or WT_ERR_DECODE
 *  saying the data is corrupt or not a PNG that decoder handles (for fuzzing that decoder on its own). */
wt_status wt_decode_png_gray_fast(const uint8_t *data, size_t size,
                                  uint8_t **out_pixels, int32_t *out_width, int32_t *out_height);

/** wt_decode_memory on a file's bytes; WT_ERR_IO when the file cannot be read. */
wt_status wt_decode_file(const char *path, int32_t channels,
                         uint8_t **out_pixels, int32_t *out_width, int32_t *out_height);

/** Encodes 8-bit pixels (channels 1 or 3) as PNG (lossless). *out_bytes (release with wt_free)
 *  holds *out_size bytes. */
wt_status wt_encode_png(const uint8_t *pixels, int32_t width, int32_t height, int32_t channels,
                        uint8_t **out_bytes, size_t *out_size);

/** Encodes 8-bit pixels (channels 1 or 3) as baseline JPEG with `quality` 1...100 (lossy).
 *  *out_bytes (release with wt_free) holds *out_size bytes. */
wt_status wt_encode_jpeg(const uint8_t *pixels, int32_t width, int32_t height, int32_t channels,
                         int32_t quality, uint8_t **out_bytes, size_t *out_size);

/** Encodes as PNG and writes the file (replacing it); WT_ERR_IO when it cannot be written. */
wt_status wt_write_png(const char *path, const uint8_t *pixels, int32_t width, int32_t height,
                       int32_t channels);

/* ---------------------------------------------------------------- features */

/** A detected corner: position (pixels) and detector response (FAST: score; Shi-Tomasi: the
 *  minimum eigenvalue of the gradient matrix). */
typedef struct wt_corner {
    float x, y, response;
} wt_corner;

/** FAST-9/16 corners on a gray image. `mask` (NULL or width*height bytes) keeps only corners
 *  where it is non-zero. Corners come sorted by response, strongest first (ties by row, then
 *  column); at most `max_count` of them (<= 0: all). *out_corners is released with wt_free. */
wt_status wt_detect_fast(const uint8_t *pixels, int32_t width, int32_t height, const uint8_t *mask,
                         int32_t threshold, int32_t nonmax_suppression, int32_t max_count,
                         wt_corner **out_corners, int32_t *out_count);

/** Shi-Tomasi corners (cv::goodFeaturesToTrack), strongest first: at most `max_corners`
 *  (<= 0: all), `quality_level` relative to the best corner, at least `min_distance` pixels apart,
 *  `block_size` the gradient-averaging window. `mask` as for FAST. When `subpixel` is non-zero
 *  the corners are refined with cv::cornerSubPix (5x5 window). */
wt_status wt_detect_shi_tomasi(const uint8_t *pixels, int32_t width, int32_t height,
                               const uint8_t *mask, int32_t max_corners, double quality_level,
                               double min_distance, int32_t block_size, int32_t subpixel,
                               wt_corner **out_corners, int32_t *out_count);

/** ORB (rotated BRIEF) descriptors at given keypoints: x, y (pixels), size (patch diameter,
 *  pixels; 31 is ORB's default), angle (degrees; negative = compute by intensity centroid).
 *  Writes 32 bytes per keypoint into `out_descriptors` (count*32 bytes) and out_valid[i] = 1
 *  where a descriptor was computed, 0 where the keypoint was too close to the border (its
 *  descriptor bytes are zeroed). `out_angles` (NULL or count floats) receives the angle used. */
typedef struct wt_orb_keypoint {
    float x, y, size, angle;
} wt_orb_keypoint;

wt_status wt_orb_compute(const uint8_t *pixels, int32_t width, int32_t height,
                         const wt_orb_keypoint *keypoints, int32_t count,
                         uint8_t *out_descriptors, uint8_t *out_valid, float *out_angles);

/* ---------------------------------------------------------------- optical flow */

/** An image pyramid with derivatives (cv::buildOpticalFlowPyramid), built once per frame and
 *  reused by every tracking call that involves the frame. Owns a copy of the image. */
typedef struct wt_pyramid wt_pyramid;

/** Builds a pyramid for LK windows up to `win_size` pixels and levels 0...max_level. */
wt_status wt_pyramid_create(const uint8_t *pixels, int32_t width, int32_t height,
                            int32_t win_size, int32_t max_level, wt_pyramid **out_pyramid);

/** Releases a pyramid (NULL is ignored). */
void wt_pyramid_destroy(wt_pyramid *pyramid);

/** The base image size, the window size it was built for and its number of levels. */
wt_status wt_pyramid_info(const wt_pyramid *pyramid, int32_t *out_width, int32_t *out_height,
                          int32_t *out_win_size, int32_t *out_levels);

/** Parameters of pyramidal Lucas-Kanade. */
typedef struct wt_klt_params {
    int32_t win_size;           /**< square window side, pixels (odd, >= 3; <= the pyramids' win_size) */
    int32_t max_level;          /**< coarsest level used (0 = no pyramid) */
    int32_t max_iterations;     /**< per level */
    double epsilon;             /**< stop when the update is below this, pixels */
    double min_eig_threshold;   /**< reject points whose gradient matrix is this poorly conditioned */
    int32_t use_initial_flow;   /**< non-zero: next_points holds initial guesses on input */
} wt_klt_params;

/** Tracks `count` points from `prev` to `next` (cv::calcOpticalFlowPyrLK). `prev_points` and
 *  `next_points` hold 2*count floats; `next_points` is output (and input guesses when
 *  use_initial_flow). out_status[i] = 1 when found; out_error[i] (may be NULL) is the mean absolute
 *  intensity difference of the windows. */
wt_status wt_klt_track(const wt_pyramid *prev, const wt_pyramid *next, const float *prev_points,
                       float *next_points, int32_t count, const wt_klt_params *params,
                       uint8_t *out_status, float *out_error);

/* ---------------------------------------------------------------- contrast */

/** CLAHE on a gray image into `out_pixels` (width*height bytes, may not alias the input). */
wt_status wt_clahe(const uint8_t *pixels, int32_t width, int32_t height, double clip_limit,
                   int32_t tiles_x, int32_t tiles_y, uint8_t *out_pixels);

/** Global histogram equalisation of a gray image into `out_pixels` (width*height bytes). */
wt_status wt_equalize_histogram(const uint8_t *pixels, int32_t width, int32_t height,
                                uint8_t *out_pixels);

/* ---------------------------------------------------------------- undistortion */

/** Pinhole intrinsics, pixels. */
typedef struct wt_intrinsics {
    double fx, fy, cx, cy;
} wt_intrinsics;

/** Radial-tangential undistortion (cv::undistortPoints with an iteration criterion): pixels
 *  (2*count doubles) to undistorted normalised coordinates (2*count doubles). `coefficients` are
 *  OpenCV's (k1, k2, p1, p2[, k3[, k4, k5, k6]]), coefficient_count 4, 5 or 8. Every result is
 *  re-distorted and re-projected; a point that misses its input pixel by more than 1e-3 px (the
 *  inversion diverged, e.g. beyond the model's valid field of view) is output as NaN, NaN. */
wt_status wt_undistort_radtan(const double *pixels, int32_t count, const wt_intrinsics *intrinsics,
                              const double *coefficients, int32_t coefficient_count,
                              int32_t max_iterations, double epsilon, double *out_normalized);

/** Equidistant (Kannala-Brandt, cv::fisheye) undistortion: pixels to undistorted normalised
 *  coordinates; coefficients k1...k4. Failed points (incidence angle >= 90 degrees, or not
 *  converged to 1e-3 px) are output as NaN, NaN, as for wt_undistort_radtan. */
wt_status wt_undistort_equidistant(const double *pixels, int32_t count,
                                   const wt_intrinsics *intrinsics, const double coefficients[4],
                                   int32_t max_iterations, double epsilon, double *out_normalized);

/* ---------------------------------------------------------------- epipolar geometry */

/** RANSAC essential matrix from normalised coordinates (identity K): x2^T E x1 = 0. `threshold`
 *  is the maximum point-to-epipolar-line distance in normalised units. out_E is row-major 3x3
 *  (unit Frobenius norm up to OpenCV's scaling); out_inliers (count bytes) 1 for inliers.
 *  Needs count >= 5. Fails with WT_ERR_OPENCV when no model is found. */
wt_status wt_find_essential(const double *points1, const double *points2, int32_t count,
                            double threshold, double confidence, int32_t max_iterations,
                            double out_E[9], uint8_t *out_inliers, int32_t *out_inlier_count);

/** wt_find_essential with WorldTrack's own five-point solver (wt_essential_five_point) inside a copy of
 *  OpenCV's classic RANSAC loop: the same random samples, float Sampson test, "more inliers" rule and
 *  iteration update, twelve to fifteen times fewer instructions. Two differences: the solvers' rounding,
 *  which on small-motion frames (an ill-conditioned five-point problem) is not small; and a model with
 *  as many inliers as the best one replaces it when its inliers' summed squared Sampson error is
 *  smaller (OpenCV keeps the first of such a tie, in the order its root finder lists). out_E has unit
 *  Frobenius norm, sign arbitrary. */
wt_status wt_find_essential_fast(const double *points1, const double *points2, int32_t count,
                                 double threshold, double confidence, int32_t max_iterations,
                                 double out_E[9], uint8_t *out_inliers, int32_t *out_inlier_count);

/** The five-point solver alone: the essential matrices (row-major, unit Frobenius norm, at most 10, written
 *  to out_E one after another) with x2^T E x1 = 0 for five correspondences in normalised coordinates
 *  (points1/points2: x, y pairs). *out_count may be 0 for a degenerate sample. */
wt_status wt_essential_five_point(const double points1[10], const double points2[10], double out_E[90],
                                  int32_t *out_count);

/** The real roots, ascending, of coefficients[0] + coefficients[1] x + ... + coefficients[degree] x^degree
 *  (degree 0...10), the five-point solver's root finder. out_roots has room for `degree` values. */
wt_status wt_real_polynomial_roots(const double *coefficients, int32_t degree, double *out_roots,
                                   int32_t *out_count);

/** wt_find_essential with OpenCV's USAC framework (USAC_DEFAULT: LO-RANSAC, Stewenius five-point solver)
 *  instead of classic RANSAC (whose five-point solver finds polynomial roots iteratively): several
 *  times faster, with different (deterministic) inlier sets. */
wt_status wt_find_essential_usac(const double *points1, const double *points2, int32_t count,
                                 double threshold, double confidence, int32_t max_iterations,
                                 double out_E[9], uint8_t *out_inliers, int32_t *out_inlier_count);

/** RANSAC fundamental matrix (x2^T F x1 = 0) in the points' own units (pixels or normalised);
 *  `threshold` is the epipolar distance in those units. Needs count >= 8. */
wt_status wt_find_fundamental(const double *points1, const double *points2, int32_t count,
                              double threshold, double confidence, int32_t max_iterations,
                              double out_F[9], uint8_t *out_inliers, int32_t *out_inlier_count);

/** Decomposes an essential matrix (cv::recoverPose, identity K) into the rotation R (row-major)
 *  and unit translation t with x2 ~ R x1 + t, picking the solution with most points in front of
 *  both cameras. `inliers` (count bytes, may be NULL) selects the points used; out_inliers
 *  (may be NULL) marks the points that pass the cheirality check. */
wt_status wt_recover_pose(const double E[9], const double *points1, const double *points2,
                          int32_t count, const uint8_t *inliers, double out_R[9], double out_t[3],
                          uint8_t *out_inliers, int32_t *out_good_count);

/** The two rotations of an essential matrix (cv::decomposeEssentialMat): E = [t]x R for R in {R1, R2} and
 *  t = +-out_t (unit length); row-major. No points are needed (nor cheirality: the caller picks). */
wt_status wt_decompose_essential(const double E[9], double out_R1[9], double out_R2[9], double out_t[3]);

/* ---------------------------------------------------------------- drawing */

/** A drawing target: caller-owned pixels drawn in place. */
typedef struct wt_canvas {
    uint8_t *pixels;
    int32_t width, height, channels; /**< channels 1 or 3 */
} wt_canvas;

/** A colour: (b, g, r) for 3-channel canvases; only `b` (the intensity) for gray ones. */
typedef struct wt_color {
    double b, g, r;
} wt_color;

/** Line from (x0, y0) to (x1, y1), pixels (sub-pixel accurate). thickness >= 1. */
wt_status wt_draw_line(wt_canvas canvas, double x0, double y0, double x1, double y1,
                       wt_color color, int32_t thickness, int32_t antialiased);

/** Circle; thickness < 0 fills it. */
wt_status wt_draw_circle(wt_canvas canvas, double cx, double cy, double radius, wt_color color,
                         int32_t thickness, int32_t antialiased);

/** Axis-aligned rectangle with corners (x0, y0) and (x1, y1) (inclusive); thickness < 0 fills. */
wt_status wt_draw_rectangle(wt_canvas canvas, double x0, double y0, double x1, double y1,
                            wt_color color, int32_t thickness);

/** Open or closed polyline through `count` points (2*count doubles). */
wt_status wt_draw_polyline(wt_canvas canvas, const double *points, int32_t count, int32_t closed,
                           wt_color color, int32_t thickness, int32_t antialiased);

/** Filled polygon (cv::fillPoly) through `count` >= 3 vertices (2*count doubles). Without
 *  antialiasing exactly the pixels whose centres lie inside or on the boundary change. */
wt_status wt_fill_polygon(wt_canvas canvas, const double *points, int32_t count, wt_color color,
                          int32_t antialiased);

/** UTF-8 text (Hershey simplex font; ASCII glyphs) with its baseline's left end at (x, y);
 *  `scale` 1 gives capitals about 22 pixels tall. */
wt_status wt_draw_text(wt_canvas canvas, const char *text, double x, double y, double scale,
                       wt_color color, int32_t thickness, int32_t antialiased);

/** Size in pixels of text as wt_draw_text would draw it, and the baseline offset below it. */
wt_status wt_text_size(const char *text, double scale, int32_t thickness, int32_t *out_width,
                       int32_t *out_height, int32_t *out_baseline);

/* ---------------------------------------------------------------- object tracking */

/** An axis-aligned box in pixels: top-left corner (x, y) and size. */
typedef struct wt_box {
    double x, y, width, height;
} wt_box;

/** A single-object tracker (opaque): OpenCV contrib's CSRT (discriminative correlation filter with channel and
 *  spatial reliability), on gray images. */
typedef struct wt_object_tracker wt_object_tracker;

/** Starts a tracker on `box` (at least 4x4 pixels, inside the image) of a gray image; release with
 *  wt_object_tracker_destroy. */
wt_status wt_object_tracker_create(const uint8_t *pixels, int32_t width, int32_t height, wt_box box,
                                   wt_object_tracker **out_tracker);

/** Tracks the object into the next gray image (same size): *out_box is its new box; *out_found is 1 when the
 *  tracker found it, 0 when its response was too weak (the box is then meaningless). */
wt_status wt_object_tracker_update(wt_object_tracker *tracker, const uint8_t *pixels, int32_t width, int32_t height,
                                   wt_box *out_box, int32_t *out_found);

/** Releases a tracker (NULL is ignored). */
void wt_object_tracker_destroy(wt_object_tracker *tracker);

/** Normalised cross-correlation (TM_CCOEFF_NORMED) of a gray template, first scaled (INTER_AREA) to
 *  scaled_width x scaled_height, over a search region of a gray image (clipped to the image; it must still hold
 *  the scaled template): the best score (-1...1) and the top-left corner of the best match, in image pixels. */
wt_status wt_match_template(const uint8_t *pixels, int32_t width, int32_t height, const uint8_t *templ,
                            int32_t templ_width, int32_t templ_height, int32_t scaled_width, int32_t scaled_height,
                            wt_box search, double *out_score, double *out_x, double *out_y);

#ifdef __cplusplus
}
#endif
#endif
