#!/usr/bin/env bats
# tests/report/html.bats: report.html and compare.html (lib/report/html.sh) on fixture folders, looked
# at in headless Chromium: a screenshot that is not blank, no console errors, nothing
# fetched, the verdict table in the DOM, every chart with a drawing area, no sideways
# scrolling on a phone.

setup_file() {
  load '../test_helper/common-setup'
  _common_setup
  load 'browser'
  load 'run-folder'
  kit_require_cmd gnuplot jq cmark-gfm convert
  [[ -n $(browser_bin) ]] || kit_require_cmd chromium
  RUN="$BATS_FILE_TMPDIR/run dir"
  CMP="$BATS_FILE_TMPDIR/compare dir"
  FULL="$BATS_FILE_TMPDIR/full dir"
  mkdir -p "$CMP" "$FULL"
  # a run that measured every metric (tests/fixtures/full-run): what a default run prints
  cp -R "$KIT_ROOT/tests/fixtures/full-run/." "$FULL/"
  "$KIT_ROOT/test-samba.sh" report "$FULL" >/dev/null
  cp -R "$KIT_ROOT/tests/fixtures/charts-compare/." "$CMP/"
  # the verdicts judge the fixture's raw files; the kit's report writing draws the charts, links
  # them in report.md and writes report.html
  run_folder_make "$KIT_ROOT/tests/fixtures/charts-run" "$RUN"
  "$KIT_ROOT/test-samba.sh" report "$RUN"
  "$KIT_ROOT/lib/report/charts.sh" --compare "$CMP"
  "$KIT_ROOT/lib/report/html.sh" --compare "$CMP"
  local d=$BATS_FILE_TMPDIR
  # the screenshots at the size of README's pictures (docs/screenshot-*.png)
  browser_shot "$RUN/report.html" "$d/report.png" 1000 2300 "$d/report.log"
  browser_shot "$CMP/compare.html" "$d/compare.png" 1000 2000 "$d/compare.log"
  browser_probe "$RUN/report.html" 414 800 >"$d/report.dom"
  browser_probe "$CMP/compare.html" 414 800 >"$d/compare.dom"
  browser_probe "$FULL/report.html" 414 800 >"$d/full.dom"
  export RUN CMP FULL
}

setup() {
  load '../test_helper/common-setup'
  _common_setup
  load 'browser'
  kit_require_cmd gnuplot jq cmark-gfm convert
  D=$BATS_FILE_TMPDIR
}

# phone_ok LINE...: the probe's lines of a page at 414 px meet issue 21's targets: the page is
# no wider than the screen, every chart's smallest text is at least 10 px, and every box that
# scrolls sideways shows a cue; prints the lines that do not.
phone_ok() {
  printf '%s\n' "$@" | awk '
    /^viewport / && $4 > $2 { print; bad = 1 }
    /^svg / && !($8 >= 10) { print; bad = 1 }
    /^overflow / && $5 == "none" { print; bad = 1 }
    END { exit bad }'
}

# probe_lines DOM: the probe's lines of a dumped DOM.
probe_lines() {
  sed -n '/<pre id="probe">/,/<\/pre>/p' "$1" | sed 's/<[^>]*>//g'
}

@test "html: report.html is one file with the report's text, every chart inline and nothing to fetch" {
  local h=$RUN/report.html
  # every chart of index.json is inline, once
  [[ $(grep -c '<figure class="chart">' "$h") -eq $(jq '.charts | length' "$RUN/charts/index.json") ]]
  [[ $(grep -c '<svg ' "$h") -eq 17 ]]
  # nothing external: no script, stylesheet link, image source, url() or @import
  run grep -Ei '<script|<link|<img|src=|@import|url\([^#]|href="[a-z]+:' "$h"
  assert_output ''
  # ids stay unique although every gnuplot SVG uses the same ones
  [[ -z $(grep -o " id=['\"][^'\"]*" "$h" | sort | uniq -d) ]]
  # the same text as report.md: each heading and each table row's first cell
  local line n=0
  while IFS= read -r line; do
    grep -qF "$line" "$h" || fail "report.html lacks the heading '$line'"
    n=$((n + 1))
  done < <(sed -n 's/^#\{1,3\} \([^`(]*\).*/\1/p' "$RUN/report.md" | sed 's/ *$//')
  while IFS= read -r line; do
    grep -qE "<t[dh]>$line</t[dh]>" "$h" || fail "report.html lacks the table cell '$line'"
    n=$((n + 1))
  done < <(sed -n 's/^| \([a-z][a-z ]*[a-z]\) |.*/\1/p' "$RUN/report.md")
  ((n >= 18))
  grep -q '<meta name="viewport"' "$h"
  grep -q '@media print' "$h"
}

@test "html: the charts sit in their metric's section, and a chart not drawn says why" {
  run awk '/<h2[ >]/ { h = $0 } /<figure class="chart">/ { getline; getline; print h }' "$RUN/report.html"
  assert_line --index 0 --partial '<code>startup</code>'
  assert_line --partial '<code>login</code>'
  assert_line --partial '<code>localdisk</code>'
  run sed -n '/<code>latency<\/code>)<\/h2>/,/<h2[ >]/p' "$RUN/report.html"
  assert_output --partial '<p>Charts not drawn: rate over time (no per-second data).</p>'
  assert_output --partial 'aria-label="latency: latency distribution"'
}

@test "html: the page renders: a screenshot with colour, no console errors, nothing fetched" {
  [[ -s $D/report.png ]]
  (($(png_colours "$D/report.png") > 50))
  run browser_console_errors "$D/report.log"
  assert_output ''
  run probe_lines "$D/report.dom"
  assert_line 'resources 0'
}

@test "html: the verdict table is in the DOM with a class per verdict" {
  run grep -c '<td class="pass">PASS</td>' "$D/report.dom"
  assert_output 7
  # the local-disk baseline judges nothing: 'measured', in its own class
  grep -q '<td class="measured">measured</td>' "$D/report.dom"
  grep -q '<td class="fail"><strong>FAIL</strong></td>' "$D/report.dom"
  grep -q '<th>Verdict</th>' "$D/report.dom"
}

@test "html: every inline chart has a drawing area; on a phone (414 px) the page does not scroll sideways, chart text is at least 10 px, and a box that scrolls says so" {
  run probe_lines "$D/report.dom"
  local svgs
  svgs=$(printf '%s\n' "${lines[@]}" | grep -c '^svg ')
  ((svgs == 17))
  # 'svg W H plot W H': the picture's box and the first plot's drawing, both non-empty
  printf '%s\n' "${lines[@]}" | awk '/^svg / && !($2 > 300 && $3 > 150 && $5 > 20 && $6 > 20) { print; bad = 1 } END { exit bad }'
  phone_ok "${lines[@]}"
  run probe_lines "$D/compare.dom"
  phone_ok "${lines[@]}"
  # a run that measured every metric: its 33 charts and its widest tables (bigdir's 16 columns)
  run probe_lines "$D/full.dom"
  assert_line --index 0 'viewport 414 page-width 414'
  (($(printf '%s\n' "${lines[@]}" | grep -c '^svg ') == 33))
  phone_ok "${lines[@]}"
}

@test "html: the phone checks notice a page that scrolls sideways, small chart text and a scrolling box without a cue" {
  run phone_ok 'viewport 414 page-width 500' 'svg 382 191 plot 255 342 text 10.2'
  assert_failure
  assert_output --partial 'page-width 500'
  run phone_ok 'viewport 414 page-width 414' 'svg 382 191 plot 255 342 text 5.3'
  assert_failure
  assert_output --partial 'text 5.3'
  run phone_ok 'viewport 414 page-width 414' 'overflow div 502 382 none'
  assert_failure
  assert_output --partial 'overflow div'
  # a long word (a results.json path in a metric's list) breaks instead of widening the page
  local dir=$BATS_TEST_TMPDIR/long
  mkdir -p "$dir"
  # shellcheck disable=SC2016 # backticks are Markdown
  printf '# Long\n\n- all 9 commands: `results.json` `.metrics.concurrency.details.server.commands.and.more.of.it`\n' >"$dir/report.md"
  "$KIT_ROOT/lib/report/html.sh" "$dir"
  run probe_lines <(browser_probe "$dir/report.html" 414 800)
  phone_ok "${lines[@]}"
  # and the probe does see a frame of 414 px (Chromium's own window is at least 500 px)
  run probe_lines "$D/report.dom"
  assert_line --index 0 'viewport 414 page-width 414'
}

@test "html: README's screenshots are this test's own: docs/screenshot-*.png show the fixture pages it renders" {
  # KIT_SCREENSHOTS=update bats tests/report/html.bats writes them (after a change of the look)
  local pair shot doc n limit
  for pair in report:run compare:compare; do
    shot=$D/${pair%%:*}.png doc=$KIT_ROOT/docs/screenshot-${pair#*:}.png
    grep -qF "](docs/${doc##*/})" "$KIT_ROOT/README.md" || fail "README does not show docs/${doc##*/}"
    # (64 colours without dithering: a third of the size, some 400 pixels off)
    [[ ${KIT_SCREENSHOTS:-} != update ]] || convert "$shot" +dither -colors 64 "$doc"
    # a meaningful difference: more than 0.2 % of the pixels (a changed line of text or chart)
    n=$(png_differ "$shot" "$doc")
    limit=$(($(identify -format '%w*%h' "$shot") / 500))
    echo "# docs/${doc##*/}: $n pixels differ (at most $limit)" >&3
    ((n <= limit)) || fail "docs/${doc##*/} is stale: $n pixels differ from the page this test renders (at most $limit); KIT_SCREENSHOTS=update bats tests/report/html.bats"
  done
}

@test "html: the screenshot check notices a changed picture" {
  local p=$BATS_TEST_TMPDIR
  convert "$D/report.png" -fill red -draw 'rectangle 10,10 109,109' "$p/changed.png"
  run png_differ "$D/report.png" "$p/changed.png"
  assert_output 10000
  run png_differ "$D/report.png" "$D/report.png"
  assert_output 0
  # another size: every pixel differs
  run png_differ "$D/report.png" "$D/compare.png"
  assert_output 2300000
}

@test "html: the checks notice a blank page and a console error" {
  local p=$BATS_TEST_TMPDIR
  printf '<!DOCTYPE html><html><body></body></html>\n' >"$p/blank.html"
  browser_shot "$p/blank.html" "$p/blank.png" 400 300 "$p/blank.log"
  (($(png_colours "$p/blank.png") <= 2))
  printf '<!DOCTYPE html><html><body><p>x</p><script>no_such_function();</script></body></html>\n' >"$p/bad.html"
  browser_shot "$p/bad.html" "$p/bad.png" 400 300 "$p/bad.log"
  run browser_console_errors "$p/bad.log"
  assert_output --partial 'no_such_function is not defined'
}

@test "html: compare.html shows the comparison with a chart per metric" {
  local h=$CMP/compare.html
  [[ $(grep -c '<svg ' "$h") -eq 4 ]]
  grep -q '<h1>Comparison of 3 runs</h1>' "$h"
  grep -q '<p>Charts not drawn: runs side by side (no median for any run).</p>' "$h"
  (($(png_colours "$D/compare.png") > 50))
  run browser_console_errors "$D/compare.log"
  assert_output ''
  run probe_lines "$D/compare.dom"
  assert_line 'resources 0'
  printf '%s\n' "${lines[@]}" | awk '/^svg / && !($2 > 300 && $3 > 150 && $5 > 20 && $6 > 20) { print; bad = 1 } END { exit bad }'
}

@test "html: the Markdown's own chart links are used; a link to a missing chart becomes a line" {
  local dir="$BATS_TEST_TMPDIR/linked"
  mkdir -p "$dir"
  cp -R "$RUN/." "$dir/"
  # several on one line, as report.md puts a metric's charts: each becomes a figure
  printf '# Linked\n\n## Only one\n\n![the curve](charts/curve-concurrency.svg) ![gone](charts/gone.svg) ![the rounds](charts/rounds-startup.svg)\n\ntext <b>bold?</b>\n' >"$dir/report.md"
  run "$KIT_ROOT/lib/report/html.sh" "$dir"
  assert_success
  [[ $(grep -c '<svg ' "$dir/report.html") -eq 2 ]]
  grep -q 'aria-label="the curve"' "$dir/report.html"
  grep -q 'aria-label="the rounds"' "$dir/report.html"
  grep -q '<p>chart: gone not drawn (no file charts/gone.svg).</p>' "$dir/report.html"
  run grep -c '<img' "$dir/report.html"
  assert_output 0
  # raw HTML in the Markdown is not passed through
  run grep -c '<b>' "$dir/report.html"
  assert_output 0
}

@test "html: without gnuplot the page says charts were not drawn; without a renderer no page" {
  local dir="$BATS_TEST_TMPDIR/plain" bin=$BATS_TEST_TMPDIR/bin f
  mkdir -p "$dir" "$bin"
  cp -R "$RUN/." "$dir/"
  for f in /usr/local/bin/* /usr/bin/* /bin/*; do
    [[ -x $f && ${f##*/} != gnuplot* && ${f##*/} != cmark* && ${f##*/} != python3* && ! -e $bin/${f##*/} ]] &&
      ln -s "$f" "$bin/${f##*/}"
  done
  ln -s "$(command -v cmark-gfm)" "$bin/cmark-gfm"
  PATH=$bin run "$KIT_ROOT/test-samba.sh" report "$dir"
  assert_success
  jq -e '.charts.why == "gnuplot not installed"' "$dir/results.json"
  grep -q '<p>charts: not drawn (gnuplot not installed).</p>' "$dir/report.html"
  run grep -c '<svg ' "$dir/report.html"
  assert_output 0
  grep -q '<td><a href="#login-rate-login">login</a></td>' "$dir/report.html"
  rm "$bin/cmark-gfm" "$dir/report.html"
  PATH=$bin run "$KIT_ROOT/lib/report/html.sh" "$dir"
  assert_failure 1
  assert_output "error: cannot write '$dir/report.html': no Markdown renderer (install cmark-gfm or python3-markdown)"
  [[ ! -e $dir/report.html ]]
  # the report writing goes on without a page: report.md and results.json are written
  PATH=$bin run "$KIT_ROOT/test-samba.sh" report "$dir"
  assert_success
  assert_output --partial 'report.html not written'
  [[ -s $dir/report.md && ! -e $dir/report.html ]]
}

@test "html: usage and a folder without a report" {
  run "$KIT_ROOT/lib/report/html.sh"
  assert_failure 2
  run "$KIT_ROOT/lib/report/html.sh" "$BATS_TEST_TMPDIR"
  assert_failure 1
  assert_output "error: no report '$BATS_TEST_TMPDIR/report.md'"
}

@test "html: without cmark-gfm python3's markdown module renders the same tables and charts" {
  /usr/bin/python3 -c 'import markdown' 2>/dev/null || skip "python3-markdown is not installed"
  local dir="$BATS_TEST_TMPDIR/py md" bin=$BATS_TEST_TMPDIR/bin f
  mkdir -p "$dir" "$bin"
  cp -R "$RUN/." "$dir/"
  rm "$dir/report.html"
  for f in /usr/bin/* /bin/*; do
    [[ -x $f && ${f##*/} != cmark* && ! -e $bin/${f##*/} ]] && ln -s "$f" "$bin/${f##*/}"
  done
  PATH=$bin run "$KIT_ROOT/lib/report/html.sh" "$dir"
  assert_success
  [[ $(grep -c '<svg ' "$dir/report.html") -eq 17 ]]
  run grep -c '<td class="pass">PASS</td>' "$dir/report.html"
  assert_output 7
  # the same cells; right alignment is align="right" in one and a style in the other
  diff <(grep -o '<t[dh][^>]*>[^<]*' "$RUN/report.html" | sed 's/ align="right"/ right/') \
    <(grep -o '<t[dh][^>]*>[^<]*' "$dir/report.html" | sed 's/ style="text-align: right;"/ right/')
}

@test "html: the results table's links reach their sections, and the page's policy stops a script planted in it" {
  local a copy="$BATS_TEST_TMPDIR/planted.html"
  run grep -o 'href="#[^"]*"' "$RUN/report.html"
  ((${#lines[@]} >= 8)) || fail "only ${#lines[@]} section links"
  for a in "${lines[@]}"; do
    a=${a#href=\"#} a=${a%\"}
    grep -q "<h2 id=\"$a\">" "$RUN/report.html" || fail "no section '$a' for its link"
  done
  run grep -o ' id="[^"]*"' "$RUN/report.html"
  assert_equal "$(printf '%s\n' "${lines[@]}" | sort | uniq -d)" ""
  # a script someone added to the page does not run: it would have added <pre id="planted">
  sed 's#</body>#<script>var p = document.createElement("pre"); p.id = "planted"; document.body.appendChild(p);</script></body>#' \
    "$RUN/report.html" >"$copy"
  run browser_run --virtual-time-budget=3000 --dump-dom "file://$copy"
  [[ $output == *'</body>'* ]] || fail "no DOM from Chromium"
  [[ $output != *'id="planted"'* ]] || fail "the planted script ran"
}
