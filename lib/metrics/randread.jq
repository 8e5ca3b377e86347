# lib/metrics/randread.jq: the randread verdict: 4 KiB IOPS >= TARGET_RANDREAD_MIN_IOPS.
include "verdict";
include "format";
include "fio";

def verdict:
  row({unit: "IOPS", target: setting("TARGET_RANDREAD_MIN_IOPS"), target_op: ">="};
    fio_judged("randread"; "read"; "iops"; setting("RANDOM_JOBS"); setting("TARGET_RANDREAD_MIN_IOPS"); "IOPS is below \(setting("TARGET_RANDREAD_MIN_IOPS"))")
    | . + {details: (.summary | if . == null then {} else
        {iops: .read.iops, bw_mbs: .read.bw_mbs, lat_ms: .read.lat_ms, fio_busy_pct: .busy_pct,
         jobs: setting("RANDOM_JOBS"), iodepth: setting("RANDOM_QUEUE_DEPTH"), block: "4 KiB", runtime_s,
         drop_caches: setting("DROP_CACHES")} end)}
    | del(.summary));
