# lib/repeat.jq: one result row from its repeats (lib/repeat.sh). A jq module: include "repeat".
# Input of combine: the row's metric objects, one per repeat in run order (null for a repeat
# that did not run). $per_s: [[label, [ops in each second...]]...] from the repeats' helper lines.
# Output: one metric object (docs/CONTRACTS.md) whose value is the median of the repeats, with
#   repeats: [v1, ...]            every repeat's value in run order (null: nothing measured)
#   spread: {n, median, min, max, spread_pct}   spread_pct = (max - min) / 2 / |median| * 100
#   unsure: true                  when the target lies inside min-max or the repeats' verdicts differ
#   details.repeats: [{repeat, value, status, why}] and details.figures: [{figure, median, min,
#   max, spread_pct}] for every number of details that is not the same in all repeats, and the
#   per-second rates; the other details are those of the repeat nearest the median.
include "verdict";
include "format";

# median: of an array of numbers (the mean of the two middle ones for an even count); null if empty.
def median:
  sort | if length == 0 then null
         elif length % 2 == 1 then .[length / 2 | floor]
         else (.[length / 2 - 1] + .[length / 2]) / 2 end;

# spread: {n, median, min, max, spread_pct} of an array of numbers.
def spread:
  median as $m
  | {n: length, median: $m, min: min, max: max,
     spread_pct: (if $m == null or $m == 0 then null else ((max - min) / 2 / ($m | fabs) * 100) end)};

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
     | {figure: ($p | figure_name)} + ($v | spread | del(.n))];

# per_s_figures: a row for each per-second series, over every second of every repeat.
def per_s_figures:
  [group_by(.[0])[] | {figure: "\(.[0][0]) per second", values: [.[][1][] | numbers]}
   | select(.values | length > 0)
   | {figure} + (.values | spread | del(.n))];

def combine($per_s):
  . as $all
  | [$all[] | select(. != null)] as $r
  | if ($r | length) == 0 then null
    elif all($r[]; .status == "SKIP") then $r[0]
    else
      $r[0] as $first
      | [$all[] | if . == null then null else .value end] as $values
      | ([$values[] | numbers] | if length > 0 then spread else null end) as $s
      | ($s.median // null) as $med
      | ([$r[] | select(.value | type == "number")]
         | if length == 0 then $first else min_by((.value - $med) | fabs) end) as $rep
      | ([$r[] | select(.status == "PASS")] | length) as $passed
      # a metric without a target (localdisk) is judged by its repeats' own verdicts
      | (if $first.target == null then (if $passed * 2 > ($r | length) then "PASS" else "FAIL" end)
         else judge($med; $first.target_op; $first.target) end) as $on_median
      | ([$r[] | .status] | unique) as $statuses
      | (if $on_median == "FAIL" then "FAIL" elif $passed * 2 > ($r | length) then "PASS" else "FAIL" end) as $status
      | ($s != null and $first.target != null and $s.min <= $first.target and $first.target <= $s.max) as $inside
      | {metric: $first.metric, status: $status, value: $med, unit: $first.unit, target: $first.target,
         target_op: $first.target_op,
         why: (if $status == "PASS" then ""
               elif $on_median == "FAIL" then
                 (if $med == null then ([$r[] | .why | select(. != "")][0] // "nothing was measured")
                  else "the median \($med | num) \($first.unit // "") is on the wrong side of the target" end)
                 + ([$r[] | select(.status == "FAIL") | .why | select(. != "")][0] | if . then " (\(.))" else "" end)
               else "\(($r | length) - $passed) of \($r | length) repeats failed: "
                 + ([$r[] | select(.status == "FAIL") | .why | select(. != "")][0] // "?") end),
         details: (($rep.details // {})
           + {repeats: [range(0; $all | length) as $k | $all[$k] | select(. != null)
                        | {repeat: ($k + 1), value, status, why}],
              figures: (figures([$r[] | .details // {}]) + ($per_s | per_s_figures))}),
         warnings: ([$r[] | .warnings // [] | .[]] | warnings_merge("repeats")
           + (if $inside then ["the target \($first.target | num) lies inside the repeats' range \($s.min | num)-\($s.max | num): the verdict is unsure; more repeats or a longer DURATION tell"]
              elif ($statuses | length) > 1 then ["the repeats' verdicts differ (\($statuses | join(", "))): the verdict is unsure"]
              else [] end))}
      + (if $first.target_text then {target_text: $first.target_text} else {} end)
      + {repeats: $values, spread: $s}
      + (if $inside or ($statuses | length) > 1 then {unsure: true} else {} end)
      + (if any($r[]; .elapsed_s != null) then {elapsed_s: ([$r[] | .elapsed_s // 0] | add)} else {} end)
    end;

# disturbed_mark($d): a combined row with what lib/repeat.sh recorded of its disturbed repeats
# ($d: [{repeat, reason, replaced[, tag, kept]}], other processes took CPU during them): the
# records in details.disturbed, a note for each repeat measured again ("repeat 2 measured
# again: other processes used 1.2 of 2 cores during login"), and a warning when the verdict
# still rests on a disturbed repeat (the extra measurements were used up, or it was disturbed again).
def disturbed_mark($d):
  if ($d | length) == 0 then .
  else ($d | sort_by(.repeat)) as $d
    | ([$d[] | select(.replaced | not)]) as $kept
    | .details.disturbed = [$d[] | del(.metric)]
    | .details.notes = ((.details.notes // [])
        + [$d[] | select(.replaced) | "repeat \(.repeat) measured again: \(.reason) (the first measurement is in raw/ with '\(.tag)' in its files' names)"])
    | .warnings = ((.warnings // [])
        + if ($kept | length) == 0 then []
          else ["the verdict rests on disturbed repeat\(if ($kept | length) > 1 then "s" else "" end) \($kept | map(.repeat | tostring) | join(", ")) (\($kept | map(.reason) | unique | join("; "))): measured again at most once each and at most REPEAT extra measurements a run"] end)
  end;
