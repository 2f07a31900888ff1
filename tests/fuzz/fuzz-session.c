/* fuzz-session.c — the session loader (core/sb-session.h) the app, the demos
 * and `skewgp link --session` open session files with.
 *
 * Properties: a refusal is an SB_SESSION_ERROR whose message starts with
 * the file name; a session loaded has a valid experiment, observations of
 * its dimension, and saves as a document that loads again and saves to
 * the same text (what loads also saves and reloads), and exports as CSV.
 */
#include "fuzz-common.h"

#include "sb-session.h"

#include <string.h>

#define NAME "fuzz.json"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_logging ();
  return 0;
}

static void
check_session (SbSession *session)
{
  const SbExperiment *exp = sb_session_get_experiment (session);
  g_autoptr (GError) error = NULL;
  FUZZ_CHECK (sb_experiment_validate (exp, &error));
  guint n = sb_session_get_n_observations (session);
  FUZZ_CHECK (sb_session_get_n_answers (session) <= n);
  for (guint i = 0; i < n; i++)
    {
      const SbLogEntry *e = sb_session_get_observation (session, i);
      FUZZ_CHECK (e->dim == exp->n_parameters && e->a != NULL);
      FUZZ_CHECK ((e->b != NULL) == (e->kind == SB_LOG_DUEL || e->kind == SB_LOG_SKIP));
    }
  g_autoptr (GPtrArray) log = sb_session_dup_observations (session);
  FUZZ_CHECK (log->len == n);
  g_autofree char *csv = sb_session_to_csv (session);
  FUZZ_CHECK (csv != NULL);
}

/* The document SESSION saves, loaded again ("saved" in messages). */
static SbSession *
reload (SbSession *session, char **text, gsize *len)
{
  *text = sb_session_to_data (session, len);
  g_autoptr (GError) error = NULL;
  SbSession *again = sb_session_load_from_data (*text, (gssize) *len, "saved", &error);
  if (again == NULL)
    fprintf (stderr, "the saved session is refused: %s\n", error->message);
  FUZZ_CHECK (again != NULL);
  return again;
}

/* Saved, loaded and saved again: the same text (a document without
 * "created" is stamped at loading, to the microsecond, and the first save
 * writes that stamp as it reads back). */
static void
check_saves_and_reloads (SbSession *session)
{
  g_autofree char *text = NULL, *text2 = NULL;
  gsize len, len2;
  g_autoptr (SbSession) again = reload (session, &text, &len);
  g_autoptr (SbSession) third = reload (again, &text2, &len2);
  FUZZ_CHECK (len == len2 && memcmp (text, text2, len) == 0);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) session =
    sb_session_load_from_data ((const char *) data, (gssize) size, NAME, &error);
  if (session == NULL)
    {
      FUZZ_CHECK (error != NULL && error->domain == SB_SESSION_ERROR);
      FUZZ_CHECK (g_str_has_prefix (error->message, NAME ":"));
      return 0;
    }
  FUZZ_CHECK (error == NULL);
  check_session (session);
  check_saves_and_reloads (session);
  return 0;
}
