/* sb-candidates.h — an experiment's fixed candidate set: a folder of
 * stimuli (images, sounds) with a CSV of their feature values, the model
 * choosing among them (the engine's candidate set, sg-bo.h).
 *
 * The experiment (session file, `skewgp new`) names it:
 *   "candidates": {"csv": "faces.csv", "file_column": "file",
 *                  "folder": "faces/"}
 * CSV and FOLDER are relative to the folder of the experiment or session
 * file (or absolute); the files named in FILE_COLUMN (default "file") are
 * relative to FOLDER (default: the CSV's folder). The CSV's first line
 * names the columns; every column named like a parameter gives that
 * parameter's value for each stimulus (others are ignored), and a
 * parameter without "lower"/"upper" gets the column's smallest and
 * largest value (a column with one value v: [v - 1, v + 1]).
 *
 * Refused, naming what is wrong: a CSV that cannot be read or has no
 * header, a missing file column or parameter column, a cell that is not
 * a number (line and column), a value outside its parameter's range, two
 * rows with the same values (line numbers), a stimulus file that does
 * not exist, fewer rows than one question shows. A stimulus file name
 * must stay inside FOLDER (relative, no "..", not a symlink leading out)
 * and name a regular file of at most SB_CANDIDATE_FILE_MAX_BYTES: a
 * candidate set received from someone else cannot hand a client any
 * other file, nor a fifo or a device.
 */
#pragma once

#include "sb-experiment.h"

G_BEGIN_DECLS

/* 256 MiB: a long uncompressed sound or a large image, not a disk image. */
#define SB_CANDIDATE_FILE_MAX_BYTES ((goffset) 256 * 1024 * 1024)

/* Reads the candidate set CSV (FILE_COLUMN NULL: "file"; FOLDER NULL or
 * "": the CSV's folder), relative to BASE_DIR, for EXP's parameters and
 * attaches it to EXP. DERIVE (n_parameters flags, may be NULL) marks the
 * parameters whose range comes from the CSV. An experiment without a
 * stimulus then shows the candidates' files (SB_STIMULUS_FILE) when
 * every one is an image or a sound (sb-stimulus.h). FALSE with ERROR
 * (SB_SESSION_ERROR_INVALID, or the file error) and EXP unchanged
 * otherwise. */
gboolean sb_experiment_load_candidates (SbExperiment *exp, const char *csv,
                                        const char *file_column, const char *folder,
                                        const char *base_dir, const gboolean *derive,
                                        GError **error);

/* The stimulus file (a path, absolute when BASE_DIR was) of the setting
 * X of EXP: NULL without a candidate set or when X is none of them. */
char *sb_experiment_candidate_file (const SbExperiment *exp, const double *x);
/* The row of X in EXP's candidate set, or -1. */
gssize sb_experiment_candidate_index (const SbExperiment *exp, const double *x);

/* The CSV and folder paths to write in a session file in SESSION_DIR:
 * as given when SESSION_DIR is the base folder, else absolute. */
char *sb_candidates_path_for (const SbCandidates *c, const char *path, const char *session_dir);

G_END_DECLS
