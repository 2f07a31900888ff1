/* skewgp-csv.c — CSV tables for `skewgp classify`: core's strict reader
 * (sb-csv.h) with every cell a number but a class label column. */
#include "config.h"

#include "skewgp-csv.h"

#include "sb-csv.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void
skewgp_csv_clear (SkewgpCsv *csv)
{
  g_clear_pointer (&csv->values, g_free);
  g_clear_pointer (&csv->line, g_free);
  g_clear_pointer (&csv->labels, g_strfreev);
  csv->rows = csv->cols = 0;
}

/* ERROR, whatever its domain, as an input error of the CLI. */
static gboolean
input_error (GError **error, GError *cause)
{
  g_set_error_literal (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT, cause->message);
  g_error_free (cause);
  return FALSE;
}

gboolean
skewgp_csv_read (const char *path, gboolean labelled, SkewgpCsv *csv, GError **error)
{
  memset (csv, 0, sizeof *csv);
  SbCsvTable t;
  GError *cause = NULL;
  if (!sb_csv_read_table (path, &t, &cause))
    {
      sb_csv_table_clear (&t);
      return input_error (error, cause);
    }
  gsize numeric = labelled ? t.cols - 1 : t.cols;
  g_autofree double *values = g_new (double, t.rows * t.cols);
  for (gsize i = 0; i < t.rows; i++)
    for (gsize j = 0; j < t.cols; j++)
      if (j >= numeric)
        values[i * t.cols + j] = NAN;
      else if (!sb_csv_cell_number (&t, path, i, j, &values[i * t.cols + j], &cause))
        {
          sb_csv_table_clear (&t);
          return input_error (error, cause);
        }
  if (labelled)
    for (gsize i = 0; i < t.rows; i++)
      if (*t.cells[i * t.cols + t.cols - 1] == '\0')
        {
          g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                       "%s line %" G_GSIZE_FORMAT ": empty class label", path, t.line[i]);
          sb_csv_table_clear (&t);
          return FALSE;
        }
  if (labelled)
    {
      csv->labels = g_new0 (char *, t.rows + 1);
      for (gsize i = 0; i < t.rows; i++)
        csv->labels[i] = g_strdup (t.cells[i * t.cols + t.cols - 1]);
    }
  csv->rows = t.rows;
  csv->cols = t.cols;
  csv->has_header = t.header != NULL;
  csv->values = g_steal_pointer (&values);
  csv->line = g_steal_pointer (&t.line);
  sb_csv_table_clear (&t);
  return TRUE;
}

/* A label as a number (NaN when it is a name). */
static double
label_number (const char *text)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);
  return *text != '\0' && end != NULL && *end == '\0' && isfinite (v) ? v : NAN;
}

static int
compare_numbers (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The classes of the distinct label texts RAW (N_RAW, in any order):
 * numbers merged by value and sorted numerically when every text is a
 * number, byte order otherwise. NAMES (NULL-terminated) and, per raw
 * text, its class in WHICH. */
static gsize
classes_of_texts (char *const *raw, gsize n_raw, char ***names, gsize *which)
{
  gboolean numeric = TRUE;
  for (gsize r = 0; r < n_raw && numeric; r++)
    numeric = !isnan (label_number (raw[r]));
  g_autoptr (GPtrArray) canon = g_ptr_array_new_with_free_func (g_free);
  for (gsize r = 0; r < n_raw; r++)
    g_ptr_array_add (canon, numeric ? g_strdup_printf ("%g", label_number (raw[r]))
                                    : g_strdup (raw[r]));
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) distinct = g_ptr_array_new ();
  for (gsize r = 0; r < n_raw; r++)
    if (g_hash_table_add (seen, g_ptr_array_index (canon, r)))
      g_ptr_array_add (distinct, g_ptr_array_index (canon, r));
  gsize C = distinct->len;
  *names = g_new0 (char *, C + 1);
  if (numeric)
    {
      g_autofree double *v = g_new (double, C);
      for (gsize c = 0; c < C; c++)
        v[c] = label_number (g_ptr_array_index (distinct, c));
      qsort (v, C, sizeof *v, compare_numbers);
      for (gsize c = 0; c < C; c++)
        (*names)[c] = g_strdup_printf ("%g", v[c]);
    }
  else
    {
      g_ptr_array_sort (distinct, compare_strings);
      for (gsize c = 0; c < C; c++)
        (*names)[c] = g_strdup (g_ptr_array_index (distinct, c));
    }
  g_autoptr (GHashTable) pos = g_hash_table_new (g_str_hash, g_str_equal);
  for (gsize c = 0; c < C; c++)
    g_hash_table_insert (pos, (*names)[c], GSIZE_TO_POINTER (c));
  for (gsize r = 0; r < n_raw; r++)
    which[r] = GPOINTER_TO_SIZE (g_hash_table_lookup (pos, g_ptr_array_index (canon, r)));
  return C;
}

/* Distinct label texts in order of appearance: the index of TEXT, added
 * when new. */
static gsize
raw_label_index (GHashTable *index, GPtrArray *raw, const char *text)
{
  gpointer found;
  if (g_hash_table_lookup_extended (index, text, NULL, &found))
    return GPOINTER_TO_SIZE (found);
  char *copy = g_strdup (text);
  g_ptr_array_add (raw, copy);
  g_hash_table_insert (index, copy, GSIZE_TO_POINTER (raw->len - 1));
  return raw->len - 1;
}

void
skewgp_csv_classes (const SkewgpCsv *csv, char ***names, gsize *n_classes, gsize *cls)
{
  g_autoptr (GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) raw = g_ptr_array_new_with_free_func (g_free);
  for (gsize i = 0; i < csv->rows; i++)
    cls[i] = raw_label_index (index, raw, csv->labels[i]);
  g_autofree gsize *which = g_new (gsize, raw->len + 1);
  *n_classes = classes_of_texts ((char *const *) raw->pdata, raw->len, names, which);
  for (gsize i = 0; i < csv->rows; i++)
    cls[i] = which[cls[i]];
}

/* ---- Streamed tables ---------------------------------------------------- */

void
skewgp_csv_stream_clear (SkewgpCsvStream *s)
{
  g_clear_pointer (&s->X, g_free);
  g_clear_pointer (&s->cls, g_free);
  g_clear_pointer (&s->class_names, g_strfreev);
  s->rows = s->dim = s->n_classes = 0;
}

/* A decimal number as the whole of CELL (LEN bytes, not terminated). */
static gboolean
parse_cell (const char *cell, gsize len, double *out)
{
  char buf[64];
  if (len == 0 || len >= sizeof buf)
    return FALSE;
  memcpy (buf, cell, len);
  buf[len] = '\0';
  for (gsize k = 0; k < len; k++)
    if (!g_ascii_isdigit (buf[k]) && !strchr ("+-.eE", buf[k]))
      return FALSE;
  char *end = NULL;
  double v = g_ascii_strtod (buf, &end);
  if (end != buf + len || !isfinite (v))
    return FALSE;
  *out = v;
  return TRUE;
}

typedef struct {
  const char *path;
  gboolean labelled;
  SkewgpCsvStream *out;
  gsize cells, cap, line, first_line;
  gboolean seen_first;
  GHashTable *index;   /* label text -> raw index */
  GPtrArray *raw;      /* distinct label texts    */
  gsize *raw_cls;      /* rows: raw label index   */
} StreamState;

static gboolean
stream_error (GError **error, const StreamState *st, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
stream_error (GError **error, const StreamState *st, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *what = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT, "%s line %" G_GSIZE_FORMAT ": %s",
               st->path, st->line, what);
  return FALSE;
}

/* Room for one more row. */
static gboolean
stream_grow (StreamState *st, GError **error)
{
  SkewgpCsvStream *o = st->out;
  if (o->rows < st->cap)
    return TRUE;
  if ((o->rows + 1) * o->dim > SKEWGP_STREAM_MAX_VALUES)
    return stream_error (error, st, "more than %" G_GSIZE_FORMAT " numbers; a streamed table "
                         "holds at most that many (2 GiB)", (gsize) SKEWGP_STREAM_MAX_VALUES);
  gsize cap = MAX (st->cap + st->cap / 2, 1024);
  /* glibc grows blocks this large with mremap: no copy, no second array */
  o->X = g_realloc_n (o->X, cap, o->dim * sizeof (double));
  if (st->labelled)
    st->raw_cls = g_realloc_n (st->raw_cls, cap, sizeof (gsize));
  st->cap = cap;
  return TRUE;
}

/* One line (no line end), LEN bytes. */
static gboolean
stream_line (StreamState *st, const char *line, gsize len, GError **error)
{
  SkewgpCsvStream *o = st->out;
  if (len > 0 && line[len - 1] == '\r')
    len--;
  gsize blank = 0;
  while (blank < len && g_ascii_isspace (line[blank]))
    blank++;
  if (blank == len)
    return TRUE;
  /* cell boundaries */
  gsize n_cells = 1;
  for (gsize k = 0; k < len; k++)
    n_cells += line[k] == ',';
  if (!st->seen_first)
    {
      st->seen_first = TRUE;
      st->cells = n_cells;
      gsize numeric = st->labelled ? n_cells - 1 : n_cells;
      if (numeric == 0)
        return stream_error (error, st, "needs at least one input column before the label");
      o->dim = numeric;
      gboolean any_number = FALSE;
      const char *c = line;
      for (gsize j = 0; j < n_cells; j++)
        {
          const char *e = memchr (c, ',', (gsize) (line + len - c));
          gsize l = e ? (gsize) (e - c) : (gsize) (line + len - c);
          double v;
          any_number = any_number || parse_cell (c, l, &v);
          c = e ? e + 1 : line + len;
        }
      if (!any_number)
        return TRUE;   /* a header */
    }
  if (n_cells != st->cells)
    return stream_error (error, st, "%" G_GSIZE_FORMAT " cells, expected %" G_GSIZE_FORMAT,
                         n_cells, st->cells);
  if (!stream_grow (st, error))
    return FALSE;
  double *x = o->X + o->rows * o->dim;
  const char *c = line;
  for (gsize j = 0; j < n_cells; j++)
    {
      const char *e = memchr (c, ',', (gsize) (line + len - c));
      gsize l = e ? (gsize) (e - c) : (gsize) (line + len - c);
      if (j < o->dim)
        {
          if (!parse_cell (c, l, &x[j]))
            return stream_error (error, st, "cell %" G_GSIZE_FORMAT " '%.*s' is not a number",
                                 j + 1, (int) MIN (l, 40), c);
        }
      else
        {
          g_autofree char *text = g_strstrip (g_strndup (c, l));
          if (*text == '\0')
            return stream_error (error, st, "empty class label");
          st->raw_cls[o->rows] = raw_label_index (st->index, st->raw, text);
        }
      c = e ? e + 1 : line + len;
    }
  o->rows++;
  return TRUE;
}

gboolean
skewgp_csv_stream (const char *path, gboolean labelled, SkewgpCsvStream *out,
                   void (*progress) (gsize rows, gpointer data), gpointer data, GError **error)
{
  memset (out, 0, sizeof *out);
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT, "%s: %s", path,
                   g_strerror (e));
      return FALSE;
    }
  struct stat sb;
  if (fstat (fd, &sb) != 0 || !S_ISREG (sb.st_mode))
    {
      close (fd);
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                   "%s: not a regular file (a large table is read from a file)", path);
      return FALSE;
    }
  StreamState st = { .path = path, .labelled = labelled, .out = out,
                     .index = g_hash_table_new (g_str_hash, g_str_equal),
                     .raw = g_ptr_array_new_with_free_func (g_free) };
  const gsize block = 1 << 20;
  g_autofree char *buf = g_malloc (block + SKEWGP_STREAM_MAX_LINE);
  gsize have = 0;
  gboolean ok = TRUE, eof = FALSE;
  while (ok && !eof)
    {
      gssize got = read (fd, buf + have, block);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        {
          ok = FALSE;
          g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT, "%s: %s", path,
                       g_strerror (errno));
          break;
        }
      eof = got == 0;
      have += (gsize) got;
      gsize start = 0;
      for (gsize k = 0; ok && k < have; k++)
        if (buf[k] == '\n')
          {
            st.line++;
            ok = stream_line (&st, buf + start, k - start, error);
            start = k + 1;
            if (progress && out->rows % 65536 == 0 && out->rows > 0)
              progress (out->rows, data);
          }
      memmove (buf, buf + start, have - start);
      have -= start;
      if (ok && eof && have > 0)
        {
          st.line++;
          ok = stream_line (&st, buf, have, error);
        }
      else if (ok && have > SKEWGP_STREAM_MAX_LINE)
        {
          st.line++;
          ok = stream_error (error, &st, "longer than %" G_GSIZE_FORMAT " bytes",
                             (gsize) SKEWGP_STREAM_MAX_LINE);
        }
    }
  close (fd);
  if (ok && out->rows == 0)
    {
      ok = FALSE;
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT, "%s: no data rows", path);
    }
  if (ok && labelled)
    {
      g_autofree gsize *which = g_new (gsize, st.raw->len + 1);
      out->n_classes = classes_of_texts ((char *const *) st.raw->pdata, st.raw->len,
                                         &out->class_names, which);
      out->cls = g_new (gsize, out->rows);
      for (gsize i = 0; i < out->rows; i++)
        out->cls[i] = which[st.raw_cls[i]];
    }
  if (ok)
    out->X = g_realloc_n (out->X, out->rows, out->dim * sizeof (double));
  g_free (st.raw_cls);
  g_hash_table_unref (st.index);
  g_ptr_array_unref (st.raw);
  return ok;
}
