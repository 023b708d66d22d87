// Image pyramids held in opaque handles and pyramidal Lucas-Kanade tracking between them.
#include "wt_internal.hpp"
#include <opencv2/video/tracking.hpp>
#include <cmath>
#include <vector>

struct wt_pyramid {
    cv::Mat base;                 // owned copy of the image (level 0 may alias it)
    std::vector<cv::Mat> levels;  // buildOpticalFlowPyramid output (image, derivatives) per level
    int32_t win_size = 0;
    int32_t level_count = 0;
};

extern "C" wt_status wt_pyramid_create(const uint8_t *pixels, int32_t width, int32_t height, int32_t win_size,
                                       int32_t max_level, wt_pyramid **out_pyramid) {
    return wt::guarded("wt_pyramid_create", [&] {
        if (out_pyramid == nullptr) return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_pyramid_create: NULL output pointer");
        *out_pyramid = nullptr;
        wt_status s = wt::check_image("wt_pyramid_create", pixels, width, height, 1);
        if (s != WT_OK) return s;
        if (win_size < 3) return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_pyramid_create: window size must be >= 3");
        if (max_level < 0 || max_level > 16)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_pyramid_create: max level must be in 0...16");
        auto *pyramid = new wt_pyramid();
        try {
            pyramid->base = wt::wrap(pixels, width, height, 1).clone();
            int built = cv::buildOpticalFlowPyramid(pyramid->base, pyramid->levels, cv::Size(win_size, win_size),
                                                    max_level, true, cv::BORDER_REFLECT_101, cv::BORDER_CONSTANT,
                                                    true);
            pyramid->win_size = win_size;
            pyramid->level_count = built + 1;
        } catch (...) {
            delete pyramid;
            throw;
        }
        *out_pyramid = pyramid;
        return WT_OK;
    });
}

extern "C" void wt_pyramid_destroy(wt_pyramid *pyramid) { delete pyramid; }

extern "C" wt_status wt_pyramid_info(const wt_pyramid *pyramid, int32_t *out_width, int32_t *out_height,
                                     int32_t *out_win_size, int32_t *out_levels) {
    return wt::guarded("wt_pyramid_info", [&] {
        if (pyramid == nullptr) return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_pyramid_info: NULL pyramid");
        if (out_width) *out_width = pyramid->base.cols;
        if (out_height) *out_height = pyramid->base.rows;
        if (out_win_size) *out_win_size = pyramid->win_size;
        if (out_levels) *out_levels = pyramid->level_count;
        return WT_OK;
    });
}

extern "C" wt_status wt_klt_track(const wt_pyramid *prev, const wt_pyramid *next, const float *prev_points,
                                  float *next_points, int32_t count, const wt_klt_params *params,
                                  uint8_t *out_status, float *out_error) {
    return wt::guarded("wt_klt_track", [&] {
        if (prev == nullptr || next == nullptr || params == nullptr)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_klt_track: NULL pyramid or parameters");
        if (count < 0 || (count > 0 && (prev_points == nullptr || next_points == nullptr || out_status == nullptr)))
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_klt_track: NULL point or status buffer");
        if (prev->base.size() != next->base.size())
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_klt_track: the two pyramids have different image sizes");
        const wt_klt_params &p = *params;
        if (p.win_size < 3 || p.win_size % 2 == 0)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_klt_track: window size must be odd and >= 3");
        if (p.win_size > prev->win_size || p.win_size > next->win_size)
            return wt::fail(WT_ERR_INVALID_ARGUMENT,
                            "wt_klt_track: window size " + std::to_string(p.win_size) +
                                " exceeds the window size the pyramids were built for (" +
                                std::to_string(std::min(prev->win_size, next->win_size)) + ")");
        if (p.max_level < 0) return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_klt_track: negative max level");
        if (p.max_iterations < 1 || !(p.epsilon >= 0))
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_klt_track: need max iterations >= 1 and epsilon >= 0");
        if (count == 0) return WT_OK;
        const size_t n = static_cast<size_t>(count);
        std::vector<cv::Point2f> from(n), to(n);
        for (int32_t i = 0; i < count; ++i) {
            from[size_t(i)] = cv::Point2f(prev_points[2 * i], prev_points[2 * i + 1]);
            to[size_t(i)] = p.use_initial_flow ? cv::Point2f(next_points[2 * i], next_points[2 * i + 1]) : from[size_t(i)];
            if (!std::isfinite(from[size_t(i)].x) || !std::isfinite(from[size_t(i)].y) ||
                !std::isfinite(to[size_t(i)].x) || !std::isfinite(to[size_t(i)].y))
                return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_klt_track: point " + std::to_string(i) + " is not finite");
        }
        std::vector<uchar> status;
        std::vector<float> error;
        int max_level = std::min({p.max_level, prev->level_count - 1, next->level_count - 1});
        int flags = p.use_initial_flow ? cv::OPTFLOW_USE_INITIAL_FLOW : 0;
        cv::calcOpticalFlowPyrLK(prev->levels, next->levels, from, to, status, error,
                                 cv::Size(p.win_size, p.win_size), max_level,
                                 cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, p.max_iterations,
                                                  p.epsilon),
                                 flags, p.min_eig_threshold);
        for (int32_t i = 0; i < count; ++i) {
            next_points[2 * i] = to[size_t(i)].x;
            next_points[2 * i + 1] = to[size_t(i)].y;
            out_status[i] = status[size_t(i)] ? 1 : 0;
            if (out_error) out_error[i] = error[size_t(i)];
        }
        return WT_OK;
    });
}
