/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve page: the application: trace tabs (or two side by side,
 * their time cursors in step), keys (the terminal browser's), the prompt
 * line, the address bar (#trace=ID&line=N, Back/Forward), themes, help. */
'use strict';
(function () {
const HELP = [
  ['Trace pane', [
    ['Up / Down', 'previous / next instruction (a folded call is one step)'],
    ['PgUp / PgDn, Home / End', 'a screenful; the start / end of the trace'],
    ['click, ⊞ / ⊟', 'go to a line; fold or unfold a call'],
    ['- _ / + =', 'fold the call holding the position / unfold the folded call after it'],
    ['[ / ]', 'fold / unfold every call inside the current function'],
    ['{ / }', 'unfold everything / fold everything'],
    ['l, t', 'go to a line, to a time'],
    ['p / P, n / N', 'next / previous visit of a pc (expression); repeat'],
    ['m', 'open a memory view at an address expression (sp+16, main, x1*2)'],
    ['r S D V M y c', 'show or hide core, single, double, NEON, MVE, system registers, call stack'],
    ['a, Return', 'highlight an update line of the instruction; go to the previous write of it'],
    ['/', 'search the trace text (regular expression); Enter / Shift+Enter next / previous'],
    ['F6, F7', 'syntax colours; symbolic branch targets (with --image)'],
    ['Ctrl-L', 'put the position in the middle of the pane'],
    ['right-click', 'fold options, previous / next write of a line\'s register or memory, a link'],
  ]],
  ['All panes', [
    ['Tab / Shift+Tab', 'next / previous pane'],
    ['F1 or ?', 'this help'],
    ['Alt+1..9, Alt+←/→', 'switch trace tab; side by side with the S button'],
    ['Back / Forward', 'the positions jumped to'],
  ]],
  ['Register panes', [
    ['arrows, Return', 'select a register; go to its previous write'],
    ['a', 'the symbol at the register\'s value'],
    ['l, t, Ctrl-L', 'lock the panes to a line, a time; lock here / unlock'],
    ['right-click', 'previous / next write, memory view at the value'],
  ]],
  ['Memory panes', [
    ['arrows, PgUp / PgDn, wheel', 'move the cursor, scroll'],
    ['Return, 1 2 4 8', 'previous write of the byte / aligned 2, 4, 8 bytes'],
    ['[ / ]', 'previous / next changed byte in the view'],
    ['d', 'highlight changes since a line'],
    ['< / >', 'fewer / more rows;  f follow the expression;  x close'],
    ['l, t, Ctrl-L', 'lock to a line, a time; lock here / unlock'],
  ]],
  ['Call tree, flame graph, profile', [
    ['click a name', 'go to that activation'],
    ['flame graph', 'click: zoom; double-click or right-click: go to an activation'],
  ]],
];

class App {
  constructor() {
    this.views = new Map();	/* trace id -> View */
    this.active = null;
    this.other = null;	/* side by side: the second view */
    this.sideBySide = false;
    this.applyingHash = false;
  }

  async start() {
    const theme = localStorage.getItem('tk-theme') ||
      (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
    document.documentElement.classList.toggle('dark', theme === 'dark');
    this.bind();
    const j = await TK.api('traces');
    this.traces = j.traces;
    const tabs = document.getElementById('tabs');
    for (const t of this.traces) {
      const b = TK.el('button', '', '#' + t.id + ' ' + t.name);
      b.title = t.file + (t.image ? ' (image ' + t.image + ')' : '') + ': ' + t.lines + ' lines, ' + t.instructions + ' instructions';
      b.dataset.trace = t.id;
      b.addEventListener('click', () => this.show(t.id).catch(TK.oops));
      tabs.appendChild(b);
    }
    document.getElementById('side').hidden = this.traces.length < 2;
    if (!(await this.applyHash())) await this.show(0);
    /* First paint: the trace's lines are drawn (not placeholders). */
    const v = this.active;
    await Promise.all([...v.blocks.values()].map((b) => b.p));
    await new Promise((r) => requestAnimationFrame(() => r()));
    performance.mark('tk-first-paint');
    document.body.dataset.ready = '1';
  }

  view(id) {
    let v = this.views.get(id);
    if (!v) {
      const t = this.traces[id];
      if (!t) throw new Error('no trace ' + id);
      const root = document.getElementById('view-tpl').content.firstElementChild.cloneNode(true);
      root.dataset.trace = id;
      root.hidden = true;
      document.getElementById('views').appendChild(root);
      v = new TK.View(this, t, root);
      this.views.set(id, v);
    }
    return v;
  }
  async ensureStarted(v) {
    if (v.started) return v.started;
    v.started = (async () => {
      v.layout();
      if (v.t.instructions) await v.setPos(await TK.api('position', {trace: v.t.id, insn: 0}), {centre: false});
      else TK.say(v.t.name + ': no instructions in this trace');
      if (v.t.instructions) v.lowerTab('tree').catch(TK.oops);
    })();
    return v.started;
  }
  /* Make trace id the active one (and visible). */
  async show(id, line) {
    const v = this.view(id);
    if (this.sideBySide && this.active && this.active !== v) this.other = this.active;
    if (this.sideBySide && this.other === v) this.other = this.active;
    this.active = v;
    this.layoutViews();
    await this.ensureStarted(v);
    if (line) await v.run(() => v.goLine(line, {push: false}));
    v.pane.focus();
    this.writeHash(false);
  }
  activate(v) {
    if (this.active === v) return;
    if (this.sideBySide && this.other === v) this.other = this.active;
    this.active = v;
    this.layoutViews();
    this.writeHash(false);
  }
  layoutViews() {
    for (const [, v] of this.views) {
      const shown = v === this.active || (this.sideBySide && v === this.other);
      v.root.hidden = !shown;
      v.root.classList.toggle('active', v === this.active);
      if (shown) requestAnimationFrame(() => v.layout());
    }
    for (const b of document.querySelectorAll('#tabs button'))
      b.classList.toggle('on', this.active && +b.dataset.trace === this.active.t.id);
    document.getElementById('side').classList.toggle('on', this.sideBySide);
    document.getElementById('views').classList.toggle('two', this.sideBySide && !!this.other);
  }
  async toggleSide() {
    this.sideBySide = !this.sideBySide;
    if (this.sideBySide && !this.other) {
      const next = this.traces.find((t) => t.id !== this.active.t.id);
      if (next) this.other = this.view(next.id);
    }
    this.layoutViews();
    if (this.sideBySide && this.other) {
      await this.ensureStarted(this.other);
      await this.sync(this.active);
    }
    this.writeHash(true);
  }
  /* Side by side: the other trace follows the time of the one moved. */
  async sync(from) {
    if (!this.sideBySide || this.syncing || !from.state) return;
    const to = from === this.active ? this.other : this.active;
    if (!to || !to.t.instructions) return;
    this.syncing = true;
    try {
      const p = await TK.api('position', {trace: to.t.id, time: from.state.time}).catch(() => null);
      if (p && (!to.state || to.state.insn !== p.insn)) { await to.unhide(p.line); await to.setPos(p, {centre: true}); }
    } finally { this.syncing = false; }
  }
  positionChanged(v, push) {
    if (v === this.active || v === this.other) this.writeHash(push);
    if (this.sideBySide) this.sync(v).catch(TK.oops);
  }

  /* ---- the address bar ---------------------------------------------------- */
  hashOf() {
    const a = this.active;
    if (!a || !a.cur) return location.hash;
    let h = '#trace=' + a.t.id + '&line=' + a.cur.line;
    if (this.sideBySide && this.other && this.other.cur) h += '&trace2=' + this.other.t.id + '&line2=' + this.other.cur.line;
    return h;
  }
  writeHash(push) {
    if (this.applyingHash) return;
    const h = this.hashOf();
    if (h === location.hash) return;
    if (push) history.pushState(null, '', h); else history.replaceState(null, '', h);
  }
  async applyHash() {
    const q = new URLSearchParams(location.hash.slice(1));
    if (!q.has('trace') && !q.has('line')) return false;
    const id = +(q.get('trace') || 0), line = +(q.get('line') || 0);
    if (!this.traces[id]) { TK.say('no trace ' + q.get('trace') + ' on this server', true); return false; }
    this.applyingHash = true;
    try {
      if (q.has('trace2') && this.traces[+q.get('trace2')] && +q.get('trace2') !== id) {
        this.sideBySide = true;
        this.other = this.view(+q.get('trace2'));
      }
      await this.show(id);
      const v = this.active;
      if (line && v.t.instructions) await v.run(() => v.goLine(line));
      if (this.sideBySide && this.other) {
        await this.ensureStarted(this.other);
        const l2 = +(q.get('line2') || 0);
        if (l2) await this.other.run(() => this.other.goLine(l2));
      }
    } finally { this.applyingHash = false; }
    return true;
  }

  /* ---- the prompt line ------------------------------------------------------ */
  /* Ask a question on the bottom line; resolves with the text, or null if
   * cancelled (Escape, Ctrl-G). */
  prompt(question, initial) {
    const f = document.getElementById('prompt'), inp = document.getElementById('prompt-in');
    document.getElementById('prompt-q').textContent = question;
    TK.say('');
    f.hidden = false;
    inp.value = initial || '';
    const back = document.activeElement;
    inp.focus();
    return new Promise((resolve) => {
      const done = (v) => {
        f.hidden = true;
        inp.removeEventListener('keydown', key);
        f.removeEventListener('submit', sub);
        if (back && back.focus) back.focus();
        if (v === null) TK.say('cancelled');
        resolve(v);
      };
      const sub = (e) => { e.preventDefault(); done(inp.value.trim()); };
      const key = (e) => {
        if (e.key === 'Escape' || (e.ctrlKey && e.key === 'g')) { e.preventDefault(); done(null); }
        else if (e.ctrlKey && e.key === 'u') { e.preventDefault(); inp.value = ''; }
        else if (e.ctrlKey && e.key === 'w') {
          e.preventDefault();
          inp.value = inp.value.replace(/\s*\S+\s*$/, '');
        }
        e.stopPropagation();
      };
      inp.addEventListener('keydown', key);
      f.addEventListener('submit', sub);
    });
  }

  /* ---- keys -------------------------------------------------------------------- */
  bind() {
    document.addEventListener('keydown', (e) => this.key(e));
    document.addEventListener('click', (e) => { if (!e.target.closest('#menu')) TK.closeMenu(); });
    addEventListener('popstate', () => this.applyHash().catch(TK.oops));
    addEventListener('hashchange', () => this.applyHash().catch(TK.oops));
    for (const b of document.querySelectorAll('#bar [data-cmd]'))
      b.addEventListener('click', () => this.traceKey({key: b.dataset.cmd, preventDefault() {}}));
    document.getElementById('side').addEventListener('click', () => this.toggleSide().catch(TK.oops));
    document.getElementById('theme').addEventListener('click', () => {
      const dark = document.documentElement.classList.toggle('dark');
      localStorage.setItem('tk-theme', dark ? 'dark' : 'light');
    });
    document.getElementById('help-btn').addEventListener('click', () => this.help());
    const re = document.getElementById('search-re');
    document.getElementById('search').addEventListener('submit', (e) => { e.preventDefault(); this.searchDir(1); });
    document.getElementById('search-prev').addEventListener('click', () => this.searchDir(-1));
    re.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && e.shiftKey) { e.preventDefault(); this.searchDir(-1); }
      if (e.key === 'Escape') { e.preventDefault(); this.active && this.active.pane.focus(); }
      e.stopPropagation();
    });
    document.getElementById('import').addEventListener('change', (e) => this.importProfile(e.target.files[0]));
    addEventListener('mousedown', (e) => {
      const pane = e.target.closest('.view');
      if (pane) for (const [, v] of this.views) if (v.root === pane) this.activate(v);
    });
  }
  searchDir(dir) {
    const v = this.active;
    const re = document.getElementById('search-re').value;
    if (v) v.run(() => v.search(re, dir, document.getElementById('search-icase').checked));
  }
  help() {
    const h = document.getElementById('help');
    if (!h.hidden) { h.hidden = true; return; }
    h.replaceChildren(TK.el('h1', '', 'tracekit: keys'));
    for (const [title, keys] of HELP) {
      h.appendChild(TK.el('h2', '', title));
      const dl = h.appendChild(TK.el('dl'));
      for (const [k, d] of keys) { dl.appendChild(TK.el('dt', '', k)); dl.appendChild(TK.el('dd', '', d)); }
    }
    h.appendChild(TK.el('p', '', 'Any key closes this help.'));
    h.hidden = false;
  }
  /* The focused pane of the active view: trace, regs, mem, stack... */
  focused() {
    const el = document.activeElement && document.activeElement.closest('.pane');
    return el ? {kind: el.dataset.pane, el} : {kind: 'trace', el: this.active && this.active.pane};
  }
  cycleFocus(dir) {
    const v = this.active;
    if (!v) return;
    const panes = [...v.root.querySelectorAll('.pane')].filter((p) => p.offsetParent !== null);
    const i = panes.indexOf(document.activeElement && document.activeElement.closest('.pane'));
    const n = panes[(i + dir + panes.length) % panes.length];
    if (n) n.focus();
  }
  key(e) {
    const h = document.getElementById('help');
    if (!h.hidden) { h.hidden = true; e.preventDefault(); return; }
    if (e.target.closest && e.target.closest('input, #prompt')) return;
    if (!document.getElementById('menu').hidden && e.key === 'Escape') return TK.closeMenu();
    const v = this.active;
    if (!v) return;
    TK.say('');
    if (e.key === 'F1' || e.key === '?') { e.preventDefault(); return this.help(); }
    if (e.key === 'Tab') { e.preventDefault(); return this.cycleFocus(e.shiftKey ? -1 : 1); }
    if (e.altKey && /^[1-9]$/.test(e.key)) { e.preventDefault(); return this.show(+e.key - 1).catch(TK.oops); }
    if (e.altKey && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) return;	/* the browser's Back/Forward */
    const f = this.focused();
    if (f.kind === 'regs') { e.preventDefault(); return v.run(async () => { if (!(await v.regKey(e, f.el.dataset.set))) this.notKey(e); }); }
    if (f.kind === 'mem') {
      const m = v.mems.find((x) => x.el === f.el);
      e.preventDefault();
      return v.run(async () => { if (!(await v.memKey(e, m))) this.notKey(e); });
    }
    if (f.kind === 'stack' && (e.key === 'Enter')) {
      const li = f.el.querySelector('li[data-line]');
      if (li) v.run(() => v.goLine(+li.dataset.line));
      return;
    }
    this.traceKey(e);
  }
  notKey(e) {
    if (e.key.length === 1 || /^F\d+$/.test(e.key)) TK.say(e.key + ' is not a command in this pane (F1 for help)', true);
  }
  traceKey(e) {
    const v = this.active;
    if (!v || !v.t.instructions) return;
    const k = e.key;
    const toggles = {r: 'core', S: 'single', D: 'double', V: 'neon', M: 'mve', y: 'system'};
    let handled = true;
    if (toggles[k] && !e.ctrlKey) v.toggleSet(toggles[k]);
    else if (k === 'c' && !e.ctrlKey) v.toggleStack();
    else if (k === 'ArrowDown') v.run(() => v.step(1));
    else if (k === 'ArrowUp') v.run(() => v.step(-1));
    else if (k === 'PageDown') v.run(() => v.page(1));
    else if (k === 'PageUp') v.run(() => v.page(-1));
    else if (k === 'Home') v.run(() => v.home());
    else if (k === 'End') v.run(() => v.end());
    else if ('-_+=[]{}'.includes(k) && k.length === 1) v.run(() => v.foldKey(k));
    else if (k === 'l' && e.ctrlKey) { if (v.cur) { v.reveal(v.lineToRow(v.cur.line), true); v.render(); } }
    else if (k === 'l') v.run(async () => { const s = await this.prompt('Go to line: '); if (s !== null) await v.goLine(this.num(s, 'line')); });
    else if (k === 't') v.run(async () => { const s = await this.prompt('Go to time: '); if (s !== null) await v.goTime(this.num(s, 'time')); });
    else if (k === 'p' || k === 'P') v.run(async () => {
      const s = await this.prompt(k === 'p' ? 'Next visit of pc: ' : 'Previous visit of pc: ');
      if (s !== null) await v.findPc(s, k === 'p' ? 1 : -1);
    });
    else if (k === 'n' || k === 'N') {
      if (!v.pcSearch) TK.say('no pc search yet: use p or P first', true);
      else v.run(() => v.findPc(v.pcSearch, k === 'n' ? 1 : -1));
    } else if (k === 'm') v.run(async () => { const s = await this.prompt('Memory address: '); if (s) await v.openMem(s); });
    else if (k === 'a') v.run(() => v.cycleHighlight());
    else if (k === 'Enter') v.run(() => v.enterKey());
    else if (k === '/') document.getElementById('search-re').focus();
    else if (k === 'F6') { v.syntax = !v.syntax; v.render(); TK.say('syntax highlighting ' + (v.syntax ? 'on' : 'off')); }
    else if (k === 'F7') {
      if (!v.t.image) TK.say('symbolic branch targets need an ELF image (--image)', true);
      else { v.symbolic = !v.symbolic; v.render(); TK.say('symbolic branch targets ' + (v.symbolic ? 'on' : 'off')); }
    } else handled = false;
    if (handled) e.preventDefault();
    else if (k.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) TK.say(k + ' is not a command in this pane (F1 for help)', true);
  }
  num(s, what) {
    if (!/^(0x[0-9a-f]+|[0-9]+)$/i.test(s)) throw new Error('not a ' + what + ' number: \'' + s + '\'');
    return s;
  }

  async importProfile(file) {
    if (!file) return;
    try {
      const root = TK.parseProfile(await file.text());
      const v = this.active;
      v.flame = null;
      await v.lowerTab('flame').catch(() => {});
      v.setFlame(root, 'units of the file', file.name);
      TK.say('loaded ' + file.name + ': ' + root.kids.length + ' top-level frames');
    } catch (e) { TK.oops(e); }
    document.getElementById('import').value = '';
  }
}

TK.tip = function (e, text) {
  const t = document.getElementById('tip');
  if (!e) { t.hidden = true; return; }
  t.textContent = text;
  t.hidden = false;
  t.style.left = Math.min(e.clientX + 12, innerWidth - t.offsetWidth - 4) + 'px';
  t.style.top = Math.min(e.clientY + 12, innerHeight - t.offsetHeight - 4) + 'px';
};

TK.app = new App();
TK.app.start().catch(TK.oops);
})();
