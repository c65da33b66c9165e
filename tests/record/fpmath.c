/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Floating point: series, Newton iterations and a small matrix product in
 * double and single precision.  Results are printed as scaled integers so
 * every runtime prints them the same way; `results` keeps them in memory. */
#include "rt.h"

unsigned sqrt_calls, dot_calls;
double results[4];

TK_FUNC double newton_sqrt(double x)
{
	sqrt_calls++;
	double g = x > 1.0 ? x / 2.0 : 1.0;
	for (int i = 0; i < 30; i++)
		g = 0.5 * (g + x / g);
	return g;
}

/* Nilakantha's series for pi. */
TK_FUNC double series_pi(int terms)
{
	double pi = 3.0, sign = 1.0;
	for (int n = 1; n <= terms; n++) {
		double k = 2.0 * n;
		pi += sign * 4.0 / (k * (k + 1.0) * (k + 2.0));
		sign = -sign;
	}
	return pi;
}

TK_FUNC float dot(const float *a, const float *b, int n)
{
	dot_calls++;
	float s = 0.0f;
	for (int i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}

TK_FUNC double matrix_trace(void)
{
	float a[4][4], b[4][4], bt[4][4], c[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			a[i][j] = (float)(i + 1) / (float)(j + 2);
			b[i][j] = (float)(i * j) - 1.5f;
		}
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			bt[j][i] = b[i][j];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			c[i][j] = dot(a[i], bt[j], 4);
	double t = 0.0;
	for (int i = 0; i < 4; i++)
		t += c[i][i];
	return t;
}

/* x to 6 decimals as "int.frac", rounded half away from zero. */
static void print_fixed(const char *name, double x)
{
	long long scaled = (long long)(x * 1000000.0 + (x < 0 ? -0.5 : 0.5));
	long long whole = scaled / 1000000, frac = scaled % 1000000;
	if (frac < 0)
		frac = -frac;
	printf("%s %s%lld.%06lld\n", name, scaled < 0 && whole == 0 ? "-" : "", whole, frac);
}

int main(void)
{
	double roots = 0.0;
	for (int i = 1; i <= 20; i++)
		roots += newton_sqrt((double)i);
	results[0] = roots;
	results[1] = series_pi(200);
	results[2] = matrix_trace();
	results[3] = newton_sqrt(2.0) * newton_sqrt(8.0);
	print_fixed("sum of square roots 1..20:", results[0]);
	print_fixed("pi (200 terms):", results[1]);
	print_fixed("matrix trace:", results[2]);
	print_fixed("sqrt(2)*sqrt(8):", results[3]);
	printf("calls: newton_sqrt %u dot %u\n", sqrt_calls, dot_calls);
	return 0;
}
