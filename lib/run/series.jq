# lib/run/series.jq: the charts a verdict emits into its metric object (.charts[], docs/CONTRACTS.md
# section 6), so that lib/report/charts.sh draws them from results.json alone. A jq module: include
# "series". One chart:
#   {name, kind, title, vars: {NAME: value}, series: [{title, x: [..], y: [..]}],
#    data: [[column, ...]], repeat: "series" | "rows" | "median", why}
# name: the chart's name in the metric (the file is charts/NAME-METRIC.svg); kind: the gnuplot
# template lib/report/charts/KIND.gp; vars: that template's variables; series: s1.dat .. sN.dat (x and y
# side by side, without x: 1, 2, 3 ...: one value a second); data: data.dat; why: set instead of
# data when there is nothing to draw.
# repeat (lib/run/repeat.jq): with repeats, "series" draws every repeat's series (" rK" after their
# titles), "rows" adds every repeat's data rows as reps.dat, "median" keeps the median repeat's.

# sig4: a number to 4 significant digits (what a chart can show), anything else as it is.
def sig4:
  if type != "number" or . == 0 then .
  else (fabs | log10 | floor) as $e
    | if $e >= 3 then round else pow(10; 3 - $e) as $k | (. * $k | round) / $k end
  end;

# chart_name($stem; $metric; $path): a series' title from its raw file's name (without .json and
# .fio) and the path of the object in it: the metric's own file adds nothing (the metric's name
# when nothing is left).
def chart_name($stem; $metric; $path):
  [(if $stem == $metric then empty else $stem end), ($path | map(tostring) | join("."))]
  | map(select(. != "")) | join(" ") | if . == "" then $metric else . end;

# chart_files($re): the raw files (input: raw_files) whose names match $re, as [{stem, v}].
def chart_files($re):
  [to_entries[] | select((.key | test($re)) and (.value | type) == "object")
   | {stem: (.key | sub("\\.json$"; "") | sub("\\.fio$"; "")), fio: (.key | test("\\.fio\\.json$")), v: .value}]
  | sort_by(.stem | [splits("\\.")] | map(tonumber? // .));

# latency_chart($metric; $re): the latency distribution (cumulative %) of the raw files matching
# $re: the helpers' "hist" objects ({unit, bounds (upper bounds), counts}; a bin is kept where
# the count rises, and the one before the first) and fio's percentiles (total latency lat_ns;
# clat_ns in runs made before --lat_percentiles=1), one series per file, object and direction.
def latency_chart($metric; $re):
  def ms($u): if $u == "ns" then . / 1e6 elif $u == "ms" then . else . / 1000 end;
  [chart_files($re)[] | . as $f
   | if .fio then
       (.v.jobs // [])[] as $j | ["read", "write"][] as $d
       | ($j[$d] // {}) | select((.total_ios // .io_bytes // 0) > 0)
       | {title: chart_name($f.stem; $metric; [$d]),
          points: [((if .lat_ns.percentile then .lat_ns else .clat_ns end).percentile // {}) | to_entries
                   | sort_by(.key | tonumber)[] | select(.value > 0) | [(.value / 1e6 | sig4), (.key | tonumber | sig4)]]}
     else
       .v | ([[]] + [paths(type == "object" and has("hist"))])[] as $p
       | getpath($p) | select(type == "object") | .hist
       | select(type == "object" and (.counts | length) > 0 and (.counts | length) == (.bounds | length))
       | (.counts | add) as $total | select($total > 0) | .unit as $u
       | {title: chart_name($f.stem; $metric; $p),
          points: ([.bounds, .counts] | transpose
            | [foreach .[] as [$b, $c] ({s: 0}; {s: (.s + $c), c: $c, b: $b}; .)]
            | . as $rows
            | [range(0; length) | select($rows[.].c > 0 or ((. + 1) < ($rows | length) and $rows[. + 1].c > 0 and $rows[.].s == 0))
               | $rows[.] | [(.b | ms($u) | sig4), (.s * 100 / $total | sig4)]])}
     end
   | select((.points | length) > 0) | {title, x: [.points[][0]], y: [.points[][1]]}] as $s
  | {name: "latency", kind: "cdf", title: "\($metric): latency distribution", vars: {}, series: $s, repeat: "series"}
  + (if ($s | length) == 0 then {why: "no latency histogram or fio percentiles in its raw files"} else {} end);

# log_rates($kind): fio per-second logs (input: {"FILE": text}, FILE NAME_KIND.J.log) as
# {direction: [value each second from 1]}: jobs added up; bw (KiB/s) as MB/s.
def log_rates($kind):
  [.[] | split("\n")[] | split(", ") | select(length >= 3 and (.[0] | test("^[0-9]+$")))
   | {s: ((.[0] | tonumber) + 500 | . / 1000 | floor),
      d: (if .[2] == "1" then "write" elif .[2] == "2" then "trim" else "read" end),
      v: (.[1] | tonumber | if $kind == "bw" then . * 1024 / 1e6 else . end)}]
  | group_by(.d) | map({key: .[0].d, value: (group_by(.s) | map({s: .[0].s, v: (map(.v) | add)}))}) | from_entries
  | map_values(. as $r | (map(.s) | max) as $max | ($r | map({(.s | tostring): .v}) | add) as $by
      | [range(1; $max + 1) | $by[tostring] // null | sig4]);

# time_chart($metric; $re; $logs; $kind): the rate over time, one point a second: the helpers'
# "per_s" arrays in the raw files matching $re, else fio's per-second logs $logs ({"FILE": text};
# $kind "bw": MB/s, "iops": IOPS), one series per file, object or direction.
def time_chart($metric; $re; $logs; $kind):
  [chart_files($re)[] | select(.fio | not) | . as $f
   | .v | ([[]] + [paths(type == "object" and has("per_s"))])[] as $p
   | getpath($p) | select(type == "object") | .per_s | select(type == "array" and length > 0)
   | {title: chart_name($f.stem; $metric; $p), y: map(if type == "number" then . else null end)}] as $helpers
  | (if ($helpers | length) > 0 then $helpers
     else [$logs | log_rates($kind) | to_entries[] | {title: .key, y: .value}] end) as $s
  | {name: "time", kind: "time", title: "\($metric): rate over time",
     vars: {ylab: (if ($helpers | length) > 0 then "operations per second" elif $kind == "bw" then "MB/s" else "IOPS" end)},
     series: $s, repeat: "series"}
  + (if ($s | length) == 0 then {why: "no per-second data"} else {} end);

# bars_chart($name; $title; $xlab; $rows; $none): horizontal bars (lib/report/charts/bars.gp): $rows
# [[label, length, ...]], first on top; $none: why nothing is drawn when there are no rows.
def bars_chart($name; $title; $xlab; $rows; $none):
  {name: $name, kind: "bars", title: $title, vars: {xlab: $xlab}, data: $rows, repeat: "median"}
  + (if ($rows | length) == 0 then {why: $none} else {} end);
