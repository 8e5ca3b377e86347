# lib/report/charts/compare.gp: one metric over runs or variants. data.dat: index, label, median, min,
# max; reps.dat: index, value (one row per repeat, spread over index ± 0.15); min-max drawn
# at index + 0.2, beside the dots. vars.gp: title, ylab, runs.
set title title noenhanced
set ylabel ylab noenhanced
set xrange [0.4:runs + 0.6]
set yrange [0:*]
set xtics nomirror noenhanced
set boxwidth 0.5
set style fill solid 0.35 border -1
plot 'data.dat' using 1:3:xtic(2) with boxes lt 1 title 'median', \
     'data.dat' using ($1 + 0.2):3:4:5 with yerrorbars lt 8 lw 1.5 pt -1 title 'min-max', \
     'reps.dat' using 1:2 with points lt 2 pt 7 ps 0.8 title 'repeats'
