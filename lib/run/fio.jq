# lib/run/fio.jq: the key numbers of a fio JSON file and the warnings about a fio run, for the
# verdicts of the fio metrics. A jq module: include "run/fio".
include "run/verdict";
include "format";
include "run/serverview";

# fio_cpu($name): smbd's CPU for fio run $name (input: the raw files): {used_us, over}, from the
# jobs' own readings around their I/O (raw/NAME.window-cpu.json, lib/run/fio.sh fio_run), else from
# the cgcpu probe around the whole fio command (its start, file set-up and exit too).
def fio_cpu($name):
  (.["\($name).window-cpu.json"] // {}) as $w
  | if ($w.available // false) then {used_us: $w.used_us, over: "the fio jobs' I/O (cgcpu as their exec_prerun and exec_postrun)"}
    else {used_us: used_us(.["\($name).evidence.json"]), over: "the whole fio command, its start and file set-up included"} end;

# fio_summary: fio's JSON (the input) as one object: per direction (read, write, mixed) iops,
# bw_mbs (decimal MB/s: 10^6 bytes, as fio's "MB/s"), ios and lat_ms {p50,p95,p99,max,mean};
# latency: which distribution lat_ms is; busy_pct (usr+sys of the fio jobs), errors (requests
# fio saw fail), runtime_s (the longest direction's runtime: wall time, not summed over jobs).
# All of lat_ms is total latency (lat_ns: submission to completion, the kit runs fio with
# --lat_percentiles=1); a file without lat_ns percentiles (older runs) falls back to completion
# latency (clat_ns) for the percentiles and says so in latency.
def fio_summary:
  .jobs[0] as $j
  | ([$j.read, $j.write, ($j.mixed // empty)] | any(.lat_ns.percentile != null)) as $total
  | (if $total then "lat_ns" else "clat_ns" end) as $pk
  | def pct($p): (.[$pk].percentile[$p] // null) | if . == null then null else . / 1e6 end;
    def dir: {
      iops: .iops, bw_mbs: (.bw_bytes / 1e6), ios: .total_ios,
      lat_ms: {p50: pct("50.000000"), p95: pct("95.000000"), p99: pct("99.000000"),
               max: (.lat_ns.max / 1e6), mean: (.lat_ns.mean / 1e6)}
    };
    {read: ($j.read | dir), write: ($j.write | dir),
     mixed: (if $j.mixed then ($j.mixed | dir) else null end),
     latency: (if $total then "total latency (fio lat_ns: from submitting a request until it completed), percentiles, mean and max alike"
               else "percentiles of completion latency (fio clat_ns), mean and max of total latency (lat_ns): a run made before --lat_percentiles=1" end),
     busy_pct: (($j.usr_cpu // 0) + ($j.sys_cpu // 0)),
     errors: ($j.total_err // (if ($j.error // 0) != 0 then 1 else 0 end)),
     first_error: ($j.first_error // $j.error // 0),
     runtime_s: (([$j.read.runtime, $j.write.runtime, ($j.mixed.runtime // 0)] | map(. // 0) | max) / 1000)};

# drop_caches($d): the page-cache drop of a measurement as the report shows it ($d: its
# raw/NAME.drop.json, null when none was asked): {text, warning (null when none)}.
def drop_caches($d):
  if $d == null then {text: (if setting("DROP_CACHES") == "yes" then "yes (not recorded)" else "no" end), warning: null}
  elif $d.done == true then {text: "yes", warning: null}
  else {text: "no: asked, but it failed (\($d.error // "?"))",
        warning: "DROP_CACHES=yes, but the page cache could not be dropped (\($d.error // "?")): the reads came from the server's page cache, not from disk"}
  end;

# fio_warnings($jobs; $cpus): the warnings about a fio run (input: its summary); the kernel
# client counts as one more client process beside the fio jobs.
def fio_warnings($jobs; $cpus): [
  (if .busy_pct >= 90 then "fio itself was \(.busy_pct | round) % busy: the client may be the limit, not smbd" else empty end),
  (if small_host($jobs + 1; $cpus) then "\($jobs) fio jobs, the kernel client and smbd shared \($cpus) CPUs: on so small a machine the client side may be the limit" else empty end)
];

# fio_client_note($ch; $kind; $key): with client hosts ($ch: raw/NAME.clients.json, else null), the
# note of each host's figure, the merge and the fairness line; [] without.
def fio_client_note($ch; $kind; $key):
  def n: if type == "number" then (. * 10 | round / 10 | tostring) else "?" end;
  if $ch == null then [] else
    (if $key == "bw_mbs" then "MB/s" else "IOPS" end) as $u
    | ["Client hosts (\($ch.client_hosts | length), through fio's client/server mode, each on its own cifs mount): "
       + ([$ch.client_hosts[] | "\(.host) \(if $key == "bw_mbs" then .[$kind].mb_per_s * 1.048576 else .[$kind].iops end | n) \($u)"
           + (if .[$kind].lat_ms.p95 != null then " (p95 \(.[$kind].lat_ms.p95 | n) ms)" else "" end)] | join(", "))
       + "; rates add, latency from the merged fio histograms. Fairness: min \($ch.fairness.min_iops | n), max \($ch.fairness.max_iops | n) IOPS per host, Jain's index \($ch.fairness.jain // "n/a"). \($ch.window)."]
  end;

# fio_count($name; $kind): the count a fio metric declares (its head's count, lib/run/serverview.jq
# sv_count) for fio run $name of direction $kind ("read" or "write"): fio's requests against
# smbd's Read or Write calls, as direct I/O of blocks no larger than the mount's rsize/wsize is
# one SMB2 request each; the kernel client's count (/proc/fs/cifs/Stats) goes beside them.
def fio_count($name; $kind):
  cifs_counts(.["\($name).evidence.json"]) as $cifs
  | {what: "\($kind)s (fio)", client: (.["\($name).fio.json"].jobs[0][$kind].total_ios? // null), smbd: [$kind],
     kernel: (if $cifs then $cifs[$kind + "s"] else null end)};

# fio_verdict($name; $kind; $key; $jobs; $target; $why_unit): the body of a seq or rand verdict
# (input: the raw files): value $key ("bw_mbs" or "iops") of direction $kind from
# raw/$name.fio.json, FAIL below $target or when fio saw errors; details from the settings
# $jobs ("SEQ_STREAMS" or "RANDOM_JOBS") and $depth.
def fio_verdict($name; $kind; $key; $jobs; $depth; $block; $target; $why_unit):
  (.["\($name).fio.json"] | if type == "object" then (fio_summary? // null) else null end) as $s
  | cifs_counts(.["\($name).evidence.json"]) as $cifs | drop_caches(.["\($name).drop.json"]) as $drop
  | (.["\($name).clients.json"] | if type == "object" then . else null end) as $ch
  | if $s == null then {status: "FAIL", value: null, why: "fio gave no result (see raw/\($name).fio.log)"}
    else $s[$kind][$key] as $v
      | [(if $v == null or $v < $target then "\($v // 0 | fixed(0)) \($why_unit)" else empty end),
         (if $s.errors > 0 then "fio saw \($s.errors) failed requests" else empty end)] as $fails
      | {value: $v, status: (if ($fails | length) > 0 then "FAIL" else "PASS" end), why: ($fails | join("; ")),
         details: ({($key): $v} + (if $key == "bw_mbs" then {iops: $s[$kind].iops} else {bw_mbs: $s[$kind].bw_mbs} end)
           + {lat_ms: $s[$kind].lat_ms, fio_busy_pct: $s.busy_pct}
           + (if $jobs == "SEQ_STREAMS" then {streams: setting($jobs)} else {jobs: setting($jobs)} end)
           + {iodepth: setting($depth), block: $block, runtime_s: $s.runtime_s, fio_errors: $s.errors}
           + (if $cifs then {cifs_requests: $cifs.requests, server_failed: $cifs.server_failed, reconnects: $cifs.reconnects} else {} end)
           + (if $ch then {client_hosts: $ch.client_hosts, fairness: $ch.fairness} else {} end)
           + {drop_caches: $drop.text, notes: (["Time per request: \($s.latency)."] + fio_client_note($ch; $kind; $key))}),
         warnings: (if $ch then [] else $s | fio_warnings(setting($jobs); $cpus) end + [$drop.warning // empty])}
    end;
