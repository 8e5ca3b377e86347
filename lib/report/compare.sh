# lib/report/compare.sh: compare results folders: figures, change with its interval and a verdict per
# metric (lib/report/compare.jq), and what differs between the runs. Sourced; defines functions only.
# Needs lib/common.sh, lib/settings.sh (COMPARE_BAND_PCT only), lib/registry.sh (the row
# order) and jq; of each run folder it reads results.json alone (no server): its settings,
# system facts (with the smb.conf parameters testparm read) and metrics. The command, its
# options and its help are libexec/test-samba-compare; lib/run/sweep.sh calls compare_write too.
#
# compare_write CONFIDENCE BAND OUT RUN_A RUN_B [RUN_C ...] writes OUT/compare.json and
# OUT/compare.md and prints compare.md; then OUT/charts/ and OUT/compare.html
# (compare_pictures). OUT '' is compare-<YYYYmmdd-HHMMSS> beside RUN_A (for runs of the kit: in
# its results/ folder, next to the runs it compares), so a comparison needs no settings and
# works on copied folders. Return: 0 no metric worse with confidence, 1 at least one worse;
# exits 2 on bad input (or when the comparison cannot be written).

COMPARE_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# compare_check_run DIR: exit 2 naming DIR unless it is a finished run folder with a readable
# results.json (the only file of the run compare reads; INCOMPLETE marks a run that has not
# finished, or was stopped).
compare_check_run() {
  local dir=$1 f=$1/results.json why
  [[ -e $dir ]] || bad "'$dir' does not exist"
  [[ -d $dir ]] || bad "'$dir' is not a run folder (not a directory)"
  common_run_folder "$dir" || exit 2
  if [[ -e $dir/INCOMPLETE ]]; then
    why=$(head -n 1 "$dir/INCOMPLETE" 2>/dev/null | tr -d '\r')
    bad "'$dir' is an incomplete run${why:+: $why}"
  fi
  [[ -f $f ]] || bad "'$dir' is not a run folder (no results.json; 'test-samba.sh report DIR' writes it from a run's files)"
  common_readable "$f" || exit 2
  jq -e 'type == "object"' "$f" >/dev/null 2>&1 || bad "'$f' is not a JSON object"
  jq -e '.metrics | type == "object" and length > 0 and all(.[]; type == "object")' "$f" >/dev/null ||
    bad "'$f' has no metrics"
  jq -e '.system | type == "object"' "$f" >/dev/null || bad "'$f' has no system record"
  if jq -e '.incomplete == true' "$f" >/dev/null; then
    bad "'$dir' is an incomplete run: $(jq -r '.system.run.interrupted // "results.json says so"' "$f")"
  fi
}

# compare_run_json DIR LABEL: one run, from its results.json, as the object lib/report/compare.jq reads.
compare_run_json() {
  jq -c --arg lab "$2" --arg path "$1" \
    '{"label": $lab, path: $path, settings: (.settings // null), system: .system, metrics: .metrics}' \
    "$1/results.json"
}

# compare_out_dir RUN_A: print a new folder compare-<YYYYmmdd-HHMMSS>[-N] beside RUN_A; only
# in a folder of the user's own (beside a colleague's run it asks for -o).
compare_out_dir() {
  local parent base try i
  parent=$(dirname -- "${1%/}")
  [[ -O $parent && ! -L $parent ]] ||
    bad "the folder of '$1' is not yours: give the comparison a folder of your own with -o DIR"
  base=$parent/compare-$(date +%Y%m%d-%H%M%S)
  for ((i = 1; i <= 50; i++)); do
    try=$base
    ((i == 1)) || try=$base-$i
    if mkdir -- "$try" 2>/dev/null; then
      printf '%s\n' "$try"
      return 0
    fi
  done
  bad "cannot make a folder '$base' beside '$1': use -o DIR"
}

# compare_pictures DIR: the charts (lib/report/charts.sh --compare) and compare.html (lib/report/html.sh
# --compare) of a written comparison; a missing tool is a warning, never a failed compare.
compare_pictures() {
  if ! "$COMPARE_LIB/report/charts.sh" --compare "$1" >/dev/null; then
    warn "compare: charts not drawn (see above)"
  elif [[ $(jq -r '.why // ""' "$1/charts/index.json" 2>/dev/null) != "" ]]; then
    warn "compare: charts not drawn: $(jq -r '.why' "$1/charts/index.json")"
  fi
  if "$COMPARE_LIB/report/html.sh" --compare "$1"; then
    log "compare: wrote '$1/compare.html'"
  else
    warn "compare: compare.html not written (see above)"
  fi
}

# compare_write CONFIDENCE BAND OUT RUN...: see the file header; BAND '' is COMPARE_BAND_PCT of
# the settings, OUT '' a new folder beside the first run.
compare_write() {
  local conf=$1 band=$2 out=$3 dir i tmp status why
  local labels=ABCDEFGHIJKLMNOPQRSTUVWXYZ
  shift 3
  if ! [[ $conf =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! jq -en --argjson c "$conf" '$c >= 50 and $c <= 99.9' >/dev/null; then
    bad "compare: confidence '$conf' must be a number from 50 to 99.9"
  fi
  if [[ -z $band ]]; then
    band=$(settings_get COMPARE_BAND_PCT) || exit 2
  fi
  if ! [[ $band =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! jq -en --argjson b "$band" '$b <= 100' >/dev/null; then
    bad "compare: band '$band' must be a number from 0 to 100 (-b or COMPARE_BAND_PCT)"
  fi
  (($# >= 2)) || bad "compare needs at least two run folders (see 'test-samba.sh compare -h')"
  (($# <= ${#labels})) || bad "compare takes at most ${#labels} run folders"
  for dir in "$@"; do compare_check_run "$dir"; done
  if [[ -n $out ]]; then
    mkdir -p -- "$out" 2>/dev/null || bad "cannot make the folder '$out'"
    if why=$(common_folder_unsafe "$out"); then bad "cannot write the comparison into '$out': $why: use a folder of your own"; fi
  else
    out=$(compare_out_dir "$1") || exit 2
  fi
  tmp=$(mktemp -d)
  i=0
  for dir in "$@"; do
    compare_run_json "$dir" "${labels:i:1}" >"$tmp/run-$(printf %02d "$i").json" ||
      bad "cannot read the run '$dir'"
    ((i += 1))
  done
  status=0
  jq -s -L "$COMPARE_LIB" --argjson confidence "$conf" --argjson band "$band" --arg order "$(registry_rows)" \
    'include "report/compare"; compare_runs($confidence; $band; $order)' "$tmp"/run-*.json >"$tmp/compare.json" || status=$?
  if ((status == 0)); then
    jq -r -L "$COMPARE_LIB" -f "$COMPARE_LIB/report/compare-md.jq" "$tmp/compare.json" >"$tmp/compare.md" || status=$?
  fi
  if ((status != 0)); then
    rm -rf -- "$tmp"
    bad "compare: jq could not read the runs given (see above)"
  fi
  cp -- "$tmp/compare.json" "$tmp/compare.md" "$out/" || {
    rm -rf -- "$tmp"
    bad "cannot write into '$out'"
  }
  cat -- "$tmp/compare.md"
  log "compare: wrote '$out/compare.md' and '$out/compare.json'"
  compare_pictures "$out"
  status=0
  jq -e '.worse' "$tmp/compare.json" >/dev/null && status=1
  rm -rf -- "$tmp"
  return "$status"
}
