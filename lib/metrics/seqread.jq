# lib/metrics/seqread.jq: the seqread verdict: MB/s >= TARGET_SEQREAD_MIN_MBS.
include "verdict";
include "format";
include "fio";

def verdict:
  row({unit: "MB/s", target: setting("TARGET_SEQREAD_MIN_MBS"), target_op: ">="};
    fio_judged("seqread"; "read"; "bw_mbs"; setting("SEQ_STREAMS"); setting("TARGET_SEQREAD_MIN_MBS"); "MB/s is below \(setting("TARGET_SEQREAD_MIN_MBS")) MB/s")
    | . + {details: (.summary | if . == null then {} else
        {bw_mbs: .read.bw_mbs, iops: .read.iops, lat_ms: .read.lat_ms, fio_busy_pct: .busy_pct,
         streams: setting("SEQ_STREAMS"), iodepth: setting("SEQ_QUEUE_DEPTH"), block: "1 MiB", runtime_s,
         drop_caches: setting("DROP_CACHES")} end)}
    | del(.summary));
