#include "sg-rng.h"

#include <gsl/gsl_randist.h>

uint64_t
sg_splitmix64 (uint64_t *state)
{
  /* Steele, Lea & Flood (2014), "Fast splittable pseudorandom number
   * generators"; constants from the reference implementation. */
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

gsl_rng *
sg_rng_new (uint64_t seed, uint64_t stream)
{
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  if (rng == NULL)
    return NULL;
  uint64_t state = seed ^ sg_splitmix64 (&stream);
  uint64_t mixed = sg_splitmix64 (&state);
  /* mt19937 uses 32 bits of its seed; 0 would select GSL's default seed. */
  unsigned long s = (unsigned long) (mixed & 0xffffffffUL);
  gsl_rng_set (rng, s == 0 ? 4357 : s);
  return rng;
}

void
sg_rng_free (gsl_rng *rng)
{
  if (rng)
    gsl_rng_free (rng);
}

double
sg_rng_gaussian (gsl_rng *rng)
{
  return gsl_ran_gaussian_ziggurat (rng, 1.0);
}

double
sg_rng_uniform_pos (gsl_rng *rng)
{
  return gsl_rng_uniform_pos (rng);
}
