/* fuzz-json-read.c — the strict JSON reader (core/sb-json-read.h) every
 * JSON document goes through, and the writer it is paired with.
 *
 * Properties: a refusal sets an SB_JSON_READ_ERROR whose message starts
 * with "LINE:COLUMN: "; a document read is written (compact and pretty) as
 * text the reader accepts again, and writing that again gives the same
 * text (what SkewBench reads, it can save and read back).
 */
#include "fuzz-common.h"

#include "sb-json-read.h"
#include "sb-json-write.h"

#include <string.h>

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_logging ();
  return 0;
}

static gboolean
starts_with_position (const char *msg)
{
  const char *p = msg;
  if (!g_ascii_isdigit (*p))
    return FALSE;
  while (g_ascii_isdigit (*p))
    p++;
  if (*p++ != ':' || !g_ascii_isdigit (*p))
    return FALSE;
  while (g_ascii_isdigit (*p))
    p++;
  return g_str_has_prefix (p, ": ");
}

static void
check_round_trip (JsonNode *root, gboolean pretty)
{
  gsize len = 0;
  g_autofree char *text = sb_json_write (root, pretty, &len);
  FUZZ_CHECK (text != NULL && strlen (text) == len);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) again = sb_json_read (text, (gssize) len, &error);
  if (again == NULL)
    fprintf (stderr, "written text refused: %s\n", error->message);
  FUZZ_CHECK (again != NULL);
  g_autofree char *text2 = sb_json_write (again, pretty, NULL);
  FUZZ_CHECK (g_str_equal (text, text2));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root = sb_json_read ((const char *) data, (gssize) size, &error);
  if (root == NULL)
    {
      FUZZ_CHECK (error != NULL && error->domain == SB_JSON_READ_ERROR);
      FUZZ_CHECK (starts_with_position (error->message));
      return 0;
    }
  FUZZ_CHECK (error == NULL);
  check_round_trip (root, FALSE);
  check_round_trip (root, TRUE);
  return 0;
}
