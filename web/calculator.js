// The memfit calculator page: a form over the service's JSON API.
//
//   GET  /v1/models    fills the model list (with each model's weights;
//                      the entries the server leaves out, and why, listed
//                      apart); allow_hub shows the Hugging Face name field
//                      (the service runs with --allow-hub)
//   GET  /v1/engines   the engines and their request fields: the engine
//                      list, the inputs' labels (each field's flag, its
//                      help as the hint), the KV choices, and a form of
//                      each engine's own fields with their defaults (the
//                      ones marked gpu_setting beside the budget)
//   GET  /v1/hardware  the hardware picker: GPUs (one or more) or a Mac,
//                      sent as the request's gpu or mac field
//   POST /v1/estimate  the breakdown at the chosen engine, context, batch
//                      and KV mode, and the model's own context under that
//                      engine (context_limit_tokens), where the curve's
//                      "fits up to" stops
//   POST /v1/fit       mlxcel: the largest context that fits per KV mode,
//                      and the totals along the context axis (curve_tokens)
//
// The other engines (llama.cpp, mlx-lm, vLLM, SGLang, Ollama) are drawn from
// /v1/estimate alone:
// each cache type's largest fitting context by bisection (every term grows
// with the context, so "fits" is monotone), and the curve from estimates
// at evenly spaced contexts. ENGINES says, per engine the page can draw,
// which request fields the form's three inputs become, which parts of
// the answer are drawn and, for an engine that prices one model format
// only, which (SGLang: a config's safetensors; Ollama: a GGUF): the
// engine list offers it only for such a model. Everything else about a
// field comes from /v1/engines. Every engine's answer carries its speed
// (decode band, prefill), shown as one line under the verdict.
//
// Every figure shown is a number from those answers, formatted: bytes as
// GiB with 2 decimals in the text, exact in data-bytes and the title. The
// elements a test reads carry ids and data-testid; #figures says
// data-state="ready" once the figures match the inputs it also records
// (data-engine, data-model, data-max-tokens, data-batch, data-kv-mode,
// data-memory-limit, data-fields: the engine's own fields sent, as JSON,
// and data-machine: the gpu or mac fields sent, as JSON).
// The page opens on the model the URL fragment names, else the one last
// used (localStorage), else the smallest. The charts are drawn at the
// width they are shown at, so their text keeps its size on a phone, and
// every label is kept inside its chart.
// The page loads nothing from anywhere but its own server.
'use strict';

const GIB = 2 ** 30;
const SVG_NS = 'http://www.w3.org/2000/svg';
const CURVE_POINTS = 64;  // evenly spaced, plus the fit boundaries and the asked context
const ESTIMATED_CURVE_POINTS = 24;  // the same, for a curve drawn from /v1/estimate
const BISECT_CEILING = 1 << 20;  // tokens: past this, "any context" for a bisected curve
const ESTIMATE_CONCURRENCY = 6;  // the requests in flight at once
const KV_BLOCK_TOKENS = 256;  // the estimator's allocation block: the x axis steps in these
const DEBOUNCE_MS = 200;
const LAST_MODEL_KEY = 'memfit.calculator.model';  // localStorage: the model last priced

const $ = (id) => document.getElementById(id);

// ---- formatting -----------------------------------------------------------

// The report's speed as one line (docs/speed.md, "In the report"): the
// decode band at the start of the context, or why there is none; a model
// that decodes nothing (an embedding model) has its prefill alone.
function speedLine(speed) {
  if (!speed) return '';
  const p = speed.prefill_tokens_per_second;
  // Prefill is null where its compute device has no FP16 figure (a CPU).
  const prefill = p ? `prefill ${p.median.toFixed(0)} tok/s` : `prefill unknown: ${speed.prefill_unknown || ''}`;
  if (speed.no_decode) return `no decode (${speed.no_decode}), ${prefill}`;
  if (!speed.decode_tokens_per_second) return `speed unknown: ${speed.unknown || ''}`;
  const d = speed.decode_tokens_per_second.start;
  const engine = speed.engine_basis ? ` (${speed.engine_basis})` : '';
  return `decode ${d.median.toFixed(0)} tok/s (${d.low.toFixed(0)}-${d.high.toFixed(0)}), ${prefill}${engine}`;
}

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

// ---- engines --------------------------------------------------------------

const sum = (...values) => values.reduce((a, b) => a + (b || 0), 0);

// Per engine: the request fields the context, batch and KV inputs become
// (their labels are the fields' flags, their hints the fields' help), the
// words before the flags, the KV choices the curve draws (of the field's
// choices; mlx-lm's are its kv_bits widths), the request body the form's
// values become, the three figures before the total, and the bar's
// segments (which add up to the total: the last one takes what the named
// terms leave). `formats`, when given: the /v1/models formats ("config",
// "gguf") the engine prices; without it, every model.
const ENGINES = {
  mlxcel: {
    fields: { context: 'max_tokens', batch: 'batch', kv: 'kv_cache_mode' },
    words: { context: 'Context', batch: 'Batch' },
    axisLabel: (batch) => `context (tokens), batch ${batch}`,
    body: (inputs, tokens, kv) => ({ max_tokens: tokens, batch: inputs.batch, kv_cache_mode: kv }),
    figures: (r) => [
      { label: 'Weights', bytes: r.weights_bytes, note: r.weights_source },
      { label: 'KV cache', bytes: r.kv_bytes_total,
        note: r.kv_bytes_per_token ? `${(r.kv_bytes_per_token[r.inputs.kv_cache_mode] / 1024).toFixed(1)} KiB per token, ${r.inputs.kv_cache_mode}` : r.inputs.kv_cache_mode },
      { label: 'Headroom', bytes: r.headroom_bytes,
        note: [`allocator ${formatGiB(r.allocator_overhead_bytes)}`, `activation ${formatGiB(r.activation_bytes)}`,
          ...(r.backend_inflight_bytes > 0 ? [`in-flight ${formatGiB(r.backend_inflight_bytes)}`] : [])].join(' + ') },
    ],
    segments: (r) => [
      { key: 'weights', label: 'Weights', bytes: r.weights_bytes },
      { key: 'kv', label: 'KV cache', bytes: r.kv_bytes_total },
      { key: 'allocator', label: 'Allocator', bytes: r.allocator_overhead_bytes },
      { key: 'activation', label: 'Activation', bytes: r.activation_bytes },
      { key: 'inflight', label: 'In-flight', bytes: r.backend_inflight_bytes },
    ],
  },
  llamacpp: {
    fields: { context: 'ctx_size', batch: 'parallel', kv: 'cache_type_k' },
    words: { context: 'Context', batch: 'Slots' },
    axisLabel: (batch) => `--ctx-size (tokens, all slots), --parallel ${batch}`,
    kvDrawn: ['f16', 'q8_0', 'q4_0'],
    body: (inputs, tokens, kv) => ({ engine: 'llamacpp', ctx_size: tokens, parallel: inputs.batch,
      cache_type_k: kv, cache_type_v: kv }),
    figures: (r) => [
      { label: 'Model', bytes: r.llamacpp.model_bytes, note: `${r.llamacpp.figures.model_bytes}; ${r.weights_source}` },
      { label: 'Context', bytes: r.llamacpp.context_bytes,
        note: `KV ${formatGiB(r.llamacpp.context.kv_bytes)} + state ${formatGiB(r.llamacpp.context.recurrent_bytes)} + output ${formatGiB(r.llamacpp.context.output_bytes)}` },
      { label: 'Compute', bytes: r.total_bytes - r.llamacpp.model_bytes - r.llamacpp.context_bytes,
        note: `compute buffers (${r.llamacpp.figures.compute_bytes})` },
    ],
    segments: (r) => [
      { key: 'weights', label: 'Model', bytes: r.llamacpp.model_bytes },
      { key: 'kv', label: 'Context', bytes: r.llamacpp.context_bytes },
      { key: 'compute', label: 'Compute', bytes: r.total_bytes - r.llamacpp.model_bytes - r.llamacpp.context_bytes },
    ],
  },
  'mlx-lm': {
    fields: { context: 'prompt_tokens', batch: 'batch', kv: 'kv_bits', generate: 'max_tokens' },
    words: { context: 'Prompt', batch: 'Batch' },
    // The model's context holds the prompt and every generated token.
    contextCeiling: (limit, inputs) => Math.max(1, limit - inputs.gen_tokens),
    axisLabel: (batch) => `prompt (tokens), batch ${batch}`,
    kvModes: [['fp16', 'fp16'], ['8', '8-bit'], ['4', '4-bit']],
    body: (inputs, tokens, kv) => ({ engine: 'mlx-lm', prompt_tokens: tokens, max_tokens: inputs.gen_tokens,
      batch: inputs.batch, ...(kv === 'fp16' ? {} : { kv_bits: Number(kv) }) }),
    figures: (r) => [
      { label: 'Weights', bytes: r.mlxlm.weights_bytes, note: r.weights_source },
      { label: 'KV cache', bytes: r.mlxlm.kv_bytes + r.mlxlm.recurrent_bytes,
        note: `${formatTokens(r.mlxlm.kv_capacity_tokens)} tokens allocated` +
          (r.mlxlm.recurrent_bytes > 0 ? `, state ${formatGiB(r.mlxlm.recurrent_bytes)}` : '') },
      { label: 'Transient', bytes: r.total_bytes - r.mlxlm.weights_bytes - r.mlxlm.kv_bytes - r.mlxlm.recurrent_bytes,
        note: `peak in ${r.mlxlm.peak_phase.replace('_', ' ')} (modelled)` },
    ],
    segments: (r) => [
      { key: 'weights', label: 'Weights', bytes: r.mlxlm.weights_bytes },
      { key: 'kv', label: 'KV cache', bytes: r.mlxlm.kv_bytes },
      { key: 'recurrent', label: 'State', bytes: r.mlxlm.recurrent_bytes },
      { key: 'compute', label: 'Transient', bytes: r.total_bytes - sum(r.mlxlm.weights_bytes, r.mlxlm.kv_bytes, r.mlxlm.recurrent_bytes) },
    ],
  },
  vllm: {
    fields: { context: 'max_model_len', batch: 'max_num_seqs', kv: 'kv_cache_dtype' },
    words: { context: 'Context', batch: 'Sequences' },
    axisLabel: (batch) => `--max-model-len (tokens), --max-num-seqs ${batch}`,
    kvDrawn: ['auto', 'fp8'],
    body: (inputs, tokens, kv) => ({ engine: 'vllm', max_model_len: tokens, max_num_seqs: inputs.batch,
      kv_cache_dtype: kv }),
    figures: (r) => [
      { label: 'Weights', bytes: r.vllm.weights_bytes, note: `per rank, ${r.vllm.figures.weights_bytes}` },
      { label: 'KV cache', bytes: r.vllm.kv_cache_bytes,
        note: `${formatTokens(r.vllm.num_gpu_blocks)} blocks, ${formatTokens(r.vllm.kv_tokens)} tokens, ` +
          `${r.vllm.max_concurrency.toFixed(2)}x` },
      { label: 'Other', bytes: r.total_bytes - r.vllm.weights_bytes - r.vllm.kv_cache_bytes,
        note: `activation ${formatGiB(r.vllm.activation_bytes)} + non-torch ${formatGiB(r.vllm.non_torch_bytes)}` +
          ` + graphs ${formatGiB(r.vllm.cuda_graph_bytes)} (modelled)` },
    ],
    segments: (r) => [
      { key: 'weights', label: 'Weights', bytes: r.vllm.weights_bytes },
      { key: 'kv', label: 'KV cache', bytes: r.vllm.kv_cache_bytes },
      { key: 'compute', label: 'Other', bytes: r.total_bytes - r.vllm.weights_bytes - r.vllm.kv_cache_bytes },
    ],
  },
  // SGLang's report is flat: its pools are top-level fields
  // (docs/engine-sglang.md). The total is startup + weights + state pool +
  // KV pool + req_to_token + CUDA graphs + piecewise CUDA graphs + activation.
  sglang: {
    formats: ['config'],
    fields: { context: 'context_length', batch: 'max_running_requests', kv: 'sglang_kv_cache_dtype' },
    words: { context: 'Context', batch: 'Requests' },
    axisLabel: (batch) => `--context-length (tokens), ${batch} requests`,
    kvDrawn: ['auto', 'fp8_e4m3'],  // fp8_e5m2 is fp8_e4m3's size, bf16 auto's for a 16-bit model
    body: (inputs, tokens, kv) => ({ engine: 'sglang', context_length: tokens, max_running_requests: inputs.batch,
      sglang_kv_cache_dtype: kv }),
    figures: (r) => [
      { label: 'Weights', bytes: r.weights_bytes,
        note: `per rank of TP ${r.tensor_parallel}, ${r.weights_exact ? 'from the headers' : 'modelled'}` },
      { label: 'KV pool', bytes: r.kv_pool_bytes + r.mamba_pool_bytes,
        note: `${formatTokens(r.max_total_num_tokens)} tokens x ${formatTokens(r.kv_bytes_per_token)} B, ` +
          `--mem-fraction-static ${r.mem_fraction_static.toFixed(3)}` +
          (r.mamba_pool_bytes > 0 ? `, state ${formatGiB(r.mamba_pool_bytes)}` : '') },
      { label: 'Other', bytes: r.total_bytes - r.weights_bytes - r.kv_pool_bytes - r.mamba_pool_bytes,
        note: `startup ${formatGiB(r.startup_bytes)} + req_to_token ${formatGiB(r.req_to_token_bytes)}` +
          ` + graphs ${formatGiB(r.cuda_graph_bytes)}` +
          (r.piecewise_cuda_graph_bytes > 0 ? ` + piecewise graphs ${formatGiB(r.piecewise_cuda_graph_bytes)}` : '') +
          ` + activation ${formatGiB(r.activation_bytes)} (modelled)` },
    ],
    segments: (r) => [
      { key: 'weights', label: 'Weights', bytes: r.weights_bytes },
      { key: 'kv', label: 'KV pool', bytes: r.kv_pool_bytes },
      { key: 'recurrent', label: 'State pool', bytes: r.mamba_pool_bytes },
      { key: 'compute', label: 'Other', bytes: r.total_bytes - sum(r.weights_bytes, r.kv_pool_bytes, r.mamba_pool_bytes) },
    ],
  },
  // Ollama runs llama.cpp: its answer is llama.cpp's (the llamacpp object,
  // devices included) at the context, sequences and cache type Ollama
  // decides, and those decisions (the ollama object). num_ctx is per
  // sequence: the cache holds num_ctx x OLLAMA_NUM_PARALLEL cells.
  ollama: {
    formats: ['gguf'],
    fields: { context: 'num_ctx', batch: 'ollama_num_parallel', kv: 'ollama_kv_cache_type' },
    words: { context: 'Context', batch: 'Parallel' },
    axisLabel: (batch) => `num_ctx (tokens), OLLAMA_NUM_PARALLEL ${batch}`,
    body: (inputs, tokens, kv) => ({ engine: 'ollama', num_ctx: tokens, ollama_num_parallel: inputs.batch,
      ollama_kv_cache_type: kv }),
    figures: (r) => [
      { label: 'Model', bytes: r.llamacpp.model_bytes,
        note: `${r.ollama.gpu_layers} of ${r.ollama.total_layers} layers on the GPUs, runner ${r.ollama.runner}; ${r.weights_source}` },
      { label: 'Context', bytes: r.llamacpp.context_bytes,
        note: `${formatTokens(r.ollama.kv_cells)} cells of ${r.ollama.kv_cache_type} (flash attention ${r.ollama.flash_attention}): ` +
          `KV ${formatGiB(r.llamacpp.context.kv_bytes)} + state ${formatGiB(r.llamacpp.context.recurrent_bytes)} + output ${formatGiB(r.llamacpp.context.output_bytes)}` },
      { label: 'Compute', bytes: r.total_bytes - r.llamacpp.model_bytes - r.llamacpp.context_bytes,
        note: `compute buffers (${r.llamacpp.figures.compute_bytes}), num_batch ${r.ollama.num_batch}` },
    ],
    segments: (r) => [
      { key: 'weights', label: 'Model', bytes: r.llamacpp.model_bytes },
      { key: 'kv', label: 'Context', bytes: r.llamacpp.context_bytes },
      { key: 'compute', label: 'Compute', bytes: r.total_bytes - r.llamacpp.model_bytes - r.llamacpp.context_bytes },
    ],
  },
};

// Whether `name` prices a model of `format` (/v1/models' "config" or
// "gguf"; undefined for a typed Hugging Face name, which any engine may
// be asked for: the answer says when it cannot).
function engineTakes(name, format) {
  const formats = ENGINES[name].formats;
  return !formats || format === undefined || formats.includes(format);
}

// The format of the model the form prices: the list's model's, or
// undefined when a Hugging Face name is typed.
function pickedFormat() {
  if ($('hub-model').value.trim() !== '') return undefined;
  return $('model').selectedOptions[0]?.dataset.format;
}

// Offers each engine only for a model it prices (the others are listed,
// disabled, with why); an engine chosen that does not price the model
// gives way to the one the API would give it (llama.cpp for a GGUF
// model, else mlxcel).
function offerEngines() {
  const format = pickedFormat();
  for (const option of $('engine').options) {
    const takes = engineTakes(option.value, format);
    option.disabled = !takes;
    option.title = takes ? option.dataset.summary : `${option.value} prices ${ENGINES[option.value].formats
      .map((f) => (f === 'gguf' ? 'GGUF models' : 'safetensors models (a config.json)')).join(' or ')} only`;
  }
  if (!engineTakes($('engine').value, format)) {
    $('engine').value = format === 'gguf' ? 'llamacpp' : 'mlxcel';
    applyEngine($('engine').value);
  }
}

// What GET /v1/engines answered: per engine name, its own fields and the
// common ones, each {name, flags, help, unit, type, choices, default, ...}.
const CATALOG = new Map();

// `name`'s field called `field`: its own, else a common one.
function fieldOf(name, field) {
  return CATALOG.get(name)?.fields.find((f) => f.name === field) ?? null;
}

// A field's long flag ("--ctx-size"), as the CLI spells it.
function longFlag(field) {
  return field.flags.find((flag) => flag.startsWith('--')) || field.name;
}

// The KV choices of `name`, [value sent, label shown]: its KV field's
// choices that the curve draws, or the engine's own list.
function kvModesOf(name) {
  const engine = ENGINES[name];
  if (engine.kvModes) return engine.kvModes;
  const choices = fieldOf(name, engine.fields.kv)?.choices ?? [];
  return choices.filter((c) => !engine.kvDrawn || engine.kvDrawn.includes(c)).map((c) => [c, c]);
}

// The input's label, "<word> (<flag>)", with the field's help as its hint.
function labelInput(labelId, word, field) {
  const label = $(labelId);
  label.textContent = field ? `${word} (${longFlag(field)})` : word;
  label.parentElement.title = field ? field.help : '';
}

// One input for one of the engine's own fields: a choice is a list (its
// default first, sent only when another is picked), a switch a checkbox,
// the rest text whose placeholder is the default or an example. Empty:
// not sent.
function fieldInput(field) {
  const label = document.createElement('label');
  label.title = field.help;
  const flag = document.createElement('code');
  flag.textContent = longFlag(field);
  let input;
  if (field.type === 'choice') {
    input = document.createElement('select');
    for (const value of ['', ...field.choices]) {
      const option = document.createElement('option');
      option.value = value;
      option.textContent = value === '' ? `${field.default ?? 'none'} (default)` : value;
      input.appendChild(option);
    }
  } else {
    input = document.createElement('input');
    input.type = field.type === 'flag' ? 'checkbox' : 'text';
    input.placeholder = field.default ?? field.example ?? '';
    input.spellcheck = false;
  }
  input.dataset.field = field.name;
  input.dataset.type = field.type;
  input.dataset.testid = `field-${field.name}`;
  const help = document.createElement('small');
  help.textContent = field.help;
  label.append(flag, input, help);
  return label;
}

// The KV choices, the inputs' labels, the GPU fields and the form of the
// engine's other own fields for `name`, keeping the KV choice when the new
// engine has it.
function applyEngine(name) {
  const engine = ENGINES[name];
  const select = $('kv-mode');
  const keep = select.value;
  clear(select);
  const kvModes = kvModesOf(name);
  for (const [value, label] of kvModes) {
    const option = document.createElement('option');
    option.value = value;
    option.textContent = label;
    select.appendChild(option);
  }
  if (kvModes.some(([value]) => value === keep)) select.value = keep;
  labelInput('max-tokens-label', engine.words.context, fieldOf(name, engine.fields.context));
  labelInput('batch-label', engine.words.batch, fieldOf(name, engine.fields.batch));
  labelInput('memory-limit-label', 'Budget', fieldOf(name, 'memory_limit'));
  $('gen-tokens-field').hidden = name !== 'mlx-lm';
  // The engine's GPU settings (GET /v1/engines marks them gpu_setting:
  // offload, split, GPU memory) beside the budget; the rest folded away.
  const ownFields = CATALOG.get(name)?.own ?? [];
  const gpu = ownFields.filter((f) => f.gpu_setting);
  const gpuList = $('gpu-fields-list');
  clear(gpuList);
  for (const field of gpu) gpuList.appendChild(fieldInput(field));
  $('gpu-fields').hidden = gpu.length === 0;
  const list = $('engine-fields-list');
  clear(list);
  const drawn = Object.values(engine.fields);
  const own = ownFields.filter((f) => !f.gpu_setting && !drawn.includes(f.name));
  for (const field of own) list.appendChild(fieldInput(field));
  $('engine-fields').hidden = own.length === 0;
}

// The engine's own fields the form sets (its GPU fields and the others),
// as the request sends them.
function engineFieldValues() {
  const values = {};
  for (const input of $('controls').querySelectorAll('.field-list [data-field]')) {
    const type = input.dataset.type;
    if (type === 'flag') {
      if (input.checked) values[input.dataset.field] = true;
      continue;
    }
    const text = input.value.trim();
    if (text === '') continue;
    values[input.dataset.field] = type === 'count' || type === 'ratio' ? Number(text) : text;
  }
  return values;
}

// ---- the hardware picker --------------------------------------------------

// GET /v1/hardware's rows by id: {gpus: Map, macs: Map}.
const HARDWARE = { gpus: new Map(), macs: new Map() };
const MAX_GPUS = 16;

function option(value, text, title) {
  const element = document.createElement('option');
  element.value = value;
  element.textContent = text;
  if (title) element.title = title;
  return element;
}

// Fills the picker from GET /v1/hardware: each GPU with the memory its
// driver reports (a GPU whose memory the table does not give cannot be
// priced and is left out), grouped by vendor; each Mac with its memory.
// The field's help (GET /v1/engines, common fields gpu and mac) is the hint.
function applyHardwareTable(table, commonFields) {
  const gpus = $('hw-gpu');
  const macs = $('hw-mac');
  clear(gpus);
  clear(macs);
  const groups = new Map();
  for (const gpu of table.gpus.filter((g) => g.memory_bytes !== null)) {
    HARDWARE.gpus.set(gpu.id, gpu);
    if (!groups.has(gpu.vendor)) {
      const group = document.createElement('optgroup');
      group.label = gpu.vendor.toUpperCase();
      groups.set(gpu.vendor, group);
      gpus.appendChild(group);
    }
    groups.get(gpu.vendor).appendChild(option(gpu.id, `${gpu.name} · ${formatGiB(gpu.memory_bytes)}`,
      `${gpu.id}: ${formatExact(gpu.memory_bytes)} (${gpu.memory_basis})`));
  }
  for (const mac of table.macs) {
    HARDWARE.macs.set(mac.id, mac);
    macs.appendChild(option(mac.id, mac.name, `${mac.id}: ${formatExact(mac.ram_bytes)} unified, ` +
      `GPU wired limit ${formatGiB(mac.wired_limit_bytes)}`));
  }
  const help = (name) => commonFields.find((f) => f.name === name)?.help ?? '';
  $('hw-gpu-field').title = help('gpu');
  $('hw-mac-field').title = help('mac');
  $('hardware').hidden = HARDWARE.gpus.size === 0 && HARDWARE.macs.size === 0;
}

// Shows the picker's inputs for the kind chosen.
function showMachineKind() {
  const kind = $('machine-kind').value;
  $('hw-gpu-field').hidden = kind !== 'gpu';
  $('hw-gpu-count-field').hidden = kind !== 'gpu';
  $('hw-mac-field').hidden = kind !== 'mac';
}

// The machine fields the request sends: {gpu: [id, ...]} (one per device),
// {mac: id}, or {} for the server's own machine; null (with a message)
// when the GPU count is not 1 to MAX_GPUS.
function readMachine() {
  const kind = $('machine-kind').value;
  if (kind === 'mac' && $('hw-mac').value) return { mac: $('hw-mac').value };
  if (kind !== 'gpu' || !$('hw-gpu').value) return {};
  const count = Number($('hw-gpu-count').value);
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_GPUS) {
    showMessage(`GPUs: expected 1 to ${MAX_GPUS}, got "${$('hw-gpu-count').value}"`);
    return null;
  }
  return { gpu: Array(count).fill($('hw-gpu').value) };
}

// What the machine chosen is, in words, under the picker.
function describeMachine(machine) {
  const note = $('hw-note');
  if (machine.gpu) {
    const gpu = HARDWARE.gpus.get(machine.gpu[0]);
    note.textContent = `${machine.gpu.length} x ${gpu.name}, ${formatExact(gpu.memory_bytes)} each as the ` +
      `driver reports it; request field gpu: ${JSON.stringify(machine.gpu)}`;
  } else if (machine.mac) {
    const mac = HARDWARE.macs.get(machine.mac);
    note.textContent = `${mac.name}: ${formatGiB(mac.ram_bytes)} unified, macOS reserve ` +
      `${formatGiB(mac.reserve_bytes)}, GPU wired limit ${formatGiB(mac.wired_limit_bytes)}; request field mac`;
  } else {
    note.textContent = '';
  }
}

// Reads GET /v1/engines: the engine list (the engines this page draws),
// and each one's fields.
function applyCatalog(answer) {
  const select = $('engine');
  clear(select);
  for (const engine of answer.engines) {
    if (!Object.hasOwn(ENGINES, engine.name)) continue;  // the page cannot draw it
    CATALOG.set(engine.name, { own: engine.fields, fields: [...engine.fields, ...answer.common_fields] });
    const option = document.createElement('option');
    option.value = engine.name;
    option.textContent = engine.name;
    option.title = engine.summary;
    option.dataset.summary = engine.summary;
    select.appendChild(option);
  }
  CATALOG.set('', { own: [], fields: answer.common_fields });
  const mlxcel = CATALOG.get('mlxcel');
  if (mlxcel) {
    $('max-tokens').value = fieldOf('mlxcel', 'max_tokens')?.default ?? $('max-tokens').value;
    $('batch').value = fieldOf('mlxcel', 'batch')?.default ?? $('batch').value;
  }
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
  const engine = $('engine').value;
  const maxTokens = count('max-tokens', 'context');
  const batch = count('batch', 'batch');
  const genTokens = engine === 'mlx-lm' ? count('gen-tokens', 'generate') : 128;
  if (maxTokens === null || batch === null || genTokens === null) return null;
  const machine = readMachine();
  if (machine === null) {
    $('figures').dataset.state = 'error';
    return null;
  }
  return {
    engine,
    model,
    max_tokens: maxTokens,
    batch,
    gen_tokens: genTokens,
    kv_cache_mode: $('kv-mode').value,
    memory_limit: $('memory-limit').value.trim(),
    fields: engineFieldValues(),
    machine,
  };
}

// The inputs live in the fragment, so a view can be bookmarked or shared:
// #engine=mlxcel&model=Qwen3-14B-MLX-4bit&max_tokens=32768&batch=1&kv=fp16&budget=16GiB
function writeFragment(inputs) {
  const params = new URLSearchParams({
    engine: inputs.engine,
    model: inputs.model,
    max_tokens: String(inputs.max_tokens),
    batch: String(inputs.batch),
    kv: inputs.kv_cache_mode,
  });
  if (inputs.engine === 'mlx-lm') params.set('gen', String(inputs.gen_tokens));
  if (inputs.memory_limit) params.set('budget', inputs.memory_limit);
  if (inputs.machine.gpu) params.set('gpu', `${inputs.machine.gpu[0]}*${inputs.machine.gpu.length}`);
  if (inputs.machine.mac) params.set('mac', inputs.machine.mac);
  history.replaceState(null, '', `#${params}`);
}

function applyFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (Object.hasOwn(ENGINES, params.get('engine') || '')) {
    $('engine').value = params.get('engine');
    applyEngine($('engine').value);
  }
  const model = params.get('model');
  if (model && [...$('model').options].some((o) => !o.disabled && o.value === model)) {
    $('model').value = model;
    $('hub-model').value = '';
  } else if (model && !$('hub-model-field').hidden) {
    $('hub-model').value = model;
  }
  if (params.get('max_tokens')) $('max-tokens').value = params.get('max_tokens');
  if (params.get('batch')) $('batch').value = params.get('batch');
  if ([...$('kv-mode').options].some((o) => o.value === params.get('kv'))) $('kv-mode').value = params.get('kv');
  if (params.get('gen')) $('gen-tokens').value = params.get('gen');
  if (params.get('budget')) $('memory-limit').value = params.get('budget');
  // gpu=h100-80gb-sxm*2, mac=m4-max-128gb
  const [gpu, count] = (params.get('gpu') || '').split('*');
  if (HARDWARE.gpus.has(gpu)) {
    $('machine-kind').value = 'gpu';
    $('hw-gpu').value = gpu;
    $('hw-gpu-count').value = count || '1';
  } else if (HARDWARE.macs.has(params.get('mac'))) {
    $('machine-kind').value = 'mac';
    $('hw-mac').value = params.get('mac');
  }
  showMachineKind();
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
  const parts = ENGINES[report.engine].figures(report);
  ['fig-weights', 'fig-kv', 'fig-headroom'].forEach((id, k) => {
    $(`${id}-label`).textContent = parts[k].label;
    setBytes(id, parts[k].bytes);
  });
  $('fig-weights-source').textContent = parts[0].note;
  $('fig-kv-rate').textContent = parts[1].note;
  $('fig-headroom-parts').textContent = parts[2].note;
  $('fig-headroom-parts').title = parts[2].note;
  setBytes('fig-total', report.total_bytes);
  $('fig-total-share').textContent = report.budget_bytes > 0
    ? `${(100 * report.total_bytes / report.budget_bytes).toFixed(1)}% of the budget` : '';
  setBytes('fig-budget', report.budget_bytes);
  $('fig-budget-source').textContent = report.budget_source;

  const fits = $('fig-fits');
  fits.textContent = report.fits ? 'FITS' : 'DOES NOT FIT';
  fits.dataset.fits = String(report.fits);
  fits.parentElement.dataset.fits = String(report.fits);
  // Within the budget yet not fitting: a device is short (llama.cpp's GPU),
  // or the engine refuses for a reason of its own (the warnings say).
  const margin = report.budget_bytes - report.total_bytes;
  const short = gpuDevices(report).filter((d) => !d.fits);
  $('fig-fits-margin').textContent = report.fits || margin < 0
    ? (margin >= 0 ? `${formatGiB(margin)} to spare` : `${formatGiB(-margin)} over`)
    : short.length > 0 ? short.map((d) => `${d.device} short by ${formatGiB(d.short_bytes)}`).join(', ')
    : `within the budget; refused by ${report.engine}`;

  $('fig-speed').textContent = speedLine(report.speed);

  $('detail-model').textContent = [`${report.model_type || 'unknown type'} (${report.family || 'unknown family'})`,
    report.kv_detail].filter(Boolean).join(' · ');
  // The warnings under their own heading (the list's ::before): a warning
  // that shouts its own "WARNING:" says it once.
  const warnings = $('warnings');
  clear(warnings);
  for (const warning of report.warnings || []) {
    const item = document.createElement('li');
    item.textContent = warning.replace(/^warning:\s*/i, '');
    warnings.appendChild(item);
  }
  showDevices(report);
}

// llama.cpp's devices (Ollama's runner's too) when one is a GPU (GPU
// memory given, or this machine's GPUs): every device, the host included;
// else none.
function gpuDevices(report) {
  const devices = report.engine === 'llamacpp' || report.engine === 'ollama' ? report.llamacpp.devices : [];
  return devices.some((d) => d.device !== 'cpu') ? devices : [];
}

// What each device holds against what it can give (-ngl's layers placed).
function showDevices(report) {
  const devices = gpuDevices(report);
  const list = $('devices-list');
  clear(list);
  $('devices').hidden = devices.length === 0;
  if (devices.length === 0) return;
  const blocks = devices.reduce((n, d) => n + d.blocks, 0);
  const onGpus = devices.filter((d) => d.device !== 'cpu')
    .reduce((n, d) => n + d.blocks + (d.output_layer ? 1 : 0), 0);
  $('devices-caption').textContent = `-ngl ${onGpus} of ${blocks + 1} (blocks + the output layer)`;
  for (const d of devices) {
    const item = document.createElement('li');
    Object.assign(item.dataset, { testid: `device-${d.device}`, device: d.device, totalBytes: String(d.total_bytes),
      usableBytes: String(d.usable_bytes), fits: String(d.fits), blocks: String(d.blocks) });
    const name = document.createElement('strong');
    name.textContent = d.name ? `${d.device} ${d.name}` : d.device;
    const verdict = document.createElement('span');
    verdict.className = 'verdict';
    verdict.textContent = d.fits ? 'fits' : `short by ${formatGiB(d.short_bytes)}`;
    item.append(name, ` ${d.blocks} blocks${d.output_layer ? ' + output' : ''} · ` +
      `${formatGiB(d.total_bytes)} of ${formatGiB(d.usable_bytes)} usable · `, verdict);
    item.title = `model ${formatGiB(d.model_bytes)} + context ${formatGiB(d.context_bytes)} + ` +
      `compute ${formatGiB(d.compute_bytes)}` + (d.extras_bytes > 0 ? ` + extras ${formatGiB(d.extras_bytes)}` : '');
    list.appendChild(item);
  }
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

// The width a chart is shown at, in CSS pixels: it is drawn in those
// units, so its text is the page's size at any width.
function chartWidth(chart) {
  return Math.max(300, Math.round(chart.getBoundingClientRect().width) || 1200);
}

// Moves each text of `chart` that reaches past its edges back inside.
function keepInside(chart, width) {
  for (const text of chart.querySelectorAll('text')) {
    const box = text.getBBox();
    let dx = 0;
    if (box.x < 2) dx = 2 - box.x;
    else if (box.x + box.width > width - 2) dx = width - 2 - box.x - box.width;
    if (dx !== 0) text.setAttribute('x', String(Number(text.getAttribute('x')) + dx));
  }
}

const MIB = 2 ** 20;

// A round step for about `ticks` divisions of [0, max]: 1, 2 or 5 times a
// power of ten, in GiB; in MiB when a step of GiB would be under 0.1 (a
// model of a few MiB, as the test GGUFs are). {step: bytes, unit, name}.
function niceBytesStep(maxBytes, ticks) {
  const [unit, name] = maxBytes / GIB / ticks >= 0.1 ? [GIB, 'GiB'] : [MIB, 'MiB'];
  const raw = maxBytes / unit / ticks;
  const power = 10 ** Math.floor(Math.log10(raw));
  const m = [1, 2, 5, 10].find((k) => k * power >= raw) ?? 10;
  return { step: m * power * unit, unit, name };
}

// A y-axis tick of `bytes` on an axis of niceBytesStep's `scale`: whole
// units bare, else as many decimals as the step has.
function axisBytes(bytes, scale) {
  const value = bytes / scale.unit;
  const decimals = Math.max(1, -Math.floor(Math.log10(scale.step / scale.unit) + 1e-9));
  return `${Number.isInteger(value) ? value : value.toFixed(decimals)} ${scale.name}`;
}

// ---- the stacked bar ------------------------------------------------------

function drawBar(report) {
  const bar = $('bar');
  clear(bar);
  const W = chartWidth(bar);
  const left = 10;
  const width = W - 20;
  const top = 26;
  const height = 42;
  const scale = Math.max(report.total_bytes, report.budget_bytes) * 1.04 || 1;
  const x = (bytes) => left + (width * bytes) / scale;

  let at = 0;
  const legend = [];
  for (const segment of ENGINES[report.engine].segments(report)) {
    const bytes = segment.bytes || 0;
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
      legend.push({ key: segment.key, text });
    }
    at += bytes;
  }

  bar.appendChild(svg('text', { x: Math.min(x(report.total_bytes), left + width) - 4, y: top - 8, 'text-anchor': 'end' },
    `total ${formatGiB(report.total_bytes)}`));

  const bx = x(report.budget_bytes);
  bar.appendChild(svg('line', { class: 'budget-line', x1: bx, x2: bx, y1: top - 6, y2: top + height + 8,
    'data-testid': 'bar-budget', 'data-bytes': report.budget_bytes }));
  // Centred under its line, kept inside the chart (keepInside) when the
  // line is near an edge: a budget far below the total sits at the left.
  bar.appendChild(svg('text', { class: 'budget-label', x: bx, y: top + height + 20, 'text-anchor': 'middle',
    'data-testid': 'bar-budget-label' }, `budget ${formatGiB(report.budget_bytes)}`));

  // The legend names every segment present, wide or narrow, in as many
  // rows as the width needs.
  let lx = left;
  let ly = 106;
  for (const item of legend) {
    const swatch = svg('rect', { class: item.key, x: lx, y: ly - 10, width: 12, height: 12, rx: 2 });
    const label = svg('text', { x: lx + 17, y: ly }, item.text);
    bar.append(swatch, label);
    const itemWidth = 17 + label.getComputedTextLength();
    if (lx > left && lx + itemWidth > left + width) {
      lx = left;
      ly += 20;
      swatch.setAttribute('x', lx);
      swatch.setAttribute('y', ly - 10);
      label.setAttribute('x', lx + 17);
      label.setAttribute('y', ly);
    }
    lx += itemWidth + 24;
  }
  bar.setAttribute('viewBox', `0 0 ${W} ${ly + 8}`);
  keepInside(bar, W);
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
function curveTokens(axisMax, maxTokens, fit, points) {
  const tokens = new Set([1, maxTokens]);
  for (let i = 1; i <= points; ++i) tokens.add(Math.round((i * axisMax) / points));
  for (const mode of fit.by_kv_mode) {
    if (mode.max_tokens !== null && !mode.capped && mode.max_tokens < axisMax) {
      tokens.add(mode.max_tokens);
      tokens.add(mode.max_tokens + 1);
    }
    if (mode.limited) tokens.add(mode.max_tokens);  // the model's limit: drawn, not passed
  }
  return [...tokens].filter((t) => t >= 1 && t <= axisMax).sort((a, b) => a - b);
}

function axisFor(inputs, fit) {
  const reachable = fit.by_kv_mode
    .filter((m) => m.max_tokens !== null && (!m.capped || m.limited))
    .map((m) => m.max_tokens);
  return niceTokenMax(Math.max(inputs.max_tokens, ...reachable));
}

// The KV choice's label under `engine` ("8-bit" for mlx-lm's 8).
function kvLabel(engine, value) {
  const found = kvModesOf(engine).find(([v]) => v === value);
  return found ? found[1] : value;
}

function fitCaption(fit, engine) {
  const caption = $('curve-caption');
  clear(caption);
  caption.append(engine === 'mlxcel' ? 'largest context that fits: ' : 'fits up to: ');
  fit.by_kv_mode.forEach((mode, i) => {
    if (i > 0) caption.append(', ');
    const span = document.createElement('span');
    span.id = `fit-${mode.kv_cache_mode}`;
    span.dataset.testid = `fit-${mode.kv_cache_mode}`;
    span.dataset.maxTokens = mode.max_tokens === null ? '' : String(mode.max_tokens);
    span.dataset.limited = String(mode.limited === true);
    const label = kvLabel(engine, mode.kv_cache_mode);
    if (mode.refused) span.title = mode.refused;
    if (mode.limited) span.title = 'the model\'s own context (context_limit_tokens): more would fit the budget';
    span.textContent = mode.refused ? `${label} not run by this engine`
      : mode.max_tokens === null ? `${label} nothing fits`
      : mode.limited ? `${label} ${formatTokens(mode.max_tokens)} tokens (the model's limit)`
      : mode.capped ? `${label} any context`
      : `${label} ${formatTokens(mode.max_tokens)} tokens`;
    caption.appendChild(span);
  });
  caption.append(` (${ENGINES[engine].words.batch.toLowerCase()} ${fit.batch})`);
}

function drawCurve(fit, report, inputs, axis) {
  const chart = $('curve');
  clear(chart);
  const W = chartWidth(chart);
  chart.setAttribute('viewBox', `0 0 ${W} 380`);
  const box = { left: 78, right: W - 20, top: 22, bottom: 340 };
  const curveMax = Math.max(...fit.by_kv_mode.flatMap((m) => m.curve.map((p) => p.total_bytes)));
  const yScale = niceBytesStep(Math.max(curveMax, fit.budget_bytes) * 1.05, 6);
  const yStep = yScale.step;
  const yMax = Math.ceil((Math.max(curveMax, fit.budget_bytes) * 1.05) / yStep) * yStep;
  const x = (tokens) => box.left + ((box.right - box.left) * tokens) / axis.max;
  const y = (bytes) => box.bottom - ((box.bottom - box.top) * bytes) / yMax;

  // Grid and axes.
  for (let v = 0; v <= yMax + 1; v += yStep) {
    chart.appendChild(svg('line', { class: 'grid', x1: box.left, x2: box.right, y1: y(v), y2: y(v) }));
    chart.appendChild(svg('text', { class: 'muted', x: box.left - 8, y: y(v) + 4, 'text-anchor': 'end' },
      axisBytes(v, yScale)));
  }
  for (let t = 0; t <= axis.max; t += axis.step) {
    chart.appendChild(svg('line', { class: 'axis', x1: x(t), x2: x(t), y1: box.bottom, y2: box.bottom + 5 }));
    chart.appendChild(svg('text', { class: 'muted', x: x(t), y: box.bottom + 19, 'text-anchor': 'middle' },
      formatTokensShort(t)));
  }
  chart.appendChild(svg('line', { class: 'axis', x1: box.left, x2: box.right, y1: box.bottom, y2: box.bottom }));
  chart.appendChild(svg('line', { class: 'axis', x1: box.left, x2: box.left, y1: box.top, y2: box.bottom }));
  chart.appendChild(svg('text', { class: 'muted', x: box.right, y: box.bottom + 36, 'text-anchor': 'end' },
    ENGINES[inputs.engine].axisLabel(fit.batch)));

  // The budget.
  const by = y(fit.budget_bytes);
  chart.appendChild(svg('line', { class: 'budget-line', x1: box.left, x2: box.right, y1: by, y2: by,
    'data-testid': 'curve-budget', 'data-bytes': fit.budget_bytes }));
  chart.appendChild(svg('text', { class: 'budget-label', x: box.left + 8, y: by - 6 },
    `budget ${formatGiB(fit.budget_bytes)}`));

  // One series per KV mode.
  fit.by_kv_mode.forEach((mode, i) => {
    const points = mode.curve.map((p) => `${x(p.max_tokens).toFixed(1)},${y(p.total_bytes).toFixed(1)}`);
    chart.appendChild(svg('polyline', { class: `series s${i}`, points: points.join(' '),
      'data-testid': `curve-${mode.kv_cache_mode}`, 'data-points': mode.curve.length }));
  });

  // The largest context that fits, per mode. The marker exists even when
  // there is nothing to draw (nothing fits, or any context does).
  fit.by_kv_mode.forEach((mode, i) => {
    const marker = svg('g', { class: `fit-marker s${i}`,
      'data-testid': `fit-marker-${mode.kv_cache_mode}`, 'data-kv-mode': mode.kv_cache_mode,
      'data-max-tokens': mode.max_tokens === null ? '' : mode.max_tokens,
      'data-capped': mode.capped, 'data-limited': mode.limited === true,
      'data-total-bytes': mode.total_bytes === null ? '' : mode.total_bytes });
    chart.appendChild(marker);  // in the page first: its label is measured
    if (mode.max_tokens !== null && (!mode.capped || mode.limited) && mode.total_bytes !== null &&
        mode.max_tokens <= axis.max) {
      const mx = x(mode.max_tokens);
      const my = y(mode.total_bytes);
      marker.appendChild(svg('line', { x1: mx, x2: mx, y1: box.bottom, y2: my }));
      marker.appendChild(svg('circle', { cx: mx, cy: my, r: 4.5 }));
      const label = svg('text', { x: mx + 8, y: box.bottom - 12 - 18 * i },
        `${kvLabel(inputs.engine, mode.kv_cache_mode)} fits up to ${formatTokens(mode.max_tokens)}` +
        (mode.limited ? ' (the model\'s limit)' : ''));
      marker.appendChild(label);
      // Right of its line when there is room, else left of it.
      if (mx + 8 + label.getComputedTextLength() > box.right) {
        label.setAttribute('x', mx - 8);
        label.setAttribute('text-anchor', 'end');
      }
    }
  });

  // The context asked, on its own mode's series.
  const current = svg('g', { class: 'current', 'data-testid': 'curve-current',
    'data-max-tokens': inputs.max_tokens, 'data-total-bytes': report.total_bytes });
  const cx = x(inputs.max_tokens);
  current.appendChild(svg('line', { x1: cx, x2: cx, y1: y(report.total_bytes) + 6, y2: box.bottom }));
  current.appendChild(svg('circle', { cx, cy: y(report.total_bytes), r: 4 }));
  // Above and left of its point, clear of the fit markers' labels along
  // the bottom.
  current.appendChild(svg('text', { x: cx - 6, y: y(report.total_bytes) - 10, 'text-anchor': 'end' },
    `asked ${formatTokens(inputs.max_tokens)}`));
  current.appendChild(svg('title', {}, `${formatTokens(inputs.max_tokens)} tokens, ` +
    `${kvLabel(inputs.engine, inputs.kv_cache_mode)}: ${formatGiB(report.total_bytes)}`));
  chart.appendChild(current);

  // Legend, top left, each entry after the last.
  let lx = box.left + 16;
  fit.by_kv_mode.forEach((mode, i) => {
    chart.appendChild(svg('rect', { class: `legend-swatch s${i}`, x: lx, y: box.top + 2, width: 18, height: 4 }));
    const label = svg('text', { x: lx + 24, y: box.top + 8 }, `${kvLabel(inputs.engine, mode.kv_cache_mode)} KV`);
    chart.appendChild(label);
    lx += 24 + label.getComputedTextLength() + 20;
  });
  keepInside(chart, W);
}

// ---- updating -------------------------------------------------------------

// Runs the functions in `tasks` (each returning a promise), at most
// `limit` at once; their answers in order.
async function inBatches(tasks, limit) {
  const answers = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const k = next++;
      answers[k] = await tasks[k]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return answers;
}

// The largest context the curve's "fits up to" may reach: the model's own
// context as the service states it under this engine
// (context_limit_tokens; mlx-lm's prompt leaves room for the generated
// tokens), else BISECT_CEILING. {tokens, limited}.
function contextCeiling(inputs, report) {
  const limit = report.context_limit_tokens;
  if (!limit) return { tokens: BISECT_CEILING, limited: false };
  const engine = ENGINES[inputs.engine];
  const tokens = engine.contextCeiling ? engine.contextCeiling(limit, inputs) : limit;
  return { tokens: Math.min(tokens, BISECT_CEILING), limited: true };
}

// /v1/fit's answer held to the model's own context: a KV mode that fits
// past it (or any context) fits "up to the model's limit", drawn there,
// its total the curve's point at it when the curve has one.
function capAtModelLimit(fit, ceiling) {
  if (!ceiling.limited) return fit;
  for (const mode of fit.by_kv_mode) {
    if (mode.max_tokens === null || (!mode.capped && mode.max_tokens <= ceiling.tokens)) continue;
    const point = (mode.curve || []).find((p) => p.max_tokens === ceiling.tokens);
    Object.assign(mode, { max_tokens: ceiling.tokens, capped: true, limited: true,
      total_bytes: point ? point.total_bytes : null });
  }
  return fit;
}

// For an engine /v1/fit does not solve: /v1/fit's answer shape, from
// estimates. Each KV choice's boundary is found by bisection over
// [1, the context ceiling] (the context below it fits, the one above does
// not), then the totals at the curve's contexts.
async function estimatedFit(inputs, base, report) {
  const engine = ENGINES[inputs.engine];
  const ceiling = contextCeiling(inputs, report);
  const at = (tokens, kv) => api('POST', '/v1/estimate', { ...base, ...engine.body(inputs, tokens, kv) });
  const bounds = await Promise.all(kvModesOf(inputs.engine).map(async ([kv]) => {
    // A KV choice the engine refuses for this model (mlx-lm cannot
    // quantize a rotating or MLA cache) is shown as refused, not as an
    // error of the whole page; the asked choice's refusal is the report's.
    let first;
    try {
      first = await at(1, kv);
    } catch (error) {
      return { kv_cache_mode: kv, max_tokens: null, capped: false, total_bytes: null, refused: error.message };
    }
    if (!first.fits) return { kv_cache_mode: kv, max_tokens: null, capped: false, total_bytes: null };
    const top = await at(ceiling.tokens, kv);
    if (top.fits) {
      return { kv_cache_mode: kv, max_tokens: ceiling.tokens, capped: true, limited: ceiling.limited,
        total_bytes: top.total_bytes };
    }
    let lo = 1;
    let loTotal = first.total_bytes;
    let hi = ceiling.tokens;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const r = await at(mid, kv);
      if (r.fits) {
        lo = mid;
        loTotal = r.total_bytes;
      } else {
        hi = mid;
      }
    }
    return { kv_cache_mode: kv, max_tokens: lo, capped: false, total_bytes: loTotal };
  }));
  const fit = { batch: inputs.batch, budget_bytes: report.budget_bytes, by_kv_mode: bounds };
  const axis = axisFor(inputs, fit);
  // Not past the model's limit: vLLM refuses a longer --max-model-len.
  const tokens = curveTokens(axis.max, inputs.max_tokens, fit, ESTIMATED_CURVE_POINTS)
    .filter((t) => t <= ceiling.tokens || t === inputs.max_tokens);
  const drawn = bounds.filter((mode) => !mode.refused);
  const tasks = drawn.flatMap((mode) => tokens.map((t) => () => at(t, mode.kv_cache_mode)));
  const totals = await inBatches(tasks, ESTIMATE_CONCURRENCY);
  bounds.forEach((mode) => { mode.curve = []; });
  drawn.forEach((mode, m) => {
    mode.curve = tokens.map((t, k) => {
      const r = totals[m * tokens.length + k];
      return { max_tokens: t, total_bytes: r.total_bytes, fits: r.fits };
    });
  });
  return { fit, axis };
}

let generation = 0;  // the newest update; an older answer is dropped
let drawn = null;  // what the charts show, redrawn at a new width

function drawCharts() {
  if (drawn === null) return;
  drawBar(drawn.report);
  drawCurve(drawn.fit, drawn.report, drawn.inputs, drawn.axis);
}

// The model priced last, to open on next time (nothing when the browser
// keeps no storage for the page).
function rememberModel(inputs) {
  try {
    localStorage.setItem(LAST_MODEL_KEY, JSON.stringify({ model: inputs.model, hub: $('hub-model').value.trim() !== '' }));
  } catch {
    // storage refused: the page opens on the smallest model next time
  }
}

function lastModel() {
  try {
    const last = JSON.parse(localStorage.getItem(LAST_MODEL_KEY) || 'null');
    return last && typeof last.model === 'string' ? last : null;
  } catch {
    return null;
  }
}

async function update() {
  const inputs = readInputs();
  if (inputs === null) return;
  const mine = ++generation;
  const figures = $('figures');
  figures.dataset.state = 'loading';
  writeFragment(inputs);
  const base = { model: inputs.model, ...inputs.machine, ...inputs.fields };
  if (inputs.memory_limit) base.memory_limit = inputs.memory_limit;
  describeMachine(inputs.machine);
  const engine = ENGINES[inputs.engine];
  try {
    const report = await api('POST', '/v1/estimate',
      { ...base, ...engine.body(inputs, inputs.max_tokens, inputs.kv_cache_mode) });
    if (mine !== generation) return;
    let fit;
    let axis;
    if (inputs.engine === 'mlxcel') {
      const solveBase = { ...base, batch: inputs.batch };
      const ceiling = contextCeiling(inputs, report);
      const limits = capAtModelLimit(await api('POST', '/v1/fit', solveBase), ceiling);
      if (mine !== generation) return;
      axis = axisFor(inputs, limits);
      fit = capAtModelLimit(await api('POST', '/v1/fit',
        { ...solveBase, curve_tokens: curveTokens(axis.max, inputs.max_tokens, limits, CURVE_POINTS) }), ceiling);
    } else {
      ({ fit, axis } = await estimatedFit(inputs, base, report));
    }
    if (mine !== generation) return;
    hideMessage();
    showFigures(report);
    fitCaption(fit, inputs.engine);
    drawn = { fit, report, inputs, axis };
    drawCharts();
    rememberModel(inputs);
    Object.assign(figures.dataset, {
      engine: inputs.engine,
      model: inputs.model,
      maxTokens: String(inputs.max_tokens),
      batch: String(inputs.batch),
      kvMode: inputs.kv_cache_mode,
      memoryLimit: inputs.memory_limit,
      fields: JSON.stringify(inputs.fields),
      machine: JSON.stringify(inputs.machine),
      contextLimit: String(report.context_limit_tokens ?? ''),
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
  // The engine's own fields; a model picked from the list gets the engine
  // the API gives it by default (llama.cpp for GGUF, else mlxcel), which
  // the engine list can then change.
  $('engine').addEventListener('change', () => applyEngine($('engine').value));
  $('machine-kind').addEventListener('change', showMachineKind);
  $('model').addEventListener('change', () => {
    const format = $('model').selectedOptions[0]?.dataset.format;
    $('engine').value = format === 'gguf' ? 'llamacpp' : 'mlxcel';
    applyEngine($('engine').value);
    offerEngines();
  });
  // A Hugging Face name typed (or emptied) offers every engine (or the
  // list's model's).
  $('hub-model').addEventListener('input', offerEngines);
  let models;
  let leftOut;
  let allowHub = false;
  try {
    applyCatalog(await api('GET', '/v1/engines'));
    applyEngine($('engine').value);
    applyHardwareTable(await api('GET', '/v1/hardware'), CATALOG.get('').fields);
    const answer = await api('GET', '/v1/models');
    models = answer.models;
    leftOut = answer.left_out ?? [];
    allowHub = answer.allow_hub === true;
  } catch (error) {
    showMessage(error.message);
    return;
  }
  const select = $('model');
  for (const model of models) {
    const option = document.createElement('option');
    option.value = model.name;
    option.textContent = model.weights_bytes === null ? `${model.name} (does not open)`
      : `${model.name} · ${formatGiB(model.weights_bytes)}`;
    option.title = model.error ?? `${formatExact(model.weights_bytes)} of weights (model root ${model.root})`;
    option.dataset.format = model.format;
    option.dataset.weightsBytes = model.weights_bytes === null ? '' : String(model.weights_bytes);
    select.appendChild(option);
  }
  // What the roots hold that the server will not read, and why: shown,
  // not offered.
  if (leftOut.length > 0) {
    const group = document.createElement('optgroup');
    group.label = 'Left out by the server';
    group.dataset.testid = 'left-out';
    for (const entry of leftOut) {
      const option = document.createElement('option');
      option.disabled = true;
      option.value = '';
      option.textContent = `${entry.name}: ${entry.reason}`;
      group.appendChild(option);
    }
    select.appendChild(group);
  }
  // The model to open on (the fragment, applied below, wins): the last
  // one priced, else the smallest, whose answer is quickest to read and
  // most likely to fit.
  const last = lastModel();
  if (last && !last.hub && models.some((m) => m.name === last.model)) {
    select.value = last.model;
  } else if (last && last.hub && allowHub) {
    $('hub-model').value = last.model;
  } else if (models.length > 0) {
    const sized = models.filter((m) => m.weights_bytes !== null);
    const smallest = sized.reduce((a, b) => (b.weights_bytes < a.weights_bytes ? b : a), sized[0] ?? models[0]);
    select.value = smallest.name;
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
  if (select.selectedOptions[0]?.dataset.format === 'gguf') $('engine').value = 'llamacpp';
  applyEngine($('engine').value);
  applyFragment();
  offerEngines();
  update();
  let resized = null;
  window.addEventListener('resize', () => {
    clearTimeout(resized);
    resized = setTimeout(drawCharts, 100);
  });
}

start();
