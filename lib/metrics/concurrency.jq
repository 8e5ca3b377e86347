# lib/metrics/concurrency.jq: the concurrency verdict: the largest step that kept up, every
# smaller step keeping up too, >= TARGET_CONCURRENCY_MIN_CLIENTS.
include "run/verdict";
include "format";
include "run/fio";
include "run/series";
include "run/clienthosts";

# curve_chart($rows): IOPS and p99 against clients (lib/report/charts/curve.gp), the p99 target as a
# dashed line, the steps that did not keep up ringed; with repeats each repeat's steps as thin lines.
def curve_chart($rows):
  [$rows[] | select((.clients | type) == "number" and (.iops | type) == "number")
   | [.clients, (.iops | sig4), (.p99_ms | sig4), (if .kept_up == false then 0 else 1 end)]] as $d
  | {name: "curve", kind: "curve", title: "concurrency: IOPS and p99 against clients",
     vars: {target: setting("TARGET_LATENCY_P99_MAX_MS"), reps: 0, failed: ([$d[] | select(.[3] == 0)] | length),
            logx: (if ($d | length) > 0 and $d[0][0] > 0 and ($d | map(.[0]) | max) / ($d | map(.[0]) | min) >= 8 then 1 else 0 end)},
     data: $d, repeat: "rows"}
  + (if ($d | length) == 0 then {why: "no steps with IOPS"} else {} end);

# step($n): the row of the step of $n clients (input: the raw files).
def step($n):
  .["concurrency.\($n).json"] as $f | .["concurrency.\($n).evidence.json"] as $ev
  | setting("TARGET_LATENCY_P99_MAX_MS") as $max
  | if ($f | type) != "object" or ($f.helper | not) then
      {clients: $n, connected: null, errors: null, iops: null, p50_ms: null, p99_ms: null, kept_up: false,
       why: "smb-readers gave no result"}
    else ($f.connected // 0) as $c | ($f.errors // 0) as $e | ($f.lat_ms.p99 // null) as $p
      | helper_cpu($f; $ev; 0) as $cpu | ($ev.probes.smbdlog.fork_failed // 0) as $forks
      | {clients: $n, connected: $c, errors: $e, ops: ($f.ops // 0), iops: $f.rate_per_s, p50_ms: $f.lat_ms.p50, p99_ms: $p,
         per_client_iops: (if $f.per_client then "\($f.per_client.min_iops | round)-\($f.per_client.max_iops | round)" else null end),
         cpu_us: $cpu.used_us, cpu_per_read_us: $cpu.per_op_us,
         failed_p99_ms: (if $e > 0 then $f.err_lat_ms.p99 else null end),
         kept_up: ($c == $n and $e == 0 and $p != null and $p <= $max and $f.ok == true),
         why: ([(if $c < $n then "\($n - $c) of \($n) clients could not connect"
                  + (if $forks > 0 then ": fork() failed in log.smbd" elif $f.first_error then ": \($f.first_error)" else "" end)
                 else empty end),
               (if $e > 0 then "\($e) requests failed" + (if $f.first_error then ": \($f.first_error)" else "" end) else empty end),
               (if $p == null then "no latency measured" elif $p > $max then "p99 \($p | num) ms > \($max) ms"
                 + (closed_loop_why($c; "clients"; $f.rate_per_s; "reads/s"; "p99"; $max) | if . then " (\(.))" else "" end)
                else empty end),
               (if $f.ok != true and $f.error then $f.error else empty end)] | join("; "))}
      + (if $f.client_hosts then {client_hosts: ($f.client_hosts | map("\(.host) \(.connected // 0)") | join(", ")), jain: $f.fairness.jain}
         else {} end)
    end;

# step_line($n): "go|stop<TAB>what the step gave", for the progress line after a step.
def step_line($n):
  step($n)
  | "\(if .connected != null and .connected < .clients then "stop" else "go" end)\t"
    + "\(.connected // "?") connected, \(.iops // 0 | round) IOPS, p99 \(.p99_ms // "—" | num) ms: "
    + (if .kept_up then "kept up" else "did not keep up (\(.why))" end);

# concurrency_count($re): what concurrency declares for the server's count (lib/run/serverview.jq
# sv_count) of its steps whose names match $re: every read (late and failed ones too) is one
# Read call. Its head's count is of every step, its body's of the step the view is of.
def concurrency_count($re):
  {what: "reads", smbd: ["read"], client: (helper_lines($re) | helper_count(.ops, .late_ops, .errors))};

def verdict:
  row({unit: "clients", target: setting("TARGET_CONCURRENCY_MIN_CLIENTS"), target_op: ">=",
       charts: {files: "^concurrency\\.[0-9]+\\.json$"}, count: concurrency_count("concurrency(\\.[0-9A-Za-z]+)?")};
    . as $raw | setting("TARGET_CONCURRENCY_MIN_CLIENTS") as $t
    | [keys[] | capture("^concurrency\\.(?<n>[0-9]+)\\.json$").n | tonumber] | sort
    | map(. as $n | $raw | step($n)) as $rows
    | if ($rows | length) == 0 then {status: "FAIL", value: null, why: "no step could be measured"}
      else (first($rows[] | select(.kept_up | not)) // null) as $bad
        | ([$rows[] | select(.kept_up and ($bad == null or .clients < $bad.clients)) | .clients] | max // 0) as $best
        # the server view is of the step the verdict rests on: a pass on the largest step that
        # kept up, a fail on the first that did not (or, with none, on the largest tried)
        | (if judge($best; ">="; $t) != "PASS" and $bad then $bad.clients else ([$best, $rows[0].clients] | max) end) as $rest
        | {value: $best,
           view: ["concurrency.\($rest)"], count: ($raw | concurrency_count("concurrency\\.\($rest)")),
           view_of: ("the step of \($rest) client\(if $rest == 1 then "" else "s" end) alone, the one the verdict rests on ("
             + (if $bad and $rest == $bad.clients then "the first that did not keep up" else "the largest that kept up" end) + ")"),
           why: (if judge($best; ">="; $t) == "PASS" then ""
                 elif $bad then "the step of \($bad.clients) \("clients" | unit_at($bad.clients)) did not keep up: \($bad.why)"
                 else "the largest step tried (\($rows[-1].clients)) is below the target \($t)" end),
           details: {steps: $rows, p99_max_ms: setting("TARGET_LATENCY_P99_MAX_MS"), notes: (["A step keeps up when every client connected, no request failed and p99 <= \(setting("TARGET_LATENCY_P99_MAX_MS")) ms.", "Each step starts once the smbd processes are back to their number before the first step (the step before's clients have left), so its CPU is its own."]
             + (if any($rows[]; .client_hosts != null) then ["With client hosts each step's clients are split over them (client_hosts: each host's connected clients); rates add, latency from the merged histograms; jain: Jain's index of the hosts' rates."] else [] end)
             + if any($rows[]; (.errors // 0) > 0) then ["Failed and timed-out reads count as errors; p50_ms and p99_ms are the successful reads', failed_p99_ms the p99 of the failed ones."] else [] end)},
           charts: [curve_chart($rows)],
           warnings: ((if any($rows[]; .client_hosts != null) | not and small_host($rows | map(.clients) | max; $cpus) then
             ["the reader clients ran on the same \($cpus) CPUs as smbd: on so small a machine steps above \($cpus) clients measure the clients as much as smbd"] else [] end)
             + [drop_caches($raw["concurrency.drop.json"]).warning // empty]
             + [$raw | to_entries[] | select((.key | test("^concurrency\\.[0-9]+\\.settle\\.json$")) and .value.settled == false)
                | "before the step of \(.key | split(".")[1]) clients the test smbd still had \(.value.smbd_processes) processes (\(.value.max) before the first step) after \(.value.waited_s) s: the step before's clients were still leaving during its CPU window"])}
      end);
