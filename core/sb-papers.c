/* sb-papers.c — the papers SkewBench implements. */
#include "config.h"

#include "sb-papers.h"

const char *const *
sb_papers_all (void)
{
  static const char *const papers[] = {
    SB_PAPER_000,
    SB_PAPER_001,
    SB_PAPER_LAPLACE_EP,
    SB_PAPER_003,
    SB_PAPER_004,
    NULL,
  };

  return papers;
}
