/* sg-adam.h — minibatch stochastic gradient ascent with Adam (Kingma &
 * Ba 2015, beta1 = 0.9, beta2 = 0.999, eps = 1e-8), shared by the sparse
 * variational classifiers (sg-svgp.h, sg-svgp-multi.h): rows are drawn
 * without replacement, a new random permutation every epoch, as paper
 * 004 trains its ELBOs. */
#pragma once

#include <gsl/gsl_rng.h>
#include <stddef.h>

/* One ascent step on entries [FROM, TO) of PARAMS with gradient GRAD;
 * M1 and M2 are the moment estimates (zero before the first step), T
 * counts the steps this block has taken (1 for the first: its bias
 * correction), LR the step size. */
void sg_adam_step (double *params, const double *grad, double *m1, double *m2,
                   size_t from, size_t to, size_t t, double lr);

/* The next B row indices: entries *POS .. *POS + B - 1 of PERM (a
 * permutation of 0 .. N - 1), PERM reshuffled from RNG when fewer than B
 * are left (*POS = N forces a shuffle first). NULL when B >= N: every
 * row, a full batch. */
const size_t *sg_minibatch_next (size_t *perm, size_t n, size_t b, size_t *pos,
                                 gsl_rng *rng);
