# lib/run/clientcpu.jq: client CPU against server CPU for one measured run, and the "small machine"
# warning made from those measurements. Definitions only:
#   jq -L "$KIT_ROOT/lib" 'include "run/clientcpu"; ...'
include "format";

# The thresholds of the warnings, as shares of the whole machine (all its cores):
#   busy    the machine counts as short of CPU when everything on it used at least this much
#   client  ... and the kit's own clients used at least this much of it
#   others  processes that are neither the clients nor smbd used at least this much
#   alone   with client hosts, the server had the machine to itself when the kit's processes on it
#           (the remote shells) and other processes together used less than this much
def clientcpu_limits: {busy: 0.85, client: 0.2, others: 0.25, alone: 0.1};

# clientcpu_split: a measurement's evidence object (raw/NAME.evidence.json: wall_s and
# .probes.clientcpu, .probes.cgcpu) -> {available, wall_s, nproc, client: {cpu_s, cores, share,
# source}, server: {…}, machine: {cpu_s, cores, share}, others: {cores, share}}, where cores =
# CPU seconds per wall second and share = cores / nproc; {available: false, reason} when the
# client's or smbd's CPU is missing. Client and smbd over the command's wall time, the machine
# over the probe's window (the same run, a few milliseconds longer).
def clientcpu_split:
  .wall_s as $wall
  | .probes.clientcpu as $c
  | .probes.cgcpu as $s
  | if $c.available != true then {available: false, reason: ($c.reason // "no client CPU probe")}
    elif $s.available != true then {available: false, reason: ($s.reason // "no smbd CPU probe")}
    elif ($wall // 0) <= 0 or ($c.window_s // 0) <= 0 then {available: false, reason: "the run took no time"}
    else
      $c.nproc as $n
      | def part($us; $w): ($us / 1e6) as $cpu | {cpu_s: $cpu, cores: ($cpu / $w), share: ($cpu / $w / $n)};
      (part($c.used_us; $wall) + {source: $c.source}) as $client
      | (part($s.used_us; $wall) + {source: $s.source}) as $server
      | part($c.machine_busy_us; $c.window_s) as $machine
      | ([$machine.cores - $client.cores - $server.cores, 0] | max) as $o
      | {available: true, wall_s: $wall, nproc: $n, client: $client, server: $server,
         machine: $machine, others: {cores: $o, share: ($o / $n)}}
    end;

# one decimal place
def clientcpu_r1: (. * 10 | round) / 10;

# clientcpu_disturbed: a split (clientcpu_split) -> "other processes used 1.2 of 2 cores" when
# processes that are neither the clients nor smbd used at least clientcpu_limits.others of the
# machine (the measurement was disturbed: lib/run/repeat.sh measures such a repeat again), else empty.
def clientcpu_disturbed:
  select(.available == true and .others.share >= clientcpu_limits.others)
  | "other processes used \(.others.cores | clientcpu_r1) of \(.nproc) cores";

# clientcpu_warnings($what): a split (clientcpu_split) -> array of warning strings (empty when none):
#   the machine was short of CPU and the kit's clients took a part of it, e.g. "the clients used
#   0.9 of 2 cores during login (smbd 1.0): the machine was 97 % busy, so the server was short
#   of CPU and a client on another machine would likely see more"; other processes took CPU.
# clientcpu_warnings($what; $hosts): the same for a run on client hosts ($hosts true): the CPU in
# the client cgroup is then the kit's processes on this machine (the remote shells, and the
# client hosts' helpers where those hosts are this machine: network namespaces or containers).
def clientcpu_warnings($what; $hosts):
  clientcpu_limits as $l
  | if .available != true then []
    else
      [ (if .machine.share >= $l.busy and .client.share >= $l.client then
           "\(if $hosts then "the kit's processes on this machine (with client hosts: the remote shells, and the helpers of any client host that is this machine)" else "the clients" end) used \(.client.cores | clientcpu_r1) of \(.nproc) cores during \($what) (smbd \(.server.cores | clientcpu_r1)): the machine was \(.machine.share * 100 | round) % busy, so the server was short of CPU and \(if $hosts then "client hosts on other machines" else "a client on another machine" end) would likely see more (warned at >= \($l.busy * 100 | round) % busy with the clients at >= \($l.client * 100 | round) % of the machine)"
         else empty end),
        (clientcpu_disturbed
         | "\(.) during \($what): the figure may be lower than this machine can do (warned at >= \($l.others * 100 | round) % of the machine)") ]
    end;
def clientcpu_warnings($what): clientcpu_warnings($what; false);

# clientcpu_line: a split (clientcpu_split) -> one line for the report ("client 0.9 cores (45 %), smbd 1.0
# cores (50 %), others 0.1 of 2 cores over 10.0 s") or why it is missing.
# clientcpu_line($who): the same with the client cgroup named $who ("the kit's processes here"
# with client hosts, whose own CPU is measured on each host).
def clientcpu_line($who):
  if .available != true then "client/server CPU: not available (\(.reason // "no data"))"
  else
    (.client.cores | clientcpu_r1) as $c | (.server.cores | clientcpu_r1) as $s
    | "\($who) \($c) \("cores" | unit_at($c)) (\(.client.share * 100 | round) %), smbd \($s) \("cores" | unit_at($s)) (\(.server.share * 100 | round) %), others \(.others.cores | clientcpu_r1), of \(.nproc) cores over \(.wall_s | clientcpu_r1) s"
  end;
def clientcpu_line: clientcpu_line("client");
