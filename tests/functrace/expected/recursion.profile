Address     Count       Time        Function name
0x0         1           7
0x1000      2           10          even
0x2000      2           6           odd
