/* sg-skewgp-predict.c — samples of t once, then anything at any points.
 *
 * Per point x (sg-skewgp.c for notation): w(x) = Lh^{-1} P k(Z, x), and for
 * the stored samples e_j = Lh^{-1} (h_j - mu_h),
 *     f_j(x) = xi + w(x)^T e_j + r0,  r0 ~ N(0, v(x)),  v = k(x,x) - |w|^2,
 * with r0 independent of t (001 eq. 8). A batch of points costs one GEMM
 * W_Q^T E. Summaries integrate r0 exactly where that is cheap
 * (Rao-Blackwellisation) and otherwise use one stored vector of N standard
 * normal variates eps_j, the same for every point: each point's marginal
 * sample is exact, and maps of quantiles are smooth across points.
 */
#include "sg-skewgp.h"
#include "sg-linalg.h"
#include "sg-mcmc.h"
#include "sg-normal.h"
#include "sg-order.h"
#include "sg-rng.h"
#include "sg-skewgp-private.h"

#include <lapacke.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Defaults chosen by measurement (tests/bench/results-skewgp.md): on the
 * 001 sec. 3.2 preference posterior (m = 45) lin-ess has an integrated
 * autocorrelation time of ~350-900 steps for f(x), exact HMC with travel
 * time pi/2 ~1 step at ~30x the cost per step: per effective sample exact
 * HMC is ~25x cheaper, so every kept state is nearly independent. Two
 * chains use both cores; the result depends only on the RNG. */
void
sg_skewgp_sample_options_default (sg_skewgp_sample_options *opt)
{
  sg_tmvn_options_default (&opt->tmvn);
  opt->tmvn.method = SG_TMVN_EXACT_HMC;
  opt->tmvn.thin = 1;
  opt->tmvn.n_chains = SG_SKEWGP_DEFAULT_CHAINS;
}

void
sg_skewgp_samples_free (sg_skewgp_samples *samples)
{
  if (samples == NULL)
    return;
  free (samples->T);
  free (samples->E);
  free (samples->eps);
  free (samples);
}

size_t
sg_skewgp_samples_count (const sg_skewgp_samples *samples)
{
  return samples->N;
}

const double *
sg_skewgp_samples_t (const sg_skewgp_samples *samples)
{
  return samples->T;
}

size_t
sg_skewgp_samples_n_chains (const sg_skewgp_samples *samples)
{
  return samples->n_chains;
}

sg_status
sg_skewgp_samples_ess (const sg_skewgp_samples *samples, double *ess)
{
  if (samples == NULL || ess == NULL)
    return SG_EINVAL;
  size_t N = samples->N, c = samples->n_chains;
  if (samples->m == 0)
    {
      *ess = (double) N;   /* no chain: independent Gaussian draws */
      return SG_OK;
    }
  /* sg_tmvn gives chain k the rows [k N / c, (k + 1) N / c); use the
   * common length when N is not a multiple of c */
  size_t len = N / c;
  double tau;
  int status = len >= 2 ? sg_mcmc_iat_max (samples->T, 1, len, samples->m, &tau, NULL)
                        : SG_EINVAL;
  if (status == SG_OK && c > 1 && N % c == 0)
    status = sg_mcmc_iat_max (samples->T, c, len, samples->m, &tau, NULL);
  if (status != SG_OK)
    return status;
  *ess = (double) N / (tau > 1 ? tau : 1);
  return SG_OK;
}

/* E = Lh^{-1} (h_j - mu_h) for every sample, h_j = [y; t_j]. */
static void
whiten_samples (const sg_skewgp_posterior *p, sg_skewgp_samples *s)
{
  size_t N = s->N, mr = p->mr;
  for (size_t k = 0; k < mr; k++)
    for (size_t j = 0; j < N; j++)
      s->E[k * N + j] = p->y[k] - p->mu_h[k];
  for (size_t a = 0; a < p->m; a++)
    for (size_t j = 0; j < N; j++)
      s->E[(mr + a) * N + j] = s->T[j * p->m + a] - p->mu_h[mr + a];
  sg_trsm_lower (p->Lh, p->mh, s->E, N);
}

sg_status
sg_skewgp_sample (const sg_skewgp_posterior *post, size_t n_samples,
                  const sg_skewgp_sample_options *opt, gsl_rng *rng,
                  const sg_progress *progress, sg_skewgp_samples **out)
{
  if (post == NULL || rng == NULL || out == NULL || n_samples < 2)
    return SG_EINVAL;
  sg_skewgp_sample_options defaults;
  if (opt == NULL)
    {
      sg_skewgp_sample_options_default (&defaults);
      opt = &defaults;
    }
  size_t N = n_samples, m = post->m;
  sg_skewgp_samples *s = calloc (1, sizeof *s);
  if (s == NULL)
    return SG_ENOMEM;
  s->N = N;
  s->m = m;
  s->mh = post->mh;
  s->n_chains = m > 0 && opt->tmvn.n_chains > 0 ? opt->tmvn.n_chains : 1;
  s->T = malloc ((N * m + 1) * sizeof *s->T);
  s->E = malloc ((post->mh * N + 1) * sizeof *s->E);
  s->eps = malloc (N * sizeof *s->eps);
  double *lower = calloc (m + 1, sizeof *lower);
  int status = (s->T && s->E && s->eps && lower) ? SG_OK : SG_ENOMEM;
  if (status == SG_OK && m > 0)
    {
      sg_tmvn *chain = NULL;
      status = sg_tmvn_new (m, post->mu_t, post->S_tt, lower, post->upper,
                            &opt->tmvn, &chain);
      if (status == SG_OK)
        status = sg_tmvn_sample (chain, rng, N, progress, s->T);
      sg_tmvn_free (chain);
    }
  free (lower);
  if (status != SG_OK)
    {
      sg_skewgp_samples_free (s);
      return status;
    }
  for (size_t j = 0; j < N; j++)
    s->eps[j] = sg_rng_gaussian (rng);
  whiten_samples (post, s);
  *out = s;
  return SG_OK;
}

/* ---- Order statistics ---------------------------------------------------- */

/* The order statistics one point's summaries need, without sorting the
 * whole sample: an HPD interval holding K of N values needs the N - K + 1
 * smallest and the N - K + 1 largest values sorted; the equal-tailed
 * quantiles lie inside those tails, and the median is selected from a
 * window around it. Thresholds for the tails and the window come from a
 * sorted subsample (the sampling idea of Floyd & Rivest 1975), and one pass
 * over the sample collects the candidates; if a threshold turns out too
 * tight (rare), the whole sample is sorted instead. O(N) per point plus
 * sorts of ~N/8 values. */
typedef struct {
  double *a;          /* the sample (sorted in place if FULL)            */
  long n, n_low, hi_start;
  int full;           /* a[] is sorted                                    */
  int tails_ok;       /* low[] and high[] hold the sorted tails            */
  double *low;        /* order statistics 0 .. n_low-1                    */
  double *high;       /* order statistics hi_start .. n-1                 */
  double *mid;        /* values between the window bounds (unsorted)      */
  long below, n_mid;  /* rank of mid[0]'s window, values in it            */
  int mid_ok;
} ordered_sample;

/* Scratch: 3 N + N / 8 + 8 doubles. */
static void
order_prepare (ordered_sample *o, double *a, long n, long K, double *scratch)
{
  *o = (ordered_sample) { .a = a, .n = n, .n_low = n - K + 1, .hi_start = K - 1 };
  if (n < 256 || o->n_low >= o->hi_start)
    {
      sg_sort_doubles (a, n);
      o->full = 1;
      return;
    }
  double *low = scratch, *high = low + n, *mid = high + n, *sub = mid + n;
  long stride = 16, M = n / stride;
  for (long i = 0; i < M; i++)
    sub[i] = a[i * stride];
  sg_sort_doubles (sub, M);
  /* aim at ~1.4 times the needed count plus a few standard deviations */
  double want = 1.2 * (double) o->n_low + 4 * sqrt ((double) o->n_low) + 8;
  long idx = (long) ceil (want / (double) n * (double) M);
  double tau_lo = idx < M ? sub[idx] : INFINITY;
  double tau_hi = idx < M ? sub[M - 1 - idx] : -INFINITY;
  long w = (long) ceil (1.5 * sqrt ((double) M)) + 2;
  double win_a = M / 2 - w >= 0 ? sub[M / 2 - w] : -INFINITY;
  double win_b = M / 2 + w < M ? sub[M / 2 + w] : INFINITY;
  long nl = 0, nh = 0, nm = 0, below = 0;
  /* branch-free: the comparisons are unpredictable, so write every value
   * and advance the counters by the comparison results */
  for (long i = 0; i < n; i++)
    {
      double x = a[i];
      low[nl] = x;
      nl += x < tau_lo;
      high[nh] = x;
      nh += x > tau_hi;
      below += x < win_a;
      mid[nm] = x;
      nm += (x >= win_a) & (x <= win_b);
    }
  long n_high = n - o->hi_start;
  if (nl >= o->n_low && nh >= n_high)
    {
      sg_sort_doubles (low, nl);
      sg_sort_doubles (high, nh);
      o->low = low;
      o->high = high + (nh - n_high);
      o->tails_ok = 1;
    }
  long k = (n - 1) / 2;
  if (below <= k && below + nm >= k + 2)
    {
      o->mid = mid;
      o->below = below;
      o->n_mid = nm;
      o->mid_ok = 1;
    }
}

static void
order_sort_all (ordered_sample *o)
{
  if (!o->full)
    sg_sort_doubles (o->a, o->n);
  o->full = 1;
}

/* The k-th smallest value (0-based). */
static double
order_stat (ordered_sample *o, long k)
{
  if (o->full)
    return o->a[k];
  if (o->tails_ok && k < o->n_low)
    return o->low[k];
  if (o->tails_ok && k >= o->hi_start)
    return o->high[k - o->hi_start];
  if (o->mid_ok && k >= o->below && k < o->below + o->n_mid)
    {
      sg_select_kth (o->mid, o->n_mid, k - o->below);
      return o->mid[k - o->below];
    }
  order_sort_all (o);
  return o->a[k];
}

/* Type-7 sample quantile (linear interpolation between order statistics). */
static double
quantile (ordered_sample *o, double p)
{
  double h = p * (double) (o->n - 1);
  long k = (long) floor (h);
  if (k >= o->n - 1)
    return order_stat (o, o->n - 1);
  double lo = order_stat (o, k), next;
  if (!o->full && o->mid_ok && k >= o->below && k + 1 < o->below + o->n_mid
      && !(o->tails_ok && (k < o->n_low || k + 1 >= o->hi_start)))
    {
      /* after selecting k in the window, the (k+1)-th is the minimum of
       * what follows it there: a scan instead of a second selection */
      next = INFINITY;
      for (long i = k + 1 - o->below; i < o->n_mid; i++)
        next = fmin (next, o->mid[i]);
    }
  else
    next = order_stat (o, k + 1);
  return lo + (h - (double) k) * (next - lo);
}

/* The shortest interval [x_(i), x_(i+K-1)] (Chen & Shao 1999 estimator of
 * the HPD interval from a sample); i + K - 1 >= hi_start always. */
static void
hpd_interval (ordered_sample *o, long K, double *lo, double *hi)
{
  if (!o->full && !o->tails_ok)
    order_sort_all (o);
  long best = 0;
  double width = INFINITY;
  for (long i = 0; i + K - 1 < o->n; i++)
    {
      double w = order_stat (o, i + K - 1) - order_stat (o, i);
      if (w < width)
        {
          width = w;
          best = i;
        }
    }
  *lo = order_stat (o, best);
  *hi = order_stat (o, best + K - 1);
}

/* Phi by cubic Hermite interpolation in a table of Phi and phi on [-8, 8]
 * with step h = 1/64, built once per summarize call (1025 erfc calls).
 * Error <= h^4 / 384 max|Phi^(4)| = 2.1e-10 inside, < 6.2e-16 outside
 * (clamped to 0 / 1): far below any Monte Carlo error, and several times
 * faster than erfc in the per-sample loops of the class probability and
 * P(better). */
#define PHI_TAB_N 1025
#define PHI_TAB_SCALE 64.0
#define PHI_TAB_MIN (-8.0)

typedef struct {
  double p[PHI_TAB_N];   /* Phi(x_i)     */
  double d[PHI_TAB_N];   /* phi(x_i) h   */
} phi_table;

static void
phi_table_init (phi_table *t)
{
  for (int i = 0; i < PHI_TAB_N; i++)
    {
      double x = PHI_TAB_MIN + i / PHI_TAB_SCALE;
      t->p[i] = sg_norm_cdf (x);
      t->d[i] = sg_norm_pdf (x) / PHI_TAB_SCALE;
    }
}

static inline double
phi_table_eval (const phi_table *t, double x)
{
  double u = (x - PHI_TAB_MIN) * PHI_TAB_SCALE;
  if (!(u > 0))
    return 0;
  if (u >= PHI_TAB_N - 1)
    return 1;
  long i = (long) u;
  double s = u - (double) i, r = 1 - s;
  return (1 + 2 * s) * r * r * t->p[i] + s * r * r * t->d[i]
         + s * s * (3 - 2 * s) * t->p[i + 1] - s * s * r * t->d[i + 1];
}

/* ---- Summaries ------------------------------------------------------------ */

void
sg_summary_options_default (sg_summary_options *opt)
{
  opt->fields = SG_SUMMARY_ALL;
  opt->level = 0.95;
  opt->reference = NULL;
  opt->batch = 256;
  opt->probit_sd = 1;
  opt->n_threads = 1;
  opt->fast_moments = 0;
}

typedef struct {
  const sg_summary_options *opt;
  double xi;
  size_t N;
  const double *eps;
  const double *Fr;   /* reference linear part (N) or NULL */
  double vr;
  double *buf;        /* N scratch */
  double *scratch;    /* 3 N + N / 8 + 8 scratch for the order statistics */
  const phi_table *phi;
} summary_ctx;

static void
summarize_point (const summary_ctx *c, const double *F, double v,
                 double cov_ref, sg_point_summary *out)
{
  size_t N = c->N;
  unsigned fields = c->opt->fields;
  double nan = NAN;
  *out = (sg_point_summary) { nan, nan, nan, nan, nan, nan, nan, nan, nan, nan };

  double mu = 0;
  for (size_t j = 0; j < N; j++)
    mu += F[j];
  mu /= (double) N;
  if (fields & SG_SUMMARY_MOMENTS)
    {
      double c2 = 0, c3 = 0;
      for (size_t j = 0; j < N; j++)
        {
          double d = F[j] - mu;
          c2 += d * d;
          c3 += d * d * d;
        }
      c2 /= (double) N;
      c3 /= (double) N;
      double var = c2 + v;  /* the remainder adds variance, no skewness */
      out->mean = c->xi + mu;
      out->sd = sqrt (var);
      out->skewness = var > 0 ? c3 / (var * sqrt (var)) : 0;
    }
  if (fields & SG_SUMMARY_CLASS_PROB)
    {
      /* E[Phi(f / s)] with f = m_j + r0, r0 ~ N(0, v):
       * E_r0[Phi((m_j + r0) / s)] = Phi(m_j / sqrt(s^2 + v)) */
      double s = c->opt->probit_sd;
      double scale = 1 / sqrt (s * s + v), acc = 0;
      for (size_t j = 0; j < N; j++)
        acc += phi_table_eval (c->phi, (c->xi + F[j]) * scale);
      out->class_probability = acc / (double) N;
    }
  if ((fields & SG_SUMMARY_PROB_BETTER) && c->Fr != NULL)
    {
      double vd = v + c->vr - 2 * cov_ref, acc = 0;
      if (vd > 1e-14 * (v + c->vr) && vd > 0)
        {
          double scale = 1 / sqrt (vd);
          for (size_t j = 0; j < N; j++)
            acc += phi_table_eval (c->phi, (F[j] - c->Fr[j]) * scale);
        }
      else
        for (size_t j = 0; j < N; j++)
          {
            double d = F[j] - c->Fr[j];
            acc += d > 0 ? 1 : d == 0 ? 0.5 : 0;
          }
      out->prob_better = acc / (double) N;
    }
  if (fields & (SG_SUMMARY_QUANTILES | SG_SUMMARY_HPD))
    {
      double sd = sqrt (v);
      for (size_t j = 0; j < N; j++)
        c->buf[j] = c->xi + F[j] + sd * c->eps[j];
      double level = c->opt->level;
      long K = (long) ceil (level * (double) N - 1e-9);
      if (K < 2)
        K = 2;
      if (K > (long) N)
        K = (long) N;
      ordered_sample o;
      order_prepare (&o, c->buf, (long) N, K, c->scratch);
      if (fields & SG_SUMMARY_HPD)
        hpd_interval (&o, K, &out->hpd_lower, &out->hpd_upper);
      if (fields & SG_SUMMARY_QUANTILES)
        {
          double tail = 0.5 * (1 - level);
          out->lower = quantile (&o, tail);
          out->upper = quantile (&o, 1 - tail);
          out->median = quantile (&o, 0.5);
        }
    }
}

/* What every worker of sg_skewgp_summarize shares (read-only). */
typedef struct {
  const sg_skewgp_posterior *post;
  const sg_skewgp_samples *samples;
  const double *XS;
  const sg_summary_options *opt;
  const phi_table *phi;
  const double *wr, *Fr;   /* reference point: w(x_r), its linear part */
  double vr;
  size_t bs;               /* batch size */
  atomic_int *stop;        /* set when any worker fails or is cancelled */
} summary_shared;

typedef struct {
  const summary_shared *sh;
  size_t start, end;       /* points [start, end) */
  const sg_progress *progress;  /* only the calling thread's job polls */
  sg_point_summary *res;   /* the full result array */
  int status;
} summary_job;

/* Summaries of points [start, end) in batches of sh->bs, with this job's
 * own scratch. */
static int
summarize_range (const summary_shared *sh, size_t start, size_t end,
                 const sg_progress *progress, sg_point_summary *res)
{
  const sg_skewgp_posterior *post = sh->post;
  const sg_summary_options *opt = sh->opt;
  size_t N = sh->samples->N, mh = post->mh, nz = post->nz, dim = post->dim;
  size_t bs = sh->bs;
  double *WQ = malloc ((mh * bs + 1) * sizeof *WQ);
  double *V = malloc (bs * sizeof *V);
  double *scratch = malloc ((bs * nz + 1) * sizeof *scratch);
  double *F = malloc (bs * N * sizeof *F);
  double *buf = malloc (N * sizeof *buf);
  double *oscratch = malloc ((3 * N + N / 8 + 8) * sizeof *oscratch);
  int status = (WQ && V && scratch && F && buf && oscratch) ? SG_OK : SG_ENOMEM;
  summary_ctx ctx = { .opt = opt, .xi = post->xi, .N = N, .eps = sh->samples->eps,
                      .Fr = sh->Fr, .vr = sh->vr, .buf = buf, .scratch = oscratch,
                      .phi = sh->phi };
  for (size_t b0 = start; status == SG_OK && b0 < end; b0 += bs)
    {
      if (atomic_load (sh->stop))
        {
          status = SG_ECANCELLED;
          break;
        }
      if (progress != NULL)
        {
          status = sg_progress_report (progress, (double) (b0 - start)
                                                 / (double) (end - start));
          if (status != SG_OK)
            break;
        }
      size_t bb = end - b0 < bs ? end - b0 : bs;
      const double *Xb = sh->XS + b0 * dim;
      sg_skewgp_whiten_points (post, Xb, bb, WQ, V, scratch);
      sg_gemm (1, 0, bb, N, mh, 1, WQ, sh->samples->E, 0, F);
      for (size_t i = 0; i < bb; i++)
        {
          double cov_ref = 0;
          if (sh->Fr != NULL)
            {
              cov_ref = sg_kernel_eval (&post->kernel, Xb + i * dim, opt->reference);
              for (size_t k = 0; k < mh; k++)
                cov_ref -= WQ[k * bb + i] * sh->wr[k];
            }
          summarize_point (&ctx, F + i * N, V[i], cov_ref, &res[b0 + i]);
        }
    }
  if (status != SG_OK)
    atomic_store (sh->stop, 1);
  free (WQ); free (V); free (scratch); free (F); free (buf); free (oscratch);
  return status;
}

static void *
summary_thread (void *data)
{
  summary_job *job = data;
  job->status = summarize_range (job->sh, job->start, job->end, NULL, job->res);
  return NULL;
}

/* Splits [0, b) over NT jobs; job 0 runs on the calling thread (and polls
 * PROGRESS), the others on new threads. Results land in disjoint parts of
 * RES, so the outcome does not depend on the number of threads. */
static int
summarize_threads (const summary_shared *sh, size_t b, size_t nt,
                   const sg_progress *progress, sg_point_summary *res)
{
  summary_job *jobs = calloc (nt, sizeof *jobs);
  pthread_t *threads = calloc (nt, sizeof *threads);
  int *started = calloc (nt, sizeof *started);
  if (!jobs || !threads || !started)
    {
      free (jobs); free (threads); free (started);
      return SG_ENOMEM;
    }
  /* whole batches per job, so the batches (and their BLAS round-off) are
   * the same as with one thread */
  size_t nb = (b + sh->bs - 1) / sh->bs;
  for (size_t t = 0; t < nt; t++)
    {
      size_t s0 = nb * t / nt * sh->bs, s1 = nb * (t + 1) / nt * sh->bs;
      jobs[t] = (summary_job) { .sh = sh, .start = s0 < b ? s0 : b,
                                .end = s1 < b ? s1 : b, .res = res };
    }
  for (size_t t = 1; t < nt; t++)
    started[t] = pthread_create (&threads[t], NULL, summary_thread, &jobs[t]) == 0;
  /* a thread that could not start: its share runs here */
  int status = summarize_range (sh, jobs[0].start, jobs[0].end, progress, res);
  for (size_t t = 1; t < nt; t++)
    {
      if (started[t])
        pthread_join (threads[t], NULL);
      else
        jobs[t].status = status == SG_OK
                           ? summarize_range (sh, jobs[t].start, jobs[t].end, progress, res)
                           : status;
      if (status == SG_OK)
        status = jobs[t].status;
    }
  free (jobs); free (threads); free (started);
  return status;
}

sg_status
sg_skewgp_summarize (const sg_skewgp_posterior *post,
                     const sg_skewgp_samples *samples,
                     const double *XS, size_t b,
                     const sg_summary_options *opt,
                     const sg_progress *progress,
                     sg_point_summary *out)
{
  if (post == NULL || samples == NULL || samples->mh != post->mh
      || (b > 0 && (XS == NULL || out == NULL)))
    return SG_EINVAL;
  sg_summary_options defaults;
  if (opt == NULL)
    {
      sg_summary_options_default (&defaults);
      opt = &defaults;
    }
  if (!(opt->level > 0 && opt->level < 1) || opt->batch == 0
      || !(opt->probit_sd > 0) || !isfinite (opt->probit_sd))
    return SG_EINVAL;
  size_t N = samples->N, mh = post->mh;
  size_t bs = opt->batch < b ? opt->batch : (b ? b : 1);
  /* threads: at most one per batch, and only when asked for */
  size_t nt = opt->n_threads > 1 ? opt->n_threads : 1;
  if (nt > (b + bs - 1) / bs)
    nt = b ? (b + bs - 1) / bs : 1;
  if (opt->fast_moments && opt->fields == SG_SUMMARY_MOMENTS)
    {
      sg_point_summary *res = malloc ((b + 1) * sizeof *res);
      if (res == NULL)
        return SG_ENOMEM;
      int status = sg_skewgp_summarize_moments (post, samples, XS, b, bs,
                                                opt->fast_moments != SG_SUMMARY_FAST_MEAN_SD,
                                                progress, res);
      if (status == SG_OK)
        memcpy (out, res, b * sizeof *res);
      free (res);
      return status;
    }
  int want_ref = opt->reference != NULL && (opt->fields & SG_SUMMARY_PROB_BETTER);

  double *wr = malloc ((mh + 1) * sizeof *wr);
  double *Fr = malloc (N * sizeof *Fr);
  double *scratch = malloc ((post->nz + 1) * sizeof *scratch);
  sg_point_summary *res = malloc ((b + 1) * sizeof *res);
  phi_table *phi = malloc (sizeof *phi);
  atomic_int stop = 0;
  int status = (wr && Fr && scratch && res && phi) ? SG_OK : SG_ENOMEM;
  summary_shared sh = { .post = post, .samples = samples, .XS = XS, .opt = opt,
                        .phi = phi, .bs = bs, .stop = &stop };
  if (status == SG_OK)
    {
      phi_table_init (phi);
      if (want_ref)
        {
          sg_skewgp_whiten_points (post, opt->reference, 1, wr, &sh.vr, scratch);
          sg_gemv (1, mh, N, 1, samples->E, wr, 0, Fr);
          sh.wr = wr;
          sh.Fr = Fr;
        }
      status = nt > 1 ? summarize_threads (&sh, b, nt, progress, res)
                      : summarize_range (&sh, 0, b, progress, res);
    }
  if (status == SG_OK)
    memcpy (out, res, b * sizeof *res);
  free (wr); free (Fr); free (scratch); free (res); free (phi);
  return status;
}

/* ---- Joint samples, density, exact class probability --------------------- */

/* A square root B (b x b, B B^T = R) of the PSD remainder covariance R:
 * Cholesky with a relative jitter up to 1e-6, or, for the numerically
 * rank-deficient covariances of fine grids, a symmetric eigendecomposition
 * with negative round-off eigenvalues set to zero. R is destroyed. */
static int
psd_sqrt (double *R, size_t b, double *B)
{
  if (sg_cholesky (R, b, 1e-6, B, NULL) == SG_OK)
    return SG_OK;
  double *lambda = malloc (b * sizeof *lambda);
  if (lambda == NULL)
    return SG_ENOMEM;
  lapack_int info = LAPACKE_dsyevd (LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int) b, R,
                                    (lapack_int) b, lambda);
  if (info != 0)
    {
      free (lambda);
      return SG_ENUMERIC;
    }
  /* R now holds the eigenvectors in its columns: B = V diag(sqrt lambda) */
  for (size_t i = 0; i < b; i++)
    for (size_t k = 0; k < b; k++)
      B[i * b + k] = R[i * b + k] * sqrt (fmax (lambda[k], 0));
  free (lambda);
  return SG_OK;
}

/* Joint samples at XS for the K stored samples listed in WHICH (all N when
 * WHICH is NULL), written b x K. */
static int
joint_samples (const sg_skewgp_posterior *post, const sg_skewgp_samples *samples,
               const double *XS, size_t b, const size_t *which, size_t K,
               gsl_rng *rng, double *out)
{
  size_t N = samples->N, mh = post->mh;
  double *WQ = malloc ((mh * b + 1) * sizeof *WQ);
  double *scratch = malloc ((b * post->nz + 1) * sizeof *scratch);
  /* All samples: the stored matrix itself (the acquisition search calls
   * this for every candidate; a copy of mh x N doubles each time cost more
   * than the product). A subset: its columns gathered. */
  double *picked = which ? malloc ((mh * K + 1) * sizeof *picked) : NULL;
  const double *E = which ? picked : samples->E;
  double *R0 = malloc (b * b * sizeof *R0);
  double *L0 = malloc (b * b * sizeof *L0);
  double *G = malloc (b * K * sizeof *G);
  double *F = malloc (b * K * sizeof *F);
  int status = (WQ && scratch && (picked || !which) && R0 && L0 && G && F) ? SG_OK : SG_ENOMEM;
  for (size_t j = 0; status == SG_OK && which && j < K; j++)
    if (which[j] >= N)
      status = SG_EINVAL;
  if (status == SG_OK)
    {
      for (size_t k = 0; which && k < mh; k++)
        for (size_t j = 0; j < K; j++)
          picked[k * K + j] = samples->E[k * N + which[j]];
      sg_skewgp_whiten_points (post, XS, b, WQ, NULL, scratch);
      sg_gemm (1, 0, b, K, mh, 1, WQ, E, 0, F);
      for (size_t i = 0; i < b * K; i++)
        F[i] += post->xi;
      /* Remainder covariance K(XS,XS) - W_Q^T W_Q. */
      sg_kernel_matrix (&post->kernel, XS, b, XS, b, R0);
      sg_gemm (1, 0, b, b, mh, -1, WQ, WQ, 1, R0);
      sg_symmetrize (R0, b);
      double max_diag = 0, kdiag = 0;
      for (size_t i = 0; i < b; i++)
        {
          max_diag = fmax (max_diag, R0[i * b + i]);
          kdiag = fmax (kdiag, sg_kernel_eval (&post->kernel, XS + i * post->dim,
                                               XS + i * post->dim));
        }
      /* A remainder below round-off of the prior variance is zero: the
       * points are determined by t (noise-free pseudo-points). */
      if (max_diag > 1e-12 * kdiag)
        {
          status = psd_sqrt (R0, b, L0);
          if (status == SG_OK)
            {
              for (size_t i = 0; i < b * K; i++)
                G[i] = sg_rng_gaussian (rng);
              sg_gemm (0, 0, b, K, b, 1, L0, G, 1, F);
            }
        }
    }
  if (status == SG_OK)
    memcpy (out, F, b * K * sizeof *F);
  free (WQ); free (scratch); free (picked); free (R0); free (L0); free (G); free (F);
  return status;
}

sg_status
sg_skewgp_joint_samples (const sg_skewgp_posterior *post,
                         const sg_skewgp_samples *samples,
                         const double *XS, size_t b, gsl_rng *rng,
                         double *out)
{
  if (post == NULL || samples == NULL || rng == NULL || samples->mh != post->mh
      || b == 0 || XS == NULL || out == NULL)
    return SG_EINVAL;
  return joint_samples (post, samples, XS, b, NULL, samples->N, rng, out);
}

/* Adds the remainder of the joint samples at the b points XX (b x N in F,
 * the latent part already there): R = K(XX, XX) - WQ^T WQ (WQ: the b
 * whitened columns, mh x b), factorised by psd_sqrt, times G (b x N). As
 * in joint_samples, a remainder below round-off of the prior variance is
 * zero. */
static sg_status
add_remainder (const sg_skewgp_posterior *post, const double *XX, size_t b, const double *WQ,
               const double *G, size_t N, double *F)
{
  double R0[4], L0[4], max_diag = 0, kdiag = 0;

  sg_kernel_matrix (&post->kernel, XX, b, XX, b, R0);
  sg_gemm (1, 0, b, b, post->mh, -1, WQ, WQ, 1, R0);
  sg_symmetrize (R0, b);
  for (size_t i = 0; i < b; i++)
    {
      max_diag = fmax (max_diag, R0[i * b + i]);
      kdiag = fmax (kdiag, sg_kernel_eval (&post->kernel, XX + i * post->dim, XX + i * post->dim));
    }
  if (!(max_diag > 1e-12 * kdiag))
    return SG_OK;
  sg_status status = psd_sqrt (R0, b, L0);
  if (status != SG_OK)
    return status;
  for (size_t i = 0; i < b; i++)
    for (size_t k = 0; k < b; k++)
      if (L0[i * b + k] != 0)
        sg_vec_axpy (L0[i * b + k], G + k * N, N, F + i * N);
  return SG_OK;
}

/* Points per block of sg_skewgp_joint_samples_each: the block's latent
 * part (BLOCK x N doubles) stays in L2. */
#define EACH_BLOCK 64

sg_status
sg_skewgp_joint_samples_each (const sg_skewgp_posterior *post,
                              const sg_skewgp_samples *samples,
                              const double *XS, size_t n_points, const double *ref,
                              const double *G, sg_skewgp_point_fn fn, void *user_data)
{
  if (post == NULL || samples == NULL || samples->mh != post->mh || XS == NULL || G == NULL
      || fn == NULL)
    return SG_EINVAL;
  size_t N = samples->N, mh = post->mh, dim = post->dim, b = ref ? 2 : 1;
  size_t rows = EACH_BLOCK + 1;
  double *X = malloc (rows * dim * sizeof *X);
  double *WQ = malloc ((mh * rows + 1) * sizeof *WQ);
  double *scratch = malloc ((rows * post->nz + 1) * sizeof *scratch);
  double *M = malloc (rows * N * sizeof *M);
  double *F = malloc (b * N * sizeof *F);
  double *pair = malloc ((2 * mh + 1) * sizeof *pair);
  double *XX = malloc (2 * dim * sizeof *XX);   /* a point and the reference */
  sg_status status = (X && WQ && scratch && M && F && pair && XX) ? SG_OK : SG_ENOMEM;

  for (size_t first = 0; status == SG_OK && first < n_points; first += EACH_BLOCK)
    {
      size_t m = n_points - first < EACH_BLOCK ? n_points - first : EACH_BLOCK;
      size_t mr = m + (ref != NULL);   /* the reference is the block's last row */
      memcpy (X, XS + first * dim, m * dim * sizeof *X);
      if (ref)
        memcpy (X + m * dim, ref, dim * sizeof *X);
      status = sg_skewgp_whiten_points (post, X, mr, WQ, NULL, scratch);
      if (status != SG_OK)
        break;
      /* M (mr x N) = xi + WQ^T E: the latent part of every point. */
      sg_gemm (1, 0, mr, N, mh, 1, WQ, samples->E, 0, M);
      for (size_t i = 0; i < mr * N; i++)
        M[i] += post->xi;
      for (size_t c = 0; c < m && status == SG_OK; c++)
        {
          memcpy (XX, X + c * dim, dim * sizeof *XX);
          memcpy (F, M + c * N, N * sizeof *F);
          for (size_t k = 0; k < mh; k++)
            pair[k * b] = WQ[k * mr + c];
          if (ref)
            {
              memcpy (XX + dim, ref, dim * sizeof *XX);
              memcpy (F + N, M + m * N, N * sizeof *F);
              for (size_t k = 0; k < mh; k++)
                pair[k * b + 1] = WQ[k * mr + m];
            }
          status = add_remainder (post, XX, b, pair, G, N, F);
          if (status == SG_OK)
            fn (first + c, F, user_data);
        }
    }
  free (X); free (WQ); free (scratch); free (M); free (F); free (pair); free (XX);
  return status;
}

sg_status
sg_skewgp_sample_paths (const sg_skewgp_posterior *post,
                        const sg_skewgp_samples *samples,
                        const double *XS, size_t b, const size_t *which,
                        size_t k, gsl_rng *rng, double *out)
{
  if (post == NULL || samples == NULL || rng == NULL || samples->mh != post->mh
      || b == 0 || XS == NULL || which == NULL || k == 0 || out == NULL)
    return SG_EINVAL;
  return joint_samples (post, samples, XS, b, which, k, rng, out);
}

sg_status
sg_skewgp_density (const sg_skewgp_posterior *post,
                   const sg_skewgp_samples *samples, const double *x,
                   const double *grid, size_t k, double *density)
{
  if (post == NULL || samples == NULL || x == NULL || samples->mh != post->mh
      || (k > 0 && (grid == NULL || density == NULL)))
    return SG_EINVAL;
  size_t N = samples->N, mh = post->mh;
  double *w = malloc ((mh + 1) * sizeof *w);
  double *scratch = malloc ((post->nz + 1) * sizeof *scratch);
  double *F = malloc (N * sizeof *F);
  double *res = malloc ((k + 1) * sizeof *res);
  if (!w || !scratch || !F || !res)
    {
      free (w); free (scratch); free (F); free (res);
      return SG_ENOMEM;
    }
  double v;
  sg_skewgp_whiten_points (post, x, 1, w, &v, scratch);
  sg_gemv (1, mh, N, 1, samples->E, w, 0, F);
  double mu = 0, c2 = 0;
  for (size_t j = 0; j < N; j++)
    mu += F[j];
  mu /= (double) N;
  for (size_t j = 0; j < N; j++)
    c2 += (F[j] - mu) * (F[j] - mu);
  c2 /= (double) N;
  /* Silverman's rule for the linear part, used only when the exact
   * remainder is too narrow to smooth the sample by itself. */
  double h = 1.06 * sqrt (c2) * pow ((double) N, -0.2);
  double var = v >= h * h ? v : v + h * h;
  if (!(var > 0))
    var = 1e-300;
  double sd = sqrt (var);
  for (size_t g = 0; g < k; g++)
    {
      double acc = 0;
      for (size_t j = 0; j < N; j++)
        acc += sg_norm_pdf ((grid[g] - post->xi - F[j]) / sd);
      res[g] = acc / ((double) N * sd);
    }
  memcpy (density, res, k * sizeof *res);
  free (w); free (scratch); free (F); free (res);
  return SG_OK;
}

sg_status
sg_skewgp_class_probability_exact (const sg_skewgp_posterior *post,
                                   const double *x, sg_mvn_workspace *w,
                                   const sg_mvn_options *opt,
                                   const sg_progress *progress,
                                   double *prob, double *error)
{
  if (post == NULL || x == NULL || prob == NULL)
    return SG_EINVAL;
  size_t m = post->m, mr = post->mr, mh = post->mh, d = m + 1;
  sg_mvn_options defaults;
  if (opt == NULL)
    {
      sg_mvn_options_default (&defaults);
      opt = &defaults;
    }
  double *wq = malloc ((mh + 1) * sizeof *wq);
  double *scratch = malloc ((post->nz + 1) * sizeof *scratch);
  double *mean = malloc (d * sizeof *mean);
  double *cov = malloc (d * d * sizeof *cov);
  double *lower = calloc (d, sizeof *lower);
  double *upper = malloc (d * sizeof *upper);
  int owned = 0;
  if (w == NULL)
    {
      w = sg_mvn_workspace_new (d);
      owned = 1;
    }
  int status = (wq && scratch && mean && cov && lower && upper && w) ? SG_OK : SG_ENOMEM;
  sg_mvn_result num = { 0 }, den = { 0 };
  if (status == SG_OK)
    {
      /* (t, t*) | y with t* = f(x) + e, e ~ N(0,1): with w = Lh^{-1} q,
       * Cov(t, t* | y) = Lc w_t, Var(t* | y) = k(x,x) + 1 - |w_y|^2,
       * E[t* | y] = xi + w_y^T r (see the top of sg-skewgp.c). */
      sg_skewgp_whiten_points (post, x, 1, wq, NULL, scratch);
      double var = sg_kernel_eval (&post->kernel, x, x) + 1, mu = post->xi;
      for (size_t k = 0; k < mr; k++)
        {
          var -= wq[k] * wq[k];
          mu += wq[k] * post->r[k];
        }
      for (size_t a = 0; a < m; a++)
        {
          mean[a] = post->mu_t[a];
          for (size_t b = 0; b < m; b++)
            cov[a * d + b] = post->S_tt[a * m + b];
          double c = 0;
          for (size_t k = 0; k <= a; k++)
            c += post->Lh[(mr + a) * mh + mr + k] * wq[mr + k];
          cov[a * d + m] = cov[m * d + a] = c;
        }
      mean[m] = mu;
      cov[m * d + m] = var;
      memcpy (upper, post->upper, m * sizeof *upper);
      upper[m] = INFINITY;
      status = sg_mvn_prob (w, d, mean, cov, lower, upper, opt, progress, &num);
      if (status == SG_OK && m > 0)
        status = sg_mvn_prob (w, m, post->mu_t, post->S_tt, lower, post->upper, opt,
                              progress, &den);
      else if (status == SG_OK)
        den = (sg_mvn_result) { .value = 1, .log_value = 0, .exact = 1 };
    }
  if (owned)
    sg_mvn_workspace_free (w);
  free (wq); free (scratch); free (mean); free (cov); free (lower); free (upper);
  if (status != SG_OK)
    return status;
  double p = exp (num.log_value - den.log_value);
  *prob = p;
  if (error)
    *error = p * ((num.exact ? 0 : num.log_error) + (den.exact ? 0 : den.log_error));
  return SG_OK;
}
