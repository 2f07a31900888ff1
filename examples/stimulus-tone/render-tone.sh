#!/bin/sh
# render-tone.sh — a tiny sound renderer for SkewBench: writes a tone as
# a WAV file from two parameters, with nothing beyond a POSIX shell and
# awk.
#   render-tone.sh --pitch HZ --loudness DB -o FILE
# HZ: the tone's frequency in hertz (20..8000); DB: its peak level in dB
# relative to full scale (-60..0). The tone lasts 0.4 s (16 kHz, mono,
# 16-bit PCM) and fades in and out over 10 ms so that it starts and ends
# without a click. Writes FILE and nothing else; errors go to stderr with
# a non-zero exit status (SkewBench shows them on the option).
pitch= loudness= out=
while [ $# -gt 0 ]; do
  case "$1" in
    --pitch) pitch="$2"; shift ;;
    --loudness) loudness="$2"; shift ;;
    -o) out="$2"; shift ;;
    *) echo "render-tone.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$pitch" ] || [ -z "$loudness" ] || [ -z "$out" ]; then
  echo "usage: render-tone.sh --pitch HZ --loudness DB -o FILE" >&2
  exit 2
fi
# The bytes are written with printf "%c", which prints one byte per value
# in the C locale.
LC_ALL=C awk -v f="$pitch" -v db="$loudness" '
function u16(v) { printf "%c%c", v % 256, int(v / 256) % 256 }
function u32(v) { u16(v % 65536); u16(int(v / 65536)) }
BEGIN {
  if (!(f + 0 >= 20 && f + 0 <= 8000)) {
    print "render-tone.sh: the pitch must lie in 20..8000 Hz, not " f > "/dev/stderr"; exit 2
  }
  if (!(db + 0 >= -60 && db + 0 <= 0)) {
    print "render-tone.sh: the loudness must lie in -60..0 dB, not " db > "/dev/stderr"; exit 2
  }
  rate = 16000; n = int(0.4 * rate); fade = int(0.01 * rate)
  amp = 32767 * exp(db / 20 * log(10)); pi = atan2(0, -1)
  printf "RIFF"; u32(36 + 2 * n); printf "WAVEfmt "
  u32(16); u16(1); u16(1); u32(rate); u32(2 * rate); u16(2); u16(16)
  printf "data"; u32(2 * n)
  for (i = 0; i < n; i++) {
    g = 1
    if (i < fade) g = i / fade
    else if (n - 1 - i < fade) g = (n - 1 - i) / fade
    s = int(amp * g * sin(2 * pi * f * i / rate))
    if (s < 0) s += 65536
    u16(s)
  }
}' > "$out" || { rm -f "$out"; exit 2; }
