// Loads each validation model with the real llama.cpp (node-llama-cpp's
// prebuilt CPU binaries), creates a context per setting, and records what
// llama.cpp reports it allocated next to memfit's estimate and
// node-llama-cpp's own estimate. Driven by scripts/validate-llamacpp.sh:
//
//   node run.mjs --nlc <folder with node_modules/node-llama-cpp>
//                --memfit <memfit binary> --models <folder> --out <folder>
//
// Writes <out>/results.json (every row, raw) and <out>/results.md (the table).
import {execFileSync} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {pathToFileURL} from "node:url";
import {matrix} from "./settings.mjs";

const MiB = 1024 * 1024;
const args = Object.fromEntries(
    process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
for (const k of ["nlc", "memfit", "models", "out"]) {
  if (!args[k]) throw new Error(`missing --${k}`);
}
const only = args.only ? new Set(args.only.split(",")) : null;

const nlc = await import(pathToFileURL(path.join(args.nlc, "node_modules/node-llama-cpp/dist/index.js")).href);
const {getLlama, LlamaLogLevel, GgmlType} = nlc;
const nlcVersion = JSON.parse(fs.readFileSync(path.join(args.nlc, "node_modules/node-llama-cpp/package.json"), "utf8")).version;
if (nlcVersion !== "3.21.1") throw new Error(`node-llama-cpp ${nlcVersion} installed, the validation pins 3.21.1`);

// Every llama.cpp log line. node-llama-cpp hands the logger one line per
// call, without its newline; a message that carries several is split.
let log = [];
const llama = await getLlama({
  gpu: false,
  build: "never",
  usePrebuiltBinaries: true,
  progressLogs: false,
  logLevel: LlamaLogLevel.debug,
  logger: (_level, message) => {
    log.push(...String(message).split("\n").filter((l) => l.length > 0));
  },
});
// The addon forwards log lines through a thread-safe function: let the
// queue drain before reading them.
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
function takeLog() {
  const out = log;
  log = [];
  return out;
}

const mibToBytes = (text) => Math.round(Number(text) * MiB);

// load_tensors: <buft> model buffer size = <MiB> MiB
function parseModel(lines) {
  const buffers = {};
  for (const l of lines) {
    const m = l.match(/load_tensors:\s+(\S+) model buffer size =\s+([\d.]+) MiB/);
    if (m) buffers[m[1]] = (buffers[m[1]] ?? 0) + mibToBytes(m[2]);
  }
  return buffers;
}

function parseContext(lines) {
  const r = {kv: 0, k: 0, v: 0, kvCaches: [], rs: 0, output: 0, compute: 0, swaCells: null, baseCells: null};
  for (const l of lines) {
    let m;
    if ((m = l.match(/llama_context: (n_seq_max|n_ctx|n_ctx_seq|n_batch|n_ubatch|flash_attn|kv_unified|n_outputs_max)\s+= (\S+)/))) {
      r[m[1]] = /^\d+$/.test(m[2]) ? Number(m[2]) : m[2];
    } else if ((m = l.match(/llama_kv_cache: size =\s+([\d.]+) MiB \(\s*(\d+) cells,\s+(\d+) layers,\s+(\d+)\/(\d+) seqs\), K \((\w+)\):\s+([\d.]+) MiB, V \((\w+)\):\s+([\d.]+) MiB/))) {
      r.kvCaches.push({bytes: mibToBytes(m[1]), cells: Number(m[2]), layers: Number(m[3]), streams: Number(m[5]),
        typeK: m[6], k: mibToBytes(m[7]), typeV: m[8], v: mibToBytes(m[9])});
      r.kv += mibToBytes(m[1]);
      r.k += mibToBytes(m[7]);
      r.v += mibToBytes(m[9]);
    } else if ((m = l.match(/llama_memory_recurrent: size =\s+([\d.]+) MiB/))) {
      r.rs += mibToBytes(m[1]);
    } else if ((m = l.match(/output buffer size =\s+([\d.]+) MiB/))) {
      r.output += mibToBytes(m[1]);
    } else if ((m = l.match(/compute buffer size =\s+([\d.]+) MiB/))) {
      r.compute += mibToBytes(m[1]);
    } else if ((m = l.match(/creating\s+SWA KV cache, size = (\d+) cells/))) {
      r.swaCells = Number(m[1]);
    } else if ((m = l.match(/creating non-SWA KV cache, size = (\d+) cells/))) {
      r.baseCells = Number(m[1]);
    } else if (/resolve_fused_ops: Flash Attention enabled/.test(l)) {
      r.faResolved = true;
    } else if (/resolve_fused_ops: Flash Attention not supported/.test(l)) {
      r.faResolved = false;
    }
  }
  return r;
}

function memfit(modelPath, s) {
  const argv = ["inspect", "-m", modelPath, "--engine", "llamacpp", "--json",
    "--ctx-size", String(s.ctx), "--parallel", String(s.seq),
    "--batch-size", String(s.batch), "--ubatch-size", String(s.batch),
    "--cache-type-k", s.k, "--cache-type-v", s.v,
    "--flash-attn", s.fa === "auto" ? "auto" : s.fa ? "on" : "off"];
  if (s.swaFull) argv.push("--swa-full");
  const out = JSON.parse(execFileSync(args.memfit, argv, {encoding: "utf8"}));
  return {argv, inputs: out.inputs, ...out.llamacpp, total: out.total_bytes};
}

const ggmlType = (name) => ({f32: GgmlType.F32, f16: GgmlType.F16, bf16: GgmlType.BF16, q8_0: GgmlType.Q8_0,
  q4_0: GgmlType.Q4_0, q4_1: GgmlType.Q4_1, q5_0: GgmlType.Q5_0, q5_1: GgmlType.Q5_1, iq4_nl: GgmlType.IQ4_NL})[name];

// node-llama-cpp's own estimator (GgufInsights), for the same settings: its
// contextSize is per sequence; flash attention "auto" counts as on, as the
// CPU resolves it.
function nlcEstimate(model, s) {
  const ins = model.fileInsights;
  const m = ins.estimateModelResourceRequirements({gpuLayers: 0});
  const c = ins.estimateContextResourceRequirements({
    contextSize: Math.ceil(s.ctx / s.seq), sequences: s.seq, batchSize: s.batch, modelGpuLayers: 0,
    flashAttention: s.fa !== false, swaFullCache: !!s.swaFull,
    kvCacheKeyType: ggmlType(s.k), kvCacheValueType: ggmlType(s.v)});
  return {model: m.cpuRam, context: c.cpuRam, total: m.cpuRam + c.cpuRam};
}

const rows = [];
let environment = null;
const threads = Math.max(1, Math.min(2, os.availableParallelism?.() ?? 2));
for (const [name, settings] of Object.entries(matrix)) {
  if (only && !only.has(name)) continue;
  const modelPath = path.join(args.models, `${name}.gguf`);
  takeLog();
  let model;
  try {
    model = await llama.loadModel({modelPath, gpuLayers: 0});
  } catch (e) {
    await settle();
    const lines = takeLog().filter((l) => /error|failed|exception|missing|wrong/i.test(l)).slice(-10);
    process.stderr.write(`${name}: ${e.message}\n  ${lines.join("\n  ")}\n`);
    rows.push({model: name, settings: null, loadError: String(e.message), loadLog: lines});
    continue;
  }
  await settle();
  const loadLog = takeLog();
  if (!environment) {
    environment = {
      nodeLlamaCpp: nlcVersion,
      llamaCppRelease: llama.llamaCppRelease?.release ?? null,
      cpu: os.cpus()[0]?.model ?? null,
      cpuVariant: loadLog.concat(log).map((l) => l.match(/libggml-cpu-([\w-]+)\.so/)?.[1]).find(Boolean) ?? null,
      backendLines: loadLog.concat(log).filter((l) => /load_backend|CPU_REPACK|AMX|system_info|CPU :/.test(l)).slice(0, 20),
    };
  }
  const modelBuffers = parseModel(loadLog);
  const modelBreakdown = model._model.getMemoryBreakdown?.() ?? null;
  for (const s of settings) {
    const row = {model: name, settings: s};
    try {
      row.memfit = memfit(modelPath, s);
    } catch (e) {
      row.memfitError = String(e.stderr ?? e.message ?? e);
    }
    row.nlc = nlcEstimate(model, s);
    await settle();
    takeLog();
    // The addon's context, as LlamaContext builds it, but with the
    // setting's n_ctx given as-is.
    const ctx = new llama._bindings.AddonContext(model._model, {
      contextSize: s.ctx, batchSize: s.batch, sequences: s.seq,
      flashAttention: s.fa, threads, kvCacheKeyType: ggmlType(s.k), kvCacheValueType: ggmlType(s.v),
      swaFullCache: !!s.swaFull, performanceTracking: false,
    });
    let loaded = false;
    try {
      loaded = await ctx.init();
    } catch (e) {
      row.llamaError = String(e.message ?? e);
    }
    await settle();
    const lines = takeLog();
    if (loaded) {
      row.llama = parseContext(lines);
      row.llama.model = modelBuffers;
      row.llama.modelBreakdown = modelBreakdown;
      row.llama.contextBreakdown = ctx.getMemoryBreakdown();
      await ctx.dispose();
      await settle();
    } else {
      row.llamaError ??= "context creation failed";
      row.llamaLog = lines.filter((l) => /error|failed|llama_context|init/i.test(l)).slice(-15);
    }
    takeLog();
    rows.push(row);
    process.stderr.write(`${name} ${JSON.stringify(s)} ${loaded ? "ok" : row.llamaError}\n`);
  }
  await model.dispose();
  takeLog();
}
await llama.dispose();

fs.mkdirSync(args.out, {recursive: true});
fs.writeFileSync(path.join(args.out, "results.json"), JSON.stringify({environment, rows}, null, 1));
const {renderMarkdown} = await import("./report.mjs");
fs.writeFileSync(path.join(args.out, "results.md"), renderMarkdown({environment, rows}));
process.stderr.write(`wrote ${path.join(args.out, "results.md")}\n`);
