/* sg-common.h — status codes and callbacks shared by every engine module.
 *
 * The engine never aborts, exits or prints: every function that can fail
 * returns one of these codes and leaves its outputs untouched on failure.
 *
 * Conventions every module follows:
 * - Status: a function that can fail returns sg_status (SG_OK or an SG_E*
 *   code below; sg_strerror gives its one-line meaning). Functions that
 *   return 0/1 answers (sg_bo_best, sg_all_finite, ...) return int.
 * - Options: each options struct sg_X_options has
 *   sg_X_options_default (sg_X_options *opt), which writes the documented
 *   defaults; callers call it, then set what they change. A NULL options
 *   pointer means the defaults. Zero is never a stand-in for "the default":
 *   a field whose value is out of range is SG_EINVAL (a zero that means
 *   something, such as "no time budget" or "choose the thinning
 *   automatically", is documented as that meaning).
 * - Progress and cancellation: a function with a long loop takes
 *   `const sg_progress *progress` (may be NULL) as an argument after its
 *   options and RNG and before its outputs; options structs hold settings
 *   only, so they can be stored and copied (sg_bo_config, sg_evidence_ctx).
 * - Lifetimes: an object the engine allocates is made by sg_X_new and
 *   released by sg_X_free (NULL is allowed); a struct the caller owns is
 *   set up by sg_X_init (or _build) and its arrays released by sg_X_clear.
 * - Sizes: counts, dimensions and iteration numbers are size_t.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef enum {
  SG_OK = 0,
  SG_EINVAL,      /* an argument is malformed: size, NaN, lower > upper */
  SG_ENOTPD,      /* a matrix is not positive definite, even after jitter */
  SG_ENOMEM,      /* an allocation failed */
  SG_ENUMERIC,    /* a numerical failure: overflow, no convergence */
  SG_ECANCELLED,  /* the caller's progress callback asked to stop */
  SG_EINFEASIBLE, /* a constraint set is empty (probability zero) */
} sg_status;

/* One line, no trailing period: suitable after "skewgp: ". */
const char *sg_strerror (sg_status status);

/* Enum names from a table of N names indexed by value: NAMES[VALUE], or
 * "?" beyond the table; and the value of NAME (SG_EINVAL, *VALUE
 * untouched, for NULL or a name not in the table). Every engine enum
 * with names uses these. */
const char *sg_name_of (const char *const *names, size_t n, size_t value);
sg_status sg_name_lookup (const char *const *names, size_t n, const char *name, size_t *value);

/* Progress and cancellation for long loops. FRACTION is in [0, 1].
 * Return nonzero to ask the loop to stop; it then returns SG_ECANCELLED
 * promptly and leaves its outputs untouched. */
typedef int (*sg_progress_fn) (double fraction, void *user_data);

typedef struct {
  sg_progress_fn func;
  void *user_data;
} sg_progress;

/* Seconds on the monotonic clock (for time budgets; only differences
 * mean anything). */
double sg_monotonic_seconds (void);

/* Calls P (if any) and returns SG_ECANCELLED when it asks to stop. */
sg_status sg_progress_report (const sg_progress *p, double fraction);

/* One step of a longer loop: reports its fractions into [from, to] of
 * its parent's, so a loop of steps reports 0..1 once overall. */
typedef struct {
  const sg_progress *parent;
  double from, to;
  sg_progress self;
} sg_progress_part;

/* PART set up as PARENT's range [FROM, TO]; returns the progress to pass
 * to the step, NULL when PARENT is NULL. */
const sg_progress *sg_progress_part_init (sg_progress_part *part, const sg_progress *parent,
                                          double from, double to);
