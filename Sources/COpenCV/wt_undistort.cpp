// Point undistortion to normalised coordinates: radial-tangential and equidistant (fisheye).
#include "wt_internal.hpp"
#include <opencv2/calib3d.hpp>
#include <cmath>
#include <cstring>
#include <vector>

namespace {

wt_status check(const char *function, const double *pixels, int32_t count, const wt_intrinsics *k,
                const double *coefficients, int32_t max_iterations, double epsilon, double *out) {
    if (count < 0 || (count > 0 && (pixels == nullptr || out == nullptr)) || k == nullptr || coefficients == nullptr)
        return wt::fail(WT_ERR_INVALID_ARGUMENT, std::string(function) + ": NULL buffer");
    if (!(k->fx != 0 && k->fy != 0 && std::isfinite(k->fx) && std::isfinite(k->fy) && std::isfinite(k->cx) &&
          std::isfinite(k->cy)))
        return wt::fail(WT_ERR_INVALID_ARGUMENT, std::string(function) + ": invalid intrinsics");
    if (max_iterations < 1 || !(epsilon >= 0))
        return wt::fail(WT_ERR_INVALID_ARGUMENT, std::string(function) + ": need max iterations >= 1, epsilon >= 0");
    return WT_OK;
}

cv::Matx33d camera_matrix(const wt_intrinsics *k) { return cv::Matx33d(k->fx, 0, k->cx, 0, k->fy, k->cy, 0, 0, 1); }

} // namespace

extern "C" wt_status wt_undistort_radtan(const double *pixels, int32_t count, const wt_intrinsics *intrinsics,
                                         const double *coefficients, int32_t coefficient_count,
                                         int32_t max_iterations, double epsilon, double *out_normalized) {
    return wt::guarded("wt_undistort_radtan", [&] {
        wt_status s = check("wt_undistort_radtan", pixels, count, intrinsics, coefficients, max_iterations, epsilon,
                            out_normalized);
        if (s != WT_OK) return s;
        if (coefficient_count != 4 && coefficient_count != 5 && coefficient_count != 8)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_undistort_radtan: coefficient count must be 4, 5 or 8");
        if (count == 0) return WT_OK;
        cv::Mat src(count, 1, CV_64FC2, const_cast<double *>(pixels));
        cv::Mat dist(1, coefficient_count, CV_64F, const_cast<double *>(coefficients));
        cv::Mat dst;
        cv::undistortPoints(src, dst, camera_matrix(intrinsics), dist, cv::noArray(), cv::noArray(),
                            cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, max_iterations, epsilon));
        dst.convertTo(dst, CV_64FC2);
        std::memcpy(out_normalized, dst.ptr<double>(), size_t(count) * 2 * sizeof(double));
        return WT_OK;
    });
}

extern "C" wt_status wt_undistort_equidistant(const double *pixels, int32_t count, const wt_intrinsics *intrinsics,
                                              const double coefficients[4], int32_t max_iterations, double epsilon,
                                              double *out_normalized) {
    return wt::guarded("wt_undistort_equidistant", [&] {
        wt_status s = check("wt_undistort_equidistant", pixels, count, intrinsics, coefficients, max_iterations,
                            epsilon, out_normalized);
        if (s != WT_OK) return s;
        if (count == 0) return WT_OK;
        cv::Mat src(count, 1, CV_64FC2, const_cast<double *>(pixels));
        cv::Vec4d dist(coefficients[0], coefficients[1], coefficients[2], coefficients[3]);
        cv::Mat dst;
        cv::fisheye::undistortPoints(src, dst, camera_matrix(intrinsics), dist, cv::noArray(), cv::noArray(),
                                     cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, max_iterations,
                                                      epsilon));
        dst.convertTo(dst, CV_64FC2);
        std::memcpy(out_normalized, dst.ptr<double>(), size_t(count) * 2 * sizeof(double));
        return WT_OK;
    });
}
