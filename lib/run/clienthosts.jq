# lib/run/clienthosts.jq: the lines of one load helper run on several client hosts at once
# (lib/run/clienthosts-fanout.sh) -> one line of the same shape (docs/CONTRACTS.md section 3), so
# the verdicts and the count check read it as they read one helper's, plus `client_hosts` (each
# host's figures) and `fairness`. Counts and rates add; latency comes from the merged
# histograms (the helpers' own nearest-rank method, helpers/hist.c), never from averaged
# percentiles; a failed request's times have no histogram, so err_lat_ms keeps max and mean only.

def ch_num: if type == "number" then . else 0 end;

# ch_hist_merge: an array of `hist` objects (null ones skipped) -> one, counts added per bound.
def ch_hist_merge:
  map(select(type == "object" and (.bounds | type) == "array"))
  | if length == 0 then null else
      .[0].gamma as $g
      | [.[] | [.bounds, .counts] | transpose[]] | group_by(.[0]) | map([.[0][0], (map(.[1]) | add)])
      | {unit: "us", gamma: $g, bounds: map(.[0]), counts: map(.[1])}
    end;

# ch_pct($h; $p; $cap): nearest-rank percentile $p of hist $h in ms: the midpoint of the bucket
# that holds the rank (bound * 2 / (gamma + 1)), at most $cap (the largest time); 4 decimals, as
# the helpers. (A parameter is also a filter of its name: never call one 'max'.)
def ch_pct($h; $p; $cap):
  ($h.counts | add // 0) as $n
  | if $n == 0 then null else
      ([($p / 100 * $n | ceil), 1] | max) as $rank
      | (reduce range(0; $h.counts | length) as $i ({acc: 0, b: null};
          if .b == null then .acc += $h.counts[$i] | (if .acc >= $rank then .b = $h.bounds[$i] else . end) else . end)).b
      | . / 1000 * 2 / ($h.gamma + 1) | (if $cap != null and . > $cap then $cap else . end)
      | . * 10000 | round / 10000
    end;

# ch_lat($lines; key; histkey): merged latency object of $lines' key (with histkey's histograms).
def ch_lat($lines; $key; $hkey):
  [$lines[] | select((.[$key] | type) == "object")] as $with
  | if ($with | length) == 0 then null else
      ([$with[] | .[$key].max | select(type == "number")] | max) as $max
      | [$with[] | {m: .[$key].mean, n: (if $hkey != null then (.[$hkey].counts // [] | add // 0) else ((.errors | ch_num) + 0) end)}
          | select(.m | type == "number")] as $w
      | (($w | map(.n) | add // 0)) as $wn
      | {mean: (if $wn > 0 then ($w | map(.m * .n) | add) / $wn | . * 10000 | round / 10000 else null end), max: $max}
      + (if $hkey != null then ([$lines[] | .[$hkey]] | ch_hist_merge) as $h
          | {p50: ch_pct($h; 50; $max), p95: ch_pct($h; 95; $max), p99: ch_pct($h; 99; $max)}
        else {p50: null, p95: null, p99: null} end)
      | {p50, p95, p99, max, mean}
    end;

# ch_sum_arrays: an array of number arrays -> their element-wise sum.
def ch_sum_arrays:
  map(select(type == "array")) | if length == 0 then null else
    (map(length) | max) as $l | [range(0; $l) as $i | map(.[$i] | ch_num) | add] end;

# ch_fairness($what): an array of per-host figures (rates; smb-hold: connections held) ->
# {hosts, min_$what, max_$what, jain} (Jain's index: (sum x)^2 / (n * sum x^2), 1 when every host
# had the same, 1/n when one host had all of it).
def ch_fairness($what):
  (map(ch_num)) as $x | ($x | map(. * .) | add) as $sq
  | {hosts: ($x | length), "min_\($what)": ($x | min), "max_\($what)": ($x | max),
     jain: (if $sq > 0 then (($x | add) * ($x | add) / (($x | length) * $sq)) * 10000 | round / 10000 else null end)};

# ch_phase($lines; $key; $lat): smb-files' phase objects (create, delete) merged: counts and
# rates add, the longest duration; latency $lat (the create phase's is the line's own).
def ch_phase($lines; $key; $lat):
  [$lines[] | .[$key] | select(type == "object")] as $p
  | if ($p | length) == 0 then null else
      {ops: ($p | map(.ops | ch_num) | add), errors: ($p | map(.errors | ch_num) | add),
       rate_per_s: ($p | map(.rate_per_s | ch_num) | add | . * 10 | round / 10),
       duration_s: ($p | map(.duration_s | ch_num) | max), lat_ms: $lat}
      + (if any($p[]; .hist != null) then {hist: ($p | map(.hist) | ch_hist_merge)} else {} end)
    end;

# ch_cpu: one host's line -> its client CPU, measured on that host (the helper's process tree,
# docs/CONTRACTS.md section 3): {client_cpu_s, duration_s, host_cores, client_cores (CPU seconds
# per second of the helper's run), client_share (of that host's cores)}; {} from a helper that
# does not measure it (smb-hold). Every "host" of the kit's namespace tests is this machine
# (this_machine, ch_machine).
def ch_cpu:
  if (.client_cpu_ms | type) != "number" then {} else
    (.client_cpu_ms / 1000) as $s | .duration_s as $d | .host_cores as $n
    | (if ($d | type) == "number" and $d > 0 then $s / $d else null end) as $c
    | {client_cpu_s: ($s * 1000 | round / 1000), duration_s: $d, host_cores: $n,
       client_cores: (if $c == null then null else $c * 1000 | round / 1000 end),
       client_share: (if $c == null or ($n | type) != "number" or $n <= 0 then null else $c / $n * 10000 | round / 10000 end)}
  end;

# ch_machine: 'HOST=this|other|unknown ...' (the state's KIT_CLIENT_MACHINE) -> {HOST: true
# (the same boot id as this machine) | false}; a host whose boot id was not read is left out.
def ch_machine:
  [splits(" +") | select(test("^[^=]+=(this|other)$")) | capture("^(?<key>[^=]+)=(?<v>.*)$") | {key, value: (.v == "this")}]
  | from_entries;

# ch_merge($hosts; $machine): the slurped lines (one a host, in $hosts' order) -> the merged
# line; $machine (ch_machine) gives each host's this_machine (absent when not known). Keys no
# host's line has stay out (smb-hold has no rate, smb-files no clients).
def ch_merge($hosts; $machine):
  . as $lines
  | def sum($k): [$lines[] | .[$k] | select(type == "number")] | if length == 0 then null else add end;
    def most($k): [$lines[] | .[$k] | select(type == "number")] | max;
    def least($k): [$lines[] | .[$k] | select(type == "number")] | min;
    def firsterr: [range(0; $lines | length) as $i | $lines[$i] | (.error // .first_error) as $e
      | select($e != null) | "client host \($hosts[$i]): \($e)"] | .[0];
    def hold: any($lines[]; .helper == "smb-hold");
  ([$lines[] | .hist] | ch_hist_merge) as $hist
  | ch_lat($lines; "lat_ms"; "hist") as $lat
  | {helper: ([$lines[] | .helper | select(. != null)] | .[0]),
     ok: all($lines[]; .ok == true),
     duration_s: most("duration_s"), window_s: most("window_s"),
     workers: sum("workers"), clients: sum("clients"), connected: sum("connected"),
     asked: sum("asked"), held: sum("held"), fd_limit: least("fd_limit"),
     per_client: ([$lines[] | .per_client | select(type == "object")]
       | if length == 0 then null else {min_iops: (map(.min_iops) | min), max_iops: (map(.max_iops) | max)} end),
     ops: sum("ops"), late_ops: sum("late_ops"), errors: sum("errors"),
     rate_per_s: (sum("rate_per_s") | if . == null then null else . * 1000 | round / 1000 end),
     per_s: ([$lines[] | .per_s] | ch_sum_arrays),
     lat_ms: $lat, hist: $hist,
     err_lat_ms: ch_lat($lines; "err_lat_ms"; null),
     create: ch_phase($lines; "create"; $lat),
     delete: ch_phase($lines; "delete"; ch_lat([$lines[] | .delete | select(type == "object")]; "lat_ms"; "hist")),
     files_per_folder: most("files_per_folder"), left_behind: sum("left_behind"),
     delete_cut: (if any($lines[]; has("delete_cut")) then any($lines[]; .delete_cut == true) else null end),
     error_kinds: ([$lines[] | .error_kinds // [] | .[]] | group_by(.error)
       | map({error: .[0].error, count: (map(.count) | add), first_s: (map(.first_s) | min)})),
     first_error: firsterr,
     workers_started: sum("workers_started"), workers_lost: sum("workers_lost"),
     worker_failures: [range(0; $lines | length) as $i | $lines[$i].worker_failures // [] | .[] | "\($hosts[$i]): \(.)"],
     interrupted: any($lines[]; .interrupted == true),
     parent_cpu_ms: sum("parent_cpu_ms"), server_cpu: null,
     client_cpu_ms: sum("client_cpu_ms"), client_user_ms: sum("client_user_ms"), client_system_ms: sum("client_system_ms"),
     client_hosts: [range(0; $lines | length) as $i | $lines[$i] | {host: $hosts[$i], ok: (.ok == true),
       this_machine: $machine[$hosts[$i]], workers, clients, connected, asked, held, ops, late_ops, errors, rate_per_s,
       delete_rate_per_s: .delete.rate_per_s?, left_behind, lat_ms, window_s}
       + ch_cpu + (if .ok != true then {error: (.error // .first_error)} else {} end) | with_entries(select(.value != null))],
     fairness: (if hold then [$lines[] | .held] | ch_fairness("held") else [$lines[] | .rate_per_s] | ch_fairness("rate_per_s") end)}
  | if .ok then . else .error = (firsterr // "a client host's helper failed") end
  | with_entries(select(.value != null or .key == "server_cpu" or .key == "first_error"));
def ch_merge($hosts): ch_merge($hosts; {});

# ch_note($line; $unit): with client hosts, the verdict's note of each host's figure and the
# fairness line; [] without. $unit names the rate (smb-hold: connections held).
def ch_note($line; $unit):
  def n: if type == "number" then (. * 10 | round / 10 | tostring) else "?" end;
  if ($line.client_hosts | type) != "array" then [] else
    ($line.helper == "smb-hold") as $hold | (if $hold then "held" else "rate_per_s" end) as $k
    | ["Client hosts (\($line.client_hosts | length), \(if $hold then "\($line.asked // 0) connections asked" else "\($line.workers // $line.clients // 0) clients" end) in all): "
      + ([$line.client_hosts[] | "\(.host) \(.[$k] // 0 | n) \($unit)"
          + (if .lat_ms.p95 != null then " (p95 \(.lat_ms.p95 | n) ms)" else "" end)] | join(", "))
      + (if $hold then "" else "; rates add, latency from the merged histograms" end)
      + ". Fairness: min \($line.fairness["min_\($k)"] | n), max \($line.fairness["max_\($k)"] | n) \($unit) per host, Jain's index \($line.fairness.jain // "n/a")."]
  end;
