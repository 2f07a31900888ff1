/* skewgp-model-json.h — the SkewGP model document shared by `skewgp
 * posterior` and `skewgp fit`: kernel, constant mean, optional skew prior,
 * noise, observations:
 *
 *   "kernel": {"type": "rbf"|"matern52", "variance": v, "lengthscales": [...]},
 *   "mean": c?,
 *   "skew": {"pseudo_points": [[...]], "phases": [...], "gamma": [...]}?,
 *   "noise": {"numeric_sd": s1?, "probit_sd": s2?, "tie_margin": d?,
 *             "side_bias": b?, "weak_scale": w?, "strong_scale": g?}
 *            (defaults 1, 1, 0.5, 0, 2, 0.5: sg_noise_default),
 *   "observations": [{"kind": "numeric", "x": [...], "y": y}
 *                  | {"kind": "binary", "x": [...], "label": 1|-1}
 *                  | {"kind": "preference", "winner": [...], "loser": [...],
 *                     "confidence"?, "shown_first"?: "winner"|"loser",
 *                     "tie_offered"?: bool}
 *                  | {"kind": "tie", "a": [...], "b": [...]}
 *                  | {"kind": "choice", "chosen": [...], "others": [[...], ...],
 *                     "confidence"?, "shown_first"?: index}
 *                  | {"kind": "ranking", "order": [[...], ...]}
 *                  | {"kind": "valid", "x": [...], "y": y, "threshold": h}
 *                  | {"kind": "invalid", "x": [...], "threshold": h}]
 *
 * The input dimension is the length of "lengthscales". Errors are input
 * errors (exit 2) naming the field by its path, e.g.
 * "observations[3].x has 1 entries, expected 2".
 */
#pragma once

#include "skewgp-cli.h"

#include "sg-data.h"
#include "sg-fit.h"
#include "sg-kernel.h"
#include "sg-skewgp.h"

/* Observations read at most (posterior, fit): the exact SkewGP keeps a
 * few n x n matrices, 0.8 GB at n = 5000 (measured: numeric observations,
 * tests/bench/results-fuzz.md). */
#define SKEWGP_MAX_OBSERVATIONS 5000

G_BEGIN_DECLS

typedef struct {
  sg_kernel kernel;
  double mean;
  size_t s;
  double *pseudo_points;  /* s x dim */
  double *phases;         /* s */
  double *gamma;          /* s */
  sg_noise noise;
  sg_data data;
} SkewgpModel;

/* The top-level fields the model reads; commands append their own (e.g.
 * "predict", "fit") before calling skewgp_check_fields. */
#define SKEWGP_MODEL_FIELDS "kernel", "mean", "skew", "noise", "observations"

/* Reads the model fields of ROOT into MODEL (initialised by this call;
 * skewgp_model_clear it even on failure). */
gboolean skewgp_model_from_json (JsonObject *root, SkewgpModel *model, GError **error);
void skewgp_model_clear (SkewgpModel *model);
/* Adds the model members of H to the object B is building, in the form
 * the model document reads them: "kernel", "mean", "noise" and, when
 * H->s > 0, "skew" (so `skewgp fit`'s output feeds `skewgp posterior`). */
void skewgp_add_model_members (JsonBuilder *b, const sg_hyper *h);
/* The SkewGP prior of MODEL; its arrays are borrowed from MODEL. */
void skewgp_model_prior (const SkewgpModel *model, sg_skewgp_prior *prior);
/* Help text for the model fields, for the commands' --help (a string
 * literal, so commands can concatenate it into their static help). */
#define SKEWGP_MODEL_HELP \
  "  \"kernel\": {\"type\": \"rbf\" | \"matern52\", \"variance\": v > 0,\n" \
  "             \"lengthscales\": [l1, ..., ld]}   (d = input dimension)\n" \
  "  \"mean\": c                      constant prior mean (default 0)\n" \
  "  \"skew\": {\"pseudo_points\": [[...], ...] (s x d), \"phases\": [+-1, ...],\n" \
  "           \"gamma\": [...]}       SkewGP_s prior (001 eq. 11); absent = GP\n" \
  "  \"noise\": {\"numeric_sd\": s1, \"probit_sd\": s2,   (each default 1)\n" \
  "            \"tie_margin\": delta (default 0.5), \"side_bias\": beta (default 0),\n" \
  "            \"weak_scale\": cw (default 2), \"strong_scale\": cs (default 0.5)}\n" \
  "  \"observations\": [...], at most 5000, each one of\n" \
  "     {\"kind\": \"numeric\", \"x\": [...], \"y\": y}       N(y; f(x), s1^2)\n" \
  "     {\"kind\": \"binary\", \"x\": [...], \"label\": 1|-1}  Phi(label f(x) / s2)\n" \
  "     {\"kind\": \"preference\", \"winner\": [...], \"loser\": [...],\n" \
  "      \"confidence\"?: \"weak\"|\"normal\"|\"strong\", \"shown_first\"?: \"winner\"|\"loser\",\n" \
  "      \"tie_offered\"?: true|false}\n" \
  "                                  P(u(winner) - u(loser) > 0, or > delta if tie_offered)\n" \
  "                                  = Phi((f(winner) - f(loser)) / (sqrt2 s2)) plain\n" \
  "     {\"kind\": \"tie\", \"a\": [...], \"b\": [...]}      P(|u(a) - u(b)| < delta)\n" \
  "     {\"kind\": \"choice\", \"chosen\": [...], \"others\": [[...], ...],\n" \
  "      \"confidence\"?: ..., \"shown_first\"?: i}  P(u(chosen) > u(o) for every other o)\n" \
  "                                  i = 0: chosen shown first, i >= 1: others[i-1]\n" \
  "     {\"kind\": \"ranking\", \"order\": [[...], ...]}  best first:\n" \
  "                                  P(u(x1) > u(x2) > ... > u(xk)), k >= 2\n" \
  "     {\"kind\": \"valid\", \"x\": [...], \"y\": y, \"threshold\": h}\n" \
  "                                  N(y; f(x), s1^2) Phi((f(x) - h) / s1)\n" \
  "     {\"kind\": \"invalid\", \"x\": [...], \"threshold\": h}\n" \
  "                                  Phi((h - f(x)) / s1)\n" \
  "  Human answers: each option shown has utility u(x) = f(x) + e, e ~ N(0, s^2)\n" \
  "  independent per option shown, s = s2 x (cw for \"weak\", 1 for \"normal\" or\n" \
  "  none, cs for \"strong\"), plus beta for the option shown first. So a choice's\n" \
  "  k-1 rows have correlated noise s^2 (I + 11^T) and a ranking's k-1 adjacent\n" \
  "  rows s^2 tridiag(-1, 2, -1): the posterior stays exact (a rectangle\n" \
  "  probability for ties). Set tie_offered on the duels of questions that\n" \
  "  offered \"about the same\", so win, loss and tie sum to 1 and delta can\n" \
  "  be fitted. Laplace and EP (skewgp fit) refuse ties, choices of k > 2 and\n" \
  "  rankings: their sites are one-dimensional and independent.\n\n"

G_END_DECLS
