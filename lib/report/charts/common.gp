# lib/report/charts/common.gp: what every chart shares. lib/report/charts.sh feeds gnuplot this file, then
# vars.gp (the chart's titles and numbers, written by jq), then the chart's own script, with
# the data files (s1.dat, s2.dat ... or data.dat) in the current folder.
set terminal svg size 800,400 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'chart.svg'
set encoding utf8
set grid lc rgb '#dddddd' lw 1
set border lc rgb '#555555'
set key outside bmargin center horizontal noenhanced samplen 2 maxrows 2
set datafile separator '\t'
set datafile missing 'null'
set linetype 1 lc rgb '#1f77b4' lw 2 pt 7 ps 0.6
set linetype 2 lc rgb '#d62728' lw 2 pt 5 ps 0.6
set linetype 3 lc rgb '#2ca02c' lw 2 pt 9 ps 0.6
set linetype 4 lc rgb '#ff7f0e' lw 2 pt 11 ps 0.6
set linetype 5 lc rgb '#9467bd' lw 2 pt 13 ps 0.6
set linetype 6 lc rgb '#8c564b' lw 2 pt 7 ps 0.6
set linetype 7 lc rgb '#e377c2' lw 2 pt 5 ps 0.6
set linetype 8 lc rgb '#7f7f7f' lw 2 pt 9 ps 0.6
set linetype cycle 8
