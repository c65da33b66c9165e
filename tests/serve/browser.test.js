// SPDX-License-Identifier: GPL-3.0-or-later
// The tracekit serve page in Debian's chromium, driven by playwright-core:
// trace text, keys, a memory view, folding, the flame graph, two traces
// side by side, #line= links and Back, profiles exported by `tracekit
// export` loaded into the page, both themes, 1024x700 and 4K, and no
// JavaScript console errors anywhere.  Screenshots go to $TK_WORK.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const {spawn, execFileSync} = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {chromium} = require('playwright-core');

const TK = process.env.TK_BIN, TRACES = process.env.TK_TRACES, WORK = process.env.TK_WORK;
const QS = path.join(TRACES, 'quicksort.tarmac'), QS_ELF = path.join(TRACES, 'quicksort.elf');
const CALC = path.join(TRACES, 'calculator-aarch64-fastmodel.tarmac'), CALC_ELF = path.join(TRACES, 'calculator-aarch64.elf');
let server, url, ctx, page, profile;
const problems = [];

async function startServer() {
  fs.mkdirSync(WORK, {recursive: true});
  server = spawn(TK, ['serve', '-q', '--index=' + path.join(WORK, 'qs.index'), '--image=' + QS_ELF, QS,
    '--index=' + path.join(WORK, 'calc.index'), '--image=' + CALC_ELF, CALC], {stdio: ['ignore', 'pipe', 'inherit']});
  url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('no link from tracekit serve')), 60000);
    server.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/tracekit: serving (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32})\n/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    server.on('exit', (c) => reject(new Error('tracekit serve exited: ' + c)));
  });
}

async function api(route, params) {
  const u = new URL(url);
  const q = new URLSearchParams(Object.assign({token: u.searchParams.get('token')}, params));
  const r = await fetch(u.origin + '/api/v1/' + route + '?' + q);
  return r.json();
}

const shot = (name) => page.screenshot({path: path.join(WORK, name + '.png')});
const curLines = () => page.$$eval('.view.active .row.cur', (rs) => rs.map((r) => +r.dataset.line));
const rowText = (L) => page.$eval('.view.active .row[data-line="' + L + '"] .tx', (e) => e.textContent);
async function ready() {
  await page.waitForSelector('body[data-ready="1"]', {timeout: 20000});
  await page.waitForFunction(() => !document.querySelector('.view.active .row .tx') ||
    ![...document.querySelectorAll('.view.active .row .tx')].some((e) => e.textContent === '…'), null, {timeout: 10000});
}
async function settle() {
  await page.waitForTimeout(150);
  await page.evaluate(() => Promise.all([...TK.app.views.values()].map((v) => v.queue)));
  await page.waitForTimeout(100);
}
async function promptAnswer(key, text) {
  await page.keyboard.press(key);
  await page.waitForSelector('#prompt:not([hidden])');
  await page.fill('#prompt-in', text);
  await page.keyboard.press('Enter');
  await settle();
}

test.before(async () => {
  await startServer();
  profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tk-chromium-'));
  ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.TK_CHROMIUM || '/usr/bin/chromium', headless: true,
    viewport: {width: 1280, height: 800},
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run'],
  });
  page = ctx.pages()[0] || await ctx.newPage();
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(m.type() + ': ' + m.text()); });
  page.on('pageerror', (e) => problems.push('pageerror: ' + e.message));
});

test.after(async () => {
  if (ctx) await ctx.close();
  if (server) server.kill('SIGINT');
  if (profile) fs.rmSync(profile, {recursive: true, force: true});
});

test('the page shows the trace text', async () => {
  await page.goto(url);
  await ready();
  assert.match(await rowText(157), /IT \(1\) 00008000 d2a00200 O EL3h_s : MOV\s+x0,#0x100000/);
  assert.deepStrictEqual((await curLines()).slice(-2), [157, 158]);
  assert.match(await page.$eval('.view.active .tinfo', (e) => e.textContent), /line 157 .* 1\/2044/);
  await shot('01-start');
});

test('keys move the position; registers follow', async () => {
  for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowDown');
  await settle();
  const p = await api('position', {trace: 0, insn: 8});
  assert.strictEqual((await curLines())[0], p.line);
  const x0 = await page.$eval('.view.active .regs[data-set="core"] .reg[data-i="0"] .v', (e) => e.textContent);
  const r = await api('regs', {trace: 0, line: p.line, sets: 'core'});
  assert.strictEqual(x0, r.groups[0].regs[0].value);
  assert.ok(await page.$('.view.active .regs .v.changed'), 'a changed register is highlighted');
  await page.keyboard.press('ArrowUp');
  await settle();
  assert.strictEqual((await curLines())[0], (await api('position', {trace: 0, insn: 7})).line);
  await page.keyboard.press('End');
  await settle();
  assert.match(await page.$eval('.view.active .tinfo', (e) => e.textContent), /2044\/2044/);
  await page.keyboard.press('Home');
  await settle();
  assert.match(await page.$eval('.view.active .tinfo', (e) => e.textContent), / 1\/2044/);
  await page.keyboard.press('PageDown');
  await settle();
  assert.ok((await curLines())[0] > 170, 'PgDn moves a screenful');
  await promptAnswer('l', '1000');
  const at = await api('position', {trace: 0, line: 1000});
  assert.ok((await curLines()).includes(1000));
  assert.strictEqual((await curLines())[0], at.first_line);
  await promptAnswer('p', 'quicksort');
  assert.strictEqual(await page.$eval('.view.active .row.cur .tx', (e) => e.textContent.includes('00008038')), true);
});

test('a memory view at sp', async () => {
  await promptAnswer('l', '300');
  await promptAnswer('m', 'sp');
  const mem = await api('mem', {trace: 0, line: 300, addr: 'sp', len: 16});
  const first = await page.$eval('.view.active .mem .mrow', (e) => e.textContent);
  assert.ok(first.startsWith((BigInt(mem.addr) & ~15n).toString(16).padStart(8, '0')), first);
  const bytes = await page.$$eval('.view.active .mem .mrow:first-child .b', (bs) => bs.map((b) => b.textContent).join(''));
  const row = await api('mem', {trace: 0, line: 300, addr: '0x' + (BigInt(mem.addr) & ~15n).toString(16), len: 16});
  assert.strictEqual(bytes, row.bytes);
  await shot('02-memory');
  await page.click('.view.active .trace .row[data-line="300"]');
  await settle();
});

test('fold a call, step over it, unfold it', async () => {
  await promptAnswer('l', '175');
  assert.strictEqual((await curLines())[0], 175);
  await page.keyboard.press('-');
  await settle();
  assert.match(await page.$eval('.view.active .row[data-line="175"]', (e) => e.textContent), /\+ 2018 instructions folded: quicksort/);
  assert.strictEqual(await page.$eval('.view.active .row[data-line="176"]', (e) => e.nextElementSibling.dataset.line), '4286');
  await page.keyboard.press('ArrowDown');
  await settle();
  assert.strictEqual((await curLines())[0], 4286);
  await page.keyboard.press('ArrowUp');
  await settle();
  await shot('03-folded');
  await page.keyboard.press('+');
  await settle();
  assert.strictEqual(await page.$('.view.active .row .fold'), null);
  await page.keyboard.press('}');
  await settle();
  assert.ok(await page.$('.view.active .row .fold'), 'fold everything');
  await page.keyboard.press('{');
  await settle();
});

test('the flame graph jumps to an activation', async () => {
  await page.click('.view.active .ltabs [data-tab="flame"]');
  await page.waitForSelector('.view.active .flame .fr');
  const q = await page.$$('.view.active .flame .fr');
  let hit = null;
  for (const f of q) if ((await f.textContent()) === 'quicksort') { hit = f; break; }
  assert.ok(hit, 'a quicksort frame');
  await hit.dblclick();
  await settle();
  assert.strictEqual((await curLines())[0], 177, 'the first activation of quicksort starts at line 177');
  await shot('04-flame');
  await page.click('.view.active .ltabs [data-tab="tree"]');
  await page.click('.view.active .tree .nm[data-jump="0"]');
  await settle();
});

test('search with a regular expression', async () => {
  await page.fill('#search-re', 'R X19 0+80[Ff][Cc]');
  await page.press('#search-re', 'Enter');
  await settle();
  assert.ok((await curLines()).includes(170), 'the first match is line 170');
  assert.strictEqual(await page.$$eval('.view.active .row .m', (es) => es.map((e) => e.textContent).join('')), 'R X19 00000000000080FC');
  await page.press('#search-re', 'Enter');
  await settle();
  assert.ok(!(await curLines()).includes(170), 'the next match');
});

test('a #line= link, and Back', async () => {
  await page.goto(url + '#trace=0&line=1000');
  await ready();
  await settle();
  assert.ok((await curLines()).includes(1000));
  await promptAnswer('l', '2000');
  assert.ok((await curLines()).includes(2000));
  assert.match(page.url(), /#trace=0&line=\d+/);
  await page.goBack();
  await settle();
  assert.ok((await curLines()).includes(1000), 'Back returns to line 1000');
});

test('two traces: tabs and side by side in step', async () => {
  await page.click('#tabs button[data-trace="1"]');
  await settle();
  assert.match(await page.$eval('.view.active .tname', (e) => e.textContent), /calculator-aarch64/);
  assert.match(await page.$eval('.view.active', (e) => e.textContent), /IT \(1\)/);
  await page.click('#side');
  await settle();
  assert.strictEqual(await page.$$eval('.view:not([hidden])', (v) => v.length), 2);
  await promptAnswer('t', '500');
  await page.waitForTimeout(300);
  await settle();
  const times = await page.$$eval('.view:not([hidden]) .tinfo', (e) => e.map((x) => +x.textContent.match(/time (\d+)/)[1]));
  assert.strictEqual(times.length, 2);
  assert.ok(times.every((t) => t >= 500 && t <= 502), 'both at time 500: ' + times);
  await shot('05-side-by-side');
  await page.click('#side');
  await page.click('#tabs button[data-trace="0"]');
  await settle();
});

test('profiles from tracekit export load into the page', async () => {
  for (const to of ['chrome', 'speedscope']) {
    const out = path.join(WORK, 'qs.' + to + '.json');
    execFileSync(TK, ['export', '-q', '--to=' + to, '--image=' + QS_ELF, QS, '-o', out]);
    await page.setInputFiles('#import', out);
    /* This file's name (the one before stays on screen while it loads). */
    await page.waitForFunction((name) => document.querySelector('.view.active .flame .fhead') &&
      document.querySelector('.view.active .flame .fhead').textContent.includes(name) &&
      TK.app.active.flame, 'qs.' + to + '.json');
    const drawn = await page.$$eval('.view.active .flame .fr', (fs) => fs.map((f) => f.textContent));
    assert.ok(drawn.includes('_start') && drawn.includes('quicksort'), to + ': ' + drawn.slice(0, 5));
    /* Every function of the trace is in the loaded tree (small ones are
     * too narrow to draw). */
    const names = await page.evaluate(() => {
      const out = new Set(), walk = (f) => { out.add(f.name); f.kids.forEach(walk); };
      walk(TK.app.active.flame.root);
      return [...out].sort();
    });
    assert.deepStrictEqual(names, ['_start', 'all', 'quicksort', 'sys_write0']);
  }
  await shot('06-imported');
});

test('dark theme, 1024x700 and 4K', async () => {
  await page.click('#theme');
  await page.setViewportSize({width: 1024, height: 700});
  await page.goto(url + '#trace=0&line=1000');
  await ready();
  await settle();
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1), 'no horizontal overflow at 1024');
  assert.ok(await page.evaluate(() => document.querySelector('.view.active .rows').getBoundingClientRect().height > 150));
  await shot('07-dark-1024x700');
  await page.setViewportSize({width: 3840, height: 2160});
  await settle();
  assert.ok(await page.evaluate(() => document.querySelectorAll('.view.active .row[data-line]').length > 60));
  await shot('08-4k');
  await page.click('#theme');
  await page.setViewportSize({width: 1280, height: 800});
});

test('no JavaScript console errors', () => {
  assert.deepStrictEqual(problems, []);
});
