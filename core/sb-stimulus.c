/* sb-stimulus.c — the experiment's stimulus: file form, checks, templates. */
#include "config.h"

#include "sb-stimulus.h"
#include "sb-json-write.h"
#include "sb-setting.h"

#include "sb-enum-names.h"
#include "sb-experiment-templates.h"

#include <math.h>
#include <string.h>

static const char *const kind_names[] = { "none", "colour", "image", "sound", "text", "file" };
static const char *const space_names[] = { "oklch", "hsl" };

SB_NAMED_ENUM (SbStimulusKind, sb_stimulus_kind_to_string, sb_stimulus_kind_from_string,
               kind_names, "none")

/* File extensions (lower case) of the images and sounds a file stimulus
 * shows: what GTK's image loaders and its GStreamer media backend read. */
static const char *const image_extensions[] = { "png", "jpg", "jpeg", "svg", NULL };
static const char *const sound_extensions[] = { "wav", "ogg", "oga", "flac", "mp3", NULL };

SbStimulusKind
sb_stimulus_kind_for_file (const char *path)
{
  const char *dot = path ? strrchr (path, '.') : NULL;
  g_autofree char *ext = NULL;

  if (dot == NULL || strchr (dot, '/') != NULL)
    return SB_STIMULUS_NONE;
  ext = g_ascii_strdown (dot + 1, -1);
  if (g_strv_contains (image_extensions, ext))
    return SB_STIMULUS_IMAGE;
  if (g_strv_contains (sound_extensions, ext))
    return SB_STIMULUS_SOUND;
  return SB_STIMULUS_NONE;
}

gssize
sb_stimulus_first_unknown_file (const SbCandidates *c)
{
  for (guint i = 0; c && i < c->n; i++)
    if (sb_stimulus_kind_for_file (c->files[i]) == SB_STIMULUS_NONE)
      return (gssize) i;
  return -1;
}

/* The optional string member KEY of OBJ (NULL when absent). */
static gboolean
string_member (JsonObject *obj, const char *key, char **out, GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return sb_invalid (error, "stimulus: '%s' must be a string", key);
  *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

gboolean
sb_stimulus_from_json (JsonNode *node, SbStimulus *out, GError **error)
{
  static const char *const known[] = { "kind", "command", "extension", "timeout", "text",
                                       "space", NULL };
  JsonObject *obj;
  JsonNode *timeout;
  g_autofree char *kind = NULL, *space = NULL;
  SbStimulus s = { 0 };

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return sb_invalid (error, "stimulus: must be an object such as {\"kind\": \"image\", \"command\": ...}");
  obj = json_node_get_object (node);
  {
    g_autoptr (GList) members = json_object_get_members (obj);
    for (GList *m = members; m; m = m->next)
      if (!g_strv_contains (known, m->data))
        return sb_invalid (error, "stimulus: unknown field '%s' (expected kind, command, extension, "
                           "timeout, text or space)", (const char *) m->data);
  }
  s.timeout = SB_STIMULUS_DEFAULT_TIMEOUT;
  if (!string_member (obj, "kind", &kind, error) || !string_member (obj, "command", &s.command, error)
      || !string_member (obj, "extension", &s.extension, error)
      || !string_member (obj, "text", &s.text, error) || !string_member (obj, "space", &space, error))
    goto fail;
  if (kind == NULL || !sb_stimulus_kind_from_string (kind, &s.kind) || s.kind == SB_STIMULUS_NONE)
    {
      sb_invalid (error, "stimulus: 'kind' must be \"colour\", \"image\", \"sound\", \"text\" or "
                  "\"file\"%s%s%s",
                  kind ? ", not \"" : "", kind ? kind : "", kind ? "\"" : "");
      goto fail;
    }
  if (space && g_str_equal (space, "hsl"))
    s.colour_space = SB_COLOUR_HSL;
  else if (space && !g_str_equal (space, "oklch"))
    {
      sb_invalid (error, "stimulus: 'space' must be \"oklch\" or \"hsl\", not \"%s\"", space);
      goto fail;
    }
  timeout = json_object_get_member (obj, "timeout");
  if (timeout)
    {
      GType t = JSON_NODE_HOLDS_VALUE (timeout) ? json_node_get_value_type (timeout) : G_TYPE_INVALID;
      if (t != G_TYPE_DOUBLE && t != G_TYPE_INT64)
        {
          sb_invalid (error, "stimulus: 'timeout' must be a number of seconds");
          goto fail;
        }
      s.timeout = json_node_get_double (timeout);
    }
  sb_stimulus_clear (out);
  *out = s;
  return TRUE;

fail:
  sb_stimulus_clear (&s);
  return FALSE;
}

JsonNode *
sb_stimulus_to_json (const SbStimulus *s)
{
  g_autoptr (JsonBuilder) b = NULL;

  if (s->kind == SB_STIMULUS_NONE)
    return NULL;
  b = json_builder_new ();
  json_builder_begin_object (b);
  sb_json_add_string (b, "kind", sb_stimulus_kind_to_string (s->kind));
  if (s->kind == SB_STIMULUS_COLOUR)
    {
      sb_json_add_string (b, "space", space_names[s->colour_space]);
    }
  if (s->command)
    {
      sb_json_add_string (b, "command", s->command);
      json_builder_set_member_name (b, "timeout");
      json_builder_add_double_value (b, s->timeout);
    }
  if (s->extension)
    {
      sb_json_add_string (b, "extension", s->extension);
    }
  if (s->text)
    {
      sb_json_add_string (b, "text", s->text);
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* ---- Templates ------------------------------------------------------------ */

static int
parameter_index (const SbExperiment *exp, const char *name, gsize len)
{
  for (guint j = 0; j < exp->n_parameters; j++)
    if (strlen (exp->parameters[j].name) == len && strncmp (exp->parameters[j].name, name, len) == 0)
      return (int) j;
  return -1;
}

static char *
known_placeholders (const SbExperiment *exp, gboolean with_output)
{
  GString *out = g_string_new (NULL);

  for (guint j = 0; j < exp->n_parameters; j++)
    g_string_append_printf (out, "%s{%s}", j ? ", " : "", exp->parameters[j].name);
  if (with_output)
    g_string_append (out, ", {output}");
  return g_string_free (out, FALSE);
}

/* The shortest decimal that reads back as V exactly. */
static void
append_precise (GString *out, double v)
{
  static const char *const formats[] = { "%.6g", "%.15g", "%.17g" };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, sizeof buf, formats[i], v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }
  g_string_append (out, buf);
}

char *
sb_stimulus_expand (const char *template_, const SbExperiment *exp, const double *x,
                    const char *output, gboolean precise, GError **error)
{
  g_autoptr (GString) out = g_string_new (NULL);

  for (const char *p = template_; *p; p++)
    {
      const char *close;
      int j;

      if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}'))
        {
          g_string_append_c (out, *p++);
          continue;
        }
      if (*p == '}')
        {
          sb_invalid (error, "stimulus: a '}' without its '{' in \"%s\" (write \"}}\" for a brace)", template_);
          return NULL;
        }
      if (*p != '{')
        {
          g_string_append_c (out, *p);
          continue;
        }
      close = strchr (p + 1, '}');
      if (close == NULL)
        {
          sb_invalid (error, "stimulus: a '{' without its '}' in \"%s\" (write \"{{\" for a brace)", template_);
          return NULL;
        }
      j = parameter_index (exp, p + 1, close - p - 1);
      if (j >= 0 && precise)
        append_precise (out, x[j]);
      else if (j >= 0)
        {
          SbParameter bare = exp->parameters[j];
          g_autofree char *v = NULL;
          bare.unit = (char *) "";
          v = sb_format_coordinate (&bare, x[j]);
          g_string_append (out, v);
        }
      else if (output && close - p - 1 == 6 && strncmp (p + 1, "output", 6) == 0)
        g_string_append (out, output);
      else
        {
          g_autofree char *known = known_placeholders (exp, output != NULL);
          sb_invalid (error, "stimulus: unknown placeholder {%.*s} in \"%s\" (known: %s)",
                      (int) (close - p - 1), p + 1, template_, known);
          return NULL;
        }
      p = close;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* ---- Checks ---------------------------------------------------------------- */

static gboolean
check_template (const SbExperiment *exp, const char *field, const char *template_,
                gboolean command, GError **error)
{
  double mid[SB_MAX_PARAMETERS];
  g_autofree char *expanded = NULL;
  GError *local = NULL;

  for (guint j = 0; j < exp->n_parameters; j++)
    mid[j] = 0.5 * (exp->parameters[j].lower + exp->parameters[j].upper);
  expanded = sb_stimulus_expand (template_, exp, mid, command ? "\x01" : NULL, command, &local);
  if (expanded == NULL)
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID, "%s (in '%s')",
                   local->message, field);
      g_error_free (local);
      return FALSE;
    }
  if (command)
    {
      g_auto (GStrv) argv = NULL;
      if (!g_shell_parse_argv (template_, NULL, &argv, &local))
        {
          sb_invalid (error, "stimulus: 'command' cannot be split into arguments: %s", local->message);
          g_error_free (local);
          return FALSE;
        }
      if (strchr (expanded, '\x01') == NULL)
        return sb_invalid (error, "stimulus: 'command' must name the file it writes as {output}");
    }
  return TRUE;
}

gboolean
sb_stimulus_validate (const SbExperiment *exp, GError **error)
{
  const SbStimulus *s = &exp->stimulus;
  gboolean rendered = s->kind == SB_STIMULUS_IMAGE || s->kind == SB_STIMULUS_SOUND;

  if ((guint) s->kind > SB_STIMULUS_FILE || (guint) s->colour_space > SB_COLOUR_HSL)
    return sb_invalid (error, "stimulus: unknown kind or colour space");
  if (s->kind == SB_STIMULUS_NONE)
    return TRUE;
  if (s->kind == SB_STIMULUS_COLOUR && exp->n_parameters < 3)
    return sb_invalid (error, "stimulus: a colour needs three parameters (lightness, chroma and hue for "
                       "OKLCH), this experiment has %u", exp->n_parameters);
  if (rendered && (s->command == NULL || *s->command == '\0'))
    return sb_invalid (error, "stimulus: an %s needs a 'command' that renders it to {output}",
                       sb_stimulus_kind_to_string (s->kind));
  if (!rendered && s->command)
    return sb_invalid (error, "stimulus: 'command' belongs to image and sound stimuli, not to a %s stimulus",
                       sb_stimulus_kind_to_string (s->kind));
  if (s->kind == SB_STIMULUS_TEXT && (s->text == NULL || *s->text == '\0'))
    return sb_invalid (error, "stimulus: a text stimulus needs a 'text' template, e.g. \"Font size {%s}\"",
                       exp->parameters[0].name);
  if (rendered && !(isfinite (s->timeout) && s->timeout > 0 && s->timeout <= SB_STIMULUS_MAX_TIMEOUT))
    return sb_invalid (error, "stimulus: 'timeout' must lie in (0, %g] seconds", SB_STIMULUS_MAX_TIMEOUT);
  if (s->extension && (!*s->extension || strpbrk (s->extension, "/\\ .") != NULL))
    return sb_invalid (error, "stimulus: 'extension' must be a plain file extension such as \"png\"");
  if (s->command && !check_template (exp, "command", s->command, TRUE, error))
    return FALSE;
  return s->text == NULL || check_template (exp, "text", s->text, FALSE, error);
}

char *
sb_stimulus_program_path (const char *command, const char *base_dir)
{
  g_auto (GStrv) argv = NULL;
  g_autofree char *local = NULL;
  const char *program;

  if (command == NULL || !g_shell_parse_argv (command, NULL, &argv, NULL))
    return NULL;
  program = argv[0];
  if (g_path_is_absolute (program) || base_dir == NULL)
    return g_strdup (program);
  local = g_build_filename (base_dir, program, NULL);
  if (strchr (program, G_DIR_SEPARATOR) != NULL
      || g_file_test (local, G_FILE_TEST_IS_EXECUTABLE | G_FILE_TEST_IS_REGULAR))
    return g_canonicalize_filename (program, base_dir);
  return g_strdup (program);
}

void
sb_stimulus_resolve_command (SbExperiment *exp, const char *base_dir)
{
  g_autofree char *program = sb_stimulus_program_path (exp->stimulus.command, base_dir);
  g_auto (GStrv) argv = NULL;
  g_autoptr (GString) out = NULL;

  if (program == NULL || !g_shell_parse_argv (exp->stimulus.command, NULL, &argv, NULL)
      || g_str_equal (program, argv[0]))
    return;
  out = g_string_new (NULL);
  for (guint i = 0; argv[i] != NULL; i++)
    {
      const char *arg = i == 0 ? program : argv[i];
      gboolean plain = *arg != '\0';
      for (const char *c = arg; *c && plain; c++)
        plain = g_ascii_isalnum (*c) || strchr ("_{}./:=+,@%-", *c) != NULL;
      if (i > 0)
        g_string_append_c (out, ' ');
      if (plain)
        g_string_append (out, arg);
      else
        {
          g_autofree char *quoted = g_shell_quote (arg);
          g_string_append (out, quoted);
        }
    }
  g_free (exp->stimulus.command);
  exp->stimulus.command = g_string_free (g_steal_pointer (&out), FALSE);
}
