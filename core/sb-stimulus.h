/* sb-stimulus.h — what each option of a question shows (the experiment's
 * "stimulus"), read from and written to the session file and `skewgp new`:
 *
 *   "stimulus": {"kind": "colour" | "image" | "sound" | "text" | "file",
 *                "command": "render-face --width {width} -o {output}",
 *                "extension": "png", "timeout": 10,
 *                "text": "Font size {size} pt", "space": "oklch" | "hsl"}
 *
 * colour  the first three parameters as OKLCH (lightness in % or [0, 1],
 *         chroma, hue in degrees; "space": "hsl" reads hue, saturation %,
 *         lightness % as older colour sessions did), a swatch;
 * image   COMMAND writes a PNG, JPEG or SVG file to {output};
 * sound   COMMAND writes a sound file (WAV, OGG, ...) to {output};
 * text    TEXT with the values filled in;
 * file    the file of the setting in the experiment's candidate set
 *         (sb-candidates.h): an image (png, jpg, jpeg, svg) or a sound
 *         (wav, ogg, oga, flac, mp3), told apart by the file's extension.
 *         An experiment with a candidate set and no "stimulus" shows its
 *         files this way when every file has one of these extensions.
 * TEXT is also an optional caption under an image, a sound or a file.
 *
 * Templates name parameters in braces, {width}, and the command also
 * {output}, the file it must write; "{{" and "}}" are literal braces. The
 * command is split into arguments like a shell would (quotes, no
 * variables, no pipes) and each argument filled in on its own, so a value
 * can never become a second command. It runs in the session file's folder.
 * EXTENSION (default png for images, wav for sounds) ends the output's
 * file name, for tools that choose the format by it; TIMEOUT (seconds,
 * default 10, at most 600) is how long one rendering may take.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "sb-experiment.h"

G_BEGIN_DECLS

#define SB_STIMULUS_DEFAULT_TIMEOUT 10.0
#define SB_STIMULUS_MAX_TIMEOUT 600.0

const char *sb_stimulus_kind_to_string (SbStimulusKind kind);
gboolean sb_stimulus_kind_from_string (const char *name, SbStimulusKind *kind);

/* What the file PATH is by its extension (case-insensitive):
 * SB_STIMULUS_IMAGE, SB_STIMULUS_SOUND, or SB_STIMULUS_NONE when it is
 * neither. */
SbStimulusKind sb_stimulus_kind_for_file (const char *path);
/* The first row of C whose file is neither an image nor a sound, or -1. */
gssize sb_stimulus_first_unknown_file (const SbCandidates *c);

/* Reads the "stimulus" object NODE into OUT (cleared first); FALSE with
 * ERROR (SB_SESSION_ERROR_INVALID) naming the field that is wrong. The
 * placeholders are checked by sb_stimulus_validate(), which knows the
 * parameters. */
gboolean sb_stimulus_from_json (JsonNode *node, SbStimulus *out, GError **error);
/* The object written to the file; NULL for SB_STIMULUS_NONE. */
JsonNode *sb_stimulus_to_json (const SbStimulus *stimulus);

/* The stimulus of EXP can be shown: the fields its kind needs, every
 * placeholder a parameter (or {output} in a command), the command
 * splittable into arguments and writing {output}, a colour stimulus with
 * three parameters, a file stimulus with a candidate set whose files
 * are all images or sounds. FALSE with ERROR, e.g. "stimulus: unknown placeholder
 * {smil} in 'command' (known: {width}, {smile}, {output})". */
gboolean sb_stimulus_validate (const SbExperiment *exp, GError **error);

/* The program of a renderer COMMAND (its first word) as a path to run:
 * a relative path with a folder ("./render.sh", "bin/render") or a bare
 * name of an executable file in BASE_DIR ("render.sh") is made absolute
 * against BASE_DIR, the experiment's folder; other bare names are looked
 * up in PATH as usual. NULL when COMMAND does not split. */
char *sb_stimulus_program_path (const char *command, const char *base_dir);
/* EXP's renderer command with its program made absolute as
 * sb_stimulus_program_path() says (the rest unchanged, re-quoted): for
 * an experiment copied away from its folder, as a study's participants'
 * sessions are. */
void sb_stimulus_resolve_command (SbExperiment *exp, const char *base_dir);

/* TEMPLATE with the placeholders replaced by the values of X (the
 * experiment's dimension) and {output} by OUTPUT (NULL: refused as
 * unknown, as in text). Values are written in full precision when
 * PRECISE (commands: the renderer gets exactly the setting), otherwise
 * with the digits the app shows (sb_format_coordinate, without unit).
 * NULL with ERROR for an unknown placeholder or an unmatched brace. */
char *sb_stimulus_expand (const char *template_, const SbExperiment *exp, const double *x,
                          const char *output, gboolean precise, GError **error);

G_END_DECLS
