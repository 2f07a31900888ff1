#!/bin/sh
# render-face.sh — a tiny stimulus renderer for SkewBench: draws a face
# as SVG from two parameters.
#   render-face.sh --width W --smile S -o FILE
# W: the face's half-width in pixels (60..120); S: the mouth's curve,
# -1 (sad) .. 1 (smiling). Writes FILE and nothing else; errors go to
# stderr with a non-zero exit status (SkewBench shows them on the option).
width= smile= out=
while [ $# -gt 0 ]; do
  case "$1" in
    --width) width="$2"; shift ;;
    --smile) smile="$2"; shift ;;
    -o) out="$2"; shift ;;
    *) echo "render-face.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$width" ] || [ -z "$smile" ] || [ -z "$out" ]; then
  echo "usage: render-face.sh --width W --smile S -o FILE" >&2
  exit 2
fi
awk -v w="$width" -v s="$smile" 'BEGIN {
  if (w + 0 <= 0) { print "render-face.sh: the width must be positive, not " w > "/dev/stderr"; exit 2 }
  cx = 150; cy = 150; ry = 110
  mouth_y = cy + 45; mouth_w = w * 0.55; bend = s * 40
  printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" height=\"300\" viewBox=\"0 0 300 300\">\n"
  printf "<rect width=\"300\" height=\"300\" fill=\"#8a8a8a\"/>\n"
  printf "<ellipse cx=\"%g\" cy=\"%g\" rx=\"%g\" ry=\"%g\" fill=\"#f2d16b\" stroke=\"#333\" stroke-width=\"4\"/>\n", cx, cy, w, ry
  printf "<circle cx=\"%g\" cy=\"115\" r=\"10\" fill=\"#333\"/>\n", cx - w * 0.4
  printf "<circle cx=\"%g\" cy=\"115\" r=\"10\" fill=\"#333\"/>\n", cx + w * 0.4
  printf "<path d=\"M %g %g Q %g %g %g %g\" fill=\"none\" stroke=\"#333\" stroke-width=\"6\" stroke-linecap=\"round\"/>\n", cx - mouth_w, mouth_y, cx, mouth_y + 2 * bend, cx + mouth_w, mouth_y
  printf "</svg>\n"
}' > "$out" || { rm -f "$out"; exit 2; }
