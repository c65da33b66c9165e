Address     Count       Time        Function name
0x8000      1           2043        _start
0x8038      27          5509        quicksort
0x80ec      1           3           sys_write0
