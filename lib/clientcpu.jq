# lib/clientcpu.jq: client CPU against server CPU for one measured run, and the "small machine"
# warning made from those measurements. Definitions only:
#   jq -L "$KIT_ROOT/lib" 'include "clientcpu"; ...'

# The thresholds of the warnings, as shares of the whole machine (all its cores):
#   busy    the machine counts as short of CPU when everything on it used at least this much
#   client  ... and the kit's own clients used at least this much of it
#   others  processes that are neither the clients nor smbd used at least this much
def clientcpu_limits: {busy: 0.85, client: 0.2, others: 0.25};

# clientcpu_merge($before; $after; $nproc): two probe snapshots ({t_ns, client, server,
# machine_ticks, hz}, client/server cgcpu lines or null) -> {available, wall_s, nproc,
# client: {cpu_s, cores, share, source}, server: {…}, machine: {cpu_s, cores, share},
# others: {cores, share}} (cores = CPU seconds per wall second; share = cores / nproc).
# client or server is null where it could not be measured; others is null unless all three are.
def clientcpu_merge($before; $after; $nproc):
  def part($k; $wall):
    if ($before[$k].cpu_us | type) == "number" and ($after[$k].cpu_us | type) == "number" then
      (($after[$k].cpu_us - $before[$k].cpu_us) / 1e6) as $s
      | {cpu_s: $s, cores: ($s / $wall), share: ($s / $wall / $nproc), source: $after[$k].source}
    else null end;
  if ($before.t_ns | type) != "number" or ($after.t_ns | type) != "number" then
    {available: false, why: ($after.why // $before.why // "no CPU snapshot")}
  else
    (($after.t_ns - $before.t_ns) / 1e9) as $wall
    | if $wall <= 0 then {available: false, why: "the run took no time"}
      else
        part("client"; $wall) as $c
        | part("server"; $wall) as $s
        | (($after.machine_ticks - $before.machine_ticks) / $after.hz) as $m
        | {available: ($c != null and $s != null),
           why: (if $c == null then "no cgroup for the clients could be read"
                 elif $s == null then "smbd's CPU could not be read" else null end),
           wall_s: $wall, nproc: $nproc, client: $c, server: $s,
           machine: {cpu_s: $m, cores: ($m / $wall), share: ($m / $wall / $nproc)},
           others: (if $c != null and $s != null then
               ([$m - $c.cpu_s - $s.cpu_s, 0] | max) as $o
               | {cores: ($o / $wall), share: ($o / $wall / $nproc)}
             else null end)}
        | if .why == null then del(.why) else . end
      end
  end;

# one decimal place
def clientcpu_r1: (. * 10 | round) / 10;

# clientcpu_warnings($what): a merged object -> array of warning strings (empty when none):
#   the machine was short of CPU and the kit's clients took a part of it, e.g. "the clients used
#   0.9 of 2 cores during login (smbd 1.0): the machine was 97 % busy, so the server was short
#   of CPU and a client on another machine would likely see more"; other processes took CPU.
def clientcpu_warnings($what):
  clientcpu_limits as $l
  | if .available != true then []
    else
      [ (if .machine.share >= $l.busy and .client.share >= $l.client then
           "the clients used \(.client.cores | clientcpu_r1) of \(.nproc) cores during \($what) (smbd \(.server.cores | clientcpu_r1)): the machine was \(.machine.share * 100 | round) % busy, so the server was short of CPU and a client on another machine would likely see more (warned at >= \($l.busy * 100 | round) % busy with the clients at >= \($l.client * 100 | round) % of the machine)"
         else empty end),
        (if .others.share >= $l.others then
           "other processes used \(.others.cores | clientcpu_r1) of \(.nproc) cores during \($what): the figure may be lower than this machine can do (warned at >= \($l.others * 100 | round) % of the machine)"
         else empty end) ]
    end;

# clientcpu_line: a merged object -> one line for the report ("client 0.9 cores (45 %), smbd 1.0
# cores (50 %), others 0.1 of 2 cores over 10.0 s") or why it is missing.
def clientcpu_line:
  if .available != true then "client/server CPU: not available (\(.why // "no data"))"
  else
    "client \(.client.cores | clientcpu_r1) cores (\(.client.share * 100 | round) %), smbd \(.server.cores | clientcpu_r1) cores (\(.server.share * 100 | round) %), others \(.others.cores | clientcpu_r1), of \(.nproc) cores over \(.wall_s | clientcpu_r1) s"
  end;
