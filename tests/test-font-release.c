/* test-font-release.c — see test-font-release.h. */
#include "test-font-release.h"

#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>

void
test_font_release (void)
{
  /* Pango's fontconfig thread holds the font map while it sorts fonts in
   * the background (seconds on a cold fontconfig cache, as on a fresh
   * machine); the map, with its fonts, goes when that work ends. A map
   * still held a minute later is a layout or context never released,
   * which the reset below then reports. */
  GWeakRef ref;
  gint64 end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  GObject *map;

  g_weak_ref_init (&ref, pango_cairo_font_map_get_default ());
  pango_cairo_font_map_set_default (NULL);
  while ((map = g_weak_ref_get (&ref)) != NULL && g_get_monotonic_time () < end)
    {
      g_object_unref (map);
      g_usleep (20000);
    }
  if (map != NULL)
    {
      g_printerr ("# Pango's font map is still held a minute after the tests: "
                  "a layout or context was not released\n");
      g_object_unref (map);
    }
  g_weak_ref_clear (&ref);
  cairo_debug_reset_static_data ();
  FcFini ();
}
