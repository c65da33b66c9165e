Address     Count       Time        Function name
0x0         3           36
0x100       1           14          main
0x200       1           3           parse
0x300       1           1           emit
0x400       1           15          worker
0x500       2           7           step
0xa00       1           7           a
0xb00       1           4           b
