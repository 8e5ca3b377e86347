#!/usr/bin/env bats
# shellcheck disable=SC2016 # the bash -c programs and the expected text hold $ literally
# lib/run/repeat.jq (one row from its repeats), lib/run/repeat.sh's raw file names and lib/run/sweep.sh's
# variant words. No root, no server.

setup() {
  load '../test_helper/common-setup'
  _common_setup
  # shellcheck source=lib/common.sh
  source "$KIT_ROOT/lib/common.sh"
  # shellcheck source=lib/run/repeat.sh
  source "$KIT_ROOT/lib/run/repeat.sh"
  # how each metric repeats is the metric's own (NAME_repeat)
  # shellcheck source=lib/registry.sh
  source "$KIT_ROOT/lib/registry.sh"
  registry_load
  # shellcheck source=lib/run/sweep.sh
  source "$KIT_ROOT/lib/run/sweep.sh"
}

# combine JSON_ARRAY [PER_S]: lib/run/repeat.jq's combine of the metric objects in JSON_ARRAY.
combine() {
  jq -c -n -L "$KIT_ROOT/lib" --argjson objs "$1" --argjson per_s "${2:-[]}" \
    --arg metric login --arg skip '' --arg error '' --argjson cpus 2 --argjson elapsed null \
    'include "run/repeat"; $objs | combine($per_s)'
}

# login VALUE STATUS [P95]: a login metric object.
login() {
  jq -cn --argjson v "$1" --arg s "$2" --argjson p "${3:-10}" \
    '{metric: "login", status: $s, value: $v, unit: "logins/s", target: 100, target_op: ">=",
      why: (if $s == "FAIL" then "p95 \($p) ms is above 20 ms" else "" end),
      details: {workers: 8, lat_ms: {p95: $p}}, warnings: [], elapsed_s: 11}'
}

# obj METRIC VALUE STATUS TARGET OP UNIT [WHY]: a metric object with one target.
obj() {
  jq -cn --arg m "$1" --argjson v "$2" --arg s "$3" --argjson t "$4" --arg op "$5" --arg u "$6" --arg why "${7:-}" \
    '{metric: $m, status: $s, value: $v, unit: $u, target: $t, target_op: $op, why: $why, details: {}, warnings: []}'
}

@test "combine: value is the median (the lower one of an even count), repeats in run order, spread = half range in % of the median" {
  run combine "[$(login 150 PASS 10),$(login 120 PASS 12),$(login 135 PASS 14),$(login 160 PASS 11)]"
  assert_success
  # an even count: the lower of the two middle ones, a value a repeat measured (and its details)
  run jq -e '.value == 135 and .repeats == [150, 120, 135, 160] and .status == "PASS"
    and .spread == {n: 4, median: 135, min: 120, max: 160, half_range_pct: (20 / 135 * 100)}
    and (has("unsure") | not) and .elapsed_s == 44 and .details.lat_ms.p95 == 14
    and ([.details.repeats[].repeat] == [1, 2, 3, 4])
    and (.details.figures[] | select(.figure == "lat_ms.p95") | .median == 11 and .min == 10 and .max == 14)
    and all(.details.figures[]; keys == ["figure", "max", "median", "min"])
    and ([.details.figures[].figure] | index("workers") | not)' <<<"$output"
  assert_success
}

@test "combine: the verdict is taken on the median, unsure when the target lies inside min-max" {
  run combine "[$(login 150 PASS),$(login 95 FAIL),$(login 130 PASS)]"
  run jq -e '.status == "PASS" and .value == 130 and .unsure == true
    and any(.warnings[]; test("inside the repeats. range 95-150"))' <<<"$output"
  assert_success
  run combine "[$(login 90 FAIL),$(login 95 FAIL),$(login 130 PASS)]"
  run jq -e '.status == "FAIL" and .value == 95 and .unsure == true and (.why | startswith("repeat 2 (the median, 95 logins/s)"))' <<<"$output"
  assert_success
  run combine "[$(login 90 FAIL),$(login 80 FAIL),$(login 85 FAIL)]"
  run jq -e '.status == "FAIL" and (has("unsure") | not)' <<<"$output"
  assert_success
}

@test "combine: a median that passes with most repeats failing on another condition fails, unsure" {
  run combine "[$(login 150 FAIL 30),$(login 160 FAIL 40),$(login 155 PASS 12)]"
  run jq -e '.status == "FAIL" and .value == 155 and .unsure == true
    and .why == "2 of 3 repeats failed; the median one, repeat 3, passed: repeat 1: 150 logins/s (p95 30 ms is above 20 ms); repeat 2: 160 logins/s (p95 40 ms is above 20 ms)"' <<<"$output"
  assert_success
}

@test "combine: a FAIL quotes the reason of the median repeat and names it, not the first failing repeat's" {
  # login's row said "p95 52.4 ms" (repeat 1's) while the median repeat's p95 was 155 ms
  run combine "[$(login 90 FAIL 52.4),$(login 130 PASS 12),$(login 95 FAIL 155)]"
  run jq -r '"\(.status) \(.value) \(.why) \(.details.lat_ms.p95)"' <<<"$output"
  assert_output 'FAIL 95 repeat 3 (the median, 95 logins/s): p95 155 ms is above 20 ms 155'
  # the median passes the rate but fails on its p95: its reason, and how many repeats failed
  run combine "[$(login 150 FAIL 52.4),$(login 160 PASS 12),$(login 155 FAIL 155)]"
  run jq -r '"\(.status) \(.why)"' <<<"$output"
  assert_output 'FAIL repeat 3 (the median, 155 logins/s): p95 155 ms is above 20 ms (2 of 3 repeats failed)'
}

@test "combine: unsure only where some repeats pass and some fail; a value equal to the target is no doubt" {
  # errors 0/0/0 against 0 and concurrency 64/64/64 against 64 read "PASS (unsure)"
  run combine "[$(obj errors 0 PASS 0 '<=' %),$(obj errors 0 PASS 0 '<=' %),$(obj errors 0 PASS 0 '<=' %)]"
  run jq -c '[.status, .unsure, .warnings]' <<<"$output"
  assert_output '["PASS",null,[]]'
  run combine "[$(obj concurrency 64 PASS 64 '>=' clients),$(obj concurrency 64 PASS 64 '>=' clients),$(obj concurrency 64 PASS 64 '>=' clients)]"
  run jq -c '[.status, .unsure, .warnings]' <<<"$output"
  assert_output '["PASS",null,[]]'
  # every repeat failed on p95: a sure FAIL, though the rates lie on both sides of the target
  run combine "[$(login 90 FAIL 52),$(login 130 FAIL 155),$(login 150 FAIL 60)]"
  run jq -c '[.status, .unsure, .warnings]' <<<"$output"
  assert_output '["FAIL",null,[]]'
  # the rates all pass, the verdicts differ (p95): unsure, and the warning says which repeats
  run combine "[$(login 150 PASS 12),$(login 160 FAIL 40),$(login 155 PASS 12)]"
  run jq -c '[.status, .unsure, .warnings]' <<<"$output"
  assert_output '["PASS",true,["the repeats'"'"' verdicts differ (repeat 2 FAIL; repeats 1, 3 PASS): the verdict is unsure; more repeats or a longer DURATION tell"]]'
}

@test "combine: a target that allows none (errors, 0 %) fails with any failing repeat, and names it" {
  # errors of 0 / 0 / 5 % passed by the median
  run combine "[$(obj errors 0 PASS 0 '<=' %),$(obj errors 0 PASS 0 '<=' %),$(obj errors 5 FAIL 0 '<=' % '50 of 1000 requests failed')]"
  run jq -c '[.status, .value, .why, .unsure]' <<<"$output"
  assert_output '["FAIL",0,"repeat 3: 5 % (50 of 1000 requests failed)",null]'
  run combine "[$(obj errors 0.5 FAIL 0 '<=' % '5 of 1000 requests failed'),$(obj errors 0 PASS 0 '<=' %),$(obj errors 2 FAIL 0 '<=' % '20 of 1000 requests failed')]"
  run jq -c '[.status, .why, .unsure]' <<<"$output"
  assert_output '["FAIL","repeat 1: 0.5 % (5 of 1000 requests failed); repeat 3: 2 % (20 of 1000 requests failed)",null]'
  # a target above 0 is judged on the median as before
  run combine "[$(obj errors 0 PASS 1 '<=' %),$(obj errors 0 PASS 1 '<=' %),$(obj errors 5 FAIL 1 '<=' % '50 of 1000 requests failed')]"
  run jq -c '[.status, .unsure]' <<<"$output"
  assert_output '["PASS",true]'
}

@test "combine: an even count of repeats gives a value one of them measured, not the midpoint" {
  # 4/16/64/4 clients gave "10 clients"
  run combine "[$(obj concurrency 4 FAIL 16 '>=' clients 'x'),$(obj concurrency 16 PASS 16 '>=' clients),$(obj concurrency 64 PASS 16 '>=' clients),$(obj concurrency 4 FAIL 16 '>=' clients 'x')]"
  run jq -c '[.status, .value, .spread.median, .why]' <<<"$output"
  assert_output '["FAIL",4,4,"repeat 1 (the median, 4 clients): x"]'
}

@test "result text: the median and the range the repeats measured, no '±' half range; one repeat, no range" {
  run combine "[$(login 164 PASS),$(login 197 PASS),$(login 196 PASS)]"
  run jq -r -L "$KIT_ROOT/lib" 'include "format"; result_text, progress_line, (.spread | keys | join(","))' <<<"$output"
  assert_output $'196 logins/s (range 164–197, n=3)\nPASS\t196 logins/s (range 164–197, n=3)  (target ≥ 100 logins/s) [33 s]\nhalf_range_pct,max,median,min,n'
  run combine "[$(login 150 PASS),null]"
  run jq -r -L "$KIT_ROOT/lib" 'include "format"; result_text' <<<"$output"
  assert_output '150 logins/s'
}

@test "combine: a repeat that did not run is null in repeats and left out of the figures" {
  run combine "[$(login 150 PASS),null,$(login 130 PASS)]"
  run jq -e '.repeats == [150, null, 130] and .spread.n == 2 and .value == 130' <<<"$output"
  assert_success
}

@test "combine: SKIP stays SKIP; per-second samples get their own figure" {
  run combine '[{"metric":"cpu","status":"SKIP","value":null,"why":"no cgroup"},{"metric":"cpu","status":"SKIP","value":null,"why":"no cgroup"}]'
  run jq -e '.status == "SKIP" and (has("repeats") | not)' <<<"$output"
  assert_success
  run combine "[$(login 150 PASS),$(login 130 PASS)]" '[["operations",[100,150,140]],["operations",[90,95]]]'
  run jq -e '.details.figures[] | select(.figure == "operations per second") | .median == 100 and .min == 90 and .max == 150' <<<"$output"
  assert_success
}

@test "raw names: the repeat goes after the measurement's name, whatever follows it" {
  local f
  local -a want=(login.r2.json login.r2.evidence.json concurrency.16.r2.json seqread.r2_bw.1.log
    seqread.r2.fio.json cpu.login.r2.json startup.r2.1.times.json login.r2.cgcpu.samples.jsonl)
  local -a got=()
  for f in login.json login.evidence.json concurrency.16.json seqread_bw.1.log seqread.fio.json \
    cpu.login.json startup.1.times.json login.cgcpu.samples.jsonl; do
    got+=("$(repeat_raw_name "$f" 2 login concurrency.16 seqread cpu.login)")
  done
  assert_equal "${got[*]}" "${want[*]}"
}

@test "interleaved plan: startup outside the repeats, the others (memory too) round by round" {
  # memory in every round (compare judges it on its repeats); startup once: its rounds are its repeats
  RUN_METRICS=(startup login metadata memory) REPEAT=2
  run repeat_plan
  assert_output $'startup 0\nlogin 1\nmetadata 1\nmemory 1\nlogin 2\nmetadata 2\nmemory 2'
  KIT_REPEAT_ORDER=blocks run repeat_plan
  assert_output $'startup 0\nlogin 1\nlogin 2\nmetadata 1\nmetadata 2\nmemory 1\nmemory 2'
  # localdisk (the local disk's baseline) in the first round only, beside the fio metrics
  RUN_METRICS=(seqread localdisk metadata) REPEAT=3
  run repeat_plan
  assert_output $'seqread 1\nlocaldisk 1\nmetadata 1\nseqread 2\nmetadata 2\nseqread 3\nmetadata 3'
  KIT_REPEAT_ORDER=blocks run repeat_plan
  assert_output $'seqread 1\nseqread 2\nseqread 3\nlocaldisk 1\nmetadata 1\nmetadata 2\nmetadata 3'
}

@test "startup and recovery: the rounds are the row's repeats (run order), the value the slowest, the range printed" {
  local d=$BATS_TEST_TMPDIR/raw n l r
  local -a files=()
  mkdir -p "$d"
  # rounds of 400, 812 and 500 ms to the first login; 1.2, 2.5 and 1.8 s to the client's write
  for n in 1 2 3; do
    l=$(((n == 1 ? 400 : n == 2 ? 812 : 500) * 1000000)) r=$(((n == 1 ? 1200 : n == 2 ? 2500 : 1800) * 1000000))
    printf '{"helper":"smb-wait-login","ok":true,"attempts":3,"first_success_ns":%s}\n' $((1000000000 + l)) >"$d/startup.$n.json"
    printf '{"start_ns":1000000000,"recovered_ns":%s,"error":null,"mounted":"yes","mount_skip":""}\n' $((1000000000 + r)) >"$d/startup.$n.times.json"
    files+=(--rawfile "raw:startup.$n.json" "$d/startup.$n.json" --rawfile "raw:startup.$n.times.json" "$d/startup.$n.times.json")
  done
  run env TARGET_STARTUP_LOGIN_MAX_MS=5000 TARGET_RECOVERY_MAX_S=30 jq -rn -L "$KIT_ROOT/lib" --arg metric startup \
    --arg skip '' --arg error '' --argjson cpus 2 --argjson elapsed null "${files[@]}" \
    'include "run/verdict"; include "format"; include "metrics/startup"; raw_files | verdict
     | "\(.metric) \(.repeats) \(.spread.median) \(.status) \(result_text)"'
  assert_success
  assert_output $'startup [400,812,500] 500 PASS 812 ms (range 400–812, n=3)\nrecovery [1.2,2.5,1.8] 1.8 PASS 2.5 s (range 1.2–2.5, n=3)'
}

@test "combine: a metric without a target (localdisk) passes on its repeats' verdicts, not on a median against nothing" {
  local one='{"metric":"localdisk","status":"PASS","value":4,"unit":"local jobs","target":null,"target_op":null,"why":"","details":{},"warnings":[]}'
  run combine "[$one,$one]"
  run jq -r '"\(.status) \(.why) \(.unsure // false)"' <<<"$output"
  assert_output 'PASS  false'
}

@test "sweep words: quotes as in the shell, nothing expanded, '#' starts a comment" {
  run bash -c 'source "$1/lib/common.sh"; source "$1/lib/run/sweep.sh"; sweep_words "$2" | tr "\0" "|"' x "$KIT_ROOT" \
    "SIGNING=mandatory  SAMBA_GLOBAL_PARAMS='aio read size = 1; x = \$(id)' A=\"b \\\"c\" # USE_SENDFILE=yes"
  assert_output 'SIGNING=mandatory|SAMBA_GLOBAL_PARAMS=aio read size = 1; x = $(id)|A=b "c|'
  run sweep_words "A='x"
  assert_failure
}

@test "sweep: a step that lost the first TERM (bash 5.2 can lose a trap) gets it again, not KILL" {
  # the stand-in step ignores the first TERM and ends on the second, leaving a mark
  local mark=$BATS_TEST_TMPDIR/second-term
  bash -c 'n=0; trap '\''n=$((n + 1)); if ((n > 1)); then echo ended >"$1"; exit 7; fi'\'' TERM
    for _ in {1..600}; do sleep 0.1; done' _ "$mark" &
  SWEEP_CHILD=$!
  sleep 0.5
  local t0=$SECONDS
  sweep_stop_child
  ((SECONDS - t0 <= 8)) || fail "it took $((SECONDS - t0)) s"
  [[ -z $SWEEP_CHILD ]]
  [[ -s $mark ]] || fail "the step did not end through its own trap"
}

@test "combine: the same warning of every repeat is one line with its numbers as ranges" {
  local a b c
  a=$(login 150 PASS | jq -c '.warnings = ["the clients used 0.6 of 2 cores during login: 94 % busy", "same"]')
  b=$(login 140 PASS | jq -c '.warnings = ["the clients used 0.8 of 2 cores during login: 99 % busy", "same"]')
  c=$(login 145 PASS | jq -c '.warnings = ["the clients used 0.7 of 2 cores during login: 91 % busy"]')
  run combine "[$a,$b,$c]"
  run jq -c '.warnings' <<<"$output"
  assert_output '["the clients used 0.6–0.8 of 2 cores during login: 91–99 % busy (in 3 repeats)","same"]'
  # repeats whose own steps' warnings were merged already (metric objects come out of
  # verdict.jq's object): merged once more, not garbled ("0.6-0.7-0.8-0.9 ... (in 2-3 ...)")
  a=$(login 150 PASS | jq -c '.warnings = ["used 0.6 of 2 cores during concurrency.4", "used 0.7 of 2 cores during concurrency.16"]' |
    jq -c -L "$KIT_ROOT/lib" --arg metric login --argjson elapsed null 'include "run/verdict"; object')
  b=$(login 140 PASS | jq -c '.warnings = ["used 0.8 of 2 cores during concurrency.4", "used 0.9 of 2 cores during concurrency.64", "used 0.8 of 2 cores during concurrency.128"]' |
    jq -c -L "$KIT_ROOT/lib" --arg metric login --argjson elapsed null 'include "run/verdict"; object')
  run combine "[$a,$b]"
  run jq -c '.warnings' <<<"$output"
  assert_output '["used 0.6–0.9 of 2 cores during concurrency.4/16/64/128 (in 2 repeats)"]'
}

@test "combine: a server command's figures are that command's in every repeat, whatever its place in the list" {
  # the server view lists commands by time: Read first in one repeat, Close first in another;
  # the figures were taken by place, and mixed Read's mean time with Close's (±290 %)
  local a b
  a=$(login 150 PASS | jq -c '.details.server.commands = [{command: "Read", calls: 100, mean_us: 500}, {command: "Close", calls: 10, mean_us: 20}]')
  b=$(login 140 PASS | jq -c '.details.server.commands = [{command: "Close", calls: 12, mean_us: 22}, {command: "Read", calls: 110, mean_us: 520}]')
  run combine "[$a,$b]"
  run jq -c '[.details.figures[] | select(.figure | startswith("server.")) | [.figure, .min, .max]]' <<<"$output"
  assert_output '[["server.commands.Read.calls",100,110],["server.commands.Read.mean_us",500,520],["server.commands.Close.calls",10,12],["server.commands.Close.mean_us",20,22]]'
}

@test "sweep base: the server's recorded settings taken from start-samba.sh's environment, and its Samba parameters where they differ" {
  run bash -c 'source "$1/lib/common.sh"; source "$1/lib/server/serverconf.sh"; source "$1/lib/run/sweep.sh"
    SAMBA_GLOBAL_PARAMS="" SAMBA_SHARE_PARAMS="strict locking = no"
    KIT_SAMBA_SETTINGS="ENCRYPTION=yes SIGNING=default STRICT_SYNC=yes USE_SENDFILE=no"
    KIT_SAMBA_SETTINGS_ENV="ENCRYPTION"
    KIT_SAMBA_PARAMS=$(jq -cn '"'"'{SAMBA_GLOBAL_PARAMS: "aio read size = 1; a = b=c", SAMBA_SHARE_PARAMS: "strict locking = no"}'"'"')
    sweep_base; printf "%s|" "${SWEEP_BASE[@]}"; echo
    KIT_SAMBA_PARAMS=""; sweep_base; printf "%s|" "${SWEEP_BASE[@]}"' x "$KIT_ROOT"
  assert_success
  assert_output $'ENCRYPTION=yes|SAMBA_GLOBAL_PARAMS=aio read size = 1; a = b=c|\nENCRYPTION=yes|'
}

# evidence OTHERS_US: a measurement's evidence line over 10 s on 2 cores: the clients used 3 s,
# smbd 5 s, and other processes OTHERS_US µs (the machine was busy 8 s + OTHERS_US).
evidence() {
  jq -cn --argjson o "$1" '{wall_s: 10, probes: {
    clientcpu: {available: true, source: "cgroup2", used_us: 3e6, machine_busy_us: (8e6 + $o), window_s: 10, nproc: 2},
    cgcpu: {available: true, source: "cgroup2", used_us: 5e6}}}'
}

@test "disturbed: a measurement is disturbed when other processes used >= 25 % of the machine, the worst one named" {
  cd "$BATS_TEST_TMPDIR"
  evidence 2e6 >login.evidence.json
  echo '{"helper":"smb-login-storm"}' >login.json
  run repeat_disturbed login.json login.evidence.json
  assert_failure
  assert_output ''
  evidence 5e6 >concurrency.4.evidence.json
  evidence 12e6 >concurrency.16.evidence.json
  : >concurrency.64.evidence.json
  run repeat_disturbed login.evidence.json concurrency.4.evidence.json concurrency.16.evidence.json concurrency.64.evidence.json
  assert_success
  assert_output 'other processes used 1.2 of 2 cores during concurrency.16'
  # the threshold is clientcpu's own: 0.5 of 2 cores is disturbed, 0.4 is not
  evidence 5e6 >login.evidence.json
  run repeat_disturbed login.evidence.json
  assert_output 'other processes used 0.5 of 2 cores during login'
  evidence 4e6 >login.evidence.json
  run repeat_disturbed login.evidence.json
  assert_failure
}

@test "disturbed: /proc/stat's steal is not CPU a process here used" {
  source "$KIT_ROOT/lib/probes/clientcpu.sh"
  # user nice system idle iowait irq softirq steal guest guest_nice
  printf 'cpu  100 20 30 5000 40 5 6 700 0 0\ncpu0 50 10 15 2500 20 2 3 350 0 0\n' >"$BATS_TEST_TMPDIR/stat"
  run clientcpu_machine_ticks "$BATS_TEST_TMPDIR/stat"
  assert_output 161
}

@test "disturbed: a disturbed repeat is measured again once, at most REPEAT extra a run, the first kept under its own name" {
  # run_one stands for the measurement: it writes login.json and its evidence with the other
  # processes' CPU taken from the queue in $q, one line a call
  local q=$BATS_TEST_TMPDIR/others
  run_one() {
    local o
    o=$(head -n1 "$q") && sed -i 1d "$q"
    echo "{\"measured\":$o}" >"$RUN_DIR/raw/$1.json"
    evidence "$o" >"$RUN_DIR/raw/$1.evidence.json"
    echo "{\"metric\":\"$1\"}" >"$RUN_DIR/metrics/$1.json"
  }
  registry_estimate() { echo 7; }
  REPEAT=2 REPEAT_EXTRA=0 RUN_LEFT=0 REPEAT_BASE=$BATS_TEST_TMPDIR/run
  mkdir -p "$REPEAT_BASE/raw" "$REPEAT_BASE/.repeat.1/raw" "$REPEAT_BASE/.repeat.1/metrics" \
    "$REPEAT_BASE/.repeat.2/raw" "$REPEAT_BASE/.repeat.2/metrics"
  # repeat 1: disturbed (1.2 cores), measured again: quiet (whole numbers: jq 1.7 passes a
  # number literal through unchanged in value but not in form: 12e6 as 1.2E+7)
  printf '%s\n' 12000000 1000000 >"$q"
  RUN_DIR=$REPEAT_BASE/.repeat.1
  repeat_measure login 1 1 4 2>"$BATS_TEST_TMPDIR/log"
  run jq -c .measured "$RUN_DIR/raw/login.json" "$REPEAT_BASE/raw/login.r1.disturbed1.json"
  assert_output $'1000000\n12000000'
  assert [ -f "$REPEAT_BASE/raw/login.r1.disturbed1.evidence.json" ]
  run jq -c . "$RUN_DIR/disturbed.jsonl"
  assert_output '{"metric":"login","repeat":1,"reason":"other processes used 1.2 of 2 cores during login","replaced":true,"tag":".r1.disturbed1","kept":["login.r1.disturbed1.evidence.json","login.r1.disturbed1.json"]}'
  assert_equal "$REPEAT_EXTRA $RUN_LEFT" "1 7"
  run grep -c 'repeat 1 of login measured again: other processes used 1.2 of 2 cores during login (extra measurement 1 of at most 2' "$BATS_TEST_TMPDIR/log"
  assert_output 1
  # disturbed again after its second measurement: kept, and said
  printf '%s\n' 12000000 11000000 >"$q"
  RUN_DIR=$REPEAT_BASE/.repeat.2
  repeat_measure login 2 2 4 2>"$BATS_TEST_TMPDIR/log"
  run jq -c '[.repeat, .replaced, .reason]' "$RUN_DIR/disturbed.jsonl"
  assert_output $'[2,true,"other processes used 1.2 of 2 cores during login"]\n[2,false,"other processes used 1.1 of 2 cores during login"]'
  assert_equal "$REPEAT_EXTRA" 2
  # the run's REPEAT extra measurements are used up: a disturbed repeat is kept at once
  printf '%s\n' 12000000 >"$q"
  repeat_measure metadata 2 3 4 2>"$BATS_TEST_TMPDIR/log"
  run jq -c 'select(.metric == "metadata") | .replaced' "$RUN_DIR/disturbed.jsonl"
  assert_output false
  assert_equal "$REPEAT_EXTRA $(wc -l <"$q")" "2 0"
  run grep -c 'extra measurements are used up' "$BATS_TEST_TMPDIR/log"
  assert_output 1
}

@test "disturbed: the row names the repeats measured again and why, and warns when its verdict rests on a disturbed one" {
  local d='[{"repeat":3,"reason":"other processes used 1.1 of 2 cores during login","replaced":false},
    {"repeat":2,"reason":"other processes used 1.2 of 2 cores during login","replaced":true,"tag":".r2.disturbed1"}]'
  run jq -c -n -L "$KIT_ROOT/lib" --argjson objs "[$(login 150 PASS),$(login 140 PASS),$(login 145 PASS)]" --argjson d "$d" \
    --arg metric login --arg skip '' --arg error '' --argjson cpus 2 --argjson elapsed null \
    'include "run/repeat"; $objs | combine([]) | disturbed_mark($d) | [.status, [.details.disturbed[].repeat], .details.notes, .warnings]'
  assert_output '["PASS",[2,3],["repeat 2 measured again: other processes used 1.2 of 2 cores during login (the first measurement is in raw/ with '"'"'.r2.disturbed1'"'"' in its files'"'"' names)"],["the verdict rests on disturbed repeat 3 (other processes used 1.1 of 2 cores during login): measured again at most once each and at most REPEAT extra measurements a run"]]'
  # nothing disturbed: the row as combine made it
  run jq -c -n -L "$KIT_ROOT/lib" --argjson objs "[$(login 150 PASS)]" \
    --arg metric login --arg skip '' --arg error '' --argjson cpus 2 --argjson elapsed null \
    'include "run/repeat"; $objs | combine([]) | (disturbed_mark([]) == .)'
  assert_output true
}
