# The rotating blade's tip deflection and root reactions (docs/beam.md):
#   liedyn run rotating-blade --out rotating-blade.csv
#   gnuplot -e "csv='rotating-blade.csv'; png='rotating-blade.png'" scripts/plot-rotating-blade.gp
# Columns by name from the CSV header: blade[24].x (the tip's flapwise position: rotation about
# x leaves it unchanged), root.fx … root.tz (the fixed joint's reaction on the blade, spatial).
if (!exists("csv")) csv = 'rotating-blade.csv'
if (!exists("png")) png = 'rotating-blade.png'
set datafile separator ','
set key autotitle columnhead
set terminal pngcairo size 900,900 font ',10'
set output png
set multiplot layout 3,1
set grid
set xlabel 't (s)'
set ylabel 'tip flapwise deflection (m)'
plot csv using 1:'blade[24].x' with lines lw 2 title 'tip x (flapwise)'
set ylabel 'root force (kN)'
plot csv using 1:(column('root.fx')/1e3) with lines title 'F_x (flapwise)', \
     '' using 1:(sqrt(column('root.fy')**2 + column('root.fz')**2)/1e3) with lines title '|F_{yz}| (in the rotor plane)'
set ylabel 'root moment (kN m)'
plot csv using 1:(column('root.tx')/1e3) with lines title 'M_x (edgewise, about the rotor axis)', \
     '' using 1:(sqrt(column('root.ty')**2 + column('root.tz')**2)/1e3) with lines title '|M_{yz}| (flapwise)'
unset multiplot
