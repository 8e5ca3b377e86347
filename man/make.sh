#!/usr/bin/env bash
# Usage: man/make.sh [--check]
# Summary: write the three scripts' manual pages (man/NAME.1) from their -h text
#
# The pages are made from the same text -h prints, so they cannot say something else: NAME is
# the 'Summary:' line, SYNOPSIS the 'Usage:' lines, DESCRIPTION the rest, as written, but for
# test-samba.sh's list of metrics (METRICS names where it comes from). With
# --check nothing is written: exit 1 naming a page that differs from what -h says now.
#
# Exit status: 0 written (or, with --check, all current), 1 a page differs or a script failed,
# 2 usage error.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
check=0
case ${1:-} in
  '') ;;
  --check) check=1 ;;
  -h | --help)
    sed -n '2,/^[^#]/{/^#/!q;s/^# \{0,1\}//;p}' "$0"
    exit 0
    ;;
  *)
    echo "usage: man/make.sh [--check]" >&2
    exit 2
    ;;
esac

# page SCRIPT: the roff page of SCRIPT on stdout, from SCRIPT -h
page() {
  local s=$1 help version
  help=$("$root/$s" -h)
  version=$(tr -d '\n' <"$root/VERSION")
  awk -v name="$s" -v version="$version" '
    # roff escapes: a backslash, and a line that starts with . or '\''
    function esc(t) { gsub(/\\/, "\\e", t); if (t ~ /^[.\x27]/) t = "\\&" t; return t }
    NR == 1 { printf ".TH %s 1 \"\" \"samba-perf-test %s\" \"samba-perf-test\"\n", toupper(name), version }
    /^Usage: / { syn[++ns] = substr($0, 8); part = "syn"; next }
    part == "syn" && /^       / { syn[++ns] = substr($0, 8); next }
    /^Summary: / { summary = substr($0, 10); part = "desc"; next }
    # the metrics come from lib/metrics/list: the page names the place, not the list, so that
    # a new metric changes nothing here
    /^Metrics \(/ { part = "metrics"; next }
    part == "desc" { desc[++nd] = $0 }
    END {
      printf ".SH NAME\n%s \\- %s\n.SH SYNOPSIS\n.nf\n", name, esc(summary)
      for (i = 1; i <= ns; i++) print esc(syn[i])
      print ".fi\n.SH DESCRIPTION\n.nf"
      start = 1; while (start <= nd && desc[start] == "") start++
      while (nd >= start && desc[nd] == "") nd--
      for (i = start; i <= nd; i++) print esc(desc[i])
      print ".fi"
      if (part == "metrics") print ".SH METRICS\nThe metrics, in run order, are those of lib/metrics/list; \\fB" name " -h\\fR lists them."
    }' <<<"$help"
}

status=0
for s in start-samba.sh stop-samba.sh test-samba.sh; do
  out=$root/man/$s.1
  if ((check)); then
    if ! cmp -s <(page "$s") "$out"; then
      echo "error: man/$s.1 differs from '$s -h': run man/make.sh" >&2
      status=1
    fi
  else
    page "$s" >"$out.tmp" && mv -f "$out.tmp" "$out"
  fi
done
exit "$status"
