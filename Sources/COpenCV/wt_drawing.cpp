// Drawing into caller-owned gray or BGR pixels (lines, circles, rectangles, polygons, text).
#include "wt_internal.hpp"
#include <opencv2/imgproc.hpp>
#include <cmath>
#include <vector>

namespace {

/// Sub-pixel bits for OpenCV's fixed-point drawing coordinates.
constexpr int kShift = 4;
constexpr double kScale = 1 << kShift;

cv::Point fixed(double x, double y) { return cv::Point(int(std::lround(x * kScale)), int(std::lround(y * kScale))); }

bool finite(std::initializer_list<double> values) {
    for (double v : values)
        if (!std::isfinite(v) || std::fabs(v) > 1e6) return false;
    return true;
}

wt_status check_canvas(const char *function, const wt_canvas &canvas, int32_t thickness, bool allow_fill) {
    wt_status s = wt::check_image(function, canvas.pixels, canvas.width, canvas.height, canvas.channels);
    if (s != WT_OK) return s;
    if (thickness == 0 || thickness > 255 || (!allow_fill && thickness < 0))
        return wt::fail(WT_ERR_INVALID_ARGUMENT, std::string(function) + ": thickness must be in 1...255" +
                                                     (allow_fill ? " (or negative to fill)" : ""));
    return WT_OK;
}

cv::Scalar scalar(const wt_color &c) { return cv::Scalar(c.b, c.g, c.r); }
int line_type(int32_t antialiased) { return antialiased ? cv::LINE_AA : cv::LINE_8; }

wt_status points_to_fixed(const char *function, const double *points, int32_t count, int32_t minimum,
                          std::vector<cv::Point> &out) {
    if (points == nullptr || count < minimum)
        return wt::fail(WT_ERR_INVALID_ARGUMENT,
                        std::string(function) + ": need at least " + std::to_string(minimum) + " points");
    out.resize(size_t(count));
    for (int32_t i = 0; i < count; ++i) {
        if (!finite({points[2 * i], points[2 * i + 1]}))
            return wt::fail(WT_ERR_INVALID_ARGUMENT, std::string(function) + ": point " + std::to_string(i) +
                                                         " is not finite or beyond 1e6 pixels");
        out[size_t(i)] = fixed(points[2 * i], points[2 * i + 1]);
    }
    return WT_OK;
}

cv::Mat target(const wt_canvas &c) { return wt::wrap(c.pixels, c.width, c.height, c.channels); }

} // namespace

extern "C" wt_status wt_draw_line(wt_canvas canvas, double x0, double y0, double x1, double y1, wt_color color,
                                  int32_t thickness, int32_t antialiased) {
    return wt::guarded("wt_draw_line", [&] {
        wt_status s = check_canvas("wt_draw_line", canvas, thickness, false);
        if (s != WT_OK) return s;
        if (!finite({x0, y0, x1, y1}))
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_draw_line: end point not finite or beyond 1e6 pixels");
        cv::Mat m = target(canvas);
        cv::line(m, fixed(x0, y0), fixed(x1, y1), scalar(color), thickness, line_type(antialiased), kShift);
        return WT_OK;
    });
}

extern "C" wt_status wt_draw_circle(wt_canvas canvas, double cx, double cy, double radius, wt_color color,
                                    int32_t thickness, int32_t antialiased) {
    return wt::guarded("wt_draw_circle", [&] {
        wt_status s = check_canvas("wt_draw_circle", canvas, thickness, true);
        if (s != WT_OK) return s;
        if (!finite({cx, cy, radius}) || radius < 0)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_draw_circle: centre or radius not finite, or negative radius");
        cv::Mat m = target(canvas);
        cv::circle(m, fixed(cx, cy), int(std::lround(radius * kScale)), scalar(color), thickness < 0 ? cv::FILLED : thickness,
                   line_type(antialiased), kShift);
        return WT_OK;
    });
}

extern "C" wt_status wt_draw_rectangle(wt_canvas canvas, double x0, double y0, double x1, double y1, wt_color color,
                                       int32_t thickness) {
    return wt::guarded("wt_draw_rectangle", [&] {
        wt_status s = check_canvas("wt_draw_rectangle", canvas, thickness, true);
        if (s != WT_OK) return s;
        if (!finite({x0, y0, x1, y1}))
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_draw_rectangle: corner not finite or beyond 1e6 pixels");
        cv::Mat m = target(canvas);
        cv::rectangle(m, fixed(x0, y0), fixed(x1, y1), scalar(color), thickness < 0 ? cv::FILLED : thickness,
                      cv::LINE_8, kShift);
        return WT_OK;
    });
}

extern "C" wt_status wt_draw_polyline(wt_canvas canvas, const double *points, int32_t count, int32_t closed,
                                      wt_color color, int32_t thickness, int32_t antialiased) {
    return wt::guarded("wt_draw_polyline", [&] {
        wt_status s = check_canvas("wt_draw_polyline", canvas, thickness, false);
        std::vector<cv::Point> pts;
        if (s == WT_OK) s = points_to_fixed("wt_draw_polyline", points, count, 2, pts);
        if (s != WT_OK) return s;
        cv::Mat m = target(canvas);
        std::vector<std::vector<cv::Point>> polylines{pts};
        cv::polylines(m, polylines, closed != 0, scalar(color), thickness, line_type(antialiased), kShift);
        return WT_OK;
    });
}

extern "C" wt_status wt_fill_polygon(wt_canvas canvas, const double *points, int32_t count, wt_color color,
                                     int32_t antialiased) {
    return wt::guarded("wt_fill_polygon", [&] {
        wt_status s = check_canvas("wt_fill_polygon", canvas, 1, false);
        std::vector<cv::Point> pts;
        if (s == WT_OK) s = points_to_fixed("wt_fill_polygon", points, count, 3, pts);
        if (s != WT_OK) return s;
        cv::Mat m = target(canvas);
        std::vector<std::vector<cv::Point>> polygons{pts};
        cv::fillPoly(m, polygons, scalar(color), line_type(antialiased), kShift);
        return WT_OK;
    });
}

extern "C" wt_status wt_draw_text(wt_canvas canvas, const char *text, double x, double y, double scale,
                                  wt_color color, int32_t thickness, int32_t antialiased) {
    return wt::guarded("wt_draw_text", [&] {
        wt_status s = check_canvas("wt_draw_text", canvas, thickness, false);
        if (s != WT_OK) return s;
        if (text == nullptr) return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_draw_text: text is NULL");
        if (!finite({x, y, scale}) || !(scale > 0))
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_draw_text: position not finite or scale not positive");
        cv::Mat m = target(canvas);
        cv::putText(m, text, cv::Point(int(std::lround(x)), int(std::lround(y))), cv::FONT_HERSHEY_SIMPLEX, scale,
                    scalar(color), thickness, line_type(antialiased));
        return WT_OK;
    });
}

extern "C" wt_status wt_text_size(const char *text, double scale, int32_t thickness, int32_t *out_width,
                                  int32_t *out_height, int32_t *out_baseline) {
    return wt::guarded("wt_text_size", [&] {
        if (text == nullptr || !(scale > 0) || thickness < 1)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_text_size: need text, scale > 0 and thickness >= 1");
        int baseline = 0;
        cv::Size size = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, scale, thickness, &baseline);
        if (out_width) *out_width = size.width;
        if (out_height) *out_height = size.height;
        if (out_baseline) *out_baseline = baseline;
        return WT_OK;
    });
}
