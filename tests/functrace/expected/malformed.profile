Address     Count       Time        Function name
0x0         1           4
0x1000      1           4           main
