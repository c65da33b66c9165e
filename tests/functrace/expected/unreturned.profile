Address     Count       Time        Function name
0x0         1           51
0x1000      1           51          main
0x2000      1           21          f
0x3000      1           1           g
