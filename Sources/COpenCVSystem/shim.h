// OpenCV's version macros: the one OpenCV header that is plain C. It is here so the module map names a
// header; the real includes are in Sources/COpenCV (C++17).
#ifndef WORLDTRACK_COPENCVSYSTEM_SHIM_H
#define WORLDTRACK_COPENCVSYSTEM_SHIM_H
#include <opencv2/core/version.hpp>
#endif
