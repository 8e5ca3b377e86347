# lib/report/charts/curve.gp: a load curve, IOPS and p99 against clients at once. data.dat: clients,
# IOPS, p99 (ms), kept up (1/0). vars.gp: title, target (p99 limit in ms, or NaN), logx (1 when
# the steps span 8x or more), failed (steps that did not keep up: ringed, and named in the key
# when there are any), reps (repeats in reps.dat: clients, IOPS, p99 of each repeat's steps, a
# blank line between repeats; 0 = none). The p99 axis reaches 15 % above the largest p99 or the
# target, whichever is higher.
set title title noenhanced
set xlabel 'clients at once'
set ylabel 'IOPS'
set y2label 'p99 (ms)'
set ytics nomirror
set y2tics
set yrange [0:*]
stats 'data.dat' using 3 name 'D' nooutput
y2max = D_max
if (reps > 0) { stats 'reps.dat' using 3 name 'R' nooutput; if (R_max > y2max) { y2max = R_max } }
if (target == target && target > y2max) { y2max = target }
set y2range [0:y2max * 1.15]
set bmargin 6
if (logx) { set logscale x 2 }
set xtics nomirror
if (target == target) {
  set arrow 1 from graph 0, second target to graph 1, second target nohead lc rgb '#d62728' lw 1.5 dt 2 front
  set label 1 sprintf('p99 target %g ms', target) at graph 0.01, second target offset 0,0.6 tc rgb '#d62728' front
}
each = reps > 0 ? "'reps.dat' using 1:2 with linespoints lw 0.8 pt 7 ps 0.35 lc rgb '#9ecae1' title 'IOPS, each repeat', 'reps.dat' using 1:3 axes x1y2 with linespoints lw 0.8 pt 7 ps 0.35 lc rgb '#fdae6b' title 'p99, each repeat'," : ""
# with repeats the thick lines are the repeat the metric's details come from (nearest the median)
main = reps > 0 ? ', repeat nearest the median' : ''
plot @each 'data.dat' using 1:2 with linespoints lt 1 title 'IOPS'.main, \
     'data.dat' using 1:3 axes x1y2 with linespoints lt 2 title 'p99 (ms)'.main, \
     'data.dat' using 1:($4 == 0 ? $3 : NaN) axes x1y2 with points pt 6 ps 2 lc rgb '#d62728' title (failed > 0 ? 'did not keep up' : '')
