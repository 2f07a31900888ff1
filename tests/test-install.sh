#!/usr/bin/env bash
# test-install.sh — the GNOME app files, and `meson install` into a scratch
# DESTDIR gives a launchable app (TAP).
# Usage: test-install.sh MESON BUILDDIR SRCDIR PREFIX BINDIR DATADIR
#
#  - the desktop file passes desktop-file-validate, the AppStream metainfo
#    appstreamcli validate (appstream-util validate-relax where appstreamcli
#    is missing), the schema glib-compile-schemas --strict;
#  - xgettext extracts the strings of every file in po/POTFILES (the
#    desktop file, the metainfo, the schema, the .ui files and the C
#    sources each contribute);
#  - the install puts the binaries, desktop file, metainfo, both icons and
#    the schema under PREFIX; the installed desktop file's Exec is an
#    installed binary, which runs.
# A validator that is not installed is a TAP skip (build-aux/install-deps
# --tests installs them).
set -u

meson=$1 build=$2 src=$3 prefix=$4 bindir=$5 datadir=$6
app_id=org.skewbench.SkewBench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0 failed=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $1"; sed 's/^/# /' "$tmp/out" 2>/dev/null; }
skip () { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check () {   # check DESCRIPTION COMMAND...: ok when COMMAND succeeds
  local what=$1; shift
  if "$@" >"$tmp/out" 2>&1; then ok "$what"; else not_ok "$what"; fi
}
have () { command -v "$1" >/dev/null 2>&1; }

# ---- The files as built ------------------------------------------------------

if have desktop-file-validate; then
  check "desktop file validates" desktop-file-validate "$build/resources/$app_id.desktop"
else
  skip "desktop-file-validate is not installed"
fi

validate_metainfo () {
  if have appstreamcli; then
    appstreamcli validate --no-net "$1"
  else
    appstream-util validate-relax --nonet "$1"
  fi
}
if have appstreamcli || have appstream-util; then
  check "metainfo validates" validate_metainfo "$build/resources/$app_id.metainfo.xml"
else
  skip "neither appstreamcli nor appstream-util is installed"
fi

check "schema compiles with --strict" \
  glib-compile-schemas --strict --targetdir="$tmp" "$src/resources"

pot_has_every_kind () {
  (cd "$src" && xgettext --from-code=UTF-8 --keyword=_ --keyword=N_ --keyword=C_:1c,2 \
     --add-comments --files-from=po/POTFILES --output="$tmp/skewbench.pot") || return 1
  local s
  for s in "Preference Optimisation Workbench" "Find the best settings" \
           "Colour scheme" "_New Experiment…" "Open this demo" "Dueling UCB"; do
    grep -qF "msgid \"$s" "$tmp/skewbench.pot" || { echo "no '$s' in the .pot"; return 1; }
  done
}
if have xgettext; then
  check "xgettext extracts every file in po/POTFILES" pot_has_every_kind
else
  skip "xgettext is not installed"
fi

# ---- The installed app -------------------------------------------------------

dest=$tmp/dest
check "meson install --destdir" "$meson" install -C "$build" --no-rebuild --quiet --destdir "$dest"
root=$dest$prefix
[ "${bindir#/}" != "$bindir" ] && bin=$dest$bindir || bin=$root/$bindir
[ "${datadir#/}" != "$datadir" ] && share=$dest$datadir || share=$root/$datadir

installed () {
  local f missing=0
  for f in "$@"; do [ -s "$f" ] || { echo "missing: ${f#$dest}"; missing=1; }; done
  return $missing
}
check "binaries, desktop file, metainfo, icons and schema installed" installed \
  "$bin/skewbench" "$bin/skewgp" \
  "$share/applications/$app_id.desktop" \
  "$share/metainfo/$app_id.metainfo.xml" \
  "$share/icons/hicolor/scalable/apps/$app_id.svg" \
  "$share/icons/hicolor/symbolic/apps/$app_id-symbolic.svg" \
  "$share/glib-2.0/schemas/$app_id.gschema.xml"

exec_is_installed () {
  local exec
  exec=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$share/applications/$app_id.desktop")
  [ -n "$exec" ] && [ -x "$bin/$exec" ] || { echo "Exec=$exec is not in $bin"; return 1; }
  "$bin/$exec" --help | grep -q -- "--session" || { echo "$exec --help does not list --session"; return 1; }
  "$bin/skewgp" --help >/dev/null
}
check "the desktop file's Exec is an installed binary that runs" exec_is_installed

check "the installed schema compiles with --strict" \
  glib-compile-schemas --strict --targetdir="$tmp" "$share/glib-2.0/schemas"

echo "1..$n"
exit $failed
