#include "wt_opencv.h"
#include <opencv2/core.hpp>
#include <string>

static thread_local std::string g_last_error;

extern "C" const char *wt_last_error(void) { return g_last_error.c_str(); }
extern "C" const char *wt_opencv_version(void) { return CV_VERSION; }
