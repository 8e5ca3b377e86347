# lib/metrics/localdisk.jq: the localdisk verdict: the local fio jobs' figures beside Samba's
# (the seqwrite ... randwrite metrics' fio files of the same run, where they ran). No target:
# PASS when every local job gave a result; the value is how many did.
include "run/verdict";
include "run/fio";
include "run/baseline";
include "format";
include "run/series";

# localdisk_samba($job): Samba's figure of $job in this run (MB/s or IOPS), or null.
def localdisk_samba($job):
  .["\($job).fio.json"]
  | if type == "object" then (fio_summary? // null) else null end
  | if . == null then null
    elif ($job | startswith("seq")) then .[$job | ltrimstr("seq")].bw_mbs
    else .[$job | ltrimstr("rand")].iops end;

def verdict:
  row({unit: "local jobs", target: null, target_op: null, target_text: "none (a baseline for reading)"};
    . as $raw
    | [("seqwrite", "seqread", "randread", "randwrite") as $j
       | $raw["localdisk.\($j).json"] | select(type == "object")
       | (baseline_vs($raw | localdisk_samba($j))) + {job: $j, ok: (.ok == true), err: .why, fs: .fs_type}] as $rows
    | if ($rows | length) == 0 then {status: "FAIL", value: null, why: "no local fio job gave a result"}
      else
        {value: ([$rows[] | select(.ok)] | length),
         status: (if all($rows[]; .ok) then "PASS" else "FAIL" end),
         why: ([$rows[] | if .ok then "\(.job) \(.local | fixed(if . >= 100 then 0 else 1 end)) \(.unit)"
                  else "\(.job): \(.err // "no result")" end] | why_join),
         details: {
           jobs: [$rows[] | {job, local_disk: .local, unit, samba: .samba,
             samba_pct: (if .samba_pct == null then null else (.samba_pct | round) end),
             direct_io: .direct, file_system: .fs}],
           notes: [$rows[] | "\(.job): \(.text)"
             + (if .samba == null then "; Samba: not measured in this run" else "" end) + "."]},
         charts: [bars_chart("baseline"; "localdisk: Samba as % of the local disk"; "% of the local disk's figure (the same fio job)";
           [$rows[] | select((.samba | type) == "number" and (.local | type) == "number" and .local > 0) | [.job, (.samba * 100 / .local)]];
           "no fio job was measured both through Samba and on the local disk in this run")]}
      end);
