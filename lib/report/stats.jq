# lib/report/stats.jq: the statistics compare needs: Welch's t-test with its confidence interval,
# Student's t distribution, Holm's correction, the median. A jq module: definitions only
# (include "report/stats" with -L lib).
#
# Why Welch's t on the logarithms: two default runs have 3 repeats each, and a rank test
# (Mann-Whitney, benchstat's) cannot be sure of anything with 3 and 3 (its smallest two-sided
# p is 2/20 = 0.1). Welch's test compares the means of the repeats without assuming equal
# spreads, and gives a confidence interval for the difference (ministat's and hyperfine's
# way); on the logarithms the difference is a ratio, so the change and its interval are in %
# and a spread that grows with the figure (rates, times) is handled. Its price: it assumes the
# repeats' logarithms are roughly normal; the kit measures a disturbed repeat again (docs/compare.md,
# "Repeats"), and the false-alarm rate is checked on simulated and real identical runs
# (tests/compare/aa.bats, docs/statistics.md).
# The t distribution: P(|T| > t) = I_x(df/2, 1/2) with x = df / (df + t^2), the regularized
# incomplete beta function by its continued fraction (Numerical Recipes, 6.4, modified Lentz);
# checked against published t tables in tests/compare/stats.bats.

# st_median: the median of an array of numbers; for an even count the lower of the two middle
# values, a value that was measured, as a run's row takes it (lib/run/repeat.jq).
def st_median:
  sort as $s | ($s | length) as $n
  | if $n == 0 then null else $s[($n - 1) / 2 | floor] end;

def st_mean: if length == 0 then null else add / length end;

# st_var: the sample variance (n - 1 in the denominator); 0 for fewer than two values.
def st_var:
  if length < 2 then 0 else st_mean as $m | (map((. - $m) * (. - $m)) | add) / (length - 1) end;

def st_tiny: 1e-300;

# st_betacf($a; $b; $x): the continued fraction of the incomplete beta function.
def st_betacf($a; $b; $x):
  def nz: if fabs < st_tiny then st_tiny else . end;
  ($a + $b) as $qab | ($a + 1) as $qap | ($a - 1) as $qam
  | (1 - $qab * $x / $qap | nz | 1 / .) as $d
  | {m: 1, c: 1, d: $d, h: $d, done: false}
  | until(.done or .m > 300;
      .m as $m | (2 * $m) as $m2
      | ($m * ($b - $m) * $x / (($qam + $m2) * ($a + $m2))) as $aa
      | (1 + $aa * .d | nz | 1 / .) as $d1
      | (1 + $aa / .c | nz) as $c1
      | (-($a + $m) * ($qab + $m) * $x / (($a + $m2) * ($qap + $m2))) as $ab
      | (1 + $ab * $d1 | nz | 1 / .) as $d2
      | (1 + $ab / $c1 | nz) as $c2
      | ($d2 * $c2) as $del
      | {m: ($m + 1), c: $c2, d: $d2, h: (.h * $d1 * $c1 * $del), done: ((($del - 1) | fabs) < 3e-15)})
  | .h;

# st_betai($a; $b; $x): the regularized incomplete beta function I_x(a, b).
def st_betai($a; $b; $x):
  if $x <= 0 then 0 elif $x >= 1 then 1
  else (($a + $b | lgamma) - ($a | lgamma) - ($b | lgamma) + $a * ($x | log) + $b * (1 - $x | log) | exp) as $bt
    | if $x < ($a + 1) / ($a + $b + 2) then $bt * st_betacf($a; $b; $x) / $a
      else 1 - $bt * st_betacf($b; $a; 1 - $x) / $b end
  end;

# st_t_p2($t; $df): the two-sided tail P(|T| >= |t|) of Student's t with df degrees of freedom.
def st_t_p2($t; $df):
  if $df <= 0 then 1 else st_betai($df / 2; 0.5; $df / ($df + $t * $t)) end;

# st_t_q($alpha; $df): the t with P(|T| >= t) = alpha (the two-sided critical value).
def st_t_q($alpha; $df):
  {lo: 0, hi: 1}
  | until(st_t_p2(.hi; $df) <= $alpha or .hi > 1e12; .hi *= 2)
  | reduce range(0; 50) as $_ (.; ((.lo + .hi) / 2) as $m
      | if st_t_p2($m; $df) > $alpha then .lo = $m else .hi = $m end)
  | (.lo + .hi) / 2;

# st_welch($x; $y; $alpha; $floor): Welch's two-sample t-test of mean(y) - mean(x), with the
# 1 - alpha confidence interval of that difference. $floor: the smallest standard deviation
# either sample is taken to have (a repeat's resolution), so samples without any spread
# (16, 16, 16 clients) still have an interval. Needs 2 values in each sample.
# Output: {diff, lo, hi, t, df, p}.
def st_welch($x; $y; $alpha; $floor):
  ($x | length) as $n1 | ($y | length) as $n2
  | ([($x | st_var), $floor * $floor] | max / $n1) as $a
  | ([($y | st_var), $floor * $floor] | max / $n2) as $b
  | (($y | st_mean) - ($x | st_mean)) as $diff
  | ($a + $b) as $se2
  | ($se2 * $se2 / ($a * $a / ($n1 - 1) + $b * $b / ($n2 - 1))) as $df
  | ($diff / ($se2 | sqrt)) as $t
  | (st_t_q($alpha; $df) * ($se2 | sqrt)) as $half
  | {diff: $diff, lo: ($diff - $half), hi: ($diff + $half), t: $t, df: $df, p: st_t_p2($t; $df)};

# st_holm: an array of p-values (null: not tested) as Holm's adjusted p-values, in the same
# order: the k-th smallest of m is multiplied by (m - k + 1), kept monotone, capped at 1.
# Rejecting where the adjusted p < alpha keeps the chance of any false claim at most alpha
# (the family-wise error rate), whatever the dependence between the tests.
def st_holm:
  . as $p
  | [range(0; length) | select($p[.] != null)] as $idx
  | ($idx | length) as $m
  | ($idx | sort_by($p[.])) as $order
  | reduce range(0; $m) as $k ({adj: $p, run: 0};
      ([.run, ([1, ($m - $k) * $p[$order[$k]]] | min)] | max) as $v
      | .run = $v | .adj[$order[$k]] = $v)
  | .adj;
