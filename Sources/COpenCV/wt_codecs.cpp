// Image decode/encode: PNG through libpng (libpng16) and JPEG through libjpeg(-turbo), called directly with the
// calls OpenCV 4.6's imgcodecs made (grfmt_png.cpp, grfmt_jpeg.cpp), so the pixels are the ones cv::imdecode gave,
// without linking libopencv_imgcodecs (which pulls in GDAL, GDCM, HDF5 and about a hundred other libraries: 32 MB
// of resident memory). Structural checks make truncated PNG/JPEG data fail instead of decoding partially.
//
// libpng and libjpeg report errors by longjmp: the functions that call them keep only plain C data in their frames
// (no object with a destructor lives across a setjmp), and the error handlers record the message instead of
// printing it (libpng's and libjpeg's default handlers write to stderr).
#include "wt_internal.hpp"
#include "wt_png_gray.hpp"
#include <cerrno>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <png.h>
#include <jpeglib.h>
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

const uint8_t kJpegSignature[2] = {0xFF, 0xD8};

/// At most 2^30 pixels per image (OpenCV's CV_IO_MAX_IMAGE_PIXELS), so width * height * channels fits easily.
const uint64_t kMaxPixels = uint64_t(1) << 30;

enum class Outcome { ok, failed, outOfMemory };

// ---------------------------------------------------------------- PNG (libpng)

/// Everything a libpng callback touches (plain data: libpng longjmps out of the callbacks).
struct PngContext {
    const uint8_t *input;      // decoding: the encoded bytes
    size_t input_size, input_pos;
    uint8_t *output;           // encoding: malloc'd bytes written so far
    size_t output_size, output_capacity;
    char message[256];         // the first error libpng reported
};

[[noreturn]] void png_on_error(png_structp png, png_const_charp message) {
    auto *context = static_cast<PngContext *>(png_get_error_ptr(png));
    std::snprintf(context->message, sizeof context->message, "%s", message != nullptr ? message : "libpng failed");
    png_longjmp(png, 1);
}

/// libpng's warnings (a bad ancillary chunk, an incorrect sRGB profile) do not stop the decode; OpenCV printed them on
/// stderr and went on, this goes on quietly.
void png_on_warning(png_structp, png_const_charp) {}

void png_read_memory(png_structp png, png_bytep out, png_size_t count) {
    auto *context = static_cast<PngContext *>(png_get_io_ptr(png));
    if (count > context->input_size - context->input_pos) png_error(png, "data ends early");
    std::memcpy(out, context->input + context->input_pos, count);
    context->input_pos += count;
}

void png_write_memory(png_structp png, png_bytep bytes, png_size_t count) {
    auto *context = static_cast<PngContext *>(png_get_io_ptr(png));
    if (count > context->output_capacity - context->output_size) {
        size_t capacity = context->output_capacity < 4096 ? 4096 : context->output_capacity;
        while (capacity - context->output_size < count) capacity *= 2;
        auto *grown = static_cast<uint8_t *>(std::realloc(context->output, capacity));
        if (grown == nullptr) png_error(png, "out of memory");
        context->output = grown;
        context->output_capacity = capacity;
    }
    std::memcpy(context->output + context->output_size, bytes, count);
    context->output_size += count;
}

void png_flush_memory(png_structp) {}

/// Decodes a PNG to 8-bit gray (channels 1) or BGR (3) with libpng's transforms as OpenCV 4.6's PngDecoder set them:
/// 16-bit samples keep their high byte (png_set_strip_16), alpha is dropped, palettes and 1/2/4-bit gray expand,
/// colour becomes gray with png_set_rgb_to_gray(…, 0.299, 0.587) and gray becomes BGR by replication; interlaced
/// images are de-interlaced. On success `*out_pixels` is malloc'd (release with wt_free).
Outcome png_decode(const uint8_t *data, size_t size, int channels, uint8_t **out_pixels, int32_t *out_width,
                   int32_t *out_height, char *message, size_t message_size) {
    PngContext context = {data, size, 0, nullptr, 0, 0, {0}};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context, png_on_error, png_on_warning);
    if (png == nullptr) return Outcome::outOfMemory;
    png_infop info = png_create_info_struct(png);
    png_infop end_info = png_create_info_struct(png);
    if (info == nullptr || end_info == nullptr) {
        png_destroy_read_struct(&png, &info, &end_info);
        return Outcome::outOfMemory;
    }
    // Written after setjmp and read after a longjmp: volatile.
    uint8_t *volatile pixels = nullptr;
    png_bytep *volatile rows = nullptr;
    volatile Outcome outcome = Outcome::failed;
    volatile png_uint_32 width = 0, height = 0;
    if (setjmp(png_jmpbuf(png)) == 0) {
        png_set_read_fn(png, &context, png_read_memory);
        png_read_info(png, info);
        png_uint_32 w = 0, h = 0;
        int bit_depth = 0, color_type = 0;
        png_get_IHDR(png, info, &w, &h, &bit_depth, &color_type, nullptr, nullptr, nullptr);
        width = w;
        height = h;
        if (uint64_t(w) * uint64_t(h) > kMaxPixels) {
            std::snprintf(context.message, sizeof context.message, "image too large (%ux%u pixels; at most 2^30)",
                          unsigned(w), unsigned(h));
            png_longjmp(png, 1);
        }
        // OpenCV 4.6 PngDecoder::readData, for an 8-bit destination with 1 or 3 channels, in its order.
        if (bit_depth == 16) png_set_strip_16(png);
        else png_set_swap(png); // (no effect below 16 bits; kept as OpenCV called it)
        png_set_strip_alpha(png);
        if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
        if ((color_type & PNG_COLOR_MASK_COLOR) == 0 && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
        if ((color_type & PNG_COLOR_MASK_COLOR) != 0 && channels == 3) png_set_bgr(png);
        else if (channels == 3) png_set_gray_to_rgb(png);
        else png_set_rgb_to_gray(png, PNG_ERROR_ACTION_NONE, 0.299, 0.587);
        png_set_interlace_handling(png);
        png_read_update_info(png, info);
        if (png_get_rowbytes(png, info) != size_t(w) * size_t(channels) || png_get_bit_depth(png, info) != 8) {
            std::snprintf(context.message, sizeof context.message, "unexpected row layout after conversion");
            png_longjmp(png, 1);
        }
        pixels = static_cast<uint8_t *>(std::malloc(size_t(w) * size_t(h) * size_t(channels)));
        rows = static_cast<png_bytep *>(std::malloc(sizeof(png_bytep) * size_t(h)));
        if (pixels == nullptr || rows == nullptr) {
            outcome = Outcome::outOfMemory;
            png_longjmp(png, 1);
        }
        for (png_uint_32 y = 0; y < h; ++y) rows[y] = pixels + size_t(y) * size_t(w) * size_t(channels);
        png_read_image(png, rows);
        png_read_end(png, end_info);
        outcome = Outcome::ok;
    }
    png_destroy_read_struct(&png, &info, &end_info);
    std::free(rows);
    if (outcome != Outcome::ok) {
        std::free(pixels);
        std::snprintf(message, message_size, "%s", context.message);
        return outcome;
    }
    *out_pixels = pixels;
    *out_width = int32_t(width);
    *out_height = int32_t(height);
    return Outcome::ok;
}

/// Encodes 8-bit gray or BGR pixels as PNG with OpenCV 4.6's PngEncoder defaults (Sub filter, zlib level 1
/// (Z_BEST_SPEED), the run-length strategy (Z_RLE)). On success `*out_bytes` is malloc'd.
Outcome png_encode(const uint8_t *pixels, int32_t width, int32_t height, int32_t channels, uint8_t **out_bytes,
                   size_t *out_size, char *message, size_t message_size) {
    PngContext context = {nullptr, 0, 0, nullptr, 0, 0, {0}};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context, png_on_error, png_on_warning);
    if (png == nullptr) return Outcome::outOfMemory;
    png_infop info = png_create_info_struct(png);
    auto **row_list = static_cast<png_bytep *>(std::malloc(sizeof(png_bytep) * size_t(height)));
    if (info == nullptr || row_list == nullptr) {
        png_destroy_write_struct(&png, &info);
        std::free(row_list);
        return Outcome::outOfMemory;
    }
    for (int32_t y = 0; y < height; ++y)
        row_list[y] = const_cast<png_bytep>(pixels) + size_t(y) * size_t(width) * size_t(channels);
    volatile Outcome outcome = Outcome::failed;
    if (setjmp(png_jmpbuf(png)) == 0) {
        png_set_write_fn(png, &context, png_write_memory, png_flush_memory);
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
        png_set_compression_level(png, 1);    // Z_BEST_SPEED
        png_set_compression_strategy(png, 3); // Z_RLE
        png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), 8,
                     channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_write_info(png, info);
        png_set_bgr(png);
        png_write_image(png, row_list);
        png_write_end(png, info);
        outcome = Outcome::ok;
    }
    png_destroy_write_struct(&png, &info);
    std::free(row_list);
    if (outcome != Outcome::ok) {
        std::free(context.output);
        std::snprintf(message, message_size, "%s", context.message);
        return std::strcmp(context.message, "out of memory") == 0 ? Outcome::outOfMemory : Outcome::failed;
    }
    *out_bytes = context.output;
    *out_size = context.output_size;
    return Outcome::ok;
}

// ---------------------------------------------------------------- JPEG (libjpeg-turbo)

struct JpegError {
    jpeg_error_mgr manager; // first member: libjpeg's `err` pointer is cast back to this
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void jpeg_on_error(j_common_ptr common) {
    auto *error = reinterpret_cast<JpegError *>(common->err);
    (*common->err->format_message)(common, error->message);
    std::longjmp(error->jump, 1);
}

/// libjpeg's warnings ("Corrupt JPEG data: … extraneous bytes") do not stop the decode; OpenCV printed them on
/// stderr and went on, this goes on quietly.
void jpeg_on_output_message(j_common_ptr) {}

/// Decodes a JPEG to 8-bit gray (channels 1: libjpeg's luma) or BGR (3: JCS_EXT_BGR), as OpenCV 4.6's JpegDecoder
/// did; 4-component (CMYK/YCCK) images are read as CMYK and converted with OpenCV's formulas. On success
/// `*out_pixels` is malloc'd.
Outcome jpeg_decode(const uint8_t *data, size_t size, int channels, uint8_t **out_pixels, int32_t *out_width,
                    int32_t *out_height, char *message, size_t message_size) {
    jpeg_decompress_struct decoder;
    std::memset(&decoder, 0, sizeof decoder);
    JpegError error;
    decoder.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = jpeg_on_error;
    error.manager.output_message = jpeg_on_output_message;
    error.message[0] = '\0';
    uint8_t *volatile pixels = nullptr;
    uint8_t *volatile cmyk_row = nullptr;
    volatile Outcome outcome = Outcome::failed;
    volatile JDIMENSION width = 0, height = 0;
    if (setjmp(error.jump) == 0) {
        jpeg_create_decompress(&decoder);
        jpeg_mem_src(&decoder, const_cast<unsigned char *>(data), (unsigned long)size);
        jpeg_read_header(&decoder, TRUE);
        bool cmyk = decoder.num_components == 4;
        if (cmyk) decoder.out_color_space = JCS_CMYK;
        else decoder.out_color_space = channels == 3 ? JCS_EXT_BGR : JCS_GRAYSCALE;
        if (uint64_t(decoder.image_width) * uint64_t(decoder.image_height) > kMaxPixels) {
            std::snprintf(error.message, sizeof error.message, "image too large (%ux%u pixels; at most 2^30)",
                          unsigned(decoder.image_width), unsigned(decoder.image_height));
            std::longjmp(error.jump, 1);
        }
        jpeg_start_decompress(&decoder);
        JDIMENSION w = decoder.output_width, h = decoder.output_height;
        width = w;
        height = h;
        if (decoder.output_components != (cmyk ? 4 : channels)) {
            std::snprintf(error.message, sizeof error.message, "unexpected component count %d",
                          decoder.output_components);
            std::longjmp(error.jump, 1);
        }
        pixels = static_cast<uint8_t *>(std::malloc(size_t(w) * size_t(h) * size_t(channels)));
        if (cmyk) cmyk_row = static_cast<uint8_t *>(std::malloc(size_t(w) * 4));
        if (pixels == nullptr || (cmyk && cmyk_row == nullptr)) {
            outcome = Outcome::outOfMemory;
            std::longjmp(error.jump, 1);
        }
        for (JDIMENSION y = 0; y < h; ++y) {
            uint8_t *row = pixels + size_t(y) * size_t(w) * size_t(channels);
            JSAMPROW target = cmyk ? cmyk_row : row;
            if (jpeg_read_scanlines(&decoder, &target, 1) != 1) {
                std::snprintf(error.message, sizeof error.message, "image data ends early");
                std::longjmp(error.jump, 1);
            }
            if (!cmyk) continue;
            // OpenCV's icvCvt_CMYK2BGR_8u_C4C3R / icvCvt_CMYK2Gray_8u_C4C1R (Adobe's inverted CMYK).
            for (JDIMENSION x = 0; x < w; ++x) {
                const uint8_t *p = cmyk_row + 4 * size_t(x);
                int k = p[3];
                int c = k - (((255 - p[0]) * k) >> 8), m = k - (((255 - p[1]) * k) >> 8),
                    yy = k - (((255 - p[2]) * k) >> 8);
                if (channels == 3) {
                    row[3 * x] = uint8_t(yy);
                    row[3 * x + 1] = uint8_t(m);
                    row[3 * x + 2] = uint8_t(c);
                } else {
                    row[x] = uint8_t((yy * 1868 + m * 9617 + c * 4899 + (1 << 13)) >> 14);
                }
            }
        }
        jpeg_finish_decompress(&decoder);
        outcome = Outcome::ok;
    }
    jpeg_destroy_decompress(&decoder);
    std::free(cmyk_row);
    if (outcome != Outcome::ok) {
        std::free(pixels);
        std::snprintf(message, message_size, "%s", error.message);
        return outcome;
    }
    *out_pixels = pixels;
    *out_width = int32_t(width);
    *out_height = int32_t(height);
    return Outcome::ok;
}

/// Encodes 8-bit gray or BGR pixels as baseline JPEG the way OpenCV 4.6's JpegEncoder did (libjpeg's defaults:
/// 4:2:0 chroma, no restart markers, no optimised Huffman tables; jpeg_set_quality(…, TRUE)). `*out_bytes` is
/// libjpeg's malloc'd buffer.
Outcome jpeg_encode(const uint8_t *pixels, int32_t width, int32_t height, int32_t channels, int32_t quality,
                    uint8_t **out_bytes, size_t *out_size, char *message, size_t message_size) {
    jpeg_compress_struct encoder;
    std::memset(&encoder, 0, sizeof encoder);
    JpegError error;
    encoder.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = jpeg_on_error;
    error.manager.output_message = jpeg_on_output_message;
    error.message[0] = '\0';
    struct Destination { unsigned char *bytes; unsigned long size; } destination = {nullptr, 0};
    volatile Outcome outcome = Outcome::failed;
    if (setjmp(error.jump) == 0) {
        jpeg_create_compress(&encoder);
        jpeg_mem_dest(&encoder, &destination.bytes, &destination.size);
        encoder.image_width = JDIMENSION(width);
        encoder.image_height = JDIMENSION(height);
        encoder.input_components = channels;
        encoder.in_color_space = channels == 3 ? JCS_EXT_BGR : JCS_GRAYSCALE;
        jpeg_set_defaults(&encoder);
        jpeg_set_quality(&encoder, quality, TRUE);
        jpeg_start_compress(&encoder, TRUE);
        while (encoder.next_scanline < encoder.image_height) {
            JSAMPROW row = const_cast<JSAMPROW>(pixels) + size_t(encoder.next_scanline) * size_t(width) * size_t(channels);
            jpeg_write_scanlines(&encoder, &row, 1);
        }
        jpeg_finish_compress(&encoder);
        outcome = Outcome::ok;
    }
    jpeg_destroy_compress(&encoder);
    if (outcome != Outcome::ok) {
        std::free(destination.bytes);
        std::snprintf(message, message_size, "%s", error.message);
        return outcome;
    }
    *out_bytes = destination.bytes;
    *out_size = size_t(destination.size);
    return Outcome::ok;
}

// ---------------------------------------------------------------- dispatch

/// Decodes through the fast grayscale PNG path when `allow_fast` and it applies, else through libpng / libjpeg
/// (with `allow_fast`, another PNG's image data is checked first: `wt::check_png_image_data`).
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
    bool is_png = size >= 8 && std::memcmp(data, kPngSignature, 8) == 0;
    bool is_jpeg = size >= 2 && std::memcmp(data, kJpegSignature, 2) == 0;
    if (!is_png && !is_jpeg) return wt::fail(WT_ERR_DECODE, "unsupported image format (PNG and JPEG are read)");
    std::string problem = is_png ? png_structure_problem(data, size) : jpeg_structure_problem(data, size);
    if (!problem.empty()) return wt::fail(WT_ERR_DECODE, problem);
    if (size > size_t(INT32_MAX)) return wt::fail(WT_ERR_DECODE, "image data larger than 2 GiB");
    if (allow_fast && is_png && channels == 1) {
        std::string corruption;
        switch (wt::decode_png_gray(data, size, out_pixels, out_width, out_height, &corruption)) {
        case wt::PngGrayResult::decoded: return WT_OK;
        case wt::PngGrayResult::outOfMemory: throw std::bad_alloc();
        case wt::PngGrayResult::corrupt: return wt::fail(WT_ERR_DECODE, corruption);
        case wt::PngGrayResult::notHandled: break; // libpng decodes it (or names the problem)
        }
    }

    // Any other PNG (colour, palette, 1–4 bit, interlaced): its image data checked first, so a corrupt file fails
    // with the same message as a grayscale one.
    if (allow_fast && is_png) {
        std::string corruption;
        if (wt::check_png_image_data(data, size, &corruption) == wt::PngDataCheck::corrupt)
            return wt::fail(WT_ERR_DECODE, corruption);
    }

    char message[JMSG_LENGTH_MAX + 64] = {0};
    Outcome outcome = is_png
        ? png_decode(data, size, channels, out_pixels, out_width, out_height, message, sizeof message)
        : jpeg_decode(data, size, channels, out_pixels, out_width, out_height, message, sizeof message);
    if (outcome == Outcome::outOfMemory) throw std::bad_alloc();
    if (outcome == Outcome::failed)
        return wt::fail(WT_ERR_DECODE, std::string(is_png ? "corrupt PNG: " : "corrupt JPEG: ") + message);
    return WT_OK;
}

/// Encodes as PNG (`quality` 0) or JPEG (`quality` 1...100) into malloc'd `*out_bytes`.
wt_status encode_image(const char *function, const uint8_t *pixels, int32_t width, int32_t height,
                       int32_t channels, uint8_t **out_bytes, size_t *out_size, int32_t jpeg_quality = 0) {
    wt_status s = wt::check_image(function, pixels, width, height, channels);
    if (s != WT_OK) return s;
    char message[JMSG_LENGTH_MAX + 64] = {0};
    Outcome outcome = jpeg_quality == 0
        ? png_encode(pixels, width, height, channels, out_bytes, out_size, message, sizeof message)
        : jpeg_encode(pixels, width, height, channels, jpeg_quality, out_bytes, out_size, message, sizeof message);
    if (outcome == Outcome::outOfMemory) throw std::bad_alloc();
    if (outcome == Outcome::failed)
        return wt::fail(WT_ERR_ENCODE, std::string(function) + (jpeg_quality == 0 ? ": PNG" : ": JPEG")
                                           + " encoding failed: " + message);
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
        return encode_image("wt_encode_png", pixels, width, height, channels, out_bytes, out_size);
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
        return encode_image("wt_encode_jpeg", pixels, width, height, channels, out_bytes, out_size, quality);
    });
}

extern "C" wt_status wt_write_png(const char *path, const uint8_t *pixels, int32_t width, int32_t height,
                                  int32_t channels) {
    return wt::guarded("wt_write_png", [&] {
        if (path == nullptr) return wt::fail(WT_ERR_INVALID_ARGUMENT, "wt_write_png: path is NULL");
        uint8_t *bytes = nullptr;
        size_t size = 0;
        wt_status s = encode_image("wt_write_png", pixels, width, height, channels, &bytes, &size);
        if (s != WT_OK) return s;
        std::FILE *file = std::fopen(path, "wb");
        if (file == nullptr) {
            int saved_errno = errno;
            std::free(bytes);
            return wt::fail(WT_ERR_IO, std::string("cannot create: ") + std::strerror(saved_errno));
        }
        size_t written = std::fwrite(bytes, 1, size, file);
        int saved_errno = errno;
        std::free(bytes);
        bool closed = std::fclose(file) == 0;
        if (written != size || !closed)
            return wt::fail(WT_ERR_IO, std::string("cannot write: ") + std::strerror(saved_errno));
        return WT_OK;
    });
}
