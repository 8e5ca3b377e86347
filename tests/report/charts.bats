#!/usr/bin/env bats
# tests/report/charts.bats: lib/report/charts.sh draws what results.json holds (each metric's .charts,
# emitted by its verdict through lib/run/series.jq) and nothing else. The run folder is made from the
# fixture's raw files by the kit's own verdicts and report (tests/report/run-folder.bash). Checks:
# which charts, well-formed SVG, the plotted points are the data (tests/report/svg.bash), a chart
# that cannot be drawn is a not_drawn entry, no gnuplot = no charts.

setup_file() {
  load '../test_helper/common-setup'
  _common_setup
  load 'run-folder'
  kit_require_cmd gnuplot jq xmllint
  RUN="$BATS_FILE_TMPDIR/run dir"
  run_folder_make "$KIT_ROOT/tests/fixtures/charts-run" "$RUN"
  export RUN
}

setup() {
  load '../test_helper/common-setup'
  _common_setup
  load 'svg'
  load 'run-folder'
  kit_require_cmd gnuplot jq xmllint
  C=$RUN/charts
}

# copy_run NAME: a copy of the fixture's run folder at $BATS_TEST_TMPDIR/NAME, printed.
copy_run() {
  mkdir -p "$BATS_TEST_TMPDIR/$1"
  cp -R "$RUN/." "$BATS_TEST_TMPDIR/$1/"
  printf '%s\n' "$BATS_TEST_TMPDIR/$1"
}

# results_edit DIR JQ: apply the jq program JQ to DIR/results.json.
results_edit() {
  jq "$2" "$1/results.json" >"$1/results.json.new" && mv "$1/results.json.new" "$1/results.json"
}

@test "charts: a run gets each metric's charts from results.json; the others say why not" {
  run jq -r '.charts[] | "\(.metric) \(.kind) \(.file)"' "$C/index.json"
  assert_line 'concurrency curve charts/curve-concurrency.svg'
  for m in login metadata concurrency seqwrite randread latency; do
    assert_line "$m latency charts/latency-$m.svg"
  done
  for m in login metadata concurrency seqwrite randread; do
    assert_line "$m time charts/time-$m.svg"
  done
  assert_line 'randread server charts/server-randread.svg'
  assert_line 'localdisk baseline charts/baseline-localdisk.svg'
  assert_line 'startup rounds charts/rounds-startup.svg'
  # localdisk and cpu judge randread's fio run: the server view, and its chart, come with it
  assert_line 'localdisk server charts/server-localdisk.svg'
  assert_line 'cpu server charts/server-cpu.svg'
  [[ ${#lines[@]} -eq 17 ]]
  # steady.fio.json has no per-second logs; memory has no charts at all
  run jq -c '.not_drawn' "$C/index.json"
  assert_output '[{"metric":"latency","kind":"time","why":"no per-second data"}]'
  run jq -e '.why == null and (.tool | startswith("gnuplot")) and .seconds > 0' "$C/index.json"
  assert_success
  # results.json carries the index; report.md links every chart and says what was not drawn
  run jq -e --slurpfile i "$C/index.json" '.charts.charts == $i[0].charts' "$RUN/results.json"
  assert_success
  # (a metric's charts stand on one line)
  [[ $(grep -o '](charts/[a-z-]*\.svg)' "$RUN/report.md" | wc -l) -eq 17 ]]
  grep -q 'Charts not drawn: rate over time (no per-second data)' "$RUN/report.md"
}

@test "charts: every SVG is well-formed, has the plot's title and fetches nothing" {
  local f n=0 title
  for f in "$C"/*.svg; do
    run xmllint --noout "$f"
    assert_success
    grep -q 'gnuplot_plot_1' "$f"
    title=$(jq -r --arg f "charts/${f##*/}" '.charts[] | select(.file == $f) | .title' "$C/index.json")
    grep -qF "<text>$title</text>" "$f" || fail "${f##*/} has no title '$title'"
    run grep -Eo "(src|href)=['\"][a-z]+:[^'\"]*" "$f"
    assert_output ''
    n=$((n + 1))
  done
  ((n == 17))
}

@test "charts: the concurrency curve's points are the steps' IOPS and p99 (log2 x axis)" {
  jq -r '.details.steps[] | "\(.clients) \(.iops)"' "$RUN/metrics/concurrency.json" >"$BATS_TEST_TMPDIR/iops"
  svg_points "$C/curve-concurrency.svg" IOPS >"$BATS_TEST_TMPDIR/px"
  [[ $(wc -l <"$BATS_TEST_TMPDIR/px") -eq 4 ]]
  svg_affine "$BATS_TEST_TMPDIR/iops" "$BATS_TEST_TMPDIR/px" logx
  jq -r '.details.steps[] | "\(.clients) \(.p99_ms)"' "$RUN/metrics/concurrency.json" >"$BATS_TEST_TMPDIR/p99"
  svg_points "$C/curve-concurrency.svg" 'p99 (ms)' >"$BATS_TEST_TMPDIR/px"
  svg_affine "$BATS_TEST_TMPDIR/p99" "$BATS_TEST_TMPDIR/px" logx
  # one step did not keep up: one ring; the target line is labelled with the setting's value
  [[ $(svg_points "$C/curve-concurrency.svg" 'did not keep up' | wc -l) -eq 1 ]]
  grep -q 'p99 target 10 ms' "$C/curve-concurrency.svg"
}

@test "charts: the check notices a point that is not the data" {
  jq -r '.details.steps[] | "\(.clients) \(.iops)"' "$RUN/metrics/concurrency.json" >"$BATS_TEST_TMPDIR/iops"
  svg_points "$C/curve-concurrency.svg" IOPS >"$BATS_TEST_TMPDIR/px"
  # one value changed by 2 %, or one point dropped
  sed '2s/ 21000$/ 21420/' "$BATS_TEST_TMPDIR/iops" >"$BATS_TEST_TMPDIR/wrong"
  run svg_affine "$BATS_TEST_TMPDIR/wrong" "$BATS_TEST_TMPDIR/px" logx
  assert_failure
  sed '3d' "$BATS_TEST_TMPDIR/px" >"$BATS_TEST_TMPDIR/fewer"
  run svg_affine "$BATS_TEST_TMPDIR/iops" "$BATS_TEST_TMPDIR/fewer" logx
  assert_failure
}

@test "charts: the latency distribution is the histogram's cumulative share, one line per step" {
  local step
  jq -r '.hist | (.counts | add) as $t | [.bounds, .counts] | transpose
    | foreach .[] as [$b, $c] (0; . + $c; "\($b / 1000) \(. * 100 / $t)")' "$RUN/raw/login.json" >"$BATS_TEST_TMPDIR/cdf"
  svg_points "$C/latency-login.svg" login >"$BATS_TEST_TMPDIR/px"
  svg_affine "$BATS_TEST_TMPDIR/cdf" "$BATS_TEST_TMPDIR/px" logx
  # a bin is drawn where the count rises (and the one before the first): the line is the same
  for step in 1 4 16 64; do
    jq -r '.hist | (.counts | add) as $t | [.bounds, .counts] | transpose
      | [foreach .[] as [$b, $c] (0; . + $c; [$b, $c, .])] | . as $r | range(0; length)
      | select($r[.][1] > 0 or ($r[. + 1][1] // 0) > 0 and $r[.][2] == 0) | $r[.] | "\(.[0] / 1000) \(.[2] * 100 / $t)"' \
      "$RUN/raw/concurrency.$step.json" >"$BATS_TEST_TMPDIR/cdf"
    svg_points "$C/latency-concurrency.svg" "concurrency.$step" >"$BATS_TEST_TMPDIR/px"
    svg_affine "$BATS_TEST_TMPDIR/cdf" "$BATS_TEST_TMPDIR/px" logx
  done
}

@test "charts: fio's latency percentiles are drawn per direction" {
  jq -r '.jobs[0].write.clat_ns.percentile | to_entries | sort_by(.key | tonumber)[]
    | "\(.value / 1e6) \(.key | tonumber)"' "$RUN/raw/steady.fio.json" >"$BATS_TEST_TMPDIR/pct"
  svg_points "$C/latency-latency.svg" 'steady write' >"$BATS_TEST_TMPDIR/px"
  svg_affine "$BATS_TEST_TMPDIR/pct" "$BATS_TEST_TMPDIR/px" logx
  [[ $(svg_points "$C/latency-latency.svg" 'steady read' | wc -l) -eq 17 ]]
}

@test "charts: with total-latency percentiles in fio's JSON (--lat_percentiles=1) the chart draws those, the report's distribution" {
  local run="$BATS_TEST_TMPDIR/lat run" src="$BATS_TEST_TMPDIR/lat src"
  mkdir -p "$src"
  cp -R "$KIT_ROOT/tests/fixtures/charts-run/." "$src/"
  # total latency = completion + 1 ms of submission: not a scaling, so an affine check tells them apart
  jq -c '.jobs[0].read.lat_ns.percentile = (.jobs[0].read.clat_ns.percentile | map_values(. + 1000000))
    | .jobs[0].write.lat_ns.percentile = (.jobs[0].write.clat_ns.percentile | map_values(. + 1000000))' \
    "$src/raw/steady.fio.json" >"$BATS_TEST_TMPDIR/steady.json"
  mv "$BATS_TEST_TMPDIR/steady.json" "$src/raw/steady.fio.json"
  run_folder_make "$src" "$run" latency
  jq -r '.jobs[0].write.lat_ns.percentile | to_entries | sort_by(.key | tonumber)[]
    | "\(.value / 1e6) \(.key | tonumber)"' "$run/raw/steady.fio.json" >"$BATS_TEST_TMPDIR/pct"
  svg_points "$run/charts/latency-latency.svg" 'steady write' >"$BATS_TEST_TMPDIR/px"
  svg_affine "$BATS_TEST_TMPDIR/pct" "$BATS_TEST_TMPDIR/px" logx
}

@test "charts: the rate over time has one point per second from per_s and from fio's logs" {
  jq -r '.create.per_s | to_entries[] | "\(.key + 1) \(.value)"' "$RUN/raw/metadata.json" >"$BATS_TEST_TMPDIR/rate"
  svg_points "$C/time-metadata.svg" create >"$BATS_TEST_TMPDIR/px"
  [[ $(wc -l <"$BATS_TEST_TMPDIR/px") -eq 10 ]]
  svg_affine "$BATS_TEST_TMPDIR/rate" "$BATS_TEST_TMPDIR/px"
  # two fio jobs' bandwidth logs (KiB/s) added per second, shown in MB/s
  paste -d ' ' "$RUN/raw/seqwrite_bw.1.log" "$RUN/raw/seqwrite_bw.2.log" |
    awk -F '[ ,]+' '{ printf "%d %.6f\n", NR, ($2 + $7) * 1024 / 1e6 }' >"$BATS_TEST_TMPDIR/bw"
  svg_points "$C/time-seqwrite.svg" write >"$BATS_TEST_TMPDIR/px"
  svg_affine "$BATS_TEST_TMPDIR/bw" "$BATS_TEST_TMPDIR/px"
  grep -q '>MB/s<' "$C/time-seqwrite.svg"
  grep -q '>IOPS<' "$C/time-randread.svg"
  grep -q '>operations per second<' "$C/time-metadata.svg"
}

@test "charts: the server's bars are the commands' shares, largest first" {
  jq -r '.details.server.commands | sort_by(-.share)[] | .share' "$RUN/metrics/randread.json" >"$BATS_TEST_TMPDIR/share"
  svg_bar_lengths "$C/server-randread.svg" >"$BATS_TEST_TMPDIR/len"
  [[ $(wc -l <"$BATS_TEST_TMPDIR/len") -eq 4 ]]
  # bar length / share is one constant (bars start at 0)
  run paste -d ' ' "$BATS_TEST_TMPDIR/share" "$BATS_TEST_TMPDIR/len"
  echo "$output" | awk 'NR == 1 { k = $2 / $1 } { d = $2 - k * $1; if (d > 0.1 || d < -0.1) exit 1 }'
  run grep -o '<text>[A-Z][A-Za-z]*</text>' "$C/server-randread.svg"
  assert_line --index 0 '<text>Read</text>'
}

# bars_match JSON_FILE JQ SVG: the SVG's bars, top to bottom, are JQ's figures (one scale, from 0)
bars_match() {
  jq -r "$2" "$1" >"$BATS_TEST_TMPDIR/fig"
  svg_bar_lengths "$3" >"$BATS_TEST_TMPDIR/len"
  [[ $(wc -l <"$BATS_TEST_TMPDIR/len") -eq $(wc -l <"$BATS_TEST_TMPDIR/fig") ]] || return 1
  paste -d ' ' "$BATS_TEST_TMPDIR/fig" "$BATS_TEST_TMPDIR/len" |
    awk 'NR == 1 { k = $2 / $1 } { d = $2 - k * $1; if (d > 0.1 || d < -0.1) exit 1 }'
}

@test "charts: localdisk's bars are Samba's figure as % of the local disk's; startup's the rounds' ms" {
  bars_match "$RUN/metrics/localdisk.json" '.details.jobs[] | select(.samba != null) | .samba * 100 / .local_disk' "$C/baseline-localdisk.svg"
  run grep -o '<text>[a-z]*</text>' "$C/baseline-localdisk.svg"
  assert_line --index 0 '<text>seqwrite</text>'
  bars_match "$RUN/metrics/startup.json" '.details.rounds[] | .login_ms' "$C/rounds-startup.svg"
  grep -q 'target &lt;= 500 ms' "$C/rounds-startup.svg"
  # a wrong figure is noticed
  run bars_match "$RUN/metrics/startup.json" '.details.rounds[] | .login_ms * (if .round == 2 then 1.05 else 1 end)' "$C/rounds-startup.svg"
  assert_failure
}

@test "charts: localdisk without Samba's figures (no cifs mount) is not drawn, and says why" {
  local src="$BATS_TEST_TMPDIR/src" dir="$BATS_TEST_TMPDIR/no samba"
  mkdir -p "$src"
  cp -R "$KIT_ROOT/tests/fixtures/charts-run/." "$src/"
  rm "$src/raw/seqwrite.fio.json" "$src/raw/randread.fio.json"
  run_folder_make "$src" "$dir" localdisk
  run jq -c '.not_drawn[] | select(.metric == "localdisk")' "$dir/charts/index.json"
  assert_output '{"metric":"localdisk","kind":"baseline","why":"no fio job was measured both through Samba and on the local disk in this run"}'
  [[ ! -e $dir/charts/baseline-localdisk.svg ]]
  grep -q 'Charts not drawn: Samba against the local disk (no fio job was measured both' "$dir/report.md"
}

@test "charts: without gnuplot on PATH nothing is drawn and index.json says why" {
  local bin=$BATS_TEST_TMPDIR/bin dir="$BATS_TEST_TMPDIR/no plot" f
  mkdir -p "$bin" "$dir"
  for f in /usr/local/bin/* /usr/bin/* /bin/*; do
    [[ -x $f && ${f##*/} != gnuplot* && ! -e $bin/${f##*/} ]] && ln -s "$f" "$bin/${f##*/}"
  done
  cp -R "$RUN/." "$dir/"
  PATH=$bin run "$KIT_ROOT/lib/report/charts.sh" "$dir"
  assert_success
  run jq -c '{why, charts, tool}' "$dir/charts/index.json"
  assert_output '{"why":"gnuplot not installed","charts":[],"tool":null}'
  run compgen -G "$dir/charts/*.svg"
  assert_failure
}

@test "charts: a chart with nothing to draw, a missing template or a gnuplot error is a not_drawn entry" {
  local dir
  dir=$(copy_run broken)
  results_edit "$dir" '.metrics.login.charts = [
      {name: "empty", kind: "time", title: "nothing", series: [], why: "no per-second data"},
      {name: "nokind", kind: "pie", title: "a pie", data: [["a", 1]]},
      {name: "bad", kind: "bars", title: "bad", vars: {xlab: "x"}, data: [["a", "not a number"]]},
      {name: "good", kind: "bars", title: "login: good bars", vars: {xlab: "x"}, data: [["a", 1], ["b", 2]]}]'
  run "$KIT_ROOT/lib/report/charts.sh" "$dir"
  assert_success
  run jq -r '.not_drawn[] | select(.metric == "login") | "\(.kind): \(.why)"' "$dir/charts/index.json"
  assert_line --index 0 'empty: no per-second data'
  assert_line --index 1 'nokind: no chart template lib/report/charts/pie.gp'
  assert_line --index 2 --regexp '^bad: gnuplot could not draw it: .+'
  [[ ${#lines[@]} -eq 3 ]]
  run jq -r '.charts[] | select(.metric == "login") | .file' "$dir/charts/index.json"
  assert_output 'charts/good-login.svg'
  [[ $(svg_bar_lengths "$dir/charts/good-login.svg" | wc -l) -eq 2 ]]
}

@test "charts: a chart that is not an object, or whose series is not a list, is a not_drawn entry; the others are drawn" {
  # charts.sh stopped at the first such chart (jq's error under set -e): no index.json at all
  local dir
  dir=$(copy_run malformed)
  results_edit "$dir" '.metrics.login.charts = [5,
      {name: "odd", kind: "series", title: "odd", series: {a: {y: [1]}}, vars: [1]},
      {name: "good", kind: "bars", title: "login: good bars", vars: {xlab: "x"}, data: [["a", 1], ["b", 2]]}]'
  run "$KIT_ROOT/lib/report/charts.sh" "$dir"
  assert_success
  run jq -r '.not_drawn[] | select(.metric == "login") | "\(.kind): \(.why)"' "$dir/charts/index.json"
  assert_line --index 0 ': its name is not a short lower-case word'
  assert_line --index 1 --regexp '^odd: gnuplot could not draw it: '
  run jq -r '.charts[] | select(.metric == "login") | .file' "$dir/charts/index.json"
  assert_output 'charts/good-login.svg'
  [[ $(svg_bar_lengths "$dir/charts/good-login.svg" | wc -l) -eq 2 ]]
}

@test "charts: a run's charts cost a few jq processes, not some for each chart" {
  # each chart ran jq about ten times (fields, data, vars, titles, its index entry): 164 for
  # this folder's 17 charts, most of the time a report took
  local dir bin=$BATS_TEST_TMPDIR/bin n
  dir=$(copy_run count)
  mkdir -p "$bin"
  printf '#!/bin/sh\necho jq >>"%s/jq.calls"\nexec %s "$@"\n' "$BATS_TEST_TMPDIR" "$(command -v jq)" >"$bin/jq"
  chmod +x "$bin/jq"
  PATH=$bin:$PATH run "$KIT_ROOT/lib/report/charts.sh" "$dir"
  assert_success
  n=$(jq '.charts | length' "$dir/charts/index.json")
  ((n >= 15)) || fail "only $n charts drawn"
  run wc -l <"$BATS_TEST_TMPDIR/jq.calls"
  ((output <= 8)) || fail "charts.sh ran jq $output times for $n charts"
}

@test "charts: a run folder made before the verdicts kept their charts gets a not_drawn entry, in report.md and report.html too" {
  local dir
  dir=$(copy_run old)
  # the kit before this change: metric objects without charts
  for f in "$dir"/metrics/*.json; do jq 'del(.charts)' "$f" >"$f.new" && mv "$f.new" "$f"; done
  run "$KIT_ROOT/test-samba.sh" report "$dir"
  assert_success
  run jq -c '{why, not_drawn, charts}' "$dir/charts/index.json"
  assert_output '{"why":"this run was recorded before its verdicts kept their charts in results.json","not_drawn":[{"metric":"","kind":"all","why":"this run was recorded before its verdicts kept their charts in results.json"}],"charts":[]}'
  grep -q 'charts: not drawn (this run was recorded before its verdicts kept their charts in results.json)' "$dir/report.md"
  grep -q 'charts: not drawn (this run was recorded before' "$dir/report.html"
  run compgen -G "$dir/charts/*.svg"
  assert_failure
}

@test "charts: compare draws each metric's runs side by side, a dot per repeat" {
  local dir="$BATS_TEST_TMPDIR/cmp dir"
  mkdir -p "$dir"
  cp -R "$KIT_ROOT/tests/fixtures/charts-compare/." "$dir/"
  run "$KIT_ROOT/lib/report/charts.sh" --compare "$dir"
  assert_success
  run jq -r '.charts[].file' "$dir/charts/index.json"
  assert_output 'charts/compare-login.svg
charts/compare-metadata.svg
charts/compare-concurrency.svg
charts/compare-memory.svg'
  run jq -c '.not_drawn' "$dir/charts/index.json"
  assert_output '[{"metric":"seqwrite","kind":"compare","why":"no median for any run"}]'
  xmllint --noout "$dir/charts/compare-login.svg"
  # the repeats' y pixels are an affine map of the values (x is the run, spread a little)
  jq -r '.metrics[] | select(.metric == "login") | .runs[].values[]' "$dir/compare.json" | awk '{ print NR, $1 }' >"$BATS_TEST_TMPDIR/v"
  svg_points "$dir/charts/compare-login.svg" repeats | awk '{ print NR, $2 }' >"$BATS_TEST_TMPDIR/py"
  [[ $(wc -l <"$BATS_TEST_TMPDIR/py") -eq 24 ]]
  paste -d ' ' "$BATS_TEST_TMPDIR/v" "$BATS_TEST_TMPDIR/py" | awk '{ print $2, $4 }' >"$BATS_TEST_TMPDIR/pairs"
  awk '{ print $1, 0 }' "$BATS_TEST_TMPDIR/pairs" >"$BATS_TEST_TMPDIR/d"
  awk '{ print $2, 0 }' "$BATS_TEST_TMPDIR/pairs" >"$BATS_TEST_TMPDIR/p"
  svg_affine "$BATS_TEST_TMPDIR/d" "$BATS_TEST_TMPDIR/p"
  grep -q '<text>B</text>' "$dir/charts/compare-login.svg"
  grep -q '<text>login: runs side by side (B −24.4 % worse, C −0.244 % no difference shown)</text>' "$dir/charts/compare-login.svg"
}

@test "charts: usage and bad folders" {
  run "$KIT_ROOT/lib/report/charts.sh"
  assert_failure 2
  run "$KIT_ROOT/lib/report/charts.sh" "$BATS_TEST_TMPDIR/none"
  assert_failure 1
  assert_output "error: no run folder '$BATS_TEST_TMPDIR/none'"
  mkdir "$BATS_TEST_TMPDIR/empty"
  run "$KIT_ROOT/lib/report/charts.sh" "$BATS_TEST_TMPDIR/empty"
  assert_failure 1
  assert_output "error: no results '$BATS_TEST_TMPDIR/empty/results.json'"
  echo '[]' >"$BATS_TEST_TMPDIR/results.json"
  run "$KIT_ROOT/lib/report/charts.sh" "$BATS_TEST_TMPDIR"
  assert_failure 1
  assert_output "error: '$BATS_TEST_TMPDIR/results.json' has no metrics"
  run "$KIT_ROOT/lib/report/charts.sh" --compare "$BATS_TEST_TMPDIR"
  assert_failure 1
  assert_output "error: no compare record '$BATS_TEST_TMPDIR/compare.json'"
  run "$KIT_ROOT/lib/report/charts.sh" --help
  assert_success
  assert_line --index 0 'Usage: lib/report/charts.sh RUN_DIR'
}

@test "charts: charts.sh reads results.json alone: no raw/, metrics/ or settings.env" {
  local dir
  dir=$(copy_run alone)
  rm -r "$dir/raw" "$dir/metrics" "$dir/settings.env"
  run "$KIT_ROOT/lib/report/charts.sh" "$dir"
  assert_success
  cmp "$C/index.json" "$dir/charts/index.json" || diff <(jq -S 'del(.seconds)' "$C/index.json") <(jq -S 'del(.seconds)' "$dir/charts/index.json")
  for f in "$C"/*.svg; do cmp "$f" "$dir/charts/${f##*/}"; done
  # the target lines are the metrics' own (as judged), not today's settings
  grep -q 'p99 target 10 ms' "$dir/charts/curve-concurrency.svg"
  grep -q 'target &lt;= 500 ms' "$dir/charts/rounds-startup.svg"
}

@test "charts: the p99 target line is on the chart also when every p99 is far below it" {
  local dir
  dir=$(copy_run 'low p99')
  results_edit "$dir" '.metrics.concurrency.charts |= map(if .name == "curve" then .data |= map(.[2] = 0.5 | .[3] = 1) | .vars.failed = 0 else . end)'
  run "$KIT_ROOT/lib/report/charts.sh" "$dir"
  assert_success
  grep -q 'p99 target 10 ms' "$dir/charts/curve-concurrency.svg"
  run grep -c 'did not keep up' "$dir/charts/curve-concurrency.svg"
  assert_output 0
}

@test "charts: with repeats a curve draws each repeat's steps too, and a distribution each repeat's lines" {
  # lib/run/repeat.jq combines the repeats' metric objects: their charts too (charts_merge)
  local src="$BATS_TEST_TMPDIR/src" r2="$BATS_TEST_TMPDIR/r2" dir n
  mkdir -p "$src"
  cp -R "$KIT_ROOT/tests/fixtures/charts-run/." "$src/"
  for n in 1 4 16 64; do
    jq -c '.rate_per_s = (.rate_per_s + 1000) | .lat_ms.p99 = (.lat_ms.p99 + 1)' "$src/raw/concurrency.$n.json" >"$src/c"
    mv "$src/c" "$src/raw/concurrency.$n.json"
  done
  run_folder_make "$src" "$r2" concurrency
  dir=$(copy_run repeats)
  jq -n -L "$KIT_ROOT/lib" --slurpfile a "$RUN/metrics/concurrency.json" --slurpfile b "$r2/metrics/concurrency.json" \
    --slurpfile r "$dir/results.json" --arg metric concurrency --arg skip '' --arg error '' --argjson cpus 2 \
    --argjson elapsed null 'include "run/repeat"; $r[0] | .metrics.concurrency = ([$a[0], $b[0]] | combine([]))' >"$dir/r.json"
  mv "$dir/r.json" "$dir/results.json"
  run "$KIT_ROOT/lib/report/charts.sh" "$dir"
  assert_success
  xmllint --noout "$dir/charts/curve-concurrency.svg"
  # the repeats' points, repeat 1's steps then repeat 2's, are the data (clients, IOPS)
  jq -r '.details.steps[] | "\(.clients) \(.iops)"' "$RUN/metrics/concurrency.json" "$r2/metrics/concurrency.json" >"$BATS_TEST_TMPDIR/want"
  svg_points "$dir/charts/curve-concurrency.svg" 'IOPS, each repeat' >"$BATS_TEST_TMPDIR/px"
  [[ $(wc -l <"$BATS_TEST_TMPDIR/px") -eq 8 ]] || fail "$(cat "$BATS_TEST_TMPDIR/px")"
  svg_affine "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/px" logx
  [[ $(svg_points "$dir/charts/curve-concurrency.svg" 'p99, each repeat' | wc -l) -eq 8 ]]
  # the main curve is the median repeat's steps (the first: both kept up to 64 clients)
  [[ $(svg_points "$dir/charts/curve-concurrency.svg" 'IOPS, repeat nearest the median' | wc -l) -eq 4 ]]
  # the distribution has a line per step and repeat
  for n in 1 4 16 64; do
    [[ $(svg_points "$dir/charts/latency-concurrency.svg" "concurrency.$n r1" | wc -l) -gt 3 ]]
    [[ $(svg_points "$dir/charts/latency-concurrency.svg" "concurrency.$n r2" | wc -l) -gt 3 ]]
  done
}
