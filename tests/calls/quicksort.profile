Address     Count       Time        Function name
0x8000      1           2044        _start
0x8038      27          5536        quicksort
0x80ec      1           4           sys_write0
