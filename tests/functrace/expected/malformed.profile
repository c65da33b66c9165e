Address     Count       Time        Function name
0x0         1           5
0x1000      1           5           main
