// Point undistortion to normalised coordinates: radial-tangential and equidistant (fisheye).
#include "wt_internal.hpp"
#include <opencv2/calib3d.hpp>
#include <cmath>
#include <cstring>
#include <limits>
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

/// Largest re-projection residual (pixels) accepted as a converged undistortion.
constexpr double kMaxResidualPixels = 1e-3;

/// Writes `undistorted` to `out`, replacing by NaN every point that is not finite or whose
/// re-distorted projection `reprojected` misses the input pixel by more than kMaxResidualPixels
/// (a diverged or non-converged inversion, e.g. beyond the lens model's valid field of view).
void output_validated(const double *pixels, int32_t count, const cv::Mat &undistorted,
                      const std::vector<cv::Point2d> &reprojected, double *out) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int32_t i = 0; i < count; ++i) {
        cv::Point2d u = undistorted.at<cv::Point2d>(i);
        cv::Point2d r = reprojected[size_t(i)];
        double dx = r.x - pixels[2 * i], dy = r.y - pixels[2 * i + 1];
        bool ok = std::isfinite(u.x) && std::isfinite(u.y) && std::isfinite(dx) && std::isfinite(dy) &&
                  std::sqrt(dx * dx + dy * dy) <= kMaxResidualPixels;
        out[2 * i] = ok ? u.x : nan;
        out[2 * i + 1] = ok ? u.y : nan;
    }
}

/// The undistorted points as 3-D rays (x, y, 1) for re-projection.
std::vector<cv::Point3d> rays(const cv::Mat &undistorted) {
    std::vector<cv::Point3d> out(undistorted.total());
    for (size_t i = 0; i < out.size(); ++i) {
        cv::Point2d u = undistorted.at<cv::Point2d>(int(i));
        out[i] = cv::Point3d(std::isfinite(u.x) ? u.x : 0, std::isfinite(u.y) ? u.y : 0, 1);
    }
    return out;
}

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
        dst = dst.reshape(2, count);
        std::vector<cv::Point2d> reprojected;
        cv::projectPoints(rays(dst), cv::Vec3d(0, 0, 0), cv::Vec3d(0, 0, 0), camera_matrix(intrinsics), dist,
                          reprojected);
        output_validated(pixels, count, dst, reprojected, out_normalized);
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
        dst = dst.reshape(2, count);
        std::vector<cv::Point2d> reprojected;
        cv::fisheye::projectPoints(rays(dst), reprojected, cv::Vec3d(0, 0, 0), cv::Vec3d(0, 0, 0),
                                   camera_matrix(intrinsics), dist);
        output_validated(pixels, count, dst, reprojected, out_normalized);
        return WT_OK;
    });
}
