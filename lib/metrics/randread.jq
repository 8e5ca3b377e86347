# lib/metrics/randread.jq: the randread verdict: 4 KiB IOPS >= TARGET_RANDREAD_MIN_IOPS.
include "run/verdict";
include "run/fio";

def verdict:
  row({unit: "IOPS", target: setting("TARGET_RANDREAD_MIN_IOPS"), target_op: ">=",
       charts: {files: "^randread\\.fio\\.json$", log: "iops"}, count: fio_count("randread"; "read")};
    fio_verdict("randread"; "read"; "iops"; "RANDOM_JOBS"; "RANDOM_QUEUE_DEPTH"; "4 KiB"; setting("TARGET_RANDREAD_MIN_IOPS"); "IOPS is below \(setting("TARGET_RANDREAD_MIN_IOPS"))"));
