# The IEA 15-MW blade's flapwise tip displacement against BeamDyn's (docs/beam.md):
#   liedyn run iea15-blade --out iea15-blade.csv
#   gnuplot -e "csv='iea15-blade.csv'; png='iea15-blade.png'" scripts/plot-iea15-blade.gp
# The tip is blade[10]; its reference z is 4 (the pre-bend), the load pushes it towards −z.
# BeamDyn's u3 every 0.05 s as Kynema's verification data publish it
# (IEA15blade_11nodes_rho_inf_0pt40_DT_0pt001s_F_-200kN_beamdyn.csv).
if (!exists("csv")) csv = 'iea15-blade.csv'
if (!exists("png")) png = 'iea15-blade.png'
$beamdyn << EOD
t,u3
0.05,3.2152402220957
0.10,6.2794790513560
0.15,8.4217275168128
0.20,10.223433394254
0.25,11.546525479042
0.30,12.886325711343
0.35,13.886527167187
0.40,14.310036443370
0.45,16.185820024709
0.50,17.668197552712
0.55,16.540424020922
0.60,15.851104422733
0.65,15.399339110826
0.70,16.837434957033
0.75,20.198188171276
0.80,22.050623695122
0.85,24.902345492894
0.90,26.366619772749
0.95,25.948921136608
1.00,25.190079591555
EOD
set datafile separator ','
set key top left autotitle columnhead
set terminal pngcairo size 900,500 font ',10'
set output png
set grid
set xlabel 't (s)'
set ylabel 'flapwise tip displacement (m)'
plot csv using 1:(4.0 - column('blade[10].z')) with lines lw 2 title 'liedyn (one element of order 10, lumped mass)', \
     $beamdyn using 1:2 with points pt 7 ps 1.2 title 'BeamDyn (Kynema verification data)'
