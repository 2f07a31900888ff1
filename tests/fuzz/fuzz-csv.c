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
  if (!skewgp_csv_read (path, &csv, &error))
    {
      check_error (error, path);
      skewgp_csv_clear (&csv);
      return 0;
    }
  FUZZ_CHECK (error == NULL && csv.rows > 0 && csv.cols > 0);
  for (gsize i = 0; i < csv.rows; i++)
    {
      FUZZ_CHECK (i == 0 || csv.line[i] > csv.line[i - 1]);
      for (gsize j = 0; j < csv.cols; j++)
        FUZZ_CHECK (isfinite (csv.values[i * csv.cols + j]));
    }
  g_autofree int *labels = g_new (int, csv.rows);
  if (skewgp_csv_labels (&csv, path, csv.cols - 1, labels, &error))
    for (gsize i = 0; i < csv.rows; i++)
      FUZZ_CHECK (labels[i] == 1 || labels[i] == -1);
  else
    check_error (error, path);
  skewgp_csv_clear (&csv);
  return 0;
}
