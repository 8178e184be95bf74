// The --gpu mode of scripts/validate-llamacpp.sh: loads each validation
// model with node-llama-cpp's CUDA binaries at several -ngl values and
// records, per device, what llama.cpp's log lines say it allocated next
// to memfit's "devices" at the same flags.
//
//   node run-gpu.mjs --nlc <folder with node_modules/node-llama-cpp>
//                    --memfit <memfit binary> --models <folder> --out <folder>
//
// Writes <out>/results-gpu.json (every row) and <out>/results-gpu.md.
// Device names: CUDA<N> and its buffers are memfit's cuda:N; CPU,
// CPU_Mapped, CPU_REPACK and CUDA_Host are the host, "cpu".
import {execFileSync} from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import {pathToFileURL} from "node:url";

const MiB = 1024 * 1024;
const args = Object.fromEntries(
    process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
for (const k of ["nlc", "memfit", "models", "out"]) {
  if (!args[k]) throw new Error(`missing --${k}`);
}
const nlc = await import(pathToFileURL(path.join(args.nlc, "node_modules/node-llama-cpp/dist/index.js")).href);
const {getLlama, LlamaLogLevel} = nlc;

let log = [];
const llama = await getLlama({
  gpu: "cuda", build: "never", usePrebuiltBinaries: true, progressLogs: false,
  logLevel: LlamaLogLevel.debug,
  logger: (_level, message) => log.push(...String(message).split("\n").filter((l) => l.length > 0)),
});
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
const take = () => { const out = log; log = []; return out; };

const device = (buffer) => {
  const m = buffer.match(/^CUDA(\d+)$/);
  return m ? `cuda:${m[1]}` : "cpu";
};
// Sums "<buffer> <what> buffer size = <MiB> MiB" lines per device.
function perDevice(lines) {
  const d = {};
  const add = (dev, key, mib) => {
    d[dev] ??= {model_bytes: 0, context_bytes: 0, compute_bytes: 0};
    d[dev][key] += Math.round(Number(mib) * MiB);
  };
  for (const l of lines) {
    let m;
    if ((m = l.match(/load_tensors:\s+(\S+) model buffer size =\s+([\d.]+) MiB/))) add(device(m[1]), "model_bytes", m[2]);
    else if ((m = l.match(/\s(\S+) (KV|RS) buffer size =\s+([\d.]+) MiB/))) add(device(m[1]), "context_bytes", m[3]);
    else if ((m = l.match(/\s(\S+)\s+output buffer size =\s+([\d.]+) MiB/))) add(device(m[1]), "context_bytes", m[2]);
    else if ((m = l.match(/\s(\S+) compute buffer size =\s+([\d.]+) MiB/))) add(device(m[1]), "compute_bytes", m[2]);
  }
  return d;
}

const rows = [];
const ctx = 4096;
for (const file of fs.readdirSync(args.models).filter((f) => f.endsWith(".gguf")).sort()) {
  const modelPath = path.join(args.models, file);
  const blocks = JSON.parse(execFileSync(args.memfit, ["inspect", "-m", modelPath, "--json"], {encoding: "utf8"}))
      .llamacpp.devices.reduce((n, d) => n + d.blocks, 0);
  for (const ngl of [0, 1, Math.floor(blocks / 2), blocks + 1]) {
    take();
    const model = await llama.loadModel({modelPath, gpuLayers: ngl, useMmap: true});
    const context = await model.createContext({contextSize: ctx, sequences: 1, batchSize: 512});
    await settle();
    const measured = perDevice(take());
    await context.dispose();
    await model.dispose();
    const argv = ["inspect", "-m", modelPath, "--engine", "llamacpp", "--json", "-c", String(ctx),
      "-b", "512", "-ub", "512", "-ngl", String(ngl), "--gpu-margin", "0"];
    const est = JSON.parse(execFileSync(args.memfit, argv, {encoding: "utf8"})).llamacpp.devices;
    for (const d of est) {
      const got = measured[d.device] ?? {model_bytes: 0, context_bytes: 0, compute_bytes: 0};
      rows.push({model: file, ngl, device: d.device, memfit: d, llama: got});
    }
  }
}
fs.mkdirSync(args.out, {recursive: true});
fs.writeFileSync(path.join(args.out, "results-gpu.json"), JSON.stringify(rows, null, 1));
const mib = (b) => (b / MiB).toFixed(2);
let md = "| model | -ngl | device | model memfit / llama | context memfit / llama | compute memfit / llama |\n|---|---|---|---|---|---|\n";
for (const r of rows) {
  md += `| ${r.model} | ${r.ngl} | ${r.device} | ${mib(r.memfit.model_bytes)} / ${mib(r.llama.model_bytes)} | ` +
        `${mib(r.memfit.context_bytes)} / ${mib(r.llama.context_bytes)} | ` +
        `${mib(r.memfit.compute_bytes)} / ${mib(r.llama.compute_bytes)} |\n`;
}
fs.writeFileSync(path.join(args.out, "results-gpu.md"), md);
