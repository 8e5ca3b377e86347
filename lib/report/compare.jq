# lib/report/compare.jq: compare runs of the kit, metric by metric. A jq module (include "report/compare"
# with -L lib); lib/report/compare.sh calls compare_runs on the runs it read:
#   jq -s -L lib --argjson confidence 95 --argjson band 5 --arg order "$(registry_rows)" \
#     'include "report/compare"; compare_runs($confidence; $band; $order)' RUN.json...
# Input: an array of runs, the first the reference, each {label, path, settings: {KEY: value}
# or null, system: {...}, metrics: {NAME: metric object}}: a run's results.json (lib/report/compare.sh).
# The smb.conf parameters are system.server_settings.parameters ({global, share}: what testparm
# read from the test server's smb.conf); null or a missing settings: not recorded (a note).
# A metric's figures are its "repeats" (the value of each repeat, in run order; null: that
# repeat measured nothing); a metric without "repeats" is one repeat of "value".
# Output (compare.json, one object):
#   compare: 2 (format version); worse: true when any metric is "worse"
#   test: {name, correction, method, confidence (%), alpha, band_pct, tests (how many were
#     corrected for), needs_n (repeats per run the test needs)}
#   runs: [{label (A, B, ...; A is the reference), path, name, started_at, samba_version,
#     kit_version}]
#   differences: [{kind ("setting"|"smb.conf"|"system"), key, values: [one per run, null =
#     not set]}], only what is not the same in all runs that recorded that kind
#   unrecorded: [{run, kind ("setting"|"smb.conf"), why}]: a run whose results.json does not
#     record its settings or smb.conf parameters (its values are left out of those rows)
#   metrics: [{metric, unit, direction ("higher"|"lower"|null: which is better),
#     runs: [{run, status, n, failed, values, median, min, max}],
#     versus: [{run (B, C, ...), verdict ("better"|"worse"|"no difference shown"|
#       "not enough repeats to tell"|"not measured"|"different": no direction known|"not
#       judged": a metric without a target, whose value is no figure of speed: a baseline's
#       count of local jobs), symbol,
#       change_pct (ratio of the geometric means - 1, in %; on the linear scale against A's
#       mean), ci_pct [lo, hi] (its confidence interval), scale ("log"|"linear"), diff, p,
#       p_holm, df, n: [nA, nX], in_band (true: sure, but inside the practical band),
#       failed: [fA, fX] and why (repeats that measured nothing), needs_n}]}]
#   counts: {verdict: how many}
include "report/stats";

# What compare shows of each system.json (path, label).
def system_fields:
  [[["kit_version"], "kit"], [["samba_version"], "Samba"], [["kernel"], "kernel"], [["cpus"], "CPUs"],
   [["ram_mb"], "RAM MB"], [["host"], "host"], [["fio_version"], "fio"],
   [["mounted"], "cifs mounted"], [["mount_opts"], "cifs mount options"],
   [["service_mode"], "service mode"], [["cgroup_source"], "CPU accounting"],
   [["selinux"], "SELinux"], [["sessions", "signing"], "session signing"],
   [["sessions", "encryption"], "session encryption"], [["sessions", "dialects"], "dialects"]];

def as_text: if . == null then null elif type == "string" then . else tojson end;

# figures: a metric object (or null) as {status, n, failed, values, median, min, max}: n the
# repeats with a value, failed those that measured nothing (null in "repeats").
def figures:
  if . == null then {status: "absent", n: 0, failed: 0, values: [], median: null, min: null, max: null}
  else
    ([.repeats[]? | numbers]) as $r
    | ([.repeats[]? | select(. == null)] | length) as $failed
    | (if ($r | length) > 0 or $failed > 0 then $r elif (.value | type) == "number" then [.value] else [] end) as $v
    | {status: (.status // null), n: ($v | length), failed: $failed, values: $v, median: ($v | st_median),
       min: ($v | min), max: ($v | max)}
  end;

# direction OP: "higher" when a larger value is better (target_op >=), "lower" for <=.
def direction: if . == ">=" or . == ">" then "higher" elif . == "<=" or . == "<" then "lower" else null end;

# pct_of($d; $scale; $base): a difference as a change in %: on the log scale a ratio, on the
# linear scale against the reference's mean (null when that is 0).
def pct_of($d; $scale; $base):
  if $scale == "log" then (($d | exp) - 1) * 100
  elif $base == null or $base == 0 then null else $d / ($base | fabs) * 100 end;

# test($ref; $other; $alpha): Welch's test of one run's repeats against the reference's, before
# the correction: {scale, change_pct, ci_pct: [lo, hi], p, df, n: [nA, nX]}. The log scale when
# every value is above 0; else (errors in %, counts of 0) the values themselves.
def test($ref; $other; $alpha):
  (if all($ref.values[], $other.values[]; . > 0) then "log" else "linear" end) as $scale
  | (if $scale == "log" then ($ref.values | map(log)) else $ref.values end) as $x
  | (if $scale == "log" then ($other.values | map(log)) else $other.values end) as $y
  | (if $scale == "log" then 0.001 else 0.001 * ([($x | st_mean | fabs), ($y | st_mean | fabs), 1e-9] | max) end) as $floor
  | st_welch($x; $y; $alpha; $floor) as $w
  | ($ref.values | st_mean) as $base
  | {scale: $scale, change_pct: pct_of($w.diff; $scale; $base),
     ci_pct: (if $base == 0 and $scale == "linear" then null else [pct_of($w.lo; $scale; $base), pct_of($w.hi; $scale; $base)] end),
     diff: $w.diff, p: $w.p, df: $w.df, n: [$ref.n, $other.n]};

# versus($ref; $other; $alpha): one run's figures against the reference's, before the
# correction: a verdict that needs no test ("not measured", "worse" for repeats that measured
# nothing, "not enough repeats to tell"), or the test's figures with tested: true.
def versus($ref; $other; $alpha):
  if $ref.n == 0 and $ref.failed == 0 or $other.n == 0 and $other.failed == 0 then
    {verdict: "not measured", symbol: "?", change_pct: null, p: null}
  elif $other.failed > $ref.failed then
    {verdict: "worse", symbol: "-", change_pct: null, p: null, n: [$ref.n, $other.n],
     failed: [$ref.failed, $other.failed],
     why: "\($other.failed) of \($other.n + $other.failed) repeats measured nothing (the reference: \($ref.failed) of \($ref.n + $ref.failed))"}
  elif $ref.n < 2 or $other.n < 2 then
    {verdict: "not enough repeats to tell", symbol: "?", change_pct: null, p: null, n: [$ref.n, $other.n], needs_n: 2}
  else test($ref; $other; $alpha) + {tested: true}
    + (if $ref.failed > 0 or $other.failed > 0 then {failed: [$ref.failed, $other.failed]} else {} end)
  end;

# decide($dir; $alpha; $band): a tested comparison with its corrected p (p_holm) as a verdict:
# "better" or "worse" (by the metric's direction) when p_holm < alpha and the change lies
# outside the practical band of +-band %; "no difference shown" otherwise (in_band: true when
# the test was sure but the change is too small to matter).
def decide($dir; $alpha; $band):
  if .tested | not then .
  elif .p_holm >= $alpha then . + {verdict: "no difference shown", symbol: "~"}
  elif .change_pct != null and (.change_pct | fabs) <= $band then . + {verdict: "no difference shown", symbol: "~", in_band: true}
  elif $dir == null then . + {verdict: "different", symbol: "≠"}
  elif (.diff > 0) == ($dir == "higher") then . + {verdict: "better", symbol: "+"}
  else . + {verdict: "worse", symbol: "-"} end
  | del(.tested);

# smbconf: a run's smb.conf parameters as {"[section] name": value} (the one share section is
# [share], so runs with different share names compare); null when its results.json has none.
def smbconf:
  (.system.server_settings.parameters // null) as $p
  | if ($p | type) != "object" then null
    else [($p.global // {} | to_entries[] | {key: "[global] \(.key)", value}),
          ($p.share // {} | to_entries[] | {key: "[share] \(.key)", value})] | from_entries end;

# recorded: the kinds of record a run's results.json may lack, {kind: object or null}.
def recorded: {setting: (.settings | if type == "object" then . else null end), "smb.conf": smbconf};

# differences: [{kind, key, values: [one per run, null where absent]}] for every item that is
# not the same in all runs that recorded its kind (a run that did not: null, and a note).
def differences:
  . as $runs
  | [$runs[] | recorded] as $rec
  | def rows($kind):
      ([$rec[] | .[$kind] // {} | keys[]] | unique) as $keys
      | [$keys[] as $k | {kind: $kind, key: $k, values: [$rec[] | (.[$kind] // {})[$k]]}
         | select([range(0; $rec | length) as $i | select($rec[$i][$kind] != null) | .values[$i]]
                  | unique | length > 1)];
    rows("setting") + rows("smb.conf")
    + [system_fields[] as [$path, $name]
       | {kind: "system", key: $name, values: [$runs[] | .system | getpath($path) | as_text]}
       | select((.values | unique | length) > 1)];

# unrecorded: [{run, kind, why}] for each run whose results.json lacks its settings or smb.conf.
def unrecorded:
  [.[] | .label as $l | recorded | to_entries[] | select(.value == null)
   | {run: $l, kind: .key,
      why: (if .key == "setting" then "its results.json records no settings (settings.env missing or refused when it was written)"
            else "its results.json records no smb.conf parameters (testparm could not read the server's smb.conf, or an older kit)" end)}];

# compare_runs($confidence; $band; $order): compare.json from the runs (the first the reference).
def compare_runs($confidence; $band; $order):
  ((100 - ($confidence | tonumber)) / 100) as $alpha
  | . as $runs
  | ([$runs[].metrics | keys[]] | unique) as $names
  | ($order | split("\n") | map(select(. != ""))) as $known
  | ([$known[] | select(. as $m | $names | index($m))]
     + [$names[] | select(. as $m | $known | index($m) | not)]) as $rows
  | [$rows[] as $m
     | [$runs[] | .metrics[$m]] as $objs
     | (first($objs[] | select(. != null)) // {}) as $any
     | [$objs[] | figures] as $figs
     | {metric: $m, unit: ($any.unit // null), direction: ($objs[0].target_op // $any.target_op | direction),
        runs: [range(0; $runs | length) as $i | {run: $runs[$i].label} + $figs[$i]],
        versus: [range(1; $runs | length) as $i
          | {run: $runs[$i].label}
            + if all($objs[] | select(. != null); .target == null and .target_op == null) then
                {verdict: "not judged", symbol: "·", change_pct: null, p: null}
              else versus($figs[0]; $figs[$i]; $alpha) end]}] as $metrics
  # Holm over every test of the comparison: all metrics, all runs against the reference
  | [$metrics[].versus[] | if .tested then .p else null end] as $ps
  | ($ps | st_holm) as $adj
  | ([$ps[] | numbers] | length) as $m
  | (reduce range(0; $metrics | length) as $i ({k: 0, out: []};
      .k as $k0
      | .out += [$metrics[$i] as $row
          | $row + {versus: [range(0; $row.versus | length) as $j
              | $row.versus[$j] | if .tested then . + {p_holm: $adj[$k0 + $j]} else . end
              | decide($row.direction; $alpha; $band)]}]
      | .k += ($metrics[$i].versus | length))).out as $judged
  | {compare: 2,
     test: {name: "Welch's t-test on the logarithms of the repeats, two-sided",
            correction: "Holm over the \($m) tests of this comparison",
            method: "the change is the ratio of the repeats' geometric means, with its \($confidence) % confidence interval; a metric with a value of 0 is compared on its values (change against the reference's mean)",
            confidence: $confidence, alpha: $alpha, band_pct: $band, tests: $m, needs_n: 2},
     runs: [$runs[] | {"label": .label, path, name: (.path | sub("/+$"; "") | split("/") | last),
                       started_at: (.system.run.started_at // null),
                       samba_version: (.system.samba_version // null),
                       kit_version: (.system.kit_version // null)}],
     differences: ($runs | differences),
     unrecorded: ($runs | unrecorded),
     metrics: $judged,
     counts: (reduce ($judged[].versus[].verdict) as $v ({}; .[$v] += 1)),
     worse: any($judged[].versus[]; .verdict == "worse")};
