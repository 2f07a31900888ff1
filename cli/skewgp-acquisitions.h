/* skewgp-acquisitions.h — the acquisitions' help text (each engine name
 * with its source), shared by `skewgp bo --help` and `skewgp new --help`
 * so the two cannot drift apart. */
#pragma once

#define SKEWGP_ACQUISITIONS_HELP \
  "  ucb       dueling UCB: upper end of the 95% HPD interval of f(x) - f(x_r)\n" \
  "            (Benavoli et al., paper 001 sec. 5.2.1); the default for 5\n" \
  "            or more parameters, mixed mode and the Gaussian surrogates\n" \
  "  eiig      0.1 log E[Phi] + information gain (paper 001 sec. 5.2.1)\n" \
  "  epi       expected probability of improvement over x_r (paper 001)\n" \
  "  thompson  one posterior sample of f(x) - f(x_r) (paper 001's code)\n" \
  "  qeubo     E[max f] over the options shown, all free (Astudillo et al.,\n" \
  "            AISTATS 2023)\n" \
  "  hb-ei     hallucination believer EI: x_r against the maximiser of EI of\n" \
  "            the GP given one posterior sample of the latent duel variables\n" \
  "            (Takeno et al., ICML 2023, sec. 5); exact SkewGP only\n" \
  "  hb-ucb    the same with UCB, mean + 2 sd (Takeno et al. 2023); the\n" \
  "            default for preference-mode duels of up to 4 parameters with\n" \
  "            the exact SkewGP, chosen by the published protocols\n" \
  "            (tests/bench/results-acq.md)\n" \
  "  dts       dueling Thompson sampling: a posterior sample's maximiser (its\n" \
  "            soft-Copeland maximiser) against the point of largest variance\n" \
  "            of the win probability (Gonzalez et al., ICML 2017, sec. 4.3)\n" \
  "  muc       maximally uncertain challenge: x_r against the point of largest\n" \
  "            epistemic variance of its win probability (Fauvel & Chalk 2021)\n"
