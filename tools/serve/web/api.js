/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve page: talking to the server, and small shared helpers.
 * Everything lives in one namespace, TK (no modules: no build step). */
'use strict';
var TK = window.TK = {};

TK.token = new URLSearchParams(location.search).get('token') || '';

/* GET /api/v1/ROUTE?params; resolves with the JSON answer, rejects with an
 * Error whose message is the server's. */
TK.api = async function (route, params) {
  const q = new URLSearchParams(params || {});
  q.set('token', TK.token);
  const r = await fetch('api/v1/' + route + '?' + q.toString(), {cache: 'no-store'});
  let j;
  try { j = await r.json(); } catch (e) { throw new Error('bad answer from the server (' + r.status + ')'); }
  if (!r.ok) { const e = new Error(j.error || ('HTTP ' + r.status)); e.status = r.status; throw e; }
  return j;
};

TK.el = function (tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

TK.hex = (s) => BigInt(s);	/* "0x..." -> BigInt */
TK.fmtHex = (b, w) => '0x' + b.toString(16).padStart(w || 0, '0');

/* A set of call ids kept as sorted, disjoint, inclusive ranges: the fold
 * state, sent to the server as "1-5,7". */
TK.RangeSet = class {
  constructor() { this.r = []; }
  clear() { this.r = []; }
  has(x) {
    let lo = 0, hi = this.r.length - 1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1, [a, b] = this.r[m];
      if (x < a) hi = m - 1; else if (x > b) lo = m + 1; else return true;
    }
    return false;
  }
  add(a, b) {
    if (b < a) return;
    const out = [];
    let i = 0;
    for (; i < this.r.length && this.r[i][1] < a - 1; i++) out.push(this.r[i]);
    for (; i < this.r.length && this.r[i][0] <= b + 1; i++) { a = Math.min(a, this.r[i][0]); b = Math.max(b, this.r[i][1]); }
    out.push([a, b]);
    for (; i < this.r.length; i++) out.push(this.r[i]);
    this.r = out;
  }
  remove(a, b) {
    if (b < a) return;
    const out = [];
    for (const [x, y] of this.r) {
      if (y < a || x > b) { out.push([x, y]); continue; }
      if (x < a) out.push([x, a - 1]);
      if (y > b) out.push([b + 1, y]);
    }
    this.r = out;
  }
  toString() { return this.r.map(([a, b]) => a === b ? '' + a : a + '-' + b).join(','); }
};

/* The status line: a message until the next key. */
TK.say = function (text, isError) {
  const m = document.getElementById('msg');
  m.textContent = text || '';
  m.className = isError ? 'err' : '';
};

/* Show an error of an API call (or any exception) on the status line. */
TK.oops = function (e) {
  TK.say(e && e.message ? e.message : String(e), true);
  if (!(e && e.status)) console.warn(e);	/* not the server's answer: a bug */
};

/* A context menu at the mouse: items [{label, fn, off}]. */
TK.menu = function (ev, items) {
  ev.preventDefault();
  const m = document.getElementById('menu');
  m.replaceChildren();
  for (const it of items) {
    const d = TK.el('div', it.off ? 'off' : '', it.label);
    if (!it.off) d.addEventListener('click', () => { TK.closeMenu(); it.fn(); });
    m.appendChild(d);
  }
  m.hidden = false;
  const w = m.offsetWidth, h = m.offsetHeight;
  m.style.left = Math.min(ev.clientX, innerWidth - w - 4) + 'px';
  m.style.top = Math.min(ev.clientY, innerHeight - h - 4) + 'px';
};
TK.closeMenu = function () { document.getElementById('menu').hidden = true; };
