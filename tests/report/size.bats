#!/usr/bin/env bats
# tests/report/size.bats: a fully measured run's report.md is short enough to read in a few
# minutes (issue 21: at most about 250 lines, a metric's section about 12) and keeps what an
# admin needs: the overall verdict on the first screen, the verdict table, the top warnings,
# and per metric its figure, charts, server view and, when it failed, the advice.
# The run folder is tests/fixtures/full-run: the metric objects, system.json and settings.env of
# a qemu guest run (tests/guest, DURATION=2, REPEAT=1) in which every row of the registry was
# measured (11 FAIL). The metric list is the registry's (lib/metrics/list), never this file's.

setup_file() {
  load '../test_helper/common-setup'
  _common_setup
  kit_require_cmd gnuplot jq
  RUN="$BATS_FILE_TMPDIR/run dir"
  mkdir -p "$RUN"
  cp -R "$KIT_ROOT/tests/fixtures/full-run/." "$RUN/"
  "$KIT_ROOT/test-samba.sh" report "$RUN" >/dev/null 2>&1
  export RUN
}

setup() {
  load '../test_helper/common-setup'
  _common_setup
  kit_require_cmd gnuplot jq
  # shellcheck source=lib/common.sh
  source "$KIT_ROOT/lib/common.sh"
  common_source_libs "$KIT_ROOT" registry
  MD=$RUN/report.md
}

# section NAME: the lines of report.md's section of metric NAME (its heading to the next).
section() {
  awk -v h="(\`$1\`)" 'index($0, "## ") == 1 { on = (substr($0, length($0) - length(h) + 1) == h) } on' "$MD"
}

@test "size: the fixture measured every row of the registry, and none was skipped" {
  local m
  for m in $(registry_rows); do
    run jq -r --arg m "$m" '.metrics[$m].status // "missing"' "$RUN/results.json"
    assert_output --regexp '^(PASS|FAIL)$'
  done
}

@test "size: report.md is at most 250 lines, with the overall verdict in its first 10" {
  run wc -l <"$MD"
  ((output <= 250)) || fail "report.md has $output lines"
  run head -n 10 "$MD"
  assert_line --regexp '^\*\*Verdict: FAIL\*\*: [0-9]+ PASS, [0-9]+ FAIL, [0-9]+ SKIP'
}

@test "size: each metric's section is at most 18 lines (a table makes it longer), on average at most 13" {
  local m n total=0 count=0
  for m in $(registry_rows); do
    n=$(section "$m" | wc -l)
    ((n > 0)) || fail "no section for '$m'"
    ((n <= 18)) || fail "the section of '$m' has $n lines: $(section "$m")"
    total=$((total + n)) count=$((count + 1))
  done
  ((total <= 13 * count)) || fail "the sections have $total lines, $((total / count)) on average"
}

@test "size: a section keeps the verdict, the figure, the server view, every chart and, for a FAIL, the advice word for word" {
  local m verdict chart cause change
  for m in $(registry_rows); do
    verdict=$(jq -r --arg m "$m" '.metrics[$m].status' "$RUN/results.json")
    run section "$m"
    assert_line --regexp "^- \*\*$verdict\*\*: "
    assert_line --regexp '^- Server view \(time inside smbd|^- [a-z]'
    while IFS= read -r chart; do
      assert_output --partial "]($chart)"
    done < <(jq -r --arg m "$m" '.charts[]? | select(.metric == $m) | .file' "$RUN/charts/index.json")
    if [[ $verdict == FAIL ]]; then
      cause=$(jq -r --arg m "$m" '.[$m].causes | join(" ")' "$KIT_ROOT/lib/report/advice.json")
      change=$(jq -r --arg m "$m" '.[$m].changes | join(" ")' "$KIT_ROOT/lib/report/advice.json")
      assert_output --partial "Likely causes**: $cause"
      assert_output --partial "What to change**: $change"
    fi
  done
}

@test "size: every warning of the run is in report.md once, the first three before the first metric's section" {
  local w n
  while IFS= read -r w; do
    n=$(grep -cF -- "$w" "$MD")
    ((n == 1)) || fail "'$w' is in report.md $n times"
  done < <(jq -r '(.system.warnings // [])[], (.metrics[] | .warnings[]?)' "$RUN/results.json")
  run awk '/^## The run/ { exit } /^- [a-z]+: / { print }' "$MD"
  assert_equal "${#lines[@]}" 3
}

@test "size: with REPEAT=3 (the default) a metric's repeats share its figures line: at most 250 lines" {
  # the fixture's rows as 3 repeats of the same value (lib/run/repeat.jq's shape): a default run's
  # report names each row's repeats, on the line of its figures (on a line of their own they
  # made 255 lines)
  local dir=$BATS_TEST_TMPDIR/three f n
  cp -R "$RUN" "$dir"
  for f in "$dir"/metrics/*.json; do
    jq '. as $o | .repeats = [.value, .value, .value] | .spread = {n: 3, median: .value, min: .value, max: .value, half_range_pct: 0}
      | .details.repeats = [range(1; 4) as $k | {repeat: $k, value: $o.value, status: $o.status, why: $o.why}]' "$f" >"$f.new"
    mv "$f.new" "$f"
  done
  "$KIT_ROOT/test-samba.sh" report "$dir" >/dev/null 2>&1
  run grep -cE '^- (.*; )?repeats: 1: ' "$dir/report.md"
  assert_output "$(find "$dir/metrics" -name '*.json' | wc -l)"
  n=$(wc -l <"$dir/report.md")
  echo "# REPEAT=3: $n lines" >&3
  ((n <= 250)) || fail "report.md of a REPEAT=3 run has $n lines"
}
