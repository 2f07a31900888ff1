/* sg-rng.h — explicitly seeded random-number streams (GSL generators).
 *
 * There is no global generator: every job creates its own stream from a
 * (seed, stream) pair, so the same seed gives the same numbers on any thread
 * and parallel chains get independent, reproducible streams.
 */
#pragma once

#include <gsl/gsl_rng.h>
#include <stdint.h>

/* A new Mersenne-Twister stream. Different STREAM values for one SEED give
 * unrelated sequences (the pair is mixed by SplitMix64). NULL on ENOMEM. */
gsl_rng *sg_rng_new (uint64_t seed, uint64_t stream);
void sg_rng_free (gsl_rng *rng);
/* Standard normal variate (ziggurat). */
double sg_rng_gaussian (gsl_rng *rng);
/* Uniform on (0, 1), never exactly 0 or 1. */
double sg_rng_uniform_pos (gsl_rng *rng);
/* SplitMix64 step: a good 64-bit mixer for deriving seeds. */
uint64_t sg_splitmix64 (uint64_t *state);
