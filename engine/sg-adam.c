/* sg-adam.c — Adam steps and minibatches (sg-adam.h). */
#include "sg-adam.h"

#include <gsl/gsl_randist.h>
#include <math.h>

#define ADAM_BETA1 0.9
#define ADAM_BETA2 0.999
#define ADAM_EPS 1e-8

void
sg_adam_step (double *params, const double *grad, double *m1, double *m2,
              size_t from, size_t to, size_t t, double lr)
{
  double c1 = 1 - pow (ADAM_BETA1, (double) t), c2 = 1 - pow (ADAM_BETA2, (double) t);
  for (size_t k = from; k < to; k++)
    {
      m1[k] = ADAM_BETA1 * m1[k] + (1 - ADAM_BETA1) * grad[k];
      m2[k] = ADAM_BETA2 * m2[k] + (1 - ADAM_BETA2) * grad[k] * grad[k];
      /* ascent: the objective is maximised */
      params[k] += lr * (m1[k] / c1) / (sqrt (m2[k] / c2) + ADAM_EPS);
    }
}

const size_t *
sg_minibatch_next (size_t *perm, size_t n, size_t b, size_t *pos, gsl_rng *rng)
{
  if (b >= n)
    return NULL;
  if (*pos + b > n)
    {
      gsl_ran_shuffle (rng, perm, n, sizeof *perm);
      *pos = 0;
    }
  const size_t *rows = perm + *pos;
  *pos += b;
  return rows;
}
