# lib/metrics/latency.jq: the latency verdict: steady-run p99 of one request (all directions
# together) <= TARGET_LATENCY_P99_MAX_MS.
include "run/verdict";
include "format";
include "run/steady";

def verdict:
  row({unit: "ms", target: setting("TARGET_LATENCY_P99_MAX_MS"), target_op: "<=", charts: {files: "^steady\\.fio\\.json$"}, count: steady_count};
    steady_summary as $s
    | if $s == null then {status: "FAIL", value: null, why: "fio gave no result (see raw/steady.fio.log)"}
      else (if ($s.requests // 0) > 0 then $s.mixed.lat_ms.p99 // ([$s.read.lat_ms.p99, $s.write.lat_ms.p99] | max) else null end) as $sent
        | $s.due_lat_ms as $due
        # the verdict is on the latency from when each request was due (what a user waits);
        # without fio's histogram (an older run), on the latency from when fio sent it
        | (if ($s.requests // 0) > 0 and $due then $due.p99 else $sent end) as $p99
        | setting("TARGET_LATENCY_P99_MAX_MS") as $t
        | {value: $p99,
           why: (if ($s.requests // 0) == 0 then "no request completed in the steady run (fio counted 0 reads and writes): there is no latency to judge"
                 elif judge($p99; "<="; $t) == "PASS" then "" else "p99 \($p99 // 0 | num) ms is above \($t) ms" end),
           details: ($s | {lat_ms: (.mixed.lat_ms // null), due_lat_ms: $due, sent_p99_ms: $sent,
             read_lat_ms: .read.lat_ms, write_lat_ms: .write.lat_ms,
             asked_iops, achieved_iops, fio_busy_pct: .busy_pct, runtime_s,
             notes: (["Time per request: \(.latency)."]
               + (if $due then ["p99 from when each request was due on fio's schedule (\(.asked_iops) requests/s), not from when fio sent it: after a stall fio sends the requests that fell due back to back, so each of them is counted as waiting since its due time (HdrHistogram's expected-interval correction over fio's histogram; lat_ms are as sent)."]
                  else ["p99 as fio sent each request: this run has no fio histogram to count the waits of requests held back by a stall."] end))}),
           warnings: (($s | steady_warnings("the latency was measured"))
             + (if $due and $due.held_back > 0 and $sent != null and $due.p99 > 2 * $sent then
                 ["a stall: fio fell behind its schedule while requests took up to \($due.max | fixed(1)) ms, and \($due.held_back) requests fell due meanwhile; from when they were due p99 is \($due.p99 | fixed(1)) ms, from when fio sent them \($sent | fixed(2)) ms"]
               else [] end))}
      end);
