// End-to-end test of the calculator page of `memfit serve`, in headless
// Chromium (Debian's /usr/bin/chromium) driven by playwright-core.
//
//   node calculator_e2e.mjs BUILD_DIR [SCREENSHOT_DIR]
//
// Starts BUILD_DIR/memfit serve on a free loopback port over the bundled
// examples and a root holding one test GGUF with a 16 GiB budget, opens /,
// and for a few settings (model, context, batch, KV mode) checks that every
// figure the page shows equals what the service's API answers for the same
// request, exact bytes and the GiB text, and that the largest context
// marked on the curve is /v1/fit's; under the llama.cpp, mlx-lm, vLLM,
// SGLang and Ollama engines, that the three parts are the answer's own
// terms, the speed line is the answer's, and each marked context fits
// while one more does not (or is the model's own context). SGLang and
// Ollama are checked against hand-worked KV bytes too (checkSglang,
// checkOllama), and the engine list offers each only for the model format
// it prices (checkEngineOffer).
// Any request the page makes to anything but the service is refused and
// fails the test, as does a script error or a console error (a CSP
// violation is one). The Hugging Face name field is hidden there; a second
// service, started with --allow-hub over a generated Hugging Face cache
// (offline: nothing beyond loopback), shows it, and a name typed in it is
// priced as the API prices that name.
//
// A third service, over a root whose alphabetically first model is a
// 627 GiB DeepSeek-V3 (and a link leading out of the roots) and a fake
// /proc (12 GiB available), checks at 1280 and 390 px wide: that the page
// opens on the smallest model, then on the last one used; that each
// engine's GPU settings (llama.cpp's -ngl, --n-cpu-moe, -ot, -ts ...,
// each a field of GET /v1/engines) are on the form and priced as the API prices
// them, devices included; that the hardware picker's GPUs (two RTX 4090s)
// and Mac are sent as the request's gpu and mac fields and priced as the
// API prices them; that the curve's "fits up to" stops at the model's own
// context (/v1/estimate's context_limit_tokens) under every engine; that the footer's warnings are the
// API's, each saying "warning" once; and, for every engine and a model far
// over the budget, that nothing clips or scrolls sideways: the page is no
// wider than the window, every element lies inside its card, no text is
// cut, and every chart label lies inside its chart. It saves
// calculator-1280.png and calculator-390.png (default BUILD_DIR/e2e/, or
// $MEMFIT_E2E_SCREENSHOTS; docs/images/ holds the committed ones), and
// calculator-sglang-<width>.png and calculator-ollama-<width>.png. Exits 0
// when every check passed, 1 otherwise.
//
// Environment: CHROMIUM (default /usr/bin/chromium).
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

const GIB = 2 ** 30;
const MODEL = 'Qwen3-14B-MLX-4bit';
const BUDGET = '16GiB';
// Hand-worked in tests/service/service_fit_test.cc: at 16 GiB and batch 1.
const KNOWN_FIT_BATCH1 = { fp16: 35584, int8: 71424 };
const TIMEOUT_MS = 480000;

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const buildDir = path.resolve(process.argv[2] || process.env.MEMFIT_BUILD_DIR || path.join(repo, 'build', 'release'));
const screenshots = path.resolve(process.argv[3] || process.env.MEMFIT_E2E_SCREENSHOTS ||
  path.join(buildDir, 'e2e'));
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

function startService(extraArgs = [], env = process.env, roots = [path.join(repo, 'examples')]) {
  const memfit = path.join(buildDir, 'memfit');
  const args = ['serve', '--listen', '127.0.0.1:0', ...roots.flatMap((root) => ['--model-root', root]),
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
  await page.fill('#memory-limit', inputs.memory_limit || '');
  // The engine's own fields, typed (or ticked) where the form shows them,
  // the folded ones unfolded first; any other typed (or ticked) before is
  // emptied.
  for (const input of await page.$$('#controls .field-list input[type="text"][data-field]')) {
    const field = await input.getAttribute('data-field');
    if (!Object.hasOwn(inputs.fields || {}, field) && (await input.inputValue()) !== '') await input.fill('');
  }
  for (const input of await page.$$('#controls .field-list input[type="checkbox"][data-field]')) {
    const field = await input.getAttribute('data-field');
    if (!Object.hasOwn(inputs.fields || {}, field) && (await input.isChecked())) await input.setChecked(false);
  }
  if (Object.keys(inputs.fields || {}).length > 0) {
    await page.evaluate(() => { document.getElementById('engine-fields').open = true; });
  }
  for (const [field, value] of Object.entries(inputs.fields || {})) {
    const selector = `[data-testid="field-${field}"]`;
    if (typeof value === 'boolean') await page.setChecked(selector, value);
    else await page.fill(selector, String(value));
  }
  // The machine, picked: GPUs (one id, a count) or a Mac; else the server's.
  const machine = inputs.machine || {};
  await page.selectOption('#machine-kind', machine.gpu ? 'gpu' : machine.mac ? 'mac' : '');
  if (machine.gpu) {
    await page.selectOption('#hw-gpu', machine.gpu[0]);
    await page.fill('#hw-gpu-count', String(machine.gpu.length));
  }
  if (machine.mac) await page.selectOption('#hw-mac', machine.mac);
  const expected = { engine, model: inputs.model, maxTokens: String(inputs.max_tokens), batch: String(inputs.batch),
    kvMode: inputs.kv_cache_mode, fields: JSON.stringify(inputs.fields || {}), machine: JSON.stringify(machine),
    memoryLimit: inputs.memory_limit || '' };
  await page.waitForFunction((expected) => {
    const figures = document.getElementById('figures').dataset;
    return figures.state === 'ready' && Object.entries(expected).every(([key, value]) => figures[key] === value);
  }, expected, { timeout: 20000 });
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
      fitsNote: document.getElementById('fig-fits-margin').textContent,
      speed: document.getElementById('fig-speed').textContent,
      labels: ['fig-weights-label', 'fig-kv-label', 'fig-headroom-label'].map((id) => document.getElementById(id).textContent),
      notes: ['fig-weights-source', 'fig-kv-rate', 'fig-headroom-parts'].map((id) => document.getElementById(id).textContent),
      barSegments: bar,
      barBudget: data('[data-testid="bar-budget"]'),
      curveBudget: data('[data-testid="curve-budget"]'),
      markers: Object.fromEntries(kvModes.map((kv) => [kv, data(`[data-testid="fit-marker-${kv}"]`)])),
      captions: Object.fromEntries(kvModes.map((kv) => [kv, data(`[data-testid="fit-${kv}"]`)])),
      series: Object.fromEntries(kvModes.map((kv) => [kv, data(`[data-testid="curve-${kv}"]`)])),
      current: data('[data-testid="curve-current"]'),
      devices: [...document.querySelectorAll('#devices-list li')].map((li) => ({ ...li.dataset })),
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

  // The page stops at the model's own context (40,960 for the example):
  // a mode /v1/fit says fits more (int8's 71,424) is marked there, with
  // the total /v1/estimate gives at it.
  const limit = report.context_limit_tokens;
  equal(fit.context_limit_tokens, limit, `${label}: /v1/fit's and /v1/estimate's context_limit_tokens`);
  for (const mode of fit.by_kv_mode) {
    const name = mode.kv_cache_mode;
    const limited = limit !== null && mode.max_tokens !== null && (mode.capped || mode.max_tokens > limit);
    const marked = limited ? limit : mode.max_tokens;
    const markedTotal = limited
      ? (await api(base, 'POST', '/v1/estimate', { ...inputs, kv_cache_mode: name, max_tokens: limit })).total_bytes
      : mode.total_bytes;
    const expected = marked === null ? '' : String(marked);
    equal(view.markers[name]?.['data-max-tokens'], expected, `${label}: curve marker, largest ${name} context`);
    equal(view.markers[name]?.['data-total-bytes'], markedTotal === null ? '' : String(markedTotal),
      `${label}: curve marker, ${name} total`);
    equal(view.captions[name]?.['data-max-tokens'], expected, `${label}: caption, largest ${name} context`);
    equal(view.captions[name]?.['data-limited'], String(limited), `${label}: caption, ${name} at the model's limit`);
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
// The engine's own fields typed in the form (inputs.fields) go with it.
function engineBody(inputs, tokens, kv) {
  const fields = { ...(inputs.machine || {}), ...(inputs.fields || {}),
    ...(inputs.memory_limit ? { memory_limit: inputs.memory_limit } : {}) };
  if (inputs.engine === 'llamacpp') {
    return { model: inputs.model, engine: 'llamacpp', ctx_size: tokens, parallel: inputs.batch,
      cache_type_k: kv, cache_type_v: kv, ...fields };
  }
  if (inputs.engine === 'vllm') {
    return { model: inputs.model, engine: 'vllm', max_model_len: tokens, max_num_seqs: inputs.batch,
      kv_cache_dtype: kv, ...fields };
  }
  if (inputs.engine === 'sglang') {
    return { model: inputs.model, engine: 'sglang', context_length: tokens, max_running_requests: inputs.batch,
      sglang_kv_cache_dtype: kv, ...fields };
  }
  if (inputs.engine === 'ollama') {
    return { model: inputs.model, engine: 'ollama', num_ctx: tokens, ollama_num_parallel: inputs.batch,
      ollama_kv_cache_type: kv, ...fields };
  }
  return { model: inputs.model, engine: 'mlx-lm', prompt_tokens: tokens, max_tokens: inputs.gen_tokens,
    batch: inputs.batch, ...(kv === 'fp16' ? {} : { kv_bits: Number(kv) }), ...fields };
}

// The three figures before the total, per engine, from the answer's own
// fields; each engine's parts must add up to its total.
function engineParts(report) {
  if (report.engine === 'llamacpp' || report.engine === 'ollama') {
    const l = report.llamacpp;
    // model_bytes holds the CPU's repacked copies (repack_bytes) already:
    // mapped + repack, as llama.cpp's own breakdown counts them.
    return [l.model_bytes, l.context_bytes, l.compute_bytes];
  }
  if (report.engine === 'vllm') {
    const v = report.vllm;
    return [v.weights_bytes, v.kv_cache_bytes,
      v.activation_bytes + v.non_torch_bytes + v.cuda_graph_bytes];  // weights_bytes holds the rope cache
  }
  if (report.engine === 'sglang') {
    // SGLang's answer is flat: the KV and state pools, and what its plan
    // adds besides (docs/engine-sglang.md).
    return [report.weights_bytes, report.kv_pool_bytes + report.mamba_pool_bytes,
      report.startup_bytes + report.req_to_token_bytes + report.cuda_graph_bytes +
        report.piecewise_cuda_graph_bytes + report.activation_bytes];
  }
  const m = report.mlxlm;
  return [m.weights_bytes, m.kv_bytes + m.recurrent_bytes, m.transient_bytes];
}

// The report's speed as the page words it (docs/speed.md, "In the
// report"), written out here from the answer: the decode band at the
// start of the context, the prefill median, the engine's basis.
function speedText(speed) {
  if (!speed) return '';
  if (!speed.decode_tokens_per_second) return `speed unknown: ${speed.unknown || ''}`;
  const d = speed.decode_tokens_per_second.start;
  const p = speed.prefill_tokens_per_second;
  return `decode ${d.median.toFixed(0)} tok/s (${d.low.toFixed(0)}-${d.high.toFixed(0)}), ` +
    (p ? `prefill ${p.median.toFixed(0)} tok/s` : `prefill unknown: ${speed.prefill_unknown || ''}`) +
    (speed.engine_basis ? ` (${speed.engine_basis})` : '');
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
  equal(view.speed, speedText(report.speed), `${label}: speed line`);
  // llama.cpp's devices when one is a GPU (GPU memory, -ngl): each one's
  // total and what it can give, as the answer has them; a GPU that is
  // short is what the verdict's note names.
  const all = report.engine === 'llamacpp' || report.engine === 'ollama' ? report.llamacpp.devices : [];
  const devices = all.some((d) => d.device !== 'cpu') ? all : [];
  equal(view.devices.length, devices.length, `${label}: devices listed`);
  const short = devices.filter((d) => !d.fits);
  if (!report.fits && report.total_bytes <= report.budget_bytes && short.length > 0) {
    equal(view.fitsNote, short.map((d) => `${d.device} short by ${formatGiB(d.short_bytes)}`).join(', '),
      `${label}: why it does not fit`);
  }
  for (const d of devices) {
    const shownDevice = view.devices.find((v) => v.device === d.device);
    equal(shownDevice?.totalBytes, String(d.total_bytes), `${label}: ${d.device} total`);
    // Ollama's scheduler reads the host's free memory as it is now: two
    // answers a moment apart may differ there.
    if (report.engine !== 'ollama' || d.device !== 'cpu') {
      equal(shownDevice?.usableBytes, String(d.usable_bytes), `${label}: ${d.device} usable`);
    }
    equal(shownDevice?.fits, String(d.fits), `${label}: ${d.device} fits`);
    equal(shownDevice?.blocks, String(d.blocks), `${label}: ${d.device} blocks`);
  }
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
  await checkLimitedMarkers(view, base, inputs, kvModes, report, label);
  console.log(`ok: ${label}: total ${formatGiB(report.total_bytes)} of ${formatGiB(report.budget_bytes)}, ` +
    `${report.fits ? 'fits' : 'does not fit'}; fits up to ` +
    kvModes.map((kv) => `${kv} ${view.markers[kv]?.['data-max-tokens']}`).join(', '));
  return { view, report };
}

// A KV choice that fits past the model's own context is marked at that
// context, "the model's limit", with the total /v1/estimate gives there.
async function checkLimitedMarkers(view, base, inputs, kvModes, report, label) {
  // mlx-lm's prompt leaves room for the tokens it generates.
  const limit = report.context_limit_tokens - (inputs.engine === 'mlx-lm' ? inputs.gen_tokens : 0);
  for (const kv of kvModes) {
    const marker = view.markers[kv];
    if (!marker || marker['data-limited'] !== 'true') continue;
    equal(marker['data-max-tokens'], String(limit), `${label}: ${kv} marked at the model's context`);
    const at = await api(base, 'POST', '/v1/estimate', engineBody(inputs, limit, kv));
    check(at.fits, `${label}: ${kv} fits at the model's context ${limit}`);
    equal(marker['data-total-bytes'], String(at.total_bytes), `${label}: ${kv} total at the model's context`);
  }
}

// ---- SGLang and Ollama ----------------------------------------------------

// The GGUF the first service also serves (a root of its own): a 4-layer
// llama of the golden tests, 120,064 bytes of weights, context_length 4096.
const GGUF = 'llama-dense.gguf';

// A speed line with a decode band: low < median < high, as the page shows it.
function checkSpeedBand(report, view, label) {
  const d = report.speed?.decode_tokens_per_second?.start;
  check(d && d.low < d.median && d.median < d.high, `${label}: the answer has a decode band`);
  if (d) check(view.speed.startsWith(`decode ${d.median.toFixed(0)} tok/s (${d.low.toFixed(0)}-${d.high.toFixed(0)})`),
    `${label}: the speed line shows the band: ${view.speed}`);
}

// SGLang on a 16 GB GPU (the picker's RTX 4080): its pool is
// --mem-fraction-static of the GPU less the rest, so the total hardly
// moves with the context; a context fits while one request holds it.
async function checkSglang(page, base, at = '1280 px') {
  const inputs = { engine: 'sglang', model: MODEL, max_tokens: 8192, batch: 4, kv_cache_mode: 'auto',
    machine: { gpu: ['rtx4080'] } };
  const label = `${at}: sglang ${MODEL}`;
  const { view, report } = await checkEngineScenario(page, base, inputs, ['auto', 'fp8_e4m3']);
  equal(JSON.stringify(view.labels), JSON.stringify(['Weights', 'KV pool', 'Other']), `${label}: the parts' names`);
  // Qwen3-14B: 40 layers x 8 KV heads x 128 dims x 2 (K and V) x 2 bytes
  // (bfloat16) = 163,840 bytes a token; the pool is its tokens x that.
  equal(report.kv_bytes_per_token, 163840, `${label}: KV bytes a token (hand-worked)`);
  equal(view.kv.bytes, report.max_total_num_tokens * 163840, `${label}: the KV pool is its tokens x 163,840 B`);
  check(view.notes[1].startsWith(`${report.max_total_num_tokens.toLocaleString('en-US')} tokens x 163,840 B, ` +
    `--mem-fraction-static ${report.mem_fraction_static.toFixed(3)}`), `${label}: the KV pool's note: ${view.notes[1]}`);
  // auto: a context fits while the pool holds one request of it, so the
  // mark is the pool's tokens (the pool does not depend on the context);
  // fp8 halves the bytes a token, and the pool then holds more than the
  // model's 40,960 tokens: marked at the model's limit.
  equal(view.markers.auto?.['data-max-tokens'], String(report.max_total_num_tokens),
    `${label}: auto fits up to the pool's tokens`);
  equal(view.markers.fp8_e4m3?.['data-max-tokens'], '40960', `${label}: fp8_e4m3 up to the model's context`);
  equal(view.markers.fp8_e4m3?.['data-limited'], 'true', `${label}: fp8_e4m3 at the model's limit`);
  checkSpeedBand(report, view, label);
  const axis = await page.evaluate(() => [...document.querySelectorAll('#curve text')].map((t) => t.textContent));
  check(axis.includes('--context-length (tokens), 4 requests'), `${label}: the curve's axis names SGLang's flag`);
  const labels = await page.evaluate(() => [document.getElementById('max-tokens-label').textContent,
    document.getElementById('batch-label').textContent]);
  equal(JSON.stringify(labels), JSON.stringify(['Context (--context-length)', 'Requests (--max-running-requests)']),
    `${label}: the inputs' labels are SGLang's flags`);
}

// Ollama over the GGUF: on a picked RTX 4060 (its runner's devices and a
// speed band), then with no GPU, flash attention on and a 7 MiB budget,
// where each cache type stops at its own num_ctx.
async function checkOllama(page, base) {
  const label = `ollama ${GGUF}`;
  const gpu = { engine: 'ollama', model: GGUF, max_tokens: 2048, batch: 2, kv_cache_mode: 'f16', machine: { gpu: ['rtx4060'] } };
  const first = await checkEngineScenario(page, base, gpu, ['f16', 'q8_0', 'q4_0']);
  equal(JSON.stringify(first.view.labels), JSON.stringify(['Model', 'Context', 'Compute']), `${label}: the parts' names`);
  equal(JSON.stringify(first.view.devices.map((d) => d.device)), JSON.stringify(['cuda:0', 'cpu']),
    `${label}: the RTX 4060 and the host as devices`);
  checkSpeedBand(first.report, first.view, `${label} on an RTX 4060`);
  // 5 MiB fit an 8 GB GPU at any num_ctx: each type up to the GGUF's 4096.
  for (const kv of ['f16', 'q8_0', 'q4_0']) {
    equal(first.view.markers[kv]?.['data-max-tokens'], '4096', `${label}: ${kv} up to the model's context`);
  }
  const labels = await page.evaluate(() => [document.getElementById('max-tokens-label').textContent,
    document.getElementById('batch-label').textContent]);
  equal(JSON.stringify(labels), JSON.stringify(['Context (--num-ctx)', 'Parallel (--ollama-num-parallel)']),
    `${label}: the inputs' labels are Ollama's fields`);

  // Ollama v0.24.0, its own runner over its vendored llama.cpp (the F32
  // mask and its cast below); the current release's llama-server reserves
  // an F16 mask (llama.cpp #23764) and q8_0 fits there up to 4096 too.
  const small = { engine: 'ollama', model: GGUF, max_tokens: 2048, batch: 2, kv_cache_mode: 'q8_0',
    memory_limit: '14MiB', fields: { ollama_flash_attention: true, ollama_version: '0.24.0' } };
  const { view, report } = await checkEngineScenario(page, base, small, ['f16', 'q8_0', 'q4_0']);
  // num_ctx 2048 x OLLAMA_NUM_PARALLEL 2 = 4,096 cells; f16 K and V are
  // 512 B a cell (4 layers x 64 elements x 2 B), q8_0 34 B per 32
  // elements: 256 / 32 x 34 = 272 B; 4,096 x 272 = 1,114,112 B, plus the
  // output buffer.
  equal(report.ollama.kv_cells, 4096, `${label}: KV cells (hand-worked)`);
  equal(report.llamacpp.context.kv_bytes, 1114112, `${label}: q8_0 KV bytes (hand-worked)`);
  equal(view.kv.bytes, 1114112 + report.llamacpp.context.output_bytes, `${label}: the context figure`);
  equal(report.ollama.flash_attention, 'on', `${label}: flash attention on`);
  check(view.notes[1].startsWith('4,096 cells of q8_0 (flash attention on)'), `${label}: the context's note: ${view.notes[1]}`);
  equal(view.speed, 'speed unknown: give --gpu or --mac', `${label}: no GPU, no speed`);
  // 14 MiB stops f16 and q8_0 short of num_ctx 4096 (8,192 cells: 16.6
  // and 14.8 MiB there); q4_0 (1.1 MiB of cache, the 117 KiB of weights
  // and the host's replayed compute buffer, 12.5 MiB with the F32 mask and
  // its F16 cast of Ollama's vendored build: 13.8 MiB in all) fits up to
  // the model's context.
  const marks = ['f16', 'q8_0', 'q4_0'].map((kv) => Number(view.markers[kv]?.['data-max-tokens']));
  check(marks[0] < marks[1] && marks[1] < 4096 && marks[2] === 4096, `${label}: f16 < q8_0 < q4_0 = 4096: ${marks}`);
}

// Each engine is offered only for a model it prices: SGLang for a
// config's safetensors, Ollama for a GGUF; a fragment naming one for
// another model gives way to the API's default engine.
async function checkEngineOffer(page, base) {
  const offered = () => page.evaluate(() => Object.fromEntries([...document.getElementById('engine').options]
    .map((o) => [o.value, !o.disabled])));
  await setInputs(page, { model: GGUF, engine: 'llamacpp', max_tokens: 2048, batch: 1, kv_cache_mode: 'f16' });
  let engines = await offered();
  check(engines.ollama === true && engines.sglang === false && engines.llamacpp === true,
    `a GGUF: ollama offered, sglang not: ${JSON.stringify(engines)}`);
  await setInputs(page, { model: MODEL, engine: 'vllm', max_tokens: 8192, batch: 1, kv_cache_mode: 'auto' });
  engines = await offered();
  check(engines.sglang === true && engines.ollama === false && engines.vllm === true,
    `safetensors: sglang offered, ollama not: ${JSON.stringify(engines)}`);
  // The fragment alone changes nothing: the page reads it when it loads.
  await page.goto(`${base}/#engine=sglang&model=${GGUF}&max_tokens=2048&batch=1&kv=auto`, { waitUntil: 'load' });
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction((model) => document.getElementById('figures').dataset.state === 'ready' &&
    document.getElementById('figures').dataset.model === model, GGUF, { timeout: 20000 });
  equal(await page.evaluate(() => document.getElementById('figures').dataset.engine), 'llamacpp',
    `#engine=sglang with ${GGUF}: priced under llama.cpp`);
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

// ---- layouts, the model the page opens on, GPU fields, the footer --------

// Config-only models from the test corpus: the alphabetically first is the
// largest (DeepSeek-V3, 671B parameters in FP8), the smallest is Qwen3-0.6B.
const LAYOUT_MODELS = [['deepseek_v3/DeepSeek-V3', 'DeepSeek-V3'], ['qwen3/Qwen3-0.6B', 'Qwen3-0.6B']];
const SMALLEST = 'Qwen3-0.6B';
const WIDTHS = [{ width: 1280, height: 900 }, { width: 390, height: 844 }];

// A root of LAYOUT_MODELS and a link out of the roots; a /proc whose
// 12 GiB available make the 15.46 GiB example warn that it is more than
// is available now (a warning that begins "WARNING:").
function makeLayoutFolders() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'memfit-e2e-models-'));
  for (const [from, name] of LAYOUT_MODELS) {
    mkdirSync(path.join(root, name));
    copyFileSync(path.join(repo, 'tests', 'data', 'corpus', from, 'config.json'), path.join(root, name, 'config.json'));
  }
  const sysroot = mkdtempSync(path.join(os.tmpdir(), 'memfit-e2e-sysroot-'));
  mkdirSync(path.join(sysroot, 'proc'));
  writeFileSync(path.join(sysroot, 'proc', 'meminfo'), 'MemTotal: 67108864 kB\nMemAvailable: 12582912 kB\n');
  symlinkSync(sysroot, path.join(root, 'Elsewhere'));
  return { root, sysroot };
}

// What does not lay out: the page wider than the window, an element
// reaching past its card, text cut by its box, a chart label outside its
// chart. An empty list when all is well.
async function layoutProblems(page) {
  return page.evaluate(() => {
    const problems = [];
    const name = (e) => (e.id ? `#${e.id}` : e.dataset?.testid ? `[${e.dataset.testid}]`
      : `${e.tagName.toLowerCase()}${typeof e.className === 'string' && e.className ? `.${e.className.split(' ')[0]}` : ''}`);
    const shown = (e) => e.getClientRects().length > 0;
    const scroller = document.scrollingElement;
    if (scroller.scrollWidth > window.innerWidth) {
      problems.push(`the page scrolls sideways: ${scroller.scrollWidth} px in a ${window.innerWidth} px window`);
    }
    for (const card of document.querySelectorAll('header, #controls, .figure, .panel, #detail')) {
      if (!shown(card)) continue;
      const c = card.getBoundingClientRect();
      if (c.left < 0 || c.right > window.innerWidth) problems.push(`${name(card)} reaches past the window`);
      for (const e of card.querySelectorAll('*')) {
        if (!shown(e) || (e.closest('svg') && e.tagName.toLowerCase() !== 'svg')) continue;
        const r = e.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) continue;
        if (r.left < c.left - 0.5 || r.right > c.right + 0.5) {
          problems.push(`${name(e)} reaches past ${name(card)}: ${r.left.toFixed(1)}-${r.right.toFixed(1)} in ${c.left.toFixed(1)}-${c.right.toFixed(1)}`);
        }
        const tag = e.tagName.toLowerCase();
        if (!['input', 'select', 'textarea', 'option', 'svg'].includes(tag) && e.scrollWidth > e.clientWidth + 1 &&
            getComputedStyle(e).overflowX !== 'visible') {
          problems.push(`${name(e)} cuts its text "${e.textContent.slice(0, 40)}": ${e.scrollWidth} px in ${e.clientWidth}`);
        }
      }
    }
    for (const chart of document.querySelectorAll('svg.chart')) {
      const [, , w, h] = chart.getAttribute('viewBox').split(/[\s,]+/).map(Number);
      for (const text of chart.querySelectorAll('text')) {
        const b = text.getBBox();
        if (b.x < 0 || b.y < 0 || b.x + b.width > w || b.y + b.height > h) {
          problems.push(`${chart.id}: "${text.textContent}" outside the chart: x ${b.x.toFixed(1)}-${(b.x + b.width).toFixed(1)} of ${w}`);
        }
      }
    }
    return problems;
  });
}

async function checkLayout(page, what) {
  const problems = await layoutProblems(page);
  check(problems.length === 0, `${what}: lays out without clipping:\n  ${problems.join('\n  ')}`);
}

// The footer: the model's line and each warning of the answer, said once
// ("WARNING: memory available now ..." is not "warning: WARNING: ...").
async function checkFooter(page, base, inputs, label) {
  const footer = await page.evaluate(() => ({
    text: document.getElementById('detail').innerText,
    warnings: [...document.querySelectorAll('#warnings li')].map((li) => li.textContent),
  }));
  const report = await api(base, 'POST', '/v1/estimate',
    { model: inputs.model, max_tokens: inputs.max_tokens, batch: inputs.batch, kv_cache_mode: inputs.kv_cache_mode });
  check(report.warnings.some((w) => w.startsWith('WARNING: ')), `${label}: the answer has a warning that begins "WARNING:"`);
  equal(JSON.stringify(footer.warnings), JSON.stringify(report.warnings.map((w) => w.replace(/^warning:\s*/i, ''))),
    `${label}: the footer's warnings`);
  check(!/warning:\s*warning/i.test(footer.text), `${label}: the footer says "warning" once: ${footer.text}`);
}

// The hardware picker: two RTX 4090s under llama.cpp (the request's gpu
// field, one id per device), then an M3 Pro 18GB under mlxcel (its mac
// field), each priced as the API prices the same request.
async function checkHardwarePicker(page, base, at) {
  const table = await api(base, 'GET', '/v1/hardware');
  const rtx4090 = table.gpus.find((g) => g.id === 'rtx4090');
  // The driver's 24,564 MiB: 24,564 x 1,048,576 = 25,757,220,864 bytes.
  equal(rtx4090?.memory_bytes, 25757220864, `${at}: /v1/hardware's RTX 4090`);
  const gpus = { engine: 'llamacpp', model: MODEL, max_tokens: 32768, batch: 1, kv_cache_mode: 'f16',
    machine: { gpu: ['rtx4090', 'rtx4090'] } };
  await checkEngineScenario(page, base, gpus, ['f16', 'q8_0', 'q4_0']);
  const view = await shown(page);
  equal(JSON.stringify(view.devices.map((d) => d.device)), JSON.stringify(['cuda:0', 'cuda:1', 'cpu']),
    `${at}: two picked GPUs and the host as devices`);
  const note = await page.evaluate(() => document.getElementById('hw-note').textContent);
  check(note.startsWith('2 x NVIDIA GeForce RTX 4090, 25,757,220,864 bytes each'), `${at}: the picker's note: ${note}`);
  equal(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('gpu')), 'rtx4090*2',
    `${at}: the GPUs in the fragment`);

  const mac = { model: MODEL, max_tokens: 8192, batch: 1, kv_cache_mode: 'fp16', machine: { mac: 'm3-pro-18gb' } };
  await setInputs(page, mac);
  const macView = await shown(page);
  const report = await api(base, 'POST', '/v1/estimate',
    { model: MODEL, max_tokens: 8192, batch: 1, kv_cache_mode: 'fp16', mac: 'm3-pro-18gb' });
  equal(macView.budget.bytes, report.budget_bytes, `${at}: the Mac's budget`);
  equal(macView.total.bytes, report.total_bytes, `${at}: the total on the Mac`);
  equal(macView.fits.value, String(report.fits), `${at}: fits on the Mac`);
  // The Mac's GPU wired limit, not the server's 16 GiB: macOS before 26
  // gives 2/3 of RAM at 32 GB or less, 2/3 x 18 x 2^30 = 12,884,901,888 bytes.
  equal(report.budget_bytes, 12884901888, `${at}: the M3 Pro 18GB's budget (hand-worked)`);
  // Back to the server's machine for what follows.
  await setInputs(page, { model: MODEL, max_tokens: 8192, batch: 1, kv_cache_mode: 'fp16' });
}

// The curve's "fits up to" stops at the model's own context: Qwen3-0.6B
// declares 40,960 (max_position_embeddings, no rope_scaling) and at 16 GiB
// would fit far more; each engine's marker and caption say 40,960, the
// model's limit, as /v1/estimate's context_limit_tokens says.
async function checkModelLimit(page, base) {
  const limit = 40960;
  const fit = await api(base, 'POST', '/v1/fit', { model: SMALLEST, batch: 1 });
  check(fit.by_kv_mode[0].max_tokens > limit, `/v1/fit alone passes the model's context: ${fit.by_kv_mode[0].max_tokens}`);
  equal(fit.context_limit_tokens, limit, `/v1/fit's context_limit_tokens for ${SMALLEST}`);
  for (const [inputs, kv] of [
    [{ model: SMALLEST, max_tokens: 8192, batch: 1, kv_cache_mode: 'fp16' }, 'fp16'],
    [{ engine: 'llamacpp', model: SMALLEST, max_tokens: 8192, batch: 1, kv_cache_mode: 'f16' }, 'f16'],
    [{ engine: 'vllm', model: SMALLEST, max_tokens: 8192, batch: 1, kv_cache_mode: 'auto' }, 'auto'],
  ]) {
    const label = `${inputs.engine || 'mlxcel'} ${SMALLEST}`;
    await setInputs(page, inputs);
    const body = inputs.engine ? engineBody(inputs, 8192, kv) : { model: SMALLEST, max_tokens: 8192 };
    const report = await api(base, 'POST', '/v1/estimate', body);
    equal(report.context_limit_tokens, limit, `${label}: /v1/estimate's context_limit_tokens`);
    const view = await shown(page, [kv]);
    equal(view.captions[kv]?.['data-max-tokens'], String(limit), `${label}: the caption stops at the model's context`);
    equal(view.captions[kv]?.['data-limited'], 'true', `${label}: the caption says it is the model's limit`);
    equal(view.markers[kv]?.['data-max-tokens'], String(limit), `${label}: the marker stops at the model's context`);
    const caption = await page.evaluate(() => document.getElementById('curve-caption').textContent);
    check(!/480,000|any context/.test(caption) && caption.includes("40,960 tokens (the model's limit)"),
      `${label}: the caption: ${caption}`);
  }
  await setInputs(page, { model: MODEL, max_tokens: 8192, batch: 1, kv_cache_mode: 'fp16' });
}

async function checkLayoutsAt(browser, offsite, base, port, viewport) {
  const at = `${viewport.width} px`;
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  await onlyTheService(context, port, offsite);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console error: ${message.text()}`);
  });
  try {
    // A first visit opens on the smallest model, not the alphabetically
    // first; the model list shows what the server left out, and why.
    await page.goto(`${base}/`, { waitUntil: 'load' });
    await page.waitForSelector('#figures[data-state="ready"]', { state: 'attached', timeout: 20000 });
    const models = await api(base, 'GET', '/v1/models');
    const sizes = models.models.map((m) => [m.weights_bytes, m.name]).sort((a, b) => a[0] - b[0]);
    equal(sizes[0][1], SMALLEST, `${at}: /v1/models' smallest model`);
    equal(models.models[0].name, 'DeepSeek-V3', `${at}: /v1/models' first model`);
    const opened = await page.evaluate(() => ({ select: document.getElementById('model').value,
      priced: document.getElementById('figures').dataset.model,
      leftOut: [...document.querySelectorAll('#model optgroup option')].map((o) => [o.textContent, o.disabled]) }));
    equal(opened.select, SMALLEST, `${at}: the model the page opens on`);
    equal(opened.priced, SMALLEST, `${at}: the model first priced`);
    equal(JSON.stringify(opened.leftOut),
      JSON.stringify(models.left_out.map((m) => [`${m.name}: ${m.reason}`, true])), `${at}: the models left out`);
    equal(models.left_out[0]?.name, 'Elsewhere', `${at}: /v1/models leaves out the link out of the roots`);
    await checkLayout(page, `${at}, ${SMALLEST} on opening`);

    // The last model used is the one the page opens on next time.
    await setInputs(page, { model: MODEL, max_tokens: 32768, batch: 1, kv_cache_mode: 'fp16' });
    await page.goto(`${base}/`, { waitUntil: 'load' });
    await page.waitForSelector('#figures[data-state="ready"]', { state: 'attached', timeout: 20000 });
    equal(await page.evaluate(() => document.getElementById('figures').dataset.model), MODEL,
      `${at}: the model the page opens on after ${MODEL} was used`);

    // The footer, and each engine laid out; a model far over the budget
    // puts the bar's budget line at its left edge.
    const mlxcel = { model: MODEL, max_tokens: 32768, batch: 1, kv_cache_mode: 'fp16' };
    await checkScenario(page, base, mlxcel);
    await checkFooter(page, base, mlxcel, `${at}, ${MODEL}`);
    await checkLayout(page, `${at}, mlxcel ${MODEL}`);
    await setInputs(page, { model: 'DeepSeek-V3', max_tokens: 8192, batch: 1, kv_cache_mode: 'fp16' });
    await checkLayout(page, `${at}, mlxcel DeepSeek-V3 (does not fit)`);
    await checkEngineScenario(page, base,
      { engine: 'vllm', model: MODEL, max_tokens: 8192, batch: 4, kv_cache_mode: 'fp8' }, ['auto', 'fp8']);
    await checkLayout(page, `${at}, vllm ${MODEL}`);
    await checkEngineScenario(page, base,
      { engine: 'mlx-lm', model: MODEL, max_tokens: 8192, batch: 1, gen_tokens: 256, kv_cache_mode: '8' }, ['fp16', '8', '4']);
    await checkLayout(page, `${at}, mlx-lm ${MODEL}`);
    await checkSglang(page, base, at);
    await checkLayout(page, `${at}, sglang ${MODEL}`);
    await page.evaluate(() => document.activeElement?.blur());  // no focus ring in the picture
    await page.waitForSelector('#figures[data-state="ready"]', { state: 'attached', timeout: 20000 });
    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: path.join(screenshots, `calculator-sglang-${viewport.width}.png`), fullPage: true });

    // The model's own context caps the curve; the hardware picker.
    if (viewport.width === 1280) await checkModelLimit(page, base);
    await checkHardwarePicker(page, base, at);

    // Each engine's GPU fields are on the form beside the budget (not
    // folded away with the engine's other settings): vLLM's GPU, and for
    // the first journey llama.cpp's offload: an 8 GB GPU picked (an RTX
    // 4060, 8,188 MiB) and -ngl.
    const gpuFieldsOf = async (engine) => {
      await page.selectOption('#engine', engine);
      return JSON.stringify(await page.evaluate(() => [...document.querySelectorAll('#gpu-fields [data-field]')]
        .filter((e) => e.getClientRects().length > 0).map((e) => e.dataset.field)));
    };
    // Each engine's GPU settings: the fields GET /v1/engines marks
    // gpu_setting, in its order (the page names none itself); none of them
    // among the folded settings.
    const catalog = await api(base, 'GET', '/v1/engines');
    const gpuSettings = (name) => catalog.engines.find((e) => e.name === name).fields
      .filter((f) => f.gpu_setting).map((f) => f.name);
    for (const name of ['mlxcel', 'llamacpp', 'mlx-lm', 'vllm']) {
      equal(await gpuFieldsOf(name), JSON.stringify(gpuSettings(name)), `${at}: ${name}'s GPU fields shown`);
      const folded = await page.evaluate(() => [...document.querySelectorAll('#engine-fields [data-field]')]
        .map((e) => e.dataset.field));
      check(!folded.some((f) => gpuSettings(name).includes(f)), `${at}: ${name}'s GPU fields not folded away`);
    }
    for (const field of ['n_gpu_layers', 'n_cpu_moe', 'override_tensor', 'tensor_split']) {
      check(gpuSettings('llamacpp').includes(field), `${at}: llama.cpp's ${field} is a GPU setting`);
    }
    for (const field of ['gpu_memory_utilization', 'gpu_memory_total']) {
      check(gpuSettings('vllm').includes(field), `${at}: vLLM's ${field} is a GPU setting`);
    }
    equal(gpuSettings('mlxcel').length, 0, `${at}: mlxcel's GPU fields (none: one memory)`);
    await checkEngineScenario(page, base, { engine: 'llamacpp', model: MODEL, max_tokens: 32768, batch: 1,
      kv_cache_mode: 'f16', machine: { gpu: ['rtx4060'] }, fields: { n_gpu_layers: '30' } }, ['f16', 'q8_0', 'q4_0']);
    const journey = await shown(page);
    check(journey.devices.length === 2, `${at}: the GPU and the host listed as devices`);
    // 13.23 GiB at 32K with -ngl 30 is over the RTX 4060's 8 GiB budget.
    equal(journey.devices[0]?.device, 'cuda:0', `${at}: the picked RTX 4060 is the first device`);
    check(journey.fits.value === 'false' && journey.fitsNote.endsWith(' over'),
      `${at}: 32K with -ngl 30 does not fit the RTX 4060: ${journey.fitsNote}`);

    // No focus ring in the picture. Leaving an edited field fires its
    // change event, so the page updates again: wait for it to settle.
    await page.evaluate(() => document.activeElement?.blur());
    await page.waitForSelector('#figures[data-state="ready"]', { state: 'attached', timeout: 20000 });
    await checkLayout(page, `${at}, the screenshot's view`);
    mkdirSync(screenshots, { recursive: true });
    const file = path.join(screenshots, `calculator-${viewport.width}.png`);
    await page.screenshot({ path: file, fullPage: true });
    console.log(`screenshot: ${file}`);
    check(errors.length === 0, `browser errors at ${at}:\n  ${errors.join('\n  ')}`);
  } finally {
    await context.close();
  }
}

// Ollama's view (the last checkOllama priced) at each width: laid out,
// and saved as calculator-ollama-<width>.png; back to 1280 px.
async function checkOllamaLayouts(page) {
  await page.evaluate(() => document.activeElement?.blur());  // no focus ring in the picture
  await page.waitForSelector('#figures[data-state="ready"]', { state: 'attached', timeout: 20000 });
  for (const viewport of WIDTHS) {
    await page.setViewportSize(viewport);
    // The charts are redrawn at the width they are shown at, after the resize.
    await page.waitForFunction(() => ['bar', 'curve'].every((id) => {
      const chart = document.getElementById(id);
      const width = Math.max(300, Math.round(chart.getBoundingClientRect().width));
      return chart.getAttribute('viewBox').split(/[\s,]+/)[2] === String(width);
    }), null, { timeout: 20000 });
    await checkLayout(page, `${viewport.width} px, ollama ${GGUF}`);
    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: path.join(screenshots, `calculator-ollama-${viewport.width}.png`), fullPage: true });
  }
  await page.setViewportSize(WIDTHS[0]);
}

async function checkLayouts(browser, offsite) {
  const { root, sysroot } = makeLayoutFolders();
  const service = startService([], { ...process.env, MEMFIT_SYSROOT: sysroot }, [root, path.join(repo, 'examples')]);
  try {
    const port = await service.port;
    const base = `http://127.0.0.1:${port}`;
    for (const viewport of WIDTHS) await checkLayoutsAt(browser, offsite, base, port, viewport);
  } finally {
    const code = await stopService(service.child);
    check(code === 0, `memfit serve (layouts) exited with ${code} on SIGTERM`);
    rmSync(root, { recursive: true, force: true });
    rmSync(sysroot, { recursive: true, force: true });
  }
}

// ---- main -----------------------------------------------------------------

async function main() {
  const ggufRoot = mkdtempSync(path.join(os.tmpdir(), 'memfit-e2e-gguf-'));
  copyFileSync(path.join(repo, 'tests', 'golden', 'models', GGUF), path.join(ggufRoot, GGUF));
  const service = startService([], process.env, [path.join(repo, 'examples'), ggufRoot]);
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
    await checkSglang(page, base);
    await checkOllama(page, base);
    await checkOllamaLayouts(page);
    await checkEngineOffer(page, base);
    await checkScenario(page, base, { model: MODEL, max_tokens: 32768, batch: 1, kv_cache_mode: 'fp16' });

    await checkHubName(browser, offsite);
    await checkLayouts(browser, offsite);

    check(offsite.length === 0, `requests beyond the service: ${offsite.join(', ')}`);
    check(errors.length === 0, `browser errors:\n  ${errors.join('\n  ')}`);
  } finally {
    if (browser) await browser.close();
    const code = await stopService(service.child);
    check(code === 0, `memfit serve exited with ${code} on SIGTERM`);
    rmSync(ggufRoot, { recursive: true, force: true });
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
