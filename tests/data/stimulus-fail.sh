#!/bin/sh
# A fake renderer that fails: a line of noise, then the reason, on stderr.
echo "loading face model" >&2
echo "cannot draw a smile of $2" >&2
exit 3
