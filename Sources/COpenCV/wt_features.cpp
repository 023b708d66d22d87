// Corner detection (FAST, Shi-Tomasi) and ORB descriptors.
#include "wt_internal.hpp"
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace {

wt_status output_corners(const std::vector<wt_corner> &corners, wt_corner **out_corners, int32_t *out_count) {
    *out_corners = reinterpret_cast<wt_corner *>(wt::copy_out(corners.data(), corners.size() * sizeof(wt_corner)));
    *out_count = int32_t(corners.size());
    return WT_OK;
}

wt_status check_outputs(const char *function, wt_corner **out_corners, int32_t *out_count) {
    if (out_corners == nullptr || out_count == nullptr)
        return wt::fail(WT_ERR_INVALID_ARGUMENT, std::string(function) + ": NULL output pointer");
    *out_corners = nullptr;
    *out_count = 0;
    return WT_OK;
}

/// Intensity-centroid orientation (ORB's) in degrees over a disc of `radius` pixels, or 0 when
/// the disc leaves the image.
float centroid_angle(const cv::Mat &image, float x, float y, int radius) {
    int cx = int(std::lround(x)), cy = int(std::lround(y));
    if (cx - radius < 0 || cy - radius < 0 || cx + radius >= image.cols || cy + radius >= image.rows) return 0.f;
    double m01 = 0, m10 = 0;
    for (int dy = -radius; dy <= radius; ++dy) {
        const uint8_t *row = image.ptr<uint8_t>(cy + dy);
        int half = int(std::floor(std::sqrt(double(radius * radius - dy * dy))));
        for (int dx = -half; dx <= half; ++dx) {
            double v = row[cx + dx];
            m10 += dx * v;
            m01 += dy * v;
        }
    }
    float angle = float(std::atan2(m01, m10) * 180.0 / CV_PI);
    return angle < 0 ? angle + 360.f : angle;
}

} // namespace

extern "C" wt_status wt_detect_fast(const uint8_t *pixels, int32_t width, int32_t height, const uint8_t *mask,
                                    int32_t threshold, int32_t nonmax_suppression, int32_t max_count,
                                    wt_corner **out_corners, int32_t *out_count) {
    return wt::guarded("wt_detect_fast", [&] {
        wt_status s = check_outputs("wt_detect_fast", out_corners, out_count);
        if (s == WT_OK) s = wt::check_image("wt_detect_fast", pixels, width, height, 1);
        if (s != WT_OK) return s;
        if (threshold < 0 || threshold > 255)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_detect_fast: threshold must be in 0...255");
        cv::Mat image = wt::wrap(pixels, width, height, 1);
        cv::Mat mask_mat = mask ? wt::wrap(mask, width, height, 1) : cv::Mat();
        std::vector<cv::KeyPoint> keypoints;
        auto detector = cv::FastFeatureDetector::create(threshold, nonmax_suppression != 0,
                                                        cv::FastFeatureDetector::TYPE_9_16);
        detector->detect(image, keypoints, mask_mat);
        std::vector<wt_corner> corners;
        corners.reserve(keypoints.size());
        for (const auto &k : keypoints) corners.push_back({k.pt.x, k.pt.y, k.response});
        std::sort(corners.begin(), corners.end(), [](const wt_corner &a, const wt_corner &b) {
            if (a.response != b.response) return a.response > b.response;
            if (a.y != b.y) return a.y < b.y;
            return a.x < b.x;
        });
        if (max_count > 0 && corners.size() > size_t(max_count)) corners.resize(size_t(max_count));
        return output_corners(corners, out_corners, out_count);
    });
}

extern "C" wt_status wt_detect_shi_tomasi(const uint8_t *pixels, int32_t width, int32_t height,
                                          const uint8_t *mask, int32_t max_corners, double quality_level,
                                          double min_distance, int32_t block_size, int32_t subpixel,
                                          wt_corner **out_corners, int32_t *out_count) {
    return wt::guarded("wt_detect_shi_tomasi", [&] {
        wt_status s = check_outputs("wt_detect_shi_tomasi", out_corners, out_count);
        if (s == WT_OK) s = wt::check_image("wt_detect_shi_tomasi", pixels, width, height, 1);
        if (s != WT_OK) return s;
        if (!(quality_level > 0 && quality_level < 1))
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_detect_shi_tomasi: quality level must be in (0, 1)");
        if (!(min_distance >= 0)) return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_detect_shi_tomasi: negative min distance");
        if (block_size < 1) return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_detect_shi_tomasi: block size must be >= 1");
        cv::Mat image = wt::wrap(pixels, width, height, 1);
        cv::Mat mask_mat = mask ? wt::wrap(mask, width, height, 1) : cv::Mat();
        std::vector<cv::Point2f> points;
        std::vector<float> quality;
        cv::goodFeaturesToTrack(image, points, max_corners > 0 ? max_corners : 0, quality_level, min_distance,
                                mask_mat, quality, block_size, 3, false, 0.04);
        if (subpixel != 0 && !points.empty()) {
            cv::cornerSubPix(image, points, cv::Size(2, 2), cv::Size(-1, -1),
                             cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 30, 0.01));
        }
        std::vector<wt_corner> corners;
        corners.reserve(points.size());
        for (size_t i = 0; i < points.size(); ++i)
            corners.push_back({points[i].x, points[i].y, i < quality.size() ? quality[i] : 0.f});
        return output_corners(corners, out_corners, out_count);
    });
}

extern "C" wt_status wt_orb_compute(const uint8_t *pixels, int32_t width, int32_t height,
                                    const wt_orb_keypoint *keypoints, int32_t count, uint8_t *out_descriptors,
                                    uint8_t *out_valid, float *out_angles) {
    return wt::guarded("wt_orb_compute", [&] {
        wt_status s = wt::check_image("wt_orb_compute", pixels, width, height, 1);
        if (s != WT_OK) return s;
        if (count < 0 || (count > 0 && (keypoints == nullptr || out_descriptors == nullptr || out_valid == nullptr)))
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_orb_compute: NULL keypoint or output buffer");
        if (count == 0) return WT_OK;
        std::memset(out_descriptors, 0, size_t(count) * 32);
        std::memset(out_valid, 0, size_t(count));
        cv::Mat image = wt::wrap(pixels, width, height, 1);
        std::vector<cv::KeyPoint> kps;
        kps.reserve(size_t(count));
        for (int32_t i = 0; i < count; ++i) {
            const wt_orb_keypoint &k = keypoints[i];
            if (!std::isfinite(k.x) || !std::isfinite(k.y) || !std::isfinite(k.size) || !(k.size > 0))
                return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_orb_compute: keypoint " + std::to_string(i) +
                                                             " has a non-finite position or non-positive size");
            float angle = k.angle >= 0 ? k.angle : centroid_angle(image, k.x, k.y, 15);
            if (out_angles) out_angles[i] = angle;
            // class_id carries the input index through OpenCV's border filtering.
            kps.emplace_back(cv::Point2f(k.x, k.y), k.size, angle, 0.f, 0, int(i));
        }
        // ORB blurs the whole image it is given. A few keypoints in a large frame (map reuse describes the
        // ~20 new tracks of a 752x480 frame) are cheaper in a mosaic of 64x64 tiles, one per keypoint: each
        // tile holds the pixels within 32 px of its keypoint, more than the 7x7 blur of the pattern's reach
        // (about 22 px) needs, so the descriptors are OpenCV's own on the whole image.
        const int half = 32, tile = 2 * half;
        const int64_t mosaicPixels = int64_t(tile) * tile * int64_t(kps.size());
        std::vector<cv::KeyPoint> used = kps;
        cv::Mat source = image;
        if (mosaicPixels * 2 < int64_t(width) * height) {
            // OpenCV's border rule for ORB, applied here since the mosaic has no image border: the rounded
            // position at least edgeThreshold (31) px inside (measured on OpenCV 4.6, checked by the tests).
            std::vector<cv::KeyPoint> inside;
            for (const cv::KeyPoint &k : kps) {
                const int rx = cvRound(k.pt.x), ry = cvRound(k.pt.y);
                if (rx >= 31 && ry >= 31 && rx < width - 31 && ry < height - 31) inside.push_back(k);
            }
            if (inside.empty()) return WT_OK;
            const int columns = std::min<int>(int(inside.size()), 16);
            const int rows = (int(inside.size()) + columns - 1) / columns;
            cv::Mat mosaic(rows * tile, columns * tile, CV_8UC1, cv::Scalar(0));
            used.clear();
            for (size_t t = 0; t < inside.size(); ++t) {
                const cv::KeyPoint &k = inside[t];
                const int cx = cvRound(k.pt.x), cy = cvRound(k.pt.y);
                const int x0 = cx - half, y0 = cy - half;
                const cv::Rect wanted(x0, y0, tile, tile);
                const cv::Rect have = wanted & cv::Rect(0, 0, width, height);
                const int ox = int(t % columns) * tile, oy = int(t / columns) * tile;
                cv::Mat dst = mosaic(cv::Rect(ox, oy, tile, tile));
                cv::copyMakeBorder(image(have), dst, have.y - y0, y0 + tile - have.y - have.height,
                                   have.x - x0, x0 + tile - have.x - have.width, cv::BORDER_REFLECT_101);
                cv::KeyPoint moved = k;
                moved.pt = cv::Point2f(float(ox + half) + (k.pt.x - float(cx)), float(oy + half) + (k.pt.y - float(cy)));
                used.push_back(moved);
            }
            source = mosaic;
        }
        cv::Mat descriptors;
        cv::Ptr<cv::ORB> orb = cv::ORB::create();
        orb->compute(source, used, descriptors);
        kps = used;
        if (!descriptors.empty() && (descriptors.cols != 32 || descriptors.rows != int(kps.size())))
            return wt::fail(WT_ERR_OPENCV, "wt_orb_compute: unexpected descriptor matrix shape");
        for (size_t r = 0; r < kps.size(); ++r) {
            int index = kps[r].class_id;
            if (index < 0 || index >= count) return wt::fail(WT_ERR_OPENCV, "wt_orb_compute: lost keypoint index");
            std::memcpy(out_descriptors + size_t(index) * 32, descriptors.ptr<uint8_t>(int(r)), 32);
            out_valid[index] = 1;
        }
        return WT_OK;
    });
}
