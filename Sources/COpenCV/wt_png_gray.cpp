// A fast decoder for the PNG files camera datasets store: grayscale, 8 or 16 bits, not interlaced.
// Whole-buffer inflate with ISA-L's igzip (on the simulated room frames about 1.4x libdeflate's
// speed, 3x zlib's), chunk CRCs and the zlib checksum checked, rows unfiltered in place. It yields
// exactly what the libpng path (wt_codecs.cpp, libpng called as OpenCV's cv::imdecode with IMREAD_GRAYSCALE
// called it) yields: 8-bit samples as stored, 16-bit samples reduced to their high byte (png_set_strip_16).
// Anything else, or any inconsistency in the data, is left to that libpng path, so the error messages
// and the handling of unusual files stay libpng's. check_png_image_data runs the same
// chunk walk and inflate over PNGs of any colour type, so corrupt colour files are named here too
// (with the same messages as grayscale ones).
#include "wt_png_gray.hpp"
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <memory>
#include <string>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

uint32_t be32(const uint8_t *p) {
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

/// One decompressor and scratch buffers per thread (allocation-free after the first frame).
struct Scratch {
    std::unique_ptr<inflate_state> inflater; // 85 KiB: on the heap, made on first use
    std::vector<uint8_t> compressed, raw;
};

/// The CRC-32 of PNG chunks (the gzip/zlib polynomial, reflected).
inline uint32_t crc32(const uint8_t *data, size_t size) { return crc32_gzip_refl(0, data, size); }

thread_local Scratch scratch;

/// The Paeth predictor, without branches (camera noise makes its choice unpredictable):
/// |p − a| = |b − c|, |p − b| = |a − c|, |p − c| = |a + b − 2c| for p = a + b − c.
inline uint8_t paeth(int a, int b, int c) {
    int pa = std::abs(b - c), pb = std::abs(a - c), pc = std::abs(a + b - 2 * c);
    int bc = pb <= pc ? b : c;
    return uint8_t(pa <= pb && pa <= pc ? a : bc);
}

/// Reverses the filter of one scanline (`n` bytes, `BPP` bytes per pixel) given the unfiltered
/// previous line (`prior`, zeros for the first line). False for an unknown filter type. The left
/// neighbours are carried in registers: reading them back from memory would chain every byte through
/// a store-to-load forward.
template <size_t BPP> bool unfilter(uint8_t filter, uint8_t *line, const uint8_t *prior, size_t n) {
    uint8_t left[BPP] = {}, upperLeft[BPP] = {};
    switch (filter) {
    case 0: return true;
    case 1:
        for (size_t i = 0; i < n; i += BPP)
            for (size_t k = 0; k < BPP; ++k) line[i + k] = left[k] = uint8_t(line[i + k] + left[k]);
        return true;
    case 2:
        for (size_t i = 0; i < n; ++i) line[i] = uint8_t(line[i] + prior[i]);
        return true;
    case 3:
        for (size_t i = 0; i < n; i += BPP)
            for (size_t k = 0; k < BPP; ++k)
                line[i + k] = left[k] = uint8_t(line[i + k] + ((unsigned(left[k]) + prior[i + k]) >> 1));
        return true;
    case 4:
        for (size_t i = 0; i < n; i += BPP)
            for (size_t k = 0; k < BPP; ++k) {
                const uint8_t up = prior[i + k];
                line[i + k] = left[k] = uint8_t(line[i + k] + paeth(left[k], up, upperLeft[k]));
                upperLeft[k] = up;
            }
        return true;
    default: return false;
    }
}

/// The IHDR fields the decoders use.
struct Ihdr {
    uint32_t width, height;
    uint8_t depth, colourType, interlace;
};

/// Reads the IHDR chunk that must follow the signature (its CRC checked); false when `data` is not a PNG with a
/// well-formed IHDR (compression and filter method 0, size in 1…2²⁰).
bool read_ihdr(const uint8_t *data, size_t size, Ihdr *out) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    if (size < 8 + 25 || std::memcmp(data, signature, 8) != 0) return false;
    const uint8_t *ihdr = data + 8;
    if (be32(ihdr) != 13 || std::memcmp(ihdr + 4, "IHDR", 4) != 0) return false;
    if (crc32(ihdr + 4, 17) != be32(ihdr + 21)) return false;
    out->width = be32(ihdr + 8);
    out->height = be32(ihdr + 12);
    out->depth = ihdr[16];
    out->colourType = ihdr[17];
    out->interlace = ihdr[20];
    if (ihdr[18] != 0 || ihdr[19] != 0) return false;
    return out->width > 0 && out->height > 0 && out->width <= (1u << 20) && out->height <= (1u << 20);
}

/// Bits per pixel of a valid PNG colour type and bit depth, 0 for an invalid combination.
unsigned bits_per_pixel(uint8_t colourType, uint8_t depth) {
    switch (colourType) {
    case 0: return (depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16) ? depth : 0;
    case 3: return (depth == 1 || depth == 2 || depth == 4 || depth == 8) ? depth : 0;
    case 2: return (depth == 8 || depth == 16) ? 3u * depth : 0;
    case 4: return (depth == 8 || depth == 16) ? 2u * depth : 0;
    case 6: return (depth == 8 || depth == 16) ? 4u * depth : 0;
    default: return 0;
    }
}

/// Gathers the IDAT payloads that follow IHDR into `s.compressed` (CRC-checked, as libpng does for critical
/// chunks) up to IEND. A critical chunk other than IDAT and IEND (PLTE …) is `notHandled` unless `allowPalette`
/// and it is PLTE. `decoded` means gathered.
wt::PngGrayResult gather_idat(const uint8_t *data, size_t size, Scratch &s, bool allowPalette, std::string *problem) {
    s.compressed.clear();
    size_t pos = 8 + 25;
    bool ended = false, inData = false, afterData = false;
    while (pos + 12 <= size) {
        const uint32_t length = be32(data + pos);
        const uint8_t *type = data + pos + 4;
        if (length > 0x7FFFFFFFu || size - pos - 12 < length) return wt::PngGrayResult::notHandled;
        const bool isIdat = std::memcmp(type, "IDAT", 4) == 0;
        const bool critical = (type[0] & 0x20) == 0;
        const bool palette = allowPalette && std::memcmp(type, "PLTE", 4) == 0;
        if (critical && !isIdat && !palette && std::memcmp(type, "IEND", 4) != 0) return wt::PngGrayResult::notHandled;
        if (isIdat) {
            if (afterData) return wt::PngGrayResult::notHandled; // IDAT chunks must be consecutive
            if (crc32(type, size_t(length) + 4) != be32(data + pos + 8 + length)) {
                if (problem != nullptr) *problem = "corrupt PNG: an IDAT chunk's checksum does not match its data";
                return wt::PngGrayResult::corrupt;
            }
            s.compressed.insert(s.compressed.end(), data + pos + 8, data + pos + 8 + length);
            inData = true;
        } else if (inData) {
            afterData = true;
        }
        pos += size_t(length) + 12;
        if (std::memcmp(type, "IEND", 4) == 0) { ended = true; break; }
    }
    if (!ended || s.compressed.empty()) return wt::PngGrayResult::notHandled;
    return wt::PngGrayResult::decoded;
}

/// Inflates `s.compressed` (zlib stream, checksum checked) into `s.raw`, which must come out exactly `rawSize`
/// bytes: the filtered scanlines of a `width`×`height` image. `decoded` when it does.
wt::PngGrayResult inflate_exact(Scratch &s, size_t rawSize, uint32_t width, uint32_t height, std::string *problem) {
    auto corrupt = [&](std::string why) {
        if (problem != nullptr) *problem = std::move(why);
        return wt::PngGrayResult::corrupt;
    };
    if (s.compressed.size() > UINT32_MAX || rawSize > UINT32_MAX) return wt::PngGrayResult::notHandled;
    // Deflate expands at most ~1032:1: less compressed data than that cannot fill the image (and a
    // tiny file must not make us allocate gigabytes).
    if (rawSize / 1032 > s.compressed.size() + 64)
        return corrupt("corrupt PNG: " + std::to_string(s.compressed.size()) + " bytes of compressed data cannot hold a " +
                       std::to_string(width) + "x" + std::to_string(height) + " image");
    s.raw.resize(rawSize);
    if (!s.inflater) s.inflater.reset(new inflate_state);
    inflate_state &z = *s.inflater;
    isal_inflate_init(&z);
    z.crc_flag = ISAL_ZLIB; // zlib header and Adler-32 checked
    z.next_in = s.compressed.data();
    z.avail_in = uint32_t(s.compressed.size());
    z.next_out = s.raw.data();
    z.avail_out = uint32_t(rawSize);
    // Exactly rawSize bytes: less, more (ISAL_OUT_OVERFLOW) or any error leaves the file to OpenCV.
    const int inflated = isal_inflate_stateless(&z);
    if (z.avail_out != 0) {
        // Short of the image's rows: data libpng rejects too ("Not enough image data", invalid deflate data).
        switch (inflated) {
        case ISAL_DECOMP_OK:
        case ISAL_END_INPUT:
            return corrupt("corrupt PNG: the compressed image data ends after " + std::to_string(rawSize - z.avail_out) +
                           " of " + std::to_string(rawSize) + " bytes");
        case ISAL_INVALID_WRAPPER:
        case ISAL_UNSUPPORTED_METHOD:
            return corrupt("corrupt PNG: the compressed image data has no valid zlib header");
        case ISAL_INVALID_BLOCK:
        case ISAL_INVALID_SYMBOL:
        case ISAL_INVALID_LOOKBACK:
            return corrupt("corrupt PNG: invalid compressed image data (deflate error " + std::to_string(inflated) +
                           " after " + std::to_string(rawSize - z.avail_out) + " of " + std::to_string(rawSize) + " bytes)");
        default: return wt::PngGrayResult::notHandled;
        }
    }
    if (inflated != ISAL_DECOMP_OK) return wt::PngGrayResult::notHandled;
    return wt::PngGrayResult::decoded;
}

} // namespace

namespace wt {

PngGrayResult decode_png_gray(const uint8_t *data, size_t size, uint8_t **out_pixels, int32_t *out_width,
                              int32_t *out_height, std::string *problem) {
    auto corrupt = [&](std::string why) {
        if (problem != nullptr) *problem = std::move(why);
        return PngGrayResult::corrupt;
    };
    Ihdr h;
    if (!read_ihdr(data, size, &h)) return PngGrayResult::notHandled;
    if (h.colourType != 0 || (h.depth != 8 && h.depth != 16) || h.interlace != 0) return PngGrayResult::notHandled;
    const uint32_t width = h.width, height = h.height;
    const uint8_t depth = h.depth;

    Scratch &s = scratch;
    PngGrayResult gathered = gather_idat(data, size, s, false, problem);
    if (gathered != PngGrayResult::decoded) return gathered;
    const size_t bpp = depth / 8, lineBytes = size_t(width) * bpp;
    const size_t rawSize = size_t(height) * (lineBytes + 1);
    PngGrayResult inflated = inflate_exact(s, rawSize, width, height, problem);
    if (inflated != PngGrayResult::decoded) return inflated;

    std::vector<uint8_t> zeros(lineBytes, 0);
    const uint8_t *prior = zeros.data();
    for (size_t y = 0; y < height; ++y) {
        uint8_t *line = s.raw.data() + y * (lineBytes + 1);
        const bool known = bpp == 1 ? unfilter<1>(line[0], line + 1, prior, lineBytes)
                                    : unfilter<2>(line[0], line + 1, prior, lineBytes);
        if (!known) return corrupt("corrupt PNG: unknown row filter type " + std::to_string(line[0]) + " on row " + std::to_string(y));
        prior = line + 1;
    }

    uint8_t *pixels = static_cast<uint8_t *>(std::malloc(size_t(width) * height));
    if (pixels == nullptr) return PngGrayResult::outOfMemory;
    for (size_t y = 0; y < height; ++y) {
        const uint8_t *line = s.raw.data() + y * (lineBytes + 1) + 1;
        uint8_t *dst = pixels + y * width;
        if (bpp == 1) {
            std::memcpy(dst, line, width);
        } else {
            for (size_t x = 0; x < width; ++x) dst[x] = line[2 * x]; // big-endian: the high byte first
        }
    }
    *out_pixels = pixels;
    *out_width = int32_t(width);
    *out_height = int32_t(height);
    return PngGrayResult::decoded;
}

} // namespace wt

namespace wt {

PngDataCheck check_png_image_data(const uint8_t *data, size_t size, std::string *problem) {
    Ihdr h;
    if (!read_ihdr(data, size, &h) || h.interlace != 0) return PngDataCheck::unknown;
    const unsigned bits = bits_per_pixel(h.colourType, h.depth);
    if (bits == 0) return PngDataCheck::unknown;
    Scratch &s = scratch;
    const size_t lineBytes = (size_t(h.width) * bits + 7) / 8;
    const size_t rawSize = size_t(h.height) * (lineBytes + 1);
    switch (gather_idat(data, size, s, true, problem)) {
    case PngGrayResult::decoded: break;
    case PngGrayResult::corrupt: return PngDataCheck::corrupt;
    default: return PngDataCheck::unknown;
    }
    switch (inflate_exact(s, rawSize, h.width, h.height, problem)) {
    case PngGrayResult::decoded: break;
    case PngGrayResult::corrupt: return PngDataCheck::corrupt;
    default: return PngDataCheck::unknown;
    }
    for (size_t y = 0; y < h.height; ++y) {
        const uint8_t filter = s.raw[y * (lineBytes + 1)];
        if (filter > 4) {
            if (problem != nullptr)
                *problem = "corrupt PNG: unknown row filter type " + std::to_string(filter) + " on row " + std::to_string(y);
            return PngDataCheck::corrupt;
        }
    }
    return PngDataCheck::sound;
}

} // namespace wt
