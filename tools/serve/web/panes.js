/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve page: the panes that follow the position: registers
 * (core, FP, NEON, MVE, system), memory views, the call stack.  Values that
 * changed since the previous position are highlighted (after a folded call:
 * since before it); unknown bytes show as ??.  A pane can be locked to a
 * position (l, t, Ctrl-L), as in the terminal browser. */
'use strict';
(function () {
const SETS = [
  {set: 'core', key: 'r', label: 'Core'}, {set: 'single', key: 'S', label: 'S'},
  {set: 'double', key: 'D', label: 'D'}, {set: 'neon', key: 'V', label: 'NEON'},
  {set: 'mve', key: 'M', label: 'MVE'}, {set: 'system', key: 'y', label: 'System'},
];
TK.REGSETS = SETS;
const V = TK.View.prototype;

V.initPanes = function () {
  /* A source without register values (PT, Qtrace, function traces) has
   * no register panes; one without memory values, no memory views. */
  const caps = this.t.caps || {registers: true, memory_values: true};
  this.hasRegs = caps.registers;
  this.hasMem = caps.memory_values;
  this.regSets = new Set(this.hasRegs ? ['core'] : []);
  this.regSel = {set: 'core', i: 0};
  this.regLock = null;		/* a position: the register panes are locked */
  this.mems = [];
  this.showStack = true;
  this.regEl = this.root.querySelector('.regpanes');
  this.memEl = this.root.querySelector('.mempanes');
  this.stackEl = this.root.querySelector('.stack');
  this.stackEl.querySelector('.frames').addEventListener('click', (e) => {
    const li = e.target.closest('li');
    if (li && li.dataset.line) this.run(() => this.goLine(+li.dataset.line));
  });
  /* The pane switches, as the terminal browser's r S D V M c keys. */
  const bar = TK.el('div', 'ptitle');
  for (const s of this.hasRegs ? SETS : []) {
    const b = TK.el('button', this.regSets.has(s.set) ? 'on' : '', s.label);
    b.title = 'Show or hide the ' + s.set + ' registers (' + s.key + ')';
    b.dataset.set = s.set;
    b.addEventListener('click', () => this.toggleSet(s.set));
    bar.appendChild(b);
  }
  const st = TK.el('button', 'on', 'Stack');
  st.title = 'Show or hide the call stack (c)';
  st.dataset.set = 'stack';
  st.addEventListener('click', () => this.toggleStack());
  bar.appendChild(st);
  this.regEl.before(bar);
  this.switchBar = bar;
};

V.toggleSet = function (set) {
  if (!this.hasRegs) { TK.say('this trace has no register values'); return; }
  if (this.regSets.has(set)) this.regSets.delete(set); else this.regSets.add(set);
  this.switchBar.querySelector('[data-set="' + set + '"]').classList.toggle('on', this.regSets.has(set));
  this.refreshRegs().catch(TK.oops);
};
V.toggleStack = function () {
  this.showStack = !this.showStack;
  this.stackEl.hidden = !this.showStack;
  this.switchBar.querySelector('[data-set="stack"]').classList.toggle('on', this.showStack);
  this.refreshStack().catch(TK.oops);
};

V.refreshPanes = function () {
  const s = this.state;
  if (!s) return;
  const gen = this.gen = (this.gen || 0) + 1;
  Promise.all([this.refreshRegs(gen), this.refreshMems(gen), this.refreshStack(gen), this.refreshTreeHere()])
    .catch(TK.oops);
};

/* ---- registers ---------------------------------------------------------- */
V.refreshRegs = async function (gen) {
  const pos = this.regLock || this.state;
  if (!pos) return;
  const prm = {trace: this.t.id, line: pos.line, sets: [...this.regSets].join(',') || 'none'};
  if (!this.regLock && this.prevState) prm.since = this.prevState.line;
  const j = this.regSets.size ? await TK.api('regs', prm) : {groups: []};
  if (gen && gen !== this.gen) return;
  this.regs = j;
  this.regEl.replaceChildren();
  for (const g of j.groups) {
    const pane = TK.el('div', 'regs pane' + (g.set === 'neon' || g.set === 'mve' ? ' wide' : ''));
    pane.tabIndex = 0;
    pane.dataset.pane = 'regs';
    pane.dataset.set = g.set;
    const title = TK.el('div', 'ptitle');
    title.appendChild(TK.el('span', '', g.title + (this.regLock ? ' [locked: line ' + this.regLock.line + ']' : '')));
    const sym = TK.el('span', 'symline');
    title.appendChild(sym);
    pane.appendChild(title);
    const grid = pane.appendChild(TK.el('div', 'grid'));
    g.regs.forEach((r, i) => {
      const cell = TK.el('div', 'reg');
      cell.dataset.i = i;
      if (this.regSel.set === g.set && this.regSel.i === i) cell.classList.add('sel');
      cell.appendChild(TK.el('span', 'n', r.name));
      const v = cell.appendChild(TK.el('span', 'v' + (r.changed ? ' changed' : '')));
      for (let k = 0; k < r.value.length; k += 2) {
        const b = r.value.substr(k, 2);
        if (b === '??') v.appendChild(TK.el('span', 'u', b)); else v.append(b);
      }
      if (r.float !== undefined) cell.appendChild(TK.el('span', 'f', r.float));
      cell.addEventListener('click', () => { this.regSel = {set: g.set, i}; this.markSel(); pane.focus(); });
      cell.addEventListener('contextmenu', (e) => this.regMenu(e, r));
      grid.appendChild(cell);
    });
    this.regEl.appendChild(pane);
  }
};
V.markSel = function () {
  for (const c of this.regEl.querySelectorAll('.reg.sel')) c.classList.remove('sel');
  const p = this.regEl.querySelector('[data-set="' + this.regSel.set + '"]');
  const c = p && p.querySelector('.reg[data-i="' + this.regSel.i + '"]');
  if (c) c.classList.add('sel');
};
V.selectedReg = function () {
  const g = this.regs && this.regs.groups.find((x) => x.set === this.regSel.set);
  return g ? g.regs[this.regSel.i] : null;
};
/* The line whose state is before the position's instruction. */
V.lineBefore = function (pos) { return pos.insn ? pos.first_line - 1 : null; };
V.regWrite = async function (r, dir) {
  const pos = this.regLock || this.state;
  const at = dir === 'prev' ? this.lineBefore(pos) : pos.line;
  if (at === null) return TK.say('no earlier write of ' + r.name, true);
  const j = await TK.api('history', {trace: this.t.id, line: at, reg: r.name, dir});
  await this.goWrite(j, (dir === 'prev' ? 'previous ' : 'next ') + (r.name === 'pc' ? 'visit of this pc' : 'write of ' + r.name));
};
V.regMenu = function (e, r) {
  const known = !r.value.includes('??');
  TK.menu(e, [
    {label: 'Previous write of ' + r.name, fn: () => this.run(() => this.regWrite(r, 'prev'))},
    {label: 'Next write of ' + r.name, fn: () => this.run(() => this.regWrite(r, 'next'))},
    {label: 'Memory view at ' + r.name, off: !known, fn: () => this.run(() => this.openMem(r.name, true))},
    {label: 'Symbol at the value of ' + r.name, off: !known, fn: () => this.run(() => this.showSymbol(r))},
    {label: 'Copy the value', fn: () => navigator.clipboard && navigator.clipboard.writeText('0x' + r.value).catch(() => {})},
  ]);
};
V.showSymbol = async function (r) {
  if (!r || r.value.includes('??')) return TK.say((r ? r.name : 'register') + ': not a known address', true);
  if (!this.t.image) return TK.say('symbols need an ELF image (--image)', true);
  const j = await TK.api('symbols', {trace: this.t.id, addr: '0x' + r.value});
  const s = j.symbols[0];
  if (!s) return TK.say(r.name + ' = 0x' + r.value + ': no symbol');
  const off = TK.hex('0x' + r.value) - TK.hex(s.addr);
  TK.say(r.name + ' = 0x' + r.value + ' = ' + s.name + (off ? '+0x' + off.toString(16) : ''));
};
V.regKey = async function (e, set) {
  const g = this.regs && this.regs.groups.find((x) => x.set === set);
  if (!g) return false;
  if (this.regSel.set !== set) this.regSel = {set, i: 0};
  const cols = Math.max(1, getComputedStyle(this.regEl.querySelector('[data-set="' + set + '"] .grid'))
    .gridTemplateColumns.split(' ').length);
  let i = this.regSel.i;
  switch (e.key) {
    case 'ArrowLeft': i--; break;
    case 'ArrowRight': i++; break;
    case 'ArrowUp': i -= cols; break;
    case 'ArrowDown': i += cols; break;
    case 'Enter': await this.regWrite(g.regs[i], 'prev'); return true;
    case 'a': await this.showSymbol(g.regs[i]); return true;
    default: return this.lockKey(e, 'regs');
  }
  this.regSel.i = Math.max(0, Math.min(g.regs.length - 1, i));
  this.markSel();
  return true;
};
/* l, t: lock to a line / time; Ctrl-L: lock here or unlock. */
V.lockKey = async function (e, which, mem) {
  const set = async (p) => {
    if (which === 'regs') this.regLock = p; else mem.lock = p;
    this.refreshPanes();
  };
  if (e.key === 'l' && !e.ctrlKey) {
    const v = await this.app.prompt('Lock the pane to line: ');
    if (v !== null) await set(await TK.api('position', {trace: this.t.id, line: v}));
    return true;
  }
  if (e.key === 't') {
    const v = await this.app.prompt('Lock the pane to time: ');
    if (v !== null) await set(await TK.api('position', {trace: this.t.id, time: v}));
    return true;
  }
  if (e.key === 'l' && e.ctrlKey) {
    const locked = which === 'regs' ? this.regLock : mem.lock;
    await set(locked ? null : this.state);
    TK.say(locked ? 'pane unlocked: it follows the current position' : 'pane locked to the current position');
    return true;
  }
  return false;
};

/* ---- memory views ---------------------------------------------------------- */
V.openMem = async function (expr, follow) {
  if (!this.hasMem) { TK.say('this trace has no memory values'); return; }
  const pos = this.state;
  const j = await TK.api('mem', {trace: this.t.id, line: pos.line, addr: expr, len: 16});
  const m = {expr, addr: TK.hex(j.addr) & ~15n, cur: TK.hex(j.addr), rows: 8, follow: !!follow, lock: null, diff: null};
  this.mems.push(m);
  m.el = TK.el('div', 'mem pane');
  m.el.tabIndex = 0;
  m.el.dataset.pane = 'mem';
  const title = m.el.appendChild(TK.el('div', 'ptitle'));
  m.titleEl = title.appendChild(TK.el('span'));
  const x = title.appendChild(TK.el('span', 'x', '×'));
  x.title = 'close this memory view';
  x.addEventListener('click', () => this.closeMem(m));
  m.dump = m.el.appendChild(TK.el('div', 'dump'));
  m.el.addEventListener('wheel', (e) => { e.preventDefault(); m.addr += BigInt(16 * Math.sign(e.deltaY) * 2); m.follow = false; this.drawMem(m).catch(TK.oops); });
  this.memEl.appendChild(m.el);
  await this.drawMem(m);
  m.el.focus();
};
V.closeMem = function (m) {
  m.el.remove();
  this.mems = this.mems.filter((x) => x !== m);
};
V.refreshMems = async function (gen) {
  for (const m of this.mems) await this.drawMem(m, gen);
};
V.drawMem = async function (m, gen) {
  const pos = m.lock || this.state;
  if (m.follow) {	/* follow a register: the expression at this position */
    try {
      const a = await TK.api('mem', {trace: this.t.id, line: pos.line, addr: m.expr, len: 1});
      const na = TK.hex(a.addr);
      if (na !== m.cur) { m.cur = na; m.addr = na & ~15n; }
    } catch (e) { /* e.g. the register is unknown here: keep the address */ }
  }
  if (m.addr < 0n) m.addr = 0n;
  const prm = {trace: this.t.id, line: pos.line, addr: TK.fmtHex(m.addr), len: m.rows * 16};
  if (m.diff) prm.since = m.diff.line;
  else if (!m.lock && this.prevState) prm.since = this.prevState.line;
  const j = await TK.api('mem', prm);
  if (gen && gen !== this.gen) return;
  m.last = j;
  m.titleEl.textContent = 'Memory: ' + m.expr + (m.follow ? ' (follows)' : '') + (m.lock ? ' [locked: line ' + m.lock.line + ']' : '') +
    (m.diff ? ' [changes since line ' + m.diff.line + ']' : '') + '  ' + TK.fmtHex(m.cur);
  const changed = new Uint8Array(j.len);
  for (const [a, n] of j.changed) {
    const off = Number(TK.hex(a) - m.addr);
    for (let k = Math.max(0, off); k < Math.min(j.len, off + n); k++) changed[k] = 1;
  }
  m.changed = changed;
  m.dump.replaceChildren();
  for (let r = 0; r < m.rows; r++) {
    const row = m.dump.appendChild(TK.el('div', 'mrow'));
    row.appendChild(TK.el('span', 'a', TK.fmtHex(m.addr + BigInt(r * 16), 8).slice(2)));
    const hx = row.appendChild(TK.el('span'));
    let asc = '';
    for (let c = 0; c < 16; c++) {
      const k = r * 16 + c;
      if (k >= j.len) break;
      const b = j.bytes.substr(2 * k, 2), a = m.addr + BigInt(k);
      const s = TK.el('span', 'b' + (b === '??' ? ' u' : '') + (changed[k] ? ' changed' : '') + (a === m.cur ? ' sel' : ''), b);
      s.dataset.k = k;
      s.addEventListener('click', () => { m.cur = a; this.drawMem(m).catch(TK.oops); m.el.focus(); });
      s.addEventListener('contextmenu', (e) => this.memMenu(e, m, a));
      hx.appendChild(s);
      if (c < 15) hx.append(c === 7 ? '  ' : ' ');
      const v = b === '??' ? -1 : parseInt(b, 16);
      asc += v >= 32 && v < 127 ? String.fromCharCode(v) : v < 0 ? ' ' : '.';
    }
    row.appendChild(TK.el('span', 'asc', asc));
  }
};
V.memWrite = async function (m, a, size, dir) {
  const pos = m.lock || this.state, base = a & ~BigInt(size - 1);
  const at = dir === 'prev' ? this.lineBefore(pos) : pos.line;
  if (at === null) return TK.say('no earlier write', true);
  const j = await TK.api('history', {trace: this.t.id, line: at, addr: TK.fmtHex(base), len: size, dir});
  await this.goWrite(j, (dir === 'prev' ? 'previous' : 'next') + ' write of ' + size + ' byte' + (size > 1 ? 's' : '') + ' at ' + TK.fmtHex(base));
};
V.memMenu = function (e, m, a) {
  const it = [];
  for (const n of [1, 2, 4, 8]) it.push({label: 'Previous write of the ' + (n === 1 ? 'byte' : 'aligned ' + n + ' bytes'), fn: () => this.run(() => this.memWrite(m, a, n, 'prev'))});
  for (const n of [1, 4]) it.push({label: 'Next write of the ' + (n === 1 ? 'byte' : 'aligned ' + n + ' bytes'), fn: () => this.run(() => this.memWrite(m, a, n, 'next'))});
  it.push({label: 'Memory view at this address', fn: () => this.run(() => this.openMem(TK.fmtHex(a)))});
  TK.menu(e, it);
};
V.memKey = async function (e, m) {
  const step = {ArrowLeft: -1n, ArrowRight: 1n, ArrowUp: -16n, ArrowDown: 16n}[e.key];
  if (step !== undefined) {
    m.cur += step;
    if (m.cur < m.addr) m.addr -= 16n;
    if (m.cur >= m.addr + BigInt(m.rows * 16)) m.addr += 16n;
    m.follow = false;
    await this.drawMem(m);
    return true;
  }
  if (e.key === 'PageUp' || e.key === 'PageDown') {
    const d = BigInt(m.rows * 16) * (e.key === 'PageUp' ? -1n : 1n);
    m.addr += d; m.cur += d; m.follow = false;
    await this.drawMem(m);
    return true;
  }
  if (e.key === 'Enter' || '1248'.includes(e.key) && e.key.length === 1) {
    await this.memWrite(m, m.cur, e.key === 'Enter' ? 1 : +e.key, 'prev');
    return true;
  }
  if (e.key === '[' || e.key === ']') {	/* previous / next changed byte */
    const k0 = Number(m.cur - m.addr), ch = m.changed || [];
    let k = k0 + (e.key === ']' ? 1 : -1);
    while (k >= 0 && k < ch.length && !ch[k]) k += e.key === ']' ? 1 : -1;
    if (k < 0 || k >= ch.length) return TK.say('no ' + (e.key === ']' ? 'later' : 'earlier') + ' changed byte in the view', true), true;
    m.cur = m.addr + BigInt(k);
    await this.drawMem(m);
    return true;
  }
  if (e.key === 'd') {
    const v = await this.app.prompt('Highlight changes since line (empty: the previous position): ');
    if (v === null) return true;
    m.diff = v === '' ? null : await TK.api('position', {trace: this.t.id, line: v});
    await this.drawMem(m);
    return true;
  }
  if (e.key === '<' || e.key === '>') {
    m.rows = Math.max(2, Math.min(64, m.rows + (e.key === '>' ? 1 : -1)));
    await this.drawMem(m);
    return true;
  }
  if (e.key === 'f') { m.follow = !m.follow; await this.drawMem(m); return true; }
  if (e.key === 'Delete' || e.key === 'x') { this.closeMem(m); return true; }
  return this.lockKey(e, 'mem', m);
};

/* ---- call stack ---------------------------------------------------------------- */
V.refreshStack = async function (gen) {
  /* The stack of the line shown (a folded call's line: the caller's). */
  if (!this.showStack || !this.cur || !this.t.instructions) return;
  const j = await TK.api('callstack', {trace: this.t.id, line: this.cur.line});
  if (gen && gen !== this.gen) return;
  const ol = this.stackEl.querySelector('.frames');
  ol.replaceChildren();
  this.stackEl.querySelector('.ptitle').textContent = 'Call stack (' + (j.frames.length - 1) + ' active)';
  j.frames.forEach((f, k) => {
    const name = f.name || f.addr;
    const li = TK.el('li', '', f.call ? name + '  called from line ' + f.call.line + ' (pc ' + f.call.pc + ', time ' + f.call.time + ')'
      : name + ' (top level of the trace, from line ' + f.entry.line + ')');
    li.title = f.call ? 'go to the call site' : '';
    if (f.call) li.dataset.line = f.call.line > 1 ? f.call.line - 1 : 1;
    li.value = k;
    ol.appendChild(li);
  });
  this.stackFrames = j.frames;
};
})();
