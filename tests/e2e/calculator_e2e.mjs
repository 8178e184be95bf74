// End-to-end test of the calculator page of `memfit serve`, in headless
// Chromium (Debian's /usr/bin/chromium) driven by playwright-core.
//
//   node calculator_e2e.mjs BUILD_DIR [SCREENSHOT.png]
//
// Starts BUILD_DIR/memfit serve on a free loopback port over the bundled
// examples with a 16 GiB budget, opens /, and for a few settings (model,
// context, batch, KV mode) checks that every figure the page shows equals
// what the service's API answers for the same request, exact bytes and the
// GiB text, and that the largest context marked on the curve is /v1/fit's;
// under the llama.cpp, mlx-lm and vLLM engines, that the three parts are the
// answer's own terms and each marked context fits while one more does not.
// Any request the page makes to anything but the service is refused and
// fails the test, as does a script error or a console error (a CSP
// violation is one). The Hugging Face name field is hidden there; a second
// service, started with --allow-hub over a generated Hugging Face cache
// (offline: nothing beyond loopback), shows it, and a name typed in it is
// priced as the API prices that name. Saves a screenshot (default BUILD_DIR/e2e/calculator.png,
// or $MEMFIT_E2E_SCREENSHOT). Exits 0 when every check passed, 1 otherwise.
//
// Environment: CHROMIUM (default /usr/bin/chromium).
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

const GIB = 2 ** 30;
const MODEL = 'Qwen3-14B-MLX-4bit';
const BUDGET = '16GiB';
// Hand-worked in tests/service/service_fit_test.cc: at 16 GiB and batch 1.
const KNOWN_FIT_BATCH1 = { fp16: 35584, int8: 71424 };
const TIMEOUT_MS = 120000;

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const buildDir = path.resolve(process.argv[2] || process.env.MEMFIT_BUILD_DIR || path.join(repo, 'build', 'release'));
const screenshot = path.resolve(process.argv[3] || process.env.MEMFIT_E2E_SCREENSHOT ||
  path.join(buildDir, 'e2e', 'calculator.png'));
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

const failures = [];
let checks = 0;

function check(condition, what) {
  ++checks;
  if (!condition) {
    failures.push(what);
    console.error(`FAIL: ${what}`);
  }
}

function equal(actual, expected, what) {
  check(actual === expected, `${what}: page shows ${JSON.stringify(actual)}, API says ${JSON.stringify(expected)}`);
}

const formatGiB = (bytes) => `${(bytes / GIB).toFixed(2)} GiB`;

// ---- the service ----------------------------------------------------------

function startService(extraArgs = [], env = process.env) {
  const memfit = path.join(buildDir, 'memfit');
  const args = ['serve', '--listen', '127.0.0.1:0', '--model-root', path.join(repo, 'examples'),
    '--memory-limit', BUDGET, '--threads', '4', ...extraArgs];
  const child = spawn(memfit, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  const port = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`memfit serve said nothing in 20 s:\n${stderr}`)), 20000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const m = /serving on http:\/\/127\.0\.0\.1:(\d+) /.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('error', (error) => reject(new Error(`${memfit}: ${error.message}`)));
    child.on('exit', (code) => reject(new Error(`memfit serve exited with ${code}:\n${stderr}`)));
  });
  return { child, port, stderr: () => stderr };
}

async function stopService(child) {
  if (child.pid === undefined) return -1;  // never started
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

async function api(base, method, route, body) {
  const response = await fetch(base + route, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${route}: HTTP ${response.status} ${JSON.stringify(json)}`);
  return json;
}

// Lets the browser context reach only the service on `port`: any other
// request is refused and its address kept in `offsite`, which fails the test.
async function onlyTheService(context, port, offsite) {
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'http:' && url.hostname === '127.0.0.1' && url.port === String(port)) {
      return route.continue();
    }
    offsite.push(url.href);
    return route.abort('blockedbyclient');
  });
}

// ---- the page -------------------------------------------------------------

async function setInputs(page, inputs) {
  if (inputs.hub) {
    await page.fill('#hub-model', inputs.model);
  } else {
    await page.selectOption('#model', inputs.model);
  }
  const engine = inputs.engine || 'mlxcel';
  await page.selectOption('#engine', engine);
  await page.fill('#max-tokens', String(inputs.max_tokens));
  await page.fill('#batch', String(inputs.batch));
  if (inputs.gen_tokens) await page.fill('#gen-tokens', String(inputs.gen_tokens));
  await page.selectOption('#kv-mode', inputs.kv_cache_mode);
  const ready = `#figures[data-state="ready"][data-engine="${engine}"][data-model="${inputs.model}"]` +
    `[data-max-tokens="${inputs.max_tokens}"][data-batch="${inputs.batch}"]` +
    `[data-kv-mode="${inputs.kv_cache_mode}"]`;
  await page.waitForSelector(ready, { state: 'attached', timeout: 20000 });
}

// What the page shows, read from the DOM.
async function shown(page, kvModes = ['fp16', 'int8']) {
  return page.evaluate((kvModes) => {
    const figure = (id) => {
      const element = document.getElementById(id);
      return { text: element.textContent, bytes: Number(element.dataset.bytes), title: element.title };
    };
    const data = (selector) => {
      const element = document.querySelector(selector);
      return element ? { ...element.dataset, ...Object.fromEntries([...element.attributes].map((a) => [a.name, a.value])) } : null;
    };
    const bar = [...document.querySelectorAll('#bar rect[data-testid^="bar-"]')]
      .map((r) => Number(r.getAttribute('data-bytes')));
    return {
      weights: figure('fig-weights'),
      kv: figure('fig-kv'),
      headroom: figure('fig-headroom'),
      total: figure('fig-total'),
      budget: figure('fig-budget'),
      fits: { text: document.getElementById('fig-fits').textContent, value: document.getElementById('fig-fits').dataset.fits },
      barSegments: bar,
      barBudget: data('[data-testid="bar-budget"]'),
      curveBudget: data('[data-testid="curve-budget"]'),
      markers: Object.fromEntries(kvModes.map((kv) => [kv, data(`[data-testid="fit-marker-${kv}"]`)])),
      captions: Object.fromEntries(kvModes.map((kv) => [kv, data(`[data-testid="fit-${kv}"]`)])),
      series: Object.fromEntries(kvModes.map((kv) => [kv, data(`[data-testid="curve-${kv}"]`)])),
      current: data('[data-testid="curve-current"]'),
      message: document.getElementById('message').hidden ? '' : document.getElementById('message').textContent,
    };
  }, kvModes);
}

async function checkScenario(page, base, inputs) {
  const label = `${inputs.model} ctx ${inputs.max_tokens} batch ${inputs.batch} ${inputs.kv_cache_mode}`;
  await setInputs(page, inputs);
  const view = await shown(page);
  const { hub, ...request } = inputs;  // hub: typed in the name field, not a request field
  inputs = request;
  const report = await api(base, 'POST', '/v1/estimate', inputs);
  const fit = await api(base, 'POST', '/v1/fit', { model: inputs.model, batch: inputs.batch });

  equal(view.message, '', `${label}: error message`);
  for (const [key, field] of [['weights', 'weights_bytes'], ['kv', 'kv_bytes_total'],
    ['headroom', 'headroom_bytes'], ['total', 'total_bytes'], ['budget', 'budget_bytes']]) {
    equal(view[key].bytes, report[field], `${label}: ${key} bytes`);
    equal(view[key].text, formatGiB(report[field]), `${label}: ${key} text`);
    equal(view[key].title, `${report[field].toLocaleString('en-US')} bytes`, `${label}: ${key} title`);
  }
  equal(view.fits.value, String(report.fits), `${label}: fits`);
  equal(view.fits.text, report.fits ? 'FITS' : 'DOES NOT FIT', `${label}: fits text`);
  equal(view.barSegments.reduce((a, b) => a + b, 0), report.total_bytes, `${label}: bar segments sum`);
  equal(Number(view.barBudget['data-bytes']), report.budget_bytes, `${label}: bar budget line`);
  equal(Number(view.curveBudget['data-bytes']), fit.budget_bytes, `${label}: curve budget line`);
  equal(Number(view.current['data-total-bytes']), report.total_bytes, `${label}: curve's current point`);

  for (const mode of fit.by_kv_mode) {
    const name = mode.kv_cache_mode;
    const expected = mode.max_tokens === null ? '' : String(mode.max_tokens);
    equal(view.markers[name]?.['data-max-tokens'], expected, `${label}: curve marker, largest ${name} context`);
    equal(view.markers[name]?.['data-total-bytes'], mode.total_bytes === null ? '' : String(mode.total_bytes),
      `${label}: curve marker, ${name} total`);
    equal(view.captions[name]?.['data-max-tokens'], expected, `${label}: caption, largest ${name} context`);
    check(Number(view.series[name]?.['data-points']) > 10, `${label}: ${name} curve has points`);
    if (mode.max_tokens !== null && !mode.capped) {
      // The marked context fits and one token more does not.
      const at = await api(base, 'POST', '/v1/estimate', { ...inputs, kv_cache_mode: name, max_tokens: mode.max_tokens });
      const past = await api(base, 'POST', '/v1/estimate', { ...inputs, kv_cache_mode: name, max_tokens: mode.max_tokens + 1 });
      check(at.fits && !past.fits, `${label}: ${name} fits at ${mode.max_tokens} and not at ${mode.max_tokens + 1}`);
    }
    if (inputs.batch === 1) {
      equal(mode.max_tokens, KNOWN_FIT_BATCH1[name], `${label}: /v1/fit ${name} (hand-worked)`);
    }
  }
  console.log(`ok: ${label}: total ${formatGiB(report.total_bytes)} of ${formatGiB(report.budget_bytes)}, ` +
    `${report.fits ? 'fits' : 'does not fit'}; largest context fp16 ${fit.by_kv_mode[0].max_tokens}, int8 ${fit.by_kv_mode[1].max_tokens}`);
}

// ---- the other engines ----------------------------------------------------

// The request the page sends for an engine's inputs, written out here
// independently of the page: llama.cpp's names, or mlx-lm's.
function engineBody(inputs, tokens, kv) {
  if (inputs.engine === 'llamacpp') {
    return { model: inputs.model, engine: 'llamacpp', ctx_size: tokens, parallel: inputs.batch,
      cache_type_k: kv, cache_type_v: kv };
  }
  if (inputs.engine === 'vllm') {
    return { model: inputs.model, engine: 'vllm', max_model_len: tokens, max_num_seqs: inputs.batch,
      kv_cache_dtype: kv };
  }
  return { model: inputs.model, engine: 'mlx-lm', prompt_tokens: tokens, max_tokens: inputs.gen_tokens,
    batch: inputs.batch, ...(kv === 'fp16' ? {} : { kv_bits: Number(kv) }) };
}

// The three figures before the total, per engine, from the answer's own
// fields; each engine's parts must add up to its total.
function engineParts(report) {
  if (report.engine === 'llamacpp') {
    const l = report.llamacpp;
    return [l.model_bytes, l.context_bytes, l.compute_bytes + (l.repack_bytes || 0)];
  }
  if (report.engine === 'vllm') {
    const v = report.vllm;
    return [v.weights_bytes, v.kv_cache_bytes,
      v.activation_bytes + v.non_torch_bytes + v.cuda_graph_bytes];  // weights_bytes holds the rope cache
  }
  const m = report.mlxlm;
  return [m.weights_bytes, m.kv_bytes + m.recurrent_bytes, m.transient_bytes];
}

async function checkEngineScenario(page, base, inputs, kvModes) {
  const label = `${inputs.engine} ${inputs.model} ctx ${inputs.max_tokens} batch ${inputs.batch} ${inputs.kv_cache_mode}`;
  await setInputs(page, inputs);
  const view = await shown(page, kvModes);
  const report = await api(base, 'POST', '/v1/estimate', engineBody(inputs, inputs.max_tokens, inputs.kv_cache_mode));
  equal(view.message, '', `${label}: error message`);
  equal(report.engine, inputs.engine, `${label}: engine`);
  const parts = engineParts(report);
  equal(parts[0] + parts[1] + parts[2], report.total_bytes, `${label}: the API's parts add up to its total`);
  ['weights', 'kv', 'headroom'].forEach((key, k) => {
    equal(view[key].bytes, parts[k], `${label}: ${key} bytes`);
    equal(view[key].text, formatGiB(parts[k]), `${label}: ${key} text`);
  });
  for (const [key, field] of [['total', 'total_bytes'], ['budget', 'budget_bytes']]) {
    equal(view[key].bytes, report[field], `${label}: ${key} bytes`);
  }
  equal(view.fits.value, String(report.fits), `${label}: fits`);
  equal(view.barSegments.reduce((a, b) => a + b, 0), report.total_bytes, `${label}: bar segments sum`);
  equal(Number(view.current['data-total-bytes']), report.total_bytes, `${label}: curve's current point`);
  for (const kv of kvModes) {
    const marker = view.markers[kv];
    check(marker !== null, `${label}: a ${kv} marker`);
    check(Number(view.series[kv]?.['data-points']) > 10, `${label}: ${kv} curve has points`);
    if (!marker || marker['data-max-tokens'] === '' || marker['data-capped'] === 'true') continue;
    const max = Number(marker['data-max-tokens']);
    const at = await api(base, 'POST', '/v1/estimate', engineBody(inputs, max, kv));
    const past = await api(base, 'POST', '/v1/estimate', engineBody(inputs, max + 1, kv));
    check(at.fits && !past.fits, `${label}: ${kv} fits at ${max} and not at ${max + 1}`);
    equal(marker['data-total-bytes'], String(at.total_bytes), `${label}: ${kv} marker total`);
  }
  console.log(`ok: ${label}: total ${formatGiB(report.total_bytes)} of ${formatGiB(report.budget_bytes)}, ` +
    `${report.fits ? 'fits' : 'does not fit'}; fits up to ` +
    kvModes.map((kv) => `${kv} ${view.markers[kv]?.['data-max-tokens']}`).join(', '));
}

// ---- Hugging Face names (--allow-hub) -----------------------------------------

const HUB_NAME = 'e2e/Qwen3-14B-MLX-4bit';
const HUB_COMMIT = '0123456789abcdef0123456789abcdef01234567';

// A Hugging Face cache holding the example model as HUB_NAME at main, laid
// out as huggingface_hub lays it out (refs/main, snapshots/<commit>/).
function makeHubCache() {
  const cache = mkdtempSync(path.join(os.tmpdir(), 'memfit-e2e-hub-'));
  const folder = path.join(cache, 'models--e2e--Qwen3-14B-MLX-4bit');
  const snapshot = path.join(folder, 'snapshots', HUB_COMMIT);
  mkdirSync(path.join(folder, 'refs'), { recursive: true });
  mkdirSync(snapshot, { recursive: true });
  writeFileSync(path.join(folder, 'refs', 'main'), HUB_COMMIT);
  for (const file of ['config.json', 'model.safetensors.index.json']) {
    copyFileSync(path.join(repo, 'examples', MODEL, file), path.join(snapshot, file));
  }
  return cache;
}

// Without --allow-hub the name field stays hidden.
async function checkHubFieldHidden(page) {
  const hidden = await page.evaluate(() => document.getElementById('hub-model-field').hidden);
  equal(hidden, true, 'Hugging Face name field without --allow-hub: hidden');
}

// With --allow-hub: the field is shown and a name typed in it is priced
// as the API prices that name; emptied, the roots' model is back.
async function checkHubName(browser, offsite) {
  const cache = makeHubCache();
  const env = { ...process.env, HF_HUB_CACHE: cache, HF_HUB_OFFLINE: '1',
    HF_ENDPOINT: 'http://127.0.0.1:9', MEMFIT_CACHE_DIR: path.join(cache, 'memfit') };
  const service = startService(['--allow-hub'], env);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const port = await service.port;
    const base = `http://127.0.0.1:${port}`;
    await onlyTheService(context, port, offsite);
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    await page.goto(`${base}/`, { waitUntil: 'load' });
    await page.waitForSelector(`#model option[value="${MODEL}"]`, { state: 'attached', timeout: 20000 });
    equal((await api(base, 'GET', '/v1/models')).allow_hub, true, '/v1/models allow_hub with --allow-hub');
    await page.waitForSelector('#hub-model', { state: 'visible', timeout: 20000 });
    await checkScenario(page, base, { model: HUB_NAME, hub: true, max_tokens: 32768, batch: 1, kv_cache_mode: 'fp16' });
    await page.fill('#hub-model', '');
    await setInputs(page, { model: MODEL, max_tokens: 32768, batch: 1, kv_cache_mode: 'fp16' });
    check(errors.length === 0, `browser errors with --allow-hub:\n  ${errors.join('\n  ')}`);
  } finally {
    await context.close();
    const code = await stopService(service.child);
    check(code === 0, `memfit serve --allow-hub exited with ${code} on SIGTERM`);
    rmSync(cache, { recursive: true, force: true });
  }
}

// ---- main -----------------------------------------------------------------

async function main() {
  const service = startService();
  let browser;
  try {
    const port = await service.port;
    const base = `http://127.0.0.1:${port}`;
    console.log(`memfit serve on ${base}; chromium ${chromiumPath}`);

    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
        '--disable-background-networking', '--disable-component-update', '--disable-default-apps',
        '--disable-sync', '--no-first-run', '--no-default-browser-check', '--disable-extensions',
        '--metrics-recording-only', '--mute-audio', '--font-render-hinting=none'],
    });
    console.log(`browser ${browser.version()}`);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });

    // Only the service may be reached; anything else is refused and fails the test.
    const offsite = [];
    await onlyTheService(context, port, offsite);
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console error: ${message.text()}`);
    });
    page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));

    const response = await page.goto(`${base}/`, { waitUntil: 'load' });
    equal(response.status(), 200, 'GET / status');
    check((response.headers()['content-security-policy'] || '').includes("default-src 'none'"),
      'GET / carries the Content-Security-Policy');
    await page.waitForSelector(`#model option[value="${MODEL}"]`, { state: 'attached', timeout: 20000 });
    await checkHubFieldHidden(page);

    // A setting that does not fit, a batch and KV change, then the view the
    // screenshot shows.
    await checkScenario(page, base, { model: MODEL, max_tokens: 65536, batch: 1, kv_cache_mode: 'fp16' });
    await checkScenario(page, base, { model: MODEL, max_tokens: 32768, batch: 2, kv_cache_mode: 'int8' });
    // The other engines, drawn from /v1/estimate; then back to mlxcel.
    await checkEngineScenario(page, base,
      { engine: 'llamacpp', model: MODEL, max_tokens: 32768, batch: 1, kv_cache_mode: 'q8_0' }, ['f16', 'q8_0', 'q4_0']);
    await checkEngineScenario(page, base,
      { engine: 'mlx-lm', model: MODEL, max_tokens: 8192, batch: 1, gen_tokens: 256, kv_cache_mode: '8' }, ['fp16', '8', '4']);
    await checkEngineScenario(page, base,
      { engine: 'vllm', model: MODEL, max_tokens: 8192, batch: 4, kv_cache_mode: 'fp8' }, ['auto', 'fp8']);
    await checkScenario(page, base, { model: MODEL, max_tokens: 32768, batch: 1, kv_cache_mode: 'fp16' });

    // No focus ring in the picture. Leaving an edited field fires its
    // change event, so the page updates again: wait for it to settle.
    await page.evaluate(() => document.activeElement?.blur());
    await page.waitForSelector('#figures[data-state="ready"]', { state: 'attached', timeout: 20000 });
    mkdirSync(path.dirname(screenshot), { recursive: true });
    await page.screenshot({ path: screenshot });
    console.log(`screenshot: ${screenshot}`);

    await checkHubName(browser, offsite);

    check(offsite.length === 0, `requests beyond the service: ${offsite.join(', ')}`);
    check(errors.length === 0, `browser errors:\n  ${errors.join('\n  ')}`);
  } finally {
    if (browser) await browser.close();
    const code = await stopService(service.child);
    check(code === 0, `memfit serve exited with ${code} on SIGTERM`);
  }
}

const watchdog = setTimeout(() => {
  console.error(`FAIL: the test ran past ${TIMEOUT_MS / 1000} s`);
  process.exit(1);
}, TIMEOUT_MS);

main().then(() => {
  clearTimeout(watchdog);
  if (failures.length > 0) {
    console.error(`calculator e2e: ${failures.length} of ${checks} checks failed`);
    process.exit(1);
  }
  console.log(`calculator e2e: all ${checks} checks passed`);
}, (error) => {
  clearTimeout(watchdog);
  console.error(`FAIL: ${error.stack || error.message}`);
  process.exit(1);
});
