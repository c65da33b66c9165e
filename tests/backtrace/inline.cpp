// SPDX-License-Identifier: GPL-3.0-or-later
// addr2line test program: -O2 C++ with inlining, templates, classes,
// namespaces, lambdas and extern "C", without the standard library so it
// builds for bare-metal Arm too.  Never run, only looked up.
extern "C" int printf(const char *, ...);

namespace geo {
template <typename T> struct Vec {
	T x, y;
	constexpr Vec(T a, T b) : x(a), y(b) {}
	inline T dot(const Vec &o) const { return x * o.x + y * o.y; }
	inline Vec scaled(T k) const { return Vec(x * k, y * k); }
};

template <typename T> class Path {
	Vec<T> pts[16];
	int n = 0;

public:
	void add(const Vec<T> &p)
	{
		if (n < 16)
			pts[n++] = p;
	}
	T energy() const
	{
		T e = 0;
		for (int i = 0; i < n; i++)
			e += pts[i].dot(pts[i].scaled(2));
		return e;
	}
	Path() : pts{{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0},
		     {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}} {}
};

static inline int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}
} // namespace geo

extern "C" int __attribute__((noinline)) c_entry(int k)
{
	return geo::clamp(k * 3, -100, 100);
}

template <typename F> static int __attribute__((noinline)) apply(F f, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += f(i);
	return s;
}

int main(int argc, char **)
{
	geo::Path<int> ip;
	geo::Path<double> dp;
	for (int i = 0; i < argc * 4; i++) {
		ip.add(geo::Vec<int>(i, c_entry(i)));
		dp.add(geo::Vec<double>(i * 0.5, i));
	}
	int bias = argc;
	int r = apply([&](int k) { return geo::clamp(k + bias, 0, 9) * ip.energy(); }, argc + 3);
	printf("%d %f\n", r, dp.energy());
	return 0;
}
