#!/usr/bin/env bats
# shellcheck disable=SC2154 # $stderr is set by 'run --separate-stderr'
# tests/metrics/report.bats: the report generator ('test-samba.sh report', lib/report/report.sh and
# lib/report/report.jq) on fixture run folders.

bats_require_minimum_version 1.5.0

setup() {
  load '../test_helper/common-setup'
  _common_setup
}

teardown() {
  public_dir_remove
}

# gen ARG...: test-samba.sh report ARG...
gen() {
  "$KIT_ROOT/test-samba.sh" report "$@"
}

# copy_fixture NAME: copy tests/fixtures/NAME into a temp folder whose name has a space; print it.
copy_fixture() {
  local dir="$BATS_TEST_TMPDIR/run dir $1"
  mkdir -p "$dir"
  cp -R "$KIT_ROOT/tests/fixtures/$1/." "$dir/"
  printf '%s\n' "$dir"
}

@test "report: all PASS gives a table row per metric with numbers and a PASS verdict" {
  dir=$(copy_fixture run-pass)
  run gen "$dir"
  assert_success
  run jq -e '.verdict == "PASS" and .counts.PASS == 4 and .incomplete == false
    and .metrics.login.value == 412.5 and .settings.DURATION == "2"
    and (.raw | index("login.json"))' "$dir/results.json"
  assert_success
  run cat "$dir/report.md"
  assert_line '| [login](#login-rate-login) | 413 logins/s | ≥ 100 logins/s and p95 ≤ 20 ms | PASS |  |'
  assert_line '| [memory](#memory-per-connection-memory) | 0.61 MB | ≤ 1 MB | PASS |  |'
  assert_line '| Settings changed from the defaults | DURATION=2 (default: 10) |'
  assert_line '**Verdict: PASS**: 4 PASS, 0 FAIL, 0 SKIP.'
  assert_line '| 4 | 4 | 0 | 20000 | 1.2 | yes |'
  assert_line --partial 'concurrency: 4 clients shared 2 CPUs with smbd'
  refute_output --partial 'INCOMPLETE'
  refute_output --partial 'Likely causes'
}

@test "report: a FAIL shows the why in the table and the likely causes and changes" {
  dir=$(copy_fixture run-fail)
  run gen "$dir"
  assert_success
  run jq -e '.verdict == "FAIL" and .counts.FAIL == 2' "$dir/results.json"
  assert_success
  run cat "$dir/report.md"
  assert_line '| [concurrency](#concurrency-concurrency) | 16 clients | ≥ 64 clients | **FAIL** | 13 of 64 clients could not connect: fork() failed in log.smbd |'
  # the advice is the one in lib/report/advice.json, word for word: the causes one item of the
  # section's list, the changes the next
  cause=$(jq -r '.concurrency.changes | join(" ")' "$KIT_ROOT/lib/report/advice.json")
  assert_line "- **What to change**: $cause"
  cause=$(jq -r '.login.causes | join(" ")' "$KIT_ROOT/lib/report/advice.json")
  assert_line "- **Likely causes**: $cause"
}

@test "report: a SKIP shows no number, the reason, and does not fail the verdict" {
  dir=$(copy_fixture run-skip)
  run gen "$dir"
  assert_success
  run jq -e '.verdict == "PASS" and .counts.SKIP == 2 and .metrics.seqwrite.value == null' "$dir/results.json"
  assert_success
  run cat "$dir/report.md"
  # a SKIP is one line of the 'Not measured' section, which its row links to
  assert_line '| [seqwrite](#not-measured) | — | ≥ 200 MB/s | SKIP | kernel has no cifs support |'
  assert_line '## Not measured'
  assert_line -- "- Sequential write (\`seqwrite\`): kernel has no cifs support"
  refute_line --partial '## Sequential write'
  refute_output --partial 'Likely causes'
}

@test "report: an incomplete run is marked, says why and names what did not run" {
  dir=$(copy_fixture run-incomplete)
  run gen "$dir"
  assert_success
  run jq -e '.verdict == "INCOMPLETE" and .incomplete and (.system.run.interrupted | test("Ctrl-C"))' "$dir/results.json"
  assert_success
  run cat "$dir/report.md"
  assert_line --partial "> **INCOMPLETE**: interrupted by the user (Ctrl-C) during 'metadata'"
  assert_line --partial 'not measured: metadata, concurrency.'
  assert_line '**Verdict: PASS**: 1 PASS, 0 FAIL, 0 SKIP (incomplete run).'
}

@test "report: a broken metric file is skipped with a warning, not fatal" {
  dir=$(copy_fixture run-pass)
  echo 'not json' >"$dir/metrics/zz.json"
  run gen "$dir"
  assert_success
  assert_output --partial "skipping '$dir/metrics/zz.json'"
  run jq -e '.counts.PASS == 4' "$dir/results.json"
  assert_success
}

@test "report: usage errors exit 2, a missing folder exits 1" {
  run gen
  assert_failure 2
  run gen a b
  assert_failure 2
  run gen "$BATS_TEST_TMPDIR/nothing"
  assert_failure 1
  assert_output --partial "no run folder"
}

@test "report: every metric has advice, and docs/metrics.md carries it word for word" {
  local rows
  rows=$(sed 's/#.*//' "$KIT_ROOT/lib/metrics/list" | tr -s ' \t' '\n' | sed '/^$/d' | jq -Rn '[inputs]')
  run jq -e --argjson rows "$rows" '(keys == ($rows | sort))
    and ([.[] | (.title and .what and (.causes | length > 0) and (.changes | length > 0))] | all)' "$KIT_ROOT/lib/report/advice.json"
  assert_success
  expected=$(gen --advice-md)
  actual=$(sed -n '/^<!-- advice:/,/^<!-- \/advice:/p' "$KIT_ROOT/docs/metrics.md")
  assert_equal "$actual" "$expected"
}

@test "report: system warnings (sessions not encrypted though ENCRYPTION=yes) head the warnings" {
  dir=$(copy_fixture run-pass)
  jq '.warnings = ["ENCRYPTION=yes, but smbstatus shows sessions without encryption: -"]
    | .sessions.encryption = "-"' "$dir/system.json" >"$dir/system.new"
  mv "$dir/system.new" "$dir/system.json"
  run gen "$dir"
  assert_success
  # the first of the three warnings under the results table, and the run's own list
  run sed -n '/^\*\*Warnings\*\*/,/^## /p' "$dir/report.md"
  assert_line --index 1 '- system: ENCRYPTION=yes, but smbstatus shows sessions without encryption: -'
  # and only there: every warning once
  run grep -c 'shows sessions without encryption' "$dir/report.md"
  assert_output 1
  run grep -c '^System warnings:' "$dir/report.md"
  assert_output 0
}

@test "report: every warning once: the first 3 head the report, the others in their metric's section" {
  # the report printed each warning twice: under the results table and in its section
  dir=$(copy_fixture run-pass)
  jq '.warnings = ["w1 of login", "w2 of login", "w3 of login", "w4 of login", "w5 of login"]' \
    "$dir/metrics/login.json" >"$dir/new.json"
  mv "$dir/new.json" "$dir/metrics/login.json"
  run gen "$dir"
  assert_success
  local i
  for i in 1 2 3 4 5; do
    run grep -c "w$i of login" "$dir/report.md"
    assert_output 1
  done
  run sed -n '/^\*\*Warnings\*\*/,/^## /p' "$dir/report.md"
  assert_line --index 0 "**Warnings** (the first 3 of 6; the others in their metric's section):"
  assert_line --index 1 '- login: w1 of login'
  run sed -n '/^## Login rate/,/^## /p' "$dir/report.md"
  assert_line '- **Warning**: w4 of login'
  assert_line '- **Warning**: w5 of login'
}

@test "report: the local-disk baseline (no target) is 'measured', not counted as a PASS" {
  # a default run said '4 PASS, 3 FAIL, 7 SKIP' where one PASS was the baseline, which judges nothing
  dir=$(copy_fixture run-pass)
  cp "$KIT_ROOT/tests/fixtures/localdisk/localdisk.json" "$dir/metrics/"
  run gen "$dir"
  assert_success
  run jq -e '.verdict == "PASS" and .counts == {PASS: 4, FAIL: 0, SKIP: 0, measured: 1}' "$dir/results.json"
  assert_success
  run cat "$dir/report.md"
  assert_line '**Verdict: PASS**: 4 PASS, 0 FAIL, 0 SKIP, 1 measured without a target.'
  assert_line '| [localdisk](#local-disk-baseline-localdisk) | 4 local jobs | — | measured |  |'
  run jq -L "$KIT_ROOT/lib" -r 'include "format"; progress_line' "$dir/metrics/localdisk.json"
  assert_output --regexp $'^measured\t4 local jobs'
}

@test "report: rows follow lib/metrics/list; a metric it does not name still gets its row, last" {
  dir=$(copy_fixture run-pass)
  jq -c '.metric = "zzextra" | .value = 7' "$dir/metrics/login.json" >"$dir/metrics/aaextra.json"
  run gen "$dir"
  assert_success
  run sed -n '/^| Metric /,/^$/{/^| [[a-z]/p}' "$dir/report.md"
  assert_line --index 0 --partial '| [login](#login-rate-login) |'
  assert_line --index 4 --partial '| [zzextra](#zzextra-zzextra) | 7 logins/s |'
  run jq -e '.counts.PASS == 5' "$dir/results.json"
  assert_success
}

@test "report: a finished run's files are 0644 and its folders 0755; a normal user reports a copy" {
  # report.md, results.json and system.json were 0600 (mktemp, then mv): only root could read them
  public_dir report
  dir="$PUB/run dir"
  cp -R "$KIT_ROOT/tests/fixtures/run-pass" "$dir"
  # the end of a run, as test-samba.sh does it (its umask 022)
  run bash -c 'umask 022; KIT_ROOT=$1; source "$1/lib/common.sh"
    common_source_libs "$1" settings registry report/report run/results; RUN_DIR=$2 RUN_T0=$SECONDS results_finish' \
    _ "$KIT_ROOT" "$dir"
  assert_success
  run jq -e '.run.finished_at' "$dir/system.json"
  assert_success
  [[ -s $dir/report.md && -s $dir/results.json ]] || fail "no report written"
  run find "$dir" -mindepth 1 \( -type f ! -perm 0644 -o -type d ! -perm 0755 \) -printf '%m %P\n'
  assert_output ''
  # a normal user: report of a copy of its own, and a clear error for a file it cannot read
  as_nobody cp -R "$dir" "$PUB/nobody/copy"
  run as_nobody "$KIT_ROOT/test-samba.sh" report "$PUB/nobody/copy"
  assert_success
  run jq -e '.verdict == "PASS"' "$PUB/nobody/copy/results.json"
  assert_success
  chmod 0600 "$PUB/nobody/copy/system.json"
  chown root "$PUB/nobody/copy/system.json"
  run --separate-stderr as_nobody "$KIT_ROOT/test-samba.sh" report "$PUB/nobody/copy"
  assert_failure 1
  assert_equal "$stderr" "error: cannot read '$PUB/nobody/copy/system.json': Permission denied"
}

@test "report: the header names the kit's version from system.json" {
  dir=$(copy_fixture run-pass)
  jq '.kit_version = "0.1.0 (842edf8)"' "$KIT_ROOT/tests/fixtures/run-pass/system.json" >"$dir/system.json"
  run gen "$dir"
  assert_success
  run cat "$dir/report.md"
  assert_line --regexp '^\| Software \| Samba .*; kit samba-perf-test 0\.1\.0 \(842edf8\) \|$'
  # a run recorded before the version was
  dir=$(copy_fixture run-fail)
  run gen "$dir"
  assert_success
  run cat "$dir/report.md"
  assert_line --regexp '^\| Software \| Samba .*; kit samba-perf-test \(version not recorded\) \|$'
}

@test "report: the header names the CPU and its crypto flags, and says what (partial) signing means" {
  dir=$(copy_fixture run-pass)
  jq '.cpu = {model: "AMD EPYC", arch: "x86", crypto: {aes: true, pclmulqdq: true, sha_ni: false, avx2: true}}
    | .sessions.signing = "AES-128-GMAC (partial)"' "$KIT_ROOT/tests/fixtures/run-pass/system.json" >"$dir/system.json"
  run gen "$dir"
  assert_success
  run cat "$dir/report.md"
  assert_line '| CPU | AMD EPYC; crypto flags present: aes, pclmulqdq, avx2; absent: sha_ni (aes is AES-NI) |'
  assert_line --regexp '^\| What \(partial\) means \| smbstatus saw signed and also unsigned requests in the session .*SIGNING=mandatory.* \|$'
  # full signing and no encryption: nothing to explain
  jq '.sessions.signing = "AES-128-GMAC"' "$KIT_ROOT/tests/fixtures/run-pass/system.json" >"$dir/system.json"
  run gen "$dir"
  run cat "$dir/report.md"
  refute_line --partial '(partial) means'
  refute_line --partial '| CPU |'
}

@test "report: the results table and the first line give a failed metric's reason short, its section whole" {
  # a default run's table had a 400-character 'Why' (the repeat, Little's law in parentheses)
  dir=$(copy_fixture run-pass)
  jq '.status = "FAIL" | .why = "repeat 2 (the median, 60 logins/s): 60 logins/s is below 100 (8 workers (Little'"'"'s law) need over 400 logins/s)"' \
    "$dir/metrics/login.json" >"$dir/new.json"
  mv "$dir/new.json" "$dir/metrics/login.json"
  run gen "$dir"
  assert_success
  run cat "$dir/report.md"
  assert_line --regexp '^\| \[login\]\(#login-rate-login\) \| .* \| \*\*FAIL\*\* \| 60 logins/s is below 100 \|$'
  assert_line --regexp '^\*\*Verdict: FAIL\*\*: .* Worst: login, .*: 60 logins/s is below 100\.$'
  assert_line --partial "**FAIL**: 413 logins/s (target ≥ 100 logins/s and p95 ≤ 20 ms): repeat 2 (the median, 60 logins/s): 60 logins/s is below 100 (8 workers (Little's law) need over 400 logins/s)."
}

@test "report: the test server's smb.conf shows its settings without the kit's own folders and files" {
  # a default run's row listed ten folders and files of the kit (lock directory = /var/lib/...)
  dir=$(copy_fixture run-pass)
  jq '.server_settings = {checked_with: "testparm -s x", in_effect: {SIGNING: "default"},
      parameters: {global: {"lock directory": "/var/lib/samba/perf-test/lock", "load printers": "No",
        "log file": "/var/log/samba/perf-test/log.smbd"}, share: {path: "/srv/samba-perf-test", "read only": "No"}}}' \
    "$dir/system.json" >"$dir/new.json"
  mv "$dir/new.json" "$dir/system.json"
  run gen "$dir"
  assert_success
  run cat "$dir/report.md"
  # shellcheck disable=SC2016 # backticks are Markdown
  assert_line '| Samba parameters (smb.conf of the test server) | [global] load printers = No; [share] read only = No; 3 folders and files of the kit left out: the whole file is `smb.conf` |'
}

@test "report: settings.env is read by the one parser (settings_file_json): a ' #' comment is no part of a value; a refused line is named and no settings are recorded" {
  # report read settings.env with compare's own lenient parser: 'DURATION=10 # s' was "10 # s",
  # and a line the kit's files may not hold was taken as text
  local dir mark=$BATS_TEST_TMPDIR/ran
  dir=$(copy_fixture run-pass)
  printf 'DURATION=10 # seconds\nNAME="a b"\n' >>"$dir/settings.env"
  sed -i '/^DURATION=2$/d' "$dir/settings.env"
  run --separate-stderr gen "$dir"
  assert_success
  run jq -c '[.settings.DURATION, .settings.NAME, .settings.CONCURRENCY_LEVELS]' "$dir/results.json"
  assert_output '["10","a b","1 4"]'
  # shellcheck disable=SC2016 # ${IFS} stays literal: code without a space
  printf 'DROP_CACHES=$(touch${IFS}%s)\n' "$mark" >>"$dir/settings.env"
  run --separate-stderr gen "$dir"
  assert_success
  assert_equal "$stderr" "error: $dir/settings.env:$(wc -l <"$dir/settings.env"): 'DROP_CACHES': '\$' and '\`' are not expanded: write the value itself"
  run jq -c '.settings' "$dir/results.json"
  assert_output null
  [[ ! -e $mark ]] || fail "code in settings.env ran"
}
