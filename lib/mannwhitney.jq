# lib/mannwhitney.jq: the two-sided Mann-Whitney U test (Wilcoxon rank-sum) and the small
# statistics compare needs. A jq module: definitions only (include "mannwhitney" with -L lib).
#
# Why a rank test: repeats of a benchmark are often skewed (one slow repeat when something
# else ran); the U test assumes no distribution, only that larger is larger. Go's benchstat
# uses the same test at the same 95 %. Its price: it can only be as sure as the number of
# ways to split the repeats allows: with 3 and 3 the smallest two-sided p is 2/20 = 0.1, so at
# 95 % it needs 4 repeats in each run (2/70 = 0.029); mw_min_n computes this for any level.
# Why here and not a packaged tool: ministat (Student's t, assumes normal data) is packaged
# for Debian and Ubuntu but not for RHEL, Fedora or EPEL; scipy and R (wilcox.test) are
# packaged on both but pull in 60-100 MB for one function. The exact rank-sum distribution
# is a short dynamic programme, jq is already a dependency of the kit, and
# tests/compare/mannwhitney.bats checks it against the published critical-value table and a
# brute-force enumeration of every split.
#
# Method: pool both samples, give each value its mid-rank (ties share the mean of their
# ranks), and count, over all C(n1+n2, n1) ways to split the pool, how often the rank sum of
# the first sample is at most / at least the one observed (exact permutation distribution,
# also exact with ties). p = min(1, 2 * min(P(W <= w), P(W >= w))), as R's wilcox.test and
# scipy's mannwhitneyu(method="exact") compute it. Above mw_exact_max (40) values in all, the
# normal approximation with tie and continuity correction is used instead.

def mw_exact_max: 40;

# mw_median: the median of an array of numbers (mean of the middle two for an even count).
def mw_median:
  sort as $s | ($s | length) as $n
  | if $n == 0 then null
    elif $n % 2 == 1 then $s[($n - 1) / 2]
    else ($s[$n / 2 - 1] + $s[$n / 2]) / 2 end;

# mw_binom($n; $k): C(n, k) as a float.
def mw_binom($n; $k):
  reduce range(0; [$k, $n - $k] | min) as $i (1; . * ($n - $i) / ($i + 1));

# mw_min_p($n1; $n2): the smallest two-sided p the exact test can give for these sizes
# (no ties): both samples entirely apart.
def mw_min_p($n1; $n2):
  if $n1 < 1 or $n2 < 1 then 1 else [1, 2 / mw_binom($n1 + $n2; $n1)] | min end;

# mw_min_n($alpha): the smallest n (the same in both samples) for which the test can show a
# difference, i.e. mw_min_p(n; n) < alpha.
def mw_min_n($alpha):
  first(range(1; 1000) | select(mw_min_p(.; .) < $alpha));

# mw_min_n2($n1; $alpha): with n1 fixed, the smallest n2 that can show a difference (null: none
# up to 1000).
def mw_min_n2($n1; $alpha):
  if $n1 < 1 then null
  else first(range(1; 1000) | select(mw_min_p($n1; .) < $alpha)) // null end;

# _mw_add($a; $b): element-wise sum of two count arrays of any lengths.
def _mw_add($a; $b):
  [range(0; [($a | length), ($b | length)] | max) as $i | ($a[$i] // 0) + ($b[$i] // 0)];

# mw_dist($scores; $k): c with c[s] = how many k-element subsets of $scores (whole numbers
# >= 0) sum to s.
def mw_dist($scores; $k):
  reduce $scores[] as $r ([[1]] + [range(0; $k) | []];
    . as $dp
    | [range(0; $k + 1) as $j
        | if $j == 0 then $dp[0]
          else _mw_add($dp[$j]; [range(0; $r) | 0] + $dp[$j - 1]) end]) | .[$k];

# mw_ranks2: for a pooled array of {v, g} (g: 0 first sample, 1 second), the same objects
# with r2 = twice the mid-rank (a whole number), in ascending order of v.
def mw_ranks2:
  sort_by(.v) as $s | ($s | length) as $n
  | [foreach range(0; $n) as $i ({start: 0};
      if $i == 0 or $s[$i].v != $s[$i - 1].v then .start = $i else . end;
      .start) ] as $starts
  | [range(0; $n) as $i
      | ($starts[$i]) as $b
      | ([range($b; $n) | select($s[.].v == $s[$b].v)] | length) as $t
      | $s[$i] + {r2: (2 * $b + $t + 1)}];

# mw_phi_upper($z): P(Z >= z) for a standard normal Z.
def mw_phi_upper($z): (($z / (2 | sqrt)) | erfc) / 2;

# mw_test($x; $y): the two-sided test of two arrays of numbers. Gives {n1, n2, p, min_p,
# method ("exact"|"normal"|null), higher ("first"|"second"|null: which sample ranks higher,
# null when neither)}. p and min_p are 1 and method null when a sample is empty.
def mw_test($x; $y):
  ($x | length) as $n1 | ($y | length) as $n2 | ($n1 + $n2) as $n
  | if $n1 == 0 or $n2 == 0 then {n1: $n1, n2: $n2, p: 1, min_p: 1, method: null, higher: null}
    else
      ([$x[] | {v: ., g: 0}] + [$y[] | {v: ., g: 1}] | mw_ranks2) as $ranked
      | ([$ranked[] | select(.g == 0) | .r2] | add) as $w
      | ($n1 * ($n + 1)) as $mean
      | (if $w * $n2 > ($n * ($n + 1) - $w) * $n1 then "first"
         elif $w * $n2 < ($n * ($n + 1) - $w) * $n1 then "second" else null end) as $higher
      | if $n <= mw_exact_max then
          mw_dist([$ranked[].r2]; $n1) as $c
          | ($c | add) as $total
          | ([$c[0:$w + 1][]] | add // 0) as $lo
          | ([$c[$w:][]] | add // 0) as $hi
          | {n1: $n1, n2: $n2, method: "exact", higher: $higher,
             p: ([1, 2 * ([$lo, $hi] | min) / $total] | min),
             min_p: mw_min_p($n1; $n2)}
        else
          ([$ranked | group_by(.v)[] | length | . * . * . - .] | add) as $ties
          | ($n1 * $n2 / 12 * (($n + 1) - $ties / ($n * ($n - 1))) * 4) as $var
          | (if $var <= 0 then 1
             else (([(($w - $mean) | fabs) - 1, 0] | max) / ($var | sqrt)) as $z
               | [1, 2 * mw_phi_upper($z)] | min end) as $p
          | {n1: $n1, n2: $n2, method: "normal", higher: $higher, p: $p,
             min_p: mw_min_p($n1; $n2)}
        end
    end;
