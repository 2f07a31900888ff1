/* sg-normal-kernels.h — Phi and Phi^{-1} as branch-free inline kernels, for
 * loops that must vectorise.
 *
 * sg-normal's functions are the accurate reference (calls, branches, log
 * space); these compute the same values to ~1e-15 relative for the SOV's
 * inner loop in sg-mvn.c, where every point and variable needs Phi and its
 * inverse (~70% of that loop's time when they were scalar calls). Every
 * regime of an approximation is evaluated and the right one selected, with
 * no calls (exp and log are arithmetic on the bits), so GCC vectorises a
 * loop over them (with -fno-trapping-math, which the engine is built with).
 * They are forced inline because GCC does not inline across the optimize
 * attributes of SG_VECTORIZE loops. No fma: neither AVX2 nor AVX-512F
 * implies the FMA extension. tests/test-normal.c checks them against
 * sg-normal and libm.
 */
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

#define SG_KERNEL static inline __attribute__ ((always_inline))

/* c[0] + c[1] x + ... + c[n-1] x^(n-1) by Horner's rule (N a constant, so
 * the loop unrolls and the coefficients fold into the code). */
SG_KERNEL double
sg_horner (double x, const double *c, int n)
{
  double p = c[n - 1];
#pragma GCC unroll 16
  for (int i = n - 2; i >= 0; i--)
    p = p * x + c[i];
  return p;
}

/* exp(x) for x <= 0, relative error ~2e-16 down to x = -708; below that
 * exp(-708) ~ 3e-308 (callers treat values below 1e-300 as underflow).
 * Cody-Waite reduction x = k ln2 + r, |r| <= ln2 / 2, with fdlibm's split
 * of ln2 (k ln2_hi exact); exp(r) by its Taylor polynomial of degree 13
 * (truncation < 4e-18); 2^k written into the exponent bits. */
SG_KERNEL double
sg_exp_nonpositive (double x)
{
  const double magic = 6755399441055744.0;   /* 1.5 * 2^52: rounds to an integer */
  x = x > -708 ? x : -708;
  double kd = x * 1.4426950408889634074 + magic;
  uint64_t ki;
  memcpy (&ki, &kd, sizeof ki);   /* low bits: k (two's complement) */
  kd -= magic;
  double r = (x - kd * 6.93147180369123816490e-01) - kd * 1.90821492927058770002e-10;
  const double taylor[14] = { 1.0, 1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0,
    1.0 / 720.0, 1.0 / 5040.0, 1.0 / 40320.0, 1.0 / 362880.0, 1.0 / 3628800.0,
    1.0 / 39916800.0, 1.0 / 479001600.0, 1.0 / 6227020800.0 };   /* 1 / k! */
  double p = sg_horner (r, taylor, 14);
  uint64_t sb = (ki + 1023) << 52;   /* k >= -1021: a normal 2^k */
  double scale;
  memcpy (&scale, &sb, sizeof scale);
  return p * scale;
}

/* Phi(x) by Cody's rational Chebyshev approximations (W. J. Cody, "Rational
 * Chebyshev approximations for the error function", Math. Comp. 23 (1969)
 * 631-637; ACM TOMS Algorithm 715), the form used by R's pnorm: |x| <=
 * 0.674: 0.5 + x A(x^2)/B(x^2); up to 4 sqrt 2: e^{-x^2/2} C(y)/D(y), y =
 * |x|; beyond: e^{-x^2/2} (1/sqrt(2 pi) - w P(w)/Q(w)) / y, w = 1/x^2, here
 * multiplied through by x^10 so that each regime is one ratio and the three
 * share one division. exp(-x^2/2) gets the rounding error of x^2 back
 * (Dekker's exact product). Relative error ~1e-15 for all x; +-inf give 1, 0. */
SG_KERNEL double
sg_phi_kernel (double x)
{
  /* Cody's coefficients (R's pnorm: a, b; c, d; p, q) in ascending powers */
  const double A[5] = { 18154.981253343561249, 1067.6894854603709582,
    161.02823106855587881, 2.2352520354606839287, 0.065682337918207449113 };
  const double B[5] = { 45507.789335026729956, 10260.932208618978205,
    976.09855173777669322, 47.20258190468824187, 1 };
  const double C[9] = { 9842.7148383839780218, 11602.651437647350124,
    6848.1904505362823326, 2494.5375852903726711, 597.27027639480026226,
    93.506656132177855979, 8.8831497943883759412, 0.39894151208813466764,
    1.0765576773720192317e-8 };
  const double D[9] = { 19685.429676859990727, 38912.003286093271411,
    34900.952721145977266, 18615.571640885098091, 6485.558298266760755,
    1519.377599407554805, 235.38790178262499861, 22.266688044328115691, 1 };
  /* tail: w P(w)/Q(w) = N(s) / D(s) with N = p5 + p0 s + ... + p4 s^5,
   * D = s (1 + q0 s + ... + q4 s^5); then (1/sqrt(2 pi) - N/D) / y */
  const double N[6] = { 0.02307344176494017303, 0.21589853405795699,
    0.1274011611602473639, 0.022235277870649807, 0.001421619193227893466,
    2.9112874951168792e-5 };
  const double Q[6] = { 1, 1.28426009614491121, 0.468238212480865118,
    0.0659881378689285515, 0.00378239633202758244, 7.29751555083966205e-5 };
  double y = fabs (x), s = x * x;
  double an = sg_horner (s, A, 5), ad = sg_horner (s, B, 5);   /* central */
  double cn = sg_horner (y, C, 9), cd = sg_horner (y, D, 9);   /* middle */
  double tn = sg_horner (s, N, 6), td = sg_horner (s, Q, 6) * s;   /* tail */
  int central = y <= 0.67448975, middle = y <= 5.656854249492380195206754896838792314;
  double num = central ? an : (middle ? cn : 0.398942280401432677939946059934 * td - tn);
  double den = central ? ad : (middle ? cd : td * y);
  double ratio = num / den;
  /* exp(-(h + lo)/2) with h + lo = y^2 exactly (Veltkamp split of y) */
  double h = y * y, split = 134217729.0 * y;
  double yh = split - (split - y), yl = y - yh;
  double lo = ((yh * yh - h) + 2 * yh * yl) + yl * yl;
  double tail = sg_exp_nonpositive (-0.5 * h) * (1 - 0.5 * lo) * ratio;
  tail = y > 38.5 ? 0 : tail;   /* also +-inf, whose ratio is NaN */
  double outer = x > 0 ? 1 - tail : tail;
  return central ? 0.5 + x * ratio : outer;
}

/* log(x) for x > 0 (subnormals included), relative error ~2e-16: x =
 * 2^e m with m in [sqrt(1/2), sqrt(2)) read from the bits, log m = 2
 * atanh(s), s = (m - 1) / (m + 1), |s| <= 0.172, by its series to s^19
 * (truncation < 3e-17); e ln2 with fdlibm's split of ln2. */
SG_KERNEL double
sg_log_positive (double x)
{
  int tiny = x < 0x1p-1000;   /* subnormal or nearly: scale up first */
  x = tiny ? x * 0x1p200 : x;
  uint64_t bits, eb, mb;
  memcpy (&bits, &x, sizeof bits);
  eb = (bits >> 52) | UINT64_C (0x4330000000000000);   /* 2^52 + biased exponent */
  mb = (bits & UINT64_C (0x000fffffffffffff)) | UINT64_C (0x3ff0000000000000);
  double e, m;
  memcpy (&e, &eb, sizeof e);
  memcpy (&m, &mb, sizeof m);
  e -= 4503599627370496.0 + 1023.0;
  e -= tiny ? 200 : 0;
  int high = m > 1.4142135623730951;
  m = high ? 0.5 * m : m;
  e = high ? e + 1 : e;
  double f = m - 1, t = f / (2 + f), t2 = t * t;
  const double odd[10] = { 1.0, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11,
    1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19 };   /* 1 / (2k + 1) */
  double series = sg_horner (t2, odd, 10);
  return e * 6.93147180369123816490e-01 + (e * 1.90821492927058770002e-10 + 2 * t * series);
}

/* Phi^{-1}(p), 0 < p < 1: Wichura's algorithm AS 241 (PPND16), Applied
 * Statistics 37 (1988) 477-484, relative error ~1e-16. Its three regimes
 * (|p - 1/2| <= 0.425; r = sqrt(-log min(p, 1 - p)) <= 5; beyond) are all
 * evaluated and the right ratio taken, one division in all. */
SG_KERNEL double
sg_phiinv_kernel (double p)
{
  double q = p - 0.5, c = 0.180625 - q * q;
  double cn = (((((((2509.0809287301226727 * c + 33430.575583588128105) * c
               + 67265.770927008700853) * c + 45921.953931549871457) * c
               + 13731.693765509461125) * c + 1971.5909503065514427) * c
               + 133.14166789178437745) * c + 3.387132872796366608) * q;
  double cd = (((((((5226.495278852545925 * c + 28729.085735721942674) * c
               + 39307.89580009271061) * c + 21213.794301586595867) * c
               + 5394.1960214247511077) * c + 687.1870074920579083) * c
               + 42.313330701600911252) * c + 1.0);
  double r = sqrt (-sg_log_positive (q < 0 ? p : 1 - p));
  double a = r - 1.6, b = r - 5;
  double an = (((((((7.7454501427834140764e-4 * a + 0.0227238449892691845833) * a
               + 0.24178072517745061177) * a + 1.27045825245236838258) * a
               + 3.64784832476320460504) * a + 5.7694972214606914055) * a
               + 4.6303378461565452959) * a + 1.42343711074968357734);
  double ad = (((((((1.05075007164441684324e-9 * a + 5.475938084995344946e-4) * a
               + 0.0151986665636164571966) * a + 0.14810397642748007459) * a
               + 0.68976733498510000455) * a + 1.6763848301838038494) * a
               + 2.05319162663775882187) * a + 1.0);
  double bn = (((((((2.01033439929228813265e-7 * b + 2.71155556874348757815e-5) * b
               + 0.0012426609473880784386) * b + 0.026532189526576123093) * b
               + 0.29656057182850489123) * b + 1.7848265399172913358) * b
               + 5.4637849111641143699) * b + 6.6579046435011037772);
  double bd = (((((((2.04426310338993978564e-15 * b + 1.4215117583164458887e-7) * b
               + 1.8463183175100546818e-5) * b + 7.868691311456132591e-4) * b
               + 0.0148753612908506148525) * b + 0.13692988092273580531) * b
               + 0.59983220655588793769) * b + 1.0);
  int central = fabs (q) <= 0.425, near = r <= 5;
  double num = central ? cn : (near ? an : bn) * (q < 0 ? -1 : 1);
  double den = central ? cd : (near ? ad : bd);
  return num / den;
}
