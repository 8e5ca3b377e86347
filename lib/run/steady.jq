# lib/run/steady.jq: the steady run (fio randrw at LOAD_RATE, shared by latency and errors) summed up
# from its raw files: fio's JSON and the cifs probe's counters. A jq module: include "run/steady".
include "run/verdict";
include "run/fio";
include "run/serverview";

# due_latency($bins; $interval_ns): the latency from when each request was due, not from when
# fio sent it (coordinated omission). fio keeps a Poisson schedule with one request in flight
# and, after a stall, sends the requests that fell due during it back to back, each timed from
# its sending. HdrHistogram's correction (recordValueWithExpectedInterval, as wrk2 reports it)
# puts them back: a request that took L > I (I = 1/LOAD_RATE, the mean interval) stands for the
# requests due every I behind it, which waited L - I, L - 2I, ... down to I. $bins: fio's
# json+ histogram {"latency ns": count}. Output {p50, p95, p99, max (ms), requests (measured),
# counted (with the corrected ones), held_back (those added)}; null without bins.
def due_latency($bins; $interval_ns):
  if ($bins | type) != "object" or ($bins | length) == 0 or ($interval_ns | type) != "number" or $interval_ns <= 0 then null
  else [$bins | to_entries[] | {v: (.key | tonumber), c: .value}] as $b
    | $interval_ns as $i
    # the corrected values a bin stands for: itself, and m = floor((v - I) / I) values behind it
    | def extra($v): if $v >= 2 * $i then (($v - $i) / $i | floor) else 0 end;
      # how many corrected values are <= $x
      def count_le($x):
        [$b[] | .c * ((if .v <= $x then 1 else 0 end)
          + (extra(.v) as $m | if $m == 0 then 0
             else ($m - ([[(((.v - $x) / $i) | ceil) - 1, 0] | max, $m] | min)) end))] | add;
      ([$b[].c] | add) as $n
    | ([$b[] | .c * extra(.v)] | add) as $held
    | ($n + $held) as $total
    | ([$b[].v] | max) as $top
    # the smallest x (to 1 µs) with count_le(x) >= q * total: bisection, about 30 steps
    | def quantile($q):
        ($q * $total | ceil) as $want
        | {lo: 0, hi: $top} | until(.hi - .lo <= 1000; ((.lo + .hi) / 2 | floor) as $m
            | if count_le($m) >= $want then .hi = $m else .lo = $m end) | (.hi / 1e3 | floor) / 1e3;
      {p50: quantile(0.5), p95: quantile(0.95), p99: quantile(0.99), max: ($top / 1e6),
       requests: $n, counted: $total, held_back: $held}
  end;

# steady_summary: the fio summary plus asked_iops, achieved_iops, requests (fio's), and what the
# kernel client counted on the kit's share (cifs_counts): cifs_requests, server_failed,
# reconnects (this share's), host_reconnects (input: the raw files); null when fio gave no result.
def steady_summary:
  (.["steady.fio.json"] | if type == "object" then (fio_summary? // null) else null end) as $s
  | (cifs_counts(.["steady.evidence.json"]) // {}) as $c
  | if $s == null then null
    else $s + {
      asked_iops: setting("LOAD_RATE"),
      due_lat_ms: (.["steady.fio.json"].jobs[0] as $j
        | due_latency(($j.mixed // {}).lat_ns.bins // null; 1e9 / (setting("LOAD_RATE") // 0))),
      achieved_iops: ($s.read.iops + $s.write.iops),
      requests: ($s.read.ios + $s.write.ios),
      cifs_requests: $c.requests, server_failed: $c.server_failed,
      reconnects: $c.reconnects, host_reconnects: $c.host_reconnects,
      drop: drop_caches(.["steady.drop.json"])}
    end;

# steady_count: the count latency and errors declare (their heads' count, lib/run/serverview.jq
# sv_count; input: the raw files): fio's reads and writes of the steady run against smbd's Read
# and Write calls, the kernel client's count beside them.
def steady_count:
  cifs_counts(.["steady.evidence.json"]) as $cifs
  | {what: "reads and writes (fio)", client: ([.["steady.fio.json"].jobs[]? | (.read.total_ios // 0) + (.write.total_ios // 0)] | add),
     smbd: ["read", "write"], kernel: (if $cifs and $cifs.reads != null then $cifs.reads + $cifs.writes else null end)};

# steady_warnings($what): the warnings about the steady run (input: its summary; $what: what the
# metric measured, for the wording).
def steady_warnings($what):
  fio_warnings(1; $cpus) + [(.drop.warning // empty),
    (if .achieved_iops < 0.95 * .asked_iops then "the steady run reached only \(.achieved_iops | round) of \(.asked_iops) requests/s (below 95 %): the client side could not keep the rate, so \($what) at a lower load than asked" else empty end),
    (if (.reconnects // 0) > 0 then "the kernel client reconnected to the kit's share \(.reconnects) time(s) during the steady run: the server stopped answering for a while" else empty end)
  ];
