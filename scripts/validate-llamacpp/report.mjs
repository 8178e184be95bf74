// Renders results.json (run.mjs) as the markdown table of
// docs/validation-llamacpp.md. Also runnable alone:
//   node report.mjs <results.json>   (prints the markdown)
import fs from "node:fs";
import {pathToFileURL} from "node:url";

const MiB = 1024 * 1024;
// Each llama.cpp log value is rounded to 0.01 MiB (printf "%.2f"); the
// parsed value is that text times 2^20, rounded to a byte.
const ROUNDING = 0.005 * MiB + 1;

const mib = (b) => (b == null ? "–" : (b / MiB).toFixed(2));
const pct = (x) => (x == null || !Number.isFinite(x) ? "–" : `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}%`);

// The categories llama.cpp reported, in bytes (log values, rounded).
export function llamaFigures(row) {
  const l = row.llama;
  const repack = Object.entries(l.model).filter(([b]) => /REPACK|AMX/.test(b)).reduce((s, [, v]) => s + v, 0);
  const model = Object.entries(l.model).filter(([b]) => !/REPACK|AMX/.test(b)).reduce((s, [, v]) => s + v, 0);
  // The total is llama.cpp's own: every model buffer, the repacked copies included.
  const total = model + repack + l.kv + l.rs + l.output + l.compute;
  return {model, repack, kv: l.kv, rs: l.rs, output: l.output, compute: l.compute, total};
}

export function evaluate(row) {
  if (!row.llama || !row.memfit) return null;
  const L = llamaFigures(row);
  const m = row.memfit;
  const kvLines = row.llama.kvCaches.length;
  const e = {
    L,
    // memfit's model_bytes is mapped + repack, as llama.cpp's breakdown counts it.
    modelDelta: m.mapped_bytes - L.model,
    repackDelta: (m.repack_bytes ?? 0) - L.repack,
    kvDelta: m.context.kv_bytes - L.kv,
    rsDelta: m.context.recurrent_bytes - L.rs,
    outputDelta: m.context.output_bytes - L.output,
    computeDelta: m.compute_bytes - L.compute,
    computeRel: L.compute > 0 ? (m.compute_bytes - L.compute) / L.compute : null,
    totalRel: (m.total - L.total) / L.total,
    nlcRel: (row.nlc.total - L.total) / L.total,
    // Exact bytes: llama.cpp's own breakdown of the context is memory
    // module (KV + recurrent state) + compute, without the output buffer.
    exactContextCompute: row.llama.contextBreakdown?.cpuRam ?? null,
  };
  // The context memfit resolved against llama_context's lines (flash
  // attention: resolve_fused_ops' line for auto, else the requested value).
  const l = row.llama;
  const fa = l.faResolved ?? (l.flash_attn === "enabled");
  const inputs = row.memfit.inputs;
  e.contextMismatch = [
    ["n_ctx", l.n_ctx, inputs.n_ctx], ["n_ctx_seq", l.n_ctx_seq, inputs.n_ctx_seq],
    ["n_batch", l.n_batch, inputs.n_batch], ["n_ubatch", l.n_ubatch, inputs.n_ubatch],
    ["swa cells", l.swaCells, inputs.swa_cells], ["flash attention", fa, inputs.flash_attn_resolved],
  ].filter(([, theirs, ours]) => theirs !== ours).map(([name]) => name);
  e.kvOk = Math.abs(e.kvDelta) <= ROUNDING * Math.max(1, kvLines);
  e.rsOk = Math.abs(e.rsDelta) <= ROUNDING;
  e.modelOk = Math.abs(e.modelDelta) <= ROUNDING;
  e.repackOk = Math.abs(e.repackDelta) <= ROUNDING;
  e.outputOk = Math.abs(e.outputDelta) <= ROUNDING;
  e.computeOk = Math.abs(e.computeDelta) <= 16 * MiB || Math.abs(e.computeRel ?? 0) <= 0.10;
  e.totalOk = e.totalRel >= -0.01;
  e.closerThanNlc = Math.abs(e.totalRel) < Math.abs(e.nlcRel);
  if (e.exactContextCompute != null) {
    e.exactDelta = m.context.kv_bytes + m.context.recurrent_bytes + m.compute_bytes - e.exactContextCompute;
  }
  return e;
}

const fa = (v) => (v === "auto" ? "auto" : v ? "on" : "off");
const describe = (s) => `c ${s.ctx}, np ${s.seq}, b=ub ${s.batch}, fa ${fa(s.fa)}, ${s.k}/${s.v}${s.swaFull ? ", swa-full" : ""}`;

export function renderMarkdown({environment, rows}) {
  const out = [];
  out.push(`node-llama-cpp ${environment?.nodeLlamaCpp}, llama.cpp ${environment?.llamaCppRelease}, CPU: ${environment?.cpu} (ggml CPU variant: ${environment?.cpuVariant ?? "?"})`);
  out.push("");
  out.push("All sizes in MiB. llama.cpp: its log lines (model buffers without `CPU_REPACK`, repacked weights, KV, recurrent state, output, compute); memfit: `inspect --engine llamacpp`; node-llama-cpp: `GgufInsights.estimateModelResourceRequirements` + `estimateContextResourceRequirements`. Totals include the repacked copies (llama.cpp's `CPU_REPACK`, memfit's `repack_bytes`); errors are relative to llama.cpp's total.");
  out.push("");
  out.push("| model | settings | llama.cpp mapped / repack / KV / RS / out / compute = total | memfit mapped / repack / KV / RS / out / compute = total | Δ mapped, repack, KV, RS, out (MiB) | compute err | memfit total err | node-llama-cpp model + context = total, err | checks |");
  out.push("|---|---|---|---|---|---|---|---|---|");
  let failures = 0;
  for (const row of rows) {
    if (row.loadError) {
      out.push(`| ${row.model} | (load) | ${row.loadError}: ${(row.loadLog ?? []).join(" ").replace(/\|/g, "/")} | | | | | | load failed |`);
      failures++;
      continue;
    }
    const s = describe(row.settings);
    if (!row.llama || !row.memfit) {
      out.push(`| ${row.model} | ${s} | ${row.llamaError ?? ""} | ${row.memfitError ?? ""} | | | | | refused |`);
      continue;
    }
    const e = evaluate(row);
    const m = row.memfit;
    const L = e.L;
    const checks = [...e.contextMismatch];
    if (!e.modelOk) checks.push("mapped");
    if (!e.repackOk) checks.push("repack");
    if (!e.kvOk) checks.push("KV");
    if (!e.rsOk) checks.push("RS");
    if (!e.outputOk) checks.push("out");
    if (!e.computeOk) checks.push("compute");
    if (!e.totalOk) checks.push("under");
    if (!e.closerThanNlc) checks.push("not closer than node-llama-cpp");
    if (checks.length) failures++;
    out.push(`| ${row.model} | ${s} | ${mib(L.model)} / ${mib(L.repack)} / ${mib(L.kv)} / ${mib(L.rs)} / ${mib(L.output)} / ${mib(L.compute)} = **${mib(L.total)}** | ` +
      `${mib(m.mapped_bytes)} / ${mib(m.repack_bytes)} / ${mib(m.context.kv_bytes)} / ${mib(m.context.recurrent_bytes)} / ${mib(m.context.output_bytes)} / ${mib(m.compute_bytes)} = **${mib(m.total)}** | ` +
      `${mib(e.modelDelta)}, ${mib(e.repackDelta)}, ${mib(e.kvDelta)}, ${mib(e.rsDelta)}, ${mib(e.outputDelta)} | ${pct(e.computeRel)} (${mib(e.computeDelta)}) | ${pct(e.totalRel)} | ` +
      `${mib(row.nlc.model)} + ${mib(row.nlc.context)} = ${mib(row.nlc.total)}, ${pct(e.nlcRel)} | ${checks.length ? checks.join(", ") : "ok"} |`);
  }
  out.push("");
  out.push(`${rows.length} rows, ${failures} with a failed check.`);
  out.push("");
  return out.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(renderMarkdown(JSON.parse(fs.readFileSync(process.argv[2], "utf8"))));
}
