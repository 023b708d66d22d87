// Error state, initialisation and memory helpers of the C-interop layer.
#include "wt_internal.hpp"
#include <opencv2/core/ocl.hpp>
#include <cstdlib>
#include <cstring>
#include <mutex>

static thread_local std::string g_last_error;
static std::once_flag g_init_once;

namespace wt {

wt_status fail(wt_status status, const std::string &message) {
    try {
        g_last_error = message;
    } catch (...) {
        // Out of memory while recording the message: keep the status.
    }
    return status;
}

void clear_error() { g_last_error.clear(); }

std::shared_mutex &runtime_mutex() {
    static std::shared_mutex mutex;
    return mutex;
}

void ensure_initialized() {
    std::call_once(g_init_once, [] {
        cv::setNumThreads(1);
        cv::ocl::setUseOpenCL(false);
    });
}

wt_status check_image(const char *function, const void *pixels, int32_t width, int32_t height,
                      int32_t channels) {
    if (pixels == nullptr)
        return fail(WT_ERR_INVALID_ARGUMENT, std::string(function) + ": pixel buffer is NULL");
    if (width <= 0 || height <= 0)
        return fail(WT_ERR_INVALID_ARGUMENT, std::string(function) + ": image size " +
                                                 std::to_string(width) + "x" +
                                                 std::to_string(height) + " is empty or negative");
    if (channels != 1 && channels != 3)
        return fail(WT_ERR_INVALID_ARGUMENT, std::string(function) + ": channels must be 1 or 3, got " +
                                                 std::to_string(channels));
    return WT_OK;
}

uint8_t *copy_out(const void *bytes, size_t count) {
    void *buffer = std::malloc(count == 0 ? 1 : count);
    if (buffer == nullptr) throw std::bad_alloc();
    if (count > 0) std::memcpy(buffer, bytes, count);
    return static_cast<uint8_t *>(buffer);
}

} // namespace wt

extern "C" const char *wt_last_error(void) { return g_last_error.c_str(); }
extern "C" const char *wt_opencv_version(void) { return CV_VERSION; }

extern "C" wt_status wt_set_num_threads(int32_t threads) {
    try {
        wt::ensure_initialized();
        wt::clear_error();
        if (threads < 1)
            return wt::fail(WT_ERR_INVALID_ARGUMENT,
                            "wt_set_num_threads: thread count must be >= 1, got " + std::to_string(threads));
        // Exclusively: no other thread is inside OpenCV while its thread pool is rebuilt.
        std::unique_lock<std::shared_mutex> settings(wt::runtime_mutex());
        cv::setNumThreads(threads);
        return WT_OK;
    } catch (const std::exception &e) {
        return wt::fail(WT_ERR_UNKNOWN, std::string("wt_set_num_threads: ") + e.what());
    } catch (...) {
        return wt::fail(WT_ERR_UNKNOWN, "wt_set_num_threads: unknown C++ exception");
    }
}

extern "C" int32_t wt_get_num_threads(void) {
    try {
        wt::ensure_initialized();
        std::shared_lock<std::shared_mutex> settings(wt::runtime_mutex());
        return cv::getNumThreads();
    } catch (...) {
        return 1;
    }
}

extern "C" void wt_free(void *buffer) { std::free(buffer); }
