/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve page: the lower panel: the call tree (fetched a level at
 * a time as nodes open), the flame graph (one frame per distinct call
 * stack; click to zoom, double-click or the menu to jump to an activation)
 * and the profile table.  A profile exported by `tracekit export` (Chrome
 * trace or speedscope JSON) can be loaded into the flame graph too. */
'use strict';
(function () {
const V = TK.View.prototype;

V.initLower = function () {
  this.lower = this.root.querySelector('.lower');
  this.treeEl = this.root.querySelector('.tree');
  this.flameEl = this.root.querySelector('.flame');
  this.profEl = this.root.querySelector('.profile');
  for (const b of this.lower.querySelectorAll('.ltabs [data-tab]'))
    b.addEventListener('click', () => this.lowerTab(b.dataset.tab).catch(TK.oops));
  this.lower.querySelector('.lower-toggle').addEventListener('click', () => this.lower.classList.toggle('closed'));
  this.treeEl.addEventListener('click', (e) => this.treeClick(e));
  this.tab = 'tree';
  this.flameRoot = null;
};

V.lowerTab = async function (tab) {
  this.tab = tab;
  this.lower.classList.remove('closed');
  for (const b of this.lower.querySelectorAll('.ltabs [data-tab]')) b.classList.toggle('on', b.dataset.tab === tab);
  this.treeEl.hidden = tab !== 'tree';
  this.flameEl.hidden = tab !== 'flame';
  this.profEl.hidden = tab !== 'profile';
  if (tab === 'tree' && !this.treeEl.firstChild) await this.loadTree();
  if (tab === 'flame' && !this.flame) await this.loadFlame();
  if (tab === 'profile' && !this.profEl.firstChild) await this.loadProfile();
};

V.jumpCall = async function (id) {
  const j = await TK.api('calltree', {trace: this.t.id, call: id, depth: 0});
  const n = j.nodes[0];
  await this.goLine(n.entry.line);
  TK.say((n.name || n.addr) + ': activation ' + id + ', lines ' + n.entry.line + '-' + n.exit.line + ', ' + n.insns + ' instructions');
};

/* ---- call tree ------------------------------------------------------------- */
V.loadTree = async function () {
  if (!this.t.instructions) return;
  this.treeEl.replaceChildren();
  await this.expand(this.treeEl, 0, true);
};
V.nodeEl = function (n) {
  const d = TK.el('div', 'node');
  d.dataset.id = n.id;
  const l = d.appendChild(TK.el('div', 'nl'));
  const tw = l.appendChild(TK.el('span', 'tw', n.children ? '▸' : ' '));
  tw.dataset.toggle = n.id;
  const nm = l.appendChild(TK.el('span', 'nm', n.name || n.addr));
  nm.dataset.jump = n.id;
  l.appendChild(TK.el('span', 'meta', '  lines ' + n.entry.line + '-' + n.exit.line + ', ' + n.insns + ' insns' +
    (n.children ? ', ' + n.children + ' call' + (n.children > 1 ? 's' : '') : '')));
  l.addEventListener('contextmenu', (e) => TK.menu(e, [
    {label: 'Go to the entry (line ' + n.entry.line + ')', fn: () => this.run(() => this.jumpCall(n.id))},
    {label: 'Go to the return (line ' + n.exit.line + ')', fn: () => this.run(() => this.goLine(n.exit.line))},
    {label: 'Fold this call in the trace', off: !n.id, fn: () => this.run(async () => { this.folds.add(n.id, n.id); await this.refold(); })},
  ]));
  return d;
};
/* Open node id inside el: its children (200 at a time). */
V.expand = async function (el, id, self, offset) {
  const j = await TK.api('calltree', {trace: this.t.id, call: id, depth: 1, offset: offset || 0, limit: 200});
  const [root, ...kids] = j.nodes;
  let box = el;
  if (self) { box = this.nodeEl(root); el.appendChild(box); box.classList.add('open'); box.querySelector('.tw').textContent = root.children ? '▾' : ' '; }
  for (const k of kids) box.appendChild(this.nodeEl(k));
  const shown = (offset || 0) + kids.length;
  if (shown < root.children) {
    const more = TK.el('div', 'node nl more', '… ' + (root.children - shown) + ' more');
    more.addEventListener('click', () => { more.remove(); this.expand(box, id, false, shown).catch(TK.oops); });
    box.appendChild(more);
  }
};
V.treeClick = function (e) {
  const t = e.target;
  if (t.dataset.jump !== undefined) return this.run(() => this.jumpCall(+t.dataset.jump));
  if (t.dataset.toggle !== undefined) {
    const node = t.closest('.node');
    if (node.classList.contains('open')) {
      for (const c of [...node.children].slice(1)) c.remove();
      node.classList.remove('open');
      t.textContent = '▸';
    } else if (t.textContent === '▸') {
      node.classList.add('open');
      t.textContent = '▾';
      this.expand(node, +t.dataset.toggle, false).catch(TK.oops);
    }
  }
};
/* Mark the innermost open node on the path to the position. */
V.refreshTreeHere = async function () {
  if (this.tab !== 'tree' || !this.treeEl.firstChild || !this.cur) return;
  for (const h of this.treeEl.querySelectorAll('.here')) h.classList.remove('here');
  const here = this.treeEl.querySelector('.node[data-id="' + this.cur.call + '"]');
  if (here) here.classList.add('here');
};

/* ---- flame graph ----------------------------------------------------------------- */
V.loadFlame = async function () {
  const j = await TK.api('flamegraph', {trace: this.t.id});
  const byTime = j.unit === 'time';
  const fr = j.frames.map((f) => ({name: f.name || f.addr, value: byTime ? f.time : f.insns, self: byTime ? f.self_time : f.self_insns,
    calls: f.count, ids: f.ids, parent: f.parent, kids: []}));
  for (const f of fr) if (f.parent >= 0) fr[f.parent].kids.push(f);
  this.setFlame(fr.find((f) => f.parent < 0), byTime ? 'time units' : 'instructions', this.t.name);
};
/* root: {name, value, self, calls, ids, kids}; unit: what value counts. */
V.setFlame = function (root, unit, title) {
  this.flame = {root, unit, title};
  this.flameZoom = root;
  this.drawFlame();
};
V.drawFlame = function () {
  const fl = this.flame;
  if (!fl || !fl.root) return;
  const el = this.flameEl, z = this.flameZoom;
  el.replaceChildren();
  const head = el.appendChild(TK.el('div', 'fhead', fl.title + ': ' + z.name + ', ' + z.value + ' ' + fl.unit +
    (z !== fl.root ? ' (click the top frame to zoom out)' : ' (click a frame to zoom, double-click to go to it)')));
  head.dataset.n = 1;
  const body = el.appendChild(TK.el('div', 'fbody'));
  const W = Math.max(200, el.clientWidth - 8), H = 18;
  let maxDepth = 0, count = 0;
  /* The zoomed frame's ancestors as full-width bars, then its subtree. */
  const chain = [];
  for (let f = z.up; f; f = f.up) chain.unshift(f);
  const put = (f, x, w, depth) => {
    if (w < 2 || count > 6000) return;
    count++;
    maxDepth = Math.max(maxDepth, depth);
    const d = body.appendChild(TK.el('div', 'fr', f.name));
    d.style.left = x + 'px'; d.style.width = w + 'px'; d.style.top = depth * H + 'px';
    d.addEventListener('click', () => { this.flameZoom = f === this.flameZoom && f.up ? f.up : f; this.drawFlame(); });
    d.addEventListener('dblclick', () => this.flameJump(f, 0));
    d.addEventListener('contextmenu', (e) => TK.menu(e, (f.ids || []).slice(0, 16).map((id, k) => (
      {label: 'Go to activation ' + (k + 1) + ' of ' + f.calls, fn: () => this.flameJump(f, k)}))
      .concat([{label: 'Zoom to this frame', fn: () => { this.flameZoom = f; this.drawFlame(); }}])));
    d.addEventListener('mousemove', (e) => TK.tip(e, f.name + '\n' + f.value + ' ' + fl.unit + ' (' +
      (100 * f.value / (fl.root.value || 1)).toFixed(2) + '%), self ' + f.self + '\n' + f.calls + ' call' + (f.calls === 1 ? '' : 's')));
    d.addEventListener('mouseleave', () => TK.tip(null));
    const kids = f.kids.slice().sort((a, b) => b.value - a.value);
    let cx = x;
    for (const k of kids) {
      k.up = f;
      const kw = f.value ? w * k.value / f.value : 0;
      put(k, cx, kw, depth + 1);
      cx += kw;
    }
  };
  const linkUps = (f) => { for (const k of f.kids) { k.up = f; } };
  linkUps(fl.root);
  chain.forEach((f, i) => put(Object.assign({}, f, {kids: []}), 0, W, i));
  put(z, 0, W, chain.length);
  body.style.height = (maxDepth + 1) * H + 'px';
};
V.flameJump = function (f, k) {
  TK.tip(null);
  if (!f.ids || !f.ids.length) return TK.say('this frame has no activation in this trace (an imported profile)', true);
  this.run(() => this.jumpCall(f.ids[k]));
};

/* ---- profile ----------------------------------------------------------------------- */
V.loadProfile = async function () {
  const j = await TK.api('profile', {trace: this.t.id});
  const rows = j.functions;
  const cols = [['name', 'Function'], ['count', 'Calls'], ['time', 'Time'], ['self_time', 'Self time'], ['insns', 'Instructions'], ['self_insns', 'Self insns']];
  let key = 'time', desc = true;
  const draw = () => {
    rows.sort((a, b) => {
      const x = key === 'name' ? (a.name || a.addr) : a[key], y = key === 'name' ? (b.name || b.addr) : b[key];
      return (x < y ? -1 : x > y ? 1 : 0) * (desc ? -1 : 1);
    });
    const tb = TK.el('table');
    const hr = tb.appendChild(TK.el('tr'));
    for (const [k, label] of cols) {
      const th = hr.appendChild(TK.el('th', '', label + (k === key ? (desc ? ' ▾' : ' ▴') : '')));
      th.addEventListener('click', () => { if (key === k) desc = !desc; else { key = k; desc = k !== 'name'; } draw(); });
    }
    for (const r of rows) {
      const tr = tb.appendChild(TK.el('tr'));
      tr.title = 'go to the first call';
      for (const [k] of cols) tr.appendChild(TK.el('td', '', k === 'name' ? (r.name || r.addr) + (r.name ? ' (' + r.addr + ')' : '') : String(r[k])));
      tr.addEventListener('click', () => this.run(() => this.jumpCall(r.first)));
    }
    this.profEl.replaceChildren(tb);
  };
  draw();
};

/* ---- loading an exported profile ------------------------------------------------------ */
/* Turn Chrome trace "X" events or a speedscope evented profile into a
 * flame graph tree (stacks merged, values are durations). */
TK.parseProfile = function (text) {
  const j = JSON.parse(text);
  const root = {name: 'all', value: 0, self: 0, calls: 1, kids: [], map: new Map()};
  const child = (p, name) => {
    let c = p.map.get(name);
    if (!c) { c = {name, value: 0, self: 0, calls: 0, kids: [], map: new Map()}; p.map.set(name, c); p.kids.push(c); }
    return c;
  };
  if (j.traceEvents) {
    const evs = j.traceEvents.filter((e) => e.ph === 'X').sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    const stack = [];
    for (const e of evs) {
      while (stack.length && e.ts >= stack[stack.length - 1].end) stack.pop();
      const f = child(stack.length ? stack[stack.length - 1].f : root, e.name);
      f.calls++; f.value += e.dur;
      stack.push({f, end: e.ts + e.dur});
    }
  } else if (j.profiles && j.shared) {
    for (const p of j.profiles) {
      const stack = [{f: root}];
      for (const e of p.events) {
        if (e.type === 'O') {
          const f = child(stack[stack.length - 1].f, j.shared.frames[e.frame].name);
          f.calls++; stack.push({f, at: e.at});
        } else if (stack.length > 1) { const s = stack.pop(); s.f.value += e.at - s.at; }
      }
    }
  } else {
    throw new Error('not a Chrome trace or speedscope profile');
  }
  const fix = (f) => { let k = 0; for (const c of f.kids) { fix(c); k += c.value; } if (f === root) f.value = k; f.self = Math.max(0, f.value - k); };
  fix(root);
  return root;
};
})();
