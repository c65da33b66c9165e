/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: writing an interactive SVG flame graph (see flamegraph_svg.h).
 *
 * Every box carries its position in value units (data-s: offset from the
 * left of the root, data-n: width, data-d: depth), so the script can lay
 * the graph out again for any zoom without knowing the tree.  Labels are
 * fitted to their boxes here too, so the graph reads without the script.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph_svg.h"
#include "tracekit/error.h"

#define WIDTH 1200	/* whole image */
#define PAD 10		/* left and right margins */
#define FRAME_H 17	/* box height, 1px gap included */
#define TOP 64		/* title and controls */
#define BOTTOM 34	/* details line */
#define CHAR_W 7	/* average glyph width at 12px, for fitting labels */
#define MIN_PX 0.02	/* narrower boxes (at full zoom-out) are left out */

struct box {
	uint32_t frame;
	uint32_t depth;
	double start;		/* value units from the root's left edge */
};

static const tk_stack_frame *g_frames;
static const char *const *g_names;

static int cmp_by_name(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(g_names[x], g_names[y]);
	if (c)
		return c;
	return g_frames[x].addr < g_frames[y].addr ? -1 : g_frames[x].addr > g_frames[y].addr;
}

static void xml_escaped(FILE *fp, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		switch (s[i]) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		default:
			/* XML 1.0 has no control characters but tab, LF and
			 * CR, not even as character references: a file name
			 * or symbol with one would make the SVG unreadable. */
			if ((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
				fputc('?', fp);
			else
				fputc(s[i], fp);
		}
	}
}

/* The label that fits a box w pixels wide ("" if none does). */
static void fit_label(FILE *fp, const char *name, double w)
{
	int chars = (int)((w - 6) / CHAR_W);
	size_t len = strlen(name);
	if (chars < 3)
		return;
	if (len <= (size_t)chars) {
		xml_escaped(fp, name, len);
	} else {
		xml_escaped(fp, name, (size_t)chars - 2);
		fputs("..", fp);
	}
}

/* A warm colour chosen by the name, so a function keeps its colour. */
static void colour(const char *name, unsigned rgb[3])
{
	uint32_t h = 2166136261u;
	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	rgb[0] = 205 + (h & 0xff) % 50;
	rgb[1] = 80 + ((h >> 8) & 0xff) % 150;
	rgb[2] = ((h >> 16) & 0xff) % 60;
}

static void percent(char *buf, size_t size, double part, double whole)
{
	snprintf(buf, size, "%.2f%%", whole > 0 ? 100.0 * part / whole : 0.0);
}

static const char script[] =
"var svg = document.documentElement;\n"
"var flame = document.getElementById('flame');\n"
"var total = +flame.getAttribute('data-total'), unit = flame.getAttribute('data-unit');\n"
"var W = +flame.getAttribute('data-w'), PAD = +flame.getAttribute('data-pad');\n"
"var boxes = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
"var details = document.getElementById('details'), matchedText = document.getElementById('matched');\n"
"var unzoomText = document.getElementById('unzoom'), searchText = document.getElementById('search');\n"
"var current = null, searching = null;\n"
"function num(x) { return Math.round(x).toString().replace(/\\B(?=(\\d{3})+(?!\\d))/g, ','); }\n"
"function pct(x, of) { return (of > 0 ? 100 * x / of : 0).toFixed(2) + '%'; }\n"
"function at(g) { return { s: +g.getAttribute('data-s'), n: +g.getAttribute('data-n'),\n"
"    d: +g.getAttribute('data-d'), name: g.getAttribute('data-name') }; }\n"
"function describe(g) {\n"
"  var b = at(g), calls = g.getAttribute('data-calls');\n"
"  return b.name + ': ' + num(b.n) + ' ' + unit + ' (' + pct(b.n, total) + ' of all' +\n"
"    (current && current !== boxes[0] ? ', ' + pct(b.n, at(current).n) + ' of the zoomed box' : '') +\n"
"    '), ' + calls + (calls === '1' ? ' call' : ' calls');\n"
"}\n"
"function fit(g, w) {\n"
"  var t = g.querySelector('text'), name = g.getAttribute('data-name');\n"
"  var chars = Math.floor((w - 6) / 7);\n"
"  t.textContent = chars < 3 ? '' : name.length <= chars ? name : name.substring(0, chars - 2) + '..';\n"
"}\n"
"function place(g, x, w) {\n"
"  var r = g.querySelector('rect');\n"
"  r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', Math.max(w, 0).toFixed(2));\n"
"  g.querySelector('text').setAttribute('x', (x + 3).toFixed(2));\n"
"  fit(g, w);\n"
"}\n"
"function zoom(g) {\n"
"  var z = at(g);\n"
"  current = g;\n"
"  boxes.forEach(function (f) {\n"
"    var b = at(f);\n"
"    if (b.d >= z.d && b.s >= z.s && b.s + b.n <= z.s + z.n && z.n > 0) {\n"
"      f.style.display = ''; f.classList.remove('caller');\n"
"      place(f, PAD + (b.s - z.s) / z.n * W, b.n / z.n * W);\n"
"    } else if (b.d < z.d && b.s <= z.s && b.s + b.n >= z.s + z.n) {\n"
"      f.style.display = ''; f.classList.add('caller');\n"
"      place(f, PAD, W);\n"
"    } else {\n"
"      f.style.display = 'none';\n"
"    }\n"
"  });\n"
"  unzoomText.style.opacity = g === boxes[0] ? 0 : 1;\n"
"}\n"
"function search(re) {\n"
"  var spans = [];\n"
"  searching = re;\n"
"  boxes.forEach(function (f) {\n"
"    var r = f.querySelector('rect');\n"
"    if (!r.hasAttribute('data-fill')) r.setAttribute('data-fill', r.getAttribute('fill'));\n"
"    var hit = re !== null && re.test(f.getAttribute('data-name'));\n"
"    r.setAttribute('fill', hit ? 'rgb(230,0,230)' : r.getAttribute('data-fill'));\n"
"    if (hit) { var b = at(f); spans.push([b.s, b.s + b.n]); }\n"
"  });\n"
"  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
"  var sum = 0, end = -Infinity;\n"
"  spans.forEach(function (s) {\n"
"    if (s[1] <= end) return;\n"
"    sum += s[1] - Math.max(s[0], end); end = s[1];\n"
"  });\n"
"  matchedText.textContent = re === null ? '' : 'Matched: ' + pct(sum, total) + ' (' + re.source + ')';\n"
"  searchText.textContent = re === null ? 'Search' : 'Reset search';\n"
"}\n"
"function askSearch() {\n"
"  if (searching !== null) { search(null); return; }\n"
"  var text = prompt('Search for functions matching (regular expression):', '');\n"
"  if (text) { try { search(new RegExp(text)); } catch (e) { alert(e.message); } }\n"
"}\n"
"boxes.forEach(function (g) {\n"
"  g.addEventListener('click', function () { zoom(g); });\n"
"  g.addEventListener('mouseover', function () { details.textContent = describe(g); });\n"
"  g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
"});\n"
"unzoomText.addEventListener('click', function () { zoom(boxes[0]); });\n"
"searchText.addEventListener('click', askSearch);\n"
"document.addEventListener('keydown', function (e) {\n"
"  if ((e.ctrlKey && e.key === 'f') || e.key === '/') { e.preventDefault(); askSearch(); }\n"
"  if (e.key === 'Escape') zoom(boxes[0]);\n"
"});\n"
"(function () {\n"
"  var h = decodeURIComponent(location.hash.substring(1)), m;\n"
"  if ((m = /^zoom=(\\d+)$/.exec(h)) && boxes[+m[1]]) zoom(boxes[+m[1]]);\n"
"  else if ((m = /^search=(.+)$/.exec(h))) { try { search(new RegExp(m[1])); } catch (e) {} }\n"
"})();\n";

static double value(const tk_stack_frame *f, bool insns)
{
	return (double)(insns ? f->total_insns : f->total_time);
}

/* The boxes in depth-first order, children sorted by name, with their
 * offsets; boxes too narrow to matter are left out with their callees. */
static int layout(const tk_stack_frame *frames, uint32_t root, const char *const *names,
		  bool insns, struct box **out, size_t *nout, uint32_t *max_depth)
{
	size_t cap = 256, n = 0, scap = 64, ns = 0, kcap = 16;
	struct box *boxes = malloc(cap * sizeof *boxes);
	struct box *stack = malloc(scap * sizeof *stack);
	uint32_t *kids = malloc(kcap * sizeof *kids);
	double total = value(&frames[root], insns), min_value = total * MIN_PX / (WIDTH - 2 * PAD);
	int rc = TK_ERR_NOMEM;
	if (!boxes || !stack || !kids)
		goto fail;
	g_frames = frames;
	g_names = names;
	*max_depth = 0;
	stack[ns++] = (struct box){root, 0, 0.0};
	while (ns) {
		struct box b = stack[--ns];
		if (n == cap) {
			struct box *nb = realloc(boxes, 2 * cap * sizeof *boxes);
			if (!nb)
				goto fail;
			boxes = nb;
			cap *= 2;
		}
		boxes[n++] = b;
		if (b.depth > *max_depth)
			*max_depth = b.depth;
		size_t nk = 0;
		for (uint32_t c = frames[b.frame].first_child; c != TK_CALL_NONE; c = frames[c].next_sibling) {
			if (nk == kcap) {
				uint32_t *nkids = realloc(kids, 2 * kcap * sizeof *kids);
				if (!nkids)
					goto fail;
				kids = nkids;
				kcap *= 2;
			}
			kids[nk++] = c;
		}
		qsort(kids, nk, sizeof *kids, cmp_by_name);
		if (ns + nk > scap) {
			while (ns + nk > scap)
				scap *= 2;
			struct box *nst = realloc(stack, scap * sizeof *stack);
			if (!nst)
				goto fail;
			stack = nst;
		}
		/* Push in reverse so the first child comes out first. */
		double s = b.start;
		for (size_t i = 0; i < nk; i++)
			s += value(&frames[kids[i]], insns);
		for (size_t i = nk; i-- > 0;) {
			double v = value(&frames[kids[i]], insns);
			s -= v;
			if (v >= min_value && v > 0)
				stack[ns++] = (struct box){kids[i], b.depth + 1, s};
		}
	}
	free(stack);
	free(kids);
	*out = boxes;
	*nout = n;
	return 0;
fail:
	free(boxes);
	free(stack);
	free(kids);
	return rc;
}

int tk_flamegraph_svg(FILE *fp, const tk_stack_frame *frames, uint32_t root,
		      const char *const *names, const tk_flamegraph_svg_opts *opts)
{
	struct box *boxes;
	size_t n;
	uint32_t max_depth;
	int rc = layout(frames, root, names, opts->insns, &boxes, &n, &max_depth);
	if (rc < 0)
		return rc;
	const double W = WIDTH - 2 * PAD, total = value(&frames[root], opts->insns);
	const int height = TOP + (int)(max_depth + 1) * FRAME_H + BOTTOM;

	fprintf(fp, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
		" xmlns=\"http://www.w3.org/2000/svg\">\n", WIDTH, height, WIDTH, height);
	fputs("<style type=\"text/css\">\n"
	      "text { font-family: Verdana, 'DejaVu Sans', sans-serif; font-size: 12px; fill: #000; }\n"
	      "g.f text { pointer-events: none; }\n"
	      "g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
	      "g.caller rect { fill-opacity: 0.5; }\n"
	      "#title { font-size: 17px; text-anchor: middle; }\n"
	      "#subtitle { fill: #555; text-anchor: middle; }\n"
	      ".button { cursor: pointer; fill: #036; text-decoration: underline; }\n"
	      "</style>\n", fp);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f4ec\"/>\n",
		WIDTH, height);
	fputs("<text id=\"title\" x=\"600\" y=\"24\">", fp);
	xml_escaped(fp, opts->title, strlen(opts->title));
	fprintf(fp, "</text>\n<text id=\"subtitle\" x=\"600\" y=\"44\">box width: %s"
		" spent in a function with everything it called (total %.0f)</text>\n",
		opts->unit, total);
	fprintf(fp, "<text id=\"unzoom\" class=\"button\" x=\"%d\" y=\"24\" style=\"opacity:0\">"
		"Reset zoom</text>\n", PAD);
	fprintf(fp, "<text id=\"search\" class=\"button\" x=\"%d\" y=\"24\" text-anchor=\"end\">"
		"Search</text>\n", WIDTH - PAD);
	fprintf(fp, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", PAD, height - 12);
	fprintf(fp, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
		WIDTH - PAD, height - 12);

	fprintf(fp, "<g id=\"flame\" data-total=\"%.0f\" data-unit=\"", total);
	xml_escaped(fp, opts->unit, strlen(opts->unit));
	fprintf(fp, "\" data-w=\"%.0f\" data-pad=\"%d\">\n", W, PAD);
	for (size_t i = 0; i < n; i++) {
		const struct box *b = &boxes[i];
		const tk_stack_frame *f = &frames[b->frame];
		const char *name = names[b->frame];
		double v = value(f, opts->insns);
		double x = PAD + (total > 0 ? b->start / total * W : 0);
		double w = total > 0 ? v / total * W : W;
		int y = TOP + (int)(max_depth - b->depth) * FRAME_H;
		unsigned rgb[3];
		colour(name, rgb);
		char pc[32];
		percent(pc, sizeof pc, v, total);
		fprintf(fp, "<g class=\"f\" data-i=\"%zu\" data-s=\"%.0f\" data-n=\"%.0f\" data-d=\"%u\""
			" data-calls=\"%" PRIu64 "\" data-name=\"", i, b->start, v, b->depth, f->calls);
		xml_escaped(fp, name, strlen(name));
		fputs("\"><title>", fp);
		xml_escaped(fp, name, strlen(name));
		fprintf(fp, " (%.0f %s, %s, %" PRIu64 " call%s)</title>", v, opts->unit, pc,
			f->calls, f->calls == 1 ? "" : "s");
		fprintf(fp, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" rx=\"2\""
			" fill=\"rgb(%u,%u,%u)\"/>", x, y, w, FRAME_H - 1, rgb[0], rgb[1], rgb[2]);
		fprintf(fp, "<text x=\"%.2f\" y=\"%d\">", x + 3, y + 12);
		fit_label(fp, name, w);
		fputs("</text></g>\n", fp);
	}
	/* The script last: it looks up the elements above as it starts. */
	fprintf(fp, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
		script);
	free(boxes);
	return 0;
}
