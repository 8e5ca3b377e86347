# lib/compare.sh: compare results folders: figures, change with its interval and a verdict per
# metric (lib/compare.jq), and what differs between the runs. Sourced; defines functions only.
# Needs lib/common.sh, lib/settings.sh (COMPARE_BAND_PCT only), lib/registry.sh (the row
# order) and jq; reads only the folders it is given (no server). The command, its options and
# its help are libexec/test-samba-compare; lib/sweep.sh calls compare_write too.
#
# compare_write CONFIDENCE BAND OUT RUN_A RUN_B [RUN_C ...] writes OUT/compare.json and
# OUT/compare.md and prints compare.md; then OUT/charts/ and OUT/compare.html
# (compare_pictures). OUT '' is compare-<YYYYmmdd-HHMMSS> beside RUN_A (for runs of the kit: in
# its results/ folder, next to the runs it compares), so a comparison needs no settings and
# works on copied folders. Return: 0 no metric worse with confidence, 1 at least one worse;
# exits 2 on bad input (or when the comparison cannot be written).

COMPARE_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# compare_unquote TEXT: print TEXT with shell quoting removed ('...', $'...', "...", \x),
# without expanding or running anything: settings.env is data, maybe from someone else.
compare_unquote() {
  local s=$1 out='' rest body esc i=0 n=${#1}
  while ((i < n)); do
    case ${s:i:1} in
      \\)
        out+=${s:i+1:1}
        ((i += 2))
        ;;
      "'")
        rest=${s:i+1}
        body=${rest%%"'"*}
        out+=$body
        ((i += ${#body} + 2))
        ;;
      '$')
        if [[ ${s:i+1:1} == "'" ]]; then
          rest=${s:i+2}
          body=''
          while [[ -n $rest && ${rest:0:1} != "'" ]]; do
            if [[ ${rest:0:1} == \\ ]]; then
              body+=${rest:0:2}
              rest=${rest:2}
            else
              body+=${rest:0:1}
              rest=${rest:1}
            fi
          done
          printf -v esc '%b' "${body//\\\'/\'}"
          out+=$esc
          ((i += ${#body} + 3))
        else
          out+='$'
          ((i += 1))
        fi
        ;;
      '"')
        rest=${s:i+1}
        body=''
        while [[ -n $rest && ${rest:0:1} != '"' ]]; do
          if [[ ${rest:0:1} == \\ && ${rest:1:1} == [\\\"\$\`] ]]; then
            body+=${rest:1:1}
            rest=${rest:2}
            ((i += 1))
          else
            body+=${rest:0:1}
            rest=${rest:1}
          fi
          ((i += 1))
        done
        out+=$body
        ((i += 2))
        ;;
      *)
        out+=${s:i:1}
        ((i += 1))
        ;;
    esac
  done
  printf '%s' "$out"
}

# compare_settings_json FILE: settings.env (KEY=VALUE lines, values quoted with printf %q) as
# one JSON object, parsed as data: nothing in it is sourced or run. {} when FILE is missing.
compare_settings_json() {
  local line key
  local -a args=()
  if [[ -f $1 ]]; then
    while IFS= read -r line || [[ -n $line ]]; do
      [[ $line =~ ^[[:space:]]*(export[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
      key=${BASH_REMATCH[2]}
      args+=("$key" "$(compare_unquote "${BASH_REMATCH[3]}")")
    done <"$1"
  fi
  jq -cn '[$ARGS.positional | _nwise(2) | {(.[0]): .[1]}] | add // {}' --args "${args[@]}"
}

# compare_smbconf_json FILE: an smb.conf recorded in a run (RUN/smb.conf) as
# {"[section] name": value}, names lower case with single spaces; the one share section is
# called [share] so runs with different share names compare. null when FILE is missing.
compare_smbconf_json() {
  [[ -f $1 ]] || {
    echo null
    return 0
  }
  awk '
    /^[[:space:]]*[#;]/ || /^[[:space:]]*$/ { next }
    /^[[:space:]]*\[/ { s = $0; gsub(/^[[:space:]]*\[|\][[:space:]]*$/, "", s); s = tolower(s)
                        if (s != "global") s = "share"; next }
    index($0, "=") { n = substr($0, 1, index($0, "=") - 1); v = substr($0, index($0, "=") + 1)
      gsub(/^[[:space:]]+|[[:space:]]+$/, "", n); gsub(/[[:space:]]+/, " ", n)
      gsub(/^[[:space:]]+|[[:space:]]+$/, "", v)
      printf "[%s] %s\t%s\n", (s == "" ? "global" : s), tolower(n), v }
  ' "$1" | jq -Rcn '[inputs | split("\t") | {(.[0]): (.[1:] | join("\t"))}] | add // {}'
}

# compare_check_run DIR: exit 2 naming DIR unless it is a finished run folder.
compare_check_run() {
  local dir=$1 f why
  [[ -e $dir ]] || bad "'$dir' does not exist"
  [[ -d $dir ]] || bad "'$dir' is not a run folder (not a directory)"
  common_run_folder "$dir" || exit 2
  if [[ -e $dir/INCOMPLETE ]]; then
    why=$(head -n 1 "$dir/INCOMPLETE" 2>/dev/null | tr -d '\r')
    bad "'$dir' is an incomplete run${why:+: $why}"
  fi
  [[ -f $dir/system.json ]] || bad "'$dir' is not a run folder (no system.json)"
  for f in "$dir/system.json" "$dir"/metrics/*.json "$dir/settings.env" "$dir/smb.conf"; do
    [[ ! -e $f ]] || common_readable "$f" || exit 2
  done
  jq -e 'type == "object"' "$dir/system.json" >/dev/null 2>&1 ||
    bad "'$dir/system.json' is not a JSON object"
  compgen -G "$dir/metrics/*.json" >/dev/null || bad "'$dir' is not a run folder (no metrics/*.json)"
  for f in "$dir"/metrics/*.json; do
    jq -e 'type == "object"' "$f" >/dev/null 2>&1 || bad "'$f' is not a JSON object"
  done
}

# compare_run_json DIR LABEL: one run as the object lib/compare.jq reads.
compare_run_json() {
  local dir=$1
  jq -cn --arg lab "$2" --arg path "$dir" \
    --argjson settings "$(compare_settings_json "$dir/settings.env")" \
    --argjson smbconf "$(compare_smbconf_json "$dir/smb.conf")" \
    --slurpfile system "$dir/system.json" \
    '{"label": $lab, path: $path, settings: $settings, smbconf: $smbconf, system: $system[0],
      metrics: (reduce inputs as $m ({};
        .[$m.metric // (input_filename | split("/") | last | rtrimstr(".json"))] = $m))}' \
    "$dir"/metrics/*.json
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

# compare_pictures DIR: the charts (lib/charts.sh --compare) and compare.html (lib/html.sh
# --compare) of a written comparison; a missing tool is a warning, never a failed compare.
compare_pictures() {
  if ! "$COMPARE_LIB/charts.sh" --compare "$1" >/dev/null; then
    warn "compare: charts not drawn (see above)"
  elif [[ $(jq -r '.why // ""' "$1/charts/index.json" 2>/dev/null) != "" ]]; then
    warn "compare: charts not drawn: $(jq -r '.why' "$1/charts/index.json")"
  fi
  if "$COMPARE_LIB/html.sh" --compare "$1"; then
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
    'include "compare"; compare_runs($confidence; $band; $order)' "$tmp"/run-*.json >"$tmp/compare.json" || status=$?
  if ((status == 0)); then
    jq -r -L "$COMPARE_LIB" -f "$COMPARE_LIB/compare-md.jq" "$tmp/compare.json" >"$tmp/compare.md" || status=$?
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
