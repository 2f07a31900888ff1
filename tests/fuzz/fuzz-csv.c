/* fuzz-csv.c — the CSV reader of `skewgp classify` (cli/skewgp-csv.h),
 * fed the way the CLI feeds it: a file, read by its path.
 *
 * Properties: a refusal is an input error naming the file; a table read
 * has rows x cols finite values, increasing line numbers, and its last
 * column either reads as labels or is refused as an input error.
 */
#include "fuzz-common.h"

#include "skewgp-csv.h"

#include <math.h>
#include <string.h>

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_logging ();
  return 0;
}

static void
check_error (const GError *error, const char *path)
{
  FUZZ_CHECK (error != NULL);
  FUZZ_CHECK (g_error_matches (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT));
  FUZZ_CHECK (strstr (error->message, path) != NULL);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_file_with (data, size);
  SkewgpCsv csv;
  g_autoptr (GError) error = NULL;
  if (!skewgp_csv_read (path, TRUE, &csv, &error))
    {
      check_error (error, path);
      skewgp_csv_clear (&csv);
      return 0;
    }
  FUZZ_CHECK (error == NULL && csv.rows > 0 && csv.cols > 0);
  for (gsize i = 0; i < csv.rows; i++)
    {
      FUZZ_CHECK (i == 0 || csv.line[i] > csv.line[i - 1]);
      for (gsize j = 0; j + 1 < csv.cols; j++)
        FUZZ_CHECK (isfinite (csv.values[i * csv.cols + j]));
      FUZZ_CHECK (csv.labels[i] != NULL && *csv.labels[i] != '\0');
    }
  /* every row in a class, the classes distinct and all used */
  g_autofree gsize *cls = g_new (gsize, csv.rows);
  g_auto (GStrv) names = NULL;
  gsize n_classes = 0;
  skewgp_csv_classes (&csv, &names, &n_classes, cls);
  FUZZ_CHECK (n_classes >= 1 && n_classes <= csv.rows && g_strv_length (names) == n_classes);
  g_autofree gsize *count = g_new0 (gsize, n_classes);
  for (gsize i = 0; i < csv.rows; i++)
    {
      FUZZ_CHECK (cls[i] < n_classes);
      count[cls[i]]++;
    }
  for (gsize c = 0; c < n_classes; c++)
    FUZZ_CHECK (count[c] > 0 && (c == 0 || strcmp (names[c - 1], names[c]) != 0));
  skewgp_csv_clear (&csv);
  return 0;
}
