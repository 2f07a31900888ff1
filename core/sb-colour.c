/* sb-colour.c — OKLCH to sRGB with chroma reduction into the gamut. */
#include "config.h"

#include "sb-colour.h"

#include <math.h>

/* Ottosson's OKLab -> LMS' (cube roots) and LMS -> linear sRGB matrices,
 * the inverse of his published sRGB -> OKLab transform. */
void
sb_oklab_to_linear_srgb (double L, double a, double b, double rgb[3])
{
  double l_ = L + 0.3963377774 * a + 0.2158037573 * b;
  double m_ = L - 0.1055613458 * a - 0.0638541728 * b;
  double s_ = L - 0.0894841775 * a - 1.2914855480 * b;
  double l = l_ * l_ * l_, m = m_ * m_ * m_, s = s_ * s_ * s_;

  rgb[0] = +4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s;
  rgb[1] = -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s;
  rgb[2] = -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s;
}

double
sb_srgb_encode (double linear)
{
  double sign = linear < 0 ? -1.0 : 1.0, x = fabs (linear);

  return sign * (x <= 0.0031308 ? 12.92 * x : 1.055 * pow (x, 1.0 / 2.4) - 0.055);
}

gboolean
sb_linear_srgb_in_gamut (const double rgb[3])
{
  /* Ottosson's matrices have 10 digits, so the primaries themselves land
   * up to ~1e-8 outside [0, 1]; 1e-6 accepts them and stays far below a
   * display's 8-bit step (4e-3). */
  const double eps = 1e-6;

  for (int i = 0; i < 3; i++)
    if (!(rgb[i] >= -eps && rgb[i] <= 1.0 + eps))
      return FALSE;
  return TRUE;
}

static void
oklch_to_linear (double L, double C, double h, double rgb[3])
{
  double rad = h * G_PI / 180.0;

  sb_oklab_to_linear_srgb (L, C * cos (rad), C * sin (rad), rgb);
}

gboolean
sb_oklch_to_srgb (double L, double C, double h, double rgb[3], double *chroma)
{
  double lin[3];
  gboolean mapped = FALSE;

  C = MAX (C, 0.0);
  if (L <= 0.0 || L >= 1.0)
    {
      /* The ends of the lightness axis are black and white at any chroma. */
      mapped = C > 0;
      L = L <= 0.0 ? 0.0 : 1.0;
      C = 0.0;
    }
  oklch_to_linear (L, C, h, lin);
  if (!sb_linear_srgb_in_gamut (lin))
    {
      /* Bisection on chroma: the grey axis (C = 0) is inside the gamut
       * for 0 < L < 1, and along a ray of constant L and h the gamut is
       * an interval [0, C_max], so 60 halvings pin C_max to round-off. */
      double lo = 0.0, hi = C;
      for (int i = 0; i < 60; i++)
        {
          double mid = 0.5 * (lo + hi);
          oklch_to_linear (L, mid, h, lin);
          if (sb_linear_srgb_in_gamut (lin))
            lo = mid;
          else
            hi = mid;
        }
      C = lo;
      oklch_to_linear (L, C, h, lin);
      mapped = TRUE;
    }
  for (int i = 0; i < 3; i++)
    rgb[i] = CLAMP (sb_srgb_encode (lin[i]), 0.0, 1.0);
  if (chroma)
    *chroma = C;
  return mapped;
}
