// Internal helpers shared by the C-interop translation units (not part of the public header).
#ifndef WORLDTRACK_WT_INTERNAL_HPP
#define WORLDTRACK_WT_INTERNAL_HPP

#include "wt_opencv.h"
#include <opencv2/core.hpp>
#include <exception>
#include <new>
#include <shared_mutex>
#include <string>

namespace wt {

/// Records `message` as this thread's last error and returns `status`.
wt_status fail(wt_status status, const std::string &message);

/// Clears this thread's last error.
void clear_error();

/// Applies the process-wide OpenCV settings once (threads, OpenCL off).
void ensure_initialized();

/// The process-wide OpenCV settings' lock: every call into OpenCV holds it shared, a change of the
/// settings (`wt_set_num_threads`) holds it exclusively. cv::setNumThreads tears down and rebuilds
/// OpenCV's TBB arena, which crashes a parallel_for running in it on another thread.
std::shared_mutex &runtime_mutex();

/// Runs `body` (returning wt_status) with lazy initialisation, the runtime lock held shared, a
/// cleared error and every C++ exception turned into a status plus message. Bodies never call
/// another guarded function (the shared lock is not recursive).
template <class Body> wt_status guarded(const char *function, Body &&body) {
    try {
        ensure_initialized();
        std::shared_lock<std::shared_mutex> settings(runtime_mutex());
        clear_error();
        return body();
    } catch (const cv::Exception &e) {
        return fail(WT_ERR_OPENCV, std::string(function) + ": OpenCV error: " + e.what());
    } catch (const std::bad_alloc &) {
        return fail(WT_ERR_OUT_OF_MEMORY, std::string(function) + ": out of memory");
    } catch (const std::exception &e) {
        return fail(WT_ERR_UNKNOWN, std::string(function) + ": " + e.what());
    } catch (...) {
        return fail(WT_ERR_UNKNOWN, std::string(function) + ": unknown C++ exception");
    }
}

/// Validates image dimensions and channel count; returns WT_OK or records an error.
wt_status check_image(const char *function, const void *pixels, int32_t width, int32_t height,
                      int32_t channels);

/// A cv::Mat header over caller-owned pixels (no copy).
inline cv::Mat wrap(const uint8_t *pixels, int32_t width, int32_t height, int32_t channels) {
    return cv::Mat(height, width, CV_8UC(channels), const_cast<uint8_t *>(pixels));
}

/// Copies `bytes` bytes into a malloc'd buffer (released with wt_free); throws std::bad_alloc.
uint8_t *copy_out(const void *bytes, size_t count);

} // namespace wt

#endif
