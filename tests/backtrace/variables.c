/* SPDX-License-Identifier: GPL-3.0-or-later */
/* addr2line corner cases: data addresses where symbols start.  binutils
 * answers with the declaration of the variable at that address whose name
 * is part of the symbol's name (a function's static "counter" is the symbol
 * "counter.0"), the symbol being the first global one there, else the
 * last local one. */
int real_var = 1;
extern int alias_var __attribute__((alias("real_var")));
int second = 2;
static int lonely = 3;
__asm__(".globl other_name\n.set other_name, second");
__asm__(".globl xtick\n.set xtick, lonely");

int use(void)
{
	static int counter = 7;
	return counter++ + lonely + alias_var;
}

int main(void)
{
	return use() + second + real_var;
}
