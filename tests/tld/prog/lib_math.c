/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Traced functions with integer, floating-point and struct arguments. */
#include "api.h"
#include "oracle.h"

int add(int a, int b)
{
	ORACLE_ENTER(add);
	ORACLE_ARG(1, "int", "int", a);
	ORACLE_ARG(2, "int", "int", b);
	int r = a + b;
	ORACLE_EXIT(add);
	ORACLE_RET("int", "int", r);
	return r;
}

long long mul64(long long a, unsigned short b)
{
	ORACLE_ENTER(mul64);
	ORACLE_ARG(1, "long long", "long long int", a);
	ORACLE_ARG(2, "unsigned short", "short unsigned int", b);
	long long r = a * b;
	ORACLE_EXIT(mul64);
	ORACLE_RET("long long", "long long int", r);
	return r;
}

double scale(double d, float f)
{
	ORACLE_ENTER(scale);
	ORACLE_ARG(1, "double", "double", d);
	ORACLE_ARG(2, "float", "float", f);
	double r = d * f;
	ORACLE_EXIT(scale);
	ORACLE_RET("double", "double", r);
	return r;
}

float vlen2(const struct vec3 *v)
{
	ORACLE_ENTER(vlen2);
	ORACLE_ARG(1, "const struct vec3*", "const struct vec3 *", v);
	float r = v->x * v->x + v->y * v->y + v->z * v->z;
	ORACLE_EXIT(vlen2);
	ORACLE_RET("float", "float", r);
	return r;
}

struct vec3 vadd(struct vec3 a, struct vec3 b)
{
	ORACLE_ENTER(vadd);
	ORACLE_ARG(1, "struct vec3", "struct vec3", a);
	ORACLE_ARG(2, "struct vec3", "struct vec3", b);
	struct vec3 r = {a.x + b.x, a.y + b.y, a.z + b.z};
	ORACLE_EXIT(vadd);
	ORACLE_RET("struct vec3", "struct vec3", r);
	return r;
}

unsigned sum_big(struct big b)
{
	ORACLE_ENTER(sum_big);
	ORACLE_ARG(1, "struct big", "struct big", b);
	unsigned r = 0;
	for (size_t i = 0; i < sizeof b.b; i++)
		r += b.b[i];
	ORACLE_EXIT(sum_big);
	ORACLE_RET("unsigned", "unsigned int", r);
	return r;
}

#ifndef NO_HUGE
unsigned sum_huge(struct huge h)
{
	ORACLE_ENTER(sum_huge);
	ORACLE_ARG(1, "struct huge", "struct huge", h);
	unsigned r = 0;
	for (size_t i = 0; i < sizeof h.b; i++)
		r += h.b[i];
	ORACLE_EXIT(sum_huge);
	ORACLE_RET("unsigned", "unsigned int", r);
	return r;
}
#endif
