#!/usr/bin/env bats
# One fio run through the client hosts' fio servers (lib/run/clienthosts-fio-run.sh): the job file
# a host gets holds the same job as the local fio_run (fio's own --showcmd reads it back), its
# paths on the host's own mount, nothing but --KEY[=VALUE] lines; the reshaping of a real fio 3.33
# `fio --client ... --output-format=json+` output (fixtures/fio-clients/randread.json, see
# clienthosts-fio.bats) into fio's own shape, read by the fio verdicts' fio_summary.

setup() {
  load ../test_helper/common-setup
  _common_setup
  kit_require_cmd jq fio
  FIX=$KIT_ROOT/tests/fixtures/fio-clients/randread.json
  # shellcheck disable=SC2317 # called by chfio_jobfile
  run_why() { RUN_WHY=$*; }
  # shellcheck source=lib/run/fio.sh
  source "$KIT_ROOT/lib/run/fio.sh"
  # shellcheck source=lib/run/clienthosts-fio-run.sh
  source "$KIT_ROOT/lib/run/clienthosts-fio-run.sh"
  DATA_FILE_MB=64 DURATION=5 MOUNT_POINT=/mnt/samba-perf-test
}

@test "job file: fio reads back the local job (the shared options, then seqread's own), its files on the host's mount" {
  local -a opts
  chfio_jobfile seqread "$MOUNT_POINT/fio" /tmp/c1/mnt/fio/ws1 --rw=read --bs=1M --iodepth=4 --numjobs=2 \
    "--filename_format=$MOUNT_POINT/fio/data.\$jobnum" >"$BATS_TEST_TMPDIR/job.fio"
  run grep -c '^\[' "$BATS_TEST_TMPDIR/job.fio"
  assert_output 1 # one section: fio's "All clients" sum breaks with several
  mapfile -t opts < <(fio_job_options)
  run fio --showcmd "$BATS_TEST_TMPDIR/job.fio"
  assert_success
  # the command fio_run would run here, the files moved to the host's own set on its own mount
  assert_output "fio --name=seqread ${opts[*]} --rw=read --bs=1M --iodepth=4 --numjobs=2 --filename_format=/tmp/c1/mnt/fio/ws1/data.\$jobnum "
  [[ ${opts[*]} == *--size=64M*--runtime=5*--lat_percentiles=1*--continue_on_error=all* ]] || fail "shared options: ${opts[*]}"
}

@test "job file: a filename outside the data folder stays, the folder itself moves, a flag stays a flag" {
  chfio_jobfile randread "$MOUNT_POINT/fio" /h/mnt/fio/ws1 --filename="$MOUNT_POINT/fio/data.0" \
    --directory="$MOUNT_POINT/fio" --filename=/srv/other --filename="$MOUNT_POINT/x" --time_based >"$BATS_TEST_TMPDIR/job.fio"
  run tail -n 5 "$BATS_TEST_TMPDIR/job.fio"
  assert_output $'filename=/h/mnt/fio/ws1/data.0\ndirectory=/h/mnt/fio/ws1\nfilename=/srv/other\nfilename='"$MOUNT_POINT"$'/x\ntime_based'
  # a folder that only starts the same is not the folder
  run chfio_jobfile r "$MOUNT_POINT/fio" /h/mnt/fio/ws1 --filename="$MOUNT_POINT/fio2/data.0"
  assert_line "filename=$MOUNT_POINT/fio2/data.0"
}

@test "job file: an argument that is not one --KEY[=VALUE] line is refused, never written as a new section" {
  run chfio_jobfile r /m /h/mnt $'--rw=read\n[evil]\nexec_prerun=touch /tmp/x'
  assert_failure
  refute_output --partial '[evil]'
  chfio_jobfile r /m /h/mnt -rw=read || true
  [[ $RUN_WHY == "fio option '-rw=read' cannot go into a client host's job file (--KEY[=VALUE] on one line)" ]] ||
    fail "RUN_WHY: $RUN_WHY"
}

# fio_json [FILE]: FILE (the fixture) reshaped (chfio_fio_json)
fio_json() { jq -L "$KIT_ROOT/lib" 'include "run/clienthosts-fio"; chfio_fio_json' "${1:-$FIX}"; }

@test "reshaped: one job of all hosts, counts and rates added, fio's percentile keys from the merged bins" {
  fio_json >"$BATS_TEST_TMPDIR/fio.json"
  run jq -c '[(.jobs | length), .jobs[0].read.total_ios, (.jobs[0].read.iops * 100 | round / 100), .jobs[0].read.runtime,
    .jobs[0].read.lat_ns.N, (.jobs[0].read.lat_ns.bins | add), .client_hosts]' "$BATS_TEST_TMPDIR/fio.json"
  assert_output '[1,61842,30905.55,2001,61842,61842,["127.0.0.61","127.0.0.62"]]'
  # bytes/s and ios add up to fio's own 'All clients' entry
  run jq -r --slurpfile f "$BATS_TEST_TMPDIR/fio.json" '.client_stats[] | select(.jobname == "All clients")
    | (.read.bw_bytes - $f[0].jobs[0].read.bw_bytes | fabs <= 1) and .read.total_ios == $f[0].jobs[0].read.total_ios' "$FIX"
  assert_output true
  # percentiles: the merge's own (ms, lib/run/clienthosts-fio.jq) in ns, under fio's keys
  run jq -r -L "$KIT_ROOT/lib" --slurpfile f "$BATS_TEST_TMPDIR/fio.json" 'include "run/clienthosts-fio"; chfio_merge({}).merged.read.lat_ms
    | [.p50, .p95, .p99] == ($f[0].jobs[0].read.lat_ns.percentile | [."50.000000", ."95.000000", ."99.000000"] | map(. / 1e6 | . * 10000 | round / 10000))' "$FIX"
  assert_output true
  run jq -r '.jobs[0].read.lat_ns.percentile | keys_unsorted | join(" ")' "$BATS_TEST_TMPDIR/fio.json"
  assert_output "1.000000 5.000000 10.000000 20.000000 30.000000 40.000000 50.000000 60.000000 70.000000 80.000000 90.000000 95.000000 99.000000 99.500000 99.900000 99.950000 99.990000"
}

@test "reshaped: the fio verdicts' summary reads it (iops, MB/s, ios, total latency, the busiest host's fio CPU)" {
  fio_json >"$BATS_TEST_TMPDIR/fio.json"
  run jq -c -L "$KIT_ROOT/lib" 'include "run/fio"; fio_summary | [(.read.iops | round), (.read.bw_mbs | round), .read.ios,
    .read.lat_ms.p50, (.read.lat_ms.max | . * 1000 | round), (.latency | startswith("total latency")), .busy_pct, .errors, .runtime_s, .write.ios]' \
    "$BATS_TEST_TMPDIR/fio.json"
  assert_success
  local busy
  busy=$(jq '[.client_stats[] | select(.jobname != "All clients") | .usr_cpu + .sys_cpu] | max' "$FIX")
  assert_output "[30906,127,61842,0.058624,4865,true,$busy,0,2.001,0]"
}

@test "reshaped by chfio_reshape: raw/NAME.clients.json and raw/NAME.fio.json, each host's this_machine from the state" {
  RUN_DIR=$BATS_TEST_TMPDIR/run KIT_CLIENT_MACHINE='ws1=other ws2=this'
  mkdir -p "$RUN_DIR/raw"
  cp "$FIX" "$RUN_DIR/raw/randread.clients-fio.out"
  chfio_reshape randread '{"127.0.0.61":"ws1","127.0.0.62":"ws2"}'
  # (a jq program that named a def of a module it did not include left no clients.json)
  run jq -c '[.client_hosts[] | [.host, .this_machine, .client_cpu_s]]' "$RUN_DIR/raw/randread.clients.json"
  assert_output '[["ws1",false,0.475],["ws2",true,0.454]]'
  run jq -c '.jobs[0].read.total_ios' "$RUN_DIR/raw/randread.fio.json"
  assert_output 61842
}

@test "reshaped: a host's failed requests and error reach the summary" {
  jq '(.client_stats[] | select(.hostname == "127.0.0.62" and .jobname != "All clients")) |= (.total_err = 7 | .error = 5 | .first_error = 5)' \
    "$FIX" >"$BATS_TEST_TMPDIR/err.json"
  fio_json "$BATS_TEST_TMPDIR/err.json" >"$BATS_TEST_TMPDIR/fio.json"
  run jq -c -L "$KIT_ROOT/lib" 'include "run/fio"; fio_summary | [.errors, .first_error]' "$BATS_TEST_TMPDIR/fio.json"
  assert_output '[7,5]'
}

@test "skip reason: with every host mounted the metrics that declare it run; the others SKIP naming what is missing" {
  # shellcheck source=lib/run/clienthosts-fio.sh
  source "$KIT_ROOT/lib/run/clienthosts-fio.sh"
  # shellcheck source=lib/registry.sh
  source "$KIT_ROOT/lib/registry.sh"
  local m
  for m in $(registry_metrics); do registry_source "$m"; done
  KIT_CLIENT_FIO='ws1=198.18.0.2,mounted ws2=198.18.0.3,mounted'
  run clienthosts_fio_skip_reason seqread
  assert_failure
  assert_output ''
  run clienthosts_fio_skip_reason randwrite
  assert_failure
  run clienthosts_fio_skip_reason latency
  assert_success
  assert_output "latency does not run through the client hosts' fio servers yet (issue 23); those that do: seqwrite seqread randread randwrite"
  # a metric that says why not: its reason is given
  seqwrite_clienthosts_fio() {
    echo "not today"
    return 1
  }
  run clienthosts_fio_skip_reason seqwrite
  assert_output "seqwrite does not run through the client hosts' fio servers yet (issue 23): not today; those that do: seqread randread randwrite"
  # the steady run's own question (no metric) is not answered yes
  run clienthosts_fio_skip_reason
  assert_success
  assert_output --partial "the steady run (latency, errors) does not run"
  # a host without cifs still wins, naming it
  KIT_CLIENT_FIO='ws1=198.18.0.2,mounted ws2=198.18.0.3,nocifs'
  run clienthosts_fio_skip_reason seqread
  assert_output "client host 'ws2' has no kernel cifs client: the fio metrics run on each client host's cifs mount of the share"
}

@test "merge: a host's runtime is its jobs' wall time, not fio's job_runtime (summed over numjobs)" {
  # fio 3.33 with group_reporting and numjobs=4 (the guest's randread): job_runtime 8373 ms,
  # read.runtime 2119 ms for a 2 s run; the fixture's host 1 made so
  jq '(.client_stats[] | select(.hostname == "127.0.0.61" and .jobname != "All clients")) |= (.job_runtime = 8373 | .read.runtime = 2119)' \
    "$FIX" >"$BATS_TEST_TMPDIR/jobs4.json"
  run jq -r -L "$KIT_ROOT/lib" 'include "run/clienthosts-fio"; chfio_merge({}) | [.client_hosts[].runtime_s] | join(" ")' "$BATS_TEST_TMPDIR/jobs4.json"
  assert_output "2.119 2.001"
}
