/* skewgp-commands.h — the subcommands of `skewgp`, one file each. */
#pragma once

#include "skewgp-cli.h"

extern const SkewgpCommand skewgp_command_mvn_cdf;      /* skewgp-mvn-cdf.c */
extern const SkewgpCommand skewgp_command_tmvn_sample;  /* skewgp-tmvn-sample.c */
extern const SkewgpCommand skewgp_command_posterior;    /* skewgp-posterior.c */
extern const SkewgpCommand skewgp_command_bo;           /* skewgp-bo.c */
extern const SkewgpCommand skewgp_command_fit;          /* skewgp-fit.c */
extern const SkewgpCommand skewgp_command_classify;     /* skewgp-classify.c */
extern const SkewgpCommand skewgp_command_link;         /* skewgp-link.c */
extern const SkewgpCommand skewgp_command_new;          /* skewgp-new.c */
extern const SkewgpCommand skewgp_command_ask;          /* skewgp-ask.c */
extern const SkewgpCommand skewgp_command_tell;         /* skewgp-tell.c */
extern const SkewgpCommand skewgp_command_status;       /* skewgp-status.c */
extern const SkewgpCommand skewgp_command_refit;        /* skewgp-refit.c */
extern const SkewgpCommand skewgp_command_export;       /* skewgp-export.c */
extern const SkewgpCommand skewgp_command_study;        /* skewgp-study.c */
extern const SkewgpCommand skewgp_command_serve;        /* skewgp-serve.c */
