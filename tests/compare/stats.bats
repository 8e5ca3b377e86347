#!/usr/bin/env bats
# tests/compare/stats.bats: the statistics of lib/report/stats.jq against published values: Student's t
# table, the closed forms of t with 1 and 2 degrees of freedom, Welch's worked example, Holm.

setup() {
  load '../test_helper/common-setup'
  _common_setup
}

# st EXPR: evaluate a jq expression with lib/report/stats.jq included; compact output.
st() {
  jq -nc -L "$KIT_ROOT/lib" "include \"report/stats\"; $1"
}

@test "stats: two-sided critical t of the published table (df 2, 3, 4, 5, 10, 30, normal)" {
  # alpha df t: from any Student's t table (two-sided)
  local row
  for row in '0.05 2 4.303' '0.10 3 2.353' '0.05 4 2.776' '0.01 5 4.032' '0.05 10 2.228' \
    '0.05 30 2.042' '0.05 1000000 1.96'; do
    read -r a df t <<<"$row"
    run st "st_t_q($a; $df) * 1000 | round / 1000"
    assert_output "$t"
  done
}

@test "stats: the t tail equals the closed forms for 1 and 2 degrees of freedom" {
  # df 1 (Cauchy): P(|T| >= t) = 1 - 2 atan(t) / pi; df 2: 1 - t / sqrt(2 + t^2)
  local t
  for t in 0.3 1 2 5 20; do
    run st "(st_t_p2($t; 1) - (1 - 2 * ($t | atan) / (1 | atan * 4))) | fabs < 1e-9"
    assert_output true
    run st "(st_t_p2($t; 2) - (1 - $t / (2 + $t * $t | sqrt))) | fabs < 1e-9"
    assert_output true
  done
  run st 'st_t_p2(0; 3), st_t_p2(1e9; 3) < 1e-20'
  assert_output $'1\ntrue'
}

@test "stats: Welch's test of the worked example (t 2.46, df 25.0, p 0.021)" {
  # the textbook example of Welch's t-test (e.g. Wikipedia, "Welch's t-test", example 1)
  run st 'st_welch([27.5,21.0,19.0,23.6,17.0,17.9,16.9,20.1,21.9,22.6,23.1,19.6,19.0,21.7,21.4];
    [27.1,22.0,20.8,23.4,23.4,23.5,25.8,22.0,24.8,20.2,21.9,22.1,22.9,20.5,24.4]; 0.05; 0)
    | [(.t * 100 | round / 100), (.df * 10 | round / 10), (.p * 1000 | round / 1000), .lo < 0.5, .hi > 3.9]'
  assert_output '[2.46,25,0.021,true,true]'
}

@test "stats: samples without spread get the floor, not a division by zero" {
  run st 'st_welch([16,16,16]; [16,16,16]; 0.05; 0.001) | [.p, .diff]'
  assert_output '[1,0]'
  run st 'st_welch([16,16,16]; [4,4,4]; 0.05; 0.001) | .p < 1e-6'
  assert_output true
}

@test "stats: Holm's adjusted p-values keep their order, skip untested entries and stop at 1" {
  run st '[0.01, null, 0.04, 0.03, 0.005] | st_holm'
  assert_output '[0.03,null,0.06,0.06,0.02]'
  run st '[0.5, 0.9] | st_holm'
  assert_output '[1,1]'
  run st '[] | st_holm'
  assert_output '[]'
}

@test "stats: the median of an even count is the lower middle value, one that was measured" {
  run st '([3,1,2] | st_median), ([4,1,3,2] | st_median), ([4,16,64,4] | st_median), ([] | st_median)'
  assert_output $'2\n2\n4\nnull'
}
