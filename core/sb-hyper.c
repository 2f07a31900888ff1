/* sb-hyper.c — the rules of stored hyperparameters (sb-hyper.h). */
#include "config.h"

#include "sb-hyper.h"
#include "sb-error.h"
#include "sb-json-write.h"

#include <math.h>

static gboolean
positive (double v)
{
  return isfinite (v) && v > 0;
}

gboolean
sb_hyper_validate (const SbHyper *h, guint dim, GError **error)
{
  char v[G_ASCII_DTOSTR_BUF_SIZE];
  struct { const char *key; double value; } scales[] = {
    { "variance", h->variance }, { "numeric_sd", h->numeric_sd }, { "probit_sd", h->probit_sd },
  };

  if (!h->valid)
    return TRUE;
  if (h->n_answers > G_MAXINT)
    return sb_invalid (error, "hyperparameters: 'answers' must lie in [0, %d]", G_MAXINT);
  for (guint i = 0; i < G_N_ELEMENTS (scales); i++)
    if (!positive (scales[i].value))
      return sb_invalid (error, "hyperparameters: '%s' = %s is not a positive finite number",
                         scales[i].key, sb_json_format_double (scales[i].value, v, sizeof v));
  for (guint j = 0; j < dim; j++)
    if (!positive (h->lengthscales[j]))
      return sb_invalid (error, "hyperparameters: lengthscale %u = %s is not a positive finite number",
                         j + 1, sb_json_format_double (h->lengthscales[j], v, sizeof v));
  if (!isfinite (h->mean))
    return sb_invalid (error, "hyperparameters: 'mean' is not a finite number");
  for (guint j = 0; j < dim; j++)
    if (h->fitted_lengthscales[j] != 0 && !positive (h->fitted_lengthscales[j]))
      return sb_invalid (error, "hyperparameters: fitted lengthscale %u = %s is not a positive "
                         "finite number", j + 1,
                         sb_json_format_double (h->fitted_lengthscales[j], v, sizeof v));
  return TRUE;
}
