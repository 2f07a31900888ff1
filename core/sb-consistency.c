/* sb-consistency.c — repeated pairs, intransitive triples, side bias and
 * the chance flag of one participant's log (sb-consistency.h). */
#include "config.h"

#include "sb-consistency.h"

#include <math.h>
#include <string.h>

/* ---- Binomial tails ------------------------------------------------------- */

static double
binomial_log_pmf_half (guint i, guint n)
{
  return lgamma (n + 1.0) - lgamma (i + 1.0) - lgamma (n - i + 1.0) - n * G_LN2;
}

double
sb_binomial_upper_tail (guint k, guint n)
{
  double p = 0;

  if (k == 0)
    return 1.0;
  for (guint i = k; i <= n; i++)
    p += exp (binomial_log_pmf_half (i, n));
  return MIN (p, 1.0);
}

double
sb_binomial_two_sided (guint k, guint n)
{
  /* Binomial(n, 1/2) is symmetric: twice the smaller tail. */
  guint low = MIN (k, n - k);
  return MIN (1.0, 2.0 * sb_binomial_upper_tail (n - low, n));
}

/* ---- Settings and pairs --------------------------------------------------- */

typedef struct {
  GHashTable *ids;     /* GBytes (the setting's coordinates) -> id + 1 */
  guint n;
} Settings;

static guint
setting_id (Settings *s, const double *x, guint dim)
{
  g_autoptr (GBytes) key = g_bytes_new (x, dim * sizeof (double));
  gpointer id = g_hash_table_lookup (s->ids, key);

  if (id != NULL)
    return GPOINTER_TO_UINT (id) - 1;
  g_hash_table_insert (s->ids, g_bytes_ref (key), GUINT_TO_POINTER (++s->n));
  return s->n - 1;
}

static guint64
pair_key (guint i, guint j)
{
  return ((guint64) MIN (i, j) << 32) | MAX (i, j);
}

static gboolean
counts (const SbLogEntry *e)
{
  return e->kind != SB_LOG_SKIP && !sb_log_entry_is_removed (e);
}

static gboolean
is_duel (const SbLogEntry *e)
{
  return (e->kind == SB_LOG_DUEL || e->kind == SB_LOG_TIE) && counts (e);
}

/* The duels of a log, as setting ids. */
typedef struct {
  guint entry;       /* index in the log */
  guint a, b;        /* setting ids of options a and b */
  int winner;        /* 0: a, 1: b, -1: tie */
  gboolean repeat;   /* the pair was shown before */
  guint first;       /* the index (in the duel array) of the pair's first duel */
} Duel;

static GArray *
collect_duels (GPtrArray *log, guint dim, Settings *settings)
{
  GArray *duels = g_array_new (FALSE, FALSE, sizeof (Duel));
  g_autoptr (GHashTable) first = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  for (guint i = 0; i < log->len; i++)
    {
      const SbLogEntry *e = g_ptr_array_index (log, i);
      Duel d = { .entry = i };
      gpointer seen;
      guint64 key;

      if (!is_duel (e))
        continue;
      d.a = setting_id (settings, e->a, dim);
      d.b = setting_id (settings, e->b, dim);
      d.winner = e->kind == SB_LOG_TIE ? -1 : e->winner;
      key = pair_key (d.a, d.b);
      seen = g_hash_table_lookup (first, &key);
      if (seen != NULL)
        {
          d.repeat = TRUE;
          d.first = GPOINTER_TO_UINT (seen) - 1;
        }
      else
        {
          g_hash_table_insert (first, g_memdup2 (&key, sizeof key),
                               GUINT_TO_POINTER (duels->len + 1));
          d.first = duels->len;
        }
      g_array_append_val (duels, d);
    }
  return duels;
}

/* The setting a duel preferred, or -1 for a tie. */
static gint64
preferred (const Duel *d)
{
  if (d->winner < 0)
    return -1;
  return d->winner == 0 ? (gint64) d->a : (gint64) d->b;
}

static void
count_repeats (GArray *duels, SbConsistency *out)
{
  for (guint i = 0; i < duels->len; i++)
    {
      const Duel *d = &g_array_index (duels, Duel, i);
      if (!d->repeat)
        continue;
      out->n_repeats++;
      if (preferred (d) == preferred (&g_array_index (duels, Duel, d->first)))
        out->n_agree++;
    }
}

/* The direction of each pair: wins of the lower id over the higher minus
 * the reverse; then every triple with three directed pairs, once. */
static void
count_triples (GArray *duels, guint n_settings, SbConsistency *out)
{
  g_autoptr (GHashTable) score = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr (GPtrArray) neighbours = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  GHashTableIter iter;
  gpointer key, value;

  for (guint i = 0; i < duels->len; i++)
    {
      const Duel *d = &g_array_index (duels, Duel, i);
      guint64 k = pair_key (d->a, d->b);
      gint64 w = preferred (d);
      int s;

      if (w < 0)
        continue;
      s = GPOINTER_TO_INT (g_hash_table_lookup (score, &k));
      s += (guint) w == MIN (d->a, d->b) ? 1 : -1;
      /* a missing pair and a balanced one both read 0: no direction */
      g_hash_table_insert (score, g_memdup2 (&k, sizeof k), GINT_TO_POINTER (s));
    }
  for (guint i = 0; i < n_settings; i++)
    g_ptr_array_add (neighbours, g_array_new (FALSE, FALSE, sizeof (guint)));
  g_hash_table_iter_init (&iter, score);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      guint64 k = *(guint64 *) key;
      guint lo = (guint) (k >> 32), hi = (guint) (k & G_MAXUINT32);
      if (GPOINTER_TO_INT (value) == 0)
        continue;
      g_array_append_val (g_ptr_array_index (neighbours, lo), hi);
    }

  /* d(x, y) = +1 when x is preferred to y. */
#define DIRECTION(x, y, s) ((x) < (y) ? ((s) > 0 ? 1 : -1) : ((s) > 0 ? -1 : 1))
  for (guint i = 0; i < n_settings; i++)
    {
      GArray *ni = g_ptr_array_index (neighbours, i);
      for (guint p = 0; p < ni->len; p++)
        for (guint q = 0; q < ni->len; q++)
          {
            guint j = g_array_index (ni, guint, p), k = g_array_index (ni, guint, q);
            guint64 ij = pair_key (i, j), jk = pair_key (j, k), ik = pair_key (i, k);
            int sjk;
            if (!(j < k))
              continue;
            sjk = GPOINTER_TO_INT (g_hash_table_lookup (score, &jk));
            if (sjk == 0)
              continue;
            out->n_triples++;
            int dij = DIRECTION (i, j, GPOINTER_TO_INT (g_hash_table_lookup (score, &ij)));
            int djk = DIRECTION (j, k, sjk);
            int dki = DIRECTION (k, i, GPOINTER_TO_INT (g_hash_table_lookup (score, &ik)));
            if (dij == djk && djk == dki)
              out->n_intransitive++;
          }
    }
#undef DIRECTION
}

/* ---- Side bias, evidence -------------------------------------------------- */

static void
count_side (GPtrArray *log, SbConsistency *out)
{
  for (guint i = 0; i < log->len; i++)
    {
      const SbLogEntry *e = g_ptr_array_index (log, i);
      if (!counts (e) || e->kind != SB_LOG_DUEL || e->n_shown == 0)
        continue;
      out->n_side++;
      if ((guint) e->winner == e->shown_order[0])
        out->n_first_chosen++;
    }
}

/* The log likelihood of a coin: each answer one of its equally likely
 * outcomes. FALSE when an answer that counts is not a preference. */
static gboolean
coin_log_likelihood (const SbExperiment *exp, GPtrArray *entries, double *out)
{
  double ll = 0;

  for (guint i = 0; i < entries->len; i++)
    {
      const SbLogEntry *e = g_ptr_array_index (entries, i);
      if (!counts (e))
        continue;
      switch (e->kind)
        {
        case SB_LOG_DUEL:
        case SB_LOG_TIE:
          ll -= log (exp->ties_allowed ? 3.0 : 2.0);
          break;
        case SB_LOG_CHOICE:
          ll -= log ((double) e->n_options);
          break;
        case SB_LOG_RANKING:
          ll -= lgamma (e->n_options + 1.0);
          break;
        default:
          return FALSE;
        }
    }
  *out = ll;
  return TRUE;
}

void
sb_consistency_compute (const SbExperiment *exp, GPtrArray *log, const SbHyper *hyper,
                        SbConsistency *out)
{
  Settings settings = { g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                               (GDestroyNotify) g_bytes_unref, NULL), 0 };
  g_autoptr (GArray) duels = collect_duels (log, exp->n_parameters, &settings);
  double coin;

  memset (out, 0, sizeof *out);
  for (guint i = 0; i < log->len; i++)
    out->n_answers += counts (g_ptr_array_index (log, i));
  out->n_duels = duels->len;
  count_repeats (duels, out);
  count_triples (duels, settings.n, out);
  count_side (log, out);
  g_hash_table_unref (settings.ids);

  out->agreement = out->n_repeats ? (double) out->n_agree / out->n_repeats : NAN;
  out->agreement_p = out->n_repeats ? sb_binomial_upper_tail (out->n_agree, out->n_repeats) : NAN;
  out->first_rate = out->n_side ? (double) out->n_first_chosen / out->n_side : NAN;
  out->side_p = out->n_side ? sb_binomial_two_sided (out->n_first_chosen, out->n_side) : NAN;
  out->log_bf = NAN;
  if (hyper && hyper->valid && isfinite (hyper->log_evidence) && out->n_answers > 0
      && hyper->n_answers == out->n_answers && coin_log_likelihood (exp, log, &coin))
    {
      out->has_log_bf = TRUE;
      out->log_bf = hyper->log_evidence - coin;
    }
  out->chance_by_repeats = out->n_repeats >= SB_CONSISTENCY_MIN_REPEATS && out->agreement_p > 0.05;
  out->chance_by_evidence = out->has_log_bf && out->log_bf <= 0;
  out->at_chance = out->chance_by_repeats || out->chance_by_evidence;
}

void
sb_consistency_of_session (SbSession *session, SbConsistency *out)
{
  g_autoptr (GPtrArray) log = sb_session_dup_observations (session);

  sb_consistency_compute (sb_session_get_experiment (session), log,
                          sb_session_get_hyper (session), out);
}

/* ---- Scheduling repeats --------------------------------------------------- */

static guint64
mix64 (guint64 z)
{
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* Uniform in [0, 1) from SEED, ID and a stream number. */
static double
hash_uniform (guint64 seed, guint64 id, guint64 stream)
{
  guint64 z = mix64 (seed + G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) * (id + 1))
              ^ mix64 (stream + G_GUINT64_CONSTANT (0x5851f42d4c957f2d));
  return (mix64 (z) >> 11) * (1.0 / 9007199254740992.0);
}

gboolean
sb_consistency_pick_repeat (const SbExperiment *exp, GPtrArray *log, guint64 seed,
                            guint64 question_id, double rate, guint *entry)
{
  Settings settings;
  g_autoptr (GArray) duels = NULL;
  g_autoptr (GArray) candidates = NULL;

  if (exp->question != SB_ASK_DUEL || exp->mode == SB_MODE_SAFE || !(rate > 0)
      || hash_uniform (seed, question_id, 1) >= rate)
    return FALSE;
  settings.ids = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                        (GDestroyNotify) g_bytes_unref, NULL);
  settings.n = 0;
  duels = collect_duels (log, exp->n_parameters, &settings);
  g_hash_table_unref (settings.ids);

  /* A pair's first duel is a candidate while no later duel repeats it. */
  g_autofree gboolean *repeated = g_new0 (gboolean, duels->len + 1);
  for (guint i = 0; i < duels->len; i++)
    if (g_array_index (duels, Duel, i).repeat)
      repeated[g_array_index (duels, Duel, i).first] = TRUE;
  candidates = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < duels->len; i++)
    {
      const Duel *d = &g_array_index (duels, Duel, i);
      if (!d->repeat && !repeated[i] && d->entry + SB_REPEAT_MIN_GAP <= log->len)
        g_array_append_val (candidates, d->entry);
    }
  if (candidates->len == 0)
    return FALSE;
  *entry = g_array_index (candidates, guint,
                          (guint) (hash_uniform (seed, question_id, 2) * candidates->len));
  return TRUE;
}
