/* sb-candidates.c — an experiment's fixed candidate set (sb-candidates.h). */
#include "config.h"

#include "sb-candidates.h"

#include "sb-csv.h"
#include "sb-file-read.h"
#include "sb-stimulus.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

/* PATH as it is (absolute) or inside DIR. */
static char *
resolve (const char *dir, const char *path)
{
  return g_path_is_absolute (path) ? g_strdup (path) : g_build_filename (dir, path, NULL);
}

/* The folder the stimulus files are relative to. */
static char *
files_dir (const SbCandidates *c)
{
  if (c->folder != NULL && *c->folder != '\0')
    return resolve (c->base_dir, c->folder);
  g_autofree char *csv = resolve (c->base_dir, c->csv);
  return g_path_get_dirname (csv);
}

/* The parameters' columns of T into COLS, the file column into *FCOL. */
static gboolean
find_columns (const SbExperiment *exp, const SbCsvTable *t, const char *path,
              const char *file_column, gsize *cols, gsize *fcol, GError **error)
{
  gssize j;
  if (t->header == NULL)
    return sb_invalid (error, "%s: the first line must name the columns (the file column "
                       "'%s' and one column per parameter)", path, file_column);
  if ((j = sb_csv_column (t, file_column)) < 0)
    return sb_invalid (error, "%s: no column '%s' for the stimulus files", path, file_column);
  *fcol = (gsize) j;
  for (guint p = 0; p < exp->n_parameters; p++)
    {
      if ((j = sb_csv_column (t, exp->parameters[p].name)) < 0)
        return sb_invalid (error, "%s: no column '%s' for the parameter '%s'", path,
                           exp->parameters[p].name, exp->parameters[p].name);
      cols[p] = (gsize) j;
    }
  return TRUE;
}

/* Every value of T's parameter columns into VALUES (rows x dim). */
static gboolean
read_values (const SbExperiment *exp, const SbCsvTable *t, const char *path, const gsize *cols,
             double *values, GError **error)
{
  for (gsize i = 0; i < t->rows; i++)
    for (guint p = 0; p < exp->n_parameters; p++)
      {
        GError *cause = NULL;
        if (!sb_csv_cell_number (t, path, i, cols[p], &values[i * exp->n_parameters + p], &cause))
          {
            sb_invalid (error, "%s", cause->message);
            g_error_free (cause);
            return FALSE;
          }
      }
  return TRUE;
}

/* The ranges: derived from the columns where DERIVE says so (into LOWER,
 * UPPER), else the parameters' own, which every value must lie in. */
static gboolean
check_ranges (const SbExperiment *exp, const SbCsvTable *t, const char *path, const gsize *cols,
              const double *values, const gboolean *derive, double *lower, double *upper,
              GError **error)
{
  guint dim = exp->n_parameters;
  for (guint p = 0; p < dim; p++)
    {
      const SbParameter *par = &exp->parameters[p];
      if (derive != NULL && derive[p])
        {
          lower[p] = INFINITY;
          upper[p] = -INFINITY;
          for (gsize i = 0; i < t->rows; i++)
            {
              lower[p] = fmin (lower[p], values[i * dim + p]);
              upper[p] = fmax (upper[p], values[i * dim + p]);
            }
          if (lower[p] == upper[p])
            {
              lower[p] -= 1;
              upper[p] += 1;
            }
          if (!isfinite (upper[p] - lower[p]))
            {
              /* the range's width overflows: the model scales by it */
              gsize worst = 0;
              for (gsize i = 1; i < t->rows; i++)
                if (fabs (values[i * dim + p]) > fabs (values[worst * dim + p]))
                  worst = i;
              return sb_invalid (error, "%s line %" G_GSIZE_FORMAT ": cell %" G_GSIZE_FORMAT
                              " %g of the parameter '%s' is too large: its column's range "
                              "[%g, %g] is wider than a double holds", path, t->line[worst],
                              cols[p] + 1, values[worst * dim + p], par->name, lower[p],
                              upper[p]);
            }
          continue;
        }
      lower[p] = par->lower;
      upper[p] = par->upper;
      for (gsize i = 0; i < t->rows; i++)
        {
          double v = values[i * dim + p];
          if (!(v >= par->lower && v <= par->upper))
            return sb_invalid (error, "%s line %" G_GSIZE_FORMAT ": cell %" G_GSIZE_FORMAT
                               " %g is outside the range [%g, %g] of the parameter '%s'",
                               path, t->line[i], cols[p] + 1, v, par->lower, par->upper,
                               par->name);
        }
    }
  return TRUE;
}

/* No two rows are the same setting (the engine's rule, sg_bo_candidate_index). */
static gboolean
check_distinct (const SbCsvTable *t, const char *path, guint dim, const gsize *cols,
                const double *values, const double *lower, const double *upper,
                GError **error)
{
  for (gsize i = 1; i < t->rows; i++)
    {
      size_t first;
      if (sg_bo_candidate_index (values, i, dim, lower, upper, values + i * dim, &first) != SG_OK)
        continue;
      for (guint p = 0; p < dim; p++)
        if (values[first * dim + p] != values[i * dim + p])
          {
            /* different values that the parameter's range makes one: an
             * extreme cell (1e308) stretched it */
            gsize worst = 0;
            for (gsize k = 1; k < t->rows; k++)
              if (fabs (values[k * dim + p]) > fabs (values[worst * dim + p]))
                worst = k;
            return sb_invalid (error, "%s line %" G_GSIZE_FORMAT ": the value %g of column %"
                            G_GSIZE_FORMAT " stretches its parameter's range to [%g, %g], "
                            "in which lines %" G_GSIZE_FORMAT " and %" G_GSIZE_FORMAT
                            " (%g and %g) can no longer be told apart", path, t->line[worst],
                            values[worst * dim + p], cols[p] + 1, lower[p], upper[p],
                            t->line[first], t->line[i], values[first * dim + p],
                            values[i * dim + p]);
          }
      return sb_invalid (error, "%s lines %" G_GSIZE_FORMAT " and %" G_GSIZE_FORMAT
                      ": two stimuli with the same parameter values (the model could not "
                      "tell them apart)", path, t->line[first], t->line[i]);
    }
  return TRUE;
}

/* Every row names a stimulus file inside DIR: a relative name without
 * "..", not a link out of DIR, a regular file (not a fifo or a device,
 * which would hang or never end when shown) of at most
 * SB_CANDIDATE_FILE_MAX_BYTES. */
static gboolean
check_files (const SbCsvTable *t, const char *path, gsize fcol, const char *dir, GError **error)
{
  for (gsize i = 0; i < t->rows; i++)
    {
      const char *name = t->cells[i * t->cols + fcol];
      g_autoptr (GError) why = NULL;
      g_autofree char *file = sb_file_resolve_inside (dir, name, &why);
      int fd;

      if (file == NULL)
        return sb_invalid (error, "%s line %" G_GSIZE_FORMAT ": %s", path, t->line[i],
                        why->message);
      fd = sb_file_open_bounded (file, SB_CANDIDATE_FILE_MAX_BYTES, SB_FILE_READ_DEFAULT,
                                 "the stimulus file", &why);
      if (fd < 0)
        {
          if (g_error_matches (why, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
            return sb_invalid (error, "%s line %" G_GSIZE_FORMAT ": the stimulus file '%s' does "
                            "not exist", path, t->line[i], file);
          return sb_invalid (error, "%s line %" G_GSIZE_FORMAT ": %s", path, t->line[i],
                          why->message);
        }
      close (fd);
    }
  return TRUE;
}

gboolean
sb_experiment_load_candidates (SbExperiment *exp, const char *csv, const char *file_column,
                               const char *folder, const char *base_dir,
                               const gboolean *derive, GError **error)
{
  g_autoptr (SbCandidates) c = g_new0 (SbCandidates, 1);
  c->csv = g_strdup (csv);
  c->file_column = g_strdup (file_column ? file_column : "file");
  c->folder = g_strdup (folder ? folder : "");
  c->base_dir = g_strdup (base_dir ? base_dir : ".");
  c->dim = exp->n_parameters;

  g_autofree char *path = resolve (c->base_dir, csv);
  g_autofree char *dir = files_dir (c);
  SbCsvTable t;
  GError *cause = NULL;
  gsize cols[SB_MAX_PARAMETERS], fcol = 0;
  double lower[SB_MAX_PARAMETERS], upper[SB_MAX_PARAMETERS];
  if (!sb_csv_read_table (path, &t, &cause))
    {
      sb_invalid (error, "the candidate set: %s", cause->message);
      g_error_free (cause);
      return FALSE;
    }
  g_autofree double *values = g_new (double, t.rows * c->dim);
  gboolean ok = find_columns (exp, &t, path, c->file_column, cols, &fcol, error)
                && read_values (exp, &t, path, cols, values, error)
                && check_ranges (exp, &t, path, cols, values, derive, lower, upper, error)
                && check_distinct (&t, path, c->dim, cols, values, lower, upper, error)
                && check_files (&t, path, fcol, dir, error);
  if (ok && t.rows < MAX (exp->n_options, 2))
    ok = sb_invalid (error, "%s: %" G_GSIZE_FORMAT " stimuli, fewer than the %u options of one "
                     "question", path, t.rows, MAX (exp->n_options, 2));
  if (ok)
    {
      c->n = (guint) t.rows;
      c->values = g_steal_pointer (&values);
      c->files = g_new0 (char *, t.rows + 1);
      for (gsize i = 0; i < t.rows; i++)
        c->files[i] = g_strdup (t.cells[i * t.cols + fcol]);
      for (guint p = 0; p < exp->n_parameters; p++)
        {
          exp->parameters[p].lower = lower[p];
          exp->parameters[p].upper = upper[p];
        }
      sb_candidates_free (exp->candidates);
      exp->candidates = g_steal_pointer (&c);
      if (exp->stimulus.kind == SB_STIMULUS_NONE
          && sb_stimulus_first_unknown_file (exp->candidates) < 0)
        exp->stimulus.kind = SB_STIMULUS_FILE;
    }
  sb_csv_table_clear (&t);
  return ok;
}

gssize
sb_experiment_candidate_index (const SbExperiment *exp, const double *x)
{
  const SbCandidates *c = exp->candidates;
  double lower[SB_MAX_PARAMETERS], upper[SB_MAX_PARAMETERS];
  size_t index;
  if (c == NULL || x == NULL || c->dim != exp->n_parameters)
    return -1;
  for (guint p = 0; p < c->dim; p++)
    {
      lower[p] = exp->parameters[p].lower;
      upper[p] = exp->parameters[p].upper;
    }
  if (sg_bo_candidate_index (c->values, c->n, c->dim, lower, upper, x, &index) != SG_OK)
    return -1;
  return (gssize) index;
}

char *
sb_experiment_candidate_file (const SbExperiment *exp, const double *x)
{
  gssize i = sb_experiment_candidate_index (exp, x);
  if (i < 0)
    return NULL;
  g_autofree char *dir = files_dir (exp->candidates);
  return resolve (dir, exp->candidates->files[i]);
}

char *
sb_candidates_path_for (const SbCandidates *c, const char *path, const char *session_dir)
{
  if (path == NULL || *path == '\0' || g_path_is_absolute (path) || session_dir == NULL)
    return g_strdup (path);
  g_autofree char *a = g_canonicalize_filename (c->base_dir, NULL);
  g_autofree char *b = g_canonicalize_filename (session_dir, NULL);
  if (g_str_equal (a, b))
    return g_strdup (path);
  return g_canonicalize_filename (path, a);
}
