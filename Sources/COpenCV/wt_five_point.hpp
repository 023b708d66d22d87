// The five-point relative pose solver and a real polynomial root finder (internal to the C layer).
#ifndef WORLDTRACK_WT_FIVE_POINT_HPP
#define WORLDTRACK_WT_FIVE_POINT_HPP

namespace wt {

/// The highest degree `real_polynomial_roots` takes.
constexpr int kMaxPolynomialDegree = 10;
/// At most this many essential matrices fit five correspondences.
constexpr int kMaxFivePointSolutions = 10;

/// The real roots of c[0] + c[1] x + … + c[degree] x^degree, ascending, written to out_roots (room for `degree`);
/// returns their number, or -1 when degree > kMaxPolynomialDegree. A multiple root may be missed where the
/// polynomial only touches zero (as with any method that works in real arithmetic).
int real_polynomial_roots(const double *coefficients, int degree, double *out_roots);

/// The essential matrices E (row-major, unit Frobenius norm, sign arbitrary) with x2ᵀ E x1 = 0 for the five
/// correspondences (x1, y1) = points1[2i…2i+1], (x2, y2) = points2[2i…2i+1] in normalised coordinates, ordered by
/// the solver's unknown; returns their number (0 for a degenerate sample).
int five_point_essentials(const double *points1, const double *points2, double out_E[kMaxFivePointSolutions][9]);

} // namespace wt

#endif
