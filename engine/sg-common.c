#include "sg-common.h"

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
