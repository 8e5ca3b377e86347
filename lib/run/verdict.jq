# lib/run/verdict.jq: what every metric's verdict program (lib/metrics/NAME.jq) builds on: the
# settings, the judging and the one shape of a metric object. A jq module: include "run/verdict".
# Globals the caller (results_verdict in lib/run/results.sh) passes: $metric (the metric that ran),
# $skip and $error (a reason, or ""), $cpus (of this host), $elapsed (seconds, or null); the
# settings are the environment jq runs in.
include "format";
include "run/serverview";
include "run/series";

# setting($k): the value of settings key $k (a number when it reads as one).
def setting($k): $ENV[$k] | if type == "string" then (tonumber? // .) else . end;

# client_host_names: the hosts CLIENT_HOSTS names, in its order ([] without client hosts); the
# metrics of one client run from the first (lib/run/child.sh, child_client_cmd).
def client_host_names: setting("CLIENT_HOSTS") // "" | tostring | [splits("[[:space:]]+") | select(. != "")];

# judge($v; $op; $t): PASS when $v is on the right side of target $t (>= or <=); no value fails.
def judge($v; $op; $t):
  if $v == null or $t == null then "FAIL"
  elif $op == ">=" then (if $v >= $t then "PASS" else "FAIL" end)
  else (if $v <= $t then "PASS" else "FAIL" end)
  end;

# raw_files: the raw files the runner passed ($ARGS.named "raw:FILE"), as {"FILE": value}; a file
# that is empty or not JSON is null.
def raw_files:
  reduce ($ARGS.named | to_entries[] | select(.key | startswith("raw:"))) as $e ({};
    .[$e.key[4:]] = ($e.value | fromjson? // null));

# used_us($ev): the smbd CPU (µs) an evidence object recorded, or null.
def used_us($ev): $ev.probes.cgcpu | if (.available // false) then .used_us else null end;

# per_op($total; $ops): a total (CPU µs, ...) per operation, or null when either is unknown.
def per_op($total; $ops): if $total == null or $ops == null or $ops <= 0 then null else $total / $ops end;

# helper_cpu($line; $ev; $extra): smbd's CPU for a load helper's operations: {used_us, ops,
# per_op_us, over}. From the helper's own readings at the edges of its measuring window
# (server_cpu, docs/CONTRACTS.md section 3) over the operations that ended inside it, else from
# the cgcpu probe around the whole command (its set-up, logins and teardown too: a few % high)
# over those and the late ones. $extra: further operations to count (failed logins).
def helper_cpu($line; $ev; $extra):
  ($line.server_cpu // {}) as $w
  | if ($w.available // false) then
      {used_us: $w.used_us, ops: (($line.ops // 0) + $extra), over: "the helper's measuring window"}
    else {used_us: used_us($ev), ops: (($line.ops // 0) + ($line.late_ops // 0) + $extra),
          over: "the whole helper command, its set-up and teardown included"} end
  | .per_op_us = per_op(.used_us; .ops);

# helper_lines($re): the helper lines (raw/NAME.json that a helper wrote: they have "helper") of
# the measurements whose NAME matches the regex $re (input: the raw files).
def helper_lines($re):
  [to_entries[] | select(.key | test("^(\($re))\\.json$")) | .value | select(type == "object" and .helper != null)];

# helper_count(f): the counts f of helper lines (input: an array of them; a count that is missing
# counts 0) added up over the lines, e.g. helper_count(.ops, .late_ops); null for no line.
def helper_count(f): map([f | if type == "number" then . else 0 end] | add) | add;

# why_join: join the reasons of a FAIL ("a; b"), "" when there are none.
def why_join: map(select(. != null and . != "")) | join("; ");

# failed_times($line): for a helper line with failed or timed-out requests, their times
# {err_lat_ms: {p50, p95, p99, max, mean}}, which the helpers keep apart from lat_ms (the
# successful requests'); {} when none failed.
def failed_times($line):
  if ($line.errors // 0) > 0 and ($line.err_lat_ms | type) == "object" then {err_lat_ms: $line.err_lat_ms} else {} end;

# failed_times_note: the note a metric with failed requests adds.
def failed_times_note:
  "Failed and timed-out requests count as errors; their times are not in lat_ms (the successful requests') but beside it, in err_lat_ms.";

# median: of an array of numbers, always one of them: the middle one, for an even count the lower
# of the two middle ones (4/16/64/4 clients gives 4, never the 10 no repeat measured); null if empty.
def median:
  sort | if length == 0 then null else .[(length - 1) / 2 | floor] end;

# spread: {n, median, min, max, half_range_pct} of an array of numbers; half_range_pct is half
# the range in % of the median (no interval: the report prints the range itself).
def spread:
  median as $m
  | {n: length, median: $m, min: min, max: max,
     half_range_pct: (if $m == null or $m == 0 then null else ((max - min) / 2 / ($m | fabs) * 100) end)};

# object: a metric object in the kit's one key order (see docs/CONTRACTS.md); the same warning
# of several measurements once (format.jq warnings_merge); a body that gives "repeats" (a metric that
# runs once, NAME_repeat: its rounds) gets their spread beside them, as a repeated row (lib/run/repeat.jq).
def object:
  {metric: (.metric // $metric), status, value, unit, target, target_op, why: (.why // ""),
   details: (.details // {}), warnings: (.warnings // [] | warnings_merge("measurements")), charts: (.charts | if type == "array" then . else [] end)}
  + (if .target_text then {target_text} else {} end)
  + (if .repeats then {repeats, spread: ([.repeats[] | numbers] | if length > 0 then spread else null end)} else {} end)
  + (if (.metric // $metric) == $metric and $elapsed != null then {elapsed_s: $elapsed} else {} end);

# process_count_warning: true for a warning a verdict gives from counting client processes
# against CPUs (format.jq small_host); dropped where the clients' CPU was measured.
def process_count_warning:
  test("client processes shared [0-9]+ CPUs|fio jobs, the kernel client and smbd shared|ran on the same [0-9]+ CPUs as smbd");

# server_chart: the server's time per SMB command (input: details.server.commands[]: {command,
# calls, mean_us, share}) as bars, the largest 12 shares.
def server_chart:
  ([.[] | .share // 0] | max) as $max | (if $max <= 1 then 100 else 1 end) as $k
  | bars_chart("server"; "\($metric): server time per command"; "% of the server time";
      [map(select(.command != null)) | sort_by(-(.share // 0)) | .[:12][] | [.command, ((.share // 0) * $k), .calls, .mean_us]]; "");

# server_view($raw): add the server's view of the metric's measurements (lib/run/serverview.jq) to a
# metric object: details.server, details.cpu, details.count_check (of the count the head or
# body declares in .count, lib/run/serverview.jq sv_count) and their warnings; the
# measured client CPU replaces the warnings made by counting processes. A body that gives
# .view (measurement names) and .view_of (those in words) gets the view of those alone: the
# measurement its figure rests on, where adding up its measurements would mix unlike ones.
def server_view($raw):
  .view as $view | .view_of as $of | .count as $count | ($raw | serverview($metric; $view; $of; $count)) as $v
  | if ($v.details | length) == 0 then .
    else .details = ((.details // {}) + $v.details)
      | .charts = ((.charts // []) + [$v.details.server.commands // [] | select(length > 0) | server_chart])
      | .warnings = (((.warnings // []) | if $v.details.cpu.available then map(select(process_count_warning | not)) else . end)
          + $v.warnings)
    end;

# log_files: the fio per-second logs the runner passed ($ARGS.named "log:FILE"), as {"FILE": text}.
def log_files:
  reduce ($ARGS.named | to_entries[] | select(.key | startswith("log:"))) as $e ({}; .[$e.key[4:]] = $e.value);

# timed_charts($raw; $c): the latency distribution and the rate over time a head declares with
# charts: {files: REGEX (its raw files), log: "bw" | "iops" (its fio per-second logs)}.
def timed_charts($raw; $c):
  (.metric // $metric) as $m
  | [($raw | latency_chart($m; $c.files)),
     ($raw | time_chart($m; $c.files; log_files | with_entries(select(.key | test("_\($c.log // "iops")\\.[0-9]+\\.log$"))); $c.log // "iops"))];

# declared_chart: a chart a body declares in details.chart {kind, title, xlabel, ylabel, logx, logy,
# series: [{title, points}]} (docs/CONTRACTS.md section 6) as a chart of lib/report/charts/series.gp.
def declared_chart:
  {name: (.kind // "chart" | tostring), kind: "series", title: (.title // ""),
   vars: {xlab: (.xlabel // ""), ylab: (.ylabel // ""), logx: (if .logx == true then 1 else 0 end), logy: (if .logy == true then 1 else 0 end)},
   series: [.series[]? | {title: (.title // "" | tostring), x: [.points[]?[0]], y: [.points[]?[1]]} | select((.x | length) > 0)],
   repeat: "median"}
  | if (.series | length) == 0 then . + {why: "the verdict declared a chart without points"} else . end;

# row(head; body): one metric object. head: {unit, target, target_op[, metric, target_text]};
# head.charts declares the timed charts (timed_charts); body (input: the raw files) gives {value, why, details,
# warnings[, status, repeats, view, view_of, charts (lib/run/series.jq)]}; without a status
# the value is judged against the target. $skip makes it SKIP, $error a FAIL without a value.
def row(head; body):
  . as $raw | head as $h
  | if $skip != "" then ($h | del(.charts)) + {status: "SKIP", value: null, why: $skip}
    elif $error != "" then ($h | del(.charts)) + {status: "FAIL", value: null, why: $error}
    else ($raw | body) as $b | ($h + $b) | .status = (.status // judge(.value; .target_op; .target))
      | .charts = (if $h.charts then timed_charts($raw; $h.charts) else [] end) + ($b.charts // [])
        + [.details.chart // empty | declared_chart]
      | if .details.chart then .details |= del(.chart) else . end
    end
  | if $skip == "" and (.metric // $metric) == $metric then server_view($raw) else . end
  | object;

# closed_loop_why($n; $who; $rate; $unit; $pct; $max_ms): a closed-loop test keeps $n clients
# each with one request in flight, so their mean latency is $n / $rate (Little's law). When
# that mean is already above $max_ms, no percentile can meet "$pct <= $max_ms ms": a sentence
# saying so and what would meet it (at most floor($rate * $max_ms / 1000) clients at this rate,
# or a faster or larger host; only the host when that is 0); null when the target is in reach.
def closed_loop_why($n; $who; $rate; $unit; $pct; $max_ms):
  if $n == null or $rate == null or $max_ms == null or $n <= 0 or $rate <= 0 or $max_ms <= 0 then null
  else ($n / $rate * 1000) as $mean
    | if $mean <= $max_ms then null
      else ($n * 1000 / $max_ms | round) as $need
        | "\($pct) ≤ \($max_ms | num) ms cannot be met by construction at \($rate | num) \($unit | unit_at($rate)): \($n) \($who | unit_at($n)) each waiting for its own request average \($n) / \($rate | num) = \($mean | num) ms (Little's law); \($n) \($who | unit_at($n)) need over \($need | num) \($unit | unit_at($need)), so "
        + (($rate * $max_ms / 1000 | floor) as $most
           | if $most >= 1 then "at this rate at most \($most) \($who | unit_at($most)) would meet it, or a faster or larger host"
             else "at this rate not even one would: a faster or larger host" end)
      end
  end;
