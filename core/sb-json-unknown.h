/* sb-json-unknown.h — members a reader did not know, kept for the next write.
 *
 * A file written by a newer SkewBench may carry members this one does not
 * read. A reader marks every member it looks at (sb_json_seen_mark); what it
 * never looked at is collected, with where it sits in the document
 * (sb_json_unknown_collect), and put back in the same place when the file
 * is written again (sb_json_unknown_restore), so an older program's save
 * does not drop a newer one's fields. Places are paths of member names and
 * array indices; a member is put back only where the written document has
 * that place and does not write the member itself.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The members a reader has looked at, by object. */
typedef struct _SbJsonSeen SbJsonSeen;
/* Members never looked at, with their places. */
typedef struct _SbJsonUnknown SbJsonUnknown;

SbJsonSeen *sb_json_seen_new (void);
void sb_json_seen_free (SbJsonSeen *seen);
/* Records that the reader looked at member KEY of OBJ (SEEN may be NULL). */
void sb_json_seen_mark (SbJsonSeen *seen, JsonObject *obj, const char *key);

/* The members of ROOT's objects that SEEN never marked, copied, with their
 * places; an object the reader never opened counts as its member's value.
 * NULL when there are none. */
SbJsonUnknown *sb_json_unknown_collect (JsonNode *root, SbJsonSeen *seen);
/* Adds each member of UNKNOWN (may be NULL) to ROOT where its place exists
 * and ROOT does not hold the member already. */
void sb_json_unknown_restore (const SbJsonUnknown *unknown, JsonNode *root);
/* The number of members kept (0 for NULL). */
guint sb_json_unknown_count (const SbJsonUnknown *unknown);
void sb_json_unknown_free (SbJsonUnknown *unknown);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbJsonSeen, sb_json_seen_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbJsonUnknown, sb_json_unknown_free)

G_END_DECLS
