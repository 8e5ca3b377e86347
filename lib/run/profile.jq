# lib/run/profile.jq: smbd's own per-command counters (smb.conf 'smbd profiling level', read with
# 'smbstatus -P'): parse a snapshot, diff two snapshots, render the per-command table, and
# compare a client's count with the server's. Definitions only:
#   jq -L "$KIT_ROOT/lib" 'include "run/profile"; ...'
#
# Samba counts in microseconds of wall time inside smbd, from the moment a request is taken off
# the socket to the moment its answer is queued, for every SMB2 command; 'time' includes 'idle',
# the time an async request waited pending (smbprofile.h, _SMBPROFILE_TIMER_ASYNC_END:
# time += now - start; idle += idle_time), and the kit uses 'time' as it is (busy time would
# be time - idle); 'count' level counts only (times stay 0).
# Each smbd process writes its counters to smbprofile.tdb at most 1 s after it worked, and when
# it exits; 'smbstatus -P' prints the sum of all of them since smbd started.
include "run/clientcpu";

# The SMB2 commands in protocol order (MS-SMB2 2.2.1), as Samba names them.
def profile_commands:
  ["negprot", "sesssetup", "logoff", "tcon", "tdis", "create", "close", "flush", "read",
    "write", "lock", "ioctl", "cancel", "keepalive", "find", "notify", "getinfo", "setinfo",
    "break"];

# profile_parse_text: the text of 'smbstatus -P' (a string) -> snapshot object
#   {connects, disconnects, requests, commands: {read: {count, time, idle, inbytes,
#    outbytes}, ...}}. Reads only 'name: number' lines, so banners, section rulers and counters
# a later Samba adds (failed counts, latency buckets) are ignored; a name printed twice (a
# later Samba's per-share sections repeat the names after the global ones) counts the first
# time; a counter that is missing is 0. (smbd's own cpu_user/cpu_system counters are left out: summed
# over parent and workers they gave 8.8 s of CPU for a 2-second run on 2 cores here; the kit
# takes smbd's CPU from its cgroup.)
def profile_parse_text:
  [splits("\n")
    | capture("^\\s*(?<k>[A-Za-z0-9_]+):\\s+(?<v>[0-9]+)\\s*$")
    | {key: .k, value: (.v | tonumber)}]
  | reverse | from_entries as $c
  | {
      connects: ($c.connect_count // 0),
      disconnects: ($c.disconnect_count // 0),
      requests: ($c.request_count // 0),
      commands: (reduce profile_commands[] as $n ({};
        .[$n] = {count: ($c["smb2_\($n)_count"] // 0), time: ($c["smb2_\($n)_time"] // 0),
          idle: ($c["smb2_\($n)_idle"] // 0), inbytes: ($c["smb2_\($n)_inbytes"] // 0),
          outbytes: ($c["smb2_\($n)_outbytes"] // 0)}))
    };

# profile_parse_json: the object of 'smbstatus -P --json' (Samba >= 4.17) -> the same
# snapshot object as profile_parse_text.
def profile_parse_json:
  (."SMBD loop" // {}) as $l
  | (."SMB2 Calls" // {}) as $s
  | {
      connects: ($l.connect.count // 0),
      disconnects: ($l.disconnect.count // 0),
      requests: ($l.request.count // 0),
      commands: (reduce profile_commands[] as $n ({};
        ($s["smb2_\($n)"] // {}) as $o
        | .[$n] = {count: ($o.count // 0), time: ($o.time // 0), idle: ($o.idle // 0),
          inbytes: ($o.inbytes // 0), outbytes: ($o.outbytes // 0)}))
    };

# profile_diff($before; $after; $level): what smbd did between two snapshots, for one run.
# $level: "on" (times measured) or "count". Output:
#   {available: true, level, connects, disconnects, requests, calls, time_us,
#    commands: [{command, calls, time_us, bytes_in, bytes_out, mean_us, share_of_time}]}
# commands: those called at least once, most server time first (then most calls); mean_us and
# share_of_time (0..1) are null when no time was measured. A counter that went back means smbd
# started again in between: {available: false, reason}.
def profile_diff($before; $after; $level):
  def d($k): ($after[$k] // 0) - ($before[$k] // 0);
  def dc($n; $k): ($after.commands[$n][$k] // 0) - ($before.commands[$n][$k] // 0);
  ($level == "on") as $timed
  | [profile_commands[] as $n
      | {command: $n, calls: dc($n; "count"), time_us: dc($n; "time"),
         bytes_in: dc($n; "inbytes"), bytes_out: dc($n; "outbytes")}] as $all
  | if ([$all[] | .calls, .time_us, .bytes_in, .bytes_out] + [d("connects"), d("disconnects")]
        | any(. < 0)) then
      {available: false, reason: "smbd's counters went back during the run (smbd started again)"}
    else
      ([$all[].time_us] | add) as $total
      | {
          available: true, level: $level,
          connects: d("connects"), disconnects: d("disconnects"), requests: d("requests"),
          calls: ([$all[].calls] | add), time_us: (if $timed then $total else null end),
          commands: [$all[] | select(.calls > 0)
            | .mean_us = (if $timed then .time_us / .calls else null end)
            | .share_of_time = (if $timed and $total > 0 then .time_us / $total else null end)
            | if $timed then . else .time_us = null end]
            | sort_by(-(.time_us // 0), -.calls)
        }
    end;

# profile_value($command; $key): one figure (calls, time_us, bytes_in, bytes_out) of one command
# in a diff (0 when it was not called).
def profile_value($command; $key):
  ([.commands[]? | select(.command == $command) | .[$key]] | add) // 0;

# profile_calls($command): calls of one command in a diff (0 when it was not called).
def profile_calls($command): profile_value($command; "calls");

# profile_us: microseconds for humans, three significant digits ("36.9 µs", "407 µs",
# "1.28 ms", "2.10 s" shows as "2.1 s").
def profile_us:
  def sig3: if . >= 100 then round elif . >= 10 then (. * 10 | round) / 10
    else (. * 100 | round) / 100 end;
  if . == null then "–"
  elif . >= 1e6 then "\(. / 1e6 | sig3) s"
  elif . >= 1000 then "\(. / 1000 | sig3) ms"
  else "\(sig3) µs"
  end;

# profile_label: Samba's name of an SMB2 command -> the name in the protocol and Wireshark.
def profile_label:
  {negprot: "Negotiate", sesssetup: "SessionSetup", logoff: "Logoff", tcon: "TreeConnect",
    tdis: "TreeDisconnect", create: "Create", close: "Close", flush: "Flush", read: "Read",
    write: "Write", lock: "Lock", ioctl: "Ioctl", cancel: "Cancel", keepalive: "Echo",
    find: "Find", notify: "ChangeNotify", getinfo: "GetInfo", setinfo: "SetInfo",
    break: "OplockBreak"}[.] // .;

# profile_pct: a share 0..1 for humans ("99.2 %", "< 0.1 %", "–" when unknown).
def profile_pct:
  if . == null then "–" elif . > 0 and . < 0.0005 then "< 0.1 %"
  else "\((. * 1000 | round) / 10) %" end;

# profile_count_check($what; $client; $server; $tolerance_pct): compare what the client said it
# did with what the server counted: {what, client, server, diff_pct, tolerance_pct, ok, warning}.
# diff_pct is (server - client) / client in percent; warning is null when within the tolerance,
# e.g. "the server counted 3 % fewer reads than the client reported (tolerance 1 %)".
def profile_count_check($what; $client; $server; $tolerance_pct):
  (if $client == 0 then (if $server == 0 then 0 else 100 end)
   else ($server - $client) * 100 / $client end) as $p
  | ($p | fabs <= $tolerance_pct) as $ok
  | {what: $what, client: $client, server: $server, diff_pct: $p, tolerance_pct: $tolerance_pct,
     ok: $ok,
     warning: (if $ok then null
       else "the server counted \((($p | fabs) * 10 | round) / 10) % \(if $p < 0 then "fewer" else "more" end) \($what) than the client reported (\($client) against \($server); tolerance \($tolerance_pct) %)"
       end)};
