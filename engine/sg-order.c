#include "sg-order.h"

static inline void
swap_d (double *a, double *b)
{
  double t = *a;
  *a = *b;
  *b = t;
}

static void
insertion_sort (double *a, long n)
{
  for (long i = 1; i < n; i++)
    {
      double x = a[i];
      long j = i;
      for (; j > 0 && a[j - 1] > x; j--)
        a[j] = a[j - 1];
      a[j] = x;
    }
}

/* Median-of-three pivot then Hoare partition of a[lo..hi]; afterwards
 * a[lo..*j] <= pivot <= a[*i..hi]. */
static void
partition (double *a, long lo, long hi, long *i_out, long *j_out)
{
  long mid = lo + (hi - lo) / 2;
  if (a[mid] < a[lo]) swap_d (&a[mid], &a[lo]);
  if (a[hi] < a[lo]) swap_d (&a[hi], &a[lo]);
  if (a[hi] < a[mid]) swap_d (&a[hi], &a[mid]);
  double pivot = a[mid];
  long i = lo, j = hi;
  while (i <= j)
    {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j)
        {
          swap_d (&a[i], &a[j]);
          i++;
          j--;
        }
    }
  *i_out = i;
  *j_out = j;
}

void
sg_select_kth (double *a, size_t n, size_t k)
{
  long lo = 0, hi = (long) n - 1, kk = (long) k;
  while (hi > lo)
    {
      if (hi - lo < 16)
        {
          insertion_sort (a + lo, hi - lo + 1);
          return;
        }
      long i, j;
      partition (a, lo, hi, &i, &j);
      if (kk <= j)
        hi = j;
      else if (kk >= i)
        lo = i;
      else
        return;
    }
}

void
sg_sort_doubles (double *a, size_t n_in)
{
  long n = (long) n_in;
  while (n > 16)
    {
      long i, j;
      partition (a, 0, n - 1, &i, &j);
      /* [0, j] and [i, n) remain; recurse on the smaller one */
      if (j + 1 < n - i)
        {
          sg_sort_doubles (a, (size_t) (j + 1));
          a += i;
          n -= i;
        }
      else
        {
          sg_sort_doubles (a + i, (size_t) (n - i));
          n = j + 1;
        }
    }
  insertion_sort (a, n);
}
