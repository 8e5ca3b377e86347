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

# sv_host_lines($raw; $name): measurement $name's host lines when it ran on client hosts (the
# helpers' merged line raw/NAME.json, lib/run/clienthosts.jq, or fio's raw/NAME.clients.json,
# lib/run/clienthosts-fio.jq: each has client_hosts[]), else null.
def sv_host_lines($raw; $name):
  [$raw["\($name).json"], $raw["\($name).clients.json"] | objects | .client_hosts | arrays] | first;

# sv_host_by($raw; $name): what measured the client CPU in measurement $name's host lines: "the
# helpers" (their process tree on the host) or "fio" (its jobs' getrusage), null off the hosts.
def sv_host_by($raw; $name):
  if [$raw["\($name).json"] | objects | .client_hosts | arrays] != [] then "the helpers"
  elif [$raw["\($name).clients.json"] | objects | .client_hosts | arrays] != [] then "fio" else null end;

# sv_hosts_of($raw): the evidence list -> the names of its measurements that ran on client hosts.
def sv_hosts_of($raw): [.[] | .name | select(sv_host_lines($raw; .) != null)];

# sv_client_hosts($raw; $cpu): the evidence list -> details.cpu.client_hosts, null when no
# measurement ran on client hosts: each host's own CPU, measured there by its helpers (ch_cpu) or
# by fio (chfio_cpu; by says which), added up over the measurements: hosts[]{host, this_machine, cpu_s, cores (per second of its
# helpers' runs), host_cores, share (of them)}, cpu_s (all hosts), measured (every host line had
# it: smb-hold has none); whether the hosts are this machine, a fact start-samba.sh read (each
# host's kernel boot id against this one's, lib/run/clienthosts.sh clienthosts_machine):
# this_machine per host (null: its boot id was not read), on_this_machine (true when one is,
# false when none is, else null); and whether the server had the machine to itself: alone (no
# host is this machine, and the kit's processes and other processes here together used less
# than clientcpu_limits.alone of it; null when either is not known). here_cpu_s (the kit's
# processes on this machine: the fan-out and remote shells, and the helpers of a client host
# that is this machine) is quoted beside the hosts' own, never the decision; null where this
# machine's CPU was not measured.
def sv_client_hosts($raw; $cpu):
  [.[] | sv_host_lines($raw; .name) // empty | .[]] as $e
  | ([.[] | sv_host_by($raw; .name) // empty] | unique | join(" and ")) as $by
  | if ($e | length) == 0 then null else
      ($e | map(.client_cpu_s) | all(type == "number")) as $measured
      | [$e | group_by(.host)[] | . as $h
          | ($h | map(.client_cpu_s // 0) | add) as $s | ($h | map(.duration_s // 0) | add) as $d
          | ($h | map(.host_cores | select(type == "number")) | first // null) as $n
          | ($h | map(.this_machine) | if all(.[]; type == "boolean") then any(.[]; .) else null end) as $m
          | {host: $h[0].host, this_machine: $m, cpu_s: $s, cores: (if $d > 0 then $s / $d else null end), host_cores: $n}
          | .share = (if .cores != null and $n != null then .cores / $n else null end)] as $hosts
      | ($hosts | map(.cpu_s) | add) as $all
      | ($hosts | map(.this_machine) | if any(.[]; . == true) then true elif all(.[]; . == false) then false else null end) as $here
      | ($cpu.available == true) as $known
      | {measured: $measured, by: $by, hosts: (if $measured then $hosts else [$hosts[] | {host, this_machine}] end),
         cpu_s: (if $measured then $all else null end),
         here_cpu_s: (if $known then $cpu.client.cpu_s else null end), on_this_machine: $here,
         alone: (if $here == true then false elif $here == null or ($known | not) then null
                 else $cpu.client.share + $cpu.others.share < clientcpu_limits.alone end)}
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

# sv_wire_opcode: smbd's counter names (and "connects": one NEGOTIATE each) -> the SMB2 command
# numbers the wire probe counts by (lib/probes/wire.sh).
def sv_wire_opcode:
  {connects: 0, negprot: 0, sesssetup: 1, logoff: 2, tcon: 3, tdis: 4, create: 5, close: 6, flush: 7,
   read: 8, write: 9, lock: 10, ioctl: 11, cancel: 12, keepalive: 13, find: 14, notify: 15,
   getinfo: 16, setinfo: 17, break: 18};

# sv_wire_name: an SMB2 command number (sv_wire_opcode) -> its name as the protocol spells it.
def sv_wire_name:
  ["NEGOTIATE", "SESSION_SETUP", "LOGOFF", "TREE_CONNECT", "TREE_DISCONNECT", "CREATE", "CLOSE", "FLUSH",
   "READ", "WRITE", "LOCK", "IOCTL", "CANCEL", "ECHO", "QUERY_DIRECTORY", "CHANGE_NOTIFY", "QUERY_INFO",
   "SET_INFO", "OPLOCK_BREAK"][.] // "command \(.)";

# sv_wire: the evidence list -> its wire probe added up: {available, requests {"CMD": N}}, or
# {available: false, reason}; null when no measurement had it on (WIRE_PROBE=no).
def sv_wire:
  [.[] | .ev.probes.wire | select(type == "object")] as $w
  | if ($w | length) == 0 or all($w[]; .available != true and ((.reason // "") | startswith("WIRE_PROBE=no"))) then null
    elif any($w[]; .available != true) then {available: false, reason: (first($w[] | select(.available != true)) | .reason // "no capture")}
    else {available: true, requests: (reduce ($w[] | .requests | to_entries[]) as $e ({}; .[$e.key] += $e.value))} end;

# sv_wire_count($wire; $smbd): the count check's wire part: {wire (the requests of the commands
# $smbd names, sv_count), wire_interfaces}, or {wire_why} when the capture was on but gave none;
# {} without the probe.
def sv_wire_count($wire; $smbd):
  if $wire == null then {}
  elif $wire.available != true then {wire_why: $wire.reason}
  else [(if $smbd == "connects" then ["connects"] else $smbd end)[] | sv_wire_opcode[.] | select(. != null)] as $ops
    | {wire: ([$ops[] | $wire.requests[tostring] // 0] | add // 0), wire_what: ($ops | map(sv_wire_name) | join(" and "))}
  end;

# sv_count($server; $count): what the client said it did against what smbd counted (docs/server-view.md:
# checked on a real smbd). $count is the metric's declaration (docs/CONTRACTS.md section 6, the
# key count of its verdict's head or body): {what (words), client (its count: a number, else
# there is no check), smbd (the SMB2 commands whose calls must add up to it, by smbd's counter
# names, ["read", "write"]; or "connects"), kernel (optional: the kernel client's count, shown
# beside)}. null without a declaration, a client count or the server's counters.
def sv_count($server; $count; $wire):
  if ($server.available | not) or ($count | type) != "object" or ($count.client | type) != "number" then null
  else
    (if $count.smbd == "connects" then $server.connects
     else [$server.commands[] | select(.samba as $s | $count.smbd | index([$s])) | .calls] | add // 0 end) as $n
    | profile_count_check($count.what; $count.client; $n; sv_tolerance_pct)
      + (if $count | has("kernel") then {kernel: $count.kernel} else {} end)
      + sv_wire_count($wire; $count.smbd)
    | if .wire != null and .warning == null and (profile_count_check("x"; .server; .wire; sv_tolerance_pct) | .ok | not) then
        .warning = "the wire carried \(.wire) \(.wire_what) requests, smbd counted \(.server) \(.what) (tolerance \(.tolerance_pct) %)"
      else . end
  end;
def sv_count($server; $count): sv_count($server; $count; null);


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
  | ($evs | sv_client_hosts($raw; $cpu)) as $ch
  | sv_count($server; $count; $evs | sv_wire) as $check
  | {details: ({server: $server, cpu: ($cpu | del(.runs) | if $ch then .client_hosts = $ch else . end)}
       + (if $check then {count_check: ($check | del(.warning))} else {} end)),
     # the client-CPU warnings of every measurement of the metric, not only of the view's
     warnings: ([($check.warning // empty)]
       + (if $view == null then $evs else sv_evidence($metric) end
          | sv_hosts_of($raw) as $on | sv_cpu
          | if .available then [.runs[] | .name as $n | .split | clientcpu_warnings($n; $on | index([$n]) != null)[]] else [] end))}
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
  elif .client_hosts then "CPU on this machine: " + clientcpu_line("the kit's processes here")
  else "CPU: " + clientcpu_line
  end;

# sv_hosts_md: details.cpu with client_hosts -> the report's line of the client hosts' CPU, apart
# from the server's, and whether the server had the machine to itself: that the hosts are this
# machine or others is start-samba.sh's fact (their kernel's boot id), said unknown where it
# was not read; this machine's CPU is quoted, not the decision. Nothing without client hosts.
def sv_hosts_md:
  def c: num;
  def s2: . * 100 | round / 100;
  def names: map(.host) | if length > 1 then "client hosts \(.[:-1] | join(", ")) and \(.[-1])" else "client host \(.[0])" end;
  def are: if length > 1 then "are" else "is" end;
  select(.client_hosts != null) | . as $cpu | .client_hosts as $h
  | (if $cpu.nproc then "its \($cpu.nproc) cores" else "its cores" end) as $cores
  | (if $h.measured | not then
      "Client hosts (\($h.hosts | map(.host) | join(", "))): their CPU was not measured (their helper does not measure it). "
    else
      "Client hosts' CPU, measured on each host (\($h.by // "the helpers"), apart from smbd's): "
      + ([$h.hosts[] | "\(.host) \(.cpu_s | s2) s" + (if .cores == null then ""
           elif .host_cores == null then " (\(.cores | c) cores)" else " (\(.cores | c) of \(.host_cores) cores)" end)] | join(", "))
      + (if ($h.hosts | length) > 1 then "; \($h.cpu_s | s2) s in all" else "" end) + ". "
    end)
  + (if $h.here_cpu_s == null then ""
     else "On this machine the kit's processes used \($cpu.client.cores | c) and other processes \($cpu.others.cores | c) of \($cpu.nproc) cores (the kit's processes \($h.here_cpu_s | s2) s of CPU"
       + (if $h.measured then ", the client hosts' \(if $h.by == "fio" then "fio" else "helpers" end) \($h.cpu_s | s2) s" else "" end) + "). " end)
  + if $h.on_this_machine == true then
      [$h.hosts[] | select(.this_machine == true)] as $here
      | "The server did not have the machine to itself: "
        + (if ($here | length) == ($h.hosts | length) then "the client hosts are this machine" else "\($here | names) \($here | are) this machine" end)
        + " (the same kernel boot id: network namespaces or containers of it, as in the kit's own tests), so their helpers shared \($cores) with smbd"
    elif $h.on_this_machine == null then
      [$h.hosts[] | select(.this_machine == null)] as $unk
      | "Whether the server had the machine to itself is not known: whether \($unk | names) \($unk | are) this machine is not known (\(if ($unk | length) > 1 then "their kernel boot ids were" else "its kernel boot id was" end) not read when the kit started)"
    elif $h.alone == null then
      "The client hosts are other machines (another kernel boot id); whether the server had the machine to itself is not known: this machine's CPU was not measured (\($cpu.why // "no data"))"
    elif $h.alone then
      "The server had the machine to itself: the client hosts are other machines (another kernel boot id), and the kit's processes here (the remote shells) and other processes together stayed below \(clientcpu_limits.alone * 100 | round) % of it"
    else
      "The server did not have the machine to itself: the client hosts are other machines (another kernel boot id), but the kit's processes here and other processes together used \($cpu.client.share + $cpu.others.share | . * 100 | round) % of it (it counts as alone below \(clientcpu_limits.alone * 100 | round) %)"
    end;

# sv_check_md: details.count_check -> one line, or nothing.
def sv_check_md:
  if . == null then empty
  else "Client against server: the client reported \(.client) \(.what), smbd counted \(.server) (\(
    if .diff_pct == 0 then "equal" else "\((.diff_pct * 10 | round) / 10) %" end); tolerance \(.tolerance_pct) %)\(
    if .kernel != null then "; the kernel client (/proc/fs/cifs/Stats) counted \(.kernel)" else "" end)\(
    if .wire != null then "; the wire (tshark on the kit's ports) carried \(.wire) \(.wire_what) requests" + (if .wire == .server then ", as smbd counted" else "" end)
    elif .wire_why then "; the wire was not counted (\(.wire_why))" else "" end)."
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
