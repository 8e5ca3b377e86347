# lib/steady.jq: the steady run (fio randrw at LOAD_RATE, shared by latency and errors) summed up
# from its raw files: fio's JSON and the cifs probe's counters. A jq module: include "steady".
include "verdict";
include "fio";
include "serverview";

# steady_summary: the fio summary plus asked_iops, achieved_iops, requests (fio's), and what the
# kernel client counted on the kit's share (cifs_counts): cifs_requests, server_failed,
# reconnects (this share's), host_reconnects (input: the raw files); null when fio gave no result.
def steady_summary:
  (.["steady.fio.json"] | if type == "object" then (fio_summary? // null) else null end) as $s
  | (cifs_counts(.["steady.evidence.json"]) // {}) as $c
  | if $s == null then null
    else $s + {
      asked_iops: setting("LOAD_RATE"),
      achieved_iops: ($s.read.iops + $s.write.iops),
      requests: ($s.read.ios + $s.write.ios),
      cifs_requests: $c.requests, server_failed: $c.server_failed,
      reconnects: $c.reconnects, host_reconnects: $c.host_reconnects,
      drop: drop_caches(.["steady.drop.json"])}
    end;

# steady_warnings($what): the warnings about the steady run (input: its summary; $what: what the
# metric measured, for the wording).
def steady_warnings($what):
  fio_warnings(1; $cpus) + [(.drop.warning // empty),
    (if .achieved_iops < 0.95 * .asked_iops then "the steady run reached only \(.achieved_iops | round) of \(.asked_iops) requests/s (below 95 %): the client side could not keep the rate, so \($what) at a lower load than asked" else empty end),
    (if (.reconnects // 0) > 0 then "the kernel client reconnected to the kit's share \(.reconnects) time(s) during the steady run: the server stopped answering for a while" else empty end)
  ];
