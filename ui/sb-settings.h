/* sb-settings.h — SkewBench's preferences (GSettings schema
 * org.skewbench.SkewBench, resources/org.skewbench.SkewBench.gschema.xml)
 * and where each one takes effect. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

GSettings  *sb_settings_get_default             (void);
char       *sb_settings_dup_session_dir         (void);
const char *sb_settings_get_default_acquisition (void);
void        sb_settings_track_window_size       (GtkWindow   *window);
void        sb_settings_follow_theme            (AdwStyleManager *style);

G_END_DECLS
