/* skewgp-cli.h — what the `skewgp` subcommands share: reading and
 * writing their JSON, the one option parser, and the steps of the
 * session and study commands.
 *
 * Contract (docs/DESIGN.md §5): JSON in (a file or "-" for stdin), JSON out on
 * stdout, one line on stderr and exit status 2 for bad input, 1 for a
 * numerical failure. Nothing is written to stdout unless the command
 * succeeds.
 */
#pragma once

#include "sb-json-write.h"
#include "sb-population.h"
#include "sb-session.h"
#include "sb-study.h"

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

enum {
  SKEWGP_EXIT_OK = 0,
  SKEWGP_EXIT_NUMERIC = 1,
  SKEWGP_EXIT_INPUT = 2,
};

#define SKEWGP_CLI_ERROR (skewgp_cli_error_quark ())
GQuark skewgp_cli_error_quark (void);
typedef enum {
  SKEWGP_CLI_ERROR_INPUT,    /* bad input: exit 2 */
  SKEWGP_CLI_ERROR_NUMERIC,  /* numerical failure: exit 1 */
} SkewgpCliError;

typedef struct {
  const char *name;
  const char *summary;
  /* Full help, every field documented; NULL for commands whose
   * GOptionContext prints it (skewgp_parse_options). */
  const char *help;
  /* Runs the command on a parsed document; prints the result to stdout on
   * success. Returns FALSE with ERROR set on failure. */
  gboolean (*run) (JsonObject *input, GError **error);
  /* Optional: commands that take flags instead of one JSON document (bo).
   * When set, main() passes the arguments after the command name and
   * returns its exit status; main() handles --help only if HELP is set. */
  int (*run_argv) (int argc, char **argv);
} SkewgpCommand;

/* Set ERROR (bad input: exit 2) from a printf-style message naming the
 * field and the problem; always returns FALSE. */
gboolean skewgp_input_error (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* Set ERROR (numerical failure: exit 1) to "WHAT: <sg_strerror (STATUS)>";
 * always returns FALSE. */
gboolean skewgp_numeric_error (GError **error, const char *what, int status);

/* Reads and parses FILE ("-" = stdin) with the strict reader
 * (sb-json-read.h: size and depth limits, no duplicate members, no
 * trailing content, numbers json-glib reads exactly); the root must be an
 * object. Errors are input errors naming FILE:LINE:COLUMN. */
JsonNode *skewgp_read_document (const char *path, GError **error);
/* Pretty-prints NODE to stdout followed by a newline (sb-json-write: valid
 * JSON numbers, unlike json-glib 1.6's generator). */
void skewgp_print_json (JsonNode *node);
/* NODE on one line (JSON Lines output of `skewgp bo`). */
void skewgp_print_json_line (JsonNode *node);

/* Field readers. Each one names the field in its error message:
 * "field 'cov': row 2 has 3 entries, expected 4". Absent optional fields
 * leave the output untouched and return TRUE. */
gboolean skewgp_get_double (JsonObject *obj, const char *field, gboolean required,
                            double *out, GError **error);
gboolean skewgp_get_int (JsonObject *obj, const char *field, gboolean required,
                         gint64 min, gint64 max, gint64 *out, GError **error);
gboolean skewgp_get_bool (JsonObject *obj, const char *field, gboolean required,
                          gboolean *out, GError **error);
gboolean skewgp_get_string (JsonObject *obj, const char *field, gboolean required,
                            const char **out, GError **error);
/* A vector of finite numbers; null entries become NULL_VALUE when ALLOW_NULL
 * (used for infinite bounds), otherwise they are an error. EXPECT_LEN = 0
 * accepts any non-zero length. *OUT is g_free-able; *LEN receives the size. */
gboolean skewgp_get_vector (JsonObject *obj, const char *field, gboolean required,
                            gsize expect_len, gboolean allow_null, double null_value,
                            double **out, gsize *len, GError **error);
/* A matrix (array of equal-length rows of finite numbers), row-major. */
gboolean skewgp_get_matrix (JsonObject *obj, const char *field, gboolean required,
                            gsize expect_rows, gsize expect_cols,
                            double **out, gsize *rows, gsize *cols, GError **error);
/* Rejects unknown fields so that typos are not silently ignored. */
gboolean skewgp_check_fields (JsonObject *obj, const char *where,
                              const char *const *known, GError **error);

/* JSON builders for results. */
JsonNode *skewgp_vector_node (const double *x, gsize n);
JsonNode *skewgp_matrix_node (const double *a, gsize rows, gsize cols);

/* Members of the result object B is building, one call each (integers,
 * booleans and strings by sb_json_add_int, _bool, _string; a number that
 * is null when not finite, for members documented as null in that case
 * such as the log of a probability that is exactly 0, by
 * sb_json_add_number). A non-finite VALUE given to skewgp_add_double is a
 * numerical failure (skewgp_print_builder exits 1 naming the member). */
void skewgp_add_double (JsonBuilder *b, const char *name, double value);
/* A vector of N numbers, or null when X is NULL. */
void skewgp_add_vector (JsonBuilder *b, const char *name, const double *x, gsize n);
void skewgp_add_matrix (JsonBuilder *b, const char *name, const double *a, gsize rows,
                        gsize cols);
/* NODE (taken) as member NAME. */
void skewgp_add_node (JsonBuilder *b, const char *name, JsonNode *node);
/* Prints what B built: a pretty document, or one JSON line (ONE_LINE). */
void skewgp_print_builder (JsonBuilder *b, gboolean one_line);

/* ---- Command-line options ------------------------------------------------
 * One parser for every command that takes options. --name VALUE and
 * --name=VALUE both work (a short -o takes its value as the next
 * argument); "--" ends the options. Errors are input errors in the CLI's
 * words: "unknown option '--x' (see skewgp COMMAND --help)", "--seed
 * needs a value", "--wide takes no value", "unexpected argument 'y' (see
 * skewgp COMMAND --help)" ("(options start with --)" for a command that
 * takes no arguments). */
typedef struct {
  const char *command;          /* named in the errors                        */
  const GOptionEntry *entries;  /* the options, NULL-terminated               */
  /* With SUMMARY, -h/--help prints the help GLib builds from SUMMARY,
   * ENTRIES and DESCRIPTION and exits 0. NULL: the command's help is its
   * own text, which main() prints. */
  const char *summary;
  const char *description;
  guint max_positional;         /* arguments that are not options; G_MAXUINT:
                                   any number (the command checks the count) */
} SkewgpOptionSpec;

/* Parses the ARGC ARGV after the command name: the options into their
 * ENTRIES' arg_data (strings newly allocated, as GLib gives them), the
 * other arguments, in order, appended to POSITIONAL (pointers into ARGV;
 * may be NULL when SPEC takes none). Values that name files,
 * participants or notes are G_OPTION_ARG_FILENAME: the bytes given,
 * whatever the locale. */
gboolean skewgp_parse_options (const SkewgpOptionSpec *spec, int argc, char **argv,
                               GPtrArray *positional, GError **error);
/* TEXT as an integer in [MIN, MAX] for option FLAG ("--seed"). */
gboolean skewgp_option_long (const char *flag, const char *text, long min, long max,
                             long *out, GError **error);
/* TEXT as a finite number for option FLAG. */
gboolean skewgp_option_double (const char *flag, const char *text, double *out,
                               GError **error);

/* ---- Session and study commands (new, ask, tell, status, export, study) -- */

/* The CLI's error for ERR (taken): engine failures are numerical (exit
 * 1), the rest bad input (exit 2). Returns FALSE. */
gboolean skewgp_forward_error (GError *err, GError **error);
/* The exit status for ERROR (taken; NULL: success), printed as "skewgp
 * COMMAND: message". */
int skewgp_finish (const char *command, GError *error);

/* The session file at PATH, or NULL with ERROR. */
SbSession *skewgp_load_session (const char *path, GError **error);
/* The write lock of the session at PATH for COMMAND ("skewgp tell"). */
SbFileLock *skewgp_lock_session (const char *path, const char *command, GError **error);
/* The write lock of the session at PATH for COMMAND, with the session read
 * under it into *SESSION (replacing what it held: another writer may have
 * changed the file since it was read), or NULL with ERROR. */
SbFileLock *skewgp_lock_and_read_session (const char *path, const char *command,
                                          SbSession **session, GError **error);
/* Members "answers", "budget" and "done" of SESSION. */
void skewgp_add_done (JsonBuilder *b, SbSession *session);
/* Member "parameters": the names of EXP's parameters. */
void skewgp_add_parameter_names (JsonBuilder *b, const SbExperiment *exp);

/* TRUE when PATH is a study folder (it holds a study index). */
gboolean skewgp_is_study (const char *path);
/* The study at DIR, or NULL with ERROR. */
SbStudy *skewgp_open_study (const char *dir, GError **error);
/* Where COMMAND's session is: TARGET, the SESSION.json given, or with
 * PARTICIPANT (--participant CODE) the participant's file in the study
 * folder TARGET. RATE gets the study's repeat rate (0 for a lone
 * session); STUDY_OUT (when not NULL) the study, or NULL. */
gboolean skewgp_resolve_target (const char *command, const char *target,
                                const char *participant, char **path, double *rate,
                                SbStudy **study_out, GError **error);
/* The population model of STUDY (sb-population.h), or NULL with ERROR
 * (a numerical failure exits 1). */
SbPopulationResult *skewgp_population_model (SbStudy *study, GError **error);

G_END_DECLS
