#!/usr/bin/env bats
# tests/report/regenerate.bats: results.json is the only input of the report's views (issue 18):
# 'test-samba.sh report RUN_DIR' writes report.md, report.html and charts/*.svg byte for byte
# the same from a run folder whose raw/ is gone. The folder is made from a fixture's raw files
# by the kit's own verdicts (tests/report/run-folder.bash).

setup() {
  load '../test_helper/common-setup'
  _common_setup
  load 'run-folder'
  kit_require_cmd gnuplot jq cmark-gfm
}

@test "regenerate: report.md, report.html and every chart are the same without raw/" {
  local dir="$BATS_TEST_TMPDIR/run dir" before="$BATS_TEST_TMPDIR/before" f
  run_folder_make "$KIT_ROOT/tests/fixtures/charts-run" "$dir"
  mkdir -p "$before"
  cp -R "$dir/report.md" "$dir/report.html" "$dir/charts" "$before/"
  # the run drew its charts: a regeneration that drew none would compare nothing
  [[ $(find "$before/charts" -name '*.svg' | wc -l) -ge 15 ]]
  rm -r "$dir/raw"
  run "$KIT_ROOT/test-samba.sh" report "$dir"
  assert_success
  for f in report.md report.html; do
    cmp "$before/$f" "$dir/$f" || fail "$f differs: $(diff "$before/$f" "$dir/$f" | head -n 5)"
  done
  run diff <(cd "$before/charts" && ls ./*.svg) <(cd "$dir/charts" && ls ./*.svg)
  assert_success
  for f in "$before"/charts/*.svg; do
    cmp "$f" "$dir/charts/${f##*/}" || fail "charts/${f##*/} differs"
  done
}
