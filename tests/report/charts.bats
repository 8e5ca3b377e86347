#!/usr/bin/env bats
# tests/report/charts.bats: lib/charts.sh on fixture folders: which charts, well-formed SVG,
# the plotted points are the data (see tests/report/svg.bash), and no gnuplot = no charts.

setup_file() {
  load '../test_helper/common-setup'
  _common_setup
  kit_require_cmd gnuplot jq xmllint
  RUN="$BATS_FILE_TMPDIR/run dir"
  mkdir -p "$RUN"
  cp -R "$KIT_ROOT/tests/fixtures/charts-run/." "$RUN/"
  "$KIT_ROOT/lib/charts.sh" "$RUN" 2>"$BATS_FILE_TMPDIR/charts.err"
  export RUN
}

setup() {
  load '../test_helper/common-setup'
  _common_setup
  load 'svg'
  kit_require_cmd gnuplot jq xmllint
  C=$RUN/charts
}

@test "charts: a run gets the curve, latency, rate and server charts; the others say why not" {
  run jq -r '.charts[] | "\(.metric) \(.kind) \(.file)"' "$C/index.json"
  assert_line 'concurrency curve charts/concurrency-curve.svg'
  for m in login metadata concurrency seqwrite randread latency; do
    assert_line "$m latency charts/latency-$m.svg"
  done
  for m in login metadata concurrency seqwrite randread; do
    assert_line "$m time charts/time-$m.svg"
  done
  assert_line 'login server charts/server-login.svg'
  assert_line 'localdisk baseline charts/baseline-localdisk.svg'
  assert_line 'startup rounds charts/rounds-startup.svg'
  [[ ${#lines[@]} -eq 15 ]]
  # steady.fio.json has no per-second logs; memory has no charts at all
  run jq -c '.not_drawn' "$C/index.json"
  assert_output '[{"metric":"latency","kind":"time","why":"no per-second data"}]'
  run jq -e '.why == null and (.tool | startswith("gnuplot")) and .seconds > 0' "$C/index.json"
  assert_success
  [[ ! -s $BATS_FILE_TMPDIR/charts.err ]]
}

@test "charts: every SVG is well-formed, has the plot's title and fetches nothing" {
  local f n=0
  for f in "$C"/*.svg; do
    run xmllint --noout "$f"
    assert_success
    grep -q 'gnuplot_plot_1' "$f"
    run grep -Eo "(src|href)=['\"][a-z]+:[^'\"]*" "$f"
    assert_output ''
    n=$((n + 1))
  done
  ((n == 15))
}

@test "charts: the concurrency curve's points are the steps' IOPS and p99 (log2 x axis)" {
  jq -r '.details.steps[] | "\(.clients) \(.iops)"' "$RUN/metrics/concurrency.json" >"$BATS_TEST_TMPDIR/iops"
  svg_points "$C/concurrency-curve.svg" IOPS >"$BATS_TEST_TMPDIR/px"
  [[ $(wc -l <"$BATS_TEST_TMPDIR/px") -eq 4 ]]
  svg_affine "$BATS_TEST_TMPDIR/iops" "$BATS_TEST_TMPDIR/px" logx
  jq -r '.details.steps[] | "\(.clients) \(.p99_ms)"' "$RUN/metrics/concurrency.json" >"$BATS_TEST_TMPDIR/p99"
  svg_points "$C/concurrency-curve.svg" 'p99 (ms)' >"$BATS_TEST_TMPDIR/px"
  svg_affine "$BATS_TEST_TMPDIR/p99" "$BATS_TEST_TMPDIR/px" logx
  # one step did not keep up: one ring; the target line is labelled with the setting's value
  [[ $(svg_points "$C/concurrency-curve.svg" 'did not keep up' | wc -l) -eq 1 ]]
  grep -q 'p99 target 10 ms' "$C/concurrency-curve.svg"
}

@test "charts: the check notices a point that is not the data" {
  jq -r '.details.steps[] | "\(.clients) \(.iops)"' "$RUN/metrics/concurrency.json" >"$BATS_TEST_TMPDIR/iops"
  svg_points "$C/concurrency-curve.svg" IOPS >"$BATS_TEST_TMPDIR/px"
  # one value changed by 2 %, or one point dropped
  sed '2s/ 21000$/ 21420/' "$BATS_TEST_TMPDIR/iops" >"$BATS_TEST_TMPDIR/wrong"
  run svg_affine "$BATS_TEST_TMPDIR/wrong" "$BATS_TEST_TMPDIR/px" logx
  assert_failure
  sed '3d' "$BATS_TEST_TMPDIR/px" >"$BATS_TEST_TMPDIR/fewer"
  run svg_affine "$BATS_TEST_TMPDIR/iops" "$BATS_TEST_TMPDIR/fewer" logx
  assert_failure
}

@test "charts: the latency distribution is the histogram's cumulative share, one line per repeat and step" {
  local rep f step
  for rep in 1 2; do
    f=$RUN/raw/login.json
    ((rep == 1)) || f=$RUN/raw/login.r$rep.json
    jq -r '.hist | (.counts | add) as $t | [.bounds, .counts] | transpose
      | foreach .[] as [$b, $c] (0; . + $c; "\($b / 1000) \(. * 100 / $t)")' "$f" >"$BATS_TEST_TMPDIR/cdf"
    svg_points "$C/latency-login.svg" "r$rep" >"$BATS_TEST_TMPDIR/px"
    svg_affine "$BATS_TEST_TMPDIR/cdf" "$BATS_TEST_TMPDIR/px" logx
  done
  for step in 1 4 16 64; do
    jq -r '.hist | (.counts | add) as $t | [.bounds, .counts] | transpose
      | foreach .[] as [$b, $c] (0; . + $c; "\($b / 1000) \(. * 100 / $t)")' \
      "$RUN/raw/concurrency.$step.json" >"$BATS_TEST_TMPDIR/cdf"
    if ((step == 1)); then
      svg_points "$C/latency-concurrency.svg" "1 client" >"$BATS_TEST_TMPDIR/px"
    else
      svg_points "$C/latency-concurrency.svg" "$step clients" >"$BATS_TEST_TMPDIR/px"
    fi
    svg_affine "$BATS_TEST_TMPDIR/cdf" "$BATS_TEST_TMPDIR/px" logx
  done
}

@test "charts: fio's latency percentiles are drawn per direction" {
  jq -r '.jobs[0].write.clat_ns.percentile | to_entries | sort_by(.key | tonumber)[]
    | "\(.value / 1e6) \(.key | tonumber)"' "$RUN/raw/steady.fio.json" >"$BATS_TEST_TMPDIR/pct"
  svg_points "$C/latency-latency.svg" write >"$BATS_TEST_TMPDIR/px"
  svg_affine "$BATS_TEST_TMPDIR/pct" "$BATS_TEST_TMPDIR/px" logx
  [[ $(svg_points "$C/latency-latency.svg" read | wc -l) -eq 17 ]]
}

@test "charts: with total-latency percentiles in fio's JSON (--lat_percentiles=1) the chart draws those, the report's distribution" {
  local run="$BATS_TEST_TMPDIR/lat run"
  mkdir -p "$run"
  cp -R "$KIT_ROOT/tests/fixtures/charts-run/." "$run/"
  # total latency = completion + 1 ms of submission: not a scaling, so an affine check tells them apart
  jq -c '.jobs[0].read.lat_ns.percentile = (.jobs[0].read.clat_ns.percentile | map_values(. + 1000000))
    | .jobs[0].write.lat_ns.percentile = (.jobs[0].write.clat_ns.percentile | map_values(. + 1000000))' \
    "$run/raw/steady.fio.json" >"$BATS_TEST_TMPDIR/steady.json"
  mv "$BATS_TEST_TMPDIR/steady.json" "$run/raw/steady.fio.json"
  "$KIT_ROOT/lib/charts.sh" "$run" 2>/dev/null
  jq -r '.jobs[0].write.lat_ns.percentile | to_entries | sort_by(.key | tonumber)[]
    | "\(.value / 1e6) \(.key | tonumber)"' "$run/raw/steady.fio.json" >"$BATS_TEST_TMPDIR/pct"
  svg_points "$run/charts/latency-latency.svg" write >"$BATS_TEST_TMPDIR/px"
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
  # repeats as lines of their own
  [[ $(svg_points "$C/time-randread.svg" 'read r1' | wc -l) -eq 10 ]]
  [[ $(svg_points "$C/time-randread.svg" 'read r2' | wc -l) -eq 10 ]]
  grep -q '>MB/s<' "$C/time-seqwrite.svg"
}

@test "charts: the server's bars are the commands' shares, largest first" {
  jq -r '.details.server.commands | sort_by(-.share)[] | .share' "$RUN/metrics/login.json" >"$BATS_TEST_TMPDIR/share"
  svg_bar_lengths "$C/server-login.svg" >"$BATS_TEST_TMPDIR/len"
  [[ $(wc -l <"$BATS_TEST_TMPDIR/len") -eq 5 ]]
  # bar length / share is one constant (bars start at 0)
  run paste -d ' ' "$BATS_TEST_TMPDIR/share" "$BATS_TEST_TMPDIR/len"
  echo "$output" | awk 'NR == 1 { k = $2 / $1 } { d = $2 - k * $1; if (d > 0.1 || d < -0.1) exit 1 }'
  run grep -o '<text>SMB2_[A-Z]*</text>' "$C/server-login.svg"
  assert_line --index 0 '<text>SMB2_SESSSETUP</text>'
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
  bars_match "$RUN/metrics/localdisk.json" '.details.jobs[] | .samba * 100 / .local_disk' "$C/baseline-localdisk.svg"
  run grep -o '<text>[a-z]*</text>' "$C/baseline-localdisk.svg"
  assert_line --index 0 '<text>seqwrite</text>'
  bars_match "$RUN/metrics/startup.json" '.details.rounds[] | .login_ms' "$C/rounds-startup.svg"
  grep -q 'target &lt;= 500 ms' "$C/rounds-startup.svg"
  # a wrong figure is noticed
  run bars_match "$RUN/metrics/startup.json" '.details.rounds[] | .login_ms * (if .round == 2 then 1.05 else 1 end)' "$C/rounds-startup.svg"
  assert_failure
}

@test "charts: localdisk without Samba's figures (no cifs mount) is not drawn, and says why" {
  local dir="$BATS_TEST_TMPDIR/no samba"
  mkdir -p "$dir"
  cp -R "$KIT_ROOT/tests/fixtures/charts-run/." "$dir/"
  jq '.details.jobs[].samba = null' "$KIT_ROOT/tests/fixtures/charts-run/metrics/localdisk.json" >"$dir/metrics/localdisk.json"
  run "$KIT_ROOT/lib/charts.sh" "$dir"
  assert_success
  run jq -c '.not_drawn[] | select(.metric == "localdisk")' "$dir/charts/index.json"
  assert_output '{"metric":"localdisk","kind":"baseline","why":"no fio job was measured both through Samba and on the local disk in this run"}'
  [[ ! -e $dir/charts/baseline-localdisk.svg ]]
}

@test "charts: without gnuplot on PATH nothing is drawn and index.json says why" {
  local bin=$BATS_TEST_TMPDIR/bin dir="$BATS_TEST_TMPDIR/no plot" f
  mkdir -p "$bin" "$dir"
  for f in /usr/local/bin/* /usr/bin/* /bin/*; do
    [[ -x $f && ${f##*/} != gnuplot* && ! -e $bin/${f##*/} ]] && ln -s "$f" "$bin/${f##*/}"
  done
  cp -R "$KIT_ROOT/tests/fixtures/charts-run/." "$dir/"
  PATH=$bin run "$KIT_ROOT/lib/charts.sh" "$dir"
  assert_success
  run jq -c '{why, charts, tool}' "$dir/charts/index.json"
  assert_output '{"why":"gnuplot not installed","charts":[],"tool":null}'
  run compgen -G "$dir/charts/*.svg"
  assert_failure
}

@test "charts: a folder without raw data draws the curve only, and no step data draws nothing" {
  local dir="$BATS_TEST_TMPDIR/bare"
  mkdir -p "$dir"
  cp -R "$KIT_ROOT/tests/fixtures/run-fail/." "$dir/"
  run "$KIT_ROOT/lib/charts.sh" "$dir"
  assert_success
  run jq -r '(.charts[] | "drawn \(.file)"), (.not_drawn[] | "not \(.metric) \(.kind): \(.why)")' "$dir/charts/index.json"
  assert_output 'drawn charts/concurrency-curve.svg
not concurrency latency: no latency histogram or fio percentiles in raw/
not concurrency time: no per-second data
not login latency: no latency histogram or fio percentiles in raw/
not login time: no per-second data'
  jq '.details.steps = []' "$dir/metrics/concurrency.json" >"$dir/c" && mv "$dir/c" "$dir/metrics/concurrency.json"
  run "$KIT_ROOT/lib/charts.sh" "$dir"
  assert_success
  run jq -r '.not_drawn[0].why' "$dir/charts/index.json"
  assert_output 'no steps with IOPS in metrics/concurrency.json'
}

@test "charts: compare draws each metric's runs side by side, a dot per repeat" {
  local dir="$BATS_TEST_TMPDIR/cmp dir"
  mkdir -p "$dir"
  cp -R "$KIT_ROOT/tests/fixtures/charts-compare/." "$dir/"
  run "$KIT_ROOT/lib/charts.sh" --compare "$dir"
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
  grep -q '<text>login: runs side by side (B -24.4 % worse, C -0.2 % no difference shown)</text>' "$dir/charts/compare-login.svg"
}

@test "charts: usage and bad folders" {
  run "$KIT_ROOT/lib/charts.sh"
  assert_failure 2
  run "$KIT_ROOT/lib/charts.sh" "$BATS_TEST_TMPDIR/none"
  assert_failure 1
  assert_output "error: no run folder '$BATS_TEST_TMPDIR/none'"
  run "$KIT_ROOT/lib/charts.sh" --compare "$BATS_TEST_TMPDIR"
  assert_failure 1
  assert_output "error: no compare record '$BATS_TEST_TMPDIR/compare.json'"
  run "$KIT_ROOT/lib/charts.sh" --help
  assert_success
  assert_line --index 0 'Usage: lib/charts.sh RUN_DIR'
}

@test "charts: the target lines come from the metrics' own objects, not from settings.env" {
  local dir="$BATS_TEST_TMPDIR/no settings"
  mkdir -p "$dir"
  cp -R "$KIT_ROOT/tests/fixtures/charts-run/." "$dir/"
  rm "$dir/settings.env"
  run "$KIT_ROOT/lib/charts.sh" "$dir"
  assert_success
  grep -q 'p99 target 10 ms' "$dir/charts/concurrency-curve.svg"
  grep -q 'target &lt;= 500 ms' "$dir/charts/rounds-startup.svg"
}

@test "charts: the p99 target line is on the chart also when every p99 is far below it" {
  local dir="$BATS_TEST_TMPDIR/low p99"
  mkdir -p "$dir"
  cp -R "$KIT_ROOT/tests/fixtures/charts-run/." "$dir/"
  jq '.details.steps |= map(.p99_ms = 0.5 | .kept_up = true)' "$dir/metrics/concurrency.json" >"$dir/c"
  mv "$dir/c" "$dir/metrics/concurrency.json"
  run "$KIT_ROOT/lib/charts.sh" "$dir"
  assert_success
  grep -q 'p99 target 10 ms' "$dir/charts/concurrency-curve.svg"
  run grep -c 'did not keep up' "$dir/charts/concurrency-curve.svg"
  assert_output 0
}

@test "charts: raw file names map to metrics, repeats and steps; other raw files are left alone" {
  local dir=$BATS_TEST_TMPDIR/names f
  mkdir -p "$dir/raw"
  for f in login.json login.r2.json seqread.fio.json seqread.fio.r3.json randwrite.r2.fio.json \
    steady.fio.json concurrency.1.json concurrency.16.json concurrency.16-cpu.before.json \
    login-cpu.after.json cpu-readers.json memory-hold.json smbstatus.json; do
    echo '{}' >"$dir/raw/$f"
  done
  run bash -c "source '$KIT_ROOT/lib/charts.sh'; charts_raw_map '$dir' | jq -r '.[] | \"\(.file) \(.metric) \(.rep) \(.fio) \(.sub)\"'"
  assert_success
  assert_output 'concurrency.1.json concurrency 1 false 1 client
concurrency.16.json concurrency 1 false 16 clients
login.json login 1 false null
login.r2.json login 2 false null
randwrite.r2.fio.json randwrite 2 true null
seqread.fio.json seqread 1 true null
seqread.fio.r3.json seqread 3 true null
steady.fio.json latency 1 true null'
}

@test "charts: with repeats the concurrency curve draws each repeat's steps too, from their own raw lines" {
  # the curve showed only the repeat nearest the median; the others' steps were in raw/ unused
  local dir="$BATS_TEST_TMPDIR/repeats" n k
  mkdir -p "$dir"
  cp -R "$KIT_ROOT/tests/fixtures/charts-run/." "$dir/"
  : >"$BATS_TEST_TMPDIR/want"
  for k in 1 2; do
    for n in 1 4 16 64; do
      jq -c --argjson k "$k" '.rate_per_s = (.rate_per_s + $k * 1000) | .lat_ms.p99 = (.lat_ms.p99 + $k)' \
        "$dir/raw/concurrency.$n.json" >"$dir/raw/concurrency.$n.r$k.json"
      jq -r '"\(input_filename | capture("concurrency\\.(?<n>[0-9]+)\\.").n) \(.rate_per_s)"' \
        "$dir/raw/concurrency.$n.r$k.json" >>"$BATS_TEST_TMPDIR/want"
    done
  done
  run "$KIT_ROOT/lib/charts.sh" "$dir"
  assert_success
  xmllint --noout "$dir/charts/concurrency-curve.svg"
  # the repeats' points, repeat 1's steps then repeat 2's, are the data (clients, IOPS)
  svg_points "$dir/charts/concurrency-curve.svg" 'IOPS, each repeat' >"$BATS_TEST_TMPDIR/px"
  [[ $(wc -l <"$BATS_TEST_TMPDIR/px") -eq 8 ]] || fail "$(cat "$BATS_TEST_TMPDIR/px")"
  svg_affine "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/px" logx
  [[ $(svg_points "$dir/charts/concurrency-curve.svg" 'p99, each repeat' | wc -l) -eq 8 ]]
  # the main curve is still the metric's steps, titled as the repeat they come from
  [[ $(svg_points "$dir/charts/concurrency-curve.svg" 'IOPS, repeat nearest the median' | wc -l) -eq 4 ]]
}
