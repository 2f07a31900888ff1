/* sb-papers.h — the papers SkewBench implements, cited the same way
 * everywhere a person reads them (the About dialog, the guided demos'
 * banners, the CLI's help). The source files cite them by their file
 * number in shared/papers ("001 eq. 25"); people get authors, titles and
 * venues.
 *
 * Each SB_PAPER_* is a string literal, so a text can be built at compile
 * time: SB_PAPER_001 ", Figure 5: …". */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SB_PAPER_000 \
  "Benavoli, Azzimonti & Piga, “Skew Gaussian Processes for Classification”, " \
  "Machine Learning 109, 1877–1902 (2020)"
#define SB_PAPER_001 \
  "Benavoli, Azzimonti & Piga, “A unified framework for closed-form nonparametric " \
  "regression, classification, preference and mixed problems with Skew Gaussian " \
  "Processes”, Machine Learning 110 (2021)"
#define SB_PAPER_003 \
  "Walder & Nock, “All your loss are belong to Bayes”, NeurIPS 2020"
#define SB_PAPER_004 \
  "Liu, Ong, Yu, Cai & Shen, “Scalable Gaussian Process Classification with " \
  "Additive Noise for Various Likelihoods”, arXiv:1909.06541 (2019)"
#define SB_PAPER_LAPLACE_EP \
  "Rasmussen & Williams, “Gaussian Processes for Machine Learning”, MIT Press " \
  "(2006), sections 3.4 and 3.6"

/* Short forms for labels and plot titles, where the full reference
 * does not fit; the About dialog and the demos' banners give it whole. */
#define SB_PAPER_000_SHORT "Benavoli et al. 2020"
#define SB_PAPER_001_SHORT "Benavoli et al. 2021"

/* Every reference above, in the order of the papers' numbers, NULL
 * terminated: what the About dialog lists under "How to cite". */
const char *const *sb_papers_all (void);

G_END_DECLS
