/* WorldTrack's C-interop layer over OpenCV 4.6: a pure C API (no C++ types cross it).
 * Every function catches C++ exceptions and returns a wt_status; the message of the last
 * failure on the calling thread is available from wt_last_error(). */
#ifndef WORLDTRACK_WT_OPENCV_H
#define WORLDTRACK_WT_OPENCV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes: 0 is success, negative values are failures. */
typedef enum wt_status {
    WT_OK = 0,
    WT_ERR_INVALID_ARGUMENT = -1,
    WT_ERR_DECODE = -2,
    WT_ERR_ENCODE = -3,
    WT_ERR_IO = -4,
    WT_ERR_OPENCV = -5,
    WT_ERR_OUT_OF_MEMORY = -6,
    WT_ERR_UNKNOWN = -99
} wt_status;

/** The message of the last failure on this thread (empty when none). Valid until the next call. */
const char *wt_last_error(void);

/** OpenCV's version string, e.g. "4.6.0". */
const char *wt_opencv_version(void);

#ifdef __cplusplus
}
#endif
#endif
