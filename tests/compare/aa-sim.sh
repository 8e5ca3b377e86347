#!/usr/bin/env bash
# Usage: tests/compare/aa-sim.sh GROUPS SEED [SHIFT] [RUNS]
# Summary: simulated groups of default runs (3 repeats a metric) as compare's input, JSON lines
#
# Prints RUNS (default 2: a pair; a sweep has more) x GROUPS run objects (A, B, ... of each
# group, one a line) in the shape lib/report/compare.jq reads, with
# the rows of lib/metrics/list that have a target. Each repeat is the metric's typical value
# times exp(cv x N(0,1)), cv from the spreads of real default runs on this 2-core machine (login
# 10 %, metadata 12 %, cpu 5 %, ...), and one repeat in 20 disturbed (30 % off in the bad
# direction) as a busy neighbour makes it. concurrency is a step (4, 16 or 64 clients) and
# errors 0 % with a rare failed request. SHIFT (e.g. 'login=0.75', or '' for none) multiplies
# one metric's values in every run but the first of a group: for the power check.
# Deterministic for a SEED.
set -euo pipefail
pairs=${1:?groups} seed=${2:?seed} shift_arg=${3:-} runs=${4:-2}
awk -v pairs="$pairs" -v seed="$seed" -v shift_arg="$shift_arg" -v runs="$runs" '
function gauss(   u, v) { u = rand(); if (u < 1e-12) u = 1e-12; v = rand(); return sqrt(-2 * log(u)) * cos(6.283185307179586 * v) }
function rep(m,   x) {
  if (m == "concurrency") { x = rand(); return x < 0.15 ? 4 : (x < 0.9 ? 16 : 64) }
  if (m == "errors") return rand() < 0.03 ? 0.01 : 0
  x = base[m] * exp(cv[m] * gauss())
  if (rand() < 0.05) x = dir[m] == ">=" ? x * 0.7 : x / 0.7
  return x
}
BEGIN {
  srand(seed)
  n = split("startup login seqwrite seqread randread randwrite latency errors metadata concurrency cpu memory", names, " ")
  split("250 190 120 300 9000 7000 1.2 0 1700 16 55 0.76", b, " ")
  split("0.15 0.10 0.08 0.08 0.08 0.10 0.10 0 0.12 0 0.05 0.02", c, " ")
  split("<= >= >= >= >= >= <= <= >= >= <= <=", d, " ")
  for (i = 1; i <= n; i++) { base[names[i]] = b[i]; cv[names[i]] = c[i]; dir[names[i]] = d[i] }
  if (shift_arg != "") { split(shift_arg, s, "="); shift_m = s[1]; shift_f = s[2] + 0 }
  for (k = 1; k <= pairs; k++) for (r = 1; r <= runs; r++) {
    run = substr("ABCDEFGHIJKLMNOPQRSTUVWXYZ", r, 1)
    printf "{\"label\":\"%s\",\"path\":\"sim/%d/%s\",\"settings\":{},\"smbconf\":null,\"system\":{},\"metrics\":{", run, k, run
    for (i = 1; i <= n; i++) {
      m = names[i]
      printf "%s\"%s\":{\"metric\":\"%s\",\"status\":\"PASS\",\"unit\":\"u\",\"target\":1,\"target_op\":\"%s\",\"repeats\":[", (i > 1 ? "," : ""), m, m, dir[m]
      for (j = 1; j <= 3; j++) {
        v = rep(m)
        if (r > 1 && m == shift_m) v *= shift_f
        printf "%s%.6g", (j > 1 ? "," : ""), v
      }
      printf "]}"
    }
    printf "}}\n"
  }
}'
