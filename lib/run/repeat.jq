# lib/run/repeat.jq: one result row from its repeats (lib/run/repeat.sh). A jq module: include "run/repeat".
# Input of combine: the row's metric objects, one per repeat in run order (null for a repeat
# that did not run). $per_s: [[label, [ops in each second...]]...] from the repeats' helper lines.
# Output: one metric object (docs/CONTRACTS.md) whose value is the median of the repeats (the
# lower median for an even count: a value one repeat measured), with
#   repeats: [v1, ...]            every repeat's value in run order (null: nothing measured)
#   spread: {n, median, min, max, half_range_pct}   half_range_pct = (max - min) / 2 / |median| * 100
#   unsure: true                  when the repeats' verdicts differ, or the target lies strictly
#                                 inside min-max and not every repeat failed (never for a target
#                                 that allows none, 0 with <=: any failing repeat fails the row)
#   details.repeats: [{repeat, value, status, why}] and details.figures: [{figure, median, min,
#   max}] for every number of details that is not the same in all repeats, and the
#   per-second rates; the other details are those of the median repeat (the one that measured
#   the median), whose reason a FAIL quotes as "repeat K (the median, V unit): ...".
include "run/verdict";
include "format";

# figure_name: a details path as text: steps[2].iops.
def figure_name:
  reduce .[] as $p (""; if ($p | type) == "number" then . + "[\($p)]" elif . == "" then $p else . + "." + $p end);

# by_command: the details with each list of per-command rows (the server view's commands,
# sorted by time, so in another order in every repeat) as an object keyed by the command:
# a figure is the same command's in every repeat (server.commands.Read.mean_us).
def by_command:
  walk(if type == "array" and length > 0 and all(.[]; type == "object" and (.command | type) == "string")
       then map({key: .command, value: del(.command)}) | from_entries else . end);

# figures($ds): a row for each number found at the same place in every details object of $ds
# that is not the same in all of them.
def figures($ds):
  [$ds[] | by_command] as $ds
  | [$ds[] | [paths(numbers)]] as $all
  | [($all[0] // [])[] as $p
     | select(all($all[]; index([$p]) != null))
     | [$ds[] | getpath($p)] as $v
     | select(($v | unique | length) > 1)
     | {figure: ($p | figure_name)} + ($v | spread | del(.n, .half_range_pct))];

# per_s_figures: a row for each per-second series, over every second of every repeat.
def per_s_figures:
  [group_by(.[0])[] | {figure: "\(.[0][0]) per second", values: [.[][1][] | numbers]}
   | select(.values | length > 0)
   | {figure} + (.values | spread | del(.n, .half_range_pct))];

# repeat_text($unit): one repeat ({k, o}) as a reason: "repeat 2: 95 logins/s (p95 155 ms is
# above 20 ms)", or "repeat 2: its why" when it measured nothing.
def repeat_text($unit):
  "repeat \(.k): "
  + (if (.o.value | type) == "number" then .o.value as $v | "\($v | num) \($unit // "" | unit_at($v))" + (if (.o.why // "") != "" then " (\(.o.why))" else "" end)
     else (.o.why // "nothing was measured") end);

# charts_merge($rk; $rep): the median repeat's charts (lib/run/series.jq) with every repeat's series
# (" rK" after their titles) where a chart's repeat is "series", every repeat's data rows as
# reps (blocks; vars.reps their count) where it is "rows" and there are two or more.
def charts_merge($rk; $rep):
  [($rep.o.charts // [])[] | . as $c
   | [$rk[] | .k as $k | (.o.charts // [])[] | select(.name == $c.name) | {k: $k, c: .}] as $each
   | if ($rk | length) < 2 then .
     elif .repeat == "series" then
       .series = [$each[] | .k as $k | .c.series[]? | .title = ([.title, "r\($k)"] | map(select(. != "")) | join(" "))]
       | if (.series | length) > 0 then del(.why) else . end
     elif .repeat == "rows" then
       [$each[] | .c.data // [] | select(length > 0) | map(.[0:3])] as $reps
       | if ($reps | length) >= 2 then .reps = $reps | .vars.reps = ($reps | length) else . end
     else . end];

def combine($per_s):
  . as $all
  | [range(0; $all | length) as $k | select($all[$k] != null) | {k: ($k + 1), o: $all[$k]}] as $rk
  | [$rk[].o] as $r
  | if ($r | length) == 0 then null
    elif all($r[]; .status == "SKIP") then $r[0]
    else
      $r[0] as $first
      | [$all[] | if . == null then null else .value end] as $values
      | ([$values[] | numbers] | if length > 0 then spread else null end) as $s
      | ($s.median // null) as $med
      # the median repeat: the one the row's value and details come from, whose reason is quoted
      # (the first in run order where several measured the median)
      | ([$rk[] | select(.o.value | type == "number")]
         | if length == 0 then $rk[0] else map(select(.o.value == $med))[0] end) as $rep
      | ([$r[] | select(.status == "PASS")] | length) as $passed
      | [$rk[] | select(.o.status == "FAIL")] as $failed
      # a metric without a target (a baseline) is judged by its repeats' own verdicts
      | (if $first.target == null then (if $passed * 2 > ($r | length) then "PASS" else "FAIL" end)
         else judge($med; $first.target_op; $first.target) end) as $on_median
      | ([$r[] | .status] | unique) as $statuses
      # a target that allows none (0 with <=: errors) is failed by any repeat that failed it
      | ($first.target == 0 and $first.target_op == "<=") as $zero
      | (if $on_median == "FAIL" or ($zero and ($failed | length) > 0) then "FAIL"
         elif $passed * 2 > ($r | length) then "PASS" else "FAIL" end) as $status
      # unsure: some repeats pass and some fail (their verdicts hold every condition of the
      # target: login's rate and p95), or the target lies strictly inside the values' range while
      # some repeat passed; a value equal to the target is no doubt (errors 0/0/0 against 0), and
      # repeats that all failed make a sure FAIL whatever their values; a target that allows none
      # is never unsure (one failing repeat is a finding)
      | ($s != null and $first.target != null and $s.min < $first.target and $first.target < $s.max) as $inside
      | (($statuses | length) > 1) as $differ
      | (($zero | not) and ($differ or ($inside and ($failed | length) < ($r | length)))) as $unsure
      | {metric: $first.metric, status: $status, value: $med, unit: $first.unit, target: $first.target,
         target_op: $first.target_op,
         why: (if $status == "PASS" then ""
               elif $zero and ($failed | length) > 0 then [$failed[] | repeat_text($first.unit)] | join("; ")
               elif $med == null then ([$rk[] | select((.o.why // "") != "") | "repeat \(.k): \(.o.why)"][0] // "nothing was measured")
               elif $rep.o.status == "FAIL" and ($rep.o.why // "") != "" then
                 "repeat \($rep.k) (the median, \($med | num) \($first.unit // "" | unit_at($med))): \($rep.o.why)"
                 + (if $on_median == "PASS" then " (\($failed | length) of \($r | length) repeats failed)" else "" end)
               elif $on_median == "FAIL" then
                 "the median \($med | num) \($first.unit // "" | unit_at($med)) (repeat \($rep.k)) is on the wrong side of the target"
               else "\($failed | length) of \($r | length) repeats failed; the median one, repeat \($rep.k), passed: "
                 + ([$failed[] | repeat_text($first.unit)] | join("; ")) end),
         details: (($rep.o.details // {})
           + {repeats: [$rk[] | {repeat: .k} + (.o | {value, status, why})],
              figures: (figures([$r[] | .details // {}]) + ($per_s | per_s_figures))}),
         warnings: ([$r[] | .warnings // [] | .[]] | warnings_merge("repeats")
           + (if $unsure then
                [([(if $differ then "the repeats' verdicts differ (\([$rk | group_by(.o.status)[] | "\(if length > 1 then "repeats" else "repeat" end) \(map(.k | tostring) | join(", ")) \(.[0].o.status)"] | join("; ")))" else empty end),
                   (if $inside then "the target \($first.target | num) lies inside the repeats' range \($s.min | num)-\($s.max | num)" else empty end)]
                  | join(" and ")) + ": the verdict is unsure; more repeats or a longer DURATION tell"]
              else [] end))}
      + (if $first.target_text then {target_text: $first.target_text} else {} end)
      + {repeats: $values, spread: $s, charts: charts_merge($rk; $rep)}
      + (if $unsure then {unsure: true} else {} end)
      + (if any($r[]; .elapsed_s != null) then {elapsed_s: ([$r[] | .elapsed_s // 0] | add)} else {} end)
    end;

# disturbed_mark($d): a combined row with what lib/run/repeat.sh recorded of its disturbed repeats
# ($d: [{repeat, reason, replaced[, tag, kept]}], other processes took CPU during them): the
# records in details.disturbed, a note for each repeat measured again ("repeat 2 measured
# again: other processes used 1.2 of 2 cores during login"), and a warning when the verdict
# still rests on a disturbed repeat (the extra measurements were used up, or it was disturbed
# again), its repeats' reasons merged into one ("used 1.1–1.3 of 2 cores during login").
def disturbed_mark($d):
  if ($d | length) == 0 then .
  else ($d | sort_by(.repeat)) as $d
    | ([$d[] | select(.replaced | not)]) as $kept
    | .details.disturbed = [$d[] | del(.metric)]
    | .details.notes = ((.details.notes // [])
        + [$d[] | select(.replaced) | "repeat \(.repeat) measured again: \(.reason) (the first measurement is in raw/ with '\(.tag)' in its files' names)"])
    | .warnings = ((.warnings // [])
        + if ($kept | length) == 0 then []
          else ["the verdict rests on disturbed repeat\(if ($kept | length) > 1 then "s" else "" end) \($kept | map(.repeat | tostring) | join(", ")) (\($kept | map(.reason) | warnings_merge("repeats") | map(sub(" \\(in [0-9]+ repeats\\)$"; "")) | join("; "))): measured again at most once each and at most REPEAT extra measurements a run"] end)
  end;
