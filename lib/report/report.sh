# lib/report/report.sh: a run folder's results.json (everything merged) and report.md (lib/report/report.jq),
# from the folder alone; the advice of lib/report/advice.json as Markdown for docs/metrics.md.
# Sourced; functions only. Entry: 'test-samba.sh report'. settings.env is read as data, by
# lib/settings.sh's settings_file_json (the one parser of it), into results.json's .settings.

# report_advice_md: the advice of every metric as Markdown blocks with markers.
report_advice_md() {
  jq -r 'to_entries[] | "<!-- advice:\(.key) -->",
    "**Likely causes when it is poor**", "", (.value.causes[] | "- \(.)"), "",
    "**What to change**", "", (.value.changes[] | "- \(.)"),
    "<!-- /advice:\(.key) -->"' "$KIT_ROOT/lib/report/advice.json"
}

# report_sync_docs FILE: replace every <!-- advice:M --> ... <!-- /advice:M --> block of FILE
# with the current text of lib/report/advice.json.
report_sync_docs() {
  local file=$1 tmp
  [[ -f $file ]] || die "no file '$file'"
  tmp=$(mktemp "$file.XXXXXX")
  awk -v blocks="$(report_advice_md)" '
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
  common_publish "$tmp" "$file"
}

# report_flat_arrays: JSON on stdin, as jq pretty-prints it, to stdout with every array of plain
# numbers, nulls, booleans and simple strings on one line (a chart's series is a line, not one
# number a line: results.json stays small and readable).
report_flat_arrays() {
  awk '
    function flush() { if (n) { printf "%s", head; for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? " " : ""), item[i]; print tail } }
    function spill(   i) { print head; for (i = 1; i <= n; i++) print raw[i]; open = 0; n = 0 }
    open && /^ *(-?[0-9][0-9.eE+-]*|null|true|false|"[^"\\]*"),?$/ { n++; raw[n] = $0; x = $0; sub(/^ */, "", x); item[n] = x; next }
    open && /^ *\],?$/ { tail = $0; sub(/^ */, "", tail); flush(); open = 0; n = 0; next }
    open { spill() }
    /\[$/ { head = $0; open = 1; n = 0; next }
    { print }
    END { if (open) spill() }'
}

# report_write RUN_DIR: write RUN_DIR/results.json, draw RUN_DIR/charts/ from it (lib/report/charts.sh;
# its index.json becomes results.json's .charts), write report.md (linking the charts) and
# report.html (lib/report/html.sh); 1 (with a message) when the
# folder has no system record.
report_write() {
  local dir=$1 incomplete=false why='' f tmp settings
  [[ -d $dir ]] || {
    error "no run folder '$dir'"
    return 1
  }
  common_run_folder "$dir" || return 1
  [[ -f $dir/system.json ]] || {
    error "no system record '$dir/system.json'"
    return 1
  }
  common_readable "$dir/system.json" || return 1
  if [[ -e $dir/INCOMPLETE ]]; then
    incomplete=true
    why=$(head -n 1 "$dir/INCOMPLETE")
  fi
  local -a metric_files=()
  for f in "$dir"/metrics/*.json; do
    [[ -e $f ]] || continue
    common_readable "$f" || return 1
    metric_files+=(--rawfile "metric:${f##*/}" "$f")
  done
  # shellcheck disable=SC2016 # jq program
  jq -rn "${metric_files[@]}" '$ARGS.named | to_entries[]
    | select(.value | (fromjson? // null) | (type == "object" and (.metric | type) == "string") | not) | .key[7:]' |
    while IFS= read -r f; do printf "warning: skipping '%s': not a metric object\n" "$dir/metrics/$f" >&2; done
  # the settings as data (null, after the parser's line, when settings.env is missing or refused)
  settings=null
  if [[ -e $dir/settings.env ]]; then
    settings=$(settings_file_json "$dir/settings.env") || settings=null
  fi
  tmp=$(mktemp "$dir/.results.XXXXXX")
  # shellcheck disable=SC2016 # jq program
  jq -n -L "$KIT_ROOT/lib" \
    --slurpfile system "$dir/system.json" \
    --argjson settings "$settings" \
    --argjson incomplete "$incomplete" --arg why "$why" \
    --arg raw "$(find "$dir/raw" -type f -printf '%P\n' 2>/dev/null | sort)" "${metric_files[@]}" '
    include "format";
    [$ARGS.named | to_entries[] | select(.key | startswith("metric:"))
     | (.value | fromjson? // null) as $m
     | if ($m | type) == "object" and ($m.metric | type) == "string" then $m
       else empty end] as $metrics
    | ($system[0]) as $s
    | {
        kit: "samba-perf-test",
        incomplete: $incomplete,
        verdict: (if $incomplete then "INCOMPLETE"
                  elif any($metrics[]; .status == "FAIL") then "FAIL" else "PASS" end),
        counts: ($metrics | status_counts),
        system: ($s + (if $incomplete then {run: (($s.run // {}) + {interrupted: (if $why == "" then null else $why end)})} else {} end)),
        settings: $settings,
        metrics: ($metrics | map({(.metric): .}) | add // {}),
        charts: null,
        raw: ($raw | split("\n") | map(select(. != "")))
      }' >"$tmp"
  common_publish "$tmp" "$dir/results.json"
  # the charts from results.json alone (each metric's .charts); results.json and report.md name them
  "$KIT_ROOT/lib/report/charts.sh" "$dir" >&2 || warn "charts not drawn (see above)"
  tmp=$(mktemp "$dir/.results.XXXXXX")
  jq --argjson charts "$(jq -c 'select(type == "object")' "$dir/charts/index.json" 2>/dev/null || echo null)" \
    '.charts = $charts' "$dir/results.json" | report_flat_arrays >"$tmp"
  common_publish "$tmp" "$dir/results.json"
  tmp=$(mktemp "$dir/.report.XXXXXX")
  jq -r -L "$KIT_ROOT/lib" --slurpfile advice "$KIT_ROOT/lib/report/advice.json" --arg order "$(registry_rows)" \
    -f "$KIT_ROOT/lib/report/report.jq" "$dir/results.json" | cat -s >"$tmp"
  common_publish "$tmp" "$dir/report.md"
  "$KIT_ROOT/lib/report/html.sh" "$dir" || warn "report.html not written (see above); report.md is complete"
}
