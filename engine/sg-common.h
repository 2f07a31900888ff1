/* sg-common.h — status codes and callbacks shared by every engine module.
 *
 * The engine never aborts, exits or prints: every function that can fail
 * returns one of these codes and leaves its outputs untouched on failure.
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

/* Progress and cancellation for long loops. FRACTION is in [0, 1].
 * Return nonzero to ask the loop to stop; it then returns SG_ECANCELLED
 * promptly and leaves its outputs untouched. */
typedef int (*sg_progress_fn) (double fraction, void *user_data);

typedef struct {
  sg_progress_fn func;
  void *user_data;
} sg_progress;

/* Calls P (if any) and returns SG_ECANCELLED when it asks to stop. */
sg_status sg_progress_report (const sg_progress *p, double fraction);
