// The fast grayscale PNG decoder (internal; see wt_png_gray.cpp).
#ifndef WORLDTRACK_WT_PNG_GRAY_HPP
#define WORLDTRACK_WT_PNG_GRAY_HPP

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace wt {

enum class PngGrayResult {
    /// *out_pixels holds width*height 8-bit pixels (malloc'd, released with wt_free).
    decoded,
    /// Not a grayscale 8/16-bit non-interlaced PNG, or not consistent: decode it another way.
    notHandled,
    /// The pixel buffer could not be allocated.
    outOfMemory,
    /// A grayscale PNG whose image data is certainly broken in a way libpng also rejects (an IDAT checksum
    /// that does not match, invalid or too little compressed data, an unknown row filter): `*problem` says
    /// what, and libpng is not asked (it would name the same problem in its own words).
    corrupt,
};

/// Decodes `data` when it is a grayscale, 8- or 16-bit, non-interlaced PNG, to 8-bit gray exactly as
/// OpenCV's imdecode(IMREAD_GRAYSCALE) did and the libpng path in wt_codecs.cpp does (16-bit samples keep their
/// high byte).
PngGrayResult decode_png_gray(const uint8_t *data, size_t size, uint8_t **out_pixels, int32_t *out_width,
                              int32_t *out_height, std::string *problem = nullptr);

/// What `check_png_image_data` found.
enum class PngDataCheck {
    /// The image data inflates to exactly the image's scanlines, each with a known filter type.
    sound,
    /// The image data is certainly broken (a CRC that does not match, invalid or too little compressed data,
    /// an unknown row filter): `*problem` says what, in the words `decode_png_gray` uses.
    corrupt,
    /// Not a non-interlaced PNG with a valid IHDR and chunk list this check follows: let the decoder judge it.
    unknown,
};

/// Checks the image data of a PNG of any colour type and bit depth (non-interlaced) without decoding the pixels:
/// what libpng would reject while decoding, found before the libpng path (wt_codecs.cpp) is asked, so a corrupt
/// colour file fails with the same message as a grayscale one. Costs one inflate of the image data.
PngDataCheck check_png_image_data(const uint8_t *data, size_t size, std::string *problem = nullptr);

} // namespace wt

#endif
