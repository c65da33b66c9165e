Address     Count       Time        Function name
0x0         1           50
0x1000      1           50          main
0x2000      1           20          f
0x3000      1           0           g
