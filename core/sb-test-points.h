/* sb-test-points.h — named points in the writers' work, reported to a
 * test that kills programs at them.
 *
 * When the environment has SB_PROGRESS_FD=N (a file descriptor open for
 * writing, e.g. a fifo the test reads), sb_test_point() writes NAME and a
 * newline to it; otherwise it does nothing. A test that SIGKILLs `skewgp
 * tell` after its k-th point kills it at a known stage of its work (lock
 * taken, new file written, file renamed into place), however loaded the
 * machine, instead of after a random delay that mostly lands before the
 * program has started. A write that fails (the reader gone) is ignored.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void sb_test_point (const char *name);

G_END_DECLS
