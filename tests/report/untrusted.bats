#!/usr/bin/env bats
# tests/report/untrusted.bats: run folders are data from anyone (issue 24, class 2): a symbolic
# link in one is refused by every reader and writer (report, compare, charts, report.html)
# before anything is read through it or written; a value from a run folder cannot become a
# gnuplot command; report.html forbids scripts; compare writes beside a folder only when it is
# the user's own. Each test plants the hostile thing and checks that nothing foreign changed.

setup() {
  load '../test_helper/common-setup'
  _common_setup
  kit_require_cmd jq
  RUN="$BATS_TEST_TMPDIR/run"
  mkdir -p "$RUN"
  cp -R "$KIT_ROOT/tests/fixtures/run-pass/." "$RUN/"
  OUTSIDE="$BATS_TEST_TMPDIR/outside"
  mkdir -p "$OUTSIDE"
  echo '{"secret": "not for the report"}' >"$OUTSIDE/secret.json"
  chmod 600 "$OUTSIDE/secret.json"
}

# unchanged: the outside folder holds only the secret, as it was
unchanged() {
  run find "$OUTSIDE" -mindepth 1
  assert_output "$OUTSIDE/secret.json"
  run cat "$OUTSIDE/secret.json"
  assert_output '{"secret": "not for the report"}'
}

@test "untrusted: a link in a run folder is refused by report, charts and html, naming it; nothing written through it" {
  ln -s "$OUTSIDE/secret.json" "$RUN/metrics/zz.json"
  run "$KIT_ROOT/test-samba.sh" report "$RUN"
  assert_failure
  assert_output --partial "error: '$RUN/metrics/zz.json' is a symbolic link: a run folder is data, and the kit follows no link in it"
  [[ ! -e $RUN/report.md ]] && cmp -s "$RUN/results.json" "$KIT_ROOT/tests/fixtures/run-pass/results.json" ||
    fail "report wrote into the folder"
  rm "$RUN/metrics/zz.json"
  # charts/ pointing elsewhere: charts.sh and html.sh write nothing through it
  rm -rf "$RUN/charts"
  ln -s "$OUTSIDE" "$RUN/charts"
  run "$KIT_ROOT/lib/report/charts.sh" "$RUN"
  assert_failure 1
  assert_output "error: '$RUN/charts' is a symbolic link: a run folder is data, and the kit follows no link in it"
  echo '# Report' >"$RUN/report.md"
  run "$KIT_ROOT/lib/report/html.sh" "$RUN"
  assert_failure 1
  [[ ! -e $RUN/report.html ]] || fail "html.sh wrote report.html"
  unchanged
}

@test "untrusted: compare refuses a run folder with a link in it" {
  local b="$BATS_TEST_TMPDIR/b"
  cp -R "$KIT_ROOT/tests/fixtures/compare-diff/." "$RUN/"
  cp -R "$RUN" "$b"
  ln -s "$OUTSIDE/secret.json" "$b/smb.conf.x"
  run "$KIT_ROOT/test-samba.sh" compare -o "$BATS_TEST_TMPDIR/out" "$RUN" "$b"
  assert_failure 2
  assert_output --partial "error: '$b/smb.conf.x' is a symbolic link"
  [[ ! -e $BATS_TEST_TMPDIR/out/compare.md ]] || fail "compare wrote"
  unchanged
}

@test "untrusted: a line break in a unit from compare.json does not become a gnuplot command" {
  kit_require_cmd gnuplot
  local cmp="$BATS_TEST_TMPDIR/cmp" mark="$BATS_TEST_TMPDIR/pwned"
  mkdir -p "$cmp"
  cp -R "$KIT_ROOT/tests/fixtures/charts-compare/." "$cmp/"
  # gnuplot goes on after an error on its input: the quote left open by the line break is one,
  # the next line a command of its own
  jq --arg u $'MB/s\nsystem "touch '"$mark"$'"\nb = \'1' '.metrics[0].unit = $u' "$cmp/compare.json" >"$cmp/c.json"
  mv "$cmp/c.json" "$cmp/compare.json"
  run "$KIT_ROOT/lib/report/charts.sh" --compare "$cmp"
  assert_success
  [[ ! -e $mark ]] || fail "gnuplot ran the command from the run folder"
  jq -e '.charts | length > 0' "$cmp/charts/index.json"
}

@test "untrusted: report.html forbids scripts, and any URL, by its Content-Security-Policy" {
  kit_require_cmd cmark-gfm
  "$KIT_ROOT/test-samba.sh" report "$RUN" >/dev/null 2>&1 || true
  [[ -s $RUN/report.html ]] || fail "no report.html"
  run grep -c "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'\">" "$RUN/report.html"
  assert_output 1
}

@test "untrusted: compare writes beside the first run only in a folder of the user's own" {
  kit_require_root
  local theirs="$BATS_TEST_TMPDIR/theirs" b
  mkdir -p "$theirs"
  cp -R "$KIT_ROOT/tests/fixtures/compare-diff/." "$theirs/a/"
  cp -R "$KIT_ROOT/tests/fixtures/compare-diff/." "$theirs/b/"
  chown -R nobody "$theirs"
  run "$KIT_ROOT/test-samba.sh" compare "$theirs/a" "$theirs/b"
  assert_failure 2
  assert_output --partial "error: the folder of '$theirs/a' is not yours: give the comparison a folder of your own with -o DIR"
  run find "$theirs" -maxdepth 1 -name 'compare-*'
  assert_output ''
  # with -o it compares
  b="$BATS_TEST_TMPDIR/mine"
  run "$KIT_ROOT/test-samba.sh" compare -o "$b" "$theirs/a" "$theirs/b"
  [[ $status -le 1 ]] || fail "$output"
  [[ -s $b/compare.md ]] || fail "no compare.md in -o's folder"
}
