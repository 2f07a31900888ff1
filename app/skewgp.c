/* skewgp.c — the headless SkewBench command line (docs/DESIGN.md §5). */
#include "config.h"

#include "skewgp-cli.h"
#include "skewgp-commands.h"
#include "sb-json-read.h"
#include "sg-linalg.h"

#include <stdio.h>
#include <string.h>

static const SkewgpCommand *const commands[] = {
  &skewgp_command_mvn_cdf,
  &skewgp_command_tmvn_sample,
  &skewgp_command_posterior,
  &skewgp_command_bo,
  &skewgp_command_fit,
  &skewgp_command_classify,
  &skewgp_command_link,
  &skewgp_command_new,
  &skewgp_command_ask,
  &skewgp_command_tell,
  &skewgp_command_status,
  &skewgp_command_refit,
  &skewgp_command_export,
  &skewgp_command_study,
  &skewgp_command_serve,
};

static void
print_usage (FILE *out)
{
  fprintf (out,
           "Usage: skewgp COMMAND FILE|-\n"
           "       skewgp COMMAND [OPTION...]   (bo, classify)\n"
           "       skewgp new|ask|tell|status|refit|export SESSION.json ...   (ask/tell)\n"
           "       skewgp study new|add|set|... STUDY ...   (many participants)\n"
           "       skewgp COMMAND --help\n\n"
           "Reads one JSON document from FILE (or standard input for '-'),\n"
           "writes one JSON document to standard output; bo and classify\n"
           "take options instead (see their --help).\n"
           "Input is strict JSON (RFC 8259), at most %" G_GSIZE_FORMAT " MiB and %d levels\n"
           "deep; duplicate members, content after the document and integers\n"
           "beyond 64 bits are refused with FILE:LINE:COLUMN.\n"
           "Sizes are limited per command so that one input stays within a\n"
           "few GB of memory: mvn-cdf and tmvn-sample d <= 2000, posterior and\n"
           "fit 5000 observations, link n x n_basis^2 <= 2^28, classify CSV\n"
           "files 64 MiB (see each command's --help); larger inputs exit 2.\n"
           "Sizes of ask/tell: a session's questions use the exact model up to\n"
           "500 answers and the stored sparse fit (skewgp refit) up to 10,000;\n"
           "a hierarchical study's, the exact model up to 300 answers in all\n"
           "and the stored population cache up to 10,000 answers and 500\n"
           "participants (skewgp refit --help).\n"
           "Exit status: 0 success, 1 numerical failure, 2 bad input.\n\n"
           "Commands:\n", SB_JSON_READ_MAX_BYTES >> 20, SB_JSON_READ_MAX_DEPTH);
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-14s %s\n", commands[i]->name, commands[i]->summary);
}

static const SkewgpCommand *
find_command (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (commands[i]->name, name) == 0)
      return commands[i];
  return NULL;
}

int
main (int argc, char *argv[])
{
  if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    {
      print_usage (argc < 2 ? stderr : stdout);
      return argc < 2 ? SKEWGP_EXIT_INPUT : SKEWGP_EXIT_OK;
    }

  sg_blas_use_default_threads ();
  const SkewgpCommand *cmd = find_command (argv[1]);
  if (cmd == NULL)
    {
      fprintf (stderr, "skewgp: unknown command '%s' (see skewgp --help)\n", argv[1]);
      return SKEWGP_EXIT_INPUT;
    }
  if (cmd->help != NULL && argc >= 3
      && (strcmp (argv[2], "--help") == 0 || strcmp (argv[2], "-h") == 0))
    {
      fputs (cmd->help, stdout);
      return SKEWGP_EXIT_OK;
    }
  if (cmd->run_argv != NULL)
    return cmd->run_argv (argc - 2, argv + 2);
  if (argc != 3)
    {
      fprintf (stderr, "skewgp %s: expected exactly one argument, FILE or '-'\n", cmd->name);
      return SKEWGP_EXIT_INPUT;
    }

  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) doc = skewgp_read_document (argv[2], &error);
  if (doc == NULL || !cmd->run (json_node_get_object (doc), &error))
    {
      fprintf (stderr, "skewgp %s: %s\n", cmd->name, error->message);
      return g_error_matches (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_NUMERIC)
               ? SKEWGP_EXIT_NUMERIC : SKEWGP_EXIT_INPUT;
    }
  return SKEWGP_EXIT_OK;
}
