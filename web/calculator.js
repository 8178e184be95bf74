// The memfit calculator page: a form over the service's JSON API.
//
//   GET  /v1/models    fills the model list; allow_hub shows the Hugging
//                      Face name field (the service runs with --allow-hub)
//   POST /v1/estimate  the breakdown at the chosen context, batch and KV mode
//   POST /v1/fit       the largest context that fits per KV mode, and the
//                      totals along the context axis (curve_tokens)
//
// Every figure shown is a number from those answers, formatted: bytes as
// GiB with 2 decimals in the text, exact in data-bytes and the title. The
// elements a test reads carry ids and data-testid; #figures says
// data-state="ready" once the figures match the inputs it also records
// (data-model, data-max-tokens, data-batch, data-kv-mode, data-memory-limit).
// The page loads nothing from anywhere but its own server.
'use strict';

const GIB = 2 ** 30;
const SVG_NS = 'http://www.w3.org/2000/svg';
const KV_MODES = ['fp16', 'int8'];
const CURVE_POINTS = 64;  // evenly spaced, plus the fit boundaries and the asked context
const KV_BLOCK_TOKENS = 256;  // the estimator's allocation block: the x axis steps in these
const DEBOUNCE_MS = 200;

const $ = (id) => document.getElementById(id);

// ---- formatting -----------------------------------------------------------

function formatGiB(bytes) {
  return `${(bytes / GIB).toFixed(2)} GiB`;
}

function formatExact(bytes) {
  return `${bytes.toLocaleString('en-US')} bytes`;
}

function formatTokens(tokens) {
  return tokens.toLocaleString('en-US');
}

// 32768 -> "32K", 1048576 -> "1M": context lengths are named in 1024s.
function formatTokensShort(tokens) {
  if (tokens >= 1 << 20 && tokens % (1 << 20) === 0) return `${tokens / (1 << 20)}M`;
  if (tokens >= 1024 && tokens % 1024 === 0) return `${tokens / 1024}K`;
  return formatTokens(tokens);
}

// ---- the API --------------------------------------------------------------

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const json = await response.json().catch(() => null);
  if (!response.ok) {
    const message = json && json.error ? json.error.message : `HTTP ${response.status}`;
    throw new Error(`${path}: ${message}`);
  }
  return json;
}

// ---- inputs and the URL fragment ------------------------------------------

// The form's values, or null (with a message shown) when one is invalid.
function readInputs() {
  const count = (id, name) => {
    const value = Number($(id).value);
    if (!Number.isSafeInteger(value) || value < 1) {
      $('figures').dataset.state = 'error';
      showMessage(`${name}: expected a positive integer, got "${$(id).value}"`);
      return null;
    }
    return value;
  };
  // A Hugging Face name, when one is typed, instead of the roots' model.
  const model = $('hub-model').value.trim() || $('model').value;
  if (!model) return null;
  const maxTokens = count('max-tokens', 'context');
  const batch = count('batch', 'batch');
  if (maxTokens === null || batch === null) return null;
  return {
    model,
    max_tokens: maxTokens,
    batch,
    kv_cache_mode: $('kv-mode').value,
    memory_limit: $('memory-limit').value.trim(),
  };
}

// The inputs live in the fragment, so a view can be bookmarked or shared:
// #model=Qwen3-14B-MLX-4bit&max_tokens=32768&batch=1&kv=fp16&budget=16GiB
function writeFragment(inputs) {
  const params = new URLSearchParams({
    model: inputs.model,
    max_tokens: String(inputs.max_tokens),
    batch: String(inputs.batch),
    kv: inputs.kv_cache_mode,
  });
  if (inputs.memory_limit) params.set('budget', inputs.memory_limit);
  history.replaceState(null, '', `#${params}`);
}

function applyFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  const model = params.get('model');
  if (model && [...$('model').options].some((o) => o.value === model)) {
    $('model').value = model;
  } else if (model && !$('hub-model-field').hidden) {
    $('hub-model').value = model;
  }
  if (params.get('max_tokens')) $('max-tokens').value = params.get('max_tokens');
  if (params.get('batch')) $('batch').value = params.get('batch');
  if (KV_MODES.includes(params.get('kv'))) $('kv-mode').value = params.get('kv');
  if (params.get('budget')) $('memory-limit').value = params.get('budget');
}

// ---- figures --------------------------------------------------------------

function showMessage(text) {
  const message = $('message');
  message.textContent = text;
  message.hidden = false;
}

function hideMessage() {
  $('message').hidden = true;
}

function setBytes(id, bytes) {
  const element = $(id);
  element.textContent = formatGiB(bytes);
  element.title = formatExact(bytes);
  element.dataset.bytes = String(bytes);
}

function showFigures(report) {
  setBytes('fig-weights', report.weights_bytes);
  $('fig-weights-source').textContent = report.weights_source;
  setBytes('fig-kv', report.kv_bytes_total);
  const rate = report.kv_bytes_per_token ? report.kv_bytes_per_token[report.inputs.kv_cache_mode] : null;
  $('fig-kv-rate').textContent =
    rate ? `${(rate / 1024).toFixed(1)} KiB per token, ${report.inputs.kv_cache_mode}` : report.inputs.kv_cache_mode;
  setBytes('fig-headroom', report.headroom_bytes);
  const parts = [`allocator ${formatGiB(report.allocator_overhead_bytes)}`,
    `activation ${formatGiB(report.activation_bytes)}`];
  if (report.backend_inflight_bytes > 0) parts.push(`in-flight ${formatGiB(report.backend_inflight_bytes)}`);
  $('fig-headroom-parts').textContent = parts.join(' + ');
  $('fig-headroom-parts').title = parts.join(' + ');
  setBytes('fig-total', report.total_bytes);
  $('fig-total-share').textContent = report.budget_bytes > 0
    ? `${(100 * report.total_bytes / report.budget_bytes).toFixed(1)}% of the budget` : '';
  setBytes('fig-budget', report.budget_bytes);
  $('fig-budget-source').textContent = report.budget_source;

  const fits = $('fig-fits');
  fits.textContent = report.fits ? 'FITS' : 'DOES NOT FIT';
  fits.dataset.fits = String(report.fits);
  fits.parentElement.dataset.fits = String(report.fits);
  const margin = report.budget_bytes - report.total_bytes;
  $('fig-fits-margin').textContent =
    margin >= 0 ? `${formatGiB(margin)} to spare` : `${formatGiB(-margin)} over`;

  const detail = [`${report.model_type || 'unknown type'} (${report.family || 'unknown family'})`,
    report.kv_detail];
  for (const warning of report.warnings || []) detail.push(`warning: ${warning}`);
  $('detail').textContent = detail.filter(Boolean).join(' · ');
}

// ---- SVG helpers ----------------------------------------------------------

function svg(name, attributes = {}, text) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

function clear(element) {
  while (element.firstChild) element.removeChild(element.firstChild);
}

// A round step for about `ticks` divisions of [0, max]: 1, 2 or 5 times a
// power of ten, in GiB.
function niceGiBStep(maxBytes, ticks) {
  const raw = maxBytes / GIB / ticks;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power * GIB;
  return 10 * power * GIB;
}

// ---- the stacked bar ------------------------------------------------------

const SEGMENTS = [
  { key: 'weights', label: 'Weights', bytes: (r) => r.weights_bytes },
  { key: 'kv', label: 'KV cache', bytes: (r) => r.kv_bytes_total },
  { key: 'allocator', label: 'Allocator', bytes: (r) => r.allocator_overhead_bytes },
  { key: 'activation', label: 'Activation', bytes: (r) => r.activation_bytes },
  { key: 'inflight', label: 'In-flight', bytes: (r) => r.backend_inflight_bytes },
];

function drawBar(report) {
  const bar = $('bar');
  clear(bar);
  const left = 10;
  const width = 1180;
  const top = 26;
  const height = 42;
  const scale = Math.max(report.total_bytes, report.budget_bytes) * 1.04 || 1;
  const x = (bytes) => left + (width * bytes) / scale;

  let at = 0;
  let legendX = left;
  for (const segment of SEGMENTS) {
    const bytes = segment.bytes(report) || 0;
    if (bytes > 0) {
      const rect = svg('rect', {
        class: segment.key, x: x(at), y: top, width: Math.max(0.5, x(at + bytes) - x(at)), height,
        'data-testid': `bar-${segment.key}`, 'data-bytes': bytes,
      });
      rect.appendChild(svg('title', {}, `${segment.label}: ${formatGiB(bytes)} (${formatExact(bytes)})`));
      bar.appendChild(rect);
      const text = `${segment.label} ${formatGiB(bytes)}`;
      if (x(at + bytes) - x(at) > text.length * 7 + 12) {
        bar.appendChild(svg('text', { class: 'segment-label', x: x(at) + 8, y: top + height / 2 + 4 }, text));
      }
      // The legend names every segment present, wide or narrow.
      bar.appendChild(svg('rect', { class: segment.key, x: legendX, y: 96, width: 12, height: 12, rx: 2 }));
      const legend = svg('text', { x: legendX + 17, y: 106 }, text);
      bar.appendChild(legend);
      legendX += 17 + text.length * 7 + 24;
    }
    at += bytes;
  }

  const total = svg('text', { x: Math.min(x(report.total_bytes), left + width) - 4, y: top - 8, 'text-anchor': 'end' },
    `total ${formatGiB(report.total_bytes)}`);
  bar.appendChild(total);

  const bx = x(report.budget_bytes);
  bar.appendChild(svg('line', { class: 'budget-line', x1: bx, x2: bx, y1: top - 6, y2: top + height + 8,
    'data-testid': 'bar-budget', 'data-bytes': report.budget_bytes }));
  bar.appendChild(svg('text', { class: 'budget-label', x: bx, y: top + height + 20, 'text-anchor': bx > 1000 ? 'end' : 'middle' },
    `budget ${formatGiB(report.budget_bytes)}`));
}

// ---- the context curve ----------------------------------------------------

// The x-axis end: a multiple of a power-of-two step (in KV blocks) with
// about 8 steps up to it, at least 1.2 times the farthest point of interest.
function niceTokenMax(reach) {
  const target = Math.max(KV_BLOCK_TOKENS, reach * 1.2);
  let step = KV_BLOCK_TOKENS;
  while (target / step > 8) step *= 2;
  return { max: Math.ceil(target / step) * step, step };
}

// The contexts the curve is drawn at: evenly spaced from 1 to the axis end,
// each mode's largest fitting context and the next token (the step where
// it stops fitting), and the context asked.
function curveTokens(axisMax, maxTokens, fit) {
  const tokens = new Set([1, maxTokens]);
  for (let i = 1; i <= CURVE_POINTS; ++i) tokens.add(Math.round((i * axisMax) / CURVE_POINTS));
  for (const mode of fit.by_kv_mode) {
    if (mode.max_tokens !== null && !mode.capped && mode.max_tokens < axisMax) {
      tokens.add(mode.max_tokens);
      tokens.add(mode.max_tokens + 1);
    }
  }
  return [...tokens].filter((t) => t >= 1 && t <= axisMax).sort((a, b) => a - b);
}

function axisFor(inputs, fit) {
  const reachable = fit.by_kv_mode
    .filter((m) => m.max_tokens !== null && !m.capped)
    .map((m) => m.max_tokens);
  return niceTokenMax(Math.max(inputs.max_tokens, ...reachable));
}

function fitCaption(fit) {
  const caption = $('curve-caption');
  clear(caption);
  caption.append('largest context that fits: ');
  fit.by_kv_mode.forEach((mode, i) => {
    if (i > 0) caption.append(', ');
    const span = document.createElement('span');
    span.id = `fit-${mode.kv_cache_mode}`;
    span.dataset.testid = `fit-${mode.kv_cache_mode}`;
    span.dataset.maxTokens = mode.max_tokens === null ? '' : String(mode.max_tokens);
    span.textContent = mode.max_tokens === null ? `${mode.kv_cache_mode} nothing fits`
      : mode.capped ? `${mode.kv_cache_mode} any context`
      : `${mode.kv_cache_mode} ${formatTokens(mode.max_tokens)} tokens`;
    caption.appendChild(span);
  });
  caption.append(` (batch ${fit.batch})`);
}

function drawCurve(fit, report, inputs, axis) {
  const chart = $('curve');
  clear(chart);
  const box = { left: 78, right: 1180, top: 22, bottom: 340 };
  const curveMax = Math.max(...fit.by_kv_mode.flatMap((m) => m.curve.map((p) => p.total_bytes)));
  const yStep = niceGiBStep(Math.max(curveMax, fit.budget_bytes) * 1.05, 6);
  const yMax = Math.ceil((Math.max(curveMax, fit.budget_bytes) * 1.05) / yStep) * yStep;
  const x = (tokens) => box.left + ((box.right - box.left) * tokens) / axis.max;
  const y = (bytes) => box.bottom - ((box.bottom - box.top) * bytes) / yMax;

  // Grid and axes.
  for (let v = 0; v <= yMax + 1; v += yStep) {
    chart.appendChild(svg('line', { class: 'grid', x1: box.left, x2: box.right, y1: y(v), y2: y(v) }));
    const gib = v / GIB;
    chart.appendChild(svg('text', { class: 'muted', x: box.left - 8, y: y(v) + 4, 'text-anchor': 'end' },
      `${Number.isInteger(gib) ? gib : gib.toFixed(1)} GiB`));
  }
  for (let t = 0; t <= axis.max; t += axis.step) {
    chart.appendChild(svg('line', { class: 'axis', x1: x(t), x2: x(t), y1: box.bottom, y2: box.bottom + 5 }));
    chart.appendChild(svg('text', { class: 'muted', x: x(t), y: box.bottom + 19, 'text-anchor': 'middle' },
      formatTokensShort(t)));
  }
  chart.appendChild(svg('line', { class: 'axis', x1: box.left, x2: box.right, y1: box.bottom, y2: box.bottom }));
  chart.appendChild(svg('line', { class: 'axis', x1: box.left, x2: box.left, y1: box.top, y2: box.bottom }));
  chart.appendChild(svg('text', { class: 'muted', x: box.right, y: box.bottom + 36, 'text-anchor': 'end' },
    `context (tokens), batch ${fit.batch}`));

  // The budget.
  const by = y(fit.budget_bytes);
  chart.appendChild(svg('line', { class: 'budget-line', x1: box.left, x2: box.right, y1: by, y2: by,
    'data-testid': 'curve-budget', 'data-bytes': fit.budget_bytes }));
  chart.appendChild(svg('text', { class: 'budget-label', x: box.left + 8, y: by - 6 },
    `budget ${formatGiB(fit.budget_bytes)}`));

  // One series per KV mode.
  for (const mode of fit.by_kv_mode) {
    const points = mode.curve.map((p) => `${x(p.max_tokens).toFixed(1)},${y(p.total_bytes).toFixed(1)}`);
    chart.appendChild(svg('polyline', { class: `series ${mode.kv_cache_mode}`, points: points.join(' '),
      'data-testid': `curve-${mode.kv_cache_mode}`, 'data-points': mode.curve.length }));
  }

  // The largest context that fits, per mode. The marker exists even when
  // there is nothing to draw (nothing fits, or any context does).
  fit.by_kv_mode.forEach((mode, i) => {
    const marker = svg('g', { class: `fit-marker ${mode.kv_cache_mode}`,
      'data-testid': `fit-marker-${mode.kv_cache_mode}`, 'data-kv-mode': mode.kv_cache_mode,
      'data-max-tokens': mode.max_tokens === null ? '' : mode.max_tokens,
      'data-capped': mode.capped, 'data-total-bytes': mode.total_bytes === null ? '' : mode.total_bytes });
    if (mode.max_tokens !== null && !mode.capped && mode.max_tokens <= axis.max) {
      const mx = x(mode.max_tokens);
      const my = y(mode.total_bytes);
      marker.appendChild(svg('line', { x1: mx, x2: mx, y1: box.bottom, y2: my }));
      marker.appendChild(svg('circle', { cx: mx, cy: my, r: 4.5 }));
      const label = `${mode.kv_cache_mode} fits up to ${formatTokens(mode.max_tokens)}`;
      const right = mx + 8 + label.length * 7 < box.right;
      marker.appendChild(svg('text', { x: right ? mx + 8 : mx - 8, y: box.bottom - 12 - 18 * i,
        'text-anchor': right ? 'start' : 'end' }, label));
    }
    chart.appendChild(marker);
  });

  // The context asked, on its own mode's series.
  const current = svg('g', { class: 'current', 'data-testid': 'curve-current',
    'data-max-tokens': inputs.max_tokens, 'data-total-bytes': report.total_bytes });
  const cx = x(inputs.max_tokens);
  current.appendChild(svg('line', { x1: cx, x2: cx, y1: y(report.total_bytes) + 6, y2: box.bottom }));
  current.appendChild(svg('circle', { cx, cy: y(report.total_bytes), r: 4 }));
  current.appendChild(svg('text', { x: cx - 6, y: box.bottom - 48, 'text-anchor': 'end' },
    `asked ${formatTokens(inputs.max_tokens)}`));
  current.appendChild(svg('title', {}, `${formatTokens(inputs.max_tokens)} tokens, ${inputs.kv_cache_mode}: ${formatGiB(report.total_bytes)}`));
  chart.appendChild(current);

  // Legend, top left.
  fit.by_kv_mode.forEach((mode, i) => {
    const lx = box.left + 16 + i * 110;
    chart.appendChild(svg('rect', { class: `legend-swatch ${mode.kv_cache_mode}`, x: lx, y: box.top + 2, width: 18, height: 4 }));
    chart.appendChild(svg('text', { x: lx + 24, y: box.top + 8 }, `${mode.kv_cache_mode} KV`));
  });
}

// ---- updating -------------------------------------------------------------

let generation = 0;  // the newest update; an older answer is dropped

async function update() {
  const inputs = readInputs();
  if (inputs === null) return;
  const mine = ++generation;
  const figures = $('figures');
  figures.dataset.state = 'loading';
  writeFragment(inputs);
  const base = { model: inputs.model, batch: inputs.batch };
  if (inputs.memory_limit) base.memory_limit = inputs.memory_limit;
  try {
    const [report, limits] = await Promise.all([
      api('POST', '/v1/estimate', { ...base, max_tokens: inputs.max_tokens, kv_cache_mode: inputs.kv_cache_mode }),
      api('POST', '/v1/fit', base),
    ]);
    if (mine !== generation) return;
    if (report.engine !== 'mlxcel') {
      // A GGUF model named on the Hub: llama.cpp's profile, not drawn here.
      throw new Error(`${inputs.model}: priced by the ${report.engine} profile, which this page ` +
        'does not draw yet: ask /v1/estimate, or run memfit recommend-quant');
    }
    const axis = axisFor(inputs, limits);
    const fit = await api('POST', '/v1/fit', { ...base, curve_tokens: curveTokens(axis.max, inputs.max_tokens, limits) });
    if (mine !== generation) return;
    hideMessage();
    showFigures(report);
    drawBar(report);
    fitCaption(fit);
    drawCurve(fit, report, inputs, axis);
    Object.assign(figures.dataset, {
      model: inputs.model,
      maxTokens: String(inputs.max_tokens),
      batch: String(inputs.batch),
      kvMode: inputs.kv_cache_mode,
      memoryLimit: inputs.memory_limit,
      state: 'ready',
    });
  } catch (error) {
    if (mine !== generation) return;
    figures.dataset.state = 'error';
    showMessage(error.message);
  }
}

let timer = null;

function scheduleUpdate() {
  clearTimeout(timer);
  timer = setTimeout(update, DEBOUNCE_MS);
}

async function start() {
  const form = $('controls');
  form.addEventListener('submit', (event) => event.preventDefault());
  form.addEventListener('input', scheduleUpdate);
  form.addEventListener('change', () => {
    clearTimeout(timer);
    update();
  });
  let models;
  let allowHub = false;
  try {
    const answer = await api('GET', '/v1/models');
    // The page draws the mlxcel breakdown; GGUF models are priced by
    // llama.cpp's profile, which it does not draw yet (the API answers them).
    models = answer.models.filter((m) => m.format !== 'gguf');
    allowHub = answer.allow_hub === true;
  } catch (error) {
    showMessage(error.message);
    return;
  }
  const select = $('model');
  for (const model of models) {
    const option = document.createElement('option');
    option.value = model.name;
    option.textContent = model.name;
    option.title = `${model.root}/${model.name}`;
    select.appendChild(option);
  }
  $('hub-model-field').hidden = !allowHub;
  if (models.length === 0 && allowHub) {
    $('figures').dataset.state = 'empty';
    applyFragment();
    if ($('hub-model').value.trim()) {
      update();
    } else {
      showMessage('No model under the server\'s model roots: type a Hugging Face name.');
    }
    return;
  }
  if (models.length === 0) {
    $('figures').dataset.state = 'empty';
    showMessage('No model under the server\'s model roots: start it with memfit serve --model-root DIR.');
    return;
  }
  applyFragment();
  update();
}

start();
