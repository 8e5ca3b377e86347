# lib/fio.jq: the key numbers of a fio JSON file and the warnings about a fio run, for the
# verdicts of the fio metrics. A jq module: include "fio".
include "verdict";
include "format";

# fio_summary: fio's JSON (the input) as one object: per direction (read, write, mixed) iops,
# bw_mbs, ios and lat_ms {p50,p95,p99,max,mean}; busy_pct (usr+sys of the fio jobs), errors
# (requests fio saw fail), runtime_s.
def fio_summary:
  def pct($p): (.clat_ns.percentile[$p] // null) | if . == null then null else . / 1e6 end;
  def dir: {
    iops: .iops, bw_mbs: (.bw_bytes / 1e6), ios: .total_ios,
    lat_ms: {p50: pct("50.000000"), p95: pct("95.000000"), p99: pct("99.000000"),
             max: (.lat_ns.max / 1e6), mean: (.lat_ns.mean / 1e6)}
  };
  .jobs[0] as $j
  | {read: ($j.read | dir), write: ($j.write | dir),
     mixed: (if $j.mixed then ($j.mixed | dir) else null end),
     busy_pct: (($j.usr_cpu // 0) + ($j.sys_cpu // 0)),
     errors: ($j.total_err // (if ($j.error // 0) != 0 then 1 else 0 end)),
     first_error: ($j.first_error // $j.error // 0),
     runtime_s: (($j.job_runtime // 0) / 1000)};

# fio_warnings($jobs; $cpus): the warnings about a fio run (input: its summary); the kernel
# client counts as one more client process beside the fio jobs.
def fio_warnings($jobs; $cpus): [
  (if .busy_pct >= 90 then "fio itself was \(.busy_pct | round) % busy: the client may be the limit, not smbd" else empty end),
  (if small_host($jobs + 1; $cpus) then "\($jobs) fio jobs, the kernel client and smbd shared \($cpus) CPUs: on so small a machine the client side may be the limit" else empty end)
];

# fio_verdict($name; $kind; $key; $jobs; $target; $why_unit): the body of a seq or rand verdict
# (input: the raw files): value $key ("bw_mbs" or "iops") of direction $kind from
# raw/$name.fio.json, FAIL below $target or when fio saw errors; details from the settings
# $jobs ("SEQ_STREAMS" or "RANDOM_JOBS") and $depth.
def fio_verdict($name; $kind; $key; $jobs; $depth; $block; $target; $why_unit):
  (.["\($name).fio.json"] | if type == "object" then (fio_summary? // null) else null end) as $s
  | if $s == null then {status: "FAIL", value: null, why: "fio gave no result (see raw/\($name).fio.log)"}
    else $s[$kind][$key] as $v
      | [(if $v == null or $v < $target then "\($v // 0 | fixed(0)) \($why_unit)" else empty end),
         (if $s.errors > 0 then "fio saw \($s.errors) failed requests" else empty end)] as $fails
      | {value: $v, status: (if ($fails | length) > 0 then "FAIL" else "PASS" end), why: ($fails | join("; ")),
         details: ({($key): $v} + (if $key == "bw_mbs" then {iops: $s[$kind].iops} else {bw_mbs: $s[$kind].bw_mbs} end)
           + {lat_ms: $s[$kind].lat_ms, fio_busy_pct: $s.busy_pct}
           + (if $jobs == "SEQ_STREAMS" then {streams: setting($jobs)} else {jobs: setting($jobs)} end)
           + {iodepth: setting($depth), block: $block, runtime_s: $s.runtime_s, drop_caches: setting("DROP_CACHES")}),
         warnings: ($s | fio_warnings(setting($jobs); $cpus))}
    end;
