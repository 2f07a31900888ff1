#!/bin/sh
# A fake image renderer for the stimulus tests: writes a valid 1x1 grey
# PNG to the file after -o and logs its arguments to runs.log in the
# folder it runs in (the tests count the runs there).
out=
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
  esac
  shift
done
[ -n "$out" ] || { echo "stimulus-png.sh: no -o FILE given" >&2; exit 2; }
echo "$out" >> runs.log
printf '\211\120\116\107\015\012\032\012\000\000\000\015\111\110\104\122\000\000\000\001\000\000\000\001\010\000\000\000\000\072\176\233\125\000\000\000\012\111\104\101\124\170\234\143\150\000\000\000\202\000\201\167\315\162\266\000\000\000\000\111\105\116\104\256\102\140\202' > "$out"
