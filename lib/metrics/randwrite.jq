# lib/metrics/randwrite.jq: the randwrite verdict: 4 KiB IOPS >= TARGET_RANDWRITE_MIN_IOPS.
include "run/verdict";
include "run/fio";

def verdict:
  row({unit: "IOPS", target: setting("TARGET_RANDWRITE_MIN_IOPS"), target_op: ">=",
       charts: {files: "^randwrite\\.fio\\.json$", log: "iops"}, count: fio_count("randwrite"; "write")};
    fio_verdict("randwrite"; "write"; "iops"; "RANDOM_JOBS"; "RANDOM_QUEUE_DEPTH"; "4 KiB"; setting("TARGET_RANDWRITE_MIN_IOPS"); "IOPS is below \(setting("TARGET_RANDWRITE_MIN_IOPS"))"));
