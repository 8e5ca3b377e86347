# lib/metrics/randwrite.jq: the randwrite verdict: 4 KiB IOPS >= TARGET_RANDWRITE_MIN_IOPS.
include "verdict";
include "format";
include "fio";

def verdict:
  row({unit: "IOPS", target: setting("TARGET_RANDWRITE_MIN_IOPS"), target_op: ">="};
    fio_judged("randwrite"; "write"; "iops"; setting("RANDOM_JOBS"); setting("TARGET_RANDWRITE_MIN_IOPS"); "IOPS is below \(setting("TARGET_RANDWRITE_MIN_IOPS"))")
    | . + {details: (.summary | if . == null then {} else
        {iops: .write.iops, bw_mbs: .write.bw_mbs, lat_ms: .write.lat_ms, fio_busy_pct: .busy_pct,
         jobs: setting("RANDOM_JOBS"), iodepth: setting("RANDOM_QUEUE_DEPTH"), block: "4 KiB", runtime_s,
         drop_caches: setting("DROP_CACHES")} end)}
    | del(.summary));
