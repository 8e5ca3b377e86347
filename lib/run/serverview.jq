# lib/run/serverview.jq: the server's view of one metric, from the evidence files of its measurements
# (docs/server-view.md): smbd's per-command table (probe 'profile'), client against server CPU
# (probes 'clientcpu' and 'cgcpu'), and the client's count against the server's. Definitions
# only; lib/run/verdict.jq's row adds serverview to every measured metric's object.
include "run/profile";
include "run/clientcpu";
include "format";

# How far the server's count may be from the client's before the report warns, in percent.
def sv_tolerance_pct: 1;

# sv_evidence($metric; $view): the evidence objects (input: the raw files) of the measurements
# named in $view (an array: the verdict's own choice, e.g. the one step of several it rests
# on), else of the metric's own measurements (raw/METRIC.evidence.json,
# raw/METRIC.SUB.evidence.json), else of every measurement it reads (latency and errors: the
# steady run), in name order.
def sv_evidence($metric; $view):
  [to_entries[] | select(.key | endswith(".evidence.json")) | select(.value | type == "object")
    | {name: (.key | rtrimstr(".evidence.json")), ev: .value}] | sort_by(.name) as $all
  | if ($view | type) == "array" then [$all[] | select(.name as $n | $view | index([$n]))]
    else [$all[] | select(.name == $metric or (.name | startswith("\($metric)."))) ] as $own
      | if ($own | length) > 0 then $own else $all end
    end;
def sv_evidence($metric): sv_evidence($metric; null);

# sv_server: the evidence list -> details.server: the per-command diffs of all measurements
# added up: {available, why, level, measurements, commands: [{command, calls, mean_us, time_us,
# share, bytes_in, bytes_out (the SMB2 bytes smbd received and sent for it, headers included),
# samba (smbd's counter name)}], calls, time_us, connects, disconnects}; commands most server
# time first.
def sv_server:
  [.[] | .ev.probes.profile // {available: false, reason: "no profile probe"}] as $p
  | if ($p | length) == 0 then {available: false, why: "no measurement"}
    elif any($p[]; .available != true) then
      {available: false, why: (first($p[] | select(.available != true)) | .reason // "no counters")}
    else
      ($p | map(.level) | if all(.[]; . == "on") then "on" else "count" end) as $level
      | [$p[].commands[]] | group_by(.command)
      | map({command: .[0].command, calls: (map(.calls) | add),
             time_us: (if $level == "on" then (map(.time_us // 0) | add) else null end),
             bytes_in: (map(.bytes_in // 0) | add), bytes_out: (map(.bytes_out // 0) | add)}) as $cmds
      | ([$cmds[].time_us // 0] | add // 0) as $total
      | {available: true, level: $level, measurements: ($p | length),
         commands: ($cmds
           | map({command: (.command | profile_label), calls,
                  mean_us: (if .time_us == null then null else .time_us / .calls end), time_us,
                  share: (if .time_us == null or $total == 0 then null else .time_us / $total end),
                  bytes_in, bytes_out, samba: .command})
           | sort_by(-(.time_us // 0), -.calls)),
         calls: ([$cmds[].calls] | add // 0), time_us: (if $level == "on" then $total else null end),
         connects: ([$p[].connects] | add), disconnects: ([$p[].disconnects] | add)}
    end;

# sv_cpu: the evidence list -> details.cpu: client, smbd and other processes' CPU over all the
# metric's measurements (cores = CPU seconds per wall second; share = of all cores), plus one
# split per measurement for the warnings.
def sv_cpu:
  [.[] | {name, split: (.ev | clientcpu_split)}] as $s
  | if ($s | length) == 0 then {available: false, why: "no measurement"}
    elif any($s[]; .split.available != true) then
      {available: false, why: (first($s[] | select(.split.available != true)) | .split.reason // "no data")}
    else
      ([$s[].split.wall_s] | add) as $w | ($s[0].split.nproc) as $n
      | def part($k): ([$s[].split | .[$k].cores * .wall_s] | add) as $cpu_s
          | {cpu_s: $cpu_s, cores: ($cpu_s / $w), share: ($cpu_s / $w / $n)};
      (part("client") + {source: $s[0].split.client.source}) as $c
      | (part("server") + {source: $s[0].split.server.source}) as $sv
      | part("machine") as $m
      | ([$m.cores - $c.cores - $sv.cores, 0] | max) as $o
      | {available: true, wall_s: $w, nproc: $n, client: $c, server: $sv, machine: $m,
         others: {cores: $o, share: ($o / $n)}, runs: [$s[] | {name, split}]}
    end;

# cifs_counts($ev): what the kernel client counted on the kit's share during a measurement
# (the cifs probe of evidence $ev): {requests (SMBs sent), reads, writes, server_failed,
# reconnects (of this share: TREE_CONNECTs sent again), host_reconnects (every cifs mount of
# the host: the kernel counts session and share reconnects only in total)}; null without it.
def cifs_counts($ev):
  ($ev.probes.cifs // {}) as $c
  | def d($k): if ($c.before[$k] | type) == "number" and ($c.after[$k] | type) == "number" then $c.after[$k] - $c.before[$k] else null end;
    if ($c.available // false) | not then null
    else {requests: d("requests"), reads: d("reads"), writes: d("writes"),
          server_failed: (if d("reads_failed") == null then null else d("reads_failed") + d("writes_failed") end),
          reconnects: d("tree_connects"),
          host_reconnects: (if d("session_reconnects") == null then null else d("session_reconnects") + d("share_reconnects") end)}
    end;

# sv_count($server; $count): what the client said it did against what smbd counted (docs/server-view.md:
# checked on a real smbd). $count is the metric's declaration (docs/CONTRACTS.md section 6, the
# key count of its verdict's head or body): {what (words), client (its count: a number, else
# there is no check), smbd (the SMB2 commands whose calls must add up to it, by smbd's counter
# names, ["read", "write"]; or "connects"), kernel (optional: the kernel client's count, shown
# beside)}. null without a declaration, a client count or the server's counters.
def sv_count($server; $count):
  if ($server.available | not) or ($count | type) != "object" or ($count.client | type) != "number" then null
  else
    (if $count.smbd == "connects" then $server.connects
     else [$server.commands[] | select(.samba as $s | $count.smbd | index([$s])) | .calls] | add // 0 end) as $n
    | profile_count_check($count.what; $count.client; $n; sv_tolerance_pct)
      + (if $count | has("kernel") then {kernel: $count.kernel} else {} end)
  end;

# serverview($metric; $view; $of; $count): the raw files -> {details: {server, cpu[, count_check]},
# warnings: [...]}, of the measurements $view names (null: sv_evidence's rule); $of says in
# words which they are (details.server.of, e.g. "the step of 16 clients, ..."; details.server.view
# the names), or null; $count: the metric's declared count (sv_count), or null. The
# warnings are of all the metric's measurements.
def serverview($metric; $view; $of; $count):
  . as $raw
  | sv_evidence($metric; $view) as $evs
  | if ($evs | length) == 0 then {details: {}, warnings: []} else
    ($evs | sv_server | if $of and .available then .of = $of | .view = $view else . end) as $server
  | ($evs | sv_cpu) as $cpu
  | sv_count($server; $count) as $check
  | {details: ({server: $server, cpu: ($cpu | del(.runs))}
       + (if $check then {count_check: ($check | del(.warning))} else {} end)),
     # the client-CPU warnings of every measurement of the metric, not only of the view's
     warnings: ([($check.warning // empty)]
       + (if $view == null then $cpu else sv_evidence($metric) | sv_cpu end
          | if .available then [.runs[] | .name as $n | .split | clientcpu_warnings($n)[]] else [] end))}
    end;
def serverview($metric): serverview($metric; null; null; null);

# sv_top: the commands the report's server view lists one by one, most server time first; the
# others share one row (results.json has each).
def sv_top: 6;

# sv_server_md: details.server -> the report's "Server view" lines (a string).
# sv_mb: bytes as decimal MB for the table ("12.3", "0.004", "–" when not counted).
def sv_mb: if . == null then "–" else . / 1e6 | num end;

def sv_server_md:
  if . == null then "server view: not available (not recorded)"
  elif .available != true then "server view: not available (\(.why // "no counters"))"
  elif (.commands | length) == 0 then "server view: smbd counted no SMB2 command during this run"
  else
    ((if .of then ["Of \(.of):", ""] else [] end) + [
      "| command | calls | mean server time | share of the server's time | MB in | MB out |",
      "|---|---:|---:|---:|---:|---:|",
      (.commands[:sv_top][] | "| \(.command) | \(.calls) | \(.mean_us | profile_us) | \(.share | profile_pct) | \(.bytes_in | sv_mb) | \(.bytes_out | sv_mb) |"),
      (.commands[sv_top:] | if length == 0 then empty else
         "| \(length) other\(if length > 1 then "s" else "" end): \(map(.command) | join(", ")) | \(map(.calls) | add) | | \(if any(.[]; .share == null) then null else (map(.share) | add) end | profile_pct) | \(map(.bytes_in // 0) | add | sv_mb) | \(map(.bytes_out // 0) | add | sv_mb) |" end),
      "",
      "- connects: \(.connects), disconnects: \(.disconnects)\(
        if .measurements > 1 then " (\(.measurements) measurements added up)" else "" end)\(
        if .level == "count" then "; smbd profiling level = count: calls only, no times" else "" end)"
    ] | join("\n"))
  end;

# sv_cpu_md: details.cpu -> one line ("CPU: client 0.3 cores (13 %), smbd 1.4 cores (69 %), ...").
def sv_cpu_md:
  if . == null then "CPU: client/server CPU: not available (not recorded)"
  else "CPU: " + clientcpu_line
  end;

# sv_check_md: details.count_check -> one line, or nothing.
def sv_check_md:
  if . == null then empty
  else "Client against server: the client reported \(.client) \(.what), smbd counted \(.server) (\(
    if .diff_pct == 0 then "equal" else "\((.diff_pct * 10 | round) / 10) %" end); tolerance \(.tolerance_pct) %)\(
    if .kernel != null then "; the kernel client (/proc/fs/cifs/Stats) counted \(.kernel)" else "" end)."
  end;

# sv_brief_md($metric): details.server -> one sentence for the report's section of $metric: what
# it is of, the sv_brief commands with most server time (share, calls, mean time) and where the
# whole table is (results.json; the chart server-METRIC.svg draws every share).
def sv_brief: 3;
def sv_brief_md($metric):
  if . == null then "not available (not recorded)"
  elif .available != true then "not available (\(.why // "no counters"))"
  elif (.commands | length) == 0 then "smbd counted no SMB2 command during this run"
  else
    (if .of then "of \(.of): " else "" end)
    + (.commands[:sv_brief] | map(.calls as $c | if .share == null then "\(.command) (\($c) \("calls" | unit_at($c)))"
        else "\(.command) \(.share | profile_pct) (\($c) \("calls" | unit_at($c)), \(.mean_us | profile_us) each)" end) | join(", "))
    + (.connects as $n | "; \($n) \("connects" | unit_at($n))")
    + (if .measurements > 1 then " (\(.measurements) measurements added up)" else "" end)
    + (if .level == "count" then "; smbd profiling level = count: calls only, no times" else "" end)
    + (if (.commands | length) > sv_brief then "; all \(.commands | length) commands: `results.json` `.metrics.\($metric).details.server.commands`" else "" end)
  end;
