// RANSAC epipolar geometry: essential and fundamental matrices, and pose from an essential matrix.
#include "wt_internal.hpp"
#include <opencv2/calib3d.hpp>
#include <cmath>
#include <cstring>
#include <vector>

namespace {

wt_status check_points(const char *function, const double *p1, const double *p2, int32_t count, int32_t minimum) {
    if (p1 == nullptr || p2 == nullptr) return wt::fail(WT_ERR_INVALID_ARGUMENT, std::string(function) + ": NULL points");
    if (count < minimum)
        return wt::fail(WT_ERR_INVALID_ARGUMENT, std::string(function) + ": need at least " + std::to_string(minimum) +
                                                     " correspondences, got " + std::to_string(count));
    for (int32_t i = 0; i < 2 * count; ++i)
        if (!std::isfinite(p1[i]) || !std::isfinite(p2[i]))
            return wt::fail(WT_ERR_INVALID_ARGUMENT,
                            std::string(function) + ": correspondence " + std::to_string(i / 2) + " is not finite");
    return WT_OK;
}

/// Copies the first 3x3 block of `model` and the mask; WT_ERR_OPENCV when no model was found.
wt_status output_model(const char *function, const cv::Mat &model, const cv::Mat &mask, int32_t count, double *out,
                       uint8_t *out_inliers, int32_t *out_inlier_count) {
    if (model.empty() || model.rows < 3 || model.cols != 3)
        return wt::fail(WT_ERR_OPENCV, std::string(function) + ": RANSAC found no model");
    cv::Mat m;
    model.rowRange(0, 3).convertTo(m, CV_64F);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) out[3 * r + c] = m.at<double>(r, c);
    int32_t inliers = 0;
    for (int32_t i = 0; i < count; ++i) {
        bool in = !mask.empty() && mask.ptr<uint8_t>()[i] != 0;
        if (out_inliers) out_inliers[i] = in ? 1 : 0;
        inliers += in ? 1 : 0;
    }
    if (out_inlier_count) *out_inlier_count = inliers;
    return WT_OK;
}

wt_status check_ransac(const char *function, double threshold, double confidence, int32_t max_iterations,
                       const double *out) {
    if (out == nullptr) return wt::fail(WT_ERR_INVALID_ARGUMENT, std::string(function) + ": NULL output matrix");
    if (!(threshold > 0) || !(confidence > 0 && confidence < 1) || max_iterations < 1)
        return wt::fail(WT_ERR_INVALID_ARGUMENT,
                        std::string(function) + ": need threshold > 0, confidence in (0, 1), max iterations >= 1");
    return WT_OK;
}

} // namespace

namespace {

wt_status find_essential(const char *function, int method, const double *points1, const double *points2,
                         int32_t count, double threshold, double confidence, int32_t max_iterations, double out_E[9],
                         uint8_t *out_inliers, int32_t *out_inlier_count) {
    return wt::guarded(function, [&] {
        wt_status s = check_points(function, points1, points2, count, 5);
        if (s == WT_OK) s = check_ransac(function, threshold, confidence, max_iterations, out_E);
        if (s != WT_OK) return s;
        cv::Mat p1(count, 1, CV_64FC2, const_cast<double *>(points1));
        cv::Mat p2(count, 1, CV_64FC2, const_cast<double *>(points2));
        cv::Mat mask;
        cv::Mat E = cv::findEssentialMat(p1, p2, cv::Mat::eye(3, 3, CV_64F), method, confidence, threshold,
                                         max_iterations, mask);
        return output_model(function, E, mask, count, out_E, out_inliers, out_inlier_count);
    });
}

} // namespace

extern "C" wt_status wt_find_essential(const double *points1, const double *points2, int32_t count, double threshold,
                                       double confidence, int32_t max_iterations, double out_E[9],
                                       uint8_t *out_inliers, int32_t *out_inlier_count) {
    return find_essential("wt_find_essential", cv::RANSAC, points1, points2, count, threshold, confidence,
                          max_iterations, out_E, out_inliers, out_inlier_count);
}

extern "C" wt_status wt_find_essential_usac(const double *points1, const double *points2, int32_t count,
                                            double threshold, double confidence, int32_t max_iterations,
                                            double out_E[9], uint8_t *out_inliers, int32_t *out_inlier_count) {
    return find_essential("wt_find_essential_usac", cv::USAC_DEFAULT, points1, points2, count, threshold, confidence,
                          max_iterations, out_E, out_inliers, out_inlier_count);
}

extern "C" wt_status wt_find_fundamental(const double *points1, const double *points2, int32_t count,
                                         double threshold, double confidence, int32_t max_iterations,
                                         double out_F[9], uint8_t *out_inliers, int32_t *out_inlier_count) {
    return wt::guarded("wt_find_fundamental", [&] {
        wt_status s = check_points("wt_find_fundamental", points1, points2, count, 8);
        if (s == WT_OK) s = check_ransac("wt_find_fundamental", threshold, confidence, max_iterations, out_F);
        if (s != WT_OK) return s;
        cv::Mat p1(count, 1, CV_64FC2, const_cast<double *>(points1));
        cv::Mat p2(count, 1, CV_64FC2, const_cast<double *>(points2));
        cv::Mat mask;
        cv::Mat F = cv::findFundamentalMat(p1, p2, cv::FM_RANSAC, threshold, confidence, max_iterations, mask);
        return output_model("wt_find_fundamental", F, mask, count, out_F, out_inliers, out_inlier_count);
    });
}

extern "C" wt_status wt_recover_pose(const double E[9], const double *points1, const double *points2, int32_t count,
                                     const uint8_t *inliers, double out_R[9], double out_t[3], uint8_t *out_inliers,
                                     int32_t *out_good_count) {
    return wt::guarded("wt_recover_pose", [&] {
        wt_status s = check_points("wt_recover_pose", points1, points2, count, 5);
        if (s != WT_OK) return s;
        if (E == nullptr || out_R == nullptr || out_t == nullptr)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_recover_pose: NULL matrix");
        cv::Mat p1(count, 1, CV_64FC2, const_cast<double *>(points1));
        cv::Mat p2(count, 1, CV_64FC2, const_cast<double *>(points2));
        cv::Mat e(3, 3, CV_64F, const_cast<double *>(E));
        cv::Mat mask(count, 1, CV_8U);
        for (int32_t i = 0; i < count; ++i) mask.at<uint8_t>(i) = inliers ? (inliers[i] ? 255 : 0) : 255;
        cv::Mat R, t;
        int good = cv::recoverPose(e, p1, p2, cv::Mat::eye(3, 3, CV_64F), R, t, mask);
        R.convertTo(R, CV_64F);
        t.convertTo(t, CV_64F);
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 3; ++c) out_R[3 * r + c] = R.at<double>(r, c);
            out_t[r] = t.at<double>(r);
        }
        if (out_inliers)
            for (int32_t i = 0; i < count; ++i) out_inliers[i] = mask.at<uint8_t>(i) ? 1 : 0;
        if (out_good_count) *out_good_count = good;
        return WT_OK;
    });
}

extern "C" wt_status wt_decompose_essential(const double E[9], double out_R1[9], double out_R2[9], double out_t[3]) {
    return wt::guarded("wt_decompose_essential", [&] {
        if (E == nullptr || out_R1 == nullptr || out_R2 == nullptr || out_t == nullptr)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_decompose_essential: NULL matrix");
        for (int i = 0; i < 9; ++i)
            if (!std::isfinite(E[i])) return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_decompose_essential: non-finite entry");
        cv::Mat e(3, 3, CV_64F, const_cast<double *>(E));
        cv::Mat R1, R2, t;
        cv::decomposeEssentialMat(e, R1, R2, t);
        R1.convertTo(R1, CV_64F);
        R2.convertTo(R2, CV_64F);
        t.convertTo(t, CV_64F);
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 3; ++c) {
                out_R1[3 * r + c] = R1.at<double>(r, c);
                out_R2[3 * r + c] = R2.at<double>(r, c);
            }
            out_t[r] = t.at<double>(r);
        }
        return WT_OK;
    });
}
