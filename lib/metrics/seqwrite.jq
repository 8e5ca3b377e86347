# lib/metrics/seqwrite.jq: the seqwrite verdict: MB/s >= TARGET_SEQWRITE_MIN_MBS.
include "verdict";
include "format";
include "fio";

def verdict:
  row({unit: "MB/s", target: setting("TARGET_SEQWRITE_MIN_MBS"), target_op: ">="};
    fio_judged("seqwrite"; "write"; "bw_mbs"; setting("SEQ_STREAMS"); setting("TARGET_SEQWRITE_MIN_MBS"); "MB/s is below \(setting("TARGET_SEQWRITE_MIN_MBS")) MB/s")
    | . + {details: (.summary | if . == null then {} else
        {bw_mbs: .write.bw_mbs, iops: .write.iops, lat_ms: .write.lat_ms, fio_busy_pct: .busy_pct,
         streams: setting("SEQ_STREAMS"), iodepth: setting("SEQ_QUEUE_DEPTH"), block: "1 MiB", runtime_s,
         drop_caches: setting("DROP_CACHES")} end)}
    | del(.summary));
