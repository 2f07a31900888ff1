/* sg-lattice.c — lookup in the table of rank-1 lattice rules (sg-lattice.h). */
#include "sg-lattice.h"

const uint32_t *
sg_lattice_rule (size_t n_wanted, size_t *n)
{
  for (size_t t = 0; t < sg_lattice_n_rules; t++)
    {
      size_t size = sg_lattice_sizes[t];
      if (size < n_wanted)
        continue;
      if (size > n_wanted + n_wanted / 20)
        return NULL;   /* the next rule would add more than 5% points */
      *n = size;
      return sg_lattice_generators[t];
    }
  return NULL;
}
