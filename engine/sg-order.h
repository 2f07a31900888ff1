/* sg-order.h — order statistics of double arrays (selection, sorting).
 *
 * Shared by the posterior summaries (quantiles, HPD intervals on grids)
 * and the acquisition functions (HPD of f(x) - f(x_r)): one quickselect,
 * one sort.
 */
#pragma once

#include <stddef.h>

/* Rearranges A[0..n) so that A[k] is the k-th smallest (0-based), nothing
 * before it larger and nothing after it smaller (Hoare's selection with a
 * median-of-three pivot, insertion sort on short ranges). O(n) expected. */
void sg_select_kth (double *a, size_t n, size_t k);
/* Sorts A[0..n) ascending (quicksort + insertion sort; inline comparisons
 * make it several times faster than qsort for doubles). */
void sg_sort_doubles (double *a, size_t n);
