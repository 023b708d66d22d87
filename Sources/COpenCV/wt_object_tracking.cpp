// Single-object tracking (OpenCV contrib's CSRT tracker) and template matching for re-detection.
#include "wt_internal.hpp"
#include <opencv2/imgproc.hpp>
#include <opencv2/tracking.hpp>
#include <cmath>

struct wt_object_tracker {
    cv::Ptr<cv::TrackerCSRT> tracker;
};

namespace {
bool valid_box(const wt_box &b) {
    return std::isfinite(b.x) && std::isfinite(b.y) && std::isfinite(b.width) && std::isfinite(b.height) &&
           b.width >= 4 && b.height >= 4;
}
cv::Rect to_rect(const wt_box &b) {
    return cv::Rect(static_cast<int>(std::lround(b.x)), static_cast<int>(std::lround(b.y)),
                    static_cast<int>(std::lround(b.width)), static_cast<int>(std::lround(b.height)));
}
}  // namespace

extern "C" wt_status wt_object_tracker_create(const uint8_t *pixels, int32_t width, int32_t height, wt_box box,
                                              wt_object_tracker **out_tracker) {
    return wt::guarded("wt_object_tracker_create", [&] {
        if (out_tracker == nullptr) return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_object_tracker_create: NULL output pointer");
        *out_tracker = nullptr;
        wt_status s = wt::check_image("wt_object_tracker_create", pixels, width, height, 1);
        if (s != WT_OK) return s;
        cv::Rect rect = to_rect(box);
        if (!valid_box(box) || (rect & cv::Rect(0, 0, width, height)) != rect)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_object_tracker_create: the box must be at least 4x4 pixels and inside the image");
        auto *t = new wt_object_tracker();
        try {
            cv::TrackerCSRT::Params params;
            params.use_segmentation = false;  // gray images: no colour histograms
            params.use_color_names = false;
            params.use_rgb = false;
            t->tracker = cv::TrackerCSRT::create(params);
            t->tracker->init(wt::wrap(pixels, width, height, 1), rect);
        } catch (...) {
            delete t;
            throw;
        }
        *out_tracker = t;
        return WT_OK;
    });
}

extern "C" wt_status wt_object_tracker_update(wt_object_tracker *tracker, const uint8_t *pixels, int32_t width,
                                              int32_t height, wt_box *out_box, int32_t *out_found) {
    return wt::guarded("wt_object_tracker_update", [&] {
        if (tracker == nullptr || out_box == nullptr || out_found == nullptr)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_object_tracker_update: NULL argument");
        wt_status s = wt::check_image("wt_object_tracker_update", pixels, width, height, 1);
        if (s != WT_OK) return s;
        cv::Rect rect;
        bool found = tracker->tracker->update(wt::wrap(pixels, width, height, 1), rect);
        *out_box = wt_box{static_cast<double>(rect.x), static_cast<double>(rect.y), static_cast<double>(rect.width),
                          static_cast<double>(rect.height)};
        *out_found = found ? 1 : 0;
        return WT_OK;
    });
}

extern "C" void wt_object_tracker_destroy(wt_object_tracker *tracker) { delete tracker; }

extern "C" wt_status wt_match_template(const uint8_t *pixels, int32_t width, int32_t height, const uint8_t *templ,
                                       int32_t templ_width, int32_t templ_height, int32_t scaled_width,
                                       int32_t scaled_height, wt_box search, double *out_score, double *out_x,
                                       double *out_y) {
    return wt::guarded("wt_match_template", [&] {
        if (out_score == nullptr || out_x == nullptr || out_y == nullptr)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_match_template: NULL output pointer");
        wt_status s = wt::check_image("wt_match_template", pixels, width, height, 1);
        if (s != WT_OK) return s;
        s = wt::check_image("wt_match_template (template)", templ, templ_width, templ_height, 1);
        if (s != WT_OK) return s;
        if (scaled_width < 4 || scaled_height < 4)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_match_template: the scaled template must be at least 4x4 pixels");
        if (!std::isfinite(search.x) || !std::isfinite(search.y) || !std::isfinite(search.width) || !std::isfinite(search.height))
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_match_template: the search region is not finite");
        cv::Rect region = to_rect(search) & cv::Rect(0, 0, width, height);
        if (region.width < scaled_width || region.height < scaled_height)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_match_template: the search region (clipped to the image) is smaller than the template");
        cv::Mat t = wt::wrap(templ, templ_width, templ_height, 1);
        cv::Mat scaled;
        if (scaled_width == templ_width && scaled_height == templ_height) {
            scaled = t;
        } else {
            cv::resize(t, scaled, cv::Size(scaled_width, scaled_height), 0, 0, cv::INTER_AREA);
        }
        cv::Mat result;
        cv::matchTemplate(wt::wrap(pixels, width, height, 1)(region), scaled, result, cv::TM_CCOEFF_NORMED);
        double best = 0;
        cv::Point at;
        cv::minMaxLoc(result, nullptr, &best, nullptr, &at);
        *out_score = std::isfinite(best) ? best : -1;
        *out_x = region.x + at.x;
        *out_y = region.y + at.y;
        return WT_OK;
    });
}
