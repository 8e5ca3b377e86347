#!/usr/bin/env bash
# Usage: lib/report-gen.sh RUN_DIR
#        lib/report-gen.sh --advice-md
#        lib/report-gen.sh --sync-docs README.md
# Summary: merge a run folder into results.json and write report.md
#
# RUN_DIR is results/<YYYYmmdd-HHMMSS>/ with system.json, settings.env and
# metrics/*.json (one object per metric). A file RUN_DIR/INCOMPLETE marks an
# unfinished run; its first line says why. Writes RUN_DIR/results.json (everything
# merged with jq) and RUN_DIR/report.md. Needs jq.
#
# --advice-md prints, for every metric, the "likely causes / what to change" text
# of lib/advice.json as Markdown between <!-- advice:METRIC --> markers: the same
# text report.md shows for a FAIL, and what README.md carries. --sync-docs
# rewrites those marked blocks in FILE after lib/advice.json changed.
#
# Exit status: 0 written, 1 the folder could not be read, 2 usage error.
set -euo pipefail

REPORT_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# reportgen_settings_json FILE: print settings.env (KEY=VALUE lines, read as data by
# lib/settings.sh, never sourced) as one JSON object.
reportgen_settings_json() {
  [[ -f $1 ]] || {
    echo '{}'
    return 0
  }
  (
    # shellcheck source=lib/common.sh
    source "$REPORT_LIB/common.sh"
    # shellcheck source=lib/settings.sh
    source "$REPORT_LIB/settings.sh"
    KIT_ROOT=${REPORT_LIB%/*}
    settings_read_file "$1" "$(settings_keys_regex)"
    for key in "${SETTINGS_READ_ORDER[@]}"; do
      printf '%s\t%s\n' "$key" "${SETTINGS_READ[$key]//$'\t'/ }"
    done
  ) | jq -Rn '[inputs | split("\t") | {(.[0]): (.[1:] | join("\t"))}] | add // {}'
}

# reportgen_advice_md: the advice of every metric as Markdown blocks with markers.
reportgen_advice_md() {
  jq -r 'to_entries[] | "<!-- advice:\(.key) -->",
    "**Likely causes when it is poor**", "", (.value.causes[] | "- \(.)"), "",
    "**What to change**", "", (.value.changes[] | "- \(.)"),
    "<!-- /advice:\(.key) -->"' "$REPORT_LIB/advice.json"
}

# reportgen_sync_docs FILE: replace every <!-- advice:M --> ... <!-- /advice:M --> block of FILE
# with the current text of lib/advice.json.
reportgen_sync_docs() {
  local file=$1 tmp
  [[ -f $file ]] || {
    printf "error: no file '%s'\n" "$file" >&2
    return 1
  }
  tmp=$(mktemp "$file.XXXXXX")
  awk -v blocks="$(reportgen_advice_md)" '
    BEGIN {
      n = split(blocks, l, "\n")
      for (i = 1; i <= n; i++) {
        if (l[i] ~ /^<!-- advice:/) { m = l[i]; sub(/^<!-- advice:/, "", m); sub(/ -->$/, "", m) }
        text[m] = text[m] l[i] "\n"
      }
    }
    /^<!-- advice:/ { m = $0; sub(/^<!-- advice:/, "", m); sub(/ -->$/, "", m); printf "%s", text[m]; skip = 1; next }
    skip && /^<!-- \/advice:/ { skip = 0; next }
    !skip { print }' "$file" >"$tmp"
  mv -f "$tmp" "$file"
}

# reportgen_main RUN_DIR: write RUN_DIR/results.json and RUN_DIR/report.md.
reportgen_main() {
  local dir=$1 incomplete=false why='' f tmp
  [[ -d $dir ]] || {
    printf "error: no run folder '%s'\n" "$dir" >&2
    return 1
  }
  [[ -f $dir/system.json ]] || {
    printf "error: no system record '%s'\n" "$dir/system.json" >&2
    return 1
  }
  if [[ -e $dir/INCOMPLETE ]]; then
    incomplete=true
    why=$(head -n 1 "$dir/INCOMPLETE")
  fi
  local -a metric_files=()
  for f in "$dir"/metrics/*.json; do
    [[ -e $f ]] || continue
    if jq -e 'type == "object" and (.metric | type) == "string"' "$f" >/dev/null 2>&1; then
      metric_files+=("$f")
    else
      printf "warning: skipping '%s': not a metric object\n" "$f" >&2
    fi
  done
  local settings
  settings=$(reportgen_settings_json "$dir/settings.env") || return 1
  tmp=$(mktemp "$dir/.results.XXXXXX")
  # shellcheck disable=SC2016 # jq program
  jq -n \
    --slurpfile system "$dir/system.json" \
    --argjson settings "$settings" \
    --argjson incomplete "$incomplete" --arg why "$why" \
    --argjson metrics "$(if ((${#metric_files[@]})); then jq -s '.' "${metric_files[@]}"; else echo '[]'; fi)" \
    --argjson raw "$(find "$dir/raw" -type f -printf '%P\n' 2>/dev/null | sort | jq -Rn '[inputs]')" '
    ($system[0]) as $s
    | {
        kit: "samba-perf-test",
        incomplete: $incomplete,
        verdict: (if $incomplete then "INCOMPLETE"
                  elif any($metrics[]; .status == "FAIL") then "FAIL" else "PASS" end),
        counts: {
          PASS: [$metrics[] | select(.status == "PASS")] | length,
          FAIL: [$metrics[] | select(.status == "FAIL")] | length,
          SKIP: [$metrics[] | select(.status == "SKIP")] | length
        },
        system: ($s + (if $incomplete then {run: (($s.run // {}) + {interrupted: (if $why == "" then null else $why end)})} else {} end)),
        settings: $settings,
        metrics: ($metrics | map({(.metric): .}) | add // {}),
        raw: $raw
      }' >"$tmp"
  mv -f "$tmp" "$dir/results.json"
  tmp=$(mktemp "$dir/.report.XXXXXX")
  jq -r --slurpfile advice "$REPORT_LIB/advice.json" -f "$REPORT_LIB/report.jq" "$dir/results.json" | cat -s >"$tmp"
  mv -f "$tmp" "$dir/report.md"
}

main() {
  case ${1:-} in
    -h | --help)
      sed -n '2,/^[^#]/{/^#/!q;s/^# \{0,1\}//;p}' "$0"
      ;;
    --advice-md)
      (($# == 1)) || {
        echo "error: --advice-md takes no arguments" >&2
        exit 2
      }
      reportgen_advice_md
      ;;
    --sync-docs)
      (($# == 2)) || {
        echo "usage: lib/report-gen.sh --sync-docs FILE" >&2
        exit 2
      }
      reportgen_sync_docs "$2"
      ;;
    '' | -*)
      echo "usage: lib/report-gen.sh RUN_DIR | --advice-md" >&2
      exit 2
      ;;
    *)
      (($# == 1)) || {
        echo "usage: lib/report-gen.sh RUN_DIR | --advice-md" >&2
        exit 2
      }
      reportgen_main "$1"
      ;;
  esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
