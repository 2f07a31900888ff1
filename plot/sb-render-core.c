/* sb-render-core.c — palettes, nice ticks, colour maps, marching squares and
 * the data <-> device mapping of the pure plotting toolkit. */
#include "config.h"

#include "sb-render-private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- Palettes ------------------------------------------------------------ */

static void
set_hex (SbColor *c, guint32 rgb)
{
  c->r = ((rgb >> 16) & 0xff) / 255.0;
  c->g = ((rgb >> 8) & 0xff) / 255.0;
  c->b = (rgb & 0xff) / 255.0;
  c->a = 1.0;
}

/* Okabe & Ito (2008) "Color Universal Design" hues: blue, orange, reddish
 * purple, bluish green, vermillion, sky blue, yellow. The light preset uses
 * the saturated ones; the dark preset swaps in lighter hues of the same
 * families so lines keep their contrast on a dark background. */
void
sb_palette_init_light (SbPalette *p)
{
  memset (p, 0, sizeof *p);
  p->dark = FALSE;
  set_hex (&p->background, 0xffffff);
  set_hex (&p->foreground, 0x241f31);
  set_hex (&p->grid, 0xdedede);
  set_hex (&p->legend_bg, 0xfafafa);
  p->legend_bg.a = 0.92;
  set_hex (&p->roles[SB_ROLE_FOREGROUND], 0x241f31);
  set_hex (&p->roles[SB_ROLE_EXACT], 0x0072b2);
  set_hex (&p->roles[SB_ROLE_LAPLACE], 0xe69f00);
  set_hex (&p->roles[SB_ROLE_EP], 0xcc79a7);
  set_hex (&p->roles[SB_ROLE_TRUTH], 0x3d3846);
  set_hex (&p->roles[SB_ROLE_OBSERVATION], 0x241f31);
  set_hex (&p->roles[SB_ROLE_VALID], 0x009e73);
  set_hex (&p->roles[SB_ROLE_INVALID], 0xd55e00);
  set_hex (&p->roles[SB_ROLE_BEST], 0xd55e00);
  set_hex (&p->roles[SB_ROLE_NEXT], 0xc01c28);
  set_hex (&p->roles[SB_ROLE_ACQUISITION], 0x009e73);
  /* Tol's high contrast: dark blue, yellow, red. */
  set_hex (&p->roles[SB_ROLE_CLASS_0], 0x004488);
  set_hex (&p->roles[SB_ROLE_CLASS_0 + 1], 0xddaa33);
  set_hex (&p->roles[SB_ROLE_CLASS_0 + 2], 0xbb5566);
  static const guint32 series[8] = { 0x0072b2, 0xe69f00, 0x009e73, 0xcc79a7,
                                     0xd55e00, 0x56b4e9, 0x8f8a00, 0x5e5c64 };
  for (int i = 0; i < 8; i++)
    set_hex (&p->roles[SB_ROLE_SERIES_0 + i], series[i]);
}

void
sb_palette_init_dark (SbPalette *p)
{
  memset (p, 0, sizeof *p);
  p->dark = TRUE;
  set_hex (&p->background, 0x242424);
  set_hex (&p->foreground, 0xeeeeec);
  set_hex (&p->grid, 0x3d3d3d);
  set_hex (&p->legend_bg, 0x303030);
  p->legend_bg.a = 0.92;
  set_hex (&p->roles[SB_ROLE_FOREGROUND], 0xeeeeec);
  set_hex (&p->roles[SB_ROLE_EXACT], 0x56b4e9);
  set_hex (&p->roles[SB_ROLE_LAPLACE], 0xf5c211);
  set_hex (&p->roles[SB_ROLE_EP], 0xe4a0c8);
  set_hex (&p->roles[SB_ROLE_TRUTH], 0xc0bfbc);
  set_hex (&p->roles[SB_ROLE_OBSERVATION], 0xeeeeec);
  set_hex (&p->roles[SB_ROLE_VALID], 0x33d17a);
  set_hex (&p->roles[SB_ROLE_INVALID], 0xff7800);
  set_hex (&p->roles[SB_ROLE_BEST], 0xff7800);
  set_hex (&p->roles[SB_ROLE_NEXT], 0xf66151);
  set_hex (&p->roles[SB_ROLE_ACQUISITION], 0x33d17a);
  /* The light members of Tol's medium-contrast scheme, same hue order. */
  set_hex (&p->roles[SB_ROLE_CLASS_0], 0x6699cc);
  set_hex (&p->roles[SB_ROLE_CLASS_0 + 1], 0xeecc66);
  set_hex (&p->roles[SB_ROLE_CLASS_0 + 2], 0xee99aa);
  static const guint32 series[8] = { 0x56b4e9, 0xf5c211, 0x33d17a, 0xe4a0c8,
                                     0xff7800, 0x99c1f1, 0xdcd36a, 0xc0bfbc };
  for (int i = 0; i < 8; i++)
    set_hex (&p->roles[SB_ROLE_SERIES_0 + i], series[i]);
}

void
sb_palette_init_from_foreground (SbPalette *p, const SbColor *fg)
{
  /* Relative luminance (ITU-R BT.709 weights on the sRGB values is close
   * enough to decide light text = dark theme). */
  double lum = 0.2126 * fg->r + 0.7152 * fg->g + 0.0722 * fg->b;

  if (lum > 0.5)
    sb_palette_init_dark (p);
  else
    sb_palette_init_light (p);
  p->foreground = *fg;
  p->foreground.a = 1.0;
  p->roles[SB_ROLE_FOREGROUND] = p->foreground;
  p->roles[SB_ROLE_OBSERVATION] = p->foreground;
}

const SbColor *
sb_palette_role (const SbPalette *palette, SbRole role)
{
  if ((int) role < 0 || role >= SB_N_ROLES)
    role = SB_ROLE_FOREGROUND;
  return &palette->roles[role];
}

/* ---- Nice numbers and ticks ------------------------------------------- */

double
sb_nice_number (double x, gboolean round)
{
  if (!(x > 0) || !isfinite (x))
    return 1.0;
  double expv = floor (log10 (x));
  double f = x / pow (10.0, expv);   /* 1 <= f < 10 */
  double nf;

  if (round)
    nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
  else
    nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nf * pow (10.0, expv);
}

int
sb_ticks (double *lo, double *hi, int target, gboolean loose, double *ticks,
          int max, int *decimals)
{
  double a = *lo, b = *hi;

  if (!(isfinite (a) && isfinite (b)) || max <= 0)
    return 0;
  if (b < a)
    {
      double t = a; a = b; b = t;
    }
  if (b == a)
    {
      double pad = a == 0 ? 1.0 : fabs (a) * 0.1;
      a -= pad; b += pad;
      *lo = a;
      *hi = b;
    }
  if (target < 2)
    target = 2;
  /* Heckbert's nice step. (His loose labelling first rounds the range up
   * to a nice number, which can halve the number of ticks, e.g. 5.2 -> 10
   * gives 3 ticks on [-2.6, 2.6]; the step is rounded directly here.) */
  double step = sb_nice_number ((b - a) / target, TRUE);
  double first = ceil (a / step - 1e-9) * step;
  if (loose)
    {
      a = floor (a / step + 1e-9) * step;
      b = ceil (b / step - 1e-9) * step;
      first = a;
      *lo = a;
      *hi = b;
    }
  if (decimals)
    {
      int d = (int) -floor (log10 (step) + 1e-9);
      *decimals = d > 0 ? d : 0;
    }

  int n = 0;
  for (double v = first; v <= b + step * 1e-6 && n < max; v = first + n * step)
    {
      ticks[n++] = fabs (v) < step * 1e-9 ? 0.0 : v;
    }
  return n;
}

int
sb_ticks_log (double lo, double hi, double *ticks, int max)
{
  if (!(lo > 0 && hi > lo) || max <= 0)
    return 0;
  double d0 = floor (log10 (lo) + 1e-9), d1 = ceil (log10 (hi) - 1e-9);
  int n = 0;
  /* Decade ticks; thin them out to at most ~8 labels. */
  int every = (int) ceil ((d1 - d0 + 1) / 8.0);
  if (every < 1)
    every = 1;
  gboolean minor = log10 (hi / lo) <= 3.2;

  for (double d = d0; d <= d1 && n < max; d += 1)
    {
      static const double mult[3] = { 1, 2, 5 };
      for (int k = 0; k < (minor ? 3 : 1) && n < max; k++)
        {
          double v = mult[k] * pow (10.0, d);
          if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9))
            continue;
          if (k == 0 && ((long) (d - d0)) % every != 0)
            continue;
          ticks[n++] = v;
        }
    }
  return n;
}

void
sb_format_tick (double v, int decimals, char *buf, gsize size)
{
  double a = fabs (v);

  /* Below half the last printed digit it is round-off of a zero tick. */
  if (decimals <= 5 && a < 0.5 * pow (10.0, -decimals))
    v = a = 0;
  if (a != 0 && (a >= 1e5 || decimals > 5))
    g_snprintf (buf, size, "%.3g", v);
  else
    g_snprintf (buf, size, "%.*f", decimals, v);
  /* No "-0", "-0.0": a tick at zero is zero. */
  if (buf[0] == '-')
    {
      gboolean zero = TRUE;
      for (const char *c = buf + 1; *c; c++)
        if (*c != '0' && *c != '.')
          zero = FALSE;
      if (zero)
        memmove (buf, buf + 1, strlen (buf));
    }
}

/* ---- Colour maps ---------------------------------------------------------- */

/* Viridis (van der Walt & Smith, matplotlib 2015) as a degree-6 polynomial
 * per channel, least-squares fit to the 256-entry table (Matt Zucker,
 * shadertoy WlfXRN, CC0); largest deviation from the table ~0.01, far below
 * what the eye separates in a heatmap. */
static void
viridis (double t, SbColor *out)
{
  static const double c[7][3] = {
    { 0.2777273272234177, 0.005407344544966578, 0.3340998053353061 },
    { 0.1050930431085774, 1.404613529898575, 1.384590162594685 },
    { -0.3308618287255563, 0.214847559468213, 0.09509516302823659 },
    { -4.634230498983486, -5.799100973351585, -19.33244095627987 },
    { 6.228269936347081, 14.17993336680509, 56.69055260068105 },
    { 4.776384997670288, -13.74514537774601, -65.35303263337234 },
    { -5.435455855934631, 4.645852612178535, 26.3124352495832 },
  };
  double rgb[3];
  for (int ch = 0; ch < 3; ch++)
    {
      double v = c[6][ch];
      for (int k = 5; k >= 0; k--)
        v = v * t + c[k][ch];
      rgb[ch] = CLAMP (v, 0.0, 1.0);
    }
  out->r = rgb[0]; out->g = rgb[1]; out->b = rgb[2]; out->a = 1.0;
}

/* Moreland (2009), "Diverging Color Maps for Scientific Visualization":
 * interpolate in Msh space (polar CIELAB) between a blue and a red of equal
 * lightness through a neutral white-ish centre, so lightness varies
 * monotonically from each end to the middle. */
static double
srgb_to_linear (double c)
{
  return c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

static double
linear_to_srgb (double c)
{
  c = c <= 0.0031308 ? 12.92 * c : 1.055 * pow (c, 1 / 2.4) - 0.055;
  return CLAMP (c, 0.0, 1.0);
}

/* D65 reference white. */
static const double WX = 0.95047, WY = 1.0, WZ = 1.08883;

static double
lab_f (double t)
{
  return t > 0.008856 ? cbrt (t) : 7.787 * t + 16.0 / 116.0;
}

static double
lab_finv (double t)
{
  return t > 0.206893 ? t * t * t : (t - 16.0 / 116.0) / 7.787;
}

static void
rgb_to_msh (double r, double g, double b, double msh[3])
{
  r = srgb_to_linear (r); g = srgb_to_linear (g); b = srgb_to_linear (b);
  double x = 0.4124 * r + 0.3576 * g + 0.1805 * b;
  double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  double z = 0.0193 * r + 0.1192 * g + 0.9505 * b;
  double L = 116 * lab_f (y / WY) - 16;
  double A = 500 * (lab_f (x / WX) - lab_f (y / WY));
  double B = 200 * (lab_f (y / WY) - lab_f (z / WZ));
  msh[0] = sqrt (L * L + A * A + B * B);
  msh[1] = msh[0] > 0 ? acos (L / msh[0]) : 0;
  msh[2] = atan2 (B, A);
}

static void
msh_to_rgb (const double msh[3], SbColor *out)
{
  double L = msh[0] * cos (msh[1]);
  double A = msh[0] * sin (msh[1]) * cos (msh[2]);
  double B = msh[0] * sin (msh[1]) * sin (msh[2]);
  double fy = (L + 16) / 116;
  double x = WX * lab_finv (fy + A / 500);
  double y = WY * lab_finv (fy);
  double z = WZ * lab_finv (fy - B / 200);
  double r = 3.2406 * x - 1.5372 * y - 0.4986 * z;
  double g = -0.9689 * x + 1.8758 * y + 0.0415 * z;
  double b = 0.0557 * x - 0.2040 * y + 1.0570 * z;
  out->r = linear_to_srgb (r);
  out->g = linear_to_srgb (g);
  out->b = linear_to_srgb (b);
  out->a = 1.0;
}

static double
adjust_hue (const double msh[3], double m_unsat)
{
  if (msh[0] >= m_unsat)
    return msh[2];
  double spin = msh[1] * sqrt (m_unsat * m_unsat - msh[0] * msh[0])
                / (msh[0] * sin (msh[1]));
  return msh[2] > -G_PI / 3 ? msh[2] + spin : msh[2] - spin;
}

static void
coolwarm (double t, SbColor *out)
{
  double a[3], b[3];
  rgb_to_msh (0.230, 0.299, 0.754, a);   /* Moreland's blue end */
  rgb_to_msh (0.706, 0.016, 0.150, b);   /* and red end         */

  /* Both ends saturated and far apart in hue: pass through white. */
  double mid = MAX (MAX (a[0], b[0]), 88.0);
  if (t < 0.5)
    {
      b[0] = mid; b[1] = 0; b[2] = 0;
      t *= 2;
    }
  else
    {
      a[0] = mid; a[1] = 0; a[2] = 0;
      t = 2 * t - 1;
    }
  if (a[1] < 0.05 && b[1] > 0.05)
    a[2] = adjust_hue (b, a[0]);
  else if (b[1] < 0.05 && a[1] > 0.05)
    b[2] = adjust_hue (a, b[0]);

  double m[3];
  for (int k = 0; k < 3; k++)
    m[k] = (1 - t) * a[k] + t * b[k];
  msh_to_rgb (m, out);
}

void
sb_colormap_eval (SbColormap map, double t, SbColor *out)
{
  if (isnan (t))
    {
      *out = (SbColor) { 0, 0, 0, 0 };
      return;
    }
  t = CLAMP (t, 0.0, 1.0);
  if (map == SB_COLORMAP_COOLWARM)
    coolwarm (t, out);
  else
    viridis (t, out);
}

/* ---- Marching squares ------------------------------------------------------ */

/* Corner order: 0 = (i, j), 1 = (i+1, j), 2 = (i+1, j+1), 3 = (i, j+1).
 * Edge e joins corners e and (e + 1) % 4: 0 bottom, 1 right, 2 top, 3 left.
 * For each case (bit k set = corner k >= level) the pairs of crossed edges;
 * cases 5 and 10 are the saddles, resolved separately. */
static const signed char ms_table[16][4] = {
  { -1, -1, -1, -1 }, { 3, 0, -1, -1 }, { 0, 1, -1, -1 }, { 3, 1, -1, -1 },
  { 1, 2, -1, -1 },   { -1, -1, -1, -1 }, { 0, 2, -1, -1 }, { 3, 2, -1, -1 },
  { 2, 3, -1, -1 },   { 0, 2, -1, -1 }, { -1, -1, -1, -1 }, { 1, 2, -1, -1 },
  { 1, 3, -1, -1 },   { 0, 1, -1, -1 }, { 3, 0, -1, -1 }, { -1, -1, -1, -1 },
};

gsize
sb_contour_segments (const double *values, guint nx, guint ny, double x0,
                     double x1, double y0, double y1, double level,
                     SbSegmentFunc segment, gpointer user_data)
{
  if (nx < 2 || ny < 2 || !isfinite (level))
    return 0;
  double hx = (x1 - x0) / (nx - 1), hy = (y1 - y0) / (ny - 1);
  gsize count = 0;

  for (guint j = 0; j + 1 < ny; j++)
    for (guint i = 0; i + 1 < nx; i++)
      {
        double v[4] = { values[j * nx + i], values[j * nx + i + 1],
                        values[(j + 1) * nx + i + 1], values[(j + 1) * nx + i] };
        double cx[4] = { x0 + i * hx, x0 + (i + 1) * hx, x0 + (i + 1) * hx, x0 + i * hx };
        double cy[4] = { y0 + j * hy, y0 + j * hy, y0 + (j + 1) * hy, y0 + (j + 1) * hy };
        int code = 0;
        gboolean nan = FALSE;

        for (int k = 0; k < 4; k++)
          {
            if (isnan (v[k]))
              nan = TRUE;
            if (v[k] >= level)
              code |= 1 << k;
          }
        if (nan || code == 0 || code == 15)
          continue;

        signed char pairs[4];
        memcpy (pairs, ms_table[code], 4);
        if (code == 5 || code == 10)
          {
            double centre = 0.25 * (v[0] + v[1] + v[2] + v[3]);
            gboolean above = centre >= level;
            /* Cut off the two corners that are not joined through the
             * centre: those on the other side of the level from it. */
            gboolean cut_odd = (code == 5) == above;   /* corners 1 and 3 */
            if (cut_odd)
              {
                pairs[0] = 0; pairs[1] = 1; pairs[2] = 2; pairs[3] = 3;
              }
            else
              {
                pairs[0] = 3; pairs[1] = 0; pairs[2] = 1; pairs[3] = 2;
              }
          }

        for (int p = 0; p < 4 && pairs[p] >= 0; p += 2)
          {
            double ex[2], ey[2];
            for (int q = 0; q < 2; q++)
              {
                int e = pairs[p + q], a = e, b = (e + 1) % 4;
                double t = (level - v[a]) / (v[b] - v[a]);
                t = CLAMP (t, 0.0, 1.0);
                ex[q] = cx[a] + t * (cx[b] - cx[a]);
                ey[q] = cy[a] + t * (cy[b] - cy[a]);
              }
            if (segment)
              segment (ex[0], ey[0], ex[1], ey[1], user_data);
            count++;
          }
      }
  return count;
}

/* ---- Joining segments into polylines --------------------------------------- */

typedef struct {
  GArray *seg;       /* 4 doubles per segment */
  double qx, qy;     /* quantum for end-point matching */
} SegCollect;

static void
collect_segment (double ax, double ay, double bx, double by, gpointer data)
{
  SegCollect *c = data;
  double s[4] = { ax, ay, bx, by };
  g_array_append_vals (c->seg, s, 4);
}

/* End points computed in two neighbouring cells interpolate the same edge,
 * possibly from opposite corners, so they agree only to round-off: match
 * them on a grid a million times finer than a cell. */
static char *
point_key (const SegCollect *c, double x, double y)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT,
                          (gint64) llround (x / c->qx), (gint64) llround (y / c->qy));
}

gsize
sb_contour_lines (const double *values, guint nx, guint ny, double x0,
                  double x1, double y0, double y1, double level,
                  GArray *points, GArray *lengths)
{
  if (nx < 2 || ny < 2)
    return 0;
  SegCollect c = { g_array_new (FALSE, FALSE, sizeof (double)),
                   fabs (x1 - x0) / (nx - 1) * 1e-6, fabs (y1 - y0) / (ny - 1) * 1e-6 };
  if (!(c.qx > 0) || !(c.qy > 0))
    {
      g_array_unref (c.seg);
      return 0;
    }
  sb_contour_segments (values, nx, ny, x0, x1, y0, y1, level, collect_segment, &c);
  gsize n = c.seg->len / 4;
  const double *s = (const double *) c.seg->data;

  /* End point -> the (at most two) segment ends there, as 2 * seg + end. */
  GHashTable *ends = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (gsize k = 0; k < 2 * n; k++)
    {
      char *key = point_key (&c, s[2 * k], s[2 * k + 1]);
      GArray *list = g_hash_table_lookup (ends, key);
      if (list == NULL)
        {
          list = g_array_new (FALSE, FALSE, sizeof (gsize));
          g_hash_table_insert (ends, key, list);
        }
      else
        g_free (key);
      g_array_append_val (list, k);
    }

  /* A level through a grid node gives zero-length segments at the node in
   * the cells around it: they carry no line, drop them. */
  gboolean *used = g_new0 (gboolean, n);
  for (gsize k = 0; k < n; k++)
    {
      g_autofree char *a = point_key (&c, s[4 * k], s[4 * k + 1]);
      g_autofree char *b = point_key (&c, s[4 * k + 2], s[4 * k + 3]);
      used[k] = g_str_equal (a, b);
    }
  GArray *line = g_array_new (FALSE, FALSE, sizeof (double));
  gsize count = 0;
  for (gsize start = 0; start < n; start++)
    {
      if (used[start])
        continue;
      used[start] = TRUE;
      g_array_set_size (line, 0);
      g_array_append_vals (line, s + 4 * start, 4);
      /* Walk forward from the last point, then backward from the first. */
      for (int dir = 0; dir < 2; dir++)
        for (;;)
          {
            const double *p = dir == 0 ? &g_array_index (line, double, line->len - 2)
                                       : &g_array_index (line, double, 0);
            g_autofree char *key = point_key (&c, p[0], p[1]);
            GArray *list = g_hash_table_lookup (ends, key);
            gssize next = -1;
            for (guint i = 0; list && i < list->len; i++)
              {
                gsize e = g_array_index (list, gsize, i);
                if (!used[e / 2])
                  {
                    next = e;
                    break;
                  }
              }
            if (next < 0)
              break;
            gsize seg = next / 2, other = 2 * seg + (1 - next % 2);
            used[seg] = TRUE;
            if (dir == 0)
              g_array_append_vals (line, s + 2 * other, 2);
            else
              g_array_prepend_vals (line, s + 2 * other, 2);
          }
      guint npts = line->len / 2;
      g_array_append_vals (points, line->data, line->len);
      g_array_append_val (lengths, npts);
      count++;
    }
  g_array_unref (line);
  g_free (used);
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init (&it, ends);
  while (g_hash_table_iter_next (&it, NULL, &value))
    g_array_unref (value);
  g_hash_table_unref (ends);
  g_array_unref (c.seg);
  return count;
}

/* ---- Frame ------------------------------------------------------------------ */

double
sb_frame_x_to_device (const SbFrame *f, double x)
{
  return f->px + (x - f->x0) / (f->x1 - f->x0) * f->pw;
}

double
sb_frame_y_to_device (const SbFrame *f, double y)
{
  if (f->y_log)
    y = y > 0 ? log10 (y) : -INFINITY;
  return f->py + f->ph - (y - f->y0) / (f->y1 - f->y0) * f->ph;
}

double
sb_frame_x_from_device (const SbFrame *f, double dx)
{
  return f->x0 + (dx - f->px) / f->pw * (f->x1 - f->x0);
}

double
sb_frame_y_from_device (const SbFrame *f, double dy)
{
  double y = f->y0 + (f->py + f->ph - dy) / f->ph * (f->y1 - f->y0);
  return f->y_log ? pow (10.0, y) : y;
}

gboolean
sb_frame_contains (const SbFrame *f, double dx, double dy)
{
  return dx >= f->px && dx <= f->px + f->pw && dy >= f->py && dy <= f->py + f->ph;
}
