Address     Count       Time        Function name
0x0         3           39
0x100       1           15          main
0x200       1           4           parse
0x300       1           2           emit
0x400       1           16          worker
0x500       2           9           step
0xa00       1           8           a
0xb00       1           5           b
