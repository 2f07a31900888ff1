/* skewgp-classify.c — `skewgp classify`: GP classification from CSV files
 * with the exact SkewGP posterior (paper 000), the Laplace / EP
 * approximations or the sparse variational GPs of paper 004 (sg-svgp.h,
 * sg-svgp-multi.h), two classes or more (one-vs-rest for the binary
 * methods, 000 sec. 7.2), on a train/test split or by stratified K-fold
 * cross-validation (paper 000 sec. 7.1).
 *
 * Like `skewgp bo` it takes flags rather than a JSON document. Train/test
 * mode writes CSV (probability,latent_mean,latent_sd); cross-validation
 * writes one JSON document. Everything is written only after the whole
 * computation succeeded, so a failure leaves stdout empty.
 */
#include "config.h"

#include "skewgp-cli.h"
#include "skewgp-commands.h"
#include "skewgp-csv.h"

#include "sb-engine-job.h"

#include "sg-ep.h"
#include "sg-fit.h"
#include "sg-laplace.h"
#include "sg-rng.h"
#include "sg-skewgp.h"
#include "sg-svgp-multi.h"
#include "sg-svgp.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_SAMPLES 2000
#define DEFAULT_FIT_EVALS 200
#define DEFAULT_FIT_STARTS 2
#define FIT_MVN_POINTS 2000
#define FIT_VARIANCE_MAX 100.0
/* Probabilities are clipped to [P_CLIP, 1 - P_CLIP] in the information
 * score, so one confidently wrong prediction costs at most
 * -log2(P_CLIP) ~ 50 bits instead of an infinite penalty. */
#define P_CLIP 1e-15
/* Without --method: training sets of at least SVGP_CROSSOVER rows use the
 * sparse variational GP, smaller ones EP (train/test) or the
 * skewgp,laplace,ep comparison (--cv). Measured crossover: see
 * tests/bench/results-svgp.md. */
#define SVGP_CROSSOVER 1000
#define DEFAULT_SVGP_INDUCING 100

static const char classify_summary[] =
  "  skewgp classify --train A.csv --test B.csv --method M [OPTION...]\n"
  "  skewgp classify --cv K --data C.csv [--method M1,M2,...] [OPTION...]\n\n"
  "GP classification with a probit likelihood Phi(y f(x)) (paper 000 eq. 6)\n"
  "and a zero-mean prior with the given kernel; two classes or more.\n\n"
  "Input CSV: one row per example, the last column is the class label, the\n"
  "other columns are the inputs (any number of them). Labels are numbers or\n"
  "names (setosa, 3, -1); the classes are the distinct labels, in numeric\n"
  "order when all are numbers, else in byte order. With two classes the\n"
  "second is the positive one (1 of 0/1 and of -1/1). A header row (no\n"
  "numeric cell) is allowed. The --test file may omit the label column; if\n"
  "present it is read but not used.\n\n"
  "More than two classes: skewgp, laplace, ep and laplace-logistic train one\n"
  "binary classifier per class against the rest and report\n"
  "P(c) = p_c / sum_k p_k (000 sec. 7.2); svgp is paper 004's multi-class\n"
  "model with the robust step likelihood and Gaussian noise (GPC-II, 004\n"
  "eq. 18) and svgp-softmax its softmax model (GPCsm, 004 eq. 25), for any\n"
  "number of classes (two included). Train/test mode then writes the header\n"
  "  class,p_NAME1,p_NAME2,...\n"
  "and per test row the most likely class and every class's probability\n"
  "(they sum to one).\n\n"
  "Train/test mode writes CSV to standard output: the header\n"
  "  probability,latent_mean,latent_sd\n"
  "and one row per test row: P(y = 1 | data) and the posterior mean and sd of\n"
  "the latent f at the test input.\n\n"
  "Cross-validation mode (--cv K --data C.csv) splits the rows into K\n"
  "stratified folds (each class shuffled with --seed and dealt out in turn),\n"
  "trains on K-1 folds and predicts the held-out one, for every method in\n"
  "the comma-separated --method list (default below), and writes\n"
  "one JSON document: per method the accuracy (the most likely class is the\n"
  "prediction; two classes: P(y = 1) >= 0.5 predicts 1), the negative log\n"
  "likelihood nll = mean_i -ln p(y_i | x_i) (004 sec. IV, p clipped to\n"
  "[1e-15, 1]), the confusion table (rows: true class, columns: predicted,\n"
  "in the order of \"classes\"), and with two classes the average\n"
  "information in bits (000 sec. 7.1; Kuss & Rasmussen 2005)\n"
  "  I = 1 + (1/n) sum_i [ (1 + y_i)/2 log2 p_i + (1 - y_i)/2 log2 (1 - p_i) ],\n"
  "y_i = +-1, p_i = P(y_i = 1 | training folds), over all n rows (each is held\n"
  "out exactly once); p_i is clipped to [1e-15, 1 - 1e-15]. I = 1 bit for\n"
  "certain correct predictions, 0 for p = 1/2, negative when the wrong class\n"
  "is favoured. Also per fold and fitted hyperparameters.";

static const char classify_description[] =
  "Methods:\n"
  "  skewgp            exact SkewGP_s posterior (000 Theorem 3.1), sampled with\n"
  "                    exact HMC; P(y = 1) = E[Phi(f(x))] Rao-Blackwellised over\n"
  "                    --samples posterior samples (default 2000; Monte Carlo\n"
  "                    error < 0.01), or with --exact-probability the ratio of\n"
  "                    orthant probabilities of 000 Corollary 2 (sg_mvn, slow:\n"
  "                    one MVN probability of dimension s + n + 1 per test row)\n"
  "  laplace           Laplace approximation, probit (R&W alg. 3.1/3.2)\n"
  "  ep                expectation propagation, probit (R&W alg. 3.5/3.6);\n"
  "                    restarted with damping 0.5 if it does not converge\n"
  "  laplace-logistic  Laplace approximation with the logistic likelihood\n"
  "                    (paper 002)\n"
  "  svgp              sparse variational GP with additive noise (paper 004,\n"
  "                    probit case, sigma = 1): M inducing points at k-means\n"
  "                    centres of the training inputs, q(u) = N(m, S), the\n"
  "                    closed-form ELBO (004 eq. 8) maximised by minibatch Adam\n"
  "                    together with the label-flip probability delta;\n"
  "                    P(y = 1) = delta + (1 - 2 delta) Phi(mu / sqrt(1 + v))\n"
  "                    (004 eq. 9). Cost O(n M d + iterations B M^2), so it\n"
  "                    scales to large n; with --fit the lengthscales (ARD)\n"
  "                    are learned by the same ELBO, the variance stays as\n"
  "                    given (the ELBO grows without bound in it, 004 app. B);\n"
  "                    log_evidence reports the ELBO\n\n"
  "Default method (no --method): with fewer than 1000 training rows ep\n"
  "(train/test) or skewgp,laplace,ep (--cv); from 1000 rows on svgp, which is\n"
  "then cheaper than EP (measured crossovers: exact ~440, EP ~780, Laplace\n"
  "~1560 rows; tests/bench/results-svgp.md). svgp's accuracy matches the\n"
  "others', but its probabilities are less calibrated (one label-flip delta\n"
  "keeps them in [delta, 1 - delta]); for calibrated probabilities from a few\n"
  "thousand rows use --method laplace. On a few dozen rows svgp's ELBO may\n"
  "prefer delta -> 1/2 (every P = 1/2).\n\n"
  "Options in detail:\n"
  "  --lengthscale L[,L2,...]: one value (isotropic) or one per input column\n"
  "      (ARD); default sqrt(number of inputs)\n"
  "  --skew-dim S: latent dimension s of the SkewGP prior (default 0 = GP\n"
  "      prior; only for --method skewgp, s <= 8)\n"
  "  --fit: fit the hyperparameters of each method by maximising its own log\n"
  "      evidence (skewgp: exact, 001 Corollary 3 with 2000 common QMC points;\n"
  "      laplace, ep: their approximations), on every training set: the\n"
  "      variance in [0.01, 100], the lengthscales (tied if one value was given\n"
  "      or none, ARD if one per column) in [0.01, 10] x the range of the\n"
  "      inputs, and for s > 0 gamma in [-3, 3]; BOBYQA from the given values\n"
  "      and one Latin-hypercube start (sg_fit). Without --fit the\n"
  "      hyperparameters are fixed as given.\n"
  "  --standardize: scale every input column to mean 0, sd 1 with the\n"
  "      statistics of the training rows (per fold in --cv)\n"
  "  --batch B: svgp minibatch rows per Adam step (default 256; >= rows means\n"
  "      full batches)\n"
  "  --seed S: seed of the folds, pseudo-points, fit starts, sampling and\n"
  "      svgp's k-means and minibatches (default 0)\n\n"
  "SkewGP_s prior for s > 0 (000 eq. 14: Gamma = L Kbar(R,R) L,\n"
  "Delta = Kbar(X,R) L): the pseudo-points R are s training inputs drawn at\n"
  "random (000 sec. 7.2's initialisation), alternately from class 1 and\n"
  "class 0; the phase L_ii is the label (+1 / -1) of pseudo-point i, so the\n"
  "skewness pushes f towards that class near r_i; gamma = 0 unless fitted.\n"
  "Paper 000 also optimises R and L by marginal likelihood; here R and L stay\n"
  "fixed (sg_fit does not fit discrete phases) and gamma is fitted.\n\n"
  "Large tables: when every --method is svgp or svgp-softmax the --train and\n"
  "--data files are streamed (read in 1 MiB blocks straight into the\n"
  "inputs: at most 2^28 numbers, 2 GiB; lines up to 1 MiB; regular files\n"
  "only; no quoted cells); otherwise, and for --test, a file is read whole\n"
  "(at most 64 MiB). On a terminal svgp prints its progress on standard\n"
  "error; --max-seconds T ends its training after T seconds with what it\n"
  "has learned (the steps taken are in \"iterations\").\n\n"
  "Exit status: 0 success, 1 numerical failure, 2 bad input (the message\n"
  "names the file and line).";

typedef enum {
  METHOD_SKEWGP = 0,
  METHOD_LAPLACE,
  METHOD_EP,
  METHOD_LAPLACE_LOGISTIC,
  METHOD_SVGP,
  METHOD_SVGP_SOFTMAX,
  N_METHODS
} ClsMethod;

static const char *const method_names[N_METHODS] = {
  "skewgp", "laplace", "ep", "laplace-logistic", "svgp", "svgp-softmax",
};

#define MAX_SKEW_DIM 8

typedef struct {
  const char *train, *test, *data;
  long cv;
  ClsMethod methods[N_METHODS];
  gsize n_methods;
  sg_kernel_type kernel;
  double variance;
  double *lengthscales;       /* n_lengthscales values (g_free) */
  gsize n_lengthscales;
  long skew_dim, samples, fit_evals;
  long inducing, batch, iterations;   /* svgp; 0 = default */
  double max_seconds;                 /* svgp training budget; 0 = none */
  guint64 seed;
  gboolean fit, standardize, exact_probability;
  gboolean method_given;
} ClsArgs;

/* What one training run produced. */
typedef struct {
  double *prob, *mean, *sd;   /* per test row (binary: P(y = 1), latent f) */
  double *pclass;             /* nte x n_classes class probabilities       */
  JsonBuilder *ovr;           /* one-vs-rest: each class's hyperparameters */
  sg_hyper hyper;             /* the hyperparameters used (fitted or given) */
  double *pseudo_points;      /* MAX_SKEW_DIM x dim (g_free) */
  double phases[MAX_SKEW_DIM], gamma[MAX_SKEW_DIM];
  double log_evidence;        /* the method's evidence at HYPER (NaN if unknown) */
  double delta;               /* svgp's label-flip probability (NaN otherwise) */
  gsize inducing;             /* svgp's inducing points (0 otherwise) */
  gsize iterations;           /* svgp's Adam steps taken (0 otherwise) */
  double seconds;
} ClsRun;

static void
cls_run_clear (ClsRun *run)
{
  g_clear_pointer (&run->prob, g_free);
  g_clear_pointer (&run->mean, g_free);
  g_clear_pointer (&run->sd, g_free);
  g_clear_pointer (&run->pseudo_points, g_free);
  g_clear_pointer (&run->pclass, g_free);
  g_clear_object (&run->ovr);
  sg_kernel_clear (&run->hyper.kernel);
}

static void add_hyper_json (JsonBuilder *b, const ClsRun *run);

/* ---- Argument parsing --------------------------------------------------- */

static gboolean
parse_positive (const char *flag, const char *s, double *out, GError **error)
{
  char *end = NULL;
  double v = g_ascii_strtod (s, &end);
  if (*s == '\0' || *end != '\0' || !isfinite (v) || !(v > 0))
    return skewgp_input_error (error, "%s expects a positive number, got '%s'", flag, s);
  *out = v;
  return TRUE;
}

static gboolean
parse_methods (const char *s, ClsArgs *a, GError **error)
{
  g_auto (GStrv) names = g_strsplit (s, ",", -1);
  a->n_methods = 0;
  for (gsize i = 0; names[i] != NULL; i++)
    {
      gsize k = 0;
      while (k < N_METHODS && strcmp (names[i], method_names[k]) != 0)
        k++;
      if (k == N_METHODS)
        return skewgp_input_error (error, "unknown method '%s' (skewgp, laplace, ep, "
                                   "laplace-logistic, svgp, svgp-softmax)", names[i]);
      for (gsize j = 0; j < a->n_methods; j++)
        if (a->methods[j] == (ClsMethod) k)
          return skewgp_input_error (error, "method '%s' listed twice", names[i]);
      a->methods[a->n_methods++] = (ClsMethod) k;
    }
  if (a->n_methods == 0)
    return skewgp_input_error (error, "--method needs at least one method");
  return TRUE;
}

static gboolean
parse_lengthscales (const char *s, ClsArgs *a, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (s, ",", -1);
  gsize n = g_strv_length (parts);
  a->lengthscales = g_new (double, n + 1);
  for (gsize i = 0; i < n; i++)
    if (!parse_positive ("--lengthscale", parts[i], &a->lengthscales[i], error))
      return FALSE;
  a->n_lengthscales = n;
  return TRUE;
}

/* The options as given (NULL: not given), before checking. */
typedef struct {
  char *train, *test, *data, *cv, *method, *kernel, *variance, *lengthscale;
  char *skew_dim, *samples, *fit_evals, *inducing, *batch, *iterations, *seed, *max_seconds;
  gboolean fit, standardize, exact_probability;
} ClsFlags;

static void
cls_flags_clear (ClsFlags *f)
{
  char **texts[] = {
    &f->train, &f->test, &f->data, &f->cv, &f->method, &f->kernel, &f->variance,
    &f->lengthscale, &f->skew_dim, &f->samples, &f->fit_evals, &f->inducing, &f->batch,
    &f->iterations, &f->seed, &f->max_seconds,
  };
  for (gsize i = 0; i < G_N_ELEMENTS (texts); i++)
    g_clear_pointer (texts[i], g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ClsFlags, cls_flags_clear)

static gboolean
parse_flags (int argc, char **argv, ClsFlags *f, GError **error)
{
  const GOptionEntry entries[] = {
    { "train", 0, 0, G_OPTION_ARG_FILENAME, &f->train, "training CSV", "A.csv" },
    { "test", 0, 0, G_OPTION_ARG_FILENAME, &f->test, "test CSV (label column optional)",
      "B.csv" },
    { "cv", 0, 0, G_OPTION_ARG_STRING, &f->cv, "K-fold cross-validation, K in [2, 1000]", "K" },
    { "data", 0, 0, G_OPTION_ARG_FILENAME, &f->data, "the CSV of --cv", "C.csv" },
    { "method", 0, 0, G_OPTION_ARG_STRING, &f->method,
      "skewgp | laplace | ep | laplace-logistic | svgp | svgp-softmax (--cv: a list M1,M2)",
      "M" },
    { "kernel", 0, 0, G_OPTION_ARG_STRING, &f->kernel, "rbf (default) | matern52", "K" },
    { "variance", 0, 0, G_OPTION_ARG_STRING, &f->variance, "kernel variance (default 1)", "V" },
    { "lengthscale", 0, 0, G_OPTION_ARG_STRING, &f->lengthscale,
      "one value, or one per input column (ARD)", "L[,L2,...]" },
    { "skew-dim", 0, 0, G_OPTION_ARG_STRING, &f->skew_dim,
      "skewgp: SkewGP_s prior dimension s <= 8 (default 0)", "S" },
    { "fit", 0, 0, G_OPTION_ARG_NONE, &f->fit, "fit the hyperparameters (see below)", NULL },
    { "fit-evals", 0, 0, G_OPTION_ARG_STRING, &f->fit_evals,
      "evidence evaluations per fit (default 200)", "N" },
    { "standardize", 0, 0, G_OPTION_ARG_NONE, &f->standardize,
      "scale every input column to mean 0, sd 1", NULL },
    { "samples", 0, 0, G_OPTION_ARG_STRING, &f->samples,
      "skewgp posterior samples (default 2000)", "N" },
    { "exact-probability", 0, 0, G_OPTION_ARG_NONE, &f->exact_probability,
      "skewgp: class probability by 000 Corollary 2", NULL },
    { "inducing", 0, 0, G_OPTION_ARG_STRING, &f->inducing,
      "svgp: inducing points (default min(100, rows))", "M" },
    { "batch", 0, 0, G_OPTION_ARG_STRING, &f->batch,
      "svgp: minibatch rows per Adam step (default 256)", "B" },
    { "iterations", 0, 0, G_OPTION_ARG_STRING, &f->iterations,
      "svgp: Adam steps (default 2000)", "N" },
    { "max-seconds", 0, 0, G_OPTION_ARG_STRING, &f->max_seconds,
      "svgp: stop training after T seconds, keeping what it learned", "T" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &f->seed, "seed of everything random (default 0)",
      "S" },
    { NULL },
  };
  const SkewgpOptionSpec spec = { "classify", entries, classify_summary, classify_description,
                                  0 };
  return skewgp_parse_options (&spec, argc, argv, NULL, error);
}

/* The integer options, each in its range. */
static gboolean
read_counts (const ClsFlags *f, ClsArgs *a, GError **error)
{
  long seed = 0;
  const struct { const char *flag, *text; long min, max; long *out; } counts[] = {
    { "--cv", f->cv, 2, 1000, &a->cv },
    { "--skew-dim", f->skew_dim, 0, MAX_SKEW_DIM, &a->skew_dim },
    { "--samples", f->samples, 10, 10000000, &a->samples },
    { "--fit-evals", f->fit_evals, 1, 1000000, &a->fit_evals },
    { "--inducing", f->inducing, 1, 100000, &a->inducing },
    { "--batch", f->batch, 1, 100000000, &a->batch },
    { "--iterations", f->iterations, 1, 100000000, &a->iterations },
    { "--seed", f->seed, 0, G_MAXLONG, &seed },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (counts); i++)
    if (counts[i].text
        && !skewgp_option_long (counts[i].flag, counts[i].text, counts[i].min, counts[i].max,
                                counts[i].out, error))
      return FALSE;
  a->seed = (guint64) seed;
  return TRUE;
}

/* Kernel, variance, lengthscales and methods. */
static gboolean
read_model (const ClsFlags *f, ClsArgs *a, GError **error)
{
  if (f->kernel && sg_kernel_type_parse (f->kernel, &a->kernel) != SG_OK)
    return skewgp_input_error (error, "--kernel: unknown kernel '%s' (rbf, matern52)", f->kernel);
  if (f->variance && !parse_positive ("--variance", f->variance, &a->variance, error))
    return FALSE;
  if (f->max_seconds && !parse_positive ("--max-seconds", f->max_seconds, &a->max_seconds, error))
    return FALSE;
  if (f->lengthscale && !parse_lengthscales (f->lengthscale, a, error))
    return FALSE;
  a->method_given = f->method != NULL;
  return !f->method || parse_methods (f->method, a, error);
}

static gboolean
check_skew_dim (const ClsArgs *a, GError **error)
{
  if (a->skew_dim > 0)
    for (gsize k = 0; k < a->n_methods; k++)
      if (a->methods[k] != METHOD_SKEWGP)
        return skewgp_input_error (error, "--skew-dim %ld needs --method skewgp only (%s has a "
                                   "GP prior)", a->skew_dim, method_names[a->methods[k]]);
  return TRUE;
}

/* The arguments of a run from the options F (which must outlive A). */
static gboolean
args_from_flags (const ClsFlags *f, ClsArgs *a, GError **error)
{
  *a = (ClsArgs) {
    .train = f->train, .test = f->test, .data = f->data,
    .kernel = SG_KERNEL_RBF, .variance = 1,
    .samples = DEFAULT_SAMPLES, .fit_evals = DEFAULT_FIT_EVALS,
    .fit = f->fit, .standardize = f->standardize, .exact_probability = f->exact_probability,
  };
  if (!read_counts (f, a, error) || !read_model (f, a, error))
    return FALSE;
  gboolean cv_mode = a->cv > 0 || a->data != NULL;
  if (cv_mode)
    {
      if (a->cv == 0 || a->data == NULL)
        return skewgp_input_error (error, "cross-validation needs both --cv K and --data FILE");
      if (a->train || a->test)
        return skewgp_input_error (error, "--train/--test cannot be combined with --cv");
    }
  else
    {
      if (a->train == NULL || a->test == NULL)
        return skewgp_input_error (error, "--train and --test are required (or --cv K --data "
                                   "FILE; see skewgp classify --help)");
      if (a->method_given && a->n_methods != 1)
        return skewgp_input_error (error, "--train/--test take exactly one --method");
    }
  return !a->method_given || check_skew_dim (a, error);
}

/* The default methods, once the training set's size N_TRAIN is known
 * (SVGP_CROSSOVER), and the --skew-dim check that needs them. */
static gboolean
resolve_methods (ClsArgs *a, gsize n_train, GError **error)
{
  if (a->method_given)
    return TRUE;
  if (n_train >= SVGP_CROSSOVER)
    parse_methods ("svgp", a, NULL);
  else
    parse_methods (a->cv > 0 ? "skewgp,laplace,ep" : "ep", a, NULL);
  return check_skew_dim (a, error);
}

/* ---- Data ---------------------------------------------------------------- */

typedef struct {
  gsize n, dim;
  double *X;           /* n x dim */
  gsize n_classes;     /* labelled tables: the classes (skewgp_csv_classes) */
  char **class_names;  /* n_classes names, NULL-terminated                  */
  gsize *cls;          /* n class indices, or NULL for unlabelled test rows */
} ClsTable;

static void
cls_table_clear (ClsTable *t)
{
  g_clear_pointer (&t->X, g_free);
  g_clear_pointer (&t->cls, g_free);
  g_clear_pointer (&t->class_names, g_strfreev);
}

/* Splits a CSV into inputs (all columns but the last when LABELLED) and
 * class labels. */
static gboolean
table_from_csv (const SkewgpCsv *csv, const char *path, gboolean labelled, ClsTable *t,
                GError **error)
{
  memset (t, 0, sizeof *t);
  t->n = csv->rows;
  t->dim = labelled ? csv->cols - 1 : csv->cols;
  if (t->dim == 0)
    return skewgp_input_error (error, "%s: needs at least one input column before the label", path);
  t->X = g_new (double, t->n * t->dim);
  for (gsize i = 0; i < t->n; i++)
    memcpy (t->X + i * t->dim, csv->values + i * csv->cols, t->dim * sizeof (double));
  if (labelled)
    {
      t->cls = g_new (gsize, t->n);
      skewgp_csv_classes (csv, &t->class_names, &t->n_classes, t->cls);
    }
  return TRUE;
}

static gboolean
check_classes (const ClsTable *t, const char *path, GError **error)
{
  if (t->n_classes < 2)
    return skewgp_input_error (error, "%s: all %" G_GSIZE_FORMAT " rows have label '%s'; "
                               "classification needs at least two classes", path, t->n,
                               t->class_names[0]);
  return TRUE;
}

/* Rows of each class. */
static void
class_counts (const ClsTable *t, gsize *count)
{
  memset (count, 0, t->n_classes * sizeof *count);
  for (gsize i = 0; i < t->n; i++)
    count[t->cls[i]]++;
}

static void
reading_progress (gsize rows, gpointer data)
{
  fprintf (stderr, "\r%s: %" G_GSIZE_FORMAT " rows read", (const char *) data, rows);
  fflush (stderr);
}

/* Whether every method is one of paper 004's sparse models: their tables
 * are streamed (skewgp-csv.h), with no 64 MiB bound. */
static gboolean
all_svgp (const ClsArgs *a)
{
  if (!a->method_given)
    return FALSE;
  for (gsize m = 0; m < a->n_methods; m++)
    if (a->methods[m] != METHOD_SVGP && a->methods[m] != METHOD_SVGP_SOFTMAX)
      return FALSE;
  return TRUE;
}

static gboolean
read_table (const ClsArgs *a, const char *path, gboolean labelled, ClsTable *t,
            GError **error)
{
  if (all_svgp (a))
    {
      SkewgpCsvStream st;
      gboolean tty = isatty (STDERR_FILENO);
      gboolean ok = skewgp_csv_stream (path, labelled, &st, tty ? reading_progress : NULL,
                                       (gpointer) path, error);
      if (tty)
        fprintf (stderr, "\r%s: %" G_GSIZE_FORMAT " rows read\n", path, st.rows);
      memset (t, 0, sizeof *t);
      if (ok)
        *t = (ClsTable) { .n = st.rows, .dim = st.dim, .X = g_steal_pointer (&st.X),
                          .n_classes = st.n_classes,
                          .class_names = g_steal_pointer (&st.class_names),
                          .cls = g_steal_pointer (&st.cls) };
      skewgp_csv_stream_clear (&st);
      return ok;
    }
  SkewgpCsv csv;
  gboolean ok = skewgp_csv_read (path, labelled, &csv, error)
                && table_from_csv (&csv, path, labelled, t, error);
  skewgp_csv_clear (&csv);
  return ok;
}

/* Column means and sds of the training inputs; a constant column keeps
 * scale 1. Applied in place to X (n x dim). */
static void
standardize_stats (const double *X, gsize n, gsize dim, double *mu, double *sd)
{
  for (gsize j = 0; j < dim; j++)
    {
      double s = 0, s2 = 0;
      for (gsize i = 0; i < n; i++)
        s += X[i * dim + j];
      mu[j] = s / (double) n;
      for (gsize i = 0; i < n; i++)
        s2 += (X[i * dim + j] - mu[j]) * (X[i * dim + j] - mu[j]);
      sd[j] = n > 1 ? sqrt (s2 / (double) (n - 1)) : 0;
      if (!(sd[j] > 0))
        sd[j] = 1;
    }
}

static void
standardize_apply (double *X, gsize n, gsize dim, const double *mu, const double *sd)
{
  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < dim; j++)
      X[i * dim + j] = (X[i * dim + j] - mu[j]) / sd[j];
}

/* ---- One training run ---------------------------------------------------- */

static gboolean
numeric_error (GError **error, const char *method, const char *what, int status)
{
  g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_NUMERIC, "%s: %s: %s", method,
               what, sg_strerror (status));
  return FALSE;
}

/* Pseudo-points for a SkewGP_s prior: s training inputs drawn at random,
 * alternately of class +1 and -1, phase = the class (see --help). */
static void
choose_pseudo_points (const double *X, const int *y, gsize n, gsize dim, gsize s,
                      guint64 seed, ClsRun *run)
{
  gsl_rng *rng = sg_rng_new (seed, 1);
  for (gsize i = 0; i < s; i++)
    {
      int cls = i % 2 == 0 ? 1 : -1;
      gsize count = 0;
      for (gsize r = 0; r < n; r++)
        count += y[r] == cls;
      gsize pick = (gsize) gsl_rng_uniform_int (rng, count), r = 0;
      for (;; r++)
        if (y[r] == cls && pick-- == 0)
          break;
      memcpy (run->pseudo_points + i * dim, X + r * dim, dim * sizeof (double));
      run->phases[i] = cls;
      run->gamma[i] = 0;
    }
  sg_rng_free (rng);
}

static void
init_hyper (const ClsArgs *a, ClsMethod method, gsize dim, ClsRun *run)
{
  sg_hyper *h = &run->hyper;
  sg_kernel_clear (&h->kernel);
  memset (h, 0, sizeof *h);
  double l0 = a->n_lengthscales > 0 ? a->lengthscales[0] : sqrt ((double) dim);
  if (sg_kernel_init (&h->kernel, a->kernel, dim, a->variance, l0) != SG_OK)
    g_error ("out of memory for a kernel of %" G_GSIZE_FORMAT " inputs", dim);
  g_free (run->pseudo_points);
  run->pseudo_points = g_new (double, MAX_SKEW_DIM * dim);
  if (a->n_lengthscales == dim)
    memcpy (h->kernel.lengthscales, a->lengthscales, dim * sizeof (double));
  h->mean = 0;
  h->noise.numeric_sd = 1;
  h->noise.probit_sd = 1;
  h->s = method == METHOD_SKEWGP ? (size_t) a->skew_dim : 0;
  h->pseudo_points = run->pseudo_points;
  h->phases = run->phases;
  h->gamma = run->gamma;
}

static sg_fit_method
fit_method_of (ClsMethod m)
{
  return m == METHOD_SKEWGP ? SG_FIT_METHOD_SKEWGP
         : m == METHOD_EP   ? SG_FIT_METHOD_EP
                            : SG_FIT_METHOD_LAPLACE;
}

/* Tied lengthscales: sg_fit sees a one-dimensional proxy kernel, this
 * evidence function copies its lengthscale into every coordinate of the
 * real kernel. */
typedef struct {
  sg_evidence_ctx *inner;
  const sg_hyper *full;
  sg_kernel *work;       /* a copy of full's kernel that the fit may write */
} TiedCtx;

static sg_status
tied_evidence (const sg_hyper *proxy, void *user_data, double *log_evidence, double *error)
{
  const TiedCtx *c = user_data;
  sg_hyper h = *c->full;
  h.kernel = *c->work;
  h.kernel.variance = proxy->kernel.variance;
  for (size_t j = 0; j < h.kernel.dim; j++)
    h.kernel.lengthscales[j] = proxy->kernel.lengthscales[0];
  h.gamma = proxy->gamma;
  return sg_evidence_eval (&h, c->inner, log_evidence, error);
}

static gboolean
fit_hyper (const ClsArgs *a, ClsMethod method, const sg_data *data, ClsRun *run,
           GError **error)
{
  sg_hyper *h = &run->hyper;
  gsize dim = h->kernel.dim;
  gboolean tied = a->n_lengthscales != dim && dim > 1;
  unsigned free_mask = SG_FIT_VARIANCE | SG_FIT_LENGTHSCALES | (h->s > 0 ? SG_FIT_GAMMA : 0);
  g_auto (sg_fit_spec) spec = { 0 };
  int status = sg_fit_spec_default (&spec, free_mask, dim, data);
  if (status != SG_OK)
    return numeric_error (error, method_names[method], "fit setup", status);
  /* Separable training data make the evidence grow with the variance
   * without bound; cap it (the latent scale beyond 10 sd is immaterial
   * for probabilities). */
  spec.variance.upper = FIT_VARIANCE_MAX;

  sg_evidence_ctx ctx;
  sg_evidence_ctx_init (&ctx, fit_method_of (method), data);
  ctx.link = method == METHOD_LAPLACE_LOGISTIC ? SG_LINK_LOGISTIC : SG_LINK_PROBIT;
  ctx.mvn.n_points = FIT_MVN_POINTS;
  ctx.mvn.seed = a->seed;
  sg_mvn_workspace *w = NULL;
  if (method == METHOD_SKEWGP)
    {
      w = sg_mvn_workspace_new (h->s + data->n_obs);
      if (w == NULL)
        return numeric_error (error, method_names[method], "fit", SG_ENOMEM);
      ctx.workspace = w;
    }
  sg_fit_options opt;
  sg_fit_options_default (&opt);
  opt.n_starts = DEFAULT_FIT_STARTS;
  opt.max_evals = (size_t) a->fit_evals;
  gsl_rng *rng = sg_rng_new (a->seed, 2);
  sg_fit_result res;

  if (tied)
    {
      g_auto (sg_kernel) one = { 0 }, work = { 0 };
      sg_hyper proxy = *h;
      double lo = INFINITY, hi = 0;
      for (gsize j = 0; j < dim; j++)
        {
          lo = fmin (lo, spec.lengthscale[j].lower);
          hi = fmax (hi, spec.lengthscale[j].upper);
        }
      g_auto (sg_fit_spec) spec1 = { 0 };
      status = sg_fit_spec_default (&spec1, free_mask, 1, NULL);
      if (status == SG_OK)
        status = sg_kernel_init (&one, h->kernel.type, 1, h->kernel.variance,
                                 h->kernel.lengthscales[0]);
      if (status == SG_OK)
        status = sg_kernel_copy (&work, &h->kernel);
      if (status == SG_OK)
        {
          spec1.variance = spec.variance;
          spec1.gamma = spec.gamma;
          spec1.lengthscale[0] = (sg_fit_range) { lo, hi };
          proxy.kernel = one;
          TiedCtx tc = { &ctx, h, &work };
          status = sg_fit (&spec1, tied_evidence, &tc, &opt, rng, NULL, &proxy, &res);
        }
      if (status == SG_OK)
        {
          h->kernel.variance = proxy.kernel.variance;
          for (gsize j = 0; j < dim; j++)
            h->kernel.lengthscales[j] = proxy.kernel.lengthscales[0];
        }
    }
  else
    status = sg_fit (&spec, sg_evidence_eval, &ctx, &opt, rng, NULL, h, &res);
  sg_rng_free (rng);
  sg_mvn_workspace_free (w);
  if (status != SG_OK)
    return numeric_error (error, method_names[method], "hyperparameter fit", status);
  run->log_evidence = res.log_evidence;
  return TRUE;
}

static gboolean
predict_skewgp (const ClsArgs *a, const sg_data *data, const double *Xte, gsize nte,
                ClsRun *run, GError **error)
{
  const char *name = method_names[METHOD_SKEWGP];
  sg_skewgp_prior prior;
  sg_hyper_skewgp_prior (&run->hyper, &prior);
  sg_likelihood lik = { 0 };
  sg_skewgp_posterior *post = NULL;
  sg_skewgp_samples *samples = NULL;
  sg_mvn_workspace *w = NULL;
  gsl_rng *rng = sg_rng_new (a->seed, 3);
  sg_point_summary *sum = g_new (sg_point_summary, nte);
  gboolean ok = FALSE;

  int status = sg_likelihood_build (data, &run->hyper.noise, &lik);
  if (status == SG_OK)
    status = sg_skewgp_posterior_new (&prior, data->X, &lik, &post);
  if (status != SG_OK)
    {
      numeric_error (error, name, "posterior", status);
      goto out;
    }
  status = sg_skewgp_sample (post, (size_t) a->samples, NULL, rng, NULL, &samples);
  if (status != SG_OK)
    {
      numeric_error (error, name, "posterior sampling", status);
      goto out;
    }
  sg_summary_options so;
  sg_summary_options_default (&so);
  so.fields = SG_SUMMARY_MOMENTS | SG_SUMMARY_CLASS_PROB;
  so.probit_sd = run->hyper.noise.probit_sd;
  status = sg_skewgp_summarize (post, samples, Xte, nte, &so, NULL, sum);
  if (status != SG_OK)
    {
      numeric_error (error, name, "summaries", status);
      goto out;
    }
  for (gsize i = 0; i < nte; i++)
    {
      run->prob[i] = sum[i].class_probability;
      run->mean[i] = sum[i].mean;
      run->sd[i] = sum[i].sd;
    }
  if (a->exact_probability)
    {
      w = sg_mvn_workspace_new (sg_skewgp_posterior_n_latent (post) + 1);
      sg_mvn_options mo;
      sg_mvn_options_default (&mo);
      mo.seed = a->seed;
      for (gsize i = 0; i < nte && status == SG_OK; i++)
        {
          double err;
          status = w ? sg_skewgp_class_probability_exact (post, Xte + i * data->dim, w, &mo, NULL,
                                                          &run->prob[i], &err)
                     : SG_ENOMEM;
        }
      if (status != SG_OK)
        {
          numeric_error (error, name, "exact class probability", status);
          goto out;
        }
    }
  ok = TRUE;
out:
  g_free (sum);
  sg_mvn_workspace_free (w);
  sg_skewgp_samples_free (samples);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_rng_free (rng);
  return ok;
}

static sg_status
run_ep (const sg_approx_model *model, const sg_data *data, sg_gauss_post *post)
{
  int status = sg_ep_posterior (model, data, NULL, NULL, NULL, post);
  if (status == SG_ENUMERIC)
    {
      /* Undamped EP can oscillate on nearly separable data; damping is the
       * standard remedy (Minka 2001). */
      sg_ep_options opt;
      sg_ep_options_default (&opt);
      opt.max_sweeps = 1000;
      opt.damping = 0.5;
      status = sg_ep_posterior (model, data, &opt, NULL, NULL, post);
    }
  return status;
}

static gboolean
predict_gaussian (ClsMethod method, const sg_data *data, const double *Xte, gsize nte,
                  ClsRun *run, GError **error)
{
  sg_approx_model model;
  sg_hyper_approx_model (&run->hyper,
                         method == METHOD_LAPLACE_LOGISTIC ? SG_LINK_LOGISTIC : SG_LINK_PROBIT,
                         &model);
  sg_gauss_post post = { 0 };
  int status = method == METHOD_EP ? run_ep (&model, data, &post)
                                   : sg_laplace_posterior (&model, data, NULL, NULL, NULL, &post);
  if (status != SG_OK)
    return numeric_error (error, method_names[method], "posterior", status);
  if (!isfinite (run->log_evidence))
    run->log_evidence = post.log_evidence;
  sg_point_summary *sum = g_new (sg_point_summary, nte);
  status = sg_gauss_post_summaries (&post, Xte, nte, 0.95, NULL, sum);
  if (status == SG_OK)
    for (gsize i = 0; i < nte; i++)
      {
        run->prob[i] = sum[i].class_probability;
        run->mean[i] = sum[i].mean;
        run->sd[i] = sum[i].sd;
      }
  g_free (sum);
  sg_gauss_post_clear (&post);
  if (status != SG_OK)
    return numeric_error (error, method_names[method], "predictions", status);
  return TRUE;
}

static double
now_seconds (void)
{
  return (double) g_get_monotonic_time () * 1e-6;
}

/* A progress line on standard error while svgp trains, when it is a
 * terminal (nothing otherwise: scripts and logs stay clean). */
typedef struct {
  const char *what;
  double t0, last;
} TermProgress;

static int
term_progress (double fraction, void *user_data)
{
  TermProgress *p = user_data;
  double t = now_seconds ();
  if (fraction < 1 && t - p->last < 0.5)
    return 0;
  p->last = t;
  fprintf (stderr, "\r%s: %3.0f%%  %.0f s%s", p->what, 100 * fraction, t - p->t0,
           fraction >= 1 ? "\n" : "");
  fflush (stderr);
  return 0;
}

/* The progress of P on a terminal, or no progress (NULL). */
static const sg_progress *
term_progress_init (TermProgress *p, sg_progress *out, const char *what)
{
  if (!isatty (STDERR_FILENO))
    return NULL;
  *p = (TermProgress) { what, now_seconds (), 0 };
  *out = (sg_progress) { term_progress, p };
  return out;
}

/* The options both sparse models take from the command line: inducing
 * points (at most the NTR training rows), minibatch, steps, time budget;
 * the model's defaults where an option is not given. */
static void
training_sizes (const ClsArgs *a, gsize ntr, size_t *n_inducing, size_t *batch,
                size_t *iterations, double *max_seconds)
{
  gsize M = a->inducing > 0 ? (gsize) a->inducing : DEFAULT_SVGP_INDUCING;
  *n_inducing = MIN (M, ntr);
  if (a->batch > 0)
    *batch = (size_t) a->batch;
  if (a->iterations > 0)
    *iterations = (size_t) a->iterations;
  *max_seconds = a->max_seconds;
}

/* Paper 004's sparse variational GP on the training rows (no sg_data: its
 * duplicate-input lookup is quadratic in n and SVGP does not need it). */
static gboolean
predict_svgp (const ClsArgs *a, const double *Xtr, const int *ytr, gsize ntr, gsize dim,
              const double *Xte, gsize nte, ClsRun *run, GError **error)
{
  const char *name = method_names[METHOD_SVGP];
  g_autofree double *y = g_new (double, ntr);
  for (gsize i = 0; i < ntr; i++)
    y[i] = ytr[i];
  sg_svgp_data data = { .dim = dim, .n = ntr, .X = Xtr, .X2 = NULL, .y = y };
  sg_svgp_options opt;
  sg_svgp_options_default (&opt);
  training_sizes (a, ntr, &opt.n_inducing, &opt.train.batch, &opt.train.iterations,
                  &opt.train.max_seconds);
  opt.noise_sd = run->hyper.noise.probit_sd;
  opt.train.fix_kernel = !a->fit;
  TermProgress tp;
  sg_progress pr;
  const sg_progress *progress = term_progress_init (&tp, &pr, "svgp: training");
  gsl_rng *rng = sg_rng_new (a->seed, 4);
  sg_svgp q;
  int status = sg_svgp_fit (&run->hyper.kernel, &data, &opt, rng, progress, &q);
  sg_rng_free (rng);
  if (status != SG_OK)
    return numeric_error (error, name, "training", status);
  sg_kernel_memcpy (&run->hyper.kernel, &q.kernel);
  run->log_evidence = q.elbo;
  run->delta = q.delta;
  run->inducing = q.M;
  run->iterations = q.iterations;
  sg_point_summary *sum = g_new (sg_point_summary, nte > 0 ? nte : 1);
  status = sg_svgp_summaries (&q, Xte, nte, 0.95, NULL, sum);
  if (status == SG_OK)
    for (gsize i = 0; i < nte; i++)
      {
        run->prob[i] = sum[i].class_probability;
        run->mean[i] = sum[i].mean;
        run->sd[i] = sum[i].sd;
      }
  g_free (sum);
  sg_svgp_clear (&q);
  if (status != SG_OK)
    return numeric_error (error, name, "predictions", status);
  return TRUE;
}

/* Paper 004's multi-class models (sg-svgp-multi.h): METHOD svgp is the
 * robust step likelihood with Gaussian noise (GPC-II), svgp-softmax the
 * softmax (GPCsm). The kernel is the given one (held). */
static gboolean
predict_svgp_multi (const ClsArgs *a, ClsMethod method, const double *Xtr, const gsize *cls,
                    gsize ntr, gsize n_classes, gsize dim, const double *Xte, gsize nte,
                    ClsRun *run, GError **error)
{
  const char *name = method_names[method];
  sg_svgp_multi_data data = { .dim = dim, .n = ntr, .n_classes = n_classes, .X = Xtr,
                              .y = cls };
  sg_svgp_multi_options opt;
  sg_svgp_multi_options_default (&opt);
  opt.lik = method == METHOD_SVGP_SOFTMAX ? SG_SVGP_MULTI_SOFTMAX : SG_SVGP_MULTI_PROBIT;
  training_sizes (a, ntr, &opt.n_inducing, &opt.batch, &opt.iterations, &opt.max_seconds);
  TermProgress tp;
  sg_progress pr;
  const sg_progress *progress = term_progress_init (&tp, &pr, "svgp: training");
  gsl_rng *rng = sg_rng_new (a->seed, 4);
  sg_svgp_multi q;
  int status = sg_svgp_multi_fit (&run->hyper.kernel, &data, &opt, rng, progress, &q);
  sg_rng_free (rng);
  if (status != SG_OK)
    return numeric_error (error, name, "training", status);
  run->log_evidence = q.elbo;
  run->delta = q.delta;
  run->inducing = q.M;
  run->iterations = q.iterations;
  status = sg_svgp_multi_predict (&q, Xte, nte, run->pclass);
  sg_svgp_multi_clear (&q);
  if (status != SG_OK)
    return numeric_error (error, name, "predictions", status);
  return TRUE;
}

/* Trains the binary METHOD on (XTR, YTR), y = +-1, and predicts the NTE
 * rows of XTE into RUN's prob, mean and sd. */
static gboolean
train_and_predict (const ClsArgs *a, ClsMethod method, const double *tr, const int *ytr,
                   gsize ntr, gsize dim, const double *te, gsize nte, ClsRun *run,
                   GError **error)
{
  init_hyper (a, method, dim, run);
  run->log_evidence = NAN;
  run->delta = NAN;
  run->inducing = 0;
  if (method == METHOD_SVGP)
    return predict_svgp (a, tr, ytr, ntr, dim, te, nte, run, error);
  if (run->hyper.s > 0)
    choose_pseudo_points (tr, ytr, ntr, dim, run->hyper.s, a->seed, run);

  sg_data data;
  sg_data_init (&data, dim);
  gboolean ok = TRUE;
  for (gsize i = 0; i < ntr && ok; i++)
    ok = sg_data_add_binary (&data, tr + i * dim, ytr[i]) == SG_OK;
  if (!ok)
    {
      sg_data_clear (&data);
      return numeric_error (error, method_names[method], "training data", SG_ENOMEM);
    }
  if (a->fit)
    ok = fit_hyper (a, method, &data, run, error);
  if (ok)
    ok = method == METHOD_SKEWGP ? predict_skewgp (a, &data, te, nte, run, error)
                                 : predict_gaussian (method, &data, te, nte, run, error);
  sg_data_clear (&data);
  return ok;
}

/* One-vs-rest (000 sec. 7.2): a binary classifier per class, class c
 * against the others, and P(c) = p_c / sum_k p_k. */
static gboolean
one_vs_rest (const ClsArgs *a, ClsMethod method, const double *tr, const gsize *cls,
             gsize ntr, gsize n_classes, gsize dim, const double *te, gsize nte, ClsRun *run,
             GError **error)
{
  g_autofree int *y = g_new (int, ntr);
  run->ovr = json_builder_new ();
  json_builder_begin_array (run->ovr);
  for (gsize c = 0; c < n_classes; c++)
    {
      for (gsize i = 0; i < ntr; i++)
        y[i] = cls[i] == c ? 1 : -1;
      if (!train_and_predict (a, method, tr, y, ntr, dim, te, nte, run, error))
        {
          g_prefix_error (error, "class %" G_GSIZE_FORMAT " against the rest: ", c);
          return FALSE;
        }
      for (gsize i = 0; i < nte; i++)
        run->pclass[i * n_classes + c] = run->prob[i];
      add_hyper_json (run->ovr, run);
    }
  json_builder_end_array (run->ovr);
  for (gsize i = 0; i < nte; i++)
    {
      double *p = run->pclass + i * n_classes, sum = 0;
      for (gsize c = 0; c < n_classes; c++)
        sum += p[c];
      for (gsize c = 0; c < n_classes; c++)
        p[c] = sum > 0 ? p[c] / sum : 1.0 / (double) n_classes;
    }
  return TRUE;
}

/* Trains METHOD on the NTR rows TR of classes CLS and predicts the NTE
 * rows TE: RUN's pclass (nte x n_classes) always; with two classes and a
 * binary method also prob (P of the second class), mean and sd. With
 * --standardize TR and TE are standardised in place (the callers' copies:
 * a million rows are not copied again). */
static gboolean
predict_classes (const ClsArgs *a, ClsMethod method, double *tr, const gsize *cls,
                 gsize ntr, gsize n_classes, gsize dim, double *te, gsize nte,
                 ClsRun *run, GError **error)
{
  double t0 = now_seconds ();
  if (a->standardize)
    {
      g_autofree double *mu = g_new (double, dim), *sd = g_new (double, dim);
      standardize_stats (tr, ntr, dim, mu, sd);
      standardize_apply (tr, ntr, dim, mu, sd);
      standardize_apply (te, nte, dim, mu, sd);
    }
  g_clear_object (&run->ovr);
  g_free (run->pclass);
  run->pclass = g_new (double, (nte > 0 ? nte : 1) * n_classes);
  run->iterations = 0;
  gboolean ok;
  if (method == METHOD_SVGP_SOFTMAX || (method == METHOD_SVGP && n_classes > 2))
    {
      init_hyper (a, method, dim, run);
      run->log_evidence = run->delta = NAN;
      ok = predict_svgp_multi (a, method, tr, cls, ntr, n_classes, dim, te, nte, run, error);
    }
  else if (n_classes == 2)
    {
      g_autofree int *y = g_new (int, ntr);
      for (gsize i = 0; i < ntr; i++)
        y[i] = cls[i] == 1 ? 1 : -1;
      ok = train_and_predict (a, method, tr, y, ntr, dim, te, nte, run, error);
      for (gsize i = 0; ok && i < nte; i++)
        {
          run->pclass[2 * i] = 1 - run->prob[i];
          run->pclass[2 * i + 1] = run->prob[i];
        }
    }
  else
    ok = one_vs_rest (a, method, tr, cls, ntr, n_classes, dim, te, nte, run, error);
  run->seconds = now_seconds () - t0;
  return ok;
}

/* ---- Train/test mode ----------------------------------------------------- */

static int
report_failure (GError *error)
{
  fprintf (stderr, "skewgp classify: %s\n", error->message);
  return g_error_matches (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_NUMERIC)
           ? SKEWGP_EXIT_NUMERIC : SKEWGP_EXIT_INPUT;
}

/* The most likely class of probability row P (the first on ties; two
 * classes: the second from 1/2 on, as P(y = 1) >= 0.5 predicts 1). */
static gsize
predicted_class (const double *p, gsize n_classes)
{
  if (n_classes == 2)
    return p[1] >= 0.5;
  gsize best = 0;
  for (gsize c = 1; c < n_classes; c++)
    if (p[c] > p[best])
      best = c;
  return best;
}

static gboolean
binary_output (const ClsArgs *a, gsize n_classes)
{
  return n_classes == 2 && a->methods[0] != METHOD_SVGP_SOFTMAX;
}

static GString *
train_test_csv (const ClsArgs *a, const ClsTable *train, const ClsRun *run, gsize nte)
{
  char b1[G_ASCII_DTOSTR_BUF_SIZE], b2[G_ASCII_DTOSTR_BUF_SIZE], b3[G_ASCII_DTOSTR_BUF_SIZE];
  gsize C = train->n_classes;
  if (binary_output (a, C))
    {
      GString *out = g_string_new ("probability,latent_mean,latent_sd\n");
      for (gsize i = 0; i < nte; i++)
        g_string_append_printf (out, "%s,%s,%s\n",
                                g_ascii_formatd (b1, sizeof b1, "%.10g", run->prob[i]),
                                g_ascii_formatd (b2, sizeof b2, "%.10g", run->mean[i]),
                                g_ascii_formatd (b3, sizeof b3, "%.10g", run->sd[i]));
      return out;
    }
  GString *out = g_string_new ("class");
  for (gsize c = 0; c < C; c++)
    g_string_append_printf (out, ",p_%s", train->class_names[c]);
  g_string_append_c (out, '\n');
  for (gsize i = 0; i < nte; i++)
    {
      const double *p = run->pclass + i * C;
      g_string_append (out, train->class_names[predicted_class (p, C)]);
      for (gsize c = 0; c < C; c++)
        g_string_append_printf (out, ",%s", g_ascii_formatd (b1, sizeof b1, "%.10g", p[c]));
      g_string_append_c (out, '\n');
    }
  return out;
}

static int
run_train_test (ClsArgs *a)
{
  g_autoptr (GError) error = NULL;
  ClsTable train = { 0 }, test = { 0 };
  SkewgpCsv test_csv = { 0 };
  ClsRun run = { 0 };
  int code = SKEWGP_EXIT_OK;

  if (!read_table (a, a->train, TRUE, &train, &error)
      || !check_classes (&train, a->train, &error)
      || !resolve_methods (a, train.n, &error)
      || !skewgp_csv_read (a->test, TRUE, &test_csv, &error))
    goto fail;
  if (test_csv.cols != train.dim + 1 && test_csv.cols != train.dim)
    {
      skewgp_input_error (&error, "%s has %" G_GSIZE_FORMAT " columns; expected %" G_GSIZE_FORMAT
                   " (inputs and label, as %s) or %" G_GSIZE_FORMAT " (inputs only)",
                   a->test, test_csv.cols, train.dim + 1, a->train, train.dim);
      goto fail;
    }
  /* a label column (numbers or names) is read but not used; without one
   * the last column is an input */
  gboolean labelled = test_csv.cols == train.dim + 1;
  if (!labelled)
    {
      skewgp_csv_clear (&test_csv);
      if (!skewgp_csv_read (a->test, FALSE, &test_csv, &error))
        goto fail;
    }
  if (!table_from_csv (&test_csv, a->test, labelled, &test, &error))
    goto fail;
  if ((gsize) a->n_lengthscales > 1 && a->n_lengthscales != train.dim)
    {
      skewgp_input_error (&error, "--lengthscale has %" G_GSIZE_FORMAT " values; %s has %"
                   G_GSIZE_FORMAT " inputs (give 1 or %" G_GSIZE_FORMAT ")",
                   a->n_lengthscales, a->train, train.dim, train.dim);
      goto fail;
    }
  run.prob = g_new (double, test.n);
  run.mean = g_new (double, test.n);
  run.sd = g_new (double, test.n);
  if (!predict_classes (a, a->methods[0], train.X, train.cls, train.n, train.n_classes,
                        train.dim, test.X, test.n, &run, &error))
    goto fail;
  GString *out = train_test_csv (a, &train, &run, test.n);
  fputs (out->str, stdout);
  g_string_free (out, TRUE);
  goto done;
fail:
  code = report_failure (error);
done:
  cls_run_clear (&run);
  skewgp_csv_clear (&test_csv);
  cls_table_clear (&train);
  cls_table_clear (&test);
  return code;
}

/* ---- Cross-validation ---------------------------------------------------- */

/* Stratified folds: each class is shuffled, the classes are concatenated
 * (the last class first) and row k of that list goes to fold k mod K, so
 * every fold gets floor or ceil of n_class / K rows of each class. */
static void
stratified_folds (const gsize *cls, gsize n_classes, gsize n, gsize k, guint64 seed,
                  gsize *fold)
{
  gsize *order = g_new (gsize, n);
  gsize pos = 0;
  gsl_rng *rng = sg_rng_new (seed, 0);
  for (gsize c = n_classes; c-- > 0;)
    {
      gsize start = pos;
      for (gsize i = 0; i < n; i++)
        if (cls[i] == c)
          order[pos++] = i;
      gsl_ran_shuffle (rng, order + start, pos - start, sizeof (gsize));
    }
  for (gsize r = 0; r < n; r++)
    fold[order[r]] = r % k;
  sg_rng_free (rng);
  g_free (order);
}

/* P clipped to [P_CLIP, 1 - P_CLIP]. */
static double
clip_prob (double p)
{
  return fmin (fmax (p, P_CLIP), 1 - P_CLIP);
}

typedef struct {
  double info_sum, nll_sum, correct;  /* over all rows */
  double *fold_info, *fold_acc;       /* per fold */
  gsize *confusion;                   /* C x C: true class row, predicted column */
  double seconds;
  JsonBuilder *hyper;                 /* array of per-fold hyperparameters */
} CvScore;

static void
add_hyper_json (JsonBuilder *b, const ClsRun *run)
{
  const sg_hyper *h = &run->hyper;
  json_builder_begin_object (b);
  skewgp_add_double (b, "variance", h->kernel.variance);
  skewgp_add_vector (b, "lengthscales", h->kernel.lengthscales, h->kernel.dim);
  if (h->s > 0)
    {
      skewgp_add_vector (b, "gamma", h->gamma, h->s);
      skewgp_add_vector (b, "phases", h->phases, h->s);
      skewgp_add_matrix (b, "pseudo_points", h->pseudo_points, h->s, h->kernel.dim);
    }
  if (run->inducing > 0)
    {
      sb_json_add_number (b, "delta", run->delta);
      sb_json_add_int (b, "inducing", (gint64) run->inducing);
      sb_json_add_int (b, "iterations", (gint64) run->iterations);
    }
  sb_json_add_number (b, "log_evidence", run->log_evidence);
  skewgp_add_double (b, "seconds", run->seconds);
  json_builder_end_object (b);
}

/* Scores of one fold's NTE held-out rows of classes CLS. */
static void
score_fold (const ClsRun *run, const gsize *cls, gsize nte, gsize C, gsize f, CvScore *score)
{
  double info = 0, correct = 0;
  for (gsize i = 0; i < nte; i++)
    {
      const double *p = run->pclass + i * C;
      gsize pred = predicted_class (p, C);
      correct += pred == cls[i];
      score->confusion[cls[i] * C + pred]++;
      score->nll_sum -= log (clip_prob (p[cls[i]]));
      if (C == 2)
        info += log2 (clip_prob (p[cls[i]]));
    }
  score->info_sum += info;
  score->correct += correct;
  score->fold_info[f] = 1 + info / (double) nte;
  score->fold_acc[f] = correct / (double) nte;
  score->seconds += run->seconds;
}

static gboolean
cv_method (const ClsArgs *a, ClsMethod method, const ClsTable *t, const gsize *fold,
           CvScore *score, GError **error)
{
  gsize k = (gsize) a->cv, dim = t->dim, C = t->n_classes;
  double *Xtr = g_new (double, t->n * dim), *Xte = g_new (double, t->n * dim);
  gsize *ctr = g_new (gsize, t->n), *cte = g_new (gsize, t->n);
  ClsRun run = { 0 };
  run.prob = g_new (double, t->n);
  run.mean = g_new (double, t->n);
  run.sd = g_new (double, t->n);
  gboolean ok = TRUE;
  score->hyper = json_builder_new ();
  json_builder_begin_array (score->hyper);
  for (gsize f = 0; f < k && ok; f++)
    {
      gsize ntr = 0, nte = 0;
      for (gsize i = 0; i < t->n; i++)
        {
          gboolean held_out = fold[i] == f;
          double *dst = held_out ? Xte + nte * dim : Xtr + ntr * dim;
          memcpy (dst, t->X + i * dim, dim * sizeof (double));
          if (held_out)
            cte[nte++] = t->cls[i];
          else
            ctr[ntr++] = t->cls[i];
        }
      ok = predict_classes (a, method, Xtr, ctr, ntr, C, dim, Xte, nte, &run, error);
      if (!ok)
        {
          g_prefix_error (error, "fold %" G_GSIZE_FORMAT ": ", f + 1);
          break;
        }
      score_fold (&run, cte, nte, C, f, score);
      if (run.ovr)
        json_builder_add_value (score->hyper, json_builder_get_root (run.ovr));
      else
        add_hyper_json (score->hyper, &run);
    }
  json_builder_end_array (score->hyper);
  g_free (Xtr);
  g_free (Xte);
  g_free (ctr);
  g_free (cte);
  cls_run_clear (&run);
  return ok;
}

static void
add_cv_method_json (JsonBuilder *b, const ClsArgs *a, ClsMethod method, gsize n, gsize C,
                    const CvScore *sc)
{
  json_builder_begin_object (b);
  sb_json_add_string (b, "method", method_names[method]);
  if (method == METHOD_SKEWGP)
    sb_json_add_int (b, "skew_dim", a->skew_dim);
  sb_json_add_string (b, "model", method == METHOD_SVGP_SOFTMAX ? "004 softmax (GPCsm)"
                                 : method == METHOD_SVGP && C > 2 ? "004 multi-class probit (GPC-II)"
                                 : C > 2 ? "one-vs-rest" : "binary");
  skewgp_add_double (b, "accuracy", sc->correct / (double) n);
  skewgp_add_double (b, "nll", sc->nll_sum / (double) n);
  if (C == 2)
    skewgp_add_double (b, "information_bits", 1 + sc->info_sum / (double) n);
  skewgp_add_vector (b, "fold_accuracy", sc->fold_acc, (gsize) a->cv);
  if (C == 2)
    skewgp_add_vector (b, "fold_information_bits", sc->fold_info, (gsize) a->cv);
  json_builder_set_member_name (b, "confusion");
  json_builder_begin_array (b);
  for (gsize r = 0; r < C; r++)
    {
      json_builder_begin_array (b);
      for (gsize c = 0; c < C; c++)
        json_builder_add_int_value (b, (gint64) sc->confusion[r * C + c]);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
  skewgp_add_double (b, "seconds", sc->seconds);
  skewgp_add_node (b, "hyperparameters", json_builder_get_root (sc->hyper));
  json_builder_end_object (b);
}

static void
print_cv_result (const ClsArgs *a, const ClsTable *t, const gsize *count, const CvScore *scores)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  gsize C = t->n_classes;
  json_builder_begin_object (b);
  sb_json_add_string (b, "data", a->data);
  sb_json_add_int (b, "n", (gint64) t->n);
  if (C == 2)
    sb_json_add_int (b, "n_positive", (gint64) count[1]);
  sb_json_add_int (b, "dim", (gint64) t->dim);
  json_builder_set_member_name (b, "classes");
  json_builder_begin_array (b);
  for (gsize c = 0; c < C; c++)
    json_builder_add_string_value (b, t->class_names[c]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "class_counts");
  json_builder_begin_array (b);
  for (gsize c = 0; c < C; c++)
    json_builder_add_int_value (b, (gint64) count[c]);
  json_builder_end_array (b);
  sb_json_add_int (b, "folds", a->cv);
  sb_json_add_int (b, "seed", (gint64) a->seed);
  sb_json_add_string (b, "kernel", sg_kernel_type_name (a->kernel));
  sb_json_add_bool (b, "fit", a->fit);
  sb_json_add_bool (b, "standardize", a->standardize);
  sb_json_add_string (b, "nll", "mean_i -log p(y_i | x_i), p clipped to [1e-15, 1-1e-15] "
                               "(natural log; 004 sec. IV)");
  if (C == 2)
    sb_json_add_string (b, "information", "I = 1 + mean_i log2 p(y_i | x_i), p clipped to "
                                         "[1e-15, 1-1e-15] (000 sec. 7.1, Kuss & Rasmussen 2005)");
  sb_json_add_string (b, "confusion", "rows: the true class, columns: the predicted one, "
                                     "in the order of \"classes\"");
  json_builder_set_member_name (b, "methods");
  json_builder_begin_array (b);
  for (gsize m = 0; m < a->n_methods; m++)
    add_cv_method_json (b, a, a->methods[m], t->n, C, &scores[m]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
}

static int
run_cv (ClsArgs *a)
{
  g_autoptr (GError) error = NULL;
  ClsTable t = { 0 };
  CvScore scores[N_METHODS] = { 0 };
  gsize *fold = NULL;
  g_autofree gsize *count = NULL;
  int code = SKEWGP_EXIT_OK;

  if (!read_table (a, a->data, TRUE, &t, &error) || !check_classes (&t, a->data, &error)
      || !resolve_methods (a, t.n - t.n / (gsize) a->cv, &error))
    goto fail;
  count = g_new (gsize, t.n_classes);
  class_counts (&t, count);
  gsize smallest = count[0];
  for (gsize c = 1; c < t.n_classes; c++)
    smallest = MIN (smallest, count[c]);
  if ((gsize) a->cv > smallest)
    {
      skewgp_input_error (&error, "--cv %ld: %s has only %" G_GSIZE_FORMAT " rows of the smallest "
                   "class; every fold needs one", a->cv, a->data, smallest);
      goto fail;
    }
  if (a->n_lengthscales > 1 && a->n_lengthscales != t.dim)
    {
      skewgp_input_error (&error, "--lengthscale has %" G_GSIZE_FORMAT " values; %s has %"
                   G_GSIZE_FORMAT " inputs (give 1 or %" G_GSIZE_FORMAT ")",
                   a->n_lengthscales, a->data, t.dim, t.dim);
      goto fail;
    }
  fold = g_new (gsize, t.n);
  stratified_folds (t.cls, t.n_classes, t.n, (gsize) a->cv, a->seed, fold);
  for (gsize m = 0; m < a->n_methods; m++)
    {
      scores[m].fold_info = g_new0 (double, a->cv);
      scores[m].fold_acc = g_new0 (double, a->cv);
      scores[m].confusion = g_new0 (gsize, t.n_classes * t.n_classes);
      if (!cv_method (a, a->methods[m], &t, fold, &scores[m], &error))
        goto fail;
    }

  print_cv_result (a, &t, count, scores);
  goto done;
fail:
  code = report_failure (error);
done:
  for (gsize m = 0; m < N_METHODS; m++)
    {
      g_free (scores[m].fold_info);
      g_free (scores[m].fold_acc);
      g_free (scores[m].confusion);
      g_clear_object (&scores[m].hyper);
    }
  g_free (fold);
  cls_table_clear (&t);
  return code;
}

/* ---- Entry points -------------------------------------------------------- */

static int
run_classify_argv (int argc, char **argv)
{
  g_auto (ClsFlags) flags = { 0 };
  ClsArgs a = { 0 };
  g_autoptr (GError) error = NULL;
  if (!parse_flags (argc, argv, &flags, &error) || !args_from_flags (&flags, &a, &error))
    {
      fprintf (stderr, "skewgp classify: %s\n", error->message);
      g_free (a.lengthscales);
      return SKEWGP_EXIT_INPUT;
    }
  int code = a.cv > 0 ? run_cv (&a) : run_train_test (&a);
  g_free (a.lengthscales);
  return code;
}

static gboolean
run_classify_json (JsonObject *input, GError **error)
{
  (void) input;
  return skewgp_input_error (error, "classify takes command-line flags, not JSON "
                             "(see skewgp classify --help)");
}

const SkewgpCommand skewgp_command_classify = {
  .name = "classify",
  .summary = "binary GP classification from CSV: SkewGP, Laplace, EP; K-fold CV (flags)",
  .help = NULL,  /* GOptionContext's, see parse_flags */
  .run = run_classify_json,
  .run_argv = run_classify_argv,
};
