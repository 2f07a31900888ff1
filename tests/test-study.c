/* test-study.c — a study folder with many participants (core/sb-study.h):
 * created only where nothing is overwritten, read back, participants
 * added under codes (generated ones unambiguous and unique, given ones
 * checked), a participant file the index missed adopted, damaged indexes
 * refused with their line and column and left as they are, summaries and
 * the pooled population, and the long CSV (numbers as typed, notes only
 * when asked, removed answers left out). */
#include "sb-ask-tell.h"
#include "remove-tree.h"
#include "sb-session-history.h"
#include "sb-study.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  char *root;  /* a temporary folder */
  char *dir;   /* the study inside it (not created) */
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->root = g_dir_make_tmp ("sb-study-XXXXXX", NULL);
  f->dir = g_build_filename (f->root, "colour-study", NULL);
}


static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  remove_tree (f->root);
  g_free (f->root);
  g_free (f->dir);
}

static SbExperiment *
experiment (void)
{
  SbExperiment *exp = sb_experiment_new ();

  g_free (exp->title);
  exp->title = g_strdup ("Brightness, with a comma");
  g_assert_true (sb_experiment_add_parameter (exp, "brightness", "cd/m2", 0.0, 100.0));
  g_assert_true (sb_experiment_add_parameter (exp, "time", "s", 0.0, 10.0));
  exp->budget = 12;
  exp->seed = 9;
  return exp;
}

static SbStudy *
create (Fixture *f, double rate)
{
  g_autoptr (SbExperiment) exp = experiment ();
  g_autoptr (GError) error = NULL;
  SbStudy *study = sb_study_create (f->dir, exp, rate, &error);

  g_assert_no_error (error);
  return study;
}

static char *
read_text (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static void
test_create_open (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStudy) study = create (f, 0.2);
  g_autoptr (SbStudy) back = NULL;
  g_autoptr (SbExperiment) exp = experiment ();
  g_autoptr (GError) error = NULL;

  back = sb_study_open (f->dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sb_study_get_name (back), ==, "colour-study");
  g_assert_cmpfloat (sb_study_get_repeat_rate (back), ==, 0.2);
  g_assert_cmpstr (sb_study_get_experiment (back)->title, ==, exp->title);
  g_assert_cmpuint (sb_study_get_experiment (back)->budget, ==, 12);
  g_assert_cmpuint (sb_study_get_n_participants (back), ==, 0);

  /* Never over an existing study, nor into a folder with files. */
  g_assert_null (sb_study_create (f->dir, exp, 0.1, &error));
  g_assert_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_null (sb_study_create (f->dir, exp, 0.9, &error));
  g_assert_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_INVALID);
  g_clear_error (&error);
  /* An empty folder is fine. */
  g_autofree char *empty = g_build_filename (f->root, "empty", NULL);
  g_assert_cmpint (g_mkdir (empty, 0700), ==, 0);
  g_autoptr (SbStudy) in_empty = sb_study_create (empty, exp, 0, &error);
  g_assert_no_error (error);
  g_assert_nonnull (in_empty);
}

static gboolean
code_is_unambiguous (const char *code)
{
  if (strlen (code) != 6 || !g_str_has_prefix (code, "P-"))
    return FALSE;
  for (const char *p = code + 2; *p; p++)
    if (strchr ("23456789ABCDEFGHJKLMNPQRSTUVWXYZ", *p) == NULL)
      return FALSE;
  return TRUE;
}

static void
test_codes (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStudy) study = create (f, 0);
  g_autoptr (SbStudy) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  const SbParticipant *p;
  guint64 seeds[3];

  for (guint i = 0; i < 20; i++)
    {
      p = sb_study_add_participant (study, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (code_is_unambiguous (p->code));
      g_assert_false (g_hash_table_contains (seen, p->code));
      g_hash_table_add (seen, p->code);
    }
  /* Many generated codes: the alphabet and the format hold throughout. */
  for (guint i = 0; i < 2000; i++)
    {
      g_autofree char *code = sb_study_new_code (study);
      g_assert_true (code_is_unambiguous (code));
      g_assert_null (strpbrk (code + 2, "01OI"));
    }

  p = sb_study_add_participant (study, "lab-07", "left-handed", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (p->note, ==, "left-handed");
  g_assert_null (sb_study_add_participant (study, "LAB-07", NULL, &error));
  g_assert_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_TAKEN);
  g_clear_error (&error);
  g_assert_null (sb_study_add_participant (study, "Anna Smith", NULL, &error));
  g_assert_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_null (sb_study_add_participant (study, "../escape", NULL, &error));
  g_assert_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_INVALID);
  g_clear_error (&error);

  back = sb_study_open (f->dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sb_study_get_n_participants (back), ==, 21);
  g_assert_cmpstr (sb_study_find (back, "lab-07")->note, ==, "left-handed");

  /* Each participant's session is the experiment with a seed of its own. */
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr (SbSession) s = sb_study_open_session (back,
                                                       sb_study_get_participant (back, i)->code,
                                                       &error);
      g_assert_no_error (error);
      seeds[i] = sb_session_get_experiment (s)->seed;
      g_assert_cmpstr (sb_session_get_experiment (s)->title, ==, "Brightness, with a comma");
    }
  g_assert_true (seeds[0] != seeds[1] && seeds[1] != seeds[2] && seeds[0] != seeds[2]);
}

/* A participant file the index does not list (a writer killed between
 * the two) joins the roster when the study is opened. */
static void
test_adopt_unlisted (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStudy) study = create (f, 0);
  g_autoptr (SbStudy) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (SbExperiment) exp = experiment ();
  g_autoptr (SbSession) s = sb_session_new (exp);
  g_autofree char *path = sb_study_participant_path (study, "P-ORPH");
  g_autoptr (GFile) file = g_file_new_for_path (path);
  double a[2] = { 10, 1 }, b[2] = { 20, 2 };

  g_assert_nonnull (sb_study_add_participant (study, "P-LIST", NULL, NULL));
  g_assert_true (sb_session_add_duel (s, a, b, 1, NULL));
  g_assert_true (sb_session_save_as (s, file, NULL));
  back = sb_study_open (f->dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sb_study_get_n_participants (back), ==, 2);
  g_assert_nonnull (sb_study_find (back, "P-ORPH"));
  /* ... and is written into the index with the next roster change. */
  g_assert_nonnull (sb_study_add_participant (back, "P-NEXT", NULL, NULL));
  g_autofree char *index = read_text (f->dir, SB_STUDY_INDEX);
  g_assert_nonnull (strstr (index, "\"P-ORPH\""));
  SbParticipantSummary sum;
  g_assert_true (sb_study_summarise (back, "P-ORPH", &sum, NULL));
  g_assert_cmpuint (sum.answered, ==, 1);
}

/* A damaged index is refused with FILE:LINE:COLUMN and left as it is. */
static void
assert_index_refused (Fixture *f, const char *from, const char *to, const char *needle)
{
  g_autofree char *path = g_build_filename (f->dir, SB_STUDY_INDEX, NULL);
  g_autofree char *good = read_text (f->dir, SB_STUDY_INDEX);
  g_autofree char *bad = NULL;
  g_autofree char *after = NULL;
  g_autoptr (GError) error = NULL;
  char *at = strstr (good, from);

  g_assert_nonnull (at);
  bad = g_strdup_printf ("%.*s%s%s", (int) (at - good), good, to, at + strlen (from));
  g_assert_true (g_file_set_contents (path, bad, -1, NULL));
  g_assert_null (sb_study_open (f->dir, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "study.json:"));
  g_assert_nonnull (strstr (error->message, needle));
  /* adding refuses too, and writes nothing */
  after = read_text (f->dir, SB_STUDY_INDEX);
  g_assert_cmpstr (after, ==, bad);
  g_assert_true (g_file_set_contents (path, good, -1, NULL));
}

static void
test_damaged_index (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStudy) study = create (f, 0);

  g_assert_nonnull (sb_study_add_participant (study, "P-AAAA", NULL, NULL));
  assert_index_refused (f, "\"participants\"", "\"participants\" x", "");
  assert_index_refused (f, "skewbench-study", "skewbench-session", "not a SkewBench study");
  assert_index_refused (f, "\"active\"", "\"gone\"", "unknown status 'gone'");
  assert_index_refused (f, "\"repeat_rate\": 0", "\"repeat_rate\": 2", "'repeat_rate'");
  assert_index_refused (f, "\"budget\": 12", "\"budget\": 0", "budget");
  assert_index_refused (f, "\"P-AAAA\"", "\"P AAAA\"", "only letters");
  g_autoptr (GError) error = NULL;
  g_autoptr (SbStudy) ok = sb_study_open (f->dir, &error);
  g_assert_no_error (error);
}

/* Ask/tell per participant, with repeats; summaries; the population
 * leaves the excluded out. */
static void
test_summaries_population (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStudy) study = create (f, 0.3);
  const char *codes[] = { "P-2222", "P-3333", "P-4444" };
  SbPopulation pop;
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr (SbSession) s = NULL;
      g_assert_nonnull (sb_study_add_participant (study, codes[i], NULL, &error));
      s = sb_study_open_session (study, codes[i], &error);
      g_assert_no_error (error);
      for (guint t = 0; t < 4 + 2 * i; t++)
        {
          const SbQuestion *q =
            sb_ask_tell_ask_with_repeats (s, sb_study_get_repeat_rate (study), &error);
          SbAnswer a = { .question = q->id, .kind = SB_ANSWER_CHOSEN };
          g_assert_no_error (error);
          a.chosen = q->options[1][0] > q->options[0][0];
          g_assert_true (sb_ask_tell_tell (s, &a, &error));
        }
    }
  SbParticipantSummary sum;
  g_assert_true (sb_study_summarise (study, "P-4444", &sum, &error));
  g_assert_cmpuint (sum.answered, ==, 8);
  g_assert_cmpuint (sum.budget, ==, 12);
  g_assert_false (sum.done);
  g_assert_true (sb_study_population (study, &pop, &error));
  g_assert_cmpuint (pop.n_participants, ==, 3);
  g_assert_cmpuint (pop.n_included, ==, 3);
  g_assert_cmpuint (pop.n_answers, ==, 4 + 6 + 8);
  g_assert_cmpuint (pop.n_duels, ==, 18);
  g_assert_cmpuint (pop.n_agree, ==, pop.n_repeats);

  g_assert_true (sb_study_set_status (study, "P-4444", SB_PARTICIPANT_EXCLUDED, &error));
  g_assert_true (sb_study_set_note (study, "P-2222", "fast", &error));
  g_autoptr (SbStudy) back = sb_study_open (f->dir, &error);
  g_assert_cmpint (sb_study_find (back, "P-4444")->status, ==, SB_PARTICIPANT_EXCLUDED);
  g_assert_cmpstr (sb_study_find (back, "P-2222")->note, ==, "fast");
  g_assert_true (sb_study_population (back, &pop, &error));
  g_assert_cmpuint (pop.n_included, ==, 2);
  g_assert_cmpuint (pop.n_answers, ==, 10);
  g_assert_false (sb_study_summarise (back, "P-9999", &sum, &error));
  g_assert_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_UNKNOWN);
}

/* A study whose experiment takes a 1-5 confidence rating exports the
 * rating as the participant gave it. */
static void
test_csv_rating (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = experiment ();
  g_autoptr (GError) error = NULL;
  double a[2] = { 46.8, 0.1 }, b[2] = { 12.3, 7.7 };
  SbLogEntry duel = { .kind = SB_LOG_DUEL, .dim = 2, .a = a, .b = b, .winner = 1 };

  exp->confidence_levels = 5;
  g_assert_cmpint (sg_confidence_rating (2, 5, &duel.confidence), ==, SG_OK);
  g_autoptr (SbStudy) study = sb_study_create (f->dir, exp, 0, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sb_study_add_participant (study, "P-ABCD", NULL, &error));
  g_autoptr (SbSession) s = sb_study_open_session (study, "P-ABCD", &error);
  g_assert_true (sb_session_add_entry (s, &duel, &error));
  g_autofree char *csv = sb_study_to_csv (study, NULL, FALSE, &error);
  g_assert_no_error (error);
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  g_assert_true (g_str_has_prefix (lines[1], "colour-study,P-ABCD,,1,duel,0,46.8,0.1,,0,0,,,2,,"));
  g_assert_true (g_str_has_prefix (lines[2], "colour-study,P-ABCD,,1,duel,1,12.3,7.7,,1,0,,,2,,"));
}

/* Crafted answers: a duel typed as 46.8 reads 46.8, not 46.799999999999997. */
static void
test_csv (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStudy) study = create (f, 0);
  g_autoptr (SbSession) s = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *with_notes = NULL;
  g_auto (GStrv) lines = NULL;
  double a[2] = { 46.8, 0.1 }, b[2] = { 12.3, 7.7 };
  SbLogEntry duel = { .kind = SB_LOG_DUEL, .dim = 2, .a = a, .b = b, .winner = 1,
                      .question = 3, .n_shown = 2, .shown_order = { 1, 0 },
                      .has_response_time = TRUE, .response_time = 1.25,
                      .confidence = SG_CONFIDENCE_STRONG, .note = (char *) "blinked, said \"b\"" };

  g_assert_nonnull (sb_study_add_participant (study, "P-ABCD", "secret, private", &error));
  g_assert_nonnull (sb_study_add_participant (study, "P-EFGH", NULL, &error));
  s = sb_study_open_session (study, "P-ABCD", &error);
  g_assert_true (sb_session_add_entry (s, &duel, &error));
  g_assert_no_error (error);
  g_assert_true (sb_session_add_duel (s, b, a, 0, &error));
  g_assert_true (sb_session_remove_entry (s, 1, "exp", &error));  /* left out */
  g_assert_true (sb_session_add_duel (s, a, b, 0, &error));

  csv = sb_study_to_csv (study, NULL, FALSE, &error);
  g_assert_no_error (error);
  g_test_message ("%s", csv);
  lines = g_strsplit (csv, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "study,participant,question,trial,kind,option,brightness,"
                   "x_time,shown_position,answer,tie,rank,value,confidence,response_time,time");
  g_assert_true (g_str_has_prefix (lines[1], "colour-study,P-ABCD,3,1,duel,0,46.8,0.1,2,0,0,,,"
                                   "strong,1.25,"));
  g_assert_true (g_str_has_prefix (lines[2], "colour-study,P-ABCD,3,1,duel,1,12.3,7.7,1,1,0,,,"
                                   "strong,1.25,"));
  /* entry 2 was removed: the next rows are entry 3 */
  g_assert_true (g_str_has_prefix (lines[3], "colour-study,P-ABCD,,3,duel,0,46.8,0.1,,1,0,,,,,"));
  g_assert_true (g_str_has_prefix (lines[4], "colour-study,P-ABCD,,3,duel,1,"));
  g_assert_cmpstr (lines[5], ==, "");
  g_assert_null (strstr (csv, "46.799999"));
  g_assert_null (strstr (csv, "secret"));
  g_assert_null (strstr (csv, "blinked"));

  with_notes = sb_study_to_csv (study, "P-ABCD", TRUE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (with_notes, ",response_time,time,note,participant_note\n"));
  g_assert_nonnull (strstr (with_notes, ",\"blinked, said \"\"b\"\"\",\"secret, private\"\n"));
  g_assert_null (sb_study_to_csv (study, "P-NONE", FALSE, &error));
  g_assert_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_UNKNOWN);
  g_clear_error (&error);

  /* notes a spreadsheet would evaluate are written as text */
  g_autoptr (SbSession) t = NULL;
  g_autofree char *formulas = NULL;
  duel.note = (char *) "+1+1";
  duel.question = 0;
  g_assert_nonnull (sb_study_add_participant (study, "P-IJKL", "=cmd|' /C calc'!A0", &error));
  t = sb_study_open_session (study, "P-IJKL", &error);
  g_assert_true (sb_session_add_entry (t, &duel, &error));
  formulas = sb_study_to_csv (study, "P-IJKL", TRUE, &error);
  g_assert_no_error (error);
  g_test_message ("%s", formulas);
  g_assert_true (g_str_has_suffix (formulas, ",\"'+1+1\",\"'=cmd|' /C calc'!A0\"\n"));
  g_assert_nonnull (strstr (formulas, "colour-study,P-IJKL,,1,duel,0,46.8,0.1,"));
}

/* The session CSV writes numbers as typed too. */
static void
test_session_csv_shortest (void)
{
  g_autoptr (SbExperiment) exp = experiment ();
  g_autoptr (SbSession) s = sb_session_new (exp);
  double a[2] = { 46.8, 0.1 + 0.2 }, b[2] = { 12.3, 7.7 };
  g_autofree char *wide = NULL;
  g_autofree char *tall = NULL;

  g_assert_true (sb_session_add_duel (s, a, b, 1, NULL));
  wide = sb_session_to_csv (s);
  tall = sb_session_to_csv_long (s);
  g_assert_nonnull (strstr (wide, ",46.8,0.30000000000000004,12.3,7.7,"));
  g_assert_nonnull (strstr (tall, ",46.8,0.30000000000000004\n"));
  g_assert_null (strstr (wide, "46.799999"));
}

/* A participant's session that is a symlink (to a session elsewhere) is
 * neither adopted nor opened nor written; a participants folder that is
 * a symlink is refused for every participant; the target is untouched. */
static void
test_symlinked_participant (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStudy) study = create (f, 0);
  g_autoptr (GError) error = NULL;
  const SbParticipant *p = sb_study_add_participant (study, "P1", NULL, &error);
  g_autofree char *p1 = NULL;
  g_autofree char *elsewhere = g_build_filename (f->root, "elsewhere.json", NULL);
  g_autofree char *link = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (p);
  p1 = sb_study_participant_path (study, "P1");
  /* a real session outside the study, linked in as P2 (not in the index) */
  g_assert_true (g_file_get_contents (p1, &before, NULL, NULL));
  g_assert_true (g_file_set_contents (elsewhere, before, -1, NULL));
  link = sb_study_participant_path (study, "P2");
  g_assert_cmpint (symlink (elsewhere, link), ==, 0);

  g_clear_object (&study);
  study = sb_study_open (f->dir, &error);
  g_assert_no_error (error);
  g_assert_null (sb_study_find (study, "P2"));   /* not adopted */
  g_assert_null (sb_study_participant_file (study, "P2", &error));
  g_assert_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "symbolic link"));
  g_clear_error (&error);
  /* adding P2 finds the link and refuses, leaving it and its target */
  g_assert_null (sb_study_add_participant (study, "P2", NULL, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  g_assert_true (g_file_get_contents (elsewhere, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);

  /* P1's file replaced by a link: opening it is refused */
  g_assert_cmpint (g_unlink (p1), ==, 0);
  g_assert_cmpint (symlink (elsewhere, p1), ==, 0);
  g_assert_null (sb_study_open_session (study, "P1", &error));
  g_assert_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "participant 'P1'"));
  g_clear_error (&error);
}

/* The member NAME of the object at PATH ("participants/0" style) in the
 * study's index, or NULL. */
static JsonNode *
index_member (JsonNode *root, const char *path, const char *name)
{
  g_auto (GStrv) steps = g_strsplit (path, "/", -1);
  JsonNode *node = root;

  for (char **s = steps; node && *s && **s; s++)
    node = g_ascii_isdigit (**s)
           ? json_array_get_element (json_node_get_array (node), atoi (*s))
           : json_object_get_member (json_node_get_object (node), *s);
  return node ? json_object_get_member (json_node_get_object (node), name) : NULL;
}

static JsonNode *
read_index_json (const char *dir)
{
  g_autofree char *text = read_text (dir, "study.json");
  g_autoptr (GError) error = NULL;
  JsonNode *root = json_from_string (text, &error);

  g_assert_no_error (error);
  return root;
}

/* Members a newer SkewBench wrote (at the top, in the experiment, in a
 * parameter, in a participant's entry) survive this program's roster
 * writes; members it knows and clears (a note) do not come back. */
static void
test_unknown_members (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStudy) study = create (f, 0);
  g_autoptr (SbStudy) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (JsonNode) after = NULL;
  g_autofree char *path = g_build_filename (f->dir, "study.json", NULL);
  g_autofree char *text = NULL;

  g_assert_nonnull (sb_study_add_participant (study, "P1", "first", &error));
  g_assert_no_error (error);
  root = read_index_json (f->dir);
  json_object_set_string_member (json_node_get_object (root), "future_top", "kept");
  json_object_set_int_member (json_node_get_object (index_member (root, "", "experiment")),
                              "future_experiment", 7);
  json_object_set_boolean_member (
    json_node_get_object (json_array_get_element (
      json_node_get_array (index_member (root, "experiment", "parameters")), 1)),
    "future_parameter", TRUE);
  json_object_set_string_member (
    json_node_get_object (json_array_get_element (
      json_node_get_array (index_member (root, "", "participants")), 0)),
    "future_participant", "consent form 3");
  text = json_to_string (root, TRUE);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));

  back = sb_study_open (f->dir, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sb_study_add_participant (back, "P2", NULL, &error));
  g_assert_no_error (error);
  g_assert_true (sb_study_set_note (back, "P1", NULL, &error));
  g_assert_no_error (error);

  after = read_index_json (f->dir);
  g_assert_cmpstr (json_node_get_string (index_member (after, "", "future_top")), ==, "kept");
  g_assert_cmpint (json_node_get_int (index_member (after, "experiment", "future_experiment")),
                   ==, 7);
  g_assert_true (json_node_get_boolean (index_member (after, "experiment/parameters/1",
                                                      "future_parameter")));
  g_assert_null (index_member (after, "experiment/parameters/0", "future_parameter"));
  g_assert_cmpstr (json_node_get_string (index_member (after, "participants/0",
                                                       "future_participant")),
                   ==, "consent form 3");
  g_assert_null (index_member (after, "participants/1", "future_participant"));
  /* the note P1 had, cleared here, stays cleared */
  g_assert_null (index_member (after, "participants/0", "note"));
  g_assert_cmpuint (json_array_get_length (json_node_get_array (
                      index_member (after, "", "participants"))), ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) g_test_add (path, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)
  ADD ("/study/create-open", test_create_open);
  ADD ("/study/codes", test_codes);
  ADD ("/study/adopt-unlisted", test_adopt_unlisted);
  ADD ("/study/damaged-index", test_damaged_index);
  ADD ("/study/summaries-population", test_summaries_population);
  ADD ("/study/csv", test_csv);
  ADD ("/study/csv-rating", test_csv_rating);
  g_test_add_func ("/study/session-csv-shortest", test_session_csv_shortest);
  ADD ("/study/symlinked-participant", test_symlinked_participant);
  ADD ("/study/unknown-members", test_unknown_members);
  return g_test_run ();
}
