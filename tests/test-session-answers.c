/* test-session-answers.c — every kind of answer in the session log: ties,
 * best-of-k choices and rankings, confidence levels and the order shown.
 * Round trip through the file, older files (no question kind, numeric
 * confidence), the shared validation, the replay into the engine's
 * observation kinds, and both CSV layouts. Headless. */
#include "sb-jobs.h"
#include "sb-session.h"
#include "sg-bo.h"

#include <math.h>
#include <string.h>

/* A custom experiment (gain in [0, 100] dB, offset in [-5, 15]) asking
 * QUESTION with K options. */
static SbExperiment *
experiment (SbAskKind question, guint k, gboolean ties)
{
  SbExperiment *exp = sb_experiment_new ();

  sb_experiment_add_parameter (exp, "gain", "dB", 0, 100);
  sb_experiment_add_parameter (exp, "offset", "", -5, 15);
  exp->question = question;
  exp->n_options = k;
  exp->ties_allowed = ties;
  return exp;
}

static const double opts4[4 * 2] = { 10, 1, 20, 2, 30, 3, 40, 4 };

/* A choice of option CHOSEN among opts4 (k = 4). */
static SbLogEntry
choice_entry (guint chosen)
{
  SbLogEntry e = { .kind = SB_LOG_CHOICE, .dim = 2, .n_options = 4,
                   .options = (double *) opts4, .chosen = chosen, .value = NAN };
  return e;
}

static gboolean
check (const SbExperiment *exp, const SbLogEntry *e, const char *needle)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = sb_experiment_check_observation (exp, e, 0, &error);

  if (needle == NULL)
    {
      g_assert_no_error (error);
      return ok;
    }
  g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
  if (strstr (error->message, needle) == NULL)
    g_test_message ("expected '%s' in: %s", needle, error->message);
  g_assert_nonnull (strstr (error->message, needle));
  return ok;
}

static SbSession *
reload (SbSession *session)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *data = sb_session_to_data (session, NULL);
  SbSession *loaded = sb_session_load_from_data (data, -1, "s.json", &error);

  g_assert_no_error (error);
  g_assert_nonnull (loaded);
  {
    g_autofree char *again = sb_session_to_data (loaded, NULL);
    g_assert_cmpstr (again, ==, data);
  }
  return loaded;
}

static void
test_choice_round_trip (void)
{
  g_autoptr (SbExperiment) exp = experiment (SB_ASK_CHOICE, 4, FALSE);
  g_autoptr (SbSession) session = sb_session_new (exp);
  g_autoptr (SbSession) loaded = NULL;
  g_autoptr (GError) error = NULL;
  SbLogEntry e = choice_entry (2);
  SbLogEntry skip = { .kind = SB_LOG_SKIP, .dim = 2, .n_options = 4,
                      .options = (double *) opts4, .value = NAN };

  e.confidence = SG_CONFIDENCE_STRONG;
  e.n_shown = 4;
  memcpy (e.shown_order, (guint[]) { 3, 1, 0, 2 }, 4 * sizeof (guint));
  e.has_response_time = TRUE;
  e.response_time = 1.75;
  g_assert_true (sb_session_add_entry (session, &e, &error));
  g_assert_true (sb_session_add_entry (session, &skip, &error));
  g_assert_no_error (error);

  loaded = reload (session);
  g_assert_cmpint (sb_session_get_experiment (loaded)->question, ==, SB_ASK_CHOICE);
  g_assert_cmpuint (sb_session_get_experiment (loaded)->n_options, ==, 4);
  const SbLogEntry *l = sb_session_get_observation (loaded, 0);
  g_assert_cmpint (l->kind, ==, SB_LOG_CHOICE);
  g_assert_cmpuint (sb_log_entry_n_options (l), ==, 4);
  g_assert_cmpmem (l->options, sizeof opts4, opts4, sizeof opts4);
  g_assert_cmpuint (l->chosen, ==, 2);
  g_assert_cmpint (sb_log_entry_best_option (l), ==, 2);
  g_assert_cmpint (l->confidence, ==, SG_CONFIDENCE_STRONG);
  g_assert_cmpuint (l->n_shown, ==, 4);
  g_assert_cmpmem (l->shown_order, 4 * sizeof (guint), e.shown_order, 4 * sizeof (guint));
  g_assert_cmpfloat (l->response_time, ==, 1.75);
  l = sb_session_get_observation (loaded, 1);
  g_assert_cmpint (l->kind, ==, SB_LOG_SKIP);
  g_assert_cmpuint (sb_log_entry_n_options (l), ==, 4);
  g_assert_cmpuint (sb_session_get_n_answers (loaded), ==, 1);
}

static void
test_ranking_and_tie_round_trip (void)
{
  g_autoptr (SbExperiment) rexp = experiment (SB_ASK_RANKING, 3, FALSE);
  g_autoptr (SbExperiment) texp = experiment (SB_ASK_DUEL, 2, TRUE);
  g_autoptr (SbSession) rs = sb_session_new (rexp);
  g_autoptr (SbSession) ts = sb_session_new (texp);
  g_autoptr (SbSession) rl = NULL, tl = NULL;
  g_autoptr (GError) error = NULL;
  SbLogEntry r = { .kind = SB_LOG_RANKING, .dim = 2, .n_options = 3,
                   .options = (double *) opts4, .ranking = { 1, 2, 0 }, .value = NAN };
  SbLogEntry tie = { .kind = SB_LOG_TIE, .dim = 2, .a = (double *) opts4,
                     .b = (double *) opts4 + 2, .value = NAN, .n_shown = 2,
                     .shown_order = { 1, 0 } };
  SbLogEntry duel = { .kind = SB_LOG_DUEL, .dim = 2, .a = (double *) opts4,
                      .b = (double *) opts4 + 4, .winner = 1, .value = NAN,
                      .confidence = SG_CONFIDENCE_WEAK };

  g_assert_true (sb_session_add_entry (rs, &r, &error));
  g_assert_true (sb_session_add_entry (ts, &tie, &error));
  g_assert_true (sb_session_add_entry (ts, &duel, &error));
  g_assert_no_error (error);
  rl = reload (rs);
  tl = reload (ts);
  const SbLogEntry *l = sb_session_get_observation (rl, 0);
  g_assert_cmpint (l->kind, ==, SB_LOG_RANKING);
  g_assert_cmpmem (l->ranking, 3 * sizeof (guint), r.ranking, 3 * sizeof (guint));
  g_assert_cmpint (sb_log_entry_best_option (l), ==, 1);
  g_assert_true (sb_session_get_experiment (tl)->ties_allowed);
  l = sb_session_get_observation (tl, 0);
  g_assert_cmpint (l->kind, ==, SB_LOG_TIE);
  g_assert_cmpint (sb_log_entry_best_option (l), ==, -1);
  g_assert_cmpuint (l->shown_order[0], ==, 1);
  g_assert_cmpint (sb_session_get_observation (tl, 1)->confidence, ==, SG_CONFIDENCE_WEAK);
}

/* Files written before question kinds and confidence levels: no
 * "question" (a duel without ties) and a number as the confidence, which
 * is kept in the note. */
static void
test_older_file (void)
{
  static const char old[] =
    "{\"format\": \"skewbench-session\", \"version\": 1,\n"
    " \"experiment\": {\"template\": \"custom\", \"mode\": \"preference\",\n"
    "   \"parameters\": [{\"name\": \"x\", \"lower\": 0, \"upper\": 1}]},\n"
    " \"observations\": [\n"
    "   {\"kind\": \"duel\", \"a\": [0.25], \"b\": [0.5], \"winner\": \"b\",\n"
    "    \"confidence\": 4, \"note\": \"loud\"},\n"
    "   {\"kind\": \"duel\", \"a\": [0.5], \"b\": [0.75], \"winner\": \"a\",\n"
    "    \"confidence\": 0.5}]}\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) s = sb_session_load_from_data (old, -1, "old.json", &error);

  g_assert_no_error (error);
  const SbExperiment *exp = sb_session_get_experiment (s);
  g_assert_cmpint (exp->question, ==, SB_ASK_DUEL);
  g_assert_cmpuint (exp->n_options, ==, 2);
  g_assert_false (exp->ties_allowed);
  const SbLogEntry *e = sb_session_get_observation (s, 0);
  g_assert_cmpint (e->confidence, ==, SG_CONFIDENCE_NONE);
  g_assert_cmpstr (e->note, ==, "loud; confidence: 4");
  g_assert_cmpstr (sb_session_get_observation (s, 1)->note, ==, "confidence: 0.5");
  /* and it writes as a duel experiment of the old layout */
  g_autofree char *data = sb_session_to_data (s, NULL);
  g_assert_null (strstr (data, "\"question\""));
}

static void
test_validation (void)
{
  g_autoptr (SbExperiment) cexp = experiment (SB_ASK_CHOICE, 4, FALSE);
  g_autoptr (SbExperiment) rexp = experiment (SB_ASK_RANKING, 4, FALSE);
  g_autoptr (SbExperiment) dexp = experiment (SB_ASK_DUEL, 2, FALSE);
  g_autoptr (SbExperiment) texp = experiment (SB_ASK_DUEL, 2, TRUE);
  double twice[4 * 2] = { 10, 1, 20, 2, 10, 1, 40, 4 };
  double outside[4 * 2] = { 10, 1, 20, 2, 30, 3, 140, 4 };
  SbLogEntry e = choice_entry (1);

  g_assert_true (check (cexp, &e, NULL));
  e.options = twice;
  g_assert_false (check (cexp, &e, "options 1 and 3 are the same setting"));
  e.options = outside;
  g_assert_false (check (cexp, &e, "coordinate 1 (gain) of option 4 = 140 is outside"));
  e = choice_entry (4);
  g_assert_false (check (cexp, &e, "'chosen' = 4 is not an option"));
  e = choice_entry (0);
  e.n_options = 3;
  g_assert_false (check (cexp, &e, "3 options, but the experiment shows 4"));
  e = choice_entry (0);
  g_assert_false (check (rexp, &e, "this experiment asks ranking questions"));
  g_assert_false (check (dexp, &e, "this experiment asks duel questions"));

  SbLogEntry r = { .kind = SB_LOG_RANKING, .dim = 2, .n_options = 4,
                   .options = (double *) opts4, .ranking = { 0, 1, 1, 3 }, .value = NAN };
  g_assert_false (check (rexp, &r, "'ranking' must list each of its 4 options once"));
  memcpy (r.ranking, (guint[]) { 3, 0, 2, 1 }, 4 * sizeof (guint));
  g_assert_true (check (rexp, &r, NULL));
  r.confidence = SG_CONFIDENCE_STRONG;
  g_assert_false (check (rexp, &r, "confidence is given for duels and choices only"));

  SbLogEntry tie = { .kind = SB_LOG_TIE, .dim = 2, .a = (double *) opts4,
                     .b = (double *) opts4, .value = NAN };
  g_assert_false (check (texp, &tie, "a and b are the same setting"));
  tie.b = (double *) opts4 + 2;
  g_assert_true (check (texp, &tie, NULL));
  g_assert_false (check (dexp, &tie, "duel questions without ties"));
  e = choice_entry (0);
  e.shown_order[0] = 0;
  e.n_shown = 2;
  g_assert_false (check (cexp, &e, "'shown_order' must list each of its 4 options once"));
  e = choice_entry (0);
  e.confidence = (sg_confidence) 7;
  g_assert_false (check (cexp, &e, "\"weak\", \"normal\" or \"strong\""));

  /* The experiment: k fits the question kind, ties only on duels, and
   * the kinds only the exact SkewGP represents. */
  struct { SbAskKind q; guint k; gboolean ties; SbMode mode; sg_bo_surrogate s;
           const char *needle; } bad[] = {
    { SB_ASK_CHOICE, 2, FALSE, SB_MODE_PREFERENCE, SG_BO_SURROGATE_SKEWGP, "[3, 6]" },
    { SB_ASK_RANKING, 7, FALSE, SB_MODE_PREFERENCE, SG_BO_SURROGATE_SKEWGP, "[3, 6]" },
    { SB_ASK_DUEL, 3, FALSE, SB_MODE_PREFERENCE, SG_BO_SURROGATE_SKEWGP, "must be 2" },
    { SB_ASK_CHOICE, 4, TRUE, SB_MODE_PREFERENCE, SG_BO_SURROGATE_SKEWGP, "applies to duels" },
    { SB_ASK_DUEL, 2, TRUE, SB_MODE_PREFERENCE, SG_BO_SURROGATE_LAPLACE, "need the 'skewgp'" },
    { SB_ASK_CHOICE, 4, FALSE, SB_MODE_PREFERENCE, SG_BO_SURROGATE_EP, "need the 'skewgp'" },
    { SB_ASK_CHOICE, 4, FALSE, SB_MODE_SAFE, SG_BO_SURROGATE_SKEWGP, "safe mode" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (SbExperiment) x = experiment (bad[i].q, bad[i].k, bad[i].ties);
      g_autoptr (GError) error = NULL;
      x->mode = bad[i].mode;
      x->surrogate = bad[i].s;
      g_assert_false (sb_experiment_validate (x, &error));
      g_assert_nonnull (error);
      if (strstr (error->message, bad[i].needle) == NULL)
        g_test_message ("case %u: %s", i, error->message);
      g_assert_nonnull (strstr (error->message, bad[i].needle));
    }
}

/* A file with a damaged answer is refused naming it. */
static void
test_refuse_damaged_answers (void)
{
  static const char *const bad[][2] = {
    { "{\"kind\": \"choice\", \"options\": [[1, 0], [2, 0], [3, 0]], \"chosen\": 3}",
      "'chosen' must be an option index" },
    { "{\"kind\": \"choice\", \"options\": [[1, 0], [2, 0], [3, 0]]}",
      "the member 'chosen' is missing" },
    { "{\"kind\": \"ranking\", \"options\": [[1, 0], [2, 0], [3, 0]], \"ranking\": [0, 1]}",
      "'ranking' has 2 entries, expected 3" },
    { "{\"kind\": \"choice\", \"options\": [[1, 0]], \"chosen\": 0}",
      "'options' has 1 settings" },
    { "{\"kind\": \"choice\", \"options\": [[1, 0], [2, 0], [3, 0]], \"chosen\": 0, "
      "\"confidence\": \"sure\"}", "'confidence' must be \"weak\"" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *doc = g_strdup_printf (
        "{\"format\": \"skewbench-session\", \"version\": 1,\n"
        " \"experiment\": {\"template\": \"custom\", \"mode\": \"preference\",\n"
        "   \"question\": \"%s\", \"options\": 3,\n"
        "   \"parameters\": [{\"name\": \"x\", \"lower\": 0, \"upper\": 10},\n"
        "                   {\"name\": \"y\", \"lower\": 0, \"upper\": 1}]},\n"
        " \"observations\": [%s]}\n",
        strstr (bad[i][0], "ranking\"") ? "ranking" : "choice", bad[i][0]);
      g_autoptr (GError) error = NULL;
      g_autoptr (SbSession) s = sb_session_load_from_data (doc, -1, "bad.json", &error);
      g_assert_null (s);
      g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
      if (strstr (error->message, bad[i][1]) == NULL)
        g_test_message ("case %u: %s", i, error->message);
      g_assert_nonnull (strstr (error->message, bad[i][1]));
      g_assert_true (g_str_has_prefix (error->message, "bad.json:"));
    }
}

static struct sg_bo *
replay (SbSession *session)
{
  g_autoptr (GError) error = NULL;
  SbJobInput *input = sb_job_input_new (session);
  struct sg_bo *bo = sb_job_replay (input, &error);

  g_assert_no_error (error);
  g_assert_nonnull (bo);
  sb_job_input_free (input);
  return bo;
}

/* The log becomes the engine's kinds with their details. */
static void
test_replay (void)
{
  g_autoptr (SbExperiment) cexp = experiment (SB_ASK_CHOICE, 4, FALSE);
  g_autoptr (SbExperiment) texp = experiment (SB_ASK_DUEL, 2, TRUE);
  g_autoptr (SbExperiment) rexp = experiment (SB_ASK_RANKING, 3, FALSE);
  g_autoptr (SbSession) cs = sb_session_new (cexp);
  g_autoptr (SbSession) ts = sb_session_new (texp);
  g_autoptr (SbSession) rs = sb_session_new (rexp);
  SbLogEntry c = choice_entry (2);
  double best[2];

  c.confidence = SG_CONFIDENCE_WEAK;
  c.n_shown = 4;
  memcpy (c.shown_order, (guint[]) { 3, 2, 1, 0 }, 4 * sizeof (guint));
  g_assert_true (sb_session_add_entry (cs, &c, NULL));
  sg_bo *bo = replay (cs);
  const sg_data *d = sg_bo_data (bo);
  g_assert_cmpuint (d->n_obs, ==, 1);
  g_assert_cmpint (d->obs[0].kind, ==, SG_OBS_CHOICE);
  g_assert_cmpuint (d->obs[0].count, ==, 4);
  g_assert_cmpint (d->obs[0].confidence, ==, SG_CONFIDENCE_WEAK);
  /* data order [chosen = 2, 0, 1, 3]: option 3 shown first is entry 3 */
  g_assert_cmpuint (d->obs[0].shown_first, ==, 3);
  g_assert_cmpmem (d->X + d->options[d->obs[0].first] * 2, 2 * sizeof (double),
                   opts4 + 4, 2 * sizeof (double));
  g_assert_true (sg_bo_best (bo, best));
  g_assert_cmpmem (best, sizeof best, opts4 + 4, sizeof best);
  g_assert_cmpuint (sg_data_n_probit_rows (d), ==, 3);
  sg_bo_free (bo);

  SbLogEntry duel = { .kind = SB_LOG_DUEL, .dim = 2, .a = (double *) opts4,
                      .b = (double *) opts4 + 2, .winner = 1, .value = NAN,
                      .n_shown = 2, .shown_order = { 1, 0 },
                      .confidence = SG_CONFIDENCE_STRONG };
  SbLogEntry tie = { .kind = SB_LOG_TIE, .dim = 2, .a = (double *) opts4 + 4,
                     .b = (double *) opts4 + 6, .value = NAN };
  g_assert_true (sb_session_add_entry (ts, &duel, NULL));
  g_assert_true (sb_session_add_entry (ts, &tie, NULL));
  bo = replay (ts);
  d = sg_bo_data (bo);
  g_assert_cmpuint (d->n_obs, ==, 2);
  g_assert_cmpint (d->obs[0].kind, ==, SG_OBS_PREFERENCE);
  g_assert_true (d->obs[0].tie_offered);
  g_assert_cmpint (d->obs[0].confidence, ==, SG_CONFIDENCE_STRONG);
  g_assert_cmpuint (d->obs[0].shown_first, ==, 0);  /* b, the winner, came first */
  g_assert_cmpint (d->obs[1].kind, ==, SG_OBS_TIE);
  /* a tie keeps x_r: still the duel's winner */
  g_assert_true (sg_bo_best (bo, best));
  g_assert_cmpmem (best, sizeof best, opts4 + 2, sizeof best);
  sg_bo_free (bo);

  SbLogEntry r = { .kind = SB_LOG_RANKING, .dim = 2, .n_options = 3,
                   .options = (double *) opts4, .ranking = { 2, 0, 1 }, .value = NAN };
  g_assert_true (sb_session_add_entry (rs, &r, NULL));
  bo = replay (rs);
  d = sg_bo_data (bo);
  g_assert_cmpint (d->obs[0].kind, ==, SG_OBS_RANKING);
  g_assert_cmpmem (d->X + d->options[d->obs[0].first] * 2, 2 * sizeof (double),
                   opts4 + 4, 2 * sizeof (double));
  g_assert_cmpmem (d->X + d->options[d->obs[0].first + 2] * 2, 2 * sizeof (double),
                   opts4 + 2, 2 * sizeof (double));
  g_assert_true (sg_bo_best (bo, best));
  g_assert_cmpmem (best, sizeof best, opts4 + 4, sizeof best);
  sg_bo_free (bo);
}

static void
test_csv (void)
{
  g_autoptr (SbExperiment) exp = experiment (SB_ASK_RANKING, 3, FALSE);
  g_autoptr (SbSession) s = sb_session_new (exp);
  SbLogEntry r = { .kind = SB_LOG_RANKING, .dim = 2, .n_options = 3,
                   .options = (double *) opts4, .ranking = { 2, 0, 1 }, .value = NAN,
                   .n_shown = 3, .shown_order = { 1, 2, 0 } };
  g_autofree char *wide = NULL, *lng = NULL;
  g_auto (GStrv) w = NULL, l = NULL;

  g_assert_true (sb_session_add_entry (s, &r, NULL));
  wide = sb_session_to_csv (s);
  w = g_strsplit (wide, "\n", -1);
  g_assert_cmpstr (w[0], ==, "index,time,kind,answer,value,a_gain,a_offset,b_gain,b_offset,"
                             "c_gain,c_offset,question,shown_order,response_time,confidence,"
                             "note");
  g_assert_true (g_str_has_suffix (w[1], ",ranking,c a b,,10,1,20,2,30,3,,b c a,,,"));
  lng = sb_session_to_csv_long (s);
  l = g_strsplit (lng, "\n", -1);
  g_assert_true (g_str_has_suffix (l[1], ",ranking,a,3,0,2,,,,,10,1"));
  g_assert_true (g_str_has_suffix (l[2], ",ranking,b,1,0,3,,,,,20,2"));
  g_assert_true (g_str_has_suffix (l[3], ",ranking,c,2,1,1,,,,,30,3"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/session-answers/choice-round-trip", test_choice_round_trip);
  g_test_add_func ("/session-answers/ranking-and-tie-round-trip", test_ranking_and_tie_round_trip);
  g_test_add_func ("/session-answers/older-file", test_older_file);
  g_test_add_func ("/session-answers/validation", test_validation);
  g_test_add_func ("/session-answers/refuse-damaged", test_refuse_damaged_answers);
  g_test_add_func ("/session-answers/replay", test_replay);
  g_test_add_func ("/session-answers/csv", test_csv);
  return g_test_run ();
}
