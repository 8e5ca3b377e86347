# lib/metrics/metadata.jq: the metadata verdict: files created per second >= TARGET_METADATA_MIN_FPS;
# with client hosts the merged line's (lib/run/clienthosts.jq), and each host's figure in a note.
include "run/verdict";
include "format";
include "run/clienthosts";

# metadata_count: what metadata declares for the server's count (its head's count,
# lib/run/serverview.jq sv_count): with files of at least 1 byte, every file created (late ones too)
# is one Write call; null with empty files.
def metadata_count:
  if (($ENV.SMALL_FILE_KB // "0") | tonumber? // 0) > 0 then
    {what: "files written", smbd: ["write"], client: (helper_lines("metadata(\\.[0-9A-Za-z]+)?") | helper_count(.create.ops, .late_ops))}
  else null end;

def verdict:
  row({unit: "files/s", target: setting("TARGET_METADATA_MIN_FPS"), target_op: ">=", charts: {files: "^metadata\\.json$"}, count: metadata_count};
    .["metadata.json"] as $f | setting("TARGET_METADATA_MIN_FPS") as $t
    | if ($f | type) != "object" or ($f.helper | not) then
        {status: "FAIL", value: null, why: "smb-files gave no result (see raw/metadata.err)"}
      else ($f.create.rate_per_s // 0) as $rate
        | [(if judge($rate; ">="; $t) == "FAIL" then "\($rate | num) \("files/s" | unit_at($rate)) is below \($t)" else empty end),
           (if $f.ok != true then "the test failed: \($f.error // "unknown error")" else empty end),
           (if (($f.create.errors // 0) + ($f.delete.errors // 0)) > 0 then "\($f.create.errors) creates and \($f.delete.errors) deletes failed" else empty end)] as $fails
        | {value: $rate, status: (if ($fails | length) > 0 then "FAIL" else "PASS" end), why: ($fails | why_join),
           details: ($f | {workers, file_kb: setting("SMALL_FILE_KB"), create, delete, files_per_folder, left_behind}
             + (if .client_hosts then {client_hosts, fairness} else {} end)
             + failed_times($f)
             + {notes: (["Creating a file costs more the bigger its folder is; compare only runs with the same DURATION.",
                     "The delete rate counts from each worker's first delete to the last (earlier versions of the kit counted from the end of the create phase, which made it too low)."]
                     + ch_note($f; "files/s")
                     + if ($f.errors // 0) > 0 then ["Failed and timed-out creates count as errors; their times are not in create.lat_ms but beside it, in err_lat_ms (failed deletes are counted in delete.errors, without their times)."] else [] end)}),
           warnings: [
             (if ($f.left_behind // 0) > 0 then "\($f.left_behind) files could not be deleted (removed by the kit afterwards)" else empty end),
             (if $f.client_hosts == null and small_host(setting("WORKERS"); $cpus) then "\($f.workers) client processes shared \($cpus) CPUs with smbd: on so small a machine the clients may be the limit" else empty end)]}
      end);
