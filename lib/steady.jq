# lib/steady.jq: the steady run (fio randrw at LOAD_RATE, shared by latency and errors) summed up
# from its raw files: fio's JSON and the cifs probe's counters. A jq module: include "steady".
include "verdict";
include "fio";

# steady_summary: the fio summary plus asked_iops, achieved_iops, requests, server_failed and
# reconnects (input: the raw files); null when fio gave no result.
def steady_summary:
  (.["steady.fio.json"] | if type == "object" then (fio_summary? // null) else null end) as $s
  | (.["steady.evidence.json"].probes.cifs // {}) as $c
  | def d($k): if ($c.before[$k] | type) == "number" and ($c.after[$k] | type) == "number" then $c.after[$k] - $c.before[$k] else null end;
    if $s == null then null
    else $s + {
      asked_iops: setting("LOAD_RATE"),
      achieved_iops: ($s.read.iops + $s.write.iops),
      requests: ($s.read.ios + $s.write.ios),
      server_failed: (if d("reads_failed") == null then null else d("reads_failed") + d("writes_failed") end),
      reconnects: (if d("session_reconnects") == null then null else d("session_reconnects") + d("share_reconnects") end)}
    end;

# steady_warnings($what): the warnings about the steady run (input: its summary; $what: what the
# metric measured, for the wording).
def steady_warnings($what):
  fio_warnings(1; $cpus) + [
    (if .achieved_iops < 0.95 * .asked_iops then "the steady run reached only \(.achieved_iops | round) of \(.asked_iops) requests/s (below 95 %): the client side could not keep the rate, so \($what) at a lower load than asked" else empty end),
    (if (.reconnects // 0) > 0 then "the kernel client reconnected \(.reconnects) time(s) during the steady run: the server stopped answering for a while" else empty end)
  ];
