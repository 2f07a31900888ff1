#include "sg-common.h"

#include <string.h>
#include <time.h>

double
sg_monotonic_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

const char *
sg_strerror (sg_status status)
{
  switch (status)
    {
    case SG_OK: return "success";
    case SG_EINVAL: return "invalid argument";
    case SG_ENOTPD: return "matrix is not positive definite, even after jitter";
    case SG_ENOMEM: return "out of memory";
    case SG_ENUMERIC: return "numerical failure";
    case SG_ECANCELLED: return "cancelled";
    case SG_EINFEASIBLE: return "constraints are infeasible (probability zero)";
    default: return "unknown error";
    }
}

sg_status
sg_progress_report (const sg_progress *p, double fraction)
{
  if (p == NULL || p->func == NULL)
    return SG_OK;
  return p->func (fraction, p->user_data) ? SG_ECANCELLED : SG_OK;
}

static int
part_report (double fraction, void *user_data)
{
  sg_progress_part *part = user_data;
  return sg_progress_report (part->parent,
                             part->from + (part->to - part->from) * fraction) != SG_OK;
}

const sg_progress *
sg_progress_part_init (sg_progress_part *part, const sg_progress *parent, double from,
                       double to)
{
  if (parent == NULL)
    return NULL;
  part->parent = parent;
  part->from = from;
  part->to = to;
  part->self.func = part_report;
  part->self.user_data = part;
  return &part->self;
}

const char *
sg_name_of (const char *const *names, size_t n, size_t value)
{
  return value < n ? names[value] : "?";
}

sg_status
sg_name_lookup (const char *const *names, size_t n, const char *name, size_t *value)
{
  for (size_t i = 0; name != NULL && i < n; i++)
    if (names[i] != NULL && *names[i] != '\0' && strcmp (name, names[i]) == 0)
      {
        *value = i;
        return SG_OK;
      }
  return SG_EINVAL;
}
