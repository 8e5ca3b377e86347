#!/usr/bin/env bats
# tests/report/wording.bats: how report.md and report.html word what they show (issue 21): every
# table has a header a reader can read (an empty one was a grey bar atop report.html's facts),
# a unit of words is singular at 1 ("1 login/s", "1 client", "1 call"), and a remark is made
# once: the reasons of the disturbed repeats a verdict rests on, merged into one and not listed
# again in the section; the Little's-law remark of a failed login, not once more per repeat.
# Folders: tests/fixtures/full-run (every metric measured once) and the same with its login row
# made of 3 repeats (0.9 to 1.2 logins/s, each disturbed and kept) by the kit's own verdict
# (lib/metrics/login.jq) and repeat combining (lib/run/repeat.sh repeat_collect).

setup_file() {
  load '../test_helper/common-setup'
  _common_setup
  kit_require_cmd gnuplot jq cmark-gfm
  RUN="$BATS_FILE_TMPDIR/run dir"
  REP="$BATS_FILE_TMPDIR/repeat dir"
  mkdir -p "$RUN"
  cp -R "$KIT_ROOT/tests/fixtures/full-run/." "$RUN/"
  "$KIT_ROOT/test-samba.sh" report "$RUN" >/dev/null 2>&1
  repeat_folder "$REP" >"$BATS_FILE_TMPDIR/repeat.log" 2>&1
  "$KIT_ROOT/test-samba.sh" report "$REP" >/dev/null 2>&1
  export RUN REP
}

setup() {
  load '../test_helper/common-setup'
  _common_setup
  kit_require_cmd gnuplot jq cmark-gfm
}

# repeat_folder DIR: full-run with its login row made of 3 failed repeats at 1.2, 1 and 0.9
# logins/s (2 workers, p95 1665 ms: Little's law says p95 <= 20 ms cannot be met), each
# disturbed by other processes (1.1, 1.2, 1.3 of 2 cores) and kept. In a subshell.
# shellcheck disable=SC2034 # RUN_CPUS and KIT_CGROUP_SOURCE are read by the sourced libraries
repeat_folder() (
  local dir=$1 k=0 rate raw=$KIT_ROOT/tests/fixtures/run-raw/raw
  mkdir -p "$dir/raw"
  cp -R "$KIT_ROOT/tests/fixtures/full-run/." "$dir/"
  # shellcheck source=lib/common.sh
  source "$KIT_ROOT/lib/common.sh"
  common_source_libs "$KIT_ROOT" settings registry run/results run/repeat
  registry_load
  settings_defaults
  # shellcheck source=/dev/null
  source "$KIT_ROOT/tests/fixtures/run-raw/settings.env"
  RUN_CPUS=2 KIT_CGROUP_SOURCE=cgroup2
  for rate in 1.2 1 0.9; do
    k=$((k + 1))
    mkdir -p "$dir/.repeat.$k/raw" "$dir/.repeat.$k/metrics"
    cp "$raw/login.evidence.json" "$dir/.repeat.$k/raw/"
    jq -c --argjson r "$rate" '.workers = 2 | .rate_per_s = $r | .lat_ms.p95 = 1665' "$raw/login.json" >"$dir/.repeat.$k/raw/login.json"
    RUN_DIR=$dir/.repeat.$k results_verdict login '' '' 20 || exit 1
    printf '{"metric":"login","repeat":%d,"reason":"other processes used 1.%d of 2 cores during login","replaced":false}\n' \
      "$k" "$k" >"$dir/.repeat.$k/disturbed.jsonl"
  done
  RUN_DIR=$dir repeat_collect
  [[ -s $dir/metrics/login.json ]]
)

# section DIR NAME: the lines of DIR/report.md's section of metric NAME (its heading to the next).
section() {
  awk -v h="(\`$2\`)" 'index($0, "## ") == 1 { on = (substr($0, length($0) - length(h) + 1) == h) } on' "$1/report.md"
}

@test "wording: the repeat folder has a login row of 3 failed repeats" {
  run jq -c '[.metrics.login.status, .metrics.login.repeats, (.metrics.login.details.disturbed | length)]' "$REP/results.json"
  assert_output '["FAIL",[1.2,1,0.9],3]'
}

@test "wording: every table of report.md has a header with text; report.html has no empty header cell" {
  local d
  for d in "$RUN" "$REP"; do
    # the line before a table's |---| row is its header: some cell has a letter
    run awk 'prev != "" && /^\|(-+\|)+$/ && prev !~ /[A-Za-z]/ { print NR - 1 ": " prev } { prev = $0 }' "$d/report.md"
    assert_output ''
    run grep -cE '<th( [^>]*)?>[[:space:]]*</th>' "$d/report.html"
    assert_output 0
  done
  run grep -A2 -x '## The run' "$RUN/report.md"
  assert_line --index 1 '| Fact | This run |'
}

@test "wording: a unit of words is singular after the number 1; a unit of symbols stays" {
  # the report's own words on the fixture, and every word of the repeat folder (whose login
  # verdict this kit wrote): no "1 logins/s", "1 clients", "1 calls", "1 cores", "1 connects"
  run grep -noE '(^|[^0-9.,])1 [a-z]{2,}[a-rt-z]s(/s)?\b' "$REP/report.md"
  assert_output ''
  # a run whose smb.conf has one folder of the kit ('1 folders and files of the kit left out')
  local dir=$BATS_TEST_TMPDIR/one
  cp -R "$KIT_ROOT/tests/fixtures/compare-ref" "$dir"
  "$KIT_ROOT/test-samba.sh" report "$dir" >/dev/null 2>&1
  run grep -noE '(^|[^0-9.,])1 [a-z]{2,}[a-rt-z]s(/s)?\b' "$dir/report.md"
  assert_output ''
  grep -qF '; 1 folder or file of the kit left out' "$dir/report.md"
  run cat "$RUN/report.md"
  assert_line --partial '| 1 login/s | ≥ 100 logins/s and p95 ≤ 20 ms |'
  assert_line --partial '- **FAIL**: 1 client (target ≥ 64 clients)'
  assert_output --partial 'Echo 100 % (1 call, 311 µs each)'
  assert_output --partial 'CPU: client 1 core (48 %), smbd 0 cores (0 %)'
  assert_output --partial '; 1 connect; all 10 commands'
  run section "$REP" login
  assert_line --index 1 --partial '- **FAIL**: 1 login/s (range 0.9–1.2, n=3) (target ≥ 100 logins/s and p95 ≤ 20 ms): repeat 2 (the median, 1 login/s): 1 login/s is below 100;'
  run jq -rn -L "$KIT_ROOT/lib" 'include "format"; ["ms", "MB/s", "IOPS", "µs", "s", "%", "logins/s", "local jobs"] | map(unit_at(1)) | join(" ")'
  assert_output 'ms MB/s IOPS µs s % login/s local job'
}

@test "wording: the verdict that rests on disturbed repeats gives their reasons once, merged" {
  run grep -F 'the verdict rests on disturbed' "$REP/report.md"
  assert_output '- login: the verdict rests on disturbed repeats 1, 2, 3 (other processes used 1.1–1.3 of 2 cores during login): measured again at most once each and at most REPEAT extra measurements a run'
}

@test "wording: a disturbed repeat is named once: the kept ones by the warning, one measured again by its own line" {
  # the section's 'disturbed:' line listed every repeat's reason in full again
  run grep -c 'other processes used 1\.[0-9]' "$REP/report.md"
  assert_output 1
  # a repeat measured again (its first measurement kept in raw/) has a line of its own
  local dir=$BATS_TEST_TMPDIR/again
  cp -R "$REP" "$dir"
  jq -c '.details.disturbed[1] += {replaced: true, tag: ".r2.disturbed1"}' "$REP/metrics/login.json" >"$dir/metrics/login.json"
  "$KIT_ROOT/test-samba.sh" report "$dir" >/dev/null 2>&1
  run section "$dir" login
  assert_line "- disturbed and measured again: repeat 2 (other processes used 1.2 of 2 cores during login; the first measurement kept in raw/ as '.r2.disturbed1')"
}

@test "wording: a failed login's section makes the Little's-law remark once, not once more per repeat" {
  run section "$REP" login
  run grep -c "Little's law" <<<"$output"
  assert_output 1
  run section "$REP" login
  # shellcheck disable=SC2016 # backticks are Markdown
  # on the figures line; the median repeat's reason is the verdict's, not said again
  assert_line --regexp '^- clients at once: .*; repeats: 1: 1.2 FAIL \(1.2 logins/s is below 100; p95 1665 ms is above 20 ms\); 2: 1 FAIL; 3: 0.9 FAIL \(0.9 logins/s is below 100; p95 1665 ms is above 20 ms\); 1 further figure moved between them \(median, min, max of each\): `results.json`, `.metrics.login.details.figures`$'
}
