// The five-point relative pose solver (Nistér, "An efficient solution to the five-point relative pose problem",
// PAMI 2004): the essential matrices consistent with five correspondences, and the real roots of a polynomial.
//
// OpenCV's classic five-point RANSAC finds the roots of the solver's degree-10 polynomial with cv::solvePoly
// (Durand–Kerner iteration over all ten complex roots), a large share of its cost. Only the real roots are
// wanted; here they are bracketed between the real roots of the derivative (found the same way, recursively)
// and polished by safeguarded Newton steps. Plain C++ (no OpenCV), allocation-free.
#include "wt_five_point.hpp"
#include <algorithm>
#include <cmath>
#include <cstring>

namespace wt {

namespace {

/// p(x) for ascending coefficients c[0..degree], by Horner's rule.
inline double evaluate(const double *c, int degree, double x) {
    double v = c[degree];
    for (int i = degree - 1; i >= 0; --i) v = v * x + c[i];
    return v;
}

/// p(x) and p'(x) together.
inline void evaluate_with_derivative(const double *c, int degree, double x, double &value, double &slope) {
    double v = c[degree], d = 0;
    for (int i = degree - 1; i >= 0; --i) {
        d = d * x + v;
        v = v * x + c[i];
    }
    value = v;
    slope = d;
}

/// The root of p in [a, b] where p(a) and p(b) have opposite signs (`fa` = p(a)): Newton steps kept inside the
/// shrinking bracket, bisection when a step would leave it or converge too slowly.
double bracketed_root(const double *c, int degree, double a, double b, double fa) {
    double lo = a, hi = b; // p(lo) has the sign of fa
    double x = 0.5 * (lo + hi);
    double previous_step = hi - lo, step = previous_step;
    for (int iteration = 0; iteration < 200; ++iteration) {
        double f, df;
        evaluate_with_derivative(c, degree, x, f, df);
        if (f == 0) return x;
        if ((f < 0) == (fa < 0)) lo = x; else hi = x;
        double newton = df != 0 ? x - f / df : NAN;
        bool inside = newton > std::min(lo, hi) && newton < std::max(lo, hi);
        if (inside && std::fabs(2 * (x - newton)) <= std::fabs(previous_step)) {
            previous_step = step;
            step = x - newton;
            x = newton;
        } else {
            previous_step = step;
            step = 0.5 * (hi - lo);
            x = lo + step;
        }
        if (std::fabs(step) <= 4e-16 * std::max(1.0, std::fabs(x)) || lo == hi) return x;
    }
    return x;
}

} // namespace

int real_polynomial_roots(const double *coefficients, int degree, double *out_roots) {
    if (degree > kMaxPolynomialDegree) return -1;
    // Drop exact zero leading coefficients.
    while (degree > 0 && coefficients[degree] == 0) --degree;
    if (degree <= 0) return 0;
    if (degree == 1) {
        out_roots[0] = -coefficients[0] / coefficients[1];
        return std::isfinite(out_roots[0]) ? 1 : 0;
    }
    // Every root's modulus is below Cauchy's bound, and so (Gauss–Lucas) is every critical point's.
    double bound = 0;
    for (int i = 0; i < degree; ++i) bound = std::max(bound, std::fabs(coefficients[i] / coefficients[degree]));
    bound += 1;
    if (!std::isfinite(bound)) return 0;

    double derivative[kMaxPolynomialDegree];
    for (int i = 1; i <= degree; ++i) derivative[i - 1] = i * coefficients[i];
    double critical[kMaxPolynomialDegree];
    int criticalCount = real_polynomial_roots(derivative, degree - 1, critical);

    // Between consecutive critical points p is monotonic: one root at most, where the signs differ.
    double ends[kMaxPolynomialDegree + 2];
    int endCount = 0;
    ends[endCount++] = -bound;
    for (int i = 0; i < criticalCount; ++i)
        if (critical[i] > -bound && critical[i] < bound) ends[endCount++] = critical[i];
    ends[endCount++] = bound;

    int count = 0;
    double fa = evaluate(coefficients, degree, ends[0]);
    for (int i = 0; i + 1 < endCount; ++i) {
        double a = ends[i], b = ends[i + 1];
        double fb = evaluate(coefficients, degree, b);
        if (fa == 0) {
            if (count == 0 || out_roots[count - 1] != a) out_roots[count++] = a;
        } else if (fb != 0 && (fa < 0) != (fb < 0)) {
            out_roots[count++] = bracketed_root(coefficients, degree, a, b, fa);
        }
        fa = fb;
    }
    if (fa == 0 && (count == 0 || out_roots[count - 1] != ends[endCount - 1])) out_roots[count++] = ends[endCount - 1];
    return count;
}

namespace {

// Polynomials in the unknowns x, y, z of E = x·X + y·Y + z·Z + W, up to degree 3, as 20 coefficients indexed by
// monomial. The order is the elimination's (Nistér): the first ten are eliminated, the last ten remain.
enum Monomial {
    xxx, yyy, xxy, xyy, xxz, xx, yyz, yy, xyz, xy, // eliminated
    xzz, xz, x1, yzz, yz, y1, zzz, zz, z1, one,     // kept
    kMonomials
};

/// Exponents (of x, y, z) of each monomial.
constexpr int kExponents[kMonomials][3] = {
    {3, 0, 0}, {0, 3, 0}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}, {2, 0, 0}, {0, 2, 1}, {0, 2, 0}, {1, 1, 1}, {1, 1, 0},
    {1, 0, 2}, {1, 0, 1}, {1, 0, 0}, {0, 1, 2}, {0, 1, 1}, {0, 1, 0}, {0, 0, 3}, {0, 0, 2}, {0, 0, 1}, {0, 0, 0},
};

/// The monomial with these exponents (all of degree 3 or less are in the table).
constexpr int monomial_index(int a, int b, int c) {
    for (int i = 0; i < kMonomials; ++i)
        if (kExponents[i][0] == a && kExponents[i][1] == b && kExponents[i][2] == c) return i;
    return -1;
}

/// The linear monomials x, y, z, 1 in the order of the null-space basis X, Y, Z, W.
constexpr int kLinear[4] = {x1, y1, z1, one};
/// The monomials of degree 2 or less.
constexpr int kUpToQuadratic[10] = {xx, yy, zz, xy, xz, yz, x1, y1, z1, one};

/// Products of the monomials in `rows` with the linear ones: product[i][j] = rows[i] · kLinear[j].
template <int Rows> struct ProductTable {
    int product[Rows][4];
    constexpr explicit ProductTable(const int (&rows)[Rows]) : product{} {
        for (int i = 0; i < Rows; ++i)
            for (int j = 0; j < 4; ++j) {
                const int *a = kExponents[rows[i]], *b = kExponents[kLinear[j]];
                product[i][j] = monomial_index(a[0] + b[0], a[1] + b[1], a[2] + b[2]);
            }
    }
};
/// A monomial of degree ≤ 2 times a linear one.
constexpr ProductTable<10> kProducts{kUpToQuadratic};
/// Two linear monomials.
constexpr ProductTable<4> kLinearProducts{kLinear};

using Poly = double[kMonomials];

/// out = a · b for linear a and b (each: coefficients of x, y, z, 1 in `kLinear` order).
void multiply_linear(const double a[4], const double b[4], Poly out) {
    std::memset(out, 0, sizeof(Poly));
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) out[kLinearProducts.product[i][j]] += a[i] * b[j];
}

/// out += s · q · l for q of degree ≤ 2 and linear l.
void add_quadratic_times_linear(const Poly q, const double l[4], double s, Poly out) {
    for (int i = 0; i < 10; ++i) {
        double qi = q[kUpToQuadratic[i]];
        if (qi == 0) continue;
        qi *= s;
        for (int j = 0; j < 4; ++j) out[kProducts.product[i][j]] += qi * l[j];
    }
}

/// Polynomial product in one variable (ascending coefficients): out[0..da+db] = a · b.
void multiply_1d(const double *a, int da, const double *b, int db, double *out) {
    for (int i = 0; i <= da + db; ++i) out[i] = 0;
    for (int i = 0; i <= da; ++i)
        for (int j = 0; j <= db; ++j) out[i + j] += a[i] * b[j];
}

/// The null space of the 5x9 epipolar system, by Householder QR of its transpose: four orthonormal 9-vectors.
void null_space(const double Q[5][9], double basis[4][9]) {
    double A[9][5];
    for (int r = 0; r < 5; ++r)
        for (int c = 0; c < 9; ++c) A[c][r] = Q[r][c];
    double v[5][9] = {};
    double vv[5] = {};
    for (int k = 0; k < 5; ++k) {
        double norm = 0;
        for (int i = k; i < 9; ++i) norm += A[i][k] * A[i][k];
        norm = std::sqrt(norm);
        for (int i = 0; i < 9; ++i) v[k][i] = i >= k ? A[i][k] : 0;
        v[k][k] += A[k][k] >= 0 ? norm : -norm;
        for (int i = k; i < 9; ++i) vv[k] += v[k][i] * v[k][i];
        if (vv[k] == 0) continue;
        for (int c = k; c < 5; ++c) {
            double dot = 0;
            for (int i = k; i < 9; ++i) dot += v[k][i] * A[i][c];
            double s = 2 * dot / vv[k];
            for (int i = k; i < 9; ++i) A[i][c] -= s * v[k][i];
        }
    }
    // H = H0 H1 … H4; its last four columns are the null space: H e_j for j = 5…8.
    for (int j = 0; j < 4; ++j) {
        double *e = basis[j];
        for (int i = 0; i < 9; ++i) e[i] = i == 5 + j ? 1 : 0;
        for (int k = 4; k >= 0; --k) {
            if (vv[k] == 0) continue;
            double dot = 0;
            for (int i = k; i < 9; ++i) dot += v[k][i] * e[i];
            double s = 2 * dot / vv[k];
            for (int i = k; i < 9; ++i) e[i] -= s * v[k][i];
        }
    }
}

} // namespace

int five_point_essentials(const double *points1, const double *points2, double out_E[kMaxFivePointSolutions][9]) {
    // One epipolar constraint x2ᵀ E x1 = 0 per correspondence, on E's row-major entries.
    double Q[5][9];
    for (int i = 0; i < 5; ++i) {
        double u1 = points1[2 * i], v1 = points1[2 * i + 1], u2 = points2[2 * i], v2 = points2[2 * i + 1];
        double row[9] = {u2 * u1, u2 * v1, u2, v2 * u1, v2 * v1, v2, u1, v1, 1};
        std::memcpy(Q[i], row, sizeof(row));
    }
    double basis[4][9]; // X, Y, Z, W
    null_space(Q, basis);

    // E's entries as linear polynomials: E[r][c] = x X + y Y + z Z + W.
    double E[3][3][4];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 4; ++k) E[r][c][k] = basis[k][3 * r + c];

    // The ten cubic constraints: det E = 0 and E Eᵀ E − ½ trace(E Eᵀ) E = 0.
    double M[10][kMonomials] = {};
    Poly EEt[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) {
            Poly sum = {};
            for (int k = 0; k < 3; ++k) {
                Poly p;
                multiply_linear(E[i][k], E[j][k], p);
                for (int m = 0; m < kMonomials; ++m) sum[m] += p[m];
            }
            std::memcpy(EEt[i][j], sum, sizeof(Poly));
            if (i != j) std::memcpy(EEt[j][i], sum, sizeof(Poly));
        }
    Poly trace;
    for (int m = 0; m < kMonomials; ++m) trace[m] = EEt[0][0][m] + EEt[1][1][m] + EEt[2][2][m];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double *row = M[1 + 3 * i + j];
            for (int k = 0; k < 3; ++k) add_quadratic_times_linear(EEt[i][k], E[k][j], 1.0, row);
            add_quadratic_times_linear(trace, E[i][j], -0.5, row);
        }
    {
        Poly minor;
        multiply_linear(E[1][1], E[2][2], minor);
        Poly other;
        multiply_linear(E[1][2], E[2][1], other);
        for (int m = 0; m < kMonomials; ++m) minor[m] -= other[m];
        add_quadratic_times_linear(minor, E[0][0], 1.0, M[0]);
        multiply_linear(E[1][0], E[2][2], minor);
        multiply_linear(E[1][2], E[2][0], other);
        for (int m = 0; m < kMonomials; ++m) minor[m] -= other[m];
        add_quadratic_times_linear(minor, E[0][1], -1.0, M[0]);
        multiply_linear(E[1][0], E[2][1], minor);
        multiply_linear(E[1][1], E[2][0], other);
        for (int m = 0; m < kMonomials; ++m) minor[m] -= other[m];
        add_quadratic_times_linear(minor, E[0][2], 1.0, M[0]);
    }

    // Gauss–Jordan elimination with partial pivoting: row i becomes monomial i + Σ R[i][j] · (kept monomial j).
    for (int col = 0; col < 10; ++col) {
        int pivot = col;
        for (int r = col + 1; r < 10; ++r)
            if (std::fabs(M[r][col]) > std::fabs(M[pivot][col])) pivot = r;
        if (M[pivot][col] == 0) return 0; // degenerate sample
        if (pivot != col)
            for (int m = 0; m < kMonomials; ++m) std::swap(M[pivot][m], M[col][m]);
        double inverse = 1 / M[col][col];
        for (int m = col; m < kMonomials; ++m) M[col][m] *= inverse;
        for (int r = 0; r < 10; ++r) {
            if (r == col || M[r][col] == 0) continue;
            double f = M[r][col];
            for (int m = col; m < kMonomials; ++m) M[r][m] -= f * M[col][m];
        }
    }

    // Rows (x²z, x²), (y²z, y²), (xyz, xy): each pair's first minus z times its second leaves a polynomial in
    // x, y with coefficients in z: B(z) · [x, y, 1]ᵀ = 0. Columns of B: x (cubic in z), y (cubic), 1 (quartic).
    // Ascending powers of z.
    double B[3][3][5] = {};
    const int pairs[3][2] = {{xxz, xx}, {yyz, yy}, {xyz, xy}};
    for (int p = 0; p < 3; ++p) {
        const double *e = M[pairs[p][0]], *f = M[pairs[p][1]];
        // x terms: e's (xz², xz, x) minus z·f's.
        B[p][0][0] = e[x1];
        B[p][0][1] = e[xz] - f[x1];
        B[p][0][2] = e[xzz] - f[xz];
        B[p][0][3] = -f[xzz];
        B[p][1][0] = e[y1];
        B[p][1][1] = e[yz] - f[y1];
        B[p][1][2] = e[yzz] - f[yz];
        B[p][1][3] = -f[yzz];
        B[p][2][0] = e[one];
        B[p][2][1] = e[z1] - f[one];
        B[p][2][2] = e[zz] - f[z1];
        B[p][2][3] = e[zzz] - f[zz];
        B[p][2][4] = -f[zzz];
    }
    // det B(z), degree 10: expansion along the first column.
    double polynomial[11] = {};
    {
        double a[8], b[8], minor[8], term[11];
        auto cofactor = [&](int r1, int r2) { // B[r1][1]·B[r2][2] − B[r1][2]·B[r2][1], degree 7
            multiply_1d(B[r1][1], 3, B[r2][2], 4, a);
            multiply_1d(B[r1][2], 4, B[r2][1], 3, b);
            for (int i = 0; i < 8; ++i) minor[i] = a[i] - b[i];
        };
        const int rows[3][3] = {{0, 1, 2}, {1, 0, 2}, {2, 0, 1}};
        for (int r = 0; r < 3; ++r) {
            cofactor(rows[r][1], rows[r][2]);
            multiply_1d(B[rows[r][0]][0], 3, minor, 7, term);
            double sign = r == 1 ? -1 : 1;
            for (int i = 0; i < 11; ++i) polynomial[i] += sign * term[i];
        }
    }

    double roots[10];
    int rootCount = real_polynomial_roots(polynomial, 10, roots);
    int count = 0;
    for (int k = 0; k < rootCount; ++k) {
        double z = roots[k];
        double Bz[3][3];
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) Bz[r][c] = evaluate(B[r][c], c == 2 ? 4 : 3, z);
        // [x, y, 1] is B(z)'s null vector: the largest cross product of two of its rows.
        double best[3] = {0, 0, 0}, bestNorm = 0;
        const int rowPairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
        for (const auto &rp : rowPairs) {
            const double *a = Bz[rp[0]], *b = Bz[rp[1]];
            double v[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
            double n = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
            if (n > bestNorm) {
                bestNorm = n;
                std::memcpy(best, v, sizeof(v));
            }
        }
        if (!(bestNorm > 0)) continue;
        double norm = std::sqrt(bestNorm);
        if (std::fabs(best[2] / norm) < 1e-10) continue; // a solution at infinity in x, y
        double x = best[0] / best[2], y = best[1] / best[2];
        double e[9], frobenius = 0;
        for (int i = 0; i < 9; ++i) {
            e[i] = x * basis[0][i] + y * basis[1][i] + z * basis[2][i] + basis[3][i];
            frobenius += e[i] * e[i];
        }
        frobenius = std::sqrt(frobenius);
        if (!(frobenius > 0) || !std::isfinite(frobenius)) continue;
        for (int i = 0; i < 9; ++i) out_E[count][i] = e[i] / frobenius;
        ++count;
    }
    return count;
}

} // namespace wt
