# lib/metrics/latency.jq: the latency verdict: steady-run p99 of one request (all directions
# together) <= TARGET_LATENCY_P99_MAX_MS.
include "verdict";
include "format";
include "steady";

def verdict:
  row({unit: "ms", target: setting("TARGET_LATENCY_P99_MAX_MS"), target_op: "<="};
    steady_summary as $s
    | if $s == null then {status: "FAIL", value: null, why: "fio gave no result (see raw/steady.fio.log)"}
      else (if ($s.requests // 0) > 0 then $s.mixed.lat_ms.p99 // ([$s.read.lat_ms.p99, $s.write.lat_ms.p99] | max) else null end) as $p99
        | setting("TARGET_LATENCY_P99_MAX_MS") as $t
        | {value: $p99,
           why: (if ($s.requests // 0) == 0 then "no request completed in the steady run (fio counted 0 reads and writes): there is no latency to judge"
                 elif judge($p99; "<="; $t) == "PASS" then "" else "p99 \($p99 // 0 | fixed(2)) ms is above \($t) ms" end),
           details: ($s | {lat_ms: (.mixed.lat_ms // null), read_lat_ms: .read.lat_ms, write_lat_ms: .write.lat_ms,
             asked_iops, achieved_iops, fio_busy_pct: .busy_pct, runtime_s,
             notes: ["Time per request: \(.latency)."]}),
           warnings: ($s | steady_warnings("the latency was measured"))}
      end);
