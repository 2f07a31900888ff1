/* sb-hyper.h — hyperparameters of a refit as a session stores them.
 *
 * The engine's sg_hyper with s = 0 (sg-bo.h), kept with the session
 * because they are not a function of the answers alone: the fit that
 * produced them depends on when it ran. The session holds the last one
 * and every refit (sb-session.h), and the jobs and the consistency
 * measures read them.
 *
 * No GTK here.
 */
#pragma once

#include "sb-experiment.h"

#include <glib.h>

G_BEGIN_DECLS

/* VALID = FALSE: nothing stored, the engine's defaults. */
typedef struct {
  gboolean valid;
  guint n_answers;          /* answers the fit saw                      */
  gboolean matern52;        /* kernel: RBF (FALSE) or Matern 5/2        */
  double variance;
  double lengthscales[SB_MAX_PARAMETERS];
  double mean;
  double numeric_sd;
  double probit_sd;
  double log_evidence;
  /* Safe mode's refit (sg-bo.h, "Safe mode"): where the evidence could not
   * tell a fitted lengthscale from shorter ones, LENGTHSCALES holds the
   * conservative end of its profile-likelihood interval and this the
   * lengthscale the evidence peaked at; 0 where the fit was kept.
   * "fitted_lengthscales" in the file, when one is non-zero. */
  double fitted_lengthscales[SB_MAX_PARAMETERS];
} SbHyper;

/* TRUE when H is nothing stored (valid = FALSE) or a usable set for DIM
 * parameters: variance, noise sds and lengthscales positive and finite, a
 * finite mean (LOG_EVIDENCE may be NaN: unknown, and is then not saved).
 * Otherwise ERROR (SB_SESSION_ERROR_INVALID) names the field. */
gboolean sb_hyper_validate (const SbHyper *h, guint dim, GError **error);

G_END_DECLS
