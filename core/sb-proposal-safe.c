/* sb-proposal-safe.c — safe mode's account of a proposal in words, and
 * whether a session's safe set can still grow (sb-jobs.h:
 * sb_proposal_safe_statement, sb_proposal_safe_model_text,
 * sb_session_safe_exhausted). */
#include "sb-jobs.h"

#include "sb-parameter-kinds.h"
#include "sb-setting.h"

#include <math.h>

char *
sb_proposal_safe_statement (const SbExperiment *exp, const SbProposal *q)
{
  double level = 100 * exp->confidence_level;

  if (exp->mode != SB_MODE_SAFE || !q->has_safe)
    return NULL;
  if (q->safe_exhausted)
    return q->safe.state == SG_BO_SAFE_NOTHING_SAFE
             ? g_strdup_printf ("Best safe setting found: no setting outside the measured region "
                                "is safe at %.0f %%.", level)
             : g_strdup_printf ("Best safe setting found: the settings safe at %.0f %% are known "
                                "within the measurement noise, and none of them can grow the "
                                "safe set.", level);
  if (q->safe.role == SG_BO_SAFE_ROLE_EXPANDER)
    return g_strdup_printf ("Growing the safe set: B is safe at %.0f %% (%.0f %% needed), and "
                            "its value may show settings beyond it safe.",
                            floor (100 * q->prob_safe), level);
  return g_strdup_printf ("Seeking the best inside the safe set: B is safe at %.0f %% (%.0f %% "
                          "needed) and may beat the best safe setting.",
                          floor (100 * q->prob_safe), level);
}

/* Lengthscale L (model coordinates) of parameter P as a person reads it:
 * a factor for a log scale, steps of an integer, the unit otherwise. */
static char *
format_lengthscale (const SbParameter *p, double l)
{
  switch (p->scale)
    {
    case SB_SCALE_LOG:
      return g_strdup_printf ("a factor of %.2g", exp (l));
    case SB_SCALE_INTEGER:
      return g_strdup_printf ("%.2g steps", l);
    default:
      return *p->unit ? g_strdup_printf ("%.3g %s", l, p->unit) : g_strdup_printf ("%.3g", l);
    }
}

char *
sb_proposal_safe_model_text (const SbExperiment *exp, const SbProposal *q, const SbHyper *hyper)
{
  const sg_bo_safe_info *s = &q->safe;
  g_autoptr (GString) text = NULL;

  if (exp->mode != SB_MODE_SAFE || !q->has_safe)
    return NULL;
  text = g_string_new (NULL);
  g_string_append_printf (text, "Model: far from the measurements f returns to the threshold "
                          "%g, where it is safe with probability 1/2 only.", exp->threshold);
  if (s->adjusted & SG_BO_SAFE_VARIANCE_RAISED)
    g_string_append_printf (text, " Its prior sd is raised to %.3g, the largest distance of a "
                            "measured value from the threshold: f may fall that far.",
                            sqrt (s->variance));
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      const SbParameter *p = &exp->parameters[j];
      g_autofree char *used = format_lengthscale (p, s->lengthscales[j]);
      double fitted = hyper && hyper->valid ? hyper->fitted_lengthscales[j] : 0;
      if (s->capped[j])
        g_string_append_printf (text, " The lengthscale of %s is cut to %s, the spread of the "
                                "measured settings: no correlation is assumed over distances "
                                "not measured.", p->name, used);
      else if (fitted > 0 && s->lengthscales[j] < fitted)
        {
          g_autofree char *best = format_lengthscale (p, fitted);
          g_string_append_printf (text, " The lengthscale of %s is %s, not the best fit's %s: "
                                  "with these answers the evidence cannot tell them apart "
                                  "(95 %%), so the shorter, more cautious one is used.",
                                  p->name, used, best);
        }
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

gboolean
sb_session_safe_exhausted (SbSession *session, gboolean *exhausted, char **reason,
                           GError **error)
{
  g_autoptr (SbProposal) proposal = NULL;
  SbJobInput *input;

  *exhausted = FALSE;
  *reason = NULL;
  if (sb_session_get_experiment (session)->mode != SB_MODE_SAFE)
    return TRUE;
  input = sb_job_input_new (session);
  proposal = sb_job_propose (NULL, input, error);
  if (proposal != NULL && proposal->safe_exhausted)
    {
      *exhausted = TRUE;
      *reason = sb_proposal_safe_statement (input->experiment, proposal);
    }
  sb_job_input_free (input);
  return proposal != NULL;
}
