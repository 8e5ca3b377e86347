#!/usr/bin/env bats
# tests/report/print.bats: report.html printed to PDF by headless Chromium, as a person's "print"
# does (issue 21: at most 8 pages on A4 and on Letter, no page but the last half blank): the
# charts fixture's report (tests/fixtures/charts-run through the kit's verdicts) and a run that
# measured every metric (tests/fixtures/full-run), which is what a default run prints.

setup_file() {
  load '../test_helper/common-setup'
  _common_setup
  load 'browser'
  load 'run-folder'
  kit_require_cmd gnuplot jq cmark-gfm convert
  [[ -n $(browser_bin) ]] || kit_require_cmd chromium
  RUN="$BATS_FILE_TMPDIR/run dir"
  FULL="$BATS_FILE_TMPDIR/full dir"
  mkdir -p "$FULL"
  run_folder_make "$KIT_ROOT/tests/fixtures/charts-run" "$RUN"
  cp -R "$KIT_ROOT/tests/fixtures/full-run/." "$FULL/"
  "$KIT_ROOT/test-samba.sh" report "$FULL" >/dev/null
  export RUN FULL
}

setup() {
  load '../test_helper/common-setup'
  _common_setup
  load 'browser'
  kit_require_cmd gnuplot jq cmark-gfm convert
}

@test "print: report.html printed on A4 and on Letter, no page but the last ends in its upper half" {
  kit_require_cmd pdfinfo pdftoppm
  local paper n dir pdf
  # issue 21: at most 8 pages; the charts fixture's report: 5 on A4, 6 on Letter; a run that
  # measured every metric: 7 and 7 (in one column it was 8 on A4 and 9 on Letter)
  for dir in "$RUN" "$FULL"; do
    for paper in A4 letter; do
      pdf=$BATS_TEST_TMPDIR/${dir##*/}-$paper.pdf
      browser_pdf "$dir/report.html" "$pdf" "$paper"
      n=$(pdf_pages "$pdf")
      echo "# ${dir##*/}, $paper: $n pages" >&3
      ((n >= 2)) || fail "${dir##*/}, $paper: $n pages"
      ((n <= 8)) || fail "${dir##*/}, $paper: $n pages, more than 8"
      run pdf_fill "$pdf"
      assert_equal "${#lines[@]}" "$n"
      printf '%s\n' "${lines[@]}" | awk -v n="$n" '$1 < n && $2 < 55 { print "page " $1 " ends at " $2 " %"; bad = 1 } END { exit bad }' ||
        fail "${dir##*/}, $paper: a page is half blank"
    done
  done
}

@test "print: the check notices a half-blank page" {
  kit_require_cmd pdfinfo pdftoppm
  local p=$BATS_TEST_TMPDIR/half.html
  printf '<!DOCTYPE html><html><head></head><body><p>top</p><p style="break-before: page">second page</p></body></html>\n' >"$p"
  browser_pdf "$p" "$BATS_TEST_TMPDIR/half.pdf" A4
  run pdf_fill "$BATS_TEST_TMPDIR/half.pdf"
  assert_equal "${#lines[@]}" 2
  [[ ${lines[0]} =~ ^1\ ([0-9]+)$ ]] && ((BASH_REMATCH[1] < 20))
}
