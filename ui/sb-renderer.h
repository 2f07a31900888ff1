/* sb-renderer.h — which GSK renderer draws the windows.
 *
 * GTK 4.8 draws with OpenGL by default. Where OpenGL is a software
 * rasteriser (Mesa's llvmpipe or softpipe: virtual machines, machines
 * without a GPU driver, Xvfb) the GL renderer runs on the CPU inside the
 * main loop and blocks it for hundreds of milliseconds per frame of the
 * plots, while GTK's Cairo renderer draws the same frame far faster. So
 * the application picks the Cairo renderer there, unless the user chose
 * one with GSK_RENDERER. It must be decided before the first window is
 * realised: GSK reads GSK_RENDERER once.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* TRUE when GL_RENDERER (the string glGetString (GL_RENDERER) returns)
 * names a software rasteriser. */
gboolean sb_renderer_is_software_gl (const char *gl_renderer);

/* The OpenGL renderer string of DISPLAY, or NULL when GDK has no GL
 * there (then GTK uses Cairo by itself). */
char *sb_renderer_query_gl (GdkDisplay *display);

/* Sets GSK_RENDERER=cairo when it is unset and DISPLAY's OpenGL is
 * software. Returns the renderer the windows will use as GSK names it
 * ("cairo", "gl", or the user's GSK_RENDERER). */
const char *sb_renderer_choose (GdkDisplay *display);

G_END_DECLS
