// Contrast normalisation of gray images: CLAHE and global histogram equalisation.
#include "wt_internal.hpp"
#include <opencv2/imgproc.hpp>

extern "C" wt_status wt_clahe(const uint8_t *pixels, int32_t width, int32_t height, double clip_limit,
                              int32_t tiles_x, int32_t tiles_y, uint8_t *out_pixels) {
    return wt::guarded("wt_clahe", [&] {
        wt_status s = wt::check_image("wt_clahe", pixels, width, height, 1);
        if (s == WT_OK) s = wt::check_image("wt_clahe", out_pixels, width, height, 1);
        if (s != WT_OK) return s;
        if (!(clip_limit > 0) || tiles_x < 1 || tiles_y < 1)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_clahe: need clip limit > 0 and at least one tile per axis");
        cv::Mat src = wt::wrap(pixels, width, height, 1), dst = wt::wrap(out_pixels, width, height, 1);
        cv::Mat result;
        cv::createCLAHE(clip_limit, cv::Size(tiles_x, tiles_y))->apply(src, result);
        result.copyTo(dst);
        return WT_OK;
    });
}

extern "C" wt_status wt_equalize_histogram(const uint8_t *pixels, int32_t width, int32_t height,
                                           uint8_t *out_pixels) {
    return wt::guarded("wt_equalize_histogram", [&] {
        wt_status s = wt::check_image("wt_equalize_histogram", pixels, width, height, 1);
        if (s == WT_OK) s = wt::check_image("wt_equalize_histogram", out_pixels, width, height, 1);
        if (s != WT_OK) return s;
        cv::Mat result;
        cv::equalizeHist(wt::wrap(pixels, width, height, 1), result);
        cv::Mat dst = wt::wrap(out_pixels, width, height, 1);
        result.copyTo(dst);
        return WT_OK;
    });
}
