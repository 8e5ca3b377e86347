# lib/metrics/cpu.jq: the cpu verdict: smbd CPU per 4 KiB read <= TARGET_CPU_PER_READ_MAX_US, with
# per GB read and per login beside it. Each figure from the CPU evidence of the run it is about.
include "run/verdict";
include "format";
include "metrics/login";
include "run/fio";

# why_not($run): why run $run (randread, seqread) gave the cpu metric nothing (input: raw files).
def why_not($run):
  .["cpu.plan.json"].fio_skip as $f
  | if $f then "\($run) could not run here (\($f))" else "\($run) was not part of this run" end;

# per_read: {per_read_us, reads, cpu_us, method, run} from randread, else from cpu.readers; or null.
def per_read:
  (.["randread.fio.json"].jobs[0].read.total_ios? // null) as $n | fio_cpu("randread") as $fc | $fc.used_us as $u
  | (.["cpu.readers.json"] // {}) as $r | helper_cpu($r; .["cpu.readers.evidence.json"]; 0) as $ru
  | if $n != null and $n > 0 and $u != null then
      {per_read_us: per_op($u; $n), reads: $n, cpu_us: $u, method: "the randread run (fio through the cifs mount; smbd CPU over \($fc.over))", run: "randread"}
    elif $r.ok == true and ($r.ops // 0) > 0 and $ru.used_us != null then
      {per_read_us: $ru.per_op_us, reads: $ru.ops, cpu_us: $ru.used_us,
       method: "a run of its own with 4 smb-readers clients (4 KiB random reads over libsmbclient\(if ($r.client_hosts | type) == "array" then ", split over \($r.client_hosts | length) client hosts: \([$r.client_hosts[] | "\(.host) \(.clients // 0)"] | join(", "))" else "" end); smbd CPU over \($ru.over)), because \(why_not("randread"))",
       run: "cpu.readers"}
    else null end;

# per_gb: {per_gb_ms, gb, cpu_us} from the seqread run, or {per_gb_ms: null, why}.
def per_gb:
  ((.["seqread.fio.json"].jobs[0].read.io_bytes? // 0) / 1e9) as $gb | fio_cpu("seqread").used_us as $u
  | if $gb > 0 and $u != null then {per_gb_ms: ($u / 1000 / $gb), gb: $gb, cpu_us: $u}
    else {per_gb_ms: null, why: "not measured: \(why_not("seqread"))"} end;

def verdict:
  row({unit: "µs", target: setting("TARGET_CPU_PER_READ_MAX_US"), target_op: "<="};
    per_read as $r | per_gb as $g | setting("TARGET_CPU_PER_READ_MAX_US") as $t
    | (if .["login.json"] then per_login_ms(.["login.json"]; .["login.evidence.json"])
       else per_login_ms(.["cpu.login.json"]; .["cpu.login.evidence.json"]) end) as $l
    | if $r == null then
        {status: "SKIP", value: null, why: "no read run could be measured here (\(.["cpu.plan.json"].fio_skip // "randread gave no result"))"}
      else
        {value: $r.per_read_us,
         view: [$r.run], view_of: "\(if $r.run == "randread" then "the randread run" else "cpu's own smb-readers run" end) alone, the one CPU per read comes from",
         why: (if judge($r.per_read_us; "<="; $t) == "PASS" then "" else "\($r.per_read_us | num) µs of smbd CPU per 4 KiB read is above \($t) µs" end),
         details: {per_read_us: $r.per_read_us, reads: $r.reads, per_gb_ms: $g.per_gb_ms, per_login_ms: $l,
           cpu_source: ((.["randread.evidence.json"] // .["cpu.readers.evidence.json"]).probes.cgcpu.source // ""),
           notes: (["CPU per read measured on \($r.method)."]
             + (if $g.why then ["CPU per GB: \($g.why)."] else [] end)
             + ["Cores needed = requests per second x µs per request / 1,000,000."])},
         warnings: [drop_caches(.["randread.drop.json"] // .["cpu.readers.drop.json"]).warning // empty]}
      end);
