# lib/metrics/seqwrite.jq: the seqwrite verdict: MB/s >= TARGET_SEQWRITE_MIN_MBS.
include "run/verdict";
include "run/fio";

def verdict:
  row({unit: "MB/s", target: setting("TARGET_SEQWRITE_MIN_MBS"), target_op: ">=",
       charts: {files: "^seqwrite\\.fio\\.json$", log: "bw"}, count: fio_count("seqwrite"; "write")};
    fio_verdict("seqwrite"; "write"; "bw_mbs"; "SEQ_STREAMS"; "SEQ_QUEUE_DEPTH"; "1 MiB"; setting("TARGET_SEQWRITE_MIN_MBS"); "MB/s is below \(setting("TARGET_SEQWRITE_MIN_MBS")) MB/s"));
