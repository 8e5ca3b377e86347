# lib/metrics/bigdir.jq: the bigdir verdict: how a lookup of a missing name grows with the folder:
# its median time in the largest folder over the smallest, at most TARGET_BIGDIR_GROWTH_MAX times.
include "run/verdict";
include "format";
include "run/serverview";
include "run/profile";

# the four kinds of operation smb-bigdir times, with their words
def bigdir_ops: [{k: "missing", t: "lookup of a missing name"}, {k: "othercase", t: "lookup of a name in another case"},
  {k: "create", t: "create"}, {k: "listing", t: "full listing, per entry"}];

# bigdir_ms($line; $k): the median time of one operation of kind $k in ms (a listing's per entry)
def bigdir_ms($line; $k):
  $line[$k].lat_ms.p50 as $p
  | if ($p | type) != "number" then null
    elif $k == "listing" then (if ($line.entries // 0) > 0 then $p / $line.entries else null end)
    else $p end;

# bigdir_from_note: with client hosts, where the one connection came from (lib/metrics/bigdir.sh).
def bigdir_from_note:
  client_host_names as $h
  | if ($h | length) == 0 then []
    else ["The connection was client host \($h[0])'s (the first of CLIENT_HOSTS), over its network: every time includes its round trip to the server."] end;

# bigdir_server($ev): smbd's counts of the commands a big folder costs, from one measurement
def bigdir_server($ev):
  ([{name: "x", ev: $ev}] | sv_server) as $s
  | if $s.available != true then null
    else [$s.commands[] | select(.samba | IN("find", "create", "close", "getinfo"))
      | {command, calls, mean_us, time_us}] end;

def verdict:
  row({unit: "×", target: setting("TARGET_BIGDIR_GROWTH_MAX"), target_op: "<=",
       target_text: "≤ \(setting("TARGET_BIGDIR_GROWTH_MAX"))× (a missing-name lookup, largest folder against smallest)"};
    . as $raw | setting("TARGET_BIGDIR_GROWTH_MAX") as $t
    | [$ENV.BIGDIR_SIZES // "" | splits("[[:space:]]+") | tonumber? | {n: ., line: $raw["bigdir.\(.).json"]}] as $sizes
    | ([$sizes[] | select((.line | type) != "object" or (.line.helper | not)) | .n]) as $none
    | if ($sizes | length) < 2 or ($none | length) > 0 then
        {status: "FAIL", value: null,
         why: "smb-bigdir gave no result for \(if ($none | length) > 0 then "the folder of \($none[0]) files" else "two folder sizes" end) (see raw/bigdir.*.err)"}
      else $sizes[0] as $lo | $sizes[-1] as $hi
        | (bigdir_ops | map(.k as $k | {key: $k,
            value: (bigdir_ms($lo.line; $k) as $a | bigdir_ms($hi.line; $k) as $b
              | if $a == null or $b == null or $a <= 0 then null else $b / $a end)}) | from_entries) as $growth
        | $growth.missing as $g
        | ([$sizes[] | select(.line.ok != true) | "the folder of \(.n) files: \(.line.error // "failed")"]) as $failed
        | ([$sizes[] | .n as $n | .line | ((.listing.errors // 0) + (.missing.errors // 0) + (.othercase.errors // 0) + (.create.errors // 0)) as $e
            | select($e > 0) | "\($e) operations failed in the folder of \($n) files (first: \(.first_error // "unknown"))"]) as $errors
        | ([$sizes[] | .line.opens // 0] | add) as $opens
        | ($raw | sv_evidence("bigdir") | sv_server) as $all
        | (if $all.available == true then
             profile_count_check("opens (SMB2 CREATE requests, every size)";
               $opens; ([$all.commands[] | select(.samba == "create") | .calls] | add // 0); sv_tolerance_pct)
           else null end) as $check
        | ([(if $g == null then "no missing-name lookup was timed in both \($lo.n) and \($hi.n) files"
            elif judge($g; "<="; $t) == "FAIL" then
              "a missing-name lookup took \($hi.line.missing.lat_ms.p50 | num) ms in \($hi.n) files, \($g | fixed(0))× its \($lo.line.missing.lat_ms.p50 | num) ms in \($lo.n) (target ≤ \($t)×)"
            else empty end)] + $failed + $errors) as $fails
        | {value: $g, status: (if ($fails | length) > 0 then "FAIL" else "PASS" end), why: ($fails | why_join),
           view: ["bigdir.\($hi.n)"], view_of: "the folder of \($hi.n) files (the largest)",
           details: ({
             growth: $growth,
             sizes: [$sizes[] | .n as $n | bigdir_server($raw["bigdir.\($n).evidence.json"]) as $sv | .line
               | def cmd($c): first(($sv // [])[] | select(.command == $c)) // null;
                 {files: $n, listed: .entries, listing_ms: .listing.lat_ms.p50, entries_per_s: .listing.entries_per_s,
                  missing_p50_ms: .missing.lat_ms.p50, missing_p99_ms: .missing.lat_ms.p99,
                  othercase_p50_ms: .othercase.lat_ms.p50, othercase_found: .othercase.found,
                  create_p50_ms: .create.lat_ms.p50, create_p99_ms: .create.lat_ms.p99,
                  ops: ((.missing.ops // 0) + (.othercase.ops // 0) + (.create.ops // 0)), errors,
                  smbd_find: cmd("Find").calls, smbd_find_ms: (cmd("Find").mean_us | if . == null then null else . / 1000 end),
                  smbd_create: cmd("Create").calls, smbd_create_ms: (cmd("Create").mean_us | if . == null then null else . / 1000 end)}],
             labels: {growth: "largest folder against the smallest (×)", sizes: "each folder size",
               files: "files", listed: "listed", listing_ms: "listing (ms)", entries_per_s: "entries/s",
               missing_p50_ms: "missing name p50 (ms)", missing_p99_ms: "missing name p99 (ms)",
               othercase_p50_ms: "other case p50 (ms)", othercase_found: "other case found",
               create_p50_ms: "create p50 (ms)", create_p99_ms: "create p99 (ms)", ops: "lookups and creates",
               smbd_find: "smbd Find calls", smbd_find_ms: "smbd ms per Find",
               smbd_create: "smbd Create calls", smbd_create_ms: "smbd ms per Create",
               missing: "missing name", othercase: "other case", listing: "listing per entry"},
             chart: {kind: "growth", title: "bigdir: time per operation against folder size",
               xlabel: "files in the folder", ylabel: "median ms per operation (a listing: per entry)", logx: true, logy: true,
               series: [bigdir_ops[] | .k as $k | {title: .t,
                 points: [$sizes[] | [.n, bigdir_ms(.line; $k)] | select(.[1] != null and .[1] > 0)]}
                 | select((.points | length) > 0)]},
             notes: (["Each size is its own folder of empty files made on the server's file system; the client works on one connection, one operation at a time: a missing-name lookup is one SMB2 CREATE that fails with \"not found\"; an other-case lookup and a create are a CREATE and a CLOSE; a listing opens the folder, asks for entries (QUERY_DIRECTORY) until there are no more, and closes it.",
                     "Windows names ignore case: where the share does too (Samba's default), a name that is not in the folder as written makes smbd read the whole folder before it can answer \"not found\" or create the file, so those costs grow with the folder."]
                    + bigdir_from_note)}
             + (if $check then {count_check: ($check | del(.warning))} else {} end)),
           warnings: [($check.warning // empty),
             ($sizes[] | select((.line.othercase.not_found // 0) > 0)
               | "the folder of \(.n) files: \(.line.othercase.not_found) names in another case were not found (a case-sensitive share)")]}
      end);
