# lib/metrics/seqread.jq: the seqread verdict: MB/s >= TARGET_SEQREAD_MIN_MBS.
include "run/verdict";
include "run/fio";

def verdict:
  row({unit: "MB/s", target: setting("TARGET_SEQREAD_MIN_MBS"), target_op: ">=",
       charts: {files: "^seqread\\.fio\\.json$", log: "bw"}, count: fio_count("seqread"; "read")};
    fio_verdict("seqread"; "read"; "bw_mbs"; "SEQ_STREAMS"; "SEQ_QUEUE_DEPTH"; "1 MiB"; setting("TARGET_SEQREAD_MIN_MBS"); "MB/s is below \(setting("TARGET_SEQREAD_MIN_MBS")) MB/s"));
