/* sb-colour.h — OKLCH colours for the screen (sRGB).
 *
 * OKLab is Björn Ottosson's perceptual colour space ("A perceptual colour
 * space for image processing", 2020); OKLCH is its polar form: lightness
 * L in [0, 1], chroma C >= 0 and hue h in degrees, as in CSS Color 4 §9.
 * Many OKLCH colours lie outside what an sRGB display can show. Such a
 * colour is mapped into the gamut by reducing its chroma at constant
 * lightness and hue (the largest chroma that still fits), which keeps
 * what the person compares, lightness and hue, exactly as asked; the
 * caller is told so that the swatch can say it was mapped.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* OKLab -> linear-light sRGB (Ottosson's matrices); may leave [0, 1]. */
void sb_oklab_to_linear_srgb (double L, double a, double b, double rgb[3]);
/* The sRGB transfer function (IEC 61966-2-1): linear light -> encoded. */
double sb_srgb_encode (double linear);
/* Whether linear-light RGB lies in the sRGB gamut (within 1e-6). */
gboolean sb_linear_srgb_in_gamut (const double rgb[3]);

/* OKLCH (L in [0, 1], C >= 0, H in degrees, any real) -> encoded sRGB in
 * [0, 1]. Out-of-gamut colours have their chroma reduced at constant L
 * and h; *CHROMA (if not NULL) is the chroma shown. L <= 0 is black and
 * L >= 1 white. Returns TRUE when the colour had to be mapped. */
gboolean sb_oklch_to_srgb (double L, double C, double h, double rgb[3], double *chroma);

G_END_DECLS
