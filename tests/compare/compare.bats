#!/usr/bin/env bats
# shellcheck disable=SC2154 # $stderr is set by 'run --separate-stderr'
# tests/compare/compare.bats: 'compare' (lib/report/compare.sh) on fixture run folders in the repeats
# format: clearly different (8 repeats each, no overlap), clearly the same (overlapping), too
# few repeats (3 and 1), and folders that are not finished runs.

bats_require_minimum_version 1.5.0

setup() {
  load '../test_helper/common-setup'
  _common_setup
  FIX=$KIT_ROOT/tests/fixtures
  OUT="$BATS_TEST_TMPDIR/out dir"
}

# compare ARG...: 'test-samba.sh compare ARG...'.
compare() {
  "$KIT_ROOT/test-samba.sh" compare "$@"
}

# copy_fixture NAME: copy tests/fixtures/NAME into a folder with a space in its name; print it.
copy_fixture() {
  local dir="$BATS_TEST_TMPDIR/results dir/$1"
  mkdir -p "$dir"
  cp -R "$FIX/$1/." "$dir/"
  printf '%s\n' "$dir"
}

teardown() {
  public_dir_remove
}

# results_edit DIR JQ: apply the jq program JQ to DIR/results.json (the one file compare reads).
results_edit() {
  jq "$2" "$1/results.json" >"$1/results.json.new" && mv "$1/results.json.new" "$1/results.json"
}

# verdict FILE METRIC [I]: the verdict of METRIC of the I-th run against the first (I=1).
verdict() {
  jq -r --arg m "$2" --argjson i "${3:-1}" '.metrics[] | select(.metric == $m) | .versus[$i - 1].verdict' "$1"
}

@test "compare: clearly different runs give worse, better, no difference and exit 1" {
  run --separate-stderr compare -o "$OUT" "$FIX/compare-ref" "$FIX/compare-diff"
  assert_failure 1
  assert_equal "$(verdict "$OUT/compare.json" login)" worse
  assert_equal "$(verdict "$OUT/compare.json" metadata)" better
  assert_equal "$(verdict "$OUT/compare.json" memory)" better # lower is better (target <=)
  assert_equal "$(verdict "$OUT/compare.json" concurrency)" "no difference shown"
  assert_equal "$(verdict "$OUT/compare.json" seqwrite)" "not measured"
  run jq -e '.worse == true and .test.confidence == 95 and .test.alpha == 0.05 and .test.needs_n == 2
    and (.metrics[] | select(.metric == "login") | .runs[1].median == 309 and .runs[1].n == 8
      and .runs[1].min == 298 and .runs[1].max == 322 and .versus[0].p < 0.001
      and (.versus[0].change_pct * 10 | round) == -244)' "$OUT/compare.json"
  assert_success
  run cat "$OUT/compare.md"
  assert_line '| login | logins/s | 409 (range 398–421, n=8) | 309 (range 298–322, n=8) | −24.4 % [−26.3, −22.4] % worse (p<0.001, Holm p<0.001, n=8+8) |'
  assert_line '| memory | MB | 0.61 (range 0.6–0.64, n=8) | 0.51 (range 0.5–0.54, n=8) | −16.2 % [−18.5, −13.9] % better (p<0.001, Holm p<0.001, n=8+8) |'
  assert_line --partial '| concurrency | clients | 4 (range 4–4, n=8) | 4 (range 4–4, n=8) | ±0 % [−0.107, +0.107] % ~ no difference shown (p=1.000, Holm p=1.000, n=8+8) |'
  assert_line --partial 'At least one metric is worse with confidence (exit status 1).'
}

@test "compare: the table is printed and the same as compare.md" {
  run --separate-stderr compare -o "$OUT" "$FIX/compare-ref" "$FIX/compare-diff"
  assert_failure 1
  assert_equal "$output" "$(cat "$OUT/compare.md")"
  assert_equal "$stderr" "compare: wrote '$OUT/compare.md' and '$OUT/compare.json'"$'\n'"compare: wrote '$OUT/compare.html'"
}

@test "compare: every number is format.jq's: a figure reads as in report.md, a change the same in compare.md and on its chart" {
  # compare-md.jq rounded a change to one decimal itself, and charts.sh's title its own way
  # ("-24.4 %" with a hyphen, "0 %" beside compare.md's "±0 %")
  kit_require_cmd gnuplot
  local a b
  a=$(copy_fixture compare-few-a)
  b=$(copy_fixture compare-few-b)
  set_repeats "$a" login '[400, 410, 412.5]'
  set_repeats "$b" login '[412.6, 423.5, 426.6]' # +3.29 % (geometric means)
  run --separate-stderr compare -o "$OUT" "$a" "$b"
  run grep -F '| login |' "$OUT/compare.md"
  assert_output --partial '| login | logins/s | 410 (range 400–413, n=3) | 424 (range 413–427, n=3) | +3.29 % [−0.611, +7.34] % ~ no difference shown ('
  run jq -r '.metrics[] | select(.metric == "login") | .versus[0].change_pct | (. * 100 | round)' "$OUT/compare.json"
  assert_output 329
  run grep -o 'login: runs side by side ([^<]*)' "$OUT/charts/compare-login.svg"
  assert_output 'login: runs side by side (B +3.29 % no difference shown)'
  run grep -o 'concurrency: runs side by side ([^<]*)' "$OUT/charts/compare-concurrency.svg"
  assert_output --regexp '^concurrency: runs side by side \(B (±0|[+−][0-9.]+) % '
  # a figure reads as report.md writes the same value (format.jq's num): 412.5 is "413" in both
  run jq -L "$KIT_ROOT/lib" -rn 'include "format"; 412.5 | num'
  assert_output 413
}

@test "compare: test-samba.sh compare needs no root and no server, and writes compare.html with its charts" {
  kit_require_cmd gnuplot cmark-gfm
  local a b
  a=$(copy_fixture compare-ref)
  b=$(copy_fixture compare-diff)
  # a settings file that does not exist: compare reads no settings and needs no server
  KIT_SETTINGS=/nonexistent/settings.conf run --separate-stderr \
    "$KIT_ROOT/test-samba.sh" compare -o "$BATS_TEST_TMPDIR/cmp" "$a" "$b"
  assert_failure 1
  assert_output --partial '| login | logins/s |'
  [[ -s $BATS_TEST_TMPDIR/cmp/compare.html ]] || fail "no compare.html"
  run jq -r '.charts[].file' "$BATS_TEST_TMPDIR/cmp/charts/index.json"
  assert_line 'charts/compare-login.svg'
  run grep -c '<svg' "$BATS_TEST_TMPDIR/cmp/compare.html"
  (( output >= 3 )) || fail "compare.html has $output charts inline"
  run "$KIT_ROOT/test-samba.sh" compare "$a"
  assert_failure 2
  assert_output --partial 'at least two run folders'
}

@test "compare: overlapping runs with the same settings show no difference and exit 0" {
  run --separate-stderr compare -o "$OUT" "$FIX/compare-ref" "$FIX/compare-same"
  assert_success
  run jq -r '[.metrics[].versus[0].verdict] | unique | join(",")' "$OUT/compare.json"
  assert_output 'no difference shown,not measured'
  run cat "$OUT/compare.md"
  assert_line 'Nothing differs in the settings, the recorded smb.conf or the system between these runs.'
  assert_line --partial '| login | logins/s | 409 (range 398–421, n=8) | 408 (range 399–420, n=8) | −0.118 % [−2.08, +1.88] % ~ no difference shown (p=0.900, Holm p=1.000, n=8+8) |'
  refute_line --partial '% worse'
  refute_line --partial '% better'
}

@test "compare: 3 repeats each (the default) judge a 25 % drop whose ranges do not overlap: worse, with its interval and p" {
  # a rank test cannot be sure of anything with 3 and 3 (smallest p 0.1): two default runs got
  # "not enough repeats to tell" and exit 0 for a 25 % drop
  run --separate-stderr compare -o "$OUT" "$FIX/compare-few-a" "$FIX/compare-few-b"
  assert_failure 1
  assert_equal "$(verdict "$OUT/compare.json" login)" worse
  assert_equal "$(verdict "$OUT/compare.json" memory)" better
  run jq -e '.metrics[] | select(.metric == "login") | .versus[0]
    | .p < 0.001 and .p_holm < 0.01 and .ci_pct[0] < .change_pct and .change_pct < .ci_pct[1] and .ci_pct[1] < -20
      and .scale == "log" and .n == [3, 3]' "$OUT/compare.json"
  assert_success
  run cat "$OUT/compare.md"
  assert_line '| login | logins/s | 402 (range 398–415, n=3) | 301 (range 298–315, n=3) | −24.8 % [−29.2, −20.1] % worse (p<0.001, Holm p=0.001, n=3+3) |'
}

@test "compare: a run without repeats is one repeat; old-format runs compare too" {
  run --separate-stderr compare -o "$OUT" "$FIX/compare-ref" "$FIX/compare-one"
  assert_success
  assert_equal "$(verdict "$OUT/compare.json" login)" "not enough repeats to tell"
  run jq -e '.metrics[] | select(.metric == "login") | .runs[1].n == 1 and .runs[1].median == 300
    and .versus[0].needs_n == 2' "$OUT/compare.json"
  assert_success
  run --separate-stderr compare -o "$OUT/old" "$FIX/run-pass" "$FIX/run-fail"
  assert_success
  run jq -r '.metrics[] | "\(.metric) \(.versus[0].verdict)"' "$OUT/old/compare.json"
  assert_output $'login not enough repeats to tell\nmetadata not measured\nconcurrency not enough repeats to tell\nmemory not measured'
  run cat "$OUT/old/compare.md"
  assert_line --partial '| memory | MB | 0.61 (n=1) | not in this run | not measured |'
}

@test "compare: what differs lists settings, smb.conf parameters and system facts" {
  run --separate-stderr compare -o "$OUT" "$FIX/compare-ref" "$FIX/compare-same" "$FIX/compare-diff"
  assert_failure 1
  run cat "$OUT/compare.md"
  assert_line '| what | A | B | C |'
  assert_line '| setting ENCRYPTION | no | no | yes |'
  assert_line '| setting SAMBA_GLOBAL_PARAMS | (empty) | (empty) | aio read size = 1; socket options = TCP_NODELAY |'
  assert_line '| smb.conf [global] aio read size | (not set) | (not set) | 1 |'
  assert_line '| system Samba | 4.17.12-Debian | 4.17.12-Debian | 4.19.5-Debian |'
  assert_line '| system kernel | 6.1.0-28-amd64 | 6.1.0-28-amd64 | 6.6.0-test |'
  assert_line '| metric | unit | A | B | B vs A | C | C vs A |'
  refute_line --partial 'setting TEST_PORT'
  run jq -e '[.differences[] | .kind + " " + .key] == ["setting ENCRYPTION",
    "setting SAMBA_GLOBAL_PARAMS", "smb.conf [global] aio read size", "smb.conf [global] socket options", "system Samba",
    "system kernel"]' "$OUT/compare.json"
  assert_success
  assert_equal "$(verdict "$OUT/compare.json" login 1)" "no difference shown"
  assert_equal "$(verdict "$OUT/compare.json" login 2)" worse
}

@test "compare: reads each run's results.json alone: the same comparison without settings.env, smb.conf, system.json, metrics/" {
  # compare parsed settings.env itself (a second, lenient parser: a ' #' comment became part of
  # the value) and read smb.conf, system.json and metrics/ beside results.json
  local a b f
  run --separate-stderr compare -o "$OUT/all" "$FIX/compare-ref" "$FIX/compare-diff"
  assert_failure 1
  a=$(copy_fixture compare-ref)
  b=$(copy_fixture compare-diff)
  for f in "$a" "$b"; do rm -r "$f/settings.env" "$f/system.json" "$f/metrics" "$f/smb.conf"; done
  run --separate-stderr compare -o "$OUT/alone" "$a" "$b"
  assert_failure 1
  run diff <(jq 'del(.runs[].path)' "$OUT/all/compare.json") <(jq 'del(.runs[].path)' "$OUT/alone/compare.json")
  assert_success
  run grep -c 'smb.conf \[global\] aio read size\|setting ENCRYPTION\|system Samba' "$OUT/alone/compare.md"
  assert_output 3
}

@test "compare: a run whose results.json lacks its settings or smb.conf parameters says so; its values are not compared" {
  local a b
  a=$(copy_fixture compare-ref)
  b=$(copy_fixture compare-diff)
  results_edit "$b" '.settings = null | del(.system.server_settings)'
  run --separate-stderr compare -o "$OUT" "$a" "$b"
  assert_failure 1
  run jq -c '[.differences[] | .kind + " " + .key]' "$OUT/compare.json"
  assert_output '["system Samba","system kernel"]'
  run cat "$OUT/compare.md"
  assert_line "Run B: its results.json records no settings (settings.env missing or refused when it was written): its settings are not compared."
  assert_line --partial "Run B: its results.json records no smb.conf parameters ("
  # a third run that has them: its differences from A are shown, B's cells say not recorded
  run --separate-stderr compare -o "$OUT/3" "$a" "$b" "$FIX/compare-diff"
  run cat "$OUT/3/compare.md"
  assert_line '| setting ENCRYPTION | no | (not recorded) | yes |'
  assert_line '| smb.conf [global] aio read size | (not set) | (not recorded) | 1 |'
  # runs of an older kit (no smb.conf parameters in results.json) compare, with the note
  run --separate-stderr compare -o "$OUT/old" "$FIX/run-pass" "$FIX/run-fail"
  assert_success
  run grep -c 'records no smb.conf parameters' "$OUT/old/compare.md"
  assert_output 2
}

@test "compare: the kit's version is a system fact that can differ" {
  local a b
  a=$(copy_fixture compare-ref)
  b=$(copy_fixture compare-same)
  results_edit "$a" '.system.kit_version = "0.1.0 (842edf8)"'
  results_edit "$b" '.system.kit_version = "0.2.0 (0123abc)"'
  run --separate-stderr compare -o "$OUT" "$a" "$b"
  assert_success
  run grep -F '| system kit |' "$OUT/compare.md"
  assert_output '| system kit | 0.1.0 (842edf8) | 0.2.0 (0123abc) |'
  run jq -r '.runs[].kit_version' "$OUT/compare.json"
  assert_output $'0.1.0 (842edf8)\n0.2.0 (0123abc)'
}

@test "compare: the fixtures' results.json are what 'report' writes from their folders" {
  local f d
  for f in compare-ref compare-diff compare-same compare-few-a compare-few-b compare-one run-pass run-fail; do
    d=$(copy_fixture "$f")
    rm "$d/results.json"
    "$KIT_ROOT/test-samba.sh" report "$d" >/dev/null 2>&1 || fail "report of $f failed"
    run diff <(jq -S '{settings, system, metrics, verdict, counts}' "$FIX/$f/results.json") \
      <(jq -S '{settings, system, metrics, verdict, counts}' "$d/results.json")
    assert_success
  done
}

@test "compare: without -o the comparison goes into compare-<time> beside the first run" {
  a=$(copy_fixture compare-ref)
  b=$(copy_fixture compare-same)
  run --separate-stderr compare "$a" "$b"
  assert_success
  run --separate-stderr compare "$a" "$b"
  assert_success
  run bash -c 'ls -d "$1"/compare-2*/compare.md | wc -l' _ "$BATS_TEST_TMPDIR/results dir"
  assert_output 2
}

@test "compare: a stricter confidence can turn a difference into none shown" {
  a=$(copy_fixture compare-ref)
  b=$(copy_fixture compare-same)
  results_edit "$a" '.metrics.login |= (.repeats = [1,2,3,4,6] | .value = 3)'
  results_edit "$b" '.metrics.login |= (.repeats = [5,7,8,9,10] | .value = 8)'
  run --separate-stderr compare -c 90 -o "$OUT/90" "$a" "$b" # p = 0.024, Holm p = 0.098 (4 tests)
  assert_success
  assert_equal "$(verdict "$OUT/90/compare.json" login)" better
  run --separate-stderr compare -c 99 -o "$OUT/99" "$a" "$b"
  assert_success
  assert_equal "$(verdict "$OUT/99/compare.json" login)" "no difference shown"
  run jq -e '.test.confidence == 99 and .test.tests == 4' "$OUT/99/compare.json"
  assert_success
}

@test "compare: refuses fewer than two runs, naming the problem in one line" {
  run --separate-stderr compare "$FIX/compare-ref"
  assert_failure 2
  assert_equal "$stderr" "error: compare needs at least two run folders (see 'test-samba.sh compare -h')"
  run --separate-stderr compare
  assert_failure 2
}

@test "compare: refuses folders that are not finished runs, before writing anything" {
  a=$(copy_fixture compare-ref)
  local bad="$BATS_TEST_TMPDIR/bad dir" want inc stopped badjson
  mkdir -p "$bad/empty" "$bad/nometrics" "$bad/nosystem"
  touch "$bad/afile"
  jq '.metrics = {}' "$FIX/compare-ref/results.json" >"$bad/nometrics/results.json"
  jq 'del(.system)' "$FIX/compare-ref/results.json" >"$bad/nosystem/results.json"
  inc=$(copy_fixture compare-same)
  echo 'interrupted by SIGINT during metadata' >"$inc/INCOMPLETE"
  # a run stopped and reported: results.json says so (and the INCOMPLETE marker was removed)
  stopped=$(copy_fixture compare-few-a)
  results_edit "$stopped" '.incomplete = true | .system.run.interrupted = "interrupted by SIGTERM during login"'
  badjson=$(copy_fixture compare-diff)
  echo '{"metric": "login", ' >"$badjson/results.json"
  for pair in "$bad/missing|'$bad/missing' does not exist" \
    "$bad/afile|'$bad/afile' is not a run folder (not a directory)" \
    "$bad/empty|'$bad/empty' is not a run folder (no results.json; 'test-samba.sh report DIR' writes it from a run's files)" \
    "$bad/nometrics|'$bad/nometrics/results.json' has no metrics" \
    "$bad/nosystem|'$bad/nosystem/results.json' has no system record" \
    "$inc|'$inc' is an incomplete run: interrupted by SIGINT during metadata" \
    "$stopped|'$stopped' is an incomplete run: interrupted by SIGTERM during login" \
    "$FIX/run-incomplete|'$FIX/run-incomplete' is an incomplete run: interrupted by the user (Ctrl-C) during 'metadata'" \
    "$badjson|'$badjson/results.json' is not a JSON object"; do
    want=${pair#*|}
    run --separate-stderr compare "$a" "${pair%%|*}"
    assert_failure 2
    assert_equal "$stderr" "error: $want"
    assert_equal "$output" ""
  done
  run bash -c 'ls -d "$1"/compare-2* 2>/dev/null | wc -l' _ "$BATS_TEST_TMPDIR/results dir"
  assert_output 0
}

@test "compare: refuses unknown options and bad confidences; -h prints the usage" {
  run --separate-stderr compare -x "$FIX/compare-ref" "$FIX/compare-same"
  assert_failure 2
  assert_equal "$stderr" "error: compare: unknown option '-x'"
  for c in 0 100 abc 49.9; do
    run --separate-stderr compare -c "$c" "$FIX/compare-ref" "$FIX/compare-same"
    assert_failure 2
    assert_equal "$stderr" "error: compare: confidence '$c' must be a number from 50 to 99.9"
  done
  run compare -h
  assert_success
  assert_line --index 0 'Usage: test-samba.sh compare [-c CONFIDENCE] [-b BAND] [-o DIR] RUN_A RUN_B [RUN_C ...]'
  for b in -1 101 abc; do
    run --separate-stderr compare -b "$b" "$FIX/compare-ref" "$FIX/compare-same"
    assert_failure 2
    assert_equal "$stderr" "error: compare: band '$b' must be a number from 0 to 100 (-b or COMPARE_BAND_PCT)"
  done
}

@test "compare: options may follow the folders; '--' ends the options" {
  run --separate-stderr compare "$FIX/compare-ref" "$FIX/compare-same" -o "$OUT" -c 90
  assert_success
  run jq -e '.test.confidence == 90 and (.runs | length) == 2' "$OUT/compare.json"
  assert_success
  run --separate-stderr compare -o "$OUT/dd" -- "$FIX/compare-ref" "$FIX/compare-diff"
  assert_failure 1
  run --separate-stderr compare "$FIX/compare-ref" "$FIX/compare-same" -o
  assert_failure 2
  assert_equal "$stderr" "error: compare: option '-o' needs a value"
}

@test "compare: rows follow lib/metrics/list; localdisk, without a target, is shown but not judged" {
  # compare.jq had its own copy of the metric order, without localdisk; localdisk's value (how
  # many jobs ran on the local disk) was compared as if it were a figure of speed
  local a b m
  a=$(copy_fixture compare-ref)
  b=$(copy_fixture compare-diff)
  for m in "$a" "$b"; do
    results_edit "$m" '.metrics.localdisk = {metric: "localdisk", status: "PASS", value: 4, unit: "local jobs", target: null,
      target_op: null, why: "", details: {}, warnings: [], repeats: [4, 4, 4, 4, 4]}'
  done
  run --separate-stderr compare -o "$OUT" "$a" "$b"
  assert_equal "$(verdict "$OUT/compare.json" localdisk)" "not judged"
  run jq -r '[.metrics[].metric] | join(" ")' "$OUT/compare.json"
  local want
  want=$(grep -oE '^[a-z]+' "$KIT_ROOT/lib/metrics/list" | grep -xF -f <(jq -r '.metrics[].metric' "$OUT/compare.json") | paste -sd ' ')
  assert_output "$want"
  [[ $want == *"seqwrite localdisk metadata"* ]] || fail "localdisk is not in its place: $want"
  run grep -c '| localdisk | local jobs | 4 (range 4–4, n=5) | 4 (range 4–4, n=5) | not judged: no target' "$OUT/compare.md"
  assert_output 1
}

# set_repeats DIR METRIC JSON: give METRIC of the run in DIR these repeats (null: nothing measured).
set_repeats() {
  results_edit "$1" '.metrics["'"$2"'"] |= (.repeats = '"$3"' | .value = ([.repeats[] | numbers] | sort | .[length / 2 | floor]))'
}

@test "compare: repeats that measured nothing count against their run: worse, named, exit 1" {
  # compare dropped null repeats: 2 of 5 steady runs that completed no request gave "no
  # difference shown" and exit 0
  local a b
  a=$(copy_fixture compare-few-a)
  b=$(copy_fixture compare-few-b)
  set_repeats "$a" login '[400, 410, 405, 402, 408]'
  set_repeats "$b" login '[null, null, 401, 409, 404]'
  run --separate-stderr compare -o "$OUT" "$a" "$b"
  assert_failure 1
  assert_equal "$(verdict "$OUT/compare.json" login)" worse
  run jq -e '.metrics[] | select(.metric == "login") | .runs[1].failed == 2 and .runs[1].n == 3
    and .versus[0].failed == [0, 2]' "$OUT/compare.json"
  assert_success
  run cat "$OUT/compare.md"
  assert_line --partial '| login | logins/s | 405 (range 400–410, n=5) | 404 (range 401–409, n=3; 2 of 5 repeats measured nothing) | worse: 2 of 5 repeats measured nothing (the reference: 0 of 5) |'
}

@test "compare: a sure change inside the practical band is no difference; -b and COMPARE_BAND_PCT set the band" {
  local a b
  a=$(copy_fixture compare-few-a)
  b=$(copy_fixture compare-few-b)
  set_repeats "$a" login '[400, 401, 402]'
  set_repeats "$b" login '[388, 389, 390]' # -3 %, every repeat apart
  run --separate-stderr compare -o "$OUT/5" "$a" "$b"
  run jq -e '.metrics[] | select(.metric == "login") | .versus[0]
    | .verdict == "no difference shown" and .in_band == true and .p_holm < 0.05' "$OUT/5/compare.json"
  assert_success
  run grep -F '| login |' "$OUT/5/compare.md"
  assert_output --partial '~ no difference shown ('
  assert_output --partial '; inside the ±5 % band)'
  run --separate-stderr compare -b 1 -o "$OUT/1" "$a" "$b"
  assert_equal "$(verdict "$OUT/1/compare.json" login)" worse
  COMPARE_BAND_PCT=2 run --separate-stderr compare -o "$OUT/2" "$a" "$b"
  assert_equal "$(verdict "$OUT/2/compare.json" login)" worse
  run jq -e '.test.band_pct == 2' "$OUT/2/compare.json"
  assert_success
  printf 'COMPARE_BAND_PCT=2.5\n' >"$BATS_TEST_TMPDIR/s.conf"
  KIT_SETTINGS=$BATS_TEST_TMPDIR/s.conf run --separate-stderr compare -o "$OUT/f" "$a" "$b"
  run jq -e '.test.band_pct == 2.5' "$OUT/f/compare.json"
  assert_success
}

@test "compare: the correction counts every metric and run compared (Holm)" {
  local a b c
  a=$(copy_fixture compare-few-a)
  b=$(copy_fixture compare-few-b)
  c=$(copy_fixture compare-few-a)
  run --separate-stderr compare -o "$OUT" "$a" "$b" "$c"
  # tested: login, metadata, concurrency, memory against B and against C
  run jq -e '.test.tests == 8 and ([.metrics[].versus[] | select(.p != null) | .p_holm >= .p] | all)
    and (.test.correction | test("Holm over the 8 tests"))' "$OUT/compare.json"
  assert_success
}

@test "compare: a normal user compares two finished runs; a file it cannot read is named" {
  # compare as a normal user said "system.json is not a JSON object": the end of a run left it 0600
  kit_require_cmd gnuplot cmark-gfm
  public_dir compare
  local a="$PUB/run a" b="$PUB/run b" d
  cp -R "$FIX/compare-ref" "$a"
  cp -R "$FIX/compare-diff" "$b"
  for d in "$a" "$b"; do
    run bash -c 'umask 022; KIT_ROOT=$1; source "$1/lib/common.sh"
      common_source_libs "$1" settings registry report/report run/results; RUN_DIR=$2 RUN_T0=$SECONDS results_finish' \
      _ "$KIT_ROOT" "$d"
    assert_success
  done
  run --separate-stderr as_nobody "$KIT_ROOT/test-samba.sh" compare -o "$PUB/nobody/cmp" "$a" "$b"
  assert_failure 1
  assert_output --partial '| login | logins/s |'
  [[ -s $PUB/nobody/cmp/compare.html ]] || fail "no compare.html"
  run find "$PUB/nobody/cmp" \( -type f ! -perm 0644 -o -type d ! -perm 0755 \) -printf '%m %P\n'
  assert_output ''
  chmod 0600 "$b/results.json"
  run --separate-stderr as_nobody "$KIT_ROOT/test-samba.sh" compare -o "$PUB/nobody/cmp2" "$a" "$b"
  assert_failure 2
  assert_equal "$stderr" "error: cannot read '$b/results.json': Permission denied"
  # the files compare does not read may be anyone's
  chmod 0644 "$b/results.json"
  chmod 0600 "$b/system.json" "$b/metrics/login.json" "$b/settings.env"
  run --separate-stderr as_nobody "$KIT_ROOT/test-samba.sh" compare -o "$PUB/nobody/cmp3" "$a" "$b"
  assert_failure 1
}
