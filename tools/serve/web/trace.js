/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve page: one trace's view, and its trace pane.
 *
 * The pane scrolls over the whole trace without holding it: only the rows
 * on screen exist, their lines are fetched 128 at a time and cached.  Rows
 * are the trace's lines less those of folded calls; the server turns the
 * fold state (a set of call ids) into the stretches of lines they hide,
 * and rows map to lines by a binary search over those stretches.  A
 * browser caps an element's height, so the scroll bar's range is scaled
 * when the trace has more rows than fit.
 *
 * The current position is an instruction (the state after it and its
 * group of update lines).  On the line of a folded call, it stands for the
 * whole call: registers and memory are shown after the call returns.
 */
'use strict';
(function () {
const BLOCK = 128, MAX_BLOCKS = 400, MAX_PX = 4e6;

TK.View = class {
  constructor(app, trace, root) {
    this.app = app;
    this.t = trace;
    this.root = root;
    this.pane = root.querySelector('.trace');
    this.scroller = root.querySelector('.scroller');
    this.rowsEl = root.querySelector('.rows');
    this.spacer = root.querySelector('.spacer');
    root.querySelector('.tname').textContent = trace.name;
    this.total = trace.lines;
    this.folds = new TK.RangeSet();
    this.hs = []; this.he = []; this.hid = []; this.hexit = []; this.hp = [0];
    this.blocks = new Map();
    this.top = 0;
    this.cur = null;		/* position of the row's instruction */
    this.state = null;	/* position whose state the panes show */
    this.prevState = null;
    this.queue = Promise.resolve();
    this.syntax = true;
    this.symbolic = !!trace.image;
    this.hl = 0; this.hlCands = null;
    this.pcSearch = null;
    this.match = null;
    this.rowH = 18;
    this.rowEls = [];
    this.scroller.addEventListener('scroll', () => this.onScroll());
    this.rowsEl.addEventListener('click', (e) => this.onClick(e));
    this.rowsEl.addEventListener('contextmenu', (e) => this.onContext(e));
    new ResizeObserver(() => this.layout()).observe(this.scroller);
    this.initPanes();
    this.initLower();
  }

  /* Run navigation steps one after another (keys may come faster). */
  run(fn) {
    this.queue = this.queue.then(fn).catch(TK.oops);
    return this.queue;
  }

  /* ---- rows and lines ---------------------------------------------------- */
  get hiddenLines() { return this.hp[this.hp.length - 1]; }
  get rows() { return this.total - this.hiddenLines; }
  /* The row of a line (a hidden line: the row of its folded call's line). */
  lineToRow(L) {
    let lo = 0, hi = this.hs.length;	/* intervals with start <= L */
    while (lo < hi) { const m = (lo + hi) >> 1; if (this.hs[m] <= L) lo = m + 1; else hi = m; }
    const k = lo - 1;
    if (k >= 0 && L < this.he[k]) return this.hs[k] - 2 - this.hp[k];
    return L - 1 - this.hp[lo];
  }
  rowToLine(r) {
    let lo = 0, hi = this.hs.length;	/* intervals whose start row <= r */
    while (lo < hi) { const m = (lo + hi) >> 1; if (this.hs[m] - 1 - this.hp[m] <= r) lo = m + 1; else hi = m; }
    return r + 1 + this.hp[lo];
  }
  /* The hidden stretch containing line L, or -1. */
  hiddenAt(L) {
    let lo = 0, hi = this.hs.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (this.hs[m] <= L) lo = m + 1; else hi = m; }
    return lo > 0 && L < this.he[lo - 1] ? lo - 1 : -1;
  }
  /* The hidden stretch that starts at line L, or -1. */
  hiddenFrom(L) { const k = this.hiddenAt(L); return k >= 0 && this.hs[k] === L ? k : -1; }

  line(L) {
    const b = Math.floor((L - 1) / BLOCK), blk = this.blocks.get(b);
    if (blk && blk.lines) return blk.lines[L - 1 - b * BLOCK];
    if (!blk) this.fetchBlock(b);
    return null;
  }
  fetchBlock(b) {
    const blk = {lines: null};
    this.blocks.set(b, blk);
    if (this.blocks.size > MAX_BLOCKS) this.blocks.delete(this.blocks.keys().next().value);
    blk.p = TK.api('lines', {trace: this.t.id, from: b * BLOCK + 1, count: BLOCK, events: 0, classes: 1, symbolic: 1})
      .then((j) => { blk.lines = j.lines; this.render(); })
      .catch((e) => { this.blocks.delete(b); TK.oops(e); });
    return blk.p;
  }
  async lineAsync(L) {
    const b = Math.floor((L - 1) / BLOCK);
    let blk = this.blocks.get(b);
    if (!blk) { this.fetchBlock(b); blk = this.blocks.get(b); }
    if (!blk.lines) await blk.p;
    return blk.lines ? blk.lines[L - 1 - b * BLOCK] : null;
  }

  /* ---- layout and drawing ----------------------------------------------- */
  layout() {
    if (!this.rowEls.length) this.rowEls.push(this.rowsEl.appendChild(TK.el('div', 'row', ' ')));
    const probe = this.rowEls[0];
    this.rowH = probe.getBoundingClientRect().height || 18;
    const n = Math.max(1, Math.ceil(this.scroller.clientHeight / this.rowH));
    while (this.rowEls.length < n) this.rowEls.push(this.rowsEl.appendChild(TK.el('div', 'row')));
    while (this.rowEls.length > n) this.rowEls.pop().remove();
    this.vis = Math.max(1, Math.floor(this.scroller.clientHeight / this.rowH));
    this.sizeScroll();
    this.render();
  }
  sizeScroll() {
    const h = this.scroller.clientHeight;
    const full = this.rows * this.rowH;
    this.scrollH = Math.min(full, MAX_PX);
    this.spacer.style.height = Math.max(0, this.scrollH - h) + 'px';
    this.syncScroll();
  }
  maxTop() { return Math.max(0, this.rows - this.vis); }
  syncScroll() {
    const range = this.scrollH - this.scroller.clientHeight, mt = this.maxTop();
    const want = mt && range > 0 ? Math.round(this.top / mt * range) : 0;
    if (Math.abs(this.scroller.scrollTop - want) > 1) { this.ignoreScroll = true; this.scroller.scrollTop = want; }
  }
  onScroll() {
    if (this.ignoreScroll) { this.ignoreScroll = false; return; }
    const range = this.scrollH - this.scroller.clientHeight, mt = this.maxTop();
    this.top = range > 0 ? Math.round(this.scroller.scrollTop / range * mt) : 0;
    this.render();
  }
  /* Scroll so that row r shows (centre: in the middle). */
  reveal(r, centre) {
    if (centre || r < this.top || r >= this.top + this.vis) this.top = r - Math.floor(this.vis / 2);
    else if (r < this.top + 1) this.top = r - 1;
    else if (r > this.top + this.vis - 2) this.top = r - this.vis + 2;
    this.top = Math.max(0, Math.min(this.top, this.maxTop()));
    this.syncScroll();
  }

  render() {
    if (!this.rowEls.length) return;
    const cur = this.cur;
    const hlLine = this.hlCands && this.hl ? this.hlCands[this.hl - 1] : -1;
    let markRow = -1;
    if (cur) markRow = this.lineToRow(cur.end_line - 1);
    for (let i = 0; i < this.rowEls.length; i++) {
      const el = this.rowEls[i], r = this.top + i;
      el.replaceChildren();
      el.className = 'row';
      if (r >= this.rows) { delete el.dataset.line; continue; }
      const L = this.rowToLine(r), d = this.line(L);
      el.dataset.line = L;
      el.appendChild(TK.el('span', 'ln', String(L)));
      const fb = el.appendChild(TK.el('span', 'fb'));
      if (cur && L >= cur.first_line && L < cur.end_line) el.classList.add('cur');
      if (r === markRow) el.classList.add('mark');
      if (L === hlLine) el.classList.add('hl');
      const tx = el.appendChild(TK.el('span', 'tx'));
      if (!d) { tx.textContent = '…'; continue; }
      if (d.calls) {
        const folded = this.hiddenFrom(d.calls.first_line) >= 0;
        fb.textContent = folded ? '⊞' : '⊟';
        fb.title = folded ? 'unfold this call' : 'fold this call';
        fb.dataset.call = d.calls.id;
      }
      this.drawText(tx, d, L);
      if (d.calls && this.hiddenFrom(d.calls.first_line) >= 0)
        el.appendChild(TK.el('span', 'fold', '+ ' + d.calls.insns + ' instruction' + (d.calls.insns === 1 ? '' : 's') +
          ' folded: ' + (d.calls.name || d.calls.addr)));
    }
    this.drawTitle();
  }
  drawText(tx, d, L) {
    const m = this.match && this.match.line === L && !(this.symbolic && d.sym) ? this.match : null;
    const sym = this.symbolic && d.sym;
    const text = sym ? d.sym : d.text, runs = sym ? d.sym_cls : d.cls;
    if (!this.syntax || !runs) {
      tx.textContent = text;
      if (!m || sym) return;
    }
    /* Runs of syntax classes, with the search match marked. */
    const cls = new Uint8Array(text.length);
    if (this.syntax && runs) for (const [s, n, c] of runs) cls.fill(c, s, s + n);
    tx.replaceChildren();
    for (let x = 0; x < text.length;) {
      let e = x + 1;
      const inM = m && x >= m.s && x < m.e;
      while (e < text.length && cls[e] === cls[x] && (m ? (e >= m.s && e < m.e) === inM && e !== m.s && e !== m.e : true)) e++;
      const span = TK.el('span', (cls[x] ? 'c' + cls[x] : '') + (inM ? ' m' : ''), text.slice(x, e));
      tx.appendChild(span);
      x = e;
    }
  }
  drawTitle() {
    const s = this.state, info = this.root.querySelector('.tinfo');
    if (!s) { info.textContent = ''; return; }
    info.textContent = 'line ' + s.line + '  time ' + s.time + '  ' + (s.insn + 1) + '/' + this.t.instructions +
      (this.folds.r.length ? '  (folded: ' + this.hs.length + ')' : '');
  }

  /* ---- positions ---------------------------------------------------------- */
  /* Make p the current position; the state shown is after the whole call
   * when p's line is a folded call.  push: a jump worth a history entry. */
  async setPos(p, opts) {
    opts = opts || {};
    if (!p) return;
    /* A position hidden by a fold: the line of the outermost folded call. */
    const k = this.hiddenAt(p.line);
    if (k >= 0) p = await TK.api('position', {trace: this.t.id, line: this.hs[k] - 1});
    let st = p;
    const f = this.hiddenFrom(p.end_line);
    if (f >= 0) st = await TK.api('position', {trace: this.t.id, line: this.hexit[f]});
    const old = this.state;
    this.cur = p;
    this.prevState = opts.keepPrev ? this.prevState : old;
    this.state = st;
    this.hl = 0; this.hlCands = null;
    this.reveal(this.lineToRow(p.line), opts.centre);
    this.render();
    this.app.positionChanged(this, !!opts.push);
    this.refreshPanes();
  }
  async goLine(L, opts) {
    const p = await TK.api('position', {trace: this.t.id, line: L});
    await this.unhide(p.line);
    await this.setPos(p, Object.assign({centre: true, push: true}, opts));
  }
  /* Unfold the calls that hide line L (a jump shows what it jumps to). */
  async unhide(L) {
    if (this.hiddenAt(L) < 0) return;
    const cs = await TK.api('callstack', {trace: this.t.id, line: L});
    for (const f of cs.frames) this.folds.remove(f.id, f.id);
    await this.loadFolds();
  }
  async step(dir) {
    const p = this.cur;
    if (!p) return;
    let L;
    if (dir > 0) {
      L = p.end_line;
      const k = this.hiddenFrom(L);
      if (k >= 0) L = this.he[k];
      if (L > this.total) return TK.say('end of the trace');
    } else {
      if (p.insn === 0) return TK.say('start of the trace');
      L = p.first_line - 1;
      const k = this.hiddenAt(L);
      if (k >= 0) L = this.hs[k] - 1;
    }
    await this.setPos(await TK.api('position', {trace: this.t.id, line: L}));
  }
  async page(dir) {
    if (!this.cur) return;
    const r = Math.max(0, Math.min(this.rows - 1, this.lineToRow(this.cur.line) + dir * Math.max(1, this.vis - 2)));
    await this.setPos(await TK.api('position', {trace: this.t.id, line: this.rowToLine(r)}));
  }
  async home() { await this.setPos(await TK.api('position', {trace: this.t.id, insn: 0}), {push: true}); }
  async end() { await this.setPos(await TK.api('position', {trace: this.t.id, insn: this.t.instructions - 1}), {push: true}); }
  async goTime(t) {
    const p = await TK.api('position', {trace: this.t.id, time: t});
    await this.unhide(p.line);
    await this.setPos(p, {centre: true, push: true});
  }
  async findPc(expr, dir) {
    const prm = {trace: this.t.id, pc: expr, dir: dir > 0 ? 'next' : 'prev'};
    if (this.state) prm.from = this.cur.line;
    const p = await TK.api('position', prm);
    this.pcSearch = p.pc;
    await this.unhide(p.line);
    await this.setPos(p, {centre: true, push: true});
  }
  /* Jump to the write at position q's line (from history). */
  async goWrite(j, what) {
    if (!j.found) return TK.say('no ' + what + ' in the trace', true);
    await this.goLine(j.position.line);
    TK.say(what + ': line ' + j.position.line);
  }

  /* ---- folding ----------------------------------------------------------- */
  async loadFolds() {
    const j = await TK.api('folds', {trace: this.t.id, calls: this.folds.toString()});
    const n = j.hidden.length;
    this.hs = new Array(n); this.he = new Array(n); this.hid = new Array(n); this.hexit = new Array(n);
    this.hp = new Array(n + 1); this.hp[0] = 0;
    j.hidden.forEach(([a, b, id, exitLine], i) => {
      this.hs[i] = a; this.he[i] = b; this.hid[i] = id; this.hexit[i] = exitLine;
      this.hp[i + 1] = this.hp[i] + (b - a);
    });
    this.sizeScroll();
  }
  /* The call the fold keys work on: the one holding the next instruction. */
  async callHere() {
    const cs = await TK.api('callstack', {trace: this.t.id, line: this.cur.line, next: 1});
    return cs.frames[0];
  }
  async foldKey(k) {
    if (!this.t.calls) return TK.say('no function calls were found in this trace', true);
    const here = await this.callHere();
    switch (k) {
      case '-': case '_':
        if (!here || here.id === 0) return TK.say('not inside a function call', true);
        this.folds.add(here.id, here.id);
        break;
      case '+': case '=': {
        const f = this.hiddenFrom(this.cur.end_line);
        if (f < 0) return TK.say('no folded call just after the position', true);
        this.folds.remove(this.hid[f], this.hid[f]);
        break;
      }
      case '[': this.folds.add(here.id + 1, here.subtree_end - 1); break;
      case ']': this.folds.remove(here.id + 1, here.subtree_end - 1); break;
      case '{': this.folds.clear(); break;
      case '}': this.folds.add(1, this.t.calls); break;
    }
    await this.refold();
  }
  async toggleFold(id) {
    if (this.folds.has(id)) this.folds.remove(id, id); else this.folds.add(id, id);
    await this.refold();
  }
  async refold() {
    await this.loadFolds();
    const p = this.cur;
    this.cur = null;
    await this.setPos(p, {keepPrev: false});
  }

  /* ---- mouse --------------------------------------------------------------- */
  onClick(e) {
    const row = e.target.closest('.row');
    if (!row || !row.dataset.line) return;
    this.app.activate(this);
    this.pane.focus();
    if (e.target.classList.contains('fb') && e.target.dataset.call)
      return this.run(() => this.toggleFold(+e.target.dataset.call));
    this.run(async () => this.setPos(await TK.api('position', {trace: this.t.id, line: +row.dataset.line}), {push: true}));
  }
  onContext(e) {
    const row = e.target.closest('.row');
    if (!row || !row.dataset.line) return;
    const L = +row.dataset.line, d = this.line(L);
    const items = [];
    if (d && d.calls) {
      const folded = this.folds.has(d.calls.id);
      items.push({label: (folded ? 'Unfold ' : 'Fold ') + (d.calls.name || d.calls.addr), fn: () => this.run(() => this.toggleFold(d.calls.id))});
    }
    items.push({label: 'Fold the calls inside this function', fn: () => this.run(async () => { await this.goLine(L); await this.foldKey('['); })});
    items.push({label: 'Unfold everything inside this function', fn: () => this.run(async () => { await this.goLine(L); await this.foldKey(']'); })});
    items.push({label: 'Previous write of what this line updates', fn: () => this.run(() => this.lineWrite(L, 'prev'))});
    items.push({label: 'Next write of what this line updates', fn: () => this.run(() => this.lineWrite(L, 'next'))});
    items.push({label: 'Copy a link to this line', fn: () => this.copyLink(L)});
    TK.menu(e, items);
  }
  copyLink(L) {
    const u = location.origin + location.pathname + location.search + '#trace=' + this.t.id + '&line=' + L;
    if (navigator.clipboard) navigator.clipboard.writeText(u).catch(() => {});
    TK.say('link: ' + u);
  }
  /* Previous / next write of the register or memory a line updates. */
  async lineWrite(L, dir) {
    const j = await TK.api('lines', {trace: this.t.id, from: L, count: 1, events: 1});
    const ev = (j.lines[0].events || []).find((e) => (e.kind === 'reg' && e.reg) || (e.kind === 'mem' && !e.aborted));
    if (!ev) return TK.say('line ' + L + ' updates no register or memory', true);
    const p = await TK.api('position', {trace: this.t.id, line: L});
    /* prev: the write before this line's instruction; next: after it. */
    const at = dir === 'prev' ? (p.insn ? p.first_line - 1 : p.line) : p.line;
    if (dir === 'prev' && !p.insn) return TK.say('no earlier write', true);
    const prm = {trace: this.t.id, line: at, dir};
    let what;
    if (ev.kind === 'reg') { prm.reg = ev.name; what = (dir === 'prev' ? 'previous' : 'next') + ' write of ' + ev.name; }
    else {
      let lo = 0, hi = ev.size;
      while (lo < hi && ev.bytes.substr(2 * lo, 2) === '--') lo++;
      while (hi > lo && ev.bytes.substr(2 * (hi - 1), 2) === '--') hi--;
      if (lo === hi) { lo = 0; hi = ev.size; }
      prm.addr = TK.fmtHex(TK.hex(ev.addr) + BigInt(lo)); prm.len = hi - lo;
      what = (dir === 'prev' ? 'previous' : 'next') + ' write of memory ' + prm.addr;
    }
    await this.goWrite(await TK.api('history', prm), what);
  }

  /* `a`: cycle a highlight over the update lines of the current
   * instruction; Return: the previous write of the highlighted one. */
  async cycleHighlight() {
    if (!this.hlCands) {
      const c = this.cur, n = Math.min(1000, c.end_line - c.first_line);
      const j = await TK.api('lines', {trace: this.t.id, from: c.first_line, count: n, events: 1});
      this.hlCands = j.lines.filter((l) => (l.events || []).some((e) => (e.kind === 'reg' && e.reg) || (e.kind === 'mem' && !e.aborted))).map((l) => l.n);
    }
    if (!this.hlCands.length) { this.hl = 0; return TK.say('the instruction updates no register or memory', true); }
    this.hl = (this.hl + 1) % (this.hlCands.length + 1);
    this.render();
  }
  async enterKey() {
    if (!this.hl || !this.hlCands) return TK.say('press a to highlight a register or memory line first', true);
    await this.lineWrite(this.hlCands[this.hl - 1], 'prev');
  }

  /* ---- search ---------------------------------------------------------------- */
  async search(re, dir, icase) {
    if (!re) return TK.say('type a regular expression to search for', true);
    /* From the last match if it is on screen, else from the position. */
    let from = this.cur ? this.cur.line : 0;
    if (this.match && this.match.re === re && this.cur && this.match.line >= this.cur.first_line &&
        this.match.line < this.cur.end_line) from = this.match.line;
    const token = this.searchToken = {};
    for (let rounds = 0; rounds < 10000; rounds++) {
      const prm = {trace: this.t.id, re, dir: dir > 0 ? 'next' : 'prev', from};
      if (icase) prm.icase = 1;
      const j = await TK.api('search', prm);
      if (token !== this.searchToken) return;	/* a newer search began */
      if (j.found) {
        this.match = {re, line: j.line, s: j.match[0], e: j.match[1]};
        await this.goLine(j.line);
        this.match = {re, line: j.line, s: j.match[0], e: j.match[1]};
        this.render();
        return TK.say('match at line ' + j.line);
      }
      if (j.done) return TK.say('/' + re + '/ not found ' + (dir > 0 ? 'further on' : 'earlier'), true);
      from = j.from;
      TK.say('searching… line ' + from);
    }
  }
};
})();
