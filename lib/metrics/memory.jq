# lib/metrics/memory.jq: the memory verdict: PSS per held connection, MB (10^6 bytes) <=
# TARGET_MEMORY_PER_CONN_MAX_MB; with client hosts the merged hold line's (lib/run/clienthosts.jq),
# each host's share in a note.
include "run/verdict";
include "format";
include "run/clienthosts";

def verdict:
  row({unit: "MB", target: setting("TARGET_MEMORY_PER_CONN_MAX_MB"), target_op: "<="};
    .["memory.hold.json"] as $h | .["memory.pss-before.json"] as $a | .["memory.pss-during.json"] as $b
    | setting("TARGET_MEMORY_PER_CONN_MAX_MB") as $t | setting("MEMORY_CONNECTIONS") as $n
    | if ($h | type) != "object" or ($h.helper | not) then
        {status: "FAIL", value: null, why: "smb-hold gave no result within \(60 + ($n / 5 | floor)) s (see raw/memory.hold.err)"}
      elif ($h.held // 0) == 0 or ($b | type) != "object" then
        {status: "FAIL", value: null, why: "no connection could be held: \($h.first_error // $h.error // "?")"}
      else (($b.pss_kb - $a.pss_kb) * 1024 / $h.held / 1e6) as $v
        | [(if judge($v; "<="; $t) == "FAIL" then "\($v | num) MB of PSS per connection is above \($t) MB" else empty end),
           (if $h.held < $n then "only \($h.held) of \($n) connections could be held: \($h.first_error // "?")" else empty end)] as $fails
        | ($b.processes - $a.processes) as $dp
        | .["memory.settle.json"] as $settle
        | {value: $v, status: (if ($fails | length) > 0 then "FAIL" else "PASS" end), why: ($fails | why_join),
           warnings: (if ($settle.settled // true) == false then ["the smbd process count did not hold still before the baseline (\($settle.smbd_processes) after \($settle.waited_s) s): the PSS before may include clients of the metric before that were leaving"] else [] end),
           details: ({asked: $h.asked, held: $h.held, pss_before_kb: $a.pss_kb, pss_during_kb: $b.pss_kb,
             processes_before: $a.processes, processes_during: $b.processes, per_conn_mb: $v,
             rss_one_mb: (if $dp > 0 then ($b.rss_kb - $a.rss_kb) * 1024 / $dp / 1e6 else null end),
             max_rss_mb: ($b.max_rss_kb * 1024 / 1e6)}
             + (if $h.client_hosts then {client_hosts: $h.client_hosts, fairness: $h.fairness} else {} end)
             + {notes: (ch_note($h; "connections held") + ["The baseline is taken once the number of smbd processes held still (\(.["memory.settle.json"].waited_s // "?") s of waiting): clients of the metric before had left.", "MB here are decimal (10^6 bytes; the kernel's kB, shown for the totals, are KiB): reports before this rule gave MiB per connection, 4.6 % lower numbers.", "PSS divides shared memory between the processes that share it, so it adds up; RSS, what top shows, counts shared memory in every process. Plan RAM as connected clients x MB per connection, with twice that as headroom."])})}
      end);
