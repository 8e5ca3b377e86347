#!/usr/bin/env bats
# tests/compare/aa.bats: compare calibrated on identical runs (A/A). Pairs of simulated default
# runs (tests/compare/aa-sim.sh: 3 repeats a metric, spreads as measured here, one repeat in 20
# disturbed) go through the kit's own lib/report/compare.jq; the share of pairs in which compare
# claims any difference must stay at or below 5 % (its stated family-wise error rate), and a
# large change must still be found (the check is not vacuous). Deterministic: fixed seeds.
# Without the Holm correction the same 200 pairs gave a claim in 62 (31 %) and exit 1 in 38.

setup() {
  load '../test_helper/common-setup'
  _common_setup
  ORDER=$(grep -oE '^[a-z]+' "$KIT_ROOT/lib/metrics/list")
}

# sim GROUPS SEED BAND [SHIFT] [METRICS] [RUNS]: compare each simulated group of RUNS runs (2: a
# pair); print how many groups had a metric "worse" (compare's exit 1) and how many had any
# claim (better or worse).
sim() {
  "$KIT_ROOT/tests/compare/aa-sim.sh" "$1" "$2" "${4:-}" "${6:-2}" |
    jq -nc -L "$KIT_ROOT/lib" --argjson band "$3" --arg order "$ORDER" --arg keep "${5:-}" --argjson runs "${6:-2}" '
      include "report/compare";
      [inputs | if $keep == "" then . else .metrics |= with_entries(select(.key as $k | $keep | split(" ") | index($k))) end]
      | [_nwise($runs) | compare_runs(95; $band; $order)]
      | [(map(select(.worse)) | length),
         (map(select(any(.metrics[].versus[]; .verdict == "worse" or .verdict == "better"))) | length)]'
}

@test "A/A: 200 simulated pairs of default runs: a claimed difference in at most 5 %, without the band too" {
  local out worse any
  for band in 0 "$(bash -c 'source "$1/lib/common.sh"; source "$1/lib/settings.sh"; KIT_ROOT=$1 settings_get COMPARE_BAND_PCT' _ "$KIT_ROOT")"; do
    out=$(sim 200 1 "$band")
    worse=$(jq '.[0]' <<<"$out") any=$(jq '.[1]' <<<"$out")
    echo "# band $band %: exit 1 in $worse of 200 pairs, any claim in $any" >&3
    ((any <= 10)) || fail "band $band: compare claimed a difference in $any of 200 identical pairs (more than 5 %)"
    ((worse <= any))
  done
}

@test "A/A: the test still finds a large change (metadata halved in B: found in most of 40 pairs)" {
  local out
  out=$(sim 40 3 5 metadata=0.5 'login metadata')
  echo "# metadata x0.5: worse in $(jq '.[0]' <<<"$out") of 40 pairs" >&3
  (($(jq '.[0]' <<<"$out") >= 24)) || fail "a halved metadata rate was found in $(jq '.[0]' <<<"$out") of 40 pairs"
}

@test "A/A: a sweep of 4 identical variants (3 against the first, 36 tests): a claim in at most 5 % of 60 sweeps" {
  local out
  out=$(sim 60 5 0 '' '' 4)
  echo "# band 0 %: exit 1 in $(jq '.[0]' <<<"$out") of 60 sweeps, any claim in $(jq '.[1]' <<<"$out")" >&3
  (($(jq '.[1]' <<<"$out") <= 3)) || fail "a claim in $(jq '.[1]' <<<"$out") of 60 sweeps of identical variants"
}
