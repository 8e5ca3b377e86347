#!/usr/bin/env bats
# The merge of one fio run through fio's client/server mode (lib/run/clienthosts-fio.jq) on a real
# fio output: fixtures/fio-clients/randread.json is fio 3.33's `--output-format=json+` of
# `fio --client=ip:127.0.0.61,8765 JOB --client=ip:127.0.0.62,8765 JOB` (two fio servers on
# loopback, a 2 s psync randread of a local file each, --lat_percentiles=1).

setup() {
  load ../test_helper/common-setup
  _common_setup
  kit_require_cmd jq
  FIX=$KIT_ROOT/tests/fixtures/fio-clients/randread.json
}

# merge [FILE]: the merged object of FILE (the fixture), hosts named ws1 and ws2.
merge() {
  jq -c -L "$KIT_ROOT/lib" 'include "run/clienthosts-fio"; chfio_merge({"127.0.0.61": "ws1", "127.0.0.62": "ws2"})' "${1:-$FIX}"
}

@test "fio clients: each host's percentiles from its bins are fio's own; fio's 'All clients' entry is not a host" {
  local m
  m=$(merge)
  run jq -r '.client_hosts | map(.host) | join(" ")' <<<"$m"
  assert_output "ws1 ws2"
  # fio's own percentiles of each host (ns) -> ms, 4 decimals: the same method on the same bins
  run jq -r --argjson m "$m" '[.client_stats[] | select(.jobname != "All clients") | .read.lat_ns.percentile
    | [."50.000000", ."95.000000", ."99.000000"] | map(. / 1e6 | . * 10000 | round / 10000)]
    == [$m.client_hosts[] | .read.lat_ms | [.p50, .p95, .p99]]' "$FIX"
  assert_output true
}

@test "fio clients: merged counts and rates add, latency from the added bins, fairness, the window said" {
  local m
  m=$(merge)
  run jq -c '[.merged.read.ios, .merged.read.lat_ms.samples, .merged.iops, .fairness.hosts, .merged.ok]' <<<"$m"
  assert_output '[61842,61842,30905.55,2,true]'
  # the rate agrees with fio's own 'All clients' sum (its runtime adds the hosts', so its
  # percentiles are missing: the reason the kit merges the bins itself)
  run jq -r '.client_stats[] | select(.jobname == "All clients") | [(.read.iops * 100 | round / 100), (.read.lat_ns.percentile == null)] | @tsv' "$FIX"
  assert_output $'30905.55\ttrue'
  run jq -r '.fairness | "\(.min_iops) \(.max_iops) \(.jain)"' <<<"$m"
  assert_output "15421.79 15483.76 1"
  run jq -r '.window' <<<"$m"
  assert_output --partial "fio has no start barrier across client hosts"
}

@test "fio clients: merged percentiles come from all requests' bins, never the hosts' averaged ones" {
  # host 2 ten times slower: its bins at 10x
  jq '(.client_stats[] | select(.hostname == "127.0.0.62" and .jobname != "All clients") | .read.lat_ns.bins)
      |= with_entries(.key |= (tonumber * 10 | tostring))' "$FIX" >"$BATS_TEST_TMPDIR/slow.json"
  local m p want
  m=$(merge "$BATS_TEST_TMPDIR/slow.json")
  for p in 50 95 99; do
    # the same percentile by awk over both hosts' bins together
    want=$(jq -r '.client_stats[] | select(.jobname != "All clients") | .read.lat_ns.bins | to_entries[] | "\(.key) \(.value)"' \
      "$BATS_TEST_TMPDIR/slow.json" | sort -n | awk -v p="$p" '{ v[NR] = $1; c[NR] = $2; n += $2 }
        END { for (i = 1; i <= NR; i++) { s += c[i]; if (s >= p / 100 * n) { printf "%.4f\n", v[i] / 1e6; exit } } }')
    run jq -r --arg p "p$p" '.merged.read.lat_ms[$p] | tostring' <<<"$m"
    assert_output "$(jq -rn --argjson w "$want" '$w | tostring')"
  done
  # p50: the hosts' average would be about 5.5 times host 1's; the merged one is not it
  run jq -r '.merged.read.lat_ms.p50 != ((.client_hosts | map(.read.lat_ms.p50) | add) / 2 | . * 10000 | round / 10000)' <<<"$m"
  assert_output true
}

@test "fio clients: each host's fio CPU is its jobs' (usr + sys) % of job_runtime, and adds up to fio's own 'All clients' sum" {
  local m
  m=$(jq -c -L "$KIT_ROOT/lib" 'include "run/clienthosts-fio"; include "run/clienthosts";
    chfio_merge({"127.0.0.61": "ws1", "127.0.0.62": "ws2"}; "ws1=other ws2=unknown" | ch_machine)' "$FIX")
  # fio 3.33 on 127.0.0.61: usr 1.95 % + sys 21.8 % of 2000 ms; 127.0.0.62: 1.5 % + 21.2 %
  run jq -c '[.client_hosts[] | [.host, .this_machine, .client_cpu_s, .duration_s, .client_cores, .host_cores]]' <<<"$m"
  assert_output '[["ws1",false,0.475,2.001,0.237,null],["ws2",null,0.454,2.001,0.227,null]]'
  # the second instrument: fio's 'All clients' entry adds the hosts' usr and sys times (and
  # their job runtimes), so its CPU seconds are the hosts' sum
  run jq -r --argjson m "$m" '.client_stats[] | select(.jobname == "All clients")
    | ((.usr_cpu + .sys_cpu) / 100 * .job_runtime / 1000 * 1000 | round / 1000) == ($m.client_hosts | map(.client_cpu_s) | add)' "$FIX"
  assert_output true
}
