Address     Count       Time        Function name
0x0         1           8
0x1000      2           12          even
0x2000      2           8           odd
