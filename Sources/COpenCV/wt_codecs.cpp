// Image decode/encode (PNG, JPEG, ...) through imgcodecs, with structural checks that make
// truncated PNG/JPEG data fail instead of decoding partially.
#include "wt_internal.hpp"
#include "wt_png_gray.hpp"
#include <opencv2/imgcodecs.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <vector>

namespace {

const uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};

uint32_t read_be32(const uint8_t *p) {
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

/// Walks the PNG chunk list; an empty string when it is complete up to IEND, else the problem.
std::string png_structure_problem(const uint8_t *data, size_t size) {
    size_t pos = 8;
    bool saw_idat = false;
    while (true) {
        if (pos + 8 > size) return "truncated PNG: data ends before the IEND chunk";
        uint32_t length = read_be32(data + pos);
        if (length > 0x7FFFFFFFu) return "corrupt PNG: invalid chunk length";
        const uint8_t *type = data + pos + 4;
        if (size - pos < size_t(length) + 12) return "truncated PNG: chunk extends past the end of the data";
        if (std::memcmp(type, "IDAT", 4) == 0) saw_idat = true;
        if (std::memcmp(type, "IEND", 4) == 0) return saw_idat ? "" : "corrupt PNG: no image data (IDAT)";
        pos += size_t(length) + 12;
    }
}

/// JPEG data must end its last scan with an EOI marker (FF D9) after the last SOS (FF DA).
std::string jpeg_structure_problem(const uint8_t *data, size_t size) {
    long last_sos = -1, last_eoi = -1;
    for (size_t i = 0; i + 1 < size; ++i) {
        if (data[i] != 0xFF) continue;
        if (data[i + 1] == 0xDA) last_sos = long(i);
        else if (data[i + 1] == 0xD9) last_eoi = long(i);
    }
    if (last_sos < 0) return "corrupt JPEG: no scan (SOS marker)";
    if (last_eoi < last_sos) return "truncated JPEG: no end-of-image marker after the last scan";
    return "";
}

/// Decodes through the fast grayscale PNG path when `allow_fast` and it applies, else through OpenCV (with
/// `allow_fast`, another PNG's image data is checked first: `wt::check_png_image_data`).
wt_status decode(const char *function, const uint8_t *data, size_t size, int32_t channels,
                 uint8_t **out_pixels, int32_t *out_width, int32_t *out_height, bool allow_fast = true) {
    if (out_pixels == nullptr || out_width == nullptr || out_height == nullptr)
        return wt::fail(WT_ERR_INVALID_ARGUMENT, std::string(function) + ": NULL output pointer");
    *out_pixels = nullptr;
    *out_width = 0;
    *out_height = 0;
    if (channels != 1 && channels != 3)
        return wt::fail(WT_ERR_INVALID_ARGUMENT, std::string(function) + ": channels must be 1 or 3");
    if (data == nullptr || size == 0) return wt::fail(WT_ERR_DECODE, "empty image data");
    std::string problem;
    if (size >= 8 && std::memcmp(data, kPngSignature, 8) == 0) problem = png_structure_problem(data, size);
    else if (size >= 2 && data[0] == 0xFF && data[1] == 0xD8) problem = jpeg_structure_problem(data, size);
    if (!problem.empty()) return wt::fail(WT_ERR_DECODE, problem);
    if (size > size_t(INT32_MAX)) return wt::fail(WT_ERR_DECODE, "image data larger than 2 GiB");
    if (allow_fast && channels == 1) {
        std::string corruption;
        switch (wt::decode_png_gray(data, size, out_pixels, out_width, out_height, &corruption)) {
        case wt::PngGrayResult::decoded: return WT_OK;
        case wt::PngGrayResult::outOfMemory: throw std::bad_alloc();
        case wt::PngGrayResult::corrupt: return wt::fail(WT_ERR_DECODE, corruption);
        case wt::PngGrayResult::notHandled: break; // OpenCV decodes it (or names the problem)
        }
    }

    // Any other PNG (colour, palette, 1–4 bit): its image data checked first, so a corrupt file fails with the same
    // message as a grayscale one instead of libpng's own `libpng error:` line on stderr.
    if (allow_fast && size >= 8 && std::memcmp(data, kPngSignature, 8) == 0) {
        std::string corruption;
        if (wt::check_png_image_data(data, size, &corruption) == wt::PngDataCheck::corrupt)
            return wt::fail(WT_ERR_DECODE, corruption);
    }

    cv::Mat encoded(1, int(size), CV_8UC1, const_cast<uint8_t *>(data));
    int flags = (channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR) | cv::IMREAD_IGNORE_ORIENTATION;
    cv::Mat image;
    try {
        image = cv::imdecode(encoded, flags);
    } catch (const cv::Exception &e) {
        return wt::fail(WT_ERR_DECODE, std::string("corrupt image data: ") + e.what());
    }
    if (image.empty())
        return wt::fail(WT_ERR_DECODE, "not a decodable image (unknown format or corrupt data)");
    if (image.depth() != CV_8U) image.convertTo(image, CV_8U);
    if (image.channels() != channels)
        return wt::fail(WT_ERR_DECODE, "decoder returned " + std::to_string(image.channels()) + " channels");
    if (!image.isContinuous()) image = image.clone();
    *out_pixels = wt::copy_out(image.data, image.total() * image.elemSize());
    *out_width = image.cols;
    *out_height = image.rows;
    return WT_OK;
}

wt_status encode_image(const char *function, const uint8_t *pixels, int32_t width, int32_t height,
                     int32_t channels, std::vector<uchar> &bytes, const char *ext = ".png",
                     std::vector<int> params = {}) {
    wt_status s = wt::check_image(function, pixels, width, height, channels);
    if (s != WT_OK) return s;
    cv::Mat image = wt::wrap(pixels, width, height, channels);
    bool ok = false;
    try {
        ok = cv::imencode(ext, image, bytes, params);
    } catch (const cv::Exception &e) {
        return wt::fail(WT_ERR_ENCODE, std::string(function) + ": " + ext + " encoding failed: " + e.what());
    }
    if (!ok || bytes.empty()) return wt::fail(WT_ERR_ENCODE, std::string(function) + ": " + ext + " encoding failed");
    return WT_OK;
}

} // namespace

extern "C" wt_status wt_decode_memory(const uint8_t *data, size_t size, int32_t channels,
                                      uint8_t **out_pixels, int32_t *out_width, int32_t *out_height) {
    return wt::guarded("wt_decode_memory", [&] {
        return decode("wt_decode_memory", data, size, channels, out_pixels, out_width, out_height);
    });
}

extern "C" wt_status wt_decode_memory_opencv(const uint8_t *data, size_t size, int32_t channels,
                                             uint8_t **out_pixels, int32_t *out_width, int32_t *out_height) {
    return wt::guarded("wt_decode_memory_opencv", [&] {
        return decode("wt_decode_memory_opencv", data, size, channels, out_pixels, out_width, out_height, false);
    });
}

extern "C" wt_status wt_decode_png_gray_fast(const uint8_t *data, size_t size, uint8_t **out_pixels,
                                             int32_t *out_width, int32_t *out_height) {
    return wt::guarded("wt_decode_png_gray_fast", [&] {
        if (out_pixels == nullptr || out_width == nullptr || out_height == nullptr)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_decode_png_gray_fast: NULL output pointer");
        *out_pixels = nullptr;
        *out_width = 0;
        *out_height = 0;
        if (data == nullptr || size == 0) return wt::fail(WT_ERR_DECODE, "empty image data");
        std::string corruption;
        switch (wt::decode_png_gray(data, size, out_pixels, out_width, out_height, &corruption)) {
        case wt::PngGrayResult::decoded: return WT_OK;
        case wt::PngGrayResult::outOfMemory: throw std::bad_alloc();
        case wt::PngGrayResult::corrupt: return wt::fail(WT_ERR_DECODE, corruption);
        case wt::PngGrayResult::notHandled: break;
        }
        return wt::fail(WT_ERR_DECODE, "not a grayscale 8/16-bit PNG the fast decoder handles");
    });
}

extern "C" wt_status wt_decode_file(const char *path, int32_t channels, uint8_t **out_pixels,
                                    int32_t *out_width, int32_t *out_height) {
    return wt::guarded("wt_decode_file", [&] {
        if (path == nullptr) return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_decode_file: path is NULL");
        std::FILE *file = std::fopen(path, "rb");
        if (file == nullptr) return wt::fail(WT_ERR_IO, std::string("cannot open: ") + std::strerror(errno));
        // One read of the whole file into a per-thread buffer (no reallocation after the first frames).
        thread_local std::vector<uint8_t> bytes;
        bytes.clear();
        struct stat info;
        long length = -1; // only a regular file's size is trusted (a directory's is not its contents')
        if (fstat(fileno(file), &info) == 0 && S_ISREG(info.st_mode)) length = long(info.st_size);
        if (length > 0) {
            bytes.resize(size_t(length));
            bytes.resize(std::fread(bytes.data(), 1, bytes.size(), file));
        }
        uint8_t chunk[1 << 16];
        size_t n;
        while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
        bool read_error = std::ferror(file) != 0;
        int saved_errno = errno;
        std::fclose(file);
        if (read_error) return wt::fail(WT_ERR_IO, std::string("cannot read: ") + std::strerror(saved_errno));
        return decode("wt_decode_file", bytes.data(), bytes.size(), channels, out_pixels, out_width, out_height);
    });
}

extern "C" wt_status wt_encode_png(const uint8_t *pixels, int32_t width, int32_t height, int32_t channels,
                                   uint8_t **out_bytes, size_t *out_size) {
    return wt::guarded("wt_encode_png", [&] {
        if (out_bytes == nullptr || out_size == nullptr)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_encode_png: NULL output pointer");
        *out_bytes = nullptr;
        *out_size = 0;
        std::vector<uchar> bytes;
        wt_status s = encode_image("wt_encode_png", pixels, width, height, channels, bytes);
        if (s != WT_OK) return s;
        *out_bytes = wt::copy_out(bytes.data(), bytes.size());
        *out_size = bytes.size();
        return WT_OK;
    });
}

extern "C" wt_status wt_encode_jpeg(const uint8_t *pixels, int32_t width, int32_t height, int32_t channels,
                                    int32_t quality, uint8_t **out_bytes, size_t *out_size) {
    return wt::guarded("wt_encode_jpeg", [&] {
        if (out_bytes == nullptr || out_size == nullptr)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_encode_jpeg: NULL output pointer");
        *out_bytes = nullptr;
        *out_size = 0;
        if (quality < 1 || quality > 100)
            return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_encode_jpeg: quality must be in 1...100");
        std::vector<uchar> bytes;
        wt_status s = encode_image("wt_encode_jpeg", pixels, width, height, channels, bytes, ".jpg",
                                 {cv::IMWRITE_JPEG_QUALITY, quality});
        if (s != WT_OK) return s;
        *out_bytes = wt::copy_out(bytes.data(), bytes.size());
        *out_size = bytes.size();
        return WT_OK;
    });
}

extern "C" wt_status wt_write_png(const char *path, const uint8_t *pixels, int32_t width, int32_t height,
                                  int32_t channels) {
    return wt::guarded("wt_write_png", [&] {
        if (path == nullptr) return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_write_png: path is NULL");
        std::vector<uchar> bytes;
        wt_status s = encode_image("wt_write_png", pixels, width, height, channels, bytes);
        if (s != WT_OK) return s;
        std::FILE *file = std::fopen(path, "wb");
        if (file == nullptr) return wt::fail(WT_ERR_IO, std::string("cannot create: ") + std::strerror(errno));
        size_t written = std::fwrite(bytes.data(), 1, bytes.size(), file);
        int saved_errno = errno;
        bool closed = std::fclose(file) == 0;
        if (written != bytes.size() || !closed)
            return wt::fail(WT_ERR_IO, std::string("cannot write: ") + std::strerror(saved_errno));
        return WT_OK;
    });
}
