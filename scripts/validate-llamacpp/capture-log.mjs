// Writes the log the real llama.cpp (node-llama-cpp 3.21.1's prebuilt
// binaries, as scripts/validate-llamacpp.sh installs them) prints for one
// run: the model loaded, one context created, every line at debug level,
// as a run's log for `memfit check-log` (docs/check-log.md). No test runs
// it; its logs are committed under tests/data/logs/llamacpp/.
//
//   node capture-log.mjs --nlc <folder with node_modules/node-llama-cpp>
//        --model <file.gguf> --out <file.log> [--gpu cuda] [--ngl N]
//        [--ctx N] [--seq N] [--batch N] [--fa auto|on|off] [--k f16] [--v f16]
import fs from "node:fs";
import path from "node:path";
import {pathToFileURL} from "node:url";

const args = Object.fromEntries(
    process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
for (const k of ["nlc", "model", "out"]) {
  if (!args[k]) throw new Error(`missing --${k}`);
}
const nlc = await import(pathToFileURL(path.join(args.nlc, "node_modules/node-llama-cpp/dist/index.js")).href);
const {getLlama, LlamaLogLevel, GgmlType} = nlc;

const lines = [];
const llama = await getLlama({
  gpu: args.gpu ?? false, build: "never", usePrebuiltBinaries: true, progressLogs: false,
  logLevel: LlamaLogLevel.debug,
  logger: (_level, message) => lines.push(...String(message).split("\n").filter((l) => l.length > 0)),
});
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
const fa = {auto: "auto", on: true, off: false}[args.fa ?? "auto"];
const type = (name) => GgmlType[(name ?? "f16").toUpperCase()];

const model = await llama.loadModel({modelPath: args.model, gpuLayers: Number(args.ngl ?? 0)});
const ctx = new llama._bindings.AddonContext(model._model, {
  contextSize: Number(args.ctx ?? 4096), batchSize: Number(args.batch ?? 512), sequences: Number(args.seq ?? 1),
  flashAttention: fa, threads: 4, kvCacheKeyType: type(args.k), kvCacheValueType: type(args.v),
  swaFullCache: false, performanceTracking: false,
});
await ctx.init();
await settle();
fs.writeFileSync(args.out, lines.join("\n") + "\n");
await ctx.dispose();
await model.dispose();
