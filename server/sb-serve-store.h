/* sb-serve-store.h — what an online study keeps beside its answers.
 *
 * The study server writes two files of its own in the study folder,
 * apart from the roster and the participants' sessions so that exports
 * never carry them (skewgp export STUDY --external-ids writes the key
 * file when asked):
 *
 *   STUDY/online/settings.json   what the experimenter set for the
 *                                participants' page
 *     {"format": "skewbench-online-settings", "version": 1,
 *      "open": true,                  new participants may join
 *      "max_participants": 0,         0: no limit
 *      "consent": "text" | null,      shown before the first question;
 *                                     joining then needs "consent": true
 *      "completion_url": "..." | null where the page sends a participant
 *                                     who is done (Prolific's completion
 *                                     link)
 *      "break_every": 0}              a break screen after every n answers
 *
 *   STUDY/online/access.json     who may answer as whom
 *     {"format": "skewbench-online-access", "version": 1,
 *      "participants": [{"code": "P-7KQ3", "token_sha256": "...",
 *                        "external_id": "5f1..." | null,
 *                        "joined": "2026-...Z",
 *                        "consent": {"time": "...Z", "text_sha256": "..."} | null},
 *                       ...]}
 *
 * Tokens are 128 bits from the kernel's random source (getrandom(2)),
 * written as 32 hexadecimal digits; only their SHA-256 is stored, so the
 * file does not let anyone answer as a participant. The pseudonymous
 * code is the only name in the answers; an external id (a Prolific PID,
 * a lab code) links to it only here. Both files are written atomically
 * (sb-atomic-file.h) before the reply that depends on them is sent.
 *
 * No GTK; used on the server's main thread only.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SB_SERVE_FOLDER "online"
#define SB_SERVE_TOKEN_BYTES 16
#define SB_SERVE_MAX_EXTERNAL_ID 128

typedef struct {
  gboolean open;
  guint max_participants;
  char *consent;         /* NULL: no consent screen                   */
  char *completion_url;  /* NULL: none                                 */
  guint break_every;     /* 0: no breaks                               */
} SbServeSettings;

void sb_serve_settings_clear (SbServeSettings *settings);
/* Reads STUDY_DIR's settings (the defaults when the file does not
 * exist: open, no limit, no consent, no completion URL, no breaks). */
gboolean sb_serve_settings_load (const char *study_dir, SbServeSettings *settings,
                                 GError **error);
gboolean sb_serve_settings_save (const char *study_dir, const SbServeSettings *settings,
                                 GError **error);
/* FALSE with ERROR naming what is wrong (a completion URL that is not
 * http or https). */
gboolean sb_serve_settings_check (const SbServeSettings *settings, GError **error);

typedef struct _SbServeAccess SbServeAccess;

/* The access file of STUDY_DIR (empty when it does not exist). NULL with
 * ERROR for a damaged or foreign file, which is never overwritten. */
SbServeAccess *sb_serve_access_load (const char *study_dir, GError **error);
void sb_serve_access_free (SbServeAccess *access);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbServeAccess, sb_serve_access_free)

/* The participant code TOKEN answers as, or NULL. */
const char *sb_serve_access_lookup (SbServeAccess *access, const char *token);
/* The code that joined with EXTERNAL_ID, or NULL. */
const char *sb_serve_access_find_external (SbServeAccess *access, const char *external_id);
guint sb_serve_access_get_n (SbServeAccess *access);
/* A new token for CODE (its earlier tokens stop working), with
 * EXTERNAL_ID (may be NULL; kept when NULL and CODE had one) and the
 * SHA-256 of the consent text agreed to (NULL: none asked), saved before
 * it returns. The token (g_free), or NULL with ERROR (nothing changed). */
char *sb_serve_access_grant (SbServeAccess *access, const char *code, const char *external_id,
                             const char *consent_sha256, GError **error);
/* The key file: code, external_id, joined, consent_time, consent_sha256
 * (one row per participant who joined online). */
char *sb_serve_access_to_csv (SbServeAccess *access);

/* SB_SERVE_TOKEN_BYTES random bytes from getrandom(2) as hexadecimal
 * (g_free). */
char *sb_serve_new_token (void);
/* The SHA-256 of TEXT as hexadecimal (g_free). */
char *sb_serve_sha256 (const char *text);

G_END_DECLS
