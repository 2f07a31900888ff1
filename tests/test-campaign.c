/* test-campaign.c — the campaign controller without a display: an answer
 * is taken only while its question is on screen and is on disk when it
 * is taken; a new session starts with empty plots of its own parameters
 * and nothing of the previous one; the best stays while the next question
 * is computed; a finished campaign asks nothing, marks no next question
 * and continues when its budget is extended; a save failure stays visible
 * until a save works, with what is on disk counted; autoplay answers with
 * the simulated oracle; every refit is kept; redo restores exactly the
 * entry an undo took back, only while nothing else changed the log;
 * every duel rule asks its questions. */
#include "sb-campaign.h"
#include "sb-consistency.h"
#include "sb-experiment-templates.h"
#include "sb-file-lock.h"
#include "sb-session-history.h"
#include "sg-problems.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define SPIN_UNTIL(cond)                                                  \
  G_STMT_START {                                                          \
    gint64 deadline_ = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;     \
    while (!(cond))                                                       \
      {                                                                   \
        g_assert_cmpint (g_get_monotonic_time (), <, deadline_);          \
        g_main_context_iteration (NULL, TRUE);                            \
      }                                                                   \
  } G_STMT_END

typedef struct {
  char *dir;
  char *path;
  GFile *file;
  SbCampaign *campaign;
  guint plots;
} Fixture;

static void
on_plot_ready (SbCampaign *campaign, SbPlotSnapshot *snap, Fixture *f)
{
  f->plots++;
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("sb-campaign-XXXXXX", NULL);
  f->path = g_build_filename (f->dir, "session.json", NULL);
  f->file = g_file_new_for_path (f->path);
  f->campaign = sb_campaign_new ();
  g_signal_connect (f->campaign, "plot-ready", G_CALLBACK (on_plot_ready), f);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  sb_campaign_set_session (f->campaign, NULL);
  g_object_unref (f->campaign);
  g_assert_true (sb_worker_wait_all (30 * G_USEC_PER_SEC));
  g_unlink (f->path);
  g_rmdir (f->dir);
  g_free (f->dir);
  g_free (f->path);
  g_object_unref (f->file);
}

/* A session of EXP saved at the fixture's file, run by the campaign. */
static SbSession *
start (Fixture *f, const SbExperiment *exp)
{
  SbSession *session = sb_session_new (exp);

  g_assert_true (sb_session_save_as (session, f->file, NULL));
  sb_campaign_set_session (f->campaign, session);
  return session;
}

static gboolean
asking (Fixture *f)
{
  return sb_campaign_get_state (f->campaign) == SB_CAMPAIGN_ASKING;
}

static guint
on_disk (Fixture *f)
{
  g_autoptr (SbSession) s = sb_session_load (f->file, NULL);

  g_assert_nonnull (s);
  return sb_session_get_n_observations (s);
}

static void
test_answer_only_when_shown (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = start (f, exp);
  g_autoptr (GError) error = NULL;
  SbProposal shown;
  const SbLogEntry *e;

  /* Nothing on screen yet: refused, nothing recorded. */
  g_assert_cmpint (sb_campaign_get_state (f->campaign), ==, SB_CAMPAIGN_COMPUTING);
  g_assert_null (sb_campaign_get_question (f->campaign));
  g_assert_false (sb_campaign_answer_duel (f->campaign, 1, &error));
  g_assert_error (error, SB_CAMPAIGN_ERROR, SB_CAMPAIGN_ERROR_NOT_READY);
  g_clear_error (&error);
  g_assert_cmpuint (sb_session_get_n_observations (session), ==, 0);

  SPIN_UNTIL (asking (f));
  shown = *sb_campaign_get_question (f->campaign);
  g_assert_true (sb_campaign_answer_duel (f->campaign, 1, &error));
  g_assert_no_error (error);
  /* On disk when taken; the next question is not on screen yet. */
  g_assert_cmpuint (on_disk (f), ==, 1);
  g_assert_cmpuint (sb_campaign_get_n_saved (f->campaign), ==, 1);
  g_assert_cmpint (sb_campaign_get_state (f->campaign), ==, SB_CAMPAIGN_COMPUTING);
  g_assert_false (sb_campaign_answer_duel (f->campaign, 0, &error));
  g_assert_error (error, SB_CAMPAIGN_ERROR, SB_CAMPAIGN_ERROR_NOT_READY);
  g_clear_error (&error);
  g_assert_cmpuint (on_disk (f), ==, 1);

  /* The answer is the one to the question shown. */
  e = sb_session_get_observation (session, 0);
  g_assert_cmpint (e->kind, ==, SB_LOG_DUEL);
  g_assert_cmpint (e->winner, ==, 1);
  g_assert_cmpmem (e->a, shown.dim * sizeof (double), shown.a, shown.dim * sizeof (double));
  g_assert_cmpmem (e->b, shown.dim * sizeof (double), shown.b, shown.dim * sizeof (double));

  /* A value answer to a duel is refused and recorded nowhere. */
  SPIN_UNTIL (asking (f));
  g_assert_false (sb_campaign_answer_kind (f->campaign, SB_ANSWER_VALUE, 1.0, &error));
  g_assert_error (error, SB_CAMPAIGN_ERROR, SB_CAMPAIGN_ERROR_WRONG_KIND);
  g_assert_cmpuint (on_disk (f), ==, 1);
}

/* The experimenter removes an earlier answer while a question is on
 * screen: the question is asked again from the model without it, and
 * restoring it brings it back. */
static void
test_history_edit_reproposes (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = start (f, exp);

  for (guint i = 0; i < 3; i++)
    {
      SPIN_UNTIL (asking (f));
      g_assert_true (sb_campaign_answer_duel (f->campaign, i % 2 ? 0 : 1, 
                                         NULL));
    }
  SPIN_UNTIL (asking (f));
  g_assert_cmpuint (sb_campaign_get_question (f->campaign)->n_answers, ==, 3);
  g_assert_true (sb_session_remove_entry (session, 0, "test", NULL));
  SPIN_UNTIL (asking (f) && sb_campaign_get_question (f->campaign)->n_answers == 2);
  g_assert_cmpuint (on_disk (f), ==, 3);
  g_assert_true (sb_session_restore_entry (session, 0, "test", NULL));
  SPIN_UNTIL (asking (f) && sb_campaign_get_question (f->campaign)->n_answers == 3);
}

/* With a repeat rate the campaign asks past duels again, options swapped
 * and on the other sides, and the answers count as repeats. */
static void
test_repeats (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = NULL;
  guint repeats = 0;
  SbConsistency c;

  sb_campaign_set_repeat_rate (f->campaign, 0.5);
  session = start (f, exp);
  for (guint i = 0; i < 10; i++)
    {
      const SbProposal *q;
      SPIN_UNTIL (asking (f));
      q = sb_campaign_get_question (f->campaign);
      for (guint k = 0; k < sb_session_get_n_observations (session); k++)
        {
          const SbLogEntry *e = sb_session_get_observation (session, k);
          gsize size = q->dim * sizeof (double);
          if (memcmp (e->a, q->b, size) == 0 && memcmp (e->b, q->a, size) == 0)
            {
              repeats++;
              g_assert_cmpuint (e->shown_order[0], ==, q->shown_order[0]);
              break;
            }
        }
      g_assert_true (sb_campaign_answer_duel (f->campaign, i % 3 ? 0 : 1, 
                                         NULL));
    }
  g_test_message ("%u repeats in 10 questions", repeats);
  g_assert_cmpuint (repeats, >, 0);
  sb_consistency_of_session (session, &c);
  g_assert_cmpuint (c.n_repeats, >=, repeats);
}

static gboolean
same_entry (const SbLogEntry *x, const SbLogEntry *y)
{
  return x->kind == y->kind && x->winner == y->winner && x->dim == y->dim
         && memcmp (x->a, y->a, x->dim * sizeof (double)) == 0
         && (x->b == NULL) == (y->b == NULL)
         && (x->b == NULL || memcmp (x->b, y->b, x->dim * sizeof (double)) == 0);
}

/* Redo records again exactly the entry the undo took back, only while a
 * question is on screen and only while nothing changed the log since. */
static void
test_undo_redo (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = start (f, exp);
  g_autoptr (SbLogEntry) undone = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_false (sb_campaign_can_redo (f->campaign));
  for (guint i = 0; i < 2; i++)
    {
      SPIN_UNTIL (asking (f));
      g_assert_true (sb_campaign_answer_duel (f->campaign, i ? 0 : 1,  NULL));
    }
  undone = sb_log_entry_copy (sb_session_get_observation (session, 1));
  g_assert_true (sb_campaign_undo (f->campaign, NULL));
  g_assert_cmpuint (on_disk (f), ==, 1);
  g_assert_true (sb_campaign_can_redo (f->campaign));

  /* The rule of answers holds for a redo too: not while computing. */
  if (!asking (f))
    {
      g_assert_false (sb_campaign_redo (f->campaign, &error));
      g_assert_error (error, SB_CAMPAIGN_ERROR, SB_CAMPAIGN_ERROR_NOT_READY);
      g_clear_error (&error);
      g_assert_cmpuint (sb_session_get_n_observations (session), ==, 1);
      g_assert_true (sb_campaign_can_redo (f->campaign));
    }
  SPIN_UNTIL (asking (f));
  g_assert_true (sb_campaign_redo (f->campaign, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sb_session_get_n_observations (session), ==, 2);
  g_assert_true (same_entry (sb_session_get_observation (session, 1), undone));
  g_assert_cmpuint (on_disk (f), ==, 2);
  /* Once: the entry is back, there is nothing more to redo. */
  g_assert_false (sb_campaign_can_redo (f->campaign));
  SPIN_UNTIL (asking (f));
  g_assert_false (sb_campaign_redo (f->campaign, &error));
  g_assert_error (error, SB_CAMPAIGN_ERROR, SB_CAMPAIGN_ERROR_NOT_READY);
  g_clear_error (&error);

  /* An answer after the undo changes the log: the undone entry is not
   * restored over it. */
  g_assert_true (sb_campaign_undo (f->campaign, NULL));
  SPIN_UNTIL (asking (f));
  g_assert_true (sb_campaign_answer_kind (f->campaign, SB_ANSWER_SKIP, NAN, NULL));
  g_assert_false (sb_campaign_can_redo (f->campaign));
  SPIN_UNTIL (asking (f));
  g_assert_false (sb_campaign_redo (f->campaign, &error));
  g_assert_error (error, SB_CAMPAIGN_ERROR, SB_CAMPAIGN_ERROR_NOT_READY);
  g_assert_cmpuint (sb_session_get_n_observations (session), ==, 2);
  g_assert_cmpint (sb_session_get_observation (session, 1)->kind, ==, SB_LOG_SKIP);
  g_assert_cmpuint (on_disk (f), ==, 2);
}

/* Answers the next N questions with A, each once it is shown. */
static void
answer_n (Fixture *f, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      SPIN_UNTIL (asking (f));
      g_assert_true (sb_campaign_answer_duel (f->campaign, i % 2 ? 0 : 1,
                                          NULL));
    }
}

/* Every duel rule the New Experiment dialog offers runs in the campaign:
 * one random question, then three from the model, each shown as a duel
 * of two different settings with its plots, the model's incumbent known,
 * and no engine failure (the believers, dueling Thompson sampling and the
 * maximally uncertain challenge choose the duel's points their own
 * way). */
static void
test_every_duel_rule (Fixture *f, gconstpointer data)
{
  const sg_bo_acquisition rules[] = { SG_BO_ACQ_THOMPSON, SG_BO_ACQ_QEUBO, SG_BO_ACQ_HB_EI,
                                      SG_BO_ACQ_HB_UCB, SG_BO_ACQ_DTS, SG_BO_ACQ_MUC };

  for (guint r = 0; r < G_N_ELEMENTS (rules); r++)
    {
      g_autoptr (SbExperiment) exp = sb_template_benchmark ("six-hump-camel", NULL);
      g_autoptr (SbSession) session = NULL;

      g_test_message ("%s", sg_bo_acquisition_name (rules[r]));
      exp->acquisition = rules[r];
      exp->initial = 1;
      exp->budget = 10;
      session = start (f, exp);
      for (guint i = 0; i < 1 + 3; i++)
        {
          const SbProposal *q;
          SPIN_UNTIL (asking (f) || sb_campaign_get_state (f->campaign) == SB_CAMPAIGN_STALLED);
          g_assert_null (sb_campaign_get_error (f->campaign));
          q = sb_campaign_get_question (f->campaign);
          g_assert_cmpint (q->kind, ==, SB_QUESTION_DUEL);
          g_assert_true (memcmp (q->a, q->b, q->dim * sizeof (double)) != 0);
          g_assert_true (sb_campaign_answer_duel (f->campaign, i % 2 ? 0 : 1,
                                              NULL));
        }
      SPIN_UNTIL (asking (f) || sb_campaign_get_state (f->campaign) == SB_CAMPAIGN_STALLED);
      g_assert_null (sb_campaign_get_error (f->campaign));
      g_assert_true (sb_campaign_get_best (f->campaign, NULL));
      g_assert_cmpuint (sb_session_get_n_answers (session), ==, 4);
      g_assert_cmpuint (on_disk (f), ==, 4);
      sb_campaign_set_session (f->campaign, NULL);
      g_assert_true (sb_worker_wait_all (30 * G_USEC_PER_SEC));
      g_unlink (f->path);
    }
}

static void
test_new_session_starts_empty (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) colour = sb_template_colour ();
  g_autoptr (SbExperiment) camel = sb_template_benchmark ("six-hump-camel", NULL);
  g_autoptr (SbSession) first = start (f, colour);
  g_autoptr (SbSession) second = sb_session_new (camel);
  SbPlotSnapshot *snap;
  double lo, hi;

  /* The first session gets a model and its plots. */
  answer_n (f, colour->initial + 1);
  SPIN_UNTIL (asking (f) && sb_campaign_get_best (f->campaign, NULL));
  SPIN_UNTIL (sb_plot_snapshot_get_summaries (sb_campaign_get_plot (f->campaign),
                                              SB_POSTERIOR_EXACT) != NULL);

  /* A running proposal of the first is superseded by the second. */
  g_assert_true (sb_campaign_answer_duel (f->campaign, 0, NULL));
  sb_campaign_set_session (f->campaign, second);
  snap = sb_campaign_get_plot (f->campaign);
  g_assert_cmpuint (sb_plot_snapshot_get_dim (snap), ==, 2);
  g_assert_cmpstr (sb_plot_snapshot_get_parameter (snap, 0, &lo, &hi), ==,
                   camel->parameters[0].name);
  g_assert_cmpfloat (lo, ==, camel->parameters[0].lower);
  g_assert_cmpuint (sb_plot_snapshot_get_n_observations (snap), ==, 0);
  g_assert_null (sb_plot_snapshot_get_summaries (snap, SB_POSTERIOR_EXACT));
  g_assert_false (sb_campaign_get_best (f->campaign, NULL));
  g_assert_null (sb_campaign_get_latest (f->campaign));

  /* Nothing of the first session arrives later. */
  SPIN_UNTIL (asking (f));
  g_assert_cmpuint (sb_campaign_get_question (f->campaign)->dim, ==, 2);
  g_assert_cmpuint (sb_plot_snapshot_get_dim (sb_campaign_get_plot (f->campaign)), ==, 2);
}

static void
test_best_stable (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = start (f, exp);
  double best[SB_MAX_PARAMETERS], during[SB_MAX_PARAMETERS];

  answer_n (f, exp->initial + 1);
  SPIN_UNTIL (asking (f) && sb_campaign_get_best (f->campaign, NULL));
  g_assert_true (sb_campaign_get_best (f->campaign, best));
  g_assert_true (sb_campaign_answer_duel (f->campaign, 0, NULL));
  g_assert_cmpint (sb_campaign_get_state (f->campaign), ==, SB_CAMPAIGN_COMPUTING);
  g_assert_true (sb_campaign_get_best (f->campaign, during));
  g_assert_cmpmem (best, exp->n_parameters * sizeof (double), during,
                   exp->n_parameters * sizeof (double));
}

static void
test_finished_and_extended (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = NULL;
  g_autoptr (SbSession) reloaded = NULL;
  g_autoptr (GError) error = NULL;
  SbPlotSnapshot *snap;

  exp->budget = 4;
  exp->initial = 2;
  session = start (f, exp);
  answer_n (f, 4);
  SPIN_UNTIL (sb_campaign_get_state (f->campaign) == SB_CAMPAIGN_FINISHED);
  g_assert_null (sb_campaign_get_question (f->campaign));
  g_assert_true (sb_campaign_get_best (f->campaign, NULL));
  g_assert_false (sb_campaign_answer_duel (f->campaign, 0, &error));
  g_assert_error (error, SB_CAMPAIGN_ERROR, SB_CAMPAIGN_ERROR_FINISHED);
  g_clear_error (&error);

  /* The finished campaign's plots mark no next question. */
  SPIN_UNTIL ((snap = sb_campaign_get_plot (f->campaign))
              && sb_plot_snapshot_get_summaries (snap, SB_POSTERIOR_EXACT) != NULL
              && sb_plot_snapshot_get_n_observations (snap) == 4);
  g_assert_null (sb_plot_snapshot_get_next (snap, NULL));

  /* Continue for two more: saved, asked, answered. */
  g_assert_true (sb_campaign_extend_budget (f->campaign, 2, &error));
  g_assert_no_error (error);
  reloaded = sb_session_load (f->file, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sb_session_get_experiment (reloaded)->budget, ==, 6);
  answer_n (f, 2);
  SPIN_UNTIL (sb_campaign_get_state (f->campaign) == SB_CAMPAIGN_FINISHED);
  g_assert_cmpuint (on_disk (f), ==, 6);
  /* Undo reopens the last question. */
  g_assert_true (sb_campaign_undo (f->campaign, NULL));
  SPIN_UNTIL (asking (f));
  g_assert_cmpuint (sb_campaign_get_question (f->campaign)->n_log, ==, 5);
}

static void
test_save_failure_visible (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = start (f, exp);

  answer_n (f, 1);
  SPIN_UNTIL (asking (f));
  g_assert_null (sb_campaign_get_save_error (f->campaign));

  /* The folder disappears (a USB stick pulled out): the answer is kept in
   * memory and the failure shown, through the next question too. */
  {
    g_autofree char *lock = sb_file_lock_path_for (f->path);
    g_assert_cmpint (g_unlink (f->path), ==, 0);
    g_assert_cmpint (g_unlink (lock), ==, 0);
    g_assert_cmpint (g_rmdir (f->dir), ==, 0);
  }
  g_assert_true (sb_campaign_answer_duel (f->campaign, 0, NULL));
  g_assert_nonnull (sb_campaign_get_save_error (f->campaign));
  g_assert_cmpuint (sb_session_get_n_observations (session), ==, 2);
  g_assert_cmpuint (sb_campaign_get_n_saved (f->campaign), ==, 1);
  SPIN_UNTIL (asking (f));
  g_assert_nonnull (sb_campaign_get_save_error (f->campaign));
  g_assert_true (sb_campaign_answer_duel (f->campaign, 1, NULL));
  SPIN_UNTIL (asking (f));
  g_assert_nonnull (sb_campaign_get_save_error (f->campaign));
  g_assert_cmpuint (sb_campaign_get_n_saved (f->campaign), ==, 1);

  /* Back again: the next answer writes everything and clears it. */
  g_assert_cmpint (g_mkdir (f->dir, 0700), ==, 0);
  g_assert_true (sb_campaign_answer_duel (f->campaign, 0, NULL));
  g_assert_null (sb_campaign_get_save_error (f->campaign));
  g_assert_cmpuint (sb_campaign_get_n_saved (f->campaign), ==, 4);
  g_assert_cmpuint (on_disk (f), ==, 4);
}

static void
on_fit_finished (SbCampaign *campaign, const SbFitResult *fit, const GError *error,
                 guint *fits)
{
  if (fit)
    (*fits)++;
}

static void
test_autoplay_and_refits (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_benchmark ("cos1d", NULL);
  g_autoptr (SbSession) session = NULL;
  guint fits = 0;

  exp->budget = 8;
  exp->initial = 3;
  session = start (f, exp);
  g_signal_connect (f->campaign, "fit-finished", G_CALLBACK (on_fit_finished), &fits);
  sb_campaign_set_autoplay_delay (f->campaign, 0);
  sb_campaign_set_autoplay (f->campaign, TRUE);
  SPIN_UNTIL (sb_campaign_get_state (f->campaign) == SB_CAMPAIGN_FINISHED
              && !sb_campaign_get_fitting (f->campaign));
  g_assert_cmpuint (sb_session_get_n_answers (session), ==, 8);
  g_assert_cmpuint (on_disk (f), ==, 8);
  /* The engine's schedule refitted at least once, and each refit is in
   * the session with the answers it saw. */
  g_assert_cmpuint (fits, >=, 1);
  g_assert_true (sb_session_get_hyper (session)->valid);
  g_assert_cmpuint (sb_session_get_hyper (session)->n_answers, >, 0);
  g_assert_cmpuint (sb_session_get_n_refits (session), ==, fits);
  for (guint i = 1; i < fits; i++)
    g_assert_cmpuint (sb_session_get_refit (session, i)->n_answers, >=,
                      sb_session_get_refit (session, i - 1)->n_answers);

  /* The history is in the file and in the plots (Hyperparameters view):
   * one row per fit, the variance, the lengthscale and the probit sd. */
  {
    g_autoptr (SbSession) reloaded = sb_session_load (f->file, NULL);
    SbPlotSnapshot *snap;
    gsize n_hyper = 0;
    const double *values = NULL;
    const char *const *names = NULL;

    g_assert_cmpuint (sb_session_get_n_refits (reloaded), ==, fits);
    SPIN_UNTIL ((snap = sb_campaign_get_plot (f->campaign))
                && sb_plot_snapshot_get_hyper_history (snap, NULL, NULL, NULL) == fits);
    g_assert_cmpuint (sb_plot_snapshot_get_hyper_history (snap, &n_hyper, &names, &values), ==, fits);
    g_assert_cmpuint (n_hyper, ==, 3);
    g_assert_cmpstr (names[0], ==, "variance");
    g_assert_cmpfloat (values[(fits - 1) * n_hyper], ==, sb_session_get_hyper (session)->variance);
    g_assert_cmpfloat (values[(fits - 1) * n_hyper + 1], ==,
                       sb_session_get_hyper (session)->lengthscales[0]);
  }
}

/* The follower's question is the writer's question Q: its kind and
 * options in their shown order. */
static gboolean
followed_is (SbCampaign *follower, const SbProposal *q)
{
  const SbProposal *p = sb_campaign_get_followed_question (follower);

  if (p == NULL || q == NULL || p->n_log != q->n_log || p->kind != q->kind
      || p->n_options != q->n_options)
    return FALSE;
  for (guint i = 0; i < q->n_options; i++)
    if (memcmp (p->options[i], q->options[i], q->dim * sizeof (double)) != 0
        || p->shown_order[i] != q->shown_order[i])
      return FALSE;
  return TRUE;
}

/* One writer per file: the campaign holds the write lock; a second
 * campaign on the same file (another window or process) is read-only,
 * refuses answers, writes nothing and follows the writer's answers. */
static void
test_one_writer_others_follow (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = NULL;
  g_autoptr (SbCampaign) follower = sb_campaign_new ();
  g_autoptr (SbSession) copy = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *before = NULL, *after = NULL;
  const char *reason = NULL;

  exp->budget = 3;
  session = start (f, exp);

  g_assert_false (sb_campaign_get_read_only (f->campaign, NULL));
  g_assert_null (sb_file_lock_acquire (f->path, "test", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_clear_error (&error);

  copy = sb_session_load (f->file, &error);
  g_assert_no_error (error);
  sb_campaign_set_session (follower, copy);
  g_assert_true (sb_campaign_get_read_only (follower, &reason));
  g_test_message ("%s", reason);
  g_assert_nonnull (strstr (reason, "skewbench"));
  SPIN_UNTIL (sb_campaign_get_state (follower) == SB_CAMPAIGN_FOLLOWING);
  g_assert_null (sb_campaign_get_question (follower));
  g_assert_false (sb_campaign_answer_duel (follower, 0, &error));
  g_assert_error (error, SB_CAMPAIGN_ERROR, SB_CAMPAIGN_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_assert_false (sb_campaign_undo (follower, &error));
  g_assert_error (error, SB_CAMPAIGN_ERROR, SB_CAMPAIGN_ERROR_READ_ONLY);
  g_clear_error (&error);

  /* The writer answers twice: the follower reloads and shows them. */
  answer_n (f, 2);
  SPIN_UNTIL (sb_session_get_n_observations (copy) == 2
              && sb_campaign_get_state (follower) == SB_CAMPAIGN_FOLLOWING
              && sb_campaign_get_latest (follower)->n_log == 2);
  g_assert_cmpint (sb_session_get_observation (copy, 1)->winner, ==,
                   sb_session_get_observation (session, 1)->winner);

  /* It shows the question the writer asked (not one of its own), with
   * the model of the answers on disk. */
  SPIN_UNTIL (asking (f));
  SPIN_UNTIL (followed_is (follower, sb_campaign_get_question (f->campaign)));
  g_assert_false (sb_campaign_get_done (follower));

  /* The writer's last answer: nothing is open, nothing more to ask. */
  answer_n (f, 1);
  SPIN_UNTIL (sb_campaign_get_state (f->campaign) == SB_CAMPAIGN_FINISHED);
  SPIN_UNTIL (sb_session_get_n_observations (copy) == 3
              && sb_campaign_get_state (follower) == SB_CAMPAIGN_FOLLOWING);
  g_assert_true (sb_campaign_get_done (follower));
  g_assert_null (sb_campaign_get_followed_question (follower));

  /* The follower never wrote: the file is the writer's. */
  g_assert_true (g_file_get_contents (f->path, &before, NULL, NULL));
  sb_campaign_set_session (follower, NULL);
  g_assert_true (g_file_get_contents (f->path, &after, NULL, NULL));
  g_assert_cmpstr (before, ==, after);

  /* Once the writer lets go, a new campaign writes. */
  sb_campaign_set_session (f->campaign, NULL);
  sb_campaign_set_session (follower, copy);
  g_assert_false (sb_campaign_get_read_only (follower, NULL));
  sb_campaign_set_session (follower, NULL);
}

/* Every answer records the order its options were shown in and the time
 * from the question going on screen to the answer; ties are taken only
 * when the experiment allows them, with a confidence on duels. */
static void
test_duel_details_and_ties (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GError) error = NULL;
  SbAnswer strong_b = { .kind = SB_ANSWER_CHOSEN, .chosen = 1,
                       .confidence = SG_CONFIDENCE_STRONG };
  SbAnswer tie = { .kind = SB_ANSWER_TIE };
  SbProposal shown;
  gint64 before;

  exp->ties_allowed = TRUE;
  /* a seed whose first duel is shuffled to B first, so that recording
   * the workbench's A-first order is seen */
  for (guint order[SB_MAX_OPTIONS];; exp->seed++)
    {
      sb_shuffle_order (exp->seed, 0, 2, order);
      if (order[0] == 1)
        break;
    }
  session = start (f, exp);
  SPIN_UNTIL (asking (f));
  shown = *sb_campaign_get_question (f->campaign);
  g_assert_cmpuint (shown.n_options, ==, 2);
  g_assert_cmpuint (shown.shown_order[0], ==, 1);
  g_assert_cmpmem (shown.options[0], shown.dim * sizeof (double), shown.a,
                   shown.dim * sizeof (double));
  before = g_get_monotonic_time ();
  g_usleep (30000);
  g_assert_true (sb_campaign_answer (f->campaign, &strong_b, &error));
  g_assert_no_error (error);
  const SbLogEntry *e = sb_session_get_observation (session, 0);
  g_assert_cmpint (e->kind, ==, SB_LOG_DUEL);
  g_assert_cmpint (e->confidence, ==, SG_CONFIDENCE_STRONG);
  g_assert_cmpuint (e->n_shown, ==, 2);
  /* the workbench panel draws A on the left whatever the shuffle said */
  g_assert_cmpuint (e->shown_order[0], ==, 0);
  g_assert_cmpuint (e->shown_order[1], ==, 1);
  g_assert_true (e->has_response_time);
  /* at least the 30 ms slept, at most the time since the question showed */
  g_assert_cmpfloat (e->response_time, >=, 0.03);
  g_assert_cmpfloat (e->response_time, <=,
                     (g_get_monotonic_time () - before) / 1e6 + 0.5);

  SPIN_UNTIL (asking (f));
  tie.confidence = SG_CONFIDENCE_WEAK;  /* a tie has no confidence: refused */
  g_assert_false (sb_campaign_answer (f->campaign, &tie, &error));
  g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
  g_clear_error (&error);
  tie.confidence = SG_CONFIDENCE_NONE;
  /* a view that shows the sides shuffled records the question's order */
  shown = *sb_campaign_get_question (f->campaign);
  tie.n_shown = 2;
  memcpy (tie.shown_order, shown.shown_order, sizeof tie.shown_order);
  g_assert_true (sb_campaign_answer (f->campaign, &tie, &error));
  g_assert_no_error (error);
  g_assert_cmpint (sb_session_get_observation (session, 1)->kind, ==, SB_LOG_TIE);
  g_assert_cmpmem (sb_session_get_observation (session, 1)->shown_order, 2 * sizeof (guint),
                   shown.shown_order, 2 * sizeof (guint));
  g_assert_cmpuint (on_disk (f), ==, 2);

  /* Undo and redo give back the tie itself, with its details (a redo
   * through the duel/value/skip adders recorded it as a skip). */
  {
    g_autoptr (SbLogEntry) undone = sb_log_entry_copy (sb_session_get_observation (session, 1));
    const SbLogEntry *back;
    g_assert_true (sb_campaign_undo (f->campaign, NULL));
    SPIN_UNTIL (asking (f));
    g_assert_true (sb_campaign_redo (f->campaign, &error));
    g_assert_no_error (error);
    back = sb_session_get_observation (session, 1);
    g_assert_cmpint (back->kind, ==, SB_LOG_TIE);
    g_assert_true (same_entry (back, undone));
    g_assert_cmpuint (back->n_shown, ==, undone->n_shown);
    g_assert_true (back->has_response_time);
    g_assert_cmpfloat (back->response_time, ==, undone->response_time);
    SPIN_UNTIL (asking (f));
  }

  /* Without ties allowed, "about the same" is not an answer. */
  sb_campaign_set_session (f->campaign, NULL);
  g_clear_object (&session);
  exp->ties_allowed = FALSE;
  session = start (f, exp);
  SPIN_UNTIL (asking (f));
  g_assert_false (sb_campaign_answer (f->campaign, &tie, &error));
  g_assert_error (error, SB_CAMPAIGN_ERROR, SB_CAMPAIGN_ERROR_WRONG_KIND);
  g_assert_cmpuint (sb_session_get_n_observations (session), ==, 0);
}

/* The order shown is a permutation that depends on the seed and the
 * question number only, and puts the current best first about half the
 * time. */
static void
test_shown_order_balanced (void)
{
  guint first_a = 0, again[SB_MAX_OPTIONS], order[SB_MAX_OPTIONS];

  for (guint n = 0; n < 400; n++)
    {
      sb_shuffle_order (7, n, 2, order);
      g_assert_true ((order[0] == 0 && order[1] == 1) || (order[0] == 1 && order[1] == 0));
      first_a += order[0] == 0;
    }
  /* Binomial(400, 1/2): sd 10, so +-50 is a five-sigma band. */
  g_assert_cmpuint (first_a, >, 150);
  g_assert_cmpuint (first_a, <, 250);
  sb_shuffle_order (7, 12, 5, order);
  sb_shuffle_order (7, 12, 5, again);
  g_assert_cmpmem (order, 5 * sizeof (guint), again, 5 * sizeof (guint));
  guint seen = 0;
  for (guint i = 0; i < 5; i++)
    seen |= 1u << order[i];
  g_assert_cmpuint (seen, ==, 0x1f);
}

/* A choice question shows k options: the engine's duel (the current best
 * and its challenger) plus distinct space-filling ones; choosing records
 * a choice with every detail, and the chosen option becomes the best. */
static void
test_choice_and_ranking_questions (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GError) error = NULL;
  SbAnswer choose = { .kind = SB_ANSWER_CHOSEN, .chosen = 3,
                              .confidence = SG_CONFIDENCE_WEAK };
  SbAnswer rank = { .kind = SB_ANSWER_RANKING, .ranking = { 2, 0, 1 } };
  SbProposal shown;
  double best[SB_MAX_PARAMETERS];

  exp->question = SB_ASK_CHOICE;
  exp->n_options = 4;
  session = start (f, exp);
  SPIN_UNTIL (asking (f));
  shown = *sb_campaign_get_question (f->campaign);
  g_assert_cmpint (shown.kind, ==, SB_QUESTION_CHOICE);
  g_assert_cmpuint (shown.n_options, ==, 4);
  g_assert_cmpmem (shown.options[1], shown.dim * sizeof (double), shown.b,
                   shown.dim * sizeof (double));
  for (guint i = 0; i < 4; i++)
    for (guint j = 0; j < i; j++)
      g_assert_true (memcmp (shown.options[i], shown.options[j],
                             shown.dim * sizeof (double)) != 0);
  g_assert_false (sb_campaign_answer_duel (f->campaign, 0, &error));
  g_assert_error (error, SB_CAMPAIGN_ERROR, SB_CAMPAIGN_ERROR_WRONG_KIND);
  g_clear_error (&error);
  choose.chosen = 4;
  g_assert_false (sb_campaign_answer (f->campaign, &choose, &error));
  g_assert_error (error, SB_CAMPAIGN_ERROR, SB_CAMPAIGN_ERROR_WRONG_KIND);
  g_clear_error (&error);
  choose.chosen = 3;
  g_assert_true (sb_campaign_answer (f->campaign, &choose, &error));
  g_assert_no_error (error);
  const SbLogEntry *e = sb_session_get_observation (session, 0);
  g_assert_cmpint (e->kind, ==, SB_LOG_CHOICE);
  g_assert_cmpuint (e->chosen, ==, 3);
  g_assert_cmpint (e->confidence, ==, SG_CONFIDENCE_WEAK);
  g_assert_cmpuint (e->n_shown, ==, 4);
  g_assert_cmpmem (e->shown_order, 4 * sizeof (guint), shown.shown_order, 4 * sizeof (guint));
  g_assert_cmpmem (sb_log_entry_option (e, 3), shown.dim * sizeof (double), shown.options[3],
                   shown.dim * sizeof (double));
  SPIN_UNTIL (asking (f));
  g_assert_true (sb_campaign_get_best (f->campaign, best));
  g_assert_cmpmem (best, shown.dim * sizeof (double), shown.options[3],
                   shown.dim * sizeof (double));
  /* the next question is another one, with its own order */
  g_assert_true (memcmp (sb_campaign_get_question (f->campaign)->options, shown.options,
                         sizeof shown.options) != 0);

  /* Rankings: a permutation is recorded, anything else refused. */
  sb_campaign_set_session (f->campaign, NULL);
  g_clear_object (&session);
  exp->question = SB_ASK_RANKING;
  exp->n_options = 3;
  session = start (f, exp);
  SPIN_UNTIL (asking (f));
  g_assert_cmpint (sb_campaign_get_question (f->campaign)->kind, ==, SB_QUESTION_RANKING);
  SbAnswer twice = { .kind = SB_ANSWER_RANKING, .ranking = { 1, 1, 0 } };
  g_assert_false (sb_campaign_answer (f->campaign, &twice, &error));
  g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
  g_assert_true (sb_campaign_answer (f->campaign, &rank, NULL));
  e = sb_session_get_observation (session, 0);
  g_assert_cmpint (e->kind, ==, SB_LOG_RANKING);
  g_assert_cmpmem (e->ranking, 3 * sizeof (guint), rank.ranking, 3 * sizeof (guint));
  /* skipping a ranking keeps its options */
  SPIN_UNTIL (asking (f));
  g_assert_true (sb_campaign_answer_kind (f->campaign, SB_ANSWER_SKIP, NAN, NULL));
  g_assert_cmpuint (sb_log_entry_n_options (sb_session_get_observation (session, 1)), ==, 3);
  g_assert_cmpuint (on_disk (f), ==, 2);
}

/* The simulated person answers choice questions with the best option
 * (no noise: the true best of the k). */
static void
test_oracle_chooses_best (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_benchmark ("six-hump-camel", NULL);
  g_autoptr (SbSession) session = NULL;

  exp->simulated = TRUE;
  exp->oracle_noise = 0;
  exp->question = SB_ASK_CHOICE;
  exp->n_options = 5;
  exp->surrogate = SG_BO_SURROGATE_SKEWGP;
  session = start (f, exp);
  for (guint n = 0; n < 3; n++)
    {
      SPIN_UNTIL (asking (f));
      const SbProposal *q = sb_campaign_get_question (f->campaign);
      sg_problem *p = NULL;
      g_assert_true (q->has_oracle);
      g_assert_cmpint (sg_problem_new ("six-hump-camel", exp->seed, &p), ==, SG_OK);
      for (guint i = 0; i < q->n_options; i++)
        g_assert_cmpfloat (sg_problem_value (p, q->options[i]), <=,
                           sg_problem_value (p, q->options[q->oracle_winner]));
      sg_problem_free (p);
      g_assert_true (sb_campaign_oracle_answer (f->campaign));
      g_assert_cmpint (sb_session_get_observation (session, n)->kind, ==, SB_LOG_CHOICE);
      g_assert_cmpuint (sb_session_get_observation (session, n)->chosen, ==,
                        (guint) q->oracle_winner);
    }

  /* After the initial design the engine proposes the k options itself,
   * by qEUBO (the plots show that acquisition), and the oracle keeps
   * choosing among them. */
  for (guint n = 3; n < exp->initial + 3; n++)
    {
      SPIN_UNTIL (asking (f));
      g_assert_true (sb_campaign_oracle_answer (f->campaign));
    }
  SPIN_UNTIL (asking (f));
  {
    const SbProposal *q = sb_campaign_get_question (f->campaign);
    SbPlotSnapshot *snap;
    const char *name = NULL;
    g_assert_false (q->initial);
    g_assert_cmpint (q->kind, ==, SB_QUESTION_CHOICE);
    g_assert_cmpuint (q->n_options, ==, 5);
    SPIN_UNTIL ((snap = sb_campaign_get_plot (f->campaign))
                && sb_plot_snapshot_get_acquisition (snap, &name, NULL) != NULL);
    g_assert_cmpstr (name, ==, "qEUBO");
  }
}

/* Safe mode asks the setting the experimenter knows is safe first (not a
 * random one); the safe start and the parameters' measurement resolution
 * go through the session file, and impossible ones are refused. */
static void
test_safe_start_first (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_custom ();
  g_autoptr (SbSession) session = NULL;
  g_autoptr (SbSession) reloaded = NULL;
  g_autoptr (GError) error = NULL;
  const SbProposal *q;

  exp->mode = SB_MODE_SAFE;
  sb_experiment_use_default_acquisition (exp);
  exp->parameters[0].resolution = 0.01 * (exp->parameters[0].upper - exp->parameters[0].lower);
  exp->has_safe_start = TRUE;
  for (guint j = 0; j < exp->n_parameters; j++)
    exp->safe_start[j] = exp->parameters[j].lower
                         + 0.3 * (exp->parameters[j].upper - exp->parameters[j].lower);
  session = start (f, exp);
  SPIN_UNTIL (asking (f));
  q = sb_campaign_get_question (f->campaign);
  g_assert_cmpint (q->kind, ==, SB_QUESTION_VALUE);
  g_assert_cmpmem (q->b, exp->n_parameters * sizeof (double), exp->safe_start,
                   exp->n_parameters * sizeof (double));
  reloaded = sb_session_load (f->file, &error);
  g_assert_no_error (error);
  g_assert_true (sb_session_get_experiment (reloaded)->has_safe_start);
  /* The measurement resolution goes through the file too. */
  g_assert_cmpfloat (sb_session_get_experiment (reloaded)->parameters[0].resolution, ==,
                     exp->parameters[0].resolution);
  g_assert_cmpmem (sb_session_get_experiment (reloaded)->safe_start,
                   exp->n_parameters * sizeof (double), exp->safe_start,
                   exp->n_parameters * sizeof (double));

  /* Outside the box, or outside safe mode: refused, naming it. */
  exp->safe_start[0] = exp->parameters[0].upper + 1;
  g_assert_false (sb_experiment_validate (exp, &error));
  g_assert_nonnull (strstr (error->message, "safe start"));
  g_clear_error (&error);
  exp->safe_start[0] = exp->parameters[0].lower;
  exp->parameters[0].resolution = exp->parameters[0].upper - exp->parameters[0].lower;
  g_assert_false (sb_experiment_validate (exp, &error));
  g_assert_nonnull (strstr (error->message, "resolution"));
  g_clear_error (&error);
  exp->parameters[0].resolution = 0;
  exp->mode = SB_MODE_MIXED;
  sb_experiment_use_default_acquisition (exp);
  g_assert_false (sb_experiment_validate (exp, &error));
  g_assert_nonnull (strstr (error->message, "safe_start"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) g_test_add (path, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)
  ADD ("/campaign/answer-only-when-shown", test_answer_only_when_shown);
  ADD ("/campaign/new-session-starts-empty", test_new_session_starts_empty);
  ADD ("/campaign/best-stable", test_best_stable);
  ADD ("/campaign/finished-and-extended", test_finished_and_extended);
  ADD ("/campaign/save-failure-visible", test_save_failure_visible);
  ADD ("/campaign/autoplay-and-refits", test_autoplay_and_refits);
  ADD ("/campaign/one-writer-others-follow", test_one_writer_others_follow);
  ADD ("/campaign/safe-start-first", test_safe_start_first);
  ADD ("/campaign/undo-redo", test_undo_redo);
  ADD ("/campaign/history-edit-reproposes", test_history_edit_reproposes);
  ADD ("/campaign/repeats", test_repeats);
  ADD ("/campaign/duel-details-and-ties", test_duel_details_and_ties);
  ADD ("/campaign/choice-and-ranking-questions", test_choice_and_ranking_questions);
  ADD ("/campaign/oracle-chooses-best", test_oracle_chooses_best);
  ADD ("/campaign/every-duel-rule", test_every_duel_rule);
  g_test_add_func ("/campaign/shown-order-balanced", test_shown_order_balanced);
#undef ADD
  return g_test_run ();
}
