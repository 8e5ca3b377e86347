# lib/compare.jq: build compare.json from the runs that lib/compare.sh read.
#   jq -L lib --argjson confidence 95 --arg order "$(registry_rows)" -f lib/compare.jq RUNS.json
# Input: an array of runs, the first the reference, each {label, path, settings: {KEY: value},
# system: {...}, smbconf: {"[section] name": value} or null, metrics: {NAME: metric object}}.
# A metric's figures are its "repeats" (the value of each repeat, in run order); a metric
# without "repeats" is one repeat of "value".
# Output (compare.json, one object):
#   compare: 1 (format version); worse: true when any metric is "worse"
#   test: {name, method, confidence (%), alpha, needs_n (repeats per run the test needs)}
#   runs: [{label (A, B, ...; A is the reference), path, name, started_at, samba_version}]
#   differences: [{kind ("setting"|"smb.conf"|"system"), key, values: [one per run, null =
#     not set]}], only what is not the same in all runs
#   metrics: [{metric, unit, direction ("higher"|"lower"|null: which is better),
#     runs: [{run, status, n, values, median, min, max}],
#     versus: [{run (B, C, ...), verdict ("better"|"worse"|"no difference shown"|
#       "not enough repeats to tell"|"not measured"|"different": no direction known|"not
#       judged": a metric without a target, whose value is no figure of speed: localdisk's
#       count of local jobs), symbol,
#       change_pct (of the median against A), p, min_p, test ("exact"|"normal"), n: [nA, nX],
#       needs_n and needs_n_other (only with "not enough repeats to tell")}]}]
#   counts: {verdict: how many}
include "mannwhitney";

# The kit's row order ($order: registry_rows, the rows of lib/metrics/list a line each);
# metrics the kit does not know follow, by name.
def metric_order: $order | split("\n") | map(select(. != ""));

# What compare shows of each system.json (path, label).
def system_fields:
  [[["samba_version"], "Samba"], [["kernel"], "kernel"], [["cpus"], "CPUs"],
   [["ram_mb"], "RAM MB"], [["host"], "host"], [["fio_version"], "fio"],
   [["mounted"], "cifs mounted"], [["mount_opts"], "cifs mount options"],
   [["service_mode"], "service mode"], [["cgroup_source"], "CPU accounting"],
   [["selinux"], "SELinux"], [["sessions", "signing"], "session signing"],
   [["sessions", "encryption"], "session encryption"], [["sessions", "dialects"], "dialects"]];

def as_text: if . == null then null elif type == "string" then . else tojson end;

# figures: a metric object (or null) as {status, n, values, median, min, max}.
def figures:
  if . == null then {status: "absent", n: 0, values: [], median: null, min: null, max: null}
  else
    ([.repeats[]? | numbers]) as $r
    | (if ($r | length) > 0 then $r elif (.value | type) == "number" then [.value] else [] end) as $v
    | {status: (.status // null), n: ($v | length), values: $v, median: ($v | mw_median),
       min: ($v | min), max: ($v | max)}
  end;

# direction OP: "higher" when a larger value is better (target_op >=), "lower" for <=.
def direction: if . == ">=" or . == ">" then "higher" elif . == "<=" or . == "<" then "lower" else null end;

# versus($ref; $other; $dir; $alpha): the comparison of one run's figures with the reference's.
def versus($ref; $other; $dir; $alpha):
  (if $ref.median != null and $other.median != null and $ref.median != 0
   then ($other.median - $ref.median) / ($ref.median | fabs) * 100 else null end) as $change
  | if $ref.n == 0 or $other.n == 0 then
      {verdict: "not measured", symbol: "?", change_pct: $change, p: null, test: null}
    else
      mw_test($ref.values; $other.values) as $t
      | {change_pct: $change, p: $t.p, min_p: $t.min_p, test: $t.method, n: [$t.n1, $t.n2]}
      + if $t.min_p >= $alpha then
          {verdict: "not enough repeats to tell", symbol: "?",
           needs_n: mw_min_n($alpha), needs_n_other: mw_min_n2($ref.n; $alpha)}
        elif $t.p >= $alpha then {verdict: "no difference shown", symbol: "~"}
        elif $dir == null or $t.higher == null then {verdict: "different", symbol: "≠"}
        elif ($t.higher == "second") == ($dir == "higher") then {verdict: "better", symbol: "+"}
        else {verdict: "worse", symbol: "-"} end
    end;

# differences: [{kind, key, values: [one per run, null where absent]}] for every item that is
# not the same in all runs.
def differences:
  . as $runs
  | def rows($kind; $field):
      ([$runs[] | .[$field] // {} | keys[]] | unique) as $keys
      | [$keys[] as $k | {kind: $kind, key: $k, values: [$runs[] | (.[$field] // {})[$k]]}
         | select((.values | unique | length) > 1)];
    rows("setting"; "settings") + rows("smb.conf"; "smbconf")
    + [system_fields[] as [$path, $name]
       | {kind: "system", key: $name, values: [$runs[] | .system | getpath($path) | as_text]}
       | select((.values | unique | length) > 1)];

((100 - ($confidence | tonumber)) / 100) as $alpha
| . as $runs
| ([$runs[].metrics | keys[]] | unique) as $names
| ([metric_order[] | select(. as $m | $names | index($m))]
   + [$names[] | select(. as $m | metric_order | index($m) | not)]) as $order
| [$order[] as $m
   | [$runs[] | .metrics[$m]] as $objs
   | (first($objs[] | select(. != null)) // {}) as $any
   | ($objs[0].target_op // $any.target_op | direction) as $dir
   | [$objs[] | figures] as $figs
   | {metric: $m, unit: ($any.unit // null), direction: $dir,
      runs: [range(0; $runs | length) as $i | {run: $runs[$i].label} + $figs[$i]],
      versus: [range(1; $runs | length) as $i
        | {run: $runs[$i].label}
          + if all($objs[] | select(. != null); .target == null and .target_op == null) then
              {verdict: "not judged", symbol: "·", change_pct: null, p: null, test: null}
            else versus($figs[0]; $figs[$i]; $dir; $alpha) end]}] as $metrics
| {compare: 1,
   test: {name: "Mann-Whitney U (Wilcoxon rank-sum), two-sided",
          method: "exact permutation distribution with mid-ranks for ties up to \(mw_exact_max) values, normal approximation above",
          confidence: $confidence, alpha: $alpha, needs_n: mw_min_n($alpha)},
   runs: [$runs[] | {"label": .label, path, name: (.path | sub("/+$"; "") | split("/") | last),
                     started_at: (.system.run.started_at // null),
                     samba_version: (.system.samba_version // null)}],
   differences: ($runs | differences),
   metrics: $metrics,
   counts: (reduce ($metrics[].versus[].verdict) as $v ({}; .[$v] += 1)),
   worse: any($metrics[].versus[]; .verdict == "worse")}
