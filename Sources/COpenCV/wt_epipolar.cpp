// RANSAC epipolar geometry: essential and fundamental matrices, and pose from an essential matrix.
#include "wt_five_point.hpp"
#include "wt_internal.hpp"
#include <opencv2/calib3d.hpp>
#include <algorithm>
#include <cfloat>
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

namespace {

/// The Sampson distance of correspondence i to the epipolar geometry E, squared and rounded to float: OpenCV's
/// `EMEstimatorCallback::computeError`, term for term, so that the inlier test decides as OpenCV's does.
inline float sampson_error(const double E[9], const double *p1, const double *p2, int32_t i) {
    double x1 = p1[2 * i], y1 = p1[2 * i + 1], x2 = p2[2 * i], y2 = p2[2 * i + 1];
    double Ex1_0 = E[0] * x1 + E[1] * y1 + E[2];
    double Ex1_1 = E[3] * x1 + E[4] * y1 + E[5];
    double Ex1_2 = E[6] * x1 + E[7] * y1 + E[8];
    double Etx2_0 = E[0] * x2 + E[3] * y2 + E[6];
    double Etx2_1 = E[1] * x2 + E[4] * y2 + E[7];
    double x2tEx1 = x2 * Ex1_0 + y2 * Ex1_1 + Ex1_2;
    double denominator = Ex1_0 * Ex1_0 + Ex1_1 * Ex1_1 + Etx2_0 * Etx2_0 + Etx2_1 * Etx2_1;
    return (float)(x2tEx1 * x2tEx1 / denominator);
}

/// The correspondences whose Sampson error under E is within `bound` (squared, float): their number; their flags
/// in `out_mask` (count bytes) and their summed squared Sampson error in `out_error` when given.
int inlier_count(const double E[9], const double *p1, const double *p2, int32_t count, float bound,
                 uint8_t *out_mask = nullptr, double *out_error = nullptr) {
    int good = 0;
    double error = 0;
    for (int32_t i = 0; i < count; ++i) {
        float e = sampson_error(E, p1, p2, i);
        uint8_t in = e <= bound;
        if (out_mask) out_mask[i] = in;
        good += in;
        if (in) error += e;
    }
    if (out_error) *out_error = error;
    return good;
}

/// The iterations a RANSAC needs for `confidence` with an outlier fraction `outliers` and samples of
/// `sample_size` (OpenCV's `RANSACUpdateNumIters`: never more than `max_iterations`).
int ransac_iterations(double confidence, double outliers, int sample_size, int max_iterations) {
    confidence = std::min(std::max(confidence, 0.0), 1.0);
    outliers = std::min(std::max(outliers, 0.0), 1.0);
    double numerator = std::max(1.0 - confidence, DBL_MIN);
    double denominator = 1.0 - std::pow(1.0 - outliers, sample_size);
    if (denominator < DBL_MIN) return 0;
    numerator = std::log(numerator);
    denominator = std::log(denominator);
    return denominator >= 0 || -numerator >= max_iterations * (-denominator)
               ? max_iterations
               : (int)std::lrint(numerator / denominator);
}

} // namespace

extern "C" wt_status wt_find_essential_fast(const double *points1, const double *points2, int32_t count,
                                            double threshold, double confidence, int32_t max_iterations,
                                            double out_E[9], uint8_t *out_inliers, int32_t *out_inlier_count) {
    // OpenCV's classic RANSAC (`cv::findEssentialMat(…, cv::RANSAC, …)`, identity K) step for step: the same
    // random samples (cv::RNG seeded with ~0, five distinct indices drawn in turn), the same float Sampson test,
    // the same strict "more inliers" rule and iteration update. Two things differ: the five-point solver is our
    // own (wt_five_point.cpp), and a model with as many inliers as the best one replaces it when its inliers'
    // summed Sampson error is smaller. OpenCV keeps the first of such a tie, in the order its root finder lists
    // the solutions, which means nothing; ties are common on real frames, where several solutions of the sample
    // that first reaches every track all explain every track within the threshold, and RANSAC stops there.
    return wt::guarded("wt_find_essential_fast", [&] {
        wt_status s = check_points("wt_find_essential_fast", points1, points2, count, 5);
        if (s == WT_OK) s = check_ransac("wt_find_essential_fast", threshold, confidence, max_iterations, out_E);
        if (s != WT_OK) return s;
        const int sample_size = 5;
        double models[wt::kMaxFivePointSolutions][9];
        std::vector<uint8_t> best_mask(count, 0);
        double best[9];
        int best_count = 0;
        double best_error = 0; // the best model's inliers' summed squared Sampson error
        if (count == sample_size) {
            if (wt::five_point_essentials(points1, points2, models) <= 0)
                return wt::fail(WT_ERR_OPENCV, "wt_find_essential_fast: RANSAC found no model");
            std::memcpy(best, models[0], sizeof(best));
            std::fill(best_mask.begin(), best_mask.end(), 1);
            best_count = count;
        } else {
            cv::RNG rng((uint64_t)-1);
            const float bound = (float)(threshold * threshold);
            int iterations = std::max<int>(max_iterations, 1);
            for (int iteration = 0; iteration < iterations; ++iteration) {
                int index[sample_size];
                double sample1[2 * sample_size], sample2[2 * sample_size];
                for (int i = 0; i < sample_size; ++i) {
                    for (;;) {
                        index[i] = rng.uniform(0, count);
                        int j = 0;
                        while (j < i && index[j] != index[i]) ++j;
                        if (j == i) break;
                    }
                    sample1[2 * i] = points1[2 * index[i]];
                    sample1[2 * i + 1] = points1[2 * index[i] + 1];
                    sample2[2 * i] = points2[2 * index[i]];
                    sample2[2 * i + 1] = points2[2 * index[i] + 1];
                }
                int solutions = wt::five_point_essentials(sample1, sample2, models);
                for (int m = 0; m < solutions; ++m) {
                    double error = 0;
                    int good = inlier_count(models[m], points1, points2, count, bound, nullptr, &error);
                    if (good > std::max(best_count, sample_size - 1) ||
                        (good == best_count && good >= sample_size && error < best_error)) {
                        // More inliers than the best model; or as many, fitted more closely (the iterations needed
                        // do not change then). OpenCV keeps the first of a tie in the order its root finder lists.
                        std::memcpy(best, models[m], sizeof(best));
                        best_error = error;
                        if (good > best_count) {
                            best_count = good;
                            iterations = ransac_iterations(confidence, (double)(count - good) / count, sample_size,
                                                           iterations);
                        }
                    }
                }
            }
            if (best_count == 0) return wt::fail(WT_ERR_OPENCV, "wt_find_essential_fast: RANSAC found no model");
            inlier_count(best, points1, points2, count, bound, best_mask.data());
        }
        std::memcpy(out_E, best, sizeof(best));
        if (out_inliers) std::memcpy(out_inliers, best_mask.data(), (size_t)count);
        if (out_inlier_count) *out_inlier_count = best_count;
        return WT_OK;
    });
}

extern "C" wt_status wt_find_essential(const double *points1, const double *points2, int32_t count, double threshold,
                                       double confidence, int32_t max_iterations, double out_E[9],
                                       uint8_t *out_inliers, int32_t *out_inlier_count) {
    return find_essential("wt_find_essential", cv::RANSAC, points1, points2, count, threshold, confidence,
                          max_iterations, out_E, out_inliers, out_inlier_count);
}

extern "C" wt_status wt_essential_five_point(const double points1[10], const double points2[10], double out_E[90],
                                             int32_t *out_count) {
    return wt::guarded("wt_essential_five_point", [&] {
        if (points1 == nullptr || points2 == nullptr || out_E == nullptr || out_count == nullptr)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_essential_five_point: NULL argument");
        wt_status s = check_points("wt_essential_five_point", points1, points2, 5, 5);
        if (s != WT_OK) return s;
        double models[wt::kMaxFivePointSolutions][9];
        int n = wt::five_point_essentials(points1, points2, models);
        std::memcpy(out_E, models, sizeof(double) * 9 * (size_t)n);
        *out_count = n;
        return WT_OK;
    });
}

extern "C" wt_status wt_real_polynomial_roots(const double *coefficients, int32_t degree, double *out_roots,
                                              int32_t *out_count) {
    return wt::guarded("wt_real_polynomial_roots", [&] {
        if (coefficients == nullptr || out_roots == nullptr || out_count == nullptr)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_real_polynomial_roots: NULL argument");
        if (degree < 0 || degree > wt::kMaxPolynomialDegree)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_real_polynomial_roots: degree must be 0..." +
                                                         std::to_string(wt::kMaxPolynomialDegree) + ", got " +
                                                         std::to_string(degree));
        for (int32_t i = 0; i <= degree; ++i)
            if (!std::isfinite(coefficients[i]))
                return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_real_polynomial_roots: non-finite coefficient");
        *out_count = wt::real_polynomial_roots(coefficients, degree, out_roots);
        return WT_OK;
    });
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
