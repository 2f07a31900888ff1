#!/bin/sh
# A fake sound renderer for the stimulus tests: writes 50 ms of silence
# (8 kHz, mono, 8-bit PCM WAV) to the file after -o.
out=
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
  esac
  shift
done
[ -n "$out" ] || { echo "stimulus-wav.sh: no -o FILE given" >&2; exit 2; }
# RIFF header: sizes 436 and 400, PCM, 1 channel, 8000 Hz, 8 bits.
printf 'RIFF\264\001\000\000WAVEfmt \020\000\000\000\001\000\001\000\100\037\000\000\100\037\000\000\001\000\010\000data\220\001\000\000' > "$out"
head -c 400 /dev/zero | tr '\000' '\200' >> "$out"
