// The validation matrix: per model, the llama_context_params node-llama-cpp's
// addon hands to llama.cpp. node-llama-cpp always sets n_ubatch = n_batch
// and kv_unified = false, so `batch` is both; `ctx` is llama.cpp's total
// n_ctx (all sequences), given as-is (not padded on the JavaScript side).
//   ctx, seq, batch, fa ("auto" | true | false), k, v (cache types), swaFull

const common = [
  {ctx: 4096, seq: 1, batch: 512, fa: "auto", k: "f16", v: "f16"},
  {ctx: 1000, seq: 1, batch: 512, fa: false, k: "f16", v: "f16"},
  {ctx: 3000, seq: 3, batch: 512, fa: true, k: "f16", v: "f16"},
  {ctx: 8192, seq: 4, batch: 256, fa: true, k: "q8_0", v: "q8_0"},
  {ctx: 2048, seq: 2, batch: 1024, fa: false, k: "q8_0", v: "f16"},
  {ctx: 6000, seq: 1, batch: 2048, fa: true, k: "q4_0", v: "q4_0"},
  {ctx: 512, seq: 1, batch: 2048, fa: "auto", k: "f16", v: "f16"},
  {ctx: 16384, seq: 2, batch: 128, fa: false, k: "f16", v: "f16"},
  {ctx: 2304, seq: 1, batch: 64, fa: true, k: "bf16", v: "bf16"},
  {ctx: 12000, seq: 1, batch: 1024, fa: false, k: "f16", v: "f16"},
];

// MLA caches K only and needs equal K and V types.
const mla = common.filter((s) => s.k === s.v);

export const matrix = {
  "llama-dense": common,
  "qwen3moe": common,
  "qwen3moe-wide": common,
  "gemma3-swa": [
    ...common,
    {ctx: 4096, seq: 1, batch: 512, fa: true, k: "f16", v: "f16", swaFull: true},
    {ctx: 8192, seq: 2, batch: 512, fa: false, k: "f16", v: "f16", swaFull: true},
  ],
  "deepseek2-mla": mla,
  "granite-hybrid": common,
  "mamba2": [
    {ctx: 4096, seq: 1, batch: 512, fa: "auto", k: "f16", v: "f16"},
    {ctx: 1000, seq: 1, batch: 512, fa: false, k: "f16", v: "f16"},
    {ctx: 3000, seq: 3, batch: 512, fa: true, k: "f16", v: "f16"},
    {ctx: 8192, seq: 4, batch: 256, fa: true, k: "f16", v: "f16"},
    {ctx: 512, seq: 1, batch: 2048, fa: "auto", k: "f16", v: "f16"},
    {ctx: 16384, seq: 8, batch: 128, fa: false, k: "f16", v: "f16"},
    {ctx: 2304, seq: 1, batch: 64, fa: true, k: "f16", v: "f16"},
  ],
};
