/* test-plot-fixture.c — see test-plot-fixture.h. */
#include "test-plot-fixture.h"

#include <math.h>
#include <string.h>

static double *
doubles (GKeyFile *kf, const char *group, const char *key, gsize *n)
{
  g_autoptr (GError) error = NULL;
  double *v = g_key_file_get_double_list (kf, group, key, n, &error);
  g_assert_no_error (error);
  return v;
}

static gboolean
has (GKeyFile *kf, const char *group, const char *key)
{
  return g_key_file_has_group (kf, group) && g_key_file_has_key (kf, group, key, NULL);
}

static sg_point_summary *
summaries (GKeyFile *kf, const char *group, gsize n)
{
  static const char *keys[] = { "mean", "median", "sd", "lower", "upper",
                                "hpd_lower", "hpd_upper", "skewness" };
  sg_point_summary *s = g_new (sg_point_summary, n);
  for (gsize k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      gsize m;
      g_autofree double *v = doubles (kf, group, keys[k], &m);
      g_assert_cmpuint (m, ==, n);
      for (gsize i = 0; i < n; i++)
        {
          double *slot[] = { &s[i].mean, &s[i].median, &s[i].sd, &s[i].lower, &s[i].upper,
                             &s[i].hpd_lower, &s[i].hpd_upper, &s[i].skewness };
          *slot[k] = v[i];
          s[i].class_probability = NAN;
          s[i].prob_better = NAN;
        }
    }
  return s;
}

static sg_obs_kind
obs_kind (const char *s)
{
  if (g_str_equal (s, "duel"))
    return SG_OBS_PREFERENCE;
  if (g_str_equal (s, "valid"))
    return SG_OBS_VALID;
  if (g_str_equal (s, "invalid"))
    return SG_OBS_INVALID;
  if (g_str_equal (s, "binary"))
    return SG_OBS_BINARY;
  if (g_str_equal (s, "tie"))
    return SG_OBS_TIE;
  if (g_str_equal (s, "choice"))
    return SG_OBS_CHOICE;
  return SG_OBS_NUMERIC;
}

static void
load_fields (GKeyFile *kf, SbPlotSnapshot *snap)
{
  static const char *fields[SB_N_FIELDS] = { "mean", "sd", "skewness", "acquisition", "p_valid" };
  g_autoptr (GError) error = NULL;
  guint nx = g_key_file_get_integer (kf, "slice", "nx", &error);
  g_assert_no_error (error);
  guint ny = g_key_file_get_integer (kf, "slice", "ny", &error);
  g_assert_no_error (error);
  gsize nb, nf;
  g_autofree double *box = doubles (kf, "slice", "box", &nb);
  g_autofree double *fixed = doubles (kf, "slice", "fixed", &nf);
  g_assert_cmpuint (nb, ==, 4);
  g_assert_cmpuint (nf, ==, sb_plot_snapshot_get_dim (snap));
  sb_plot_snapshot_set_slice (snap, g_key_file_get_integer (kf, "slice", "axis_x", NULL),
                              g_key_file_get_integer (kf, "slice", "axis_y", NULL), fixed);
  for (int f = 0; f < SB_N_FIELDS; f++)
    for (int s = 0; s < SB_N_POSTERIOR_METHODS; s++)
      {
        g_autofree char *group = g_strdup_printf ("field-%s-%s", fields[f], sb_posterior_method_id (s));
        if (!has (kf, group, "values"))
          continue;
        gsize n;
        g_autofree double *v = doubles (kf, group, "values", &n);
        g_assert_cmpuint (n, ==, (gsize) nx * ny);
        g_autoptr (SbGrid2) grid = sb_grid2_new (nx, ny, box[0], box[1], box[2], box[3], v);
        sb_plot_snapshot_set_field (snap, f, s, grid);
      }
}

static SbDensityData *
load_density (GKeyFile *kf, guint dim)
{
  gsize n, k;
  g_autofree double *x = doubles (kf, "density", "x", &n);
  g_assert_cmpuint (n, ==, dim);
  g_autofree char *diff = g_key_file_get_string (kf, "density", "difference", NULL);
  SbDensityData *d = sb_density_data_new (dim, x, g_strcmp0 (diff, "true") == 0, 1);
  g_autofree double *grid = doubles (kf, "density", "grid", &k);
  sb_density_data_set_grid (d, k, grid);
  for (int s = 0; s < SB_N_POSTERIOR_METHODS; s++)
    if (has (kf, "density", sb_posterior_method_id (s)))
      {
        g_autofree double *v = doubles (kf, "density", sb_posterior_method_id (s), &n);
        g_assert_cmpuint (n, ==, k);
        sb_density_data_set_density (d, s, v);
      }
  if (has (kf, "density", "samples"))
    {
      g_autofree double *v = doubles (kf, "density", "samples", &n);
      sb_density_data_set_samples (d, n, v);
    }
  sb_density_data_freeze (d);
  return d;
}

SbPlotSnapshot *
plot_fixture_load (const char *name, SbDensityData **density)
{
  g_autoptr (GKeyFile) kf = plot_fixture_key_file (name);
  return plot_fixture_from_key_file (kf, density);
}

GKeyFile *
plot_fixture_key_file (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", name, NULL);
  GKeyFile *kf = g_key_file_new ();
  g_autoptr (GError) error = NULL;

  g_key_file_set_list_separator (kf, ';');
  g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &error);
  g_assert_no_error (error);
  return kf;
}

SbPlotSnapshot *
plot_fixture_from_key_file (GKeyFile *kf, SbDensityData **density)
{
  g_autoptr (GError) error = NULL;
  gsize n, m;

  guint dim = g_key_file_get_integer (kf, "meta", "dim", &error);
  g_assert_no_error (error);
  SbPlotSnapshot *snap = sb_plot_snapshot_new (dim, g_key_file_get_uint64 (kf, "meta", "generation", NULL));
  g_auto (GStrv) names = g_key_file_get_string_list (kf, "meta", "names", &n, &error);
  g_assert_no_error (error);
  g_autofree double *lo = doubles (kf, "meta", "lo", &n);
  g_autofree double *hi = doubles (kf, "meta", "hi", &m);
  g_assert_cmpuint (n, ==, dim);
  for (guint i = 0; i < dim; i++)
    sb_plot_snapshot_set_parameter (snap, i, names[i], lo[i], hi[i]);
  g_autofree char *model_label = g_key_file_get_string (kf, "meta", "model_label", NULL);
  if (model_label)
    sb_plot_snapshot_set_model_label (snap, model_label);

  gsize ng = 0;
  if (has (kf, "curve", "x"))
    {
      g_autofree double *x = doubles (kf, "curve", "x", &ng);
      sb_plot_snapshot_set_curve_grid (snap, g_key_file_get_integer (kf, "meta", "axis", NULL), ng, x);
          for (int s = 0; s < SB_N_POSTERIOR_METHODS; s++)
        if (g_key_file_has_group (kf, sb_posterior_method_id (s)))
          {
            g_autofree sg_point_summary *sum = summaries (kf, sb_posterior_method_id (s), ng);
            sb_plot_snapshot_set_summaries (snap, s, sum);
          }
    }
  if (has (kf, "samples", "paths"))
    {
      g_autofree double *p = doubles (kf, "samples", "paths", &n);
      g_assert_cmpuint (n % ng, ==, 0);
      sb_plot_snapshot_set_sample_paths (snap, n / ng, p);
    }
  if (has (kf, "truth", "values"))
    {
      g_autofree double *v = doubles (kf, "truth", "values", &n);
      g_assert_cmpuint (n, ==, ng);
      sb_plot_snapshot_set_truth (snap, v);
    }
  if (g_key_file_has_group (kf, "acquisition"))
    {
      g_autofree char *acq_name = g_key_file_get_string (kf, "acquisition", "name", NULL);
      g_autofree double *v = has (kf, "acquisition", "values") ? doubles (kf, "acquisition", "values", &n) : NULL;
      g_autofree double *xm = has (kf, "acquisition", "x_max") ? doubles (kf, "acquisition", "x_max", &m) : NULL;
      sb_plot_snapshot_set_acquisition (snap, acq_name, ng ? v : NULL, xm);
    }
  if (has (kf, "validity", "p_valid"))
    {
      g_autofree double *v = doubles (kf, "validity", "p_valid", &n);
      sb_plot_snapshot_set_validity (snap, v, g_key_file_get_double (kf, "validity", "required", NULL));
    }
  if (g_key_file_has_group (kf, "observations"))
    {
      gsize nk, nx, nl, ny;
      g_auto (GStrv) kinds = g_key_file_get_string_list (kf, "observations", "kinds", &nk, &error);
      g_assert_no_error (error);
      g_autofree double *x = doubles (kf, "observations", "x", &nx);
      g_autofree double *xl = doubles (kf, "observations", "x_loser", &nl);
      g_autofree double *y = doubles (kf, "observations", "y", &ny);
      g_assert_cmpuint (nx, ==, nk * dim);
      g_assert_cmpuint (ny, ==, nk);
      for (gsize i = 0; i < nk; i++)
        sb_plot_snapshot_add_observation (snap, obs_kind (kinds[i]), x + i * dim,
                                          nl == nx ? xl + i * dim : NULL, y[i]);
    }
  if (has (kf, "best", "x"))
    {
      g_autofree double *v = doubles (kf, "best", "x", &n);
      sb_plot_snapshot_set_best (snap, v);
    }
  if (has (kf, "next", "a"))
    {
      g_autofree double *a = doubles (kf, "next", "a", &n);
      g_autofree double *b = has (kf, "next", "b") ? doubles (kf, "next", "b", &m) : NULL;
      sb_plot_snapshot_set_next (snap, a, b);
    }
  if (g_key_file_has_group (kf, "slice"))
    load_fields (kf, snap);
  if (has (kf, "convergence", "best"))
    {
      g_autofree double *v = doubles (kf, "convergence", "best", &n);
      double tb = g_key_file_get_double (kf, "convergence", "true_best", NULL);
      sb_plot_snapshot_set_convergence (snap, n, v, tb);
    }
  if (has (kf, "hyper", "values"))
    {
      g_auto (GStrv) hn = g_key_file_get_string_list (kf, "hyper", "names", &m, NULL);
      g_autofree double *v = doubles (kf, "hyper", "values", &n);
      g_assert_cmpuint (n % m, ==, 0);
      sb_plot_snapshot_set_hyper_history (snap, n / m, m, (const char *const *) hn, v);
    }
  if (density)
    *density = g_key_file_has_group (kf, "density") ? load_density (kf, dim) : NULL;
  sb_plot_snapshot_freeze (snap);
  return snap;
}
