/* fuzz-cli-json.c — a `skewgp` input document read as the CLI reads it:
 * skewgp_read_document on a file (the bounded read, the strict reader, the
 * object check), then the checks of the commands' readers without their
 * numerics: the SkewGP model document of `posterior` and `fit`
 * (cli/skewgp-model-json.h) and the shared field readers with the fields
 * and limits `mvn-cdf`, `tmvn-sample`, `link` and `posterior`'s "predict"
 * use (vectors with null bounds, square matrices, ranged integers).
 *
 * Properties: every reader returns FALSE exactly when it sets an error, and
 * that error is an input error (exit 2) with a message; a model read has
 * the dimension of its lengthscales in every point it holds.
 */
#include "fuzz-common.h"

#include "skewgp-cli.h"
#include "skewgp-model-json.h"

#include <math.h>

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_logging ();
  return 0;
}

/* OK is what a reader returned; ERROR what it set. Clears ERROR. */
static void
check_outcome (gboolean ok, GError **error)
{
  if (ok)
    FUZZ_CHECK (*error == NULL);
  else
    {
      FUZZ_CHECK (*error != NULL);
      FUZZ_CHECK (g_error_matches (*error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT));
      FUZZ_CHECK ((*error)->message[0] != '\0');
    }
  g_clear_error (error);
}

static void
check_model (const SkewgpModel *m)
{
  size_t dim = m->kernel.dim;
  FUZZ_CHECK (sg_kernel_check (&m->kernel) == SG_OK);
  FUZZ_CHECK (dim > 0 && m->data.dim == dim);
  for (size_t i = 0; i < m->data.n_inputs * dim; i++)
    FUZZ_CHECK (isfinite (m->data.X[i]));
  for (size_t i = 0; i < m->data.n_obs; i++)
    FUZZ_CHECK (m->data.obs[i].a < m->data.n_inputs);
  for (size_t i = 0; i < m->s * dim; i++)
    FUZZ_CHECK (isfinite (m->pseudo_points[i]));
  FUZZ_CHECK (m->noise.numeric_sd > 0 && m->noise.probit_sd > 0);
  sg_skewgp_prior prior;
  skewgp_model_prior (m, &prior);
}

/* `skewgp posterior` and `fit`: the model fields. */
static void
read_model (JsonObject *root)
{
  static const char *const known[] = { SKEWGP_MODEL_FIELDS, "predict", "fit", NULL };
  g_autoptr (GError) error = NULL;
  check_outcome (skewgp_check_fields (root, NULL, known, &error), &error);

  SkewgpModel model;
  gboolean ok = skewgp_model_from_json (root, &model, &error);
  if (ok)
    check_model (&model);
  check_outcome (ok, &error);

  /* posterior's "predict": points of the model's dimension */
  JsonNode *node = json_object_get_member (root, "predict");
  if (ok && node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *p = json_node_get_object (node);
      g_autofree double *points = NULL, *reference = NULL;
      gsize n = 0, cols = 0, len = 0;
      gint64 samples = 2000, seed = 0;
      double credible = 0.95;
      check_outcome (skewgp_get_matrix (p, "points", TRUE, 0, model.kernel.dim, &points,
                                        &n, &cols, &error), &error);
      check_outcome (skewgp_get_vector (p, "reference", FALSE, model.kernel.dim, FALSE, 0,
                                        &reference, &len, &error), &error);
      check_outcome (skewgp_get_int (p, "samples", FALSE, 10, 10000000, &samples, &error),
                     &error);
      check_outcome (skewgp_get_int (p, "seed", FALSE, 0, G_MAXINT64, &seed, &error),
                     &error);
      check_outcome (skewgp_get_double (p, "credible", FALSE, &credible, &error), &error);
      FUZZ_CHECK (samples >= 10 && samples <= 10000000 && seed >= 0 && isfinite (credible));
    }
  skewgp_model_clear (&model);
}

/* `mvn-cdf` / `tmvn-sample`: a square matrix and vectors of its size, with
 * null as an infinite bound. */
static void
read_gaussian (JsonObject *root)
{
  g_autoptr (GError) error = NULL;
  g_autofree double *cov = NULL, *mean = NULL, *lower = NULL, *upper = NULL;
  gsize rows = 0, cols = 0, len = 0;
  gboolean ok = skewgp_get_matrix (root, "cov", TRUE, 0, 0, &cov, &rows, &cols, &error);
  check_outcome (ok, &error);
  if (!ok)
    return;
  FUZZ_CHECK (rows > 0 && cols > 0);
  for (gsize i = 0; i < rows * cols; i++)
    FUZZ_CHECK (isfinite (cov[i]));
  if (rows != cols)
    return;
  check_outcome (skewgp_get_vector (root, "mean", FALSE, rows, FALSE, 0, &mean, &len, &error),
                 &error);
  ok = skewgp_get_vector (root, "lower", FALSE, rows, TRUE, -INFINITY, &lower, &len, &error);
  FUZZ_CHECK (!ok || lower == NULL || len == rows);
  check_outcome (ok, &error);
  ok = skewgp_get_vector (root, "upper", TRUE, rows, TRUE, INFINITY, &upper, &len, &error);
  FUZZ_CHECK (!ok || len == rows);
  check_outcome (ok, &error);
}

/* Scalars as `mvn-cdf`, `tmvn-sample` and `link` read them. */
static void
read_scalars (JsonObject *root)
{
  g_autoptr (GError) error = NULL;
  gint64 points = 1000, seed = 0, n_basis = 20;
  double rel_tol = 0, probit_sd = 1;
  gboolean flag = FALSE;
  const char *method = "tilted";
  check_outcome (skewgp_get_int (root, "points", FALSE, 10, 100000000, &points, &error),
                 &error);
  check_outcome (skewgp_get_int (root, "seed", FALSE, 0, (G_GINT64_CONSTANT (1) << 53) - 1,
                                 &seed, &error), &error);
  check_outcome (skewgp_get_int (root, "n_basis", FALSE, 2, 64, &n_basis, &error), &error);
  check_outcome (skewgp_get_double (root, "rel_tol", FALSE, &rel_tol, &error), &error);
  check_outcome (skewgp_get_double (root, "probit_sd", FALSE, &probit_sd, &error), &error);
  check_outcome (skewgp_get_bool (root, "deterministic", FALSE, &flag, &error), &error);
  check_outcome (skewgp_get_string (root, "method", FALSE, &method, &error), &error);
  FUZZ_CHECK (points >= 10 && points <= 100000000 && seed >= 0 && n_basis >= 2
              && n_basis <= 64 && isfinite (rel_tol) && isfinite (probit_sd) && method != NULL);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_file_with (data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) doc = skewgp_read_document (path, &error);
  check_outcome (doc != NULL, &error);
  if (doc == NULL)
    return 0;
  FUZZ_CHECK (JSON_NODE_HOLDS_OBJECT (doc));
  JsonObject *root = json_node_get_object (doc);
  read_model (root);
  read_gaussian (root);
  read_scalars (root);
  return 0;
}
