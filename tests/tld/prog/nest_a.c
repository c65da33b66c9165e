/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "nest.h"
int outer(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += inner(i);
	return s;
}
