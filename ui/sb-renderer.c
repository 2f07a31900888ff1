/* sb-renderer.c — the Cairo renderer where OpenGL is software. */
#include "config.h"

#include "sb-renderer.h"

#include <epoxy/gl.h>
#include <string.h>

gboolean
sb_renderer_is_software_gl (const char *gl_renderer)
{
  static const char *const software[] = { "llvmpipe", "softpipe", "swrast", "software rasterizer" };
  g_autofree char *lower = NULL;

  if (gl_renderer == NULL)
    return FALSE;
  lower = g_ascii_strdown (gl_renderer, -1);
  for (guint i = 0; i < G_N_ELEMENTS (software); i++)
    if (strstr (lower, software[i]))
      return TRUE;
  return FALSE;
}

char *
sb_renderer_query_gl (GdkDisplay *display)
{
  g_autoptr (GdkGLContext) context = NULL;
  const char *name;
  char *copy;

  context = gdk_display_create_gl_context (display, NULL);
  if (context == NULL || !gdk_gl_context_realize (context, NULL))
    return NULL;
  gdk_gl_context_make_current (context);
  name = (const char *) glGetString (GL_RENDERER);
  copy = g_strdup (name);
  gdk_gl_context_clear_current ();
  return copy;
}

const char *
sb_renderer_choose (GdkDisplay *display)
{
  const char *env = g_getenv ("GSK_RENDERER");
  g_autofree char *gl = NULL;

  if (env != NULL && *env != '\0')
    return env;
  gl = sb_renderer_query_gl (display);
  if (gl != NULL && !sb_renderer_is_software_gl (gl))
    return "gl";
  /* No OpenGL at all (GTK would probe it again at every window and fall
   * back), or OpenGL on the CPU: Cairo, said once for every window. */
  g_debug ("OpenGL is %s: drawing with the Cairo renderer", gl ? gl : "not available");
  g_setenv ("GSK_RENDERER", "cairo", TRUE);
  return "cairo";
}
