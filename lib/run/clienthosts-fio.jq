# lib/run/clienthosts-fio.jq: one fio run through fio's client/server mode (`fio --client=HOST1 JOB
# --client=HOST2 JOB --output-format=json+`, lib/run/clienthosts-fio.sh) -> each host's figures, the
# merged ones and the fairness line. fio's own "All clients" entry is not used: it adds the
# hosts' runtimes and has neither latency bins nor percentiles. Latency comes from the merged
# bins of total latency (lat_ns with --lat_percentiles=1, else clat_ns), with fio's own method
# (calc_clat_percentile: the first bin whose running count reaches p% of all), never from
# averaged percentiles. fio has no start barrier across hosts: each host's rate is over its own
# job runtime, and the merged rate is their sum (the window note says so).
include "run/clienthosts";

# chfio_bins: a fio direction object's latency bins as [[ns, count], ...] sorted by ns.
def chfio_bins: ((.lat_ns.bins // .clat_ns.bins) // {}) | to_entries | map([(.key | tonumber), .value]) | sort;

# chfio_pct_ns($bins; $p): fio's percentile $p (in ns) of sorted [[ns, count], ...].
def chfio_pct_ns($bins; $p):
  ($bins | map(.[1]) | add // 0) as $n
  | if $n == 0 then null else
      (reduce $bins[] as $b ({sum: 0, v: null};
        if .v == null then .sum += $b[1] | (if .sum >= $p / 100 * $n then .v = $b[0] else . end) else . end)).v
    end;

# chfio_pct($bins; $p): the same in ms, 4 decimals.
def chfio_pct($bins; $p): chfio_pct_ns($bins; $p) | if . == null then null else . / 1e6 | . * 10000 | round / 10000 end;

# chfio_bins_merged($dirs): the added latency bins of fio direction objects, sorted.
def chfio_bins_merged($dirs): [$dirs[] | chfio_bins[]] | group_by(.[0]) | map([.[0][0], (map(.[1]) | add)]);

# chfio_lat($dirs): merged latency (ms) of fio direction objects: percentiles from the added
# bins, the mean weighted by their counts, the largest max.
def chfio_lat($dirs):
  [$dirs[] | select((.total_ios // 0) > 0)] as $d
  | if ($d | length) == 0 then null else
      chfio_bins_merged($d) as $bins
      | [$d[] | (.lat_ns // .clat_ns) | {n: .N, m: .mean, x: .max}] as $l
      | {p50: chfio_pct($bins; 50), p95: chfio_pct($bins; 95), p99: chfio_pct($bins; 99),
         max: ($l | map(.x) | max / 1e6 | . * 10000 | round / 10000),
         mean: (($l | map(.n * .m) | add) / ($l | map(.n) | add) / 1e6 | . * 10000 | round / 10000),
         samples: ($bins | map(.[1]) | add)}
    end;

# chfio_dir($dirs): one direction (read or write) of several hosts' job entries, merged.
def chfio_dir($dirs):
  {ios: ($dirs | map(.total_ios // 0) | add),
   iops: ($dirs | map(.iops // 0) | add | . * 100 | round / 100),
   mb_per_s: ($dirs | map(.bw_bytes // 0) | add / 1048576 | . * 100 | round / 100),
   lat_ms: chfio_lat($dirs)};

# chfio_cpu: one host's job entries -> fio's own CPU there, in the keys of a helper's host line
# (ch_cpu): client_cpu_s, the CPU seconds of its jobs (getrusage in each job: fio's usr_cpu and
# sys_cpu are usr_time and sys_time * 100 / total_run_time, and job_runtime is total_run_time,
# each added over a group's jobs, stat.c), duration_s (the longest direction's runtime),
# client_cores (per second of it). host_cores is not known (fio sends no core count), and the
# cifs client's kernel threads on the host are not in it.
def chfio_cpu:
  (map(((.usr_cpu // 0) + (.sys_cpu // 0)) / 100 * (.job_runtime // 0) / 1000) | add) as $s
  | (map([.read.runtime // 0, .write.runtime // 0] | max) | max / 1000) as $d
  | {client_cpu_s: ($s * 1000 | round / 1000), duration_s: $d,
     client_cores: (if $d > 0 then $s / $d * 1000 | round / 1000 else null end)};

# chfio_merge($names; $machine): the fio --client JSON -> {client_hosts, merged, fairness,
# window}; $names maps fio's hostname (the --client address) to the kit's host name, $machine
# (ch_machine) gives each host's this_machine (absent when not known).
def chfio_merge($names; $machine):
  [.client_stats[] | select(.jobname != "All clients")] as $jobs
  | ($jobs | group_by(.hostname)) as $by
  | [$by[] | ($names[.[0].hostname] // .[0].hostname) as $h
      | {host: $h, this_machine: $machine[$h], ok: all(.[]; (.error // 0) == 0),
      runtime_s: (map([.read.runtime // 0, .write.runtime // 0] | max) | max / 1000),
      read: chfio_dir(map(.read)), write: chfio_dir(map(.write)), errors: (map(.total_err // 0) | add)}
      + chfio_cpu
      | .iops = (.read.iops + .write.iops) | with_entries(select(.value != null))] as $hosts
  | {client_hosts: $hosts,
     merged: {ok: all($hosts[]; .ok), hosts: ($hosts | length),
       read: chfio_dir([$jobs[] | .read]), write: chfio_dir([$jobs[] | .write]),
       errors: ($hosts | map(.errors) | add), iops: ($hosts | map(.iops) | add | . * 100 | round / 100)},
     fairness: ($hosts | map(.iops) | ch_fairness("iops")),
     window: "fio has no start barrier across client hosts: each host's rate is over its own job runtime (\($hosts | map(.runtime_s) | min)-\($hosts | map(.runtime_s) | max) s), started as the controller's connection reached it; the merged rate is their sum"};
def chfio_merge($names): chfio_merge($names; {});

# chfio_fio_dir($dirs): one direction of all hosts' job entries as fio writes one (what
# lib/run/fio.jq fio_summary reads): counts, bytes and rates added, the longest runtime, lat_ns
# from the added bins (percentiles with fio's method, mean weighted by the counts, the largest max).
def chfio_fio_dir($dirs):
  [$dirs[] | select((.total_ios // 0) > 0)] as $d
  | chfio_bins_merged($d) as $bins
  | [$d[] | (.lat_ns // .clat_ns)] as $l
  | {total_ios: ($dirs | map(.total_ios // 0) | add), io_bytes: ($dirs | map(.io_bytes // 0) | add),
     bw_bytes: ($dirs | map(.bw_bytes // 0) | add), iops: ($dirs | map(.iops // 0) | add),
     runtime: ($dirs | map(.runtime // 0) | max),
     lat_ns: (if ($d | length) == 0 then {N: 0, min: 0, max: 0, mean: 0} else
       {N: ($l | map(.N) | add), min: ($l | map(.min) | min), max: ($l | map(.max) | max),
        mean: (($l | map(.N * .mean) | add) / ($l | map(.N) | add)),
        percentile: ([1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99]
          | map({key: (. * 1000000 | round | tostring | .[0:-6] + "." + .[-6:] | if startswith(".") then "0" + . else . end),
                 value: chfio_pct_ns($bins; .)}) | from_entries),
        bins: ($bins | map({key: (.[0] | tostring), value: .[1]}) | from_entries)} end)};

# chfio_fio_json: the fio --client JSON -> fio's own shape with one job (jobs[0]) that is all the
# hosts' jobs merged, so the fio verdicts read it as a local run's: usr_cpu and sys_cpu are the
# busiest host's (fio's own CPU on that host), errors added, error the first host's non-zero one.
def chfio_fio_json:
  [.client_stats[] | select(.jobname != "All clients")] as $jobs
  | ($jobs | max_by((.usr_cpu // 0) + (.sys_cpu // 0))) as $busy
  | {"fio version": .["fio version"], timestamp, client_hosts: ($jobs | map(.hostname) | unique),
     jobs: [{jobname: $jobs[0].jobname, groupid: 0,
       error: ([$jobs[] | .error // 0 | select(. != 0)] | first // 0),
       total_err: ($jobs | map(.total_err // 0) | add),
       first_error: ([$jobs[] | .first_error // 0 | select(. != 0)] | first // 0),
       read: chfio_fio_dir([$jobs[] | .read]), write: chfio_fio_dir([$jobs[] | .write]),
       job_runtime: ($jobs | map(.job_runtime // 0) | max),
       usr_cpu: ($busy.usr_cpu // 0), sys_cpu: ($busy.sys_cpu // 0)}]};
