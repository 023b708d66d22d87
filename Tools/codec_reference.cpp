// Checks WorldTrack's PNG/JPEG codec (Sources/COpenCV/wt_codecs.cpp: libpng and libjpeg called directly) against
// OpenCV 4.6's imgcodecs, which it replaced, and writes the reference set the unit tests replay without imgcodecs.
//
// Not part of the package (the package must not link imgcodecs): built by hand on a machine with libopencv-dev:
//
//   g++ -std=c++17 -O2 -o /tmp/codec_reference Tools/codec_reference.cpp Sources/COpenCV/wt_codecs.cpp \
//       Sources/COpenCV/wt_png_gray.cpp Sources/COpenCV/wt_opencv.cpp -I Sources/COpenCV/include \
//       -I /usr/include/opencv4 -lopencv_imgcodecs -lopencv_imgproc -lopencv_core -lisal -lpng16 -ljpeg
//   /tmp/codec_reference [--write Tests/CodecReference] [EXTRA.png|EXTRA.jpg ...]
//
// It generates a corpus with libpng/libjpeg (every PNG colour type and bit depth, palettes with and without
// transparency, interlaced and not; gray, 4:2:0, 4:4:4, progressive and CMYK JPEGs), decodes each file to gray and
// to BGR with wt_decode_memory, wt_decode_memory_opencv and cv::imdecode, encodes a texture with wt_encode_png /
// wt_encode_jpeg and cv::imencode, and prints every difference (exit status 1 if any). With --write it stores the
// corpus and a manifest of cv::imdecode's results (width, height, FNV-1a 64 of the pixels) in the directory.
#include "wt_opencv.h"
#include <opencv2/imgcodecs.hpp>
#include <png.h>
#include <jpeglib.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

struct Sample { std::string name; std::vector<uint8_t> bytes; };

uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; ++i) { h ^= p[i]; h *= 0x100000001b3ull; }
    return h;
}

/// Deterministic test values in 0...maxv: gradients plus a hash, so every channel differs.
unsigned value(int x, int y, int c, unsigned maxv) {
    uint32_t h = uint32_t(x) * 73856093u ^ uint32_t(y) * 19349663u ^ uint32_t(c + 1) * 83492791u;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    unsigned grad = unsigned((x * 37 + y * 11 + c * 90) % 256);
    unsigned v8 = (grad + (h & 63)) & 255;
    if (maxv == 65535) return (v8 << 8) | ((h >> 8) & 255);
    return v8 * (maxv + 1) / 256;
}

void png_append(png_structp png, png_bytep data, png_size_t n) {
    auto *out = static_cast<std::vector<uint8_t> *>(png_get_io_ptr(png));
    out->insert(out->end(), data, data + n);
}
void png_noflush(png_structp) {}

std::vector<uint8_t> make_png(int w, int h, int color_type, int bit_depth, bool interlace, bool trns) {
    std::vector<uint8_t> out;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) { std::fprintf(stderr, "libpng failed writing\n"); std::exit(2); }
    png_set_write_fn(png, &out, png_append, png_noflush);
    png_set_IHDR(png, info, w, h, bit_depth, color_type, interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    int components = color_type == PNG_COLOR_TYPE_GRAY ? 1 : color_type == PNG_COLOR_TYPE_GRAY_ALPHA ? 2
                   : color_type == PNG_COLOR_TYPE_RGB ? 3 : color_type == PNG_COLOR_TYPE_RGB_ALPHA ? 4 : 1;
    unsigned maxv = (1u << bit_depth) - 1;
    if (color_type == PNG_COLOR_TYPE_PALETTE) {
        int n = 1 << bit_depth;
        png_color palette[256];
        png_byte alpha[256];
        for (int i = 0; i < n; ++i) {
            palette[i].red = png_byte(value(i, 3, 0, 255));
            palette[i].green = png_byte(value(i, 5, 1, 255));
            palette[i].blue = png_byte(value(i, 7, 2, 255));
            alpha[i] = png_byte(i * 37);
        }
        png_set_PLTE(png, info, palette, n);
        if (trns) png_set_tRNS(png, info, alpha, n, nullptr);
    } else if (trns) {
        png_color_16 colour = {0, png_uint_16(value(1, 1, 0, maxv)), png_uint_16(value(1, 1, 1, maxv)),
                               png_uint_16(value(1, 1, 2, maxv)), png_uint_16(value(1, 1, 0, maxv))};
        png_set_tRNS(png, info, nullptr, 0, &colour);
    }
    png_write_info(png, info);
    size_t row_bytes = (size_t(w) * components * bit_depth + 7) / 8;
    std::vector<std::vector<uint8_t>> rows(h, std::vector<uint8_t>(row_bytes, 0));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < components; ++c) {
                unsigned v = value(x, y, c, maxv);
                size_t bit = (size_t(x) * components + c) * bit_depth;
                if (bit_depth == 16) { rows[y][bit / 8] = uint8_t(v >> 8); rows[y][bit / 8 + 1] = uint8_t(v); }
                else if (bit_depth == 8) rows[y][bit / 8] = uint8_t(v);
                else rows[y][bit / 8] |= uint8_t(v << (8 - bit_depth - bit % 8));
            }
    std::vector<png_bytep> pointers;
    for (auto &r : rows) pointers.push_back(r.data());
    png_write_image(png, pointers.data());
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return out;
}

std::vector<uint8_t> make_jpeg(int w, int h, int components, int quality, bool h2v2, bool progressive) {
    jpeg_compress_struct c;
    jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    unsigned char *buffer = nullptr;
    unsigned long size = 0;
    jpeg_mem_dest(&c, &buffer, &size);
    c.image_width = w;
    c.image_height = h;
    c.input_components = components;
    c.in_color_space = components == 1 ? JCS_GRAYSCALE : components == 3 ? JCS_RGB : JCS_CMYK;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, quality, TRUE);
    if (components == 3 && !h2v2) c.comp_info[0].h_samp_factor = c.comp_info[0].v_samp_factor = 1;
    if (components == 4) { c.write_Adobe_marker = TRUE; }
    if (progressive) jpeg_simple_progression(&c);
    jpeg_start_compress(&c, TRUE);
    std::vector<uint8_t> row(size_t(w) * components);
    while (c.next_scanline < c.image_height) {
        for (int x = 0; x < w; ++x)
            for (int k = 0; k < components; ++k) row[size_t(x) * components + k] = uint8_t(value(x, c.next_scanline, k, 255));
        JSAMPROW p = row.data();
        jpeg_write_scanlines(&c, &p, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    std::vector<uint8_t> out(buffer, buffer + size);
    std::free(buffer);
    return out;
}

std::vector<Sample> corpus() {
    std::vector<Sample> s;
    const int w = 37, h = 23;
    struct { const char *name; int type; } types[] = {
        {"gray", PNG_COLOR_TYPE_GRAY}, {"grayalpha", PNG_COLOR_TYPE_GRAY_ALPHA}, {"rgb", PNG_COLOR_TYPE_RGB},
        {"rgba", PNG_COLOR_TYPE_RGB_ALPHA}, {"palette", PNG_COLOR_TYPE_PALETTE}};
    for (auto &t : types)
        for (int depth : {1, 2, 4, 8, 16}) {
            bool ok = t.type == PNG_COLOR_TYPE_GRAY || (t.type == PNG_COLOR_TYPE_PALETTE ? depth <= 8 : depth >= 8);
            if (!ok) continue;
            for (int interlace = 0; interlace < 2; ++interlace) {
                bool trns_options[2] = {false, true};
                for (bool trns : trns_options) {
                    if (trns && (t.type == PNG_COLOR_TYPE_GRAY_ALPHA || t.type == PNG_COLOR_TYPE_RGB_ALPHA)) continue;
                    if (trns && interlace) continue;
                    std::string name = std::string("png-") + t.name + std::to_string(depth) + (interlace ? "-interlaced" : "")
                                     + (trns ? "-trns" : "") + ".png";
                    s.push_back({name, make_png(w, h, t.type, depth, interlace, trns)});
                }
            }
        }
    s.push_back({"jpeg-gray-q90.jpg", make_jpeg(w, h, 1, 90, true, false)});
    s.push_back({"jpeg-color420-q90.jpg", make_jpeg(w, h, 3, 90, true, false)});
    s.push_back({"jpeg-color444-q75.jpg", make_jpeg(w, h, 3, 75, false, false)});
    s.push_back({"jpeg-color420-progressive.jpg", make_jpeg(w, h, 3, 85, true, true)});
    s.push_back({"jpeg-cmyk-q90.jpg", make_jpeg(w, h, 4, 90, true, false)});
    return s;
}

int compare(const Sample &sample, FILE *manifest) {
    int differences = 0;
    for (int channels : {1, 3}) {
        cv::Mat encoded(1, int(sample.bytes.size()), CV_8UC1, const_cast<uint8_t *>(sample.bytes.data()));
        int flags = (channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR) | cv::IMREAD_IGNORE_ORIENTATION;
        cv::Mat reference = cv::imdecode(encoded, flags);
        if (reference.empty()) { std::printf("%s: OpenCV cannot decode it\n", sample.name.c_str()); return 1; }
        uint64_t expected = fnv1a(reference.data, reference.total() * reference.elemSize());
        if (manifest)
            std::fprintf(manifest, "%s %d %d %d %016llx\n", sample.name.c_str(), channels, reference.cols, reference.rows,
                         (unsigned long long)expected);
        for (int path = 0; path < 2; ++path) {
            uint8_t *pixels = nullptr;
            int32_t width = 0, height = 0;
            wt_status status = path == 0
                ? wt_decode_memory(sample.bytes.data(), sample.bytes.size(), channels, &pixels, &width, &height)
                : wt_decode_memory_opencv(sample.bytes.data(), sample.bytes.size(), channels, &pixels, &width, &height);
            const char *which = path == 0 ? "wt_decode_memory" : "wt_decode_memory_opencv";
            if (status != WT_OK) {
                std::printf("%s ch%d %s: failed: %s\n", sample.name.c_str(), channels, which, wt_last_error());
                ++differences;
                continue;
            }
            size_t n = size_t(width) * height * channels;
            if (width != reference.cols || height != reference.rows || std::memcmp(pixels, reference.data, n) != 0) {
                int worst = 0;
                size_t count = 0;
                if (width == reference.cols && height == reference.rows)
                    for (size_t i = 0; i < n; ++i) {
                        int d = std::abs(int(pixels[i]) - int(reference.data[i]));
                        if (d) { ++count; if (d > worst) worst = d; }
                    }
                std::printf("%s ch%d %s: DIFFERS from cv::imdecode (%zu samples, up to %d levels)\n",
                            sample.name.c_str(), channels, which, count, worst);
                ++differences;
            }
            wt_free(pixels);
        }
    }
    return differences;
}

int compare_encoders() {
    int differences = 0;
    const int w = 97, h = 61;
    for (int channels : {1, 3}) {
        cv::Mat image(h, w, CV_8UC(channels));
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w * channels; ++x) image.ptr<uint8_t>(y)[x] = uint8_t(value(x, y, 0, 255));
        std::vector<uint8_t> reference;
        cv::imencode(".png", image, reference);
        uint8_t *bytes = nullptr;
        size_t size = 0;
        if (wt_encode_png(image.data, w, h, channels, &bytes, &size) != WT_OK) { std::printf("png encode failed\n"); return 1; }
        bool same = size == reference.size() && std::memcmp(bytes, reference.data(), size) == 0;
        std::printf("PNG encode ch%d: %zu bytes, cv::imencode %zu bytes: %s\n", channels, size, reference.size(),
                    same ? "identical" : "DIFFERENT");
        differences += !same;
        wt_free(bytes);
        for (int quality : {50, 90, 95}) {
            cv::imencode(".jpg", image, reference, {cv::IMWRITE_JPEG_QUALITY, quality});
            if (wt_encode_jpeg(image.data, w, h, channels, quality, &bytes, &size) != WT_OK) { std::printf("jpeg encode failed\n"); return 1; }
            same = size == reference.size() && std::memcmp(bytes, reference.data(), size) == 0;
            std::printf("JPEG encode ch%d q%d: %zu bytes, cv::imencode %zu bytes: %s\n", channels, quality, size,
                        reference.size(), same ? "identical" : "DIFFERENT");
            differences += !same;
            wt_free(bytes);
        }
    }
    return differences;
}

} // namespace

int main(int argc, char **argv) {
    std::string write_dir;
    std::vector<Sample> samples = corpus();
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--write" && i + 1 < argc) { write_dir = argv[++i]; continue; }
        std::ifstream in(argv[i], std::ios::binary);
        samples.push_back({argv[i], std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {})});
    }
    FILE *manifest = nullptr;
    if (!write_dir.empty()) {
        manifest = std::fopen((write_dir + "/expected.txt").c_str(), "w");
        if (!manifest) { std::perror("manifest"); return 2; }
        std::fprintf(manifest, "# file channels width height fnv1a64-of-pixels: cv::imdecode (OpenCV %s) with "
                               "IMREAD_GRAYSCALE / IMREAD_COLOR; written by Tools/codec_reference.cpp\n", CV_VERSION);
    }
    int differences = 0;
    for (auto &sample : samples) {
        bool generated = sample.name.find('/') == std::string::npos;
        differences += compare(sample, generated ? manifest : nullptr);
        if (manifest && generated) {
            std::ofstream out(write_dir + "/" + sample.name, std::ios::binary);
            out.write(reinterpret_cast<const char *>(sample.bytes.data()), std::streamsize(sample.bytes.size()));
        }
    }
    differences += compare_encoders();
    if (manifest) std::fclose(manifest);
    std::printf("%zu images decoded to gray and BGR by both paths: %d difference(s) from OpenCV\n", samples.size(), differences);
    return differences == 0 ? 0 : 1;
}
