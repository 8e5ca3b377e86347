#!/usr/bin/env bats
# tests/compare/mannwhitney.bats: the rank-sum test of lib/mannwhitney.jq against published
# tables and a brute-force enumeration of every split of the pooled repeats.

setup() {
  load '../test_helper/common-setup'
  _common_setup
}

# mw EXPR: evaluate a jq expression with lib/mannwhitney.jq included; compact output.
mw() {
  jq -nc -L "$KIT_ROOT/lib" "include \"mannwhitney\"; $1"
}

# samples_with_u N1 N2 U: print "X Y" (two JSON arrays, no ties) where U of the pairs (x, y)
# have x > y: y = 1..N2, each x sits just above as many y as it needs (N1 <= 40).
samples_with_u() {
  local n1=$1 n2=$2 u=$3 i c x='' y
  for ((i = 0; i < n1; i++)); do
    c=$((u > n2 ? n2 : u))
    u=$((u - c))
    x+="${x:+,}$c.$((50 + i))"
  done
  y=$(seq -s, 1 "$n2")
  printf '[%s] [%s]\n' "$x" "$y"
}

@test "mannwhitney: exact p-values of textbook cases (samples apart, n=3+3, 4+4, 5+5)" {
  run mw 'mw_test([1,2,3];[4,5,6]) | .p, .min_p'
  assert_output $'0.1\n0.1'
  run mw 'mw_test([1,2,3,4];[5,6,7,8]) | .p * 70 | round'
  assert_output 2 # 2/C(8,4)
  # n=5+5: U=1 -> P(U<=1)=2/252, two-sided 4/252; U=2 -> 8/252; U=3 -> 14/252
  run mw 'mw_test([1,2,3,4,6];[5,7,8,9,10]).p * 252 | round'
  assert_output 4
  run mw 'mw_test([1,2,3,5,6];[4,7,8,9,10]).p * 252 | round'
  assert_output 8
  run mw 'mw_test([1,2,4,5,6];[3,7,8,9,10]).p * 252 | round'
  assert_output 14
}

@test "mannwhitney: the critical U of the published two-sided 5 % table is the last U with p < 0.05" {
  # Mann-Whitney table, two-tailed alpha = 0.05: (n1, n2, critical U)
  local row n1 n2 crit x y
  for row in "4 4 0" "5 5 2" "6 6 5" "6 8 8" "7 7 8" "8 8 13" "9 9 17" "10 10 23"; do
    read -r n1 n2 crit <<<"$row"
    read -r x y < <(samples_with_u "$n1" "$n2" "$crit")
    run mw "mw_test($x; $y).p < 0.05"
    assert_output true
    read -r x y < <(samples_with_u "$n1" "$n2" $((crit + 1)))
    run mw "mw_test($x; $y).p < 0.05"
    assert_output false
  done
}

@test "mannwhitney: p equals a brute-force enumeration of all splits, ties included" {
  kit_require_cmd python3
  local pair x y want got
  for pair in "[1,2,2,3] [2,3,3,4,5]" "[10,10,10] [10,10,11]" "[1.5,2.5,3.5,1.5] [2.5,2.5,4,5]" \
    "[7,3,9,1,5,5] [2,8,6,4,4,10,12]" "[4,4,4,4] [4,4,4,4]" "[1] [2,3,4,5,6,7,8,9]"; do
    read -r x y <<<"$pair"
    want=$(python3 - "$x" "$y" <<'EOF'
import itertools, json, sys
x, y = json.loads(sys.argv[1]), json.loads(sys.argv[2])
pool = sorted(x + y)
def midrank(v):
    lo = pool.index(v); hi = len(pool) - pool[::-1].index(v)
    return (lo + 1 + hi) / 2
ranks = [midrank(v) for v in x + y]
w = sum(ranks[:len(x)])
sums = [sum(c) for c in itertools.combinations(ranks, len(x))]
lo = sum(1 for s in sums if s <= w + 1e-9); hi = sum(1 for s in sums if s >= w - 1e-9)
print("%.10f" % min(1, 2 * min(lo, hi) / len(sums)))
EOF
    )
    got=$(mw "mw_test($x; $y).p * 1e10 | round / 1e10")
    run jq -n --argjson a "$want" --argjson b "$got" '($a - $b | fabs) < 1e-9'
    assert_output true
  done
}

@test "mannwhitney: the smallest n that can show a difference, and the minimum p" {
  run mw 'mw_min_n(0.05), mw_min_n(0.01), mw_min_n2(3; 0.05), mw_min_n2(2; 0.05), mw_min_n2(1; 0.05)'
  assert_output $'4\n5\n5\n8\n40'
  run mw 'mw_min_p(3; 3), mw_min_p(1; 1), mw_min_p(0; 5)'
  assert_output $'0.1\n1\n1'
}

@test "mannwhitney: which sample ranks higher, ties only, empty samples" {
  run mw 'mw_test([1,2,3,4];[5,6,7,8]).higher, mw_test([5,6,7,8];[1,2,3,4]).higher, mw_test([4,4];[4,4]).higher'
  assert_output $'"second"\n"first"\nnull'
  run mw 'mw_test([4,4,4,4];[4,4,4,4]) | [.p, .method]'
  assert_output '[1,"exact"]'
  run mw 'mw_test([];[1,2]) | [.p, .method]'
  assert_output '[1,null]'
}

@test "mannwhitney: above 40 values the normal approximation takes over and agrees with the data" {
  run mw 'mw_test([range(0;25)]; [range(100;125)]) | [.method, .p < 1e-6]'
  assert_output '["normal",true]'
  run mw 'mw_test([range(0;50;2)]; [range(1;51;2)]) | [.method, .p > 0.5]'
  assert_output '["normal",true]'
  run mw 'mw_test([range(0;20)]; [range(100;120)]) | [.method, (.p == .min_p)]'
  assert_output '["exact",true]'
}

@test "mannwhitney: median of odd and even counts" {
  run mw '([3,1,2] | mw_median), ([4,1,3,2] | mw_median), ([] | mw_median)'
  assert_output $'2\n2.5\nnull'
}
