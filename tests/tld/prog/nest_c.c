/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "nest.h"
int leaf(int x)
{
	return 2 * x;
}
