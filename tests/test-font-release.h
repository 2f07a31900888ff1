/* test-font-release.h — the end of a plot test program. */
#pragma once

/* Releases Pango's default font map, then Cairo's static data and
 * fontconfig: memory checkers then see only real leaks, and Cairo's reset
 * asserts that no font, surface or pattern is still alive. */
void test_font_release (void);
