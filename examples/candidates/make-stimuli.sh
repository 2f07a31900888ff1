#!/bin/sh
# make-stimuli.sh — writes the example candidate set: 12 tiny SVG discs
# (images/disc-NN.svg) that differ in size and lightness, and
# stimuli.csv with each file's feature values. Run it from this folder;
# its output is committed, so nothing needs to run it at build time.
set -eu
mkdir -p images
echo "file,size,lightness,note" > stimuli.csv
n=0
for size in 10 18 26 34; do
  for lightness in 25 50 75; do
    n=$((n + 1))
    file=$(printf 'disc-%02d.svg' "$n")
    grey=$((lightness * 255 / 100))
    cat > "images/$file" <<SVG
<svg xmlns="http://www.w3.org/2000/svg" width="80" height="80" viewBox="0 0 80 80">
  <rect width="80" height="80" fill="#808080"/>
  <circle cx="40" cy="40" r="$size" fill="rgb($grey,$grey,$grey)" stroke="#202020" stroke-width="1.5"/>
</svg>
SVG
    echo "$file,$size,$lightness,disc $n" >> stimuli.csv
  done
done
