// The llama.cpp placement (llamacpp_placement.h, docs/llamacpp-rules.md
// "Memory per device") worked by hand on real geometries: the corpus
// configs with GGUF tensor lists written here at Q4_0 (18 B per 32
// elements) for the matrices and f32 for the norms.
#include <gtest/gtest.h>

#include "memfit/llamacpp.h"
#include "memfit/llamacpp_solver.h"
#include "support/corpus.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::memfit::testing::kGiB;
const MemoryBudget kHostPlacement{64 * kGiB, 64 * kGiB, BudgetSource::kExplicit};

uint64_t q4_0(uint64_t elements) { return elements / 32 * 18; }

void add(Model& m, std::string name, std::vector<uint64_t> shape, uint64_t bytes) {
  m.tensors.push_back(SafetensorsTensor{std::move(name), "q4_0", std::move(shape), bytes});
  m.weights.bytes += bytes;
}

Model gguf_of(ModelSpec spec) {
  Model m;
  m.has_config = true;
  m.spec = std::move(spec);
  m.weights.source = WeightsSource::kGgufHeader;
  m.weights.verified = true;
  return m;
}

// Llama 3.1 70B: per block q, o 8192 x 8192 (37,748,736 B each), k, v
// 1024 x 8192 (4,718,592 B each), gate, up, down 28672 x 8192
// (132,120,576 B each), two norms of 32,768 B: 481,361,920 B a block.
// token_embd and output 8192 x 128256: 591,003,648 B each; output_norm 32,768 B.
Model llama_70b() {
  Model m = gguf_of(testing::corpus_spec("llama3/Meta-Llama-3.1-70B"));
  add(m, "token_embd.weight", {128256, 8192}, q4_0(8192ull * 128256));
  for (int b = 0; b < 80; ++b) {
    const std::string p = "blk." + std::to_string(b) + ".";
    add(m, p + "attn_norm.weight", {8192}, 32768);
    add(m, p + "attn_q.weight", {8192, 8192}, q4_0(8192ull * 8192));
    add(m, p + "attn_k.weight", {1024, 8192}, q4_0(8192ull * 1024));
    add(m, p + "attn_v.weight", {1024, 8192}, q4_0(8192ull * 1024));
    add(m, p + "attn_output.weight", {8192, 8192}, q4_0(8192ull * 8192));
    add(m, p + "ffn_norm.weight", {8192}, 32768);
    add(m, p + "ffn_gate.weight", {28672, 8192}, q4_0(8192ull * 28672));
    add(m, p + "ffn_up.weight", {28672, 8192}, q4_0(8192ull * 28672));
    add(m, p + "ffn_down.weight", {8192, 28672}, q4_0(8192ull * 28672));
  }
  add(m, "output_norm.weight", {8192}, 32768);
  add(m, "output.weight", {128256, 8192}, q4_0(8192ull * 128256));
  return m;
}

// Qwen3-30B-A3B: per block q 4096 x 2048 and o (4,718,592 B each), k, v
// 512 x 2048 (589,824 B each), gate, up, down experts 128 x 768 x 2048
// (113,246,208 B each), the router 2048 x 128 f32 (1,048,576 B), norms
// 8,192 + 8,192 + 512 + 512 B: 351,421,440 B a block, 11,682,816 B of it
// not experts. token_embd and output 2048 x 151936: 175,030,272 B each;
// output_norm 8,192 B.
Model qwen3_30b_a3b() {
  Model m = gguf_of(testing::corpus_spec("qwen3_moe/Qwen3-30B-A3B"));
  add(m, "token_embd.weight", {151936, 2048}, q4_0(2048ull * 151936));
  for (int b = 0; b < 48; ++b) {
    const std::string p = "blk." + std::to_string(b) + ".";
    add(m, p + "attn_norm.weight", {2048}, 8192);
    add(m, p + "attn_q.weight", {4096, 2048}, q4_0(2048ull * 4096));
    add(m, p + "attn_k.weight", {512, 2048}, q4_0(2048ull * 512));
    add(m, p + "attn_v.weight", {512, 2048}, q4_0(2048ull * 512));
    add(m, p + "attn_output.weight", {2048, 4096}, q4_0(2048ull * 4096));
    add(m, p + "attn_q_norm.weight", {128}, 512);
    add(m, p + "attn_k_norm.weight", {128}, 512);
    add(m, p + "ffn_norm.weight", {2048}, 8192);
    add(m, p + "ffn_gate_inp.weight", {128, 2048}, 1048576);
    add(m, p + "ffn_gate_exps.weight", {128, 768, 2048}, q4_0(128ull * 768 * 2048));
    add(m, p + "ffn_up_exps.weight", {128, 768, 2048}, q4_0(128ull * 768 * 2048));
    add(m, p + "ffn_down_exps.weight", {128, 2048, 768}, q4_0(128ull * 768 * 2048));
  }
  add(m, "output_norm.weight", {2048}, 8192);
  add(m, "output.weight", {151936, 2048}, q4_0(2048ull * 151936));
  return m;
}

LlamaCppGpu gpu(int index, uint64_t free) {
  return LlamaCppGpu{"gpu:" + std::to_string(index), "", free};
}

LlamaCppEstimate run(const Model& m, const LlamaCppSettings& s, const MemoryBudget& b = kHostPlacement) {
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, b);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : LlamaCppEstimate{};
}

TEST(LlamaCppPlacement, OpOffloadLeavesTheHostItsInputsAndGivesItsPhasesToTheFirstGpu) {
  // The 70B of the next test, -ngl 41 on a CUDA and a Vulkan GPU: their
  // backends run every op of 32 rows or more on the host's weights
  // (op offload, ggml-backend.cpp), so the host's compute buffer is the
  // graph's inputs alone: the input rows 4 x 512 x 8,192 = 16,777,216, token
  // ids, positions and output ids 4 x 512 = 2,048 each, the F32 mask
  // 4 x 8,192 x 512 = 16,777,216, the KV store's k_idxs and v_idxs (i64,
  // flash attention) 8 x 512 = 4,096 each and the vector-input leaf
  // 16,777,216 (#18898): 50,345,984 B. CUDA0's buffer is the graph split
  // as the scheduler splits it under op offload (offload_split): a host
  // block's FFN peaks at its up product, beside the copy of ffn_up
  // (q4_0 8,192 x 28,672: 132,120,576 B, where the gate's copy was) and the
  // gate's product, 4 x 512 x 28,672 = 58,720,256: block 0's FFN norm at 0
  // (16,777,216), ffn_inp at 54,525,952 (16,777,216), the positions' and
  // the F16 mask's copies (2,048 + 8,388,608) below 79,693,824, the copy
  // there, the gate at 211,814,400 and the up product at 270,534,656:
  // 270,534,656 + 58,720,256 = 329,254,912 B. The Vulkan GPU holds the
  // output layer, whose phase on a GPU is the logits and result_norm,
  // 4 x 512 x (128,256 + 8,192) = 279,445,504 B.
  const Model m = llama_70b();
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.placement.gpus = {LlamaCppGpu{"cuda:0", "", 24 * kGiB}, LlamaCppGpu{"vulkan:1", "", 12 * kGiB}};
  s.placement.n_gpu_layers = 41;
  const LlamaCppEstimate e = run(m, s);
  ASSERT_EQ(e.placement.devices.size(), 3u);
  EXPECT_EQ(e.placement.devices[0].compute_bytes, 329254912u);
  EXPECT_EQ(e.placement.devices[1].compute_bytes, 279445504u);
  EXPECT_EQ(e.placement.devices[2].compute_bytes, 50345984u);
  // The output layer on the host (Ollama's rule: -ngl 41 offloads blocks
  // 39..79): the host keeps its inputs; CUDA0 runs the logits with the copy
  // of the host's output.weight, 279,445,504 + 591,003,648 = 870,449,152 B.
  s.placement.output_layer_first = false;
  const LlamaCppEstimate last = run(m, s);
  EXPECT_EQ(last.placement.devices[2].compute_bytes, 50345984u);
  EXPECT_EQ(last.placement.devices[0].compute_bytes, 870449152u);
  s.placement.output_layer_first = true;
  // A build before #6083 (b2459) had no op offload, and offloaded the last
  // 41 blocks with the output layer on the host (before #18148): the host
  // runs its 39 blocks and the logits. Its graph is the early one (before
  // #6122), with no flash attention: the scores 4 x 8,192 x 512 x 64 =
  // 1,073,741,824, the mask 16,777,216 and the input rows' copy, residual,
  // norm and Q 4 x 512 x (3 x 8,192 + 8,192) = 67,108,864: 1,157,627,904 B,
  // above its output phase (the logits and one row, 279,445,504 B).
  s.build = 2458;
  EXPECT_EQ(run(m, s).placement.devices[2].compute_bytes, 1157627904u);
  // A ubatch under 32 rows is not offloaded either: the host runs its
  // blocks (their FFN phase at 16 tokens, 7,864,320 B), and CUDA0's split
  // is its own blocks': the copies of the positions, k_idxs and v_idxs
  // (128 B each) and the F16 mask (2 x 8,192 x 16 = 262,144) from
  // 1,048,576, ffn_inp (4 x 16 x 8,192 = 524,288) below them, then the
  // gate, the up product and their SwiGLU, 4 x 16 x 28,672 = 1,835,008
  // each, from 1,311,104: 1,311,104 + 3 x 1,835,008 = 6,816,128 B.
  s.build.reset();
  s.ubatch_size = 16;
  const LlamaCppEstimate small = run(m, s);
  EXPECT_EQ(small.placement.devices[2].compute_bytes, 7864320u);
  EXPECT_EQ(small.placement.devices[0].compute_bytes, 6816128u);
}

TEST(LlamaCppPlacement, OpOffloadCopiesAHostLayersKAndVViewsBesideItsScores) {
  // The 70B at 32,768 cells without flash attention, -ngl 65: blocks 0..15
  // and their caches on the host. Op offload runs a host block's attention
  // on CUDA0 (its ops follow the GPU's products), reading copies of the
  // layer's K and V views, 32,768 x 1,024 x 2 B = 67,108,864 B each,
  // beside the scores 4 x 32,768 x 512 x 64 = 4,294,967,296, the F32 mask's
  // copy 4 x 32,768 x 512 = 67,108,864, the input rows' copy and Q, 4 x 512
  // x 8,192 = 16,777,216 each. The replay (offload_split) places block 0's
  // rows' copy at 0, Q at 33,554,432, the positions' copy above the holes
  // q4_0 attn_q's copy (37,748,736 from 33,554,432) left, at 71,303,168
  // (2,048), then K's copy, the mask's, V's and the scores: 71,305,216 +
  // 3 x 67,108,864 + 4,294,967,296 = 4,567,599,104 B (the phases' lower
  // bound, 4,529,848,320, had the copies packed). Ollama 0.11.10's run of
  // the same placement prints 4,400.00 MiB (4,613,734,400 B; its q4_K_M
  // types; tests/data/logs/ollama/ollama-tfg-llama31-70b-q4km-a40-partial,
  // replayed to the print).
  const Model m = llama_70b();
  LlamaCppSettings s;
  s.ctx_size = 32768;
  s.flash_attn = FlashAttn::kOff;
  s.placement.gpus = {LlamaCppGpu{"cuda:0", "", 48 * kGiB}};
  s.placement.n_gpu_layers = 65;
  const LlamaCppEstimate e = run(m, s);
  ASSERT_EQ(e.placement.devices.size(), 2u);
  EXPECT_EQ(e.placement.devices[1].blocks, 16u);
  EXPECT_EQ(e.placement.devices[0].compute_bytes, 4567599104u);
  // Every layer offloaded: no host cache, no weight copies; the GPU's split
  // replayed (device_split): the copies of the rows 16,777,216, positions
  // 2,048, k_idxs 4,096, v_idxs 8 x 512 x 1,024 = 4,194,304, the F32 mask
  // 67,108,864 and out_ids 2,048 at the bottom, block 0's norm and Q
  // product (freed, holes K's rows fit), the roped Q, 3 x 16,777,216, then
  // the scores, 4,294,967,296, on top: 4,433,387,520 (the attention phase
  // said 4,450,156,544).
  s.placement.n_gpu_layers = 81;
  EXPECT_EQ(run(m, s).placement.devices[0].compute_bytes, 4433387520u);
}

TEST(LlamaCppPlacement, OpOffloadGivesTheHostCopiesOfTheKAndVItsBlocksStore) {
  // Phi-3.5 mini (hidden 3,072, 32 heads and 32 KV heads of 96: K and V
  // rows 3,072 wide each), 4,096 cells, -ngl 16 on CUDA0, flash attention:
  // blocks 0..15 and their caches on the host. Op offload runs their
  // products on CUDA0, and the KV store (a view of the host's cache, so the
  // host's) reads the GPU's K and V rows as copies in the host's buffer,
  // f32, 4 x 512 x (3,072 + 3,072) = 12,582,912 B, beside the graph inputs:
  // token ids, positions, output ids 3 x 2,048, the F16 mask 2 x 4,096 x
  // 512 = 4,194,304, k_idxs and v_idxs 2 x 4,096, the vector-input leaf
  // 4 x 512 x 3,072 = 6,291,456: 10,500,096 B. 23,083,008 B in all, above
  // the inputs with the token rows (20,985,856 B: an F32 mask 8,388,608 and
  // the rows 6,291,456 more, the F16 mask less), which the copies reuse.
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec("phi3/Phi-3.5-mini-instruct");
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.placement.gpus = {LlamaCppGpu{"cuda:0", "", 24 * kGiB}};
  s.placement.n_gpu_layers = 16;
  const LlamaCppEstimate e = run(m, s);
  ASSERT_EQ(e.placement.devices.size(), 2u);
  EXPECT_EQ(e.placement.devices[1].blocks, 17u);
  EXPECT_EQ(e.placement.devices[1].compute_bytes, 23083008u);
  // Every block on the GPU: no host cache, no store there: the inputs.
  s.placement.n_gpu_layers = 33;
  EXPECT_EQ(run(m, s).placement.devices[1].compute_bytes, 20985856u);
}

TEST(LlamaCppPlacement, SyclBeforeItsFlashAttentionRunsTheAttentionOnTheHost) {
  // Llama 3.1 8B on a SYCL GPU, every layer, 32,768 cells, flash attention
  // on, b4524: ggml-sycl had no FLASH_ATTN_EXT before #20190 (b8234), so
  // the scheduler runs each layer's attention on the CPU over copies of
  // its K and V views, 32,768 x (1,024 + 1,024) x 2 B = 134,217,728 B,
  // beside the graph inputs (token ids, positions, output ids 3 x 2,048,
  // the F32 mask 4 x 32,768 x 512 = 67,108,864; no KV indices or vector
  // leaf in that build): 201,332,736 B.
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec("llama3/Meta-Llama-3.1-8B");
  LlamaCppSettings s;
  s.ctx_size = 32768;
  s.build = 4524;
  s.flash_attn = FlashAttn::kOn;
  s.placement.gpus = {LlamaCppGpu{"sycl:0", "", 24 * kGiB}};
  EXPECT_EQ(run(m, s).placement.devices[1].compute_bytes, 201332736u);
  // Without flash attention the host keeps its inputs and the token rows,
  // 6,144 + 67,108,864 + 4 x 512 x 4,096 (8,388,608) = 75,503,616 B.
  s.flash_attn = FlashAttn::kOff;
  EXPECT_EQ(run(m, s).placement.devices[1].compute_bytes, 75503616u);
  // From b8234 SYCL runs it: the inputs, with the vector-input leaf
  // (8,388,608) and k_idxs and v_idxs (2 x 4,096) of that build:
  // 75,503,616 + 8,388,608 + 8,192 = 83,900,416 B.
  s.flash_attn = FlashAttn::kOn;
  s.build = 8234;
  EXPECT_EQ(run(m, s).placement.devices[1].compute_bytes, 83900416u);
}

TEST(LlamaCppPlacement, CannBeforeItsFlashAttentionRunsTheAttentionOnTheHost) {
  // The same run on an Ascend NPU at b5488: ggml-cann had no
  // FLASH_ATTN_EXT before #13627 (b5489 taken), so, as for SYCL above, the
  // host runs each layer's attention over copies of its K and V views,
  // 2 x 32,768 x 1,024 x 2 B = 134,217,728 B, beside the graph inputs
  // (token ids, positions, output ids 3 x 2,048 and the F32 mask 4 x
  // 32,768 x 512 = 67,108,864; b5488 has no KV indices nor vector leaf):
  // 201,332,736 B.
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec("llama3/Meta-Llama-3.1-8B");
  LlamaCppSettings s;
  s.ctx_size = 32768;
  s.build = 5488;
  s.flash_attn = FlashAttn::kOn;
  s.placement.gpus = {LlamaCppGpu{"cann:0", "", 24 * kGiB}};
  EXPECT_EQ(run(m, s).placement.devices[1].compute_bytes, 201332736u);
  // From b5489 the NPU runs it: the host keeps its inputs and the token
  // rows, 6,144 + 67,108,864 + 4 x 512 x 4,096 (8,388,608) = 75,503,616 B.
  s.build = 5489;
  EXPECT_EQ(run(m, s).placement.devices[1].compute_bytes, 75503616u);
}

// ggml-cann takes the host's ops under op offload (its offload_op, since
// the backend's first source, #6035), but only those its supports_op
// takes: ggml_backend_sched_backend_id_from_cur asks both. The 70B with
// -ngl 41 and the output layer last (blocks 39..79 on CANN0; blocks 0..38
// and the output layer on the host), 8,192 cells, as the CUDA run of
// OpOffloadLeavesTheHostItsInputsAndGivesItsPhasesToTheFirstGpu.
TEST(LlamaCppPlacement, CannOffloadsTheHostsProductsButNotOnATypeItCannotMultiply) {
  Model m = llama_70b();
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.placement.gpus = {LlamaCppGpu{"cann:0", "", 48 * kGiB}};
  s.placement.n_gpu_layers = 41;
  s.placement.output_layer_first = false;
  // q4_0 everywhere: as on CUDA, the host keeps its inputs, 50,345,984 B,
  // and CANN0 runs the logits with the copy of the host's output.weight,
  // 279,445,504 + 591,003,648 = 870,449,152 B.
  const LlamaCppEstimate q4 = run(m, s);
  ASSERT_EQ(q4.placement.devices.size(), 2u);
  EXPECT_EQ(q4.placement.devices[1].compute_bytes, 50345984u);
  EXPECT_EQ(q4.placement.devices[0].compute_bytes, 870449152u);
  // A q6_K output.weight (8,192 x 128,256 / 256 x 210 B = 861,880,320 B),
  // which ggml-cann does not multiply: the logits stay on the host, read
  // from the final norm's copy, 4 x 512 x (128,256 + 8,192) = 279,445,504 B
  // (ggml-org/llama.cpp#10777, b4302: CANN_Host 307.00 MiB, QwQ 32B's
  // 4 x 512 x (152,064 + 5,120)), and CANN0 runs the host blocks' products
  // alone: a host block's up product beside its copy, 329,254,912 B, as
  // CUDA0's in that test.
  for (SafetensorsTensor& t : m.tensors) {
    if (t.name == "output.weight") {
      m.weights.bytes = m.weights.bytes - t.data_bytes + 861880320;
      t.dtype = "q6_K";
      t.data_bytes = 861880320;
    }
  }
  const LlamaCppEstimate q6 = run(m, s);
  EXPECT_EQ(q6.placement.devices[1].compute_bytes, 279445504u);
  EXPECT_EQ(q6.placement.devices[0].compute_bytes, 329254912u);
  // A CUDA GPU multiplies q6_K: the logits are its again, with the copy,
  // 279,445,504 + 861,880,320 = 1,141,325,824 B.
  s.placement.gpus = {LlamaCppGpu{"cuda:0", "", 48 * kGiB}};
  EXPECT_EQ(run(m, s).placement.devices[0].compute_bytes, 1141325824u);
}

TEST(LlamaCppPlacement, HostWeightsInACpuExtraBufferKeepTheHostBlocksAttentionOnTheHost) {
  // The same 70B placement (32,768 cells, no flash attention, -ngl 65),
  // its host weights in AMX's buffer, as a build before #12498 put them:
  // no product on them is offloaded (is_host null; ggml-backend.cpp offloads
  // from host buffers only), so the host blocks' attention stays on the
  // host, which runs the attention phase, 4,294,967,296 (scores) +
  // 67,108,864 (mask) + 4 x 512 x 43,008 (88,080,384) = 4,450,156,544 B,
  // and CUDA0 reads no K and V copies: its own blocks' attention phase,
  // the same 4,450,156,544 B, not the 4,529,848,320 B with the copies.
  const Model m = llama_70b();
  LlamaCppSettings s;
  s.ctx_size = 32768;
  s.flash_attn = FlashAttn::kOff;
  s.placement.gpus = {LlamaCppGpu{"cuda:0", "", 48 * kGiB}};
  s.placement.n_gpu_layers = 65;
  s.placement.host_extra_buffer = true;
  const LlamaCppEstimate e = run(m, s);
  ASSERT_EQ(e.placement.devices.size(), 2u);
  EXPECT_EQ(e.placement.devices[1].blocks, 16u);
  EXPECT_EQ(e.placement.devices[1].compute_bytes, 4450156544u);
  EXPECT_EQ(e.placement.devices[0].compute_bytes, 4450156544u);
  // With --no-kv-offload the attention is the host's either way: the same.
  s.placement.kv_offload = false;
  EXPECT_EQ(run(m, s).placement.devices[1].compute_bytes, 4450156544u);
  // A build before #11120 (b4436) offloads the products on any weight the
  // CPU backend holds, an extra buffer's too: as from a host buffer, CUDA0
  // reads the host blocks' K and V copies, replayed as in the test above:
  // 4,567,599,104 B, and the host keeps its inputs: the
  // token rows 4 x 512 x 8,192 = 16,777,216, ids and positions 3 x 2,048
  // and the F32 mask 67,108,864: 83,892,224 B.
  s.placement.kv_offload = true;
  s.build = 4435;
  const LlamaCppEstimate old = run(m, s);
  EXPECT_EQ(old.placement.devices[0].compute_bytes, 4567599104u);
  EXPECT_EQ(old.placement.devices[1].compute_bytes, 83892224u);
  // b4436 keeps them on the host.
  s.build = 4436;
  EXPECT_EQ(run(m, s).placement.devices[1].compute_bytes, 4450156544u);
}

TEST(LlamaCppPlacement, AHostFirstBlocksAttentionReadsTheF32MasksCopyBesideItsKvCopies) {
  // Llama 3.1 8B with block 0 on the host (-ngl 32: the output and blocks
  // 1..31 on the GPU), 65,536 cells, U 512, flash attention, b8000 (before
  // #23764: an F32 mask input cast to F16). Op offload runs block 0's
  // attention on the GPU with copies of its K and V views, 2 x 65,536 x
  // 1,024 x 2 B = 268,435,456, and the cast, which has no weight, joins
  // that split, so its F32 copy 4 x 65,536 x 512 = 134,217,728 is there
  // too, beside the residual and Q 4 x 512 x (4,096 + 4,096) = 16,777,216,
  // the F16 mask 2 x 65,536 x 512 = 67,108,864 and the output 4 x 512 x
  // 4,096 = 8,388,608: 494,927,872 B, above the logits 4 x 512 x (128,256
  // + 4,096) = 270,532,608.
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec("llama3/Meta-Llama-3.1-8B");
  LlamaCppSettings s;
  s.ctx_size = 65536;
  s.build = 8000;
  s.flash_attn = FlashAttn::kOn;
  s.placement.gpus = {LlamaCppGpu{"cuda:0", "", 48 * kGiB}};
  s.placement.n_gpu_layers = 32;
  const LlamaCppEstimate e = run(m, s);
  ASSERT_EQ(e.placement.devices.size(), 2u);
  ASSERT_EQ(e.placement.devices[1].blocks, 1u);
  EXPECT_EQ(e.placement.devices[0].compute_bytes, 494927872u);
  // The pinned build takes an F16 mask input: no F32 copy, 360,710,144 B.
  s.build.reset();
  EXPECT_EQ(run(m, s).placement.devices[0].compute_bytes, 360710144u);
}

TEST(LlamaCppPlacement, OpOffloadCopiesAHostExpertTensorWholeBesideItsProduct) {
  // Qwen3-30B-A3B with every layer on a Vulkan GPU but its experts on the
  // host (--n-cpu-moe 48), a ubatch of 64 rows, 4,096 cells, flash
  // attention. Each expert product (mul_mat_id) runs on the GPU over a copy
  // of the whole expert tensor, 113,246,208 B (only the used experts are
  // transferred, but the copy has the tensor's layout), freed after it,
  // the next one's in its place. The replay (offload_split) peaks at block
  // 0's down projection: the copies of the positions, k_idxs, v_idxs and
  // the F16 mask (2 x 4,096 x 64 = 524,288) from 524,288, the routing's
  // weights and argsort, ffn_inp (4 x 64 x 2,048 = 524,288) at 2,098,432,
  // the SwiGLU (4 x 64 x 8 x 768 = 1,572,864) at 2,622,720, the copy at
  // 4,195,584 and the product (4 x 64 x 8 x 2,048 = 4,194,304) on top:
  // 4,195,584 + 113,246,208 + 4,194,304 = 121,636,096 B, above the logits
  // (4 x 64 x (151,936 + 2,048) = 39,419,904).
  const Model m = qwen3_30b_a3b();
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.ubatch_size = 64;
  s.placement.gpus = {LlamaCppGpu{"vulkan:0", "", 24 * kGiB}};
  s.placement.n_cpu_moe = 48;
  const LlamaCppEstimate e = run(m, s);
  ASSERT_EQ(e.placement.devices.size(), 2u);
  EXPECT_EQ(e.placement.devices[0].compute_bytes, 121636096u);
  // On a CUDA GPU the copy is padded as ggml-cuda pads a quantized row that
  // is no multiple of 512 elements (768: one row of 256 more, 8 x 18 =
  // 144 B), then aligned to 128 B: 113,246,464 B, 256 more.
  s.placement.gpus = {LlamaCppGpu{"cuda:0", "", 24 * kGiB}};
  EXPECT_EQ(run(m, s).placement.devices[0].compute_bytes, 121636352u);
  // Without the override the experts are on the GPU: the logits lead.
  s.placement.n_cpu_moe = 0;
  EXPECT_EQ(run(m, s).placement.devices[0].compute_bytes, 39419904u);
}

TEST(LlamaCppPlacement, Dense70BOn24And12GiBSplitsBlocksByFreeMemory) {
  const Model m = llama_70b();
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.placement.gpus = {gpu(0, 24 * kGiB), gpu(1, 12 * kGiB)};
  s.placement.n_gpu_layers = 41;
  const LlamaCppEstimate e = run(m, s);
  ASSERT_EQ(e.placement.devices.size(), 3u);
  const LlamaCppDeviceUsage& g0 = e.placement.devices[0];
  const LlamaCppDeviceUsage& g1 = e.placement.devices[1];
  const LlamaCppDeviceUsage& cpu = e.placement.devices[2];
  // -ngl 41 of 81: blocks 40..79 and the output; the 41 slots split at
  // 24/36: slot j on GPU 0 while j / 41 < 2/3, j <= 27: blocks 40..67
  // (28), GPU 1 blocks 68..79 (12) and the output.
  EXPECT_EQ(e.placement.n_gpu_layers, 41u);
  EXPECT_EQ(g0.blocks, 28u);
  EXPECT_EQ(g1.blocks, 12u);
  EXPECT_TRUE(g1.output_layer);
  EXPECT_EQ(cpu.blocks, 40u);
  // Model: 28 x 481,361,920; 12 x 481,361,920 + 591,003,648 + 32,768;
  // the host 40 blocks + token_embd.
  EXPECT_EQ(g0.model_bytes, 13478133760u);
  EXPECT_EQ(g1.model_bytes, 6367379456u);
  EXPECT_EQ(cpu.model_bytes, 19845480448u);
  // KV: 8,192 cells x (1,024 K + 1,024 V) x 2 B = 33,554,432 B a layer;
  // the host keeps its 40 blocks' and the output buffer, 4 x 128,256 B.
  EXPECT_EQ(g0.context_bytes, 28ull * 33554432);
  EXPECT_EQ(g1.context_bytes, 12ull * 33554432);
  EXPECT_EQ(cpu.context_bytes, 40ull * 33554432 + 513024);
  // Compute, n_tok 512, flash attention: the FFN phase 4 x 512 x (3 x
  // 28,672 + 4 x 8,192) + the f16 mask 2 x 8,192 x 512 = 251,658,240 B
  // on every device with blocks; the output phase on GPU 1, which holds
  // the output: the logits and result_norm alone, 4 x 512 x (128,256 +
  // 8,192) = 279,445,504 B.
  EXPECT_EQ(g0.compute_bytes, 251658240u);
  EXPECT_EQ(g1.compute_bytes, 279445504u);
  EXPECT_EQ(cpu.compute_bytes, 251658240u);
  // Margin 1 GiB: 23 and 11 GiB usable; both fit.
  EXPECT_EQ(g0.usable_bytes, 23 * kGiB);
  EXPECT_EQ(g1.total_bytes, 6367379456u + 402653184u + 279445504u);
  EXPECT_TRUE(g0.fits && g1.fits && cpu.fits);
  // The host's weights are mapped: page cache.
  EXPECT_EQ(cpu.page_cache_bytes, cpu.model_bytes);
  // The totals are the sums over the devices, with no repacked copies.
  EXPECT_EQ(e.model_bytes, g0.model_bytes + g1.model_bytes + cpu.model_bytes);
  EXPECT_EQ(e.repack_bytes, 0u);
  EXPECT_EQ(e.total_bytes, g0.total_bytes + g1.total_bytes + cpu.total_bytes);
  EXPECT_TRUE(e.fits);
}

TEST(LlamaCppPlacement, EachBlockCopiedTheRopeFactorsBefore10026AndEachDeviceSince) {
  // Llama 3.1 70B with its rope_freqs (64 f32 = 256 B, created with
  // block 0) on two GPUs of equal memory: 81 slots (80 blocks and the
  // output layer), block i on GPU 0 while i / 81 < 0.5, so blocks 0-40
  // there and 41-79 on GPU 1. Before b3990 (#10026) each block past
  // block 0 made its own copy on its device, 256 B each (a multiple of
  // the 128-B alignment already): 40 on GPU 0 = 10,240 B, 39 on GPU 1 =
  // 9,984 B. From b3990 a device reuses its copy: GPU 1 holds one, 256 B,
  // GPU 0 none past the original; so the older build has 10,240 B more on
  // GPU 0 and 9,984 - 256 = 9,728 B more on GPU 1.
  Model m = llama_70b();
  m.tensors.push_back(SafetensorsTensor{"rope_freqs.weight", "f32", {64}, 256});
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.placement.gpus = {gpu(0, 64 * kGiB), gpu(1, 64 * kGiB)};
  s.build = 3990;
  const LlamaCppEstimate shared = run(m, s);
  ASSERT_EQ(shared.placement.devices.size(), 3u);
  s.build = 3989;
  const LlamaCppEstimate per_block = run(m, s);
  EXPECT_EQ(per_block.placement.devices[0].model_bytes, shared.placement.devices[0].model_bytes + 10'240u);
  EXPECT_EQ(per_block.placement.devices[1].model_bytes, shared.placement.devices[1].model_bytes + 9'728u);
  // The copies live in GPU buffers: a host block's points into the mapping.
  EXPECT_EQ(per_block.placement.devices[2].model_bytes, shared.placement.devices[2].model_bytes);
}

TEST(LlamaCppPlacement, CudaAndSyclPadQuantizedRowsToFiveHundredTwelve) {
  // Qwen3-30B-A3B with its norms f32, as a GGUF holds them: of its
  // matrices only ffn_down_exps has rows no multiple of 512 elements
  // (768). ggml-cuda and ggml-sycl give each such tensor one row's
  // padding, 256 q4_0 elements = 8 x 18 = 144 B, so 113,246,208 + 144 B
  // rounds up to the next 128 B: 256 B more a block, 48 x 256 = 12,288 B
  // on a CUDA, ROCm or SYCL device; none on another backend's (gpu()'s).
  Model m = qwen3_30b_a3b();
  for (SafetensorsTensor& t : m.tensors) {
    if (t.shape.size() == 1 || t.name.ends_with("ffn_gate_inp.weight")) t.dtype = "f32";
  }
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.placement.gpus = {gpu(0, 64 * kGiB)};
  const uint64_t plain = run(m, s).placement.devices[0].model_bytes;
  for (const char* device : {"cuda:0", "rocm:0", "sycl:0"}) {
    s.placement.gpus = {LlamaCppGpu{device, "", 64 * kGiB}};
    EXPECT_EQ(run(m, s).placement.devices[0].model_bytes, plain + 12'288u) << device;
  }
}

TEST(LlamaCppPlacement, HostExtraBufferBesideAGpuAddsTheHostsRepackedQ4_0) {
  // The 70B with no layer offloaded (-ngl 0) beside one GPU, as a build
  // before #12498 ran it with a CPU_AARCH64 buffer on the host (check-log's
  // host_extra_buffer) and AVX2's kernels: every host matrix of q4_0 with
  // rows a multiple of 8 is repacked. A block's seven matrices: 2 x
  // 37,748,736 + 2 x 4,718,592 + 3 x 132,120,576 = 481,296,384 B; x 80 =
  // 38,503,710,720; output.weight (128,256 rows) 591,003,648; token_embd
  // (a lookup) not: 39,094,714,368 B, on top of the mapped weights, which
  // alone are the page cache.
  const Model m = llama_70b();
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.repack = RepackCpu::kX86Avx2;
  s.placement.gpus = {gpu(0, 24 * kGiB)};
  s.placement.n_gpu_layers = 0;
  const LlamaCppEstimate plain = run(m, s);
  s.placement.host_extra_buffer = true;
  const LlamaCppEstimate e = run(m, s);
  const LlamaCppDeviceUsage& host = e.placement.devices[1];
  EXPECT_EQ(host.model_bytes, plain.placement.devices[1].model_bytes + 39094714368u);
  EXPECT_EQ(e.repack_bytes, 39094714368u);
  EXPECT_EQ(plain.repack_bytes, 0u);
  EXPECT_EQ(host.page_cache_bytes, plain.placement.devices[1].page_cache_bytes);
  // Without the CPU's kernels (repack none) nothing is repacked.
  s.repack = RepackCpu::kNone;
  EXPECT_EQ(run(m, s).placement.devices[1].model_bytes, plain.placement.devices[1].model_bytes);
}

TEST(LlamaCppPlacement, EachGpusFfnPhaseIsItsOwnBlocksWidestFfn) {
  // The 70B with every block but 61..79 narrowed to an FFN of 14,336 (as
  // a Deci model's per-layer widths), every layer on two GPUs of equal
  // free memory: GPU 0 holds blocks 0..40 (41, all narrow), GPU 1 41..79
  // and the output. Flash attention, 4,096 cells, U 512: the attention
  // phase, 4 x 512 x (2 x 8,192 + 8,192 + 1,024 + 1,024 + 2 x 8,192) +
  // 2 x 4,096 x 512 = 92,274,688, is below either FFN. GPU 0's FFN at its
  // own widest, 14,336: 4 x 512 x (3 x 14,336 + 4 x 8,192) + the F16 mask
  // 2 x 4,096 x 512 = 155,189,248 + 4,194,304 = 159,383,552 B, where the
  // model's widest, 28,672, gives 243,269,632 + 4,194,304 = 247,463,936.
  // Named a Deci model (its architecture), as the widths are: the device
  // graph replay, which reads one width from the config, builds none for it.
  Model m = llama_70b();
  m.spec.model_type = "deci";
  for (SafetensorsTensor& t : m.tensors) {
    const bool wide = t.name.size() > 7 && t.name.starts_with("blk.") && t.name[6] == '.' &&
                      ((t.name[4] == '6' && t.name[5] != '0') || t.name[4] == '7');  // blk.61. .. blk.79.
    if (wide || !t.name.starts_with("blk.") || t.shape.size() != 2 || t.name.find("ffn_") == std::string::npos) {
      continue;
    }
    if (t.name.ends_with("ffn_down.weight")) {
      t.shape = {8192, 14336};
    } else {
      t.shape = {14336, 8192};
    }
    m.weights.bytes -= t.data_bytes;
    t.data_bytes = q4_0(8192ull * 14336);
    m.weights.bytes += t.data_bytes;
  }
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.flash_attn = FlashAttn::kOn;
  s.placement.gpus = {gpu(0, 48 * kGiB), gpu(1, 48 * kGiB)};
  const LlamaCppEstimate e = run(m, s);
  ASSERT_EQ(e.placement.devices[0].blocks, 41u);
  EXPECT_EQ(e.placement.devices[0].compute_bytes, 159383552u);
}

TEST(LlamaCppPlacement, EveryLayerOnTwoGpusLeavesTheSmallerShort) {
  const Model m = llama_70b();
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.placement.gpus = {gpu(0, 24 * kGiB), gpu(1, 12 * kGiB)};
  // auto: 81 slots, j on GPU 0 while j < 54: blocks 0..53 there, 54..79
  // (26) and the output on GPU 1: 26 x 481,361,920 + 591,036,416 =
  // 13,106,446,336 B of weights alone, past 11 GiB usable.
  const LlamaCppEstimate e = run(m, s);
  EXPECT_EQ(e.placement.devices[0].blocks, 54u);
  EXPECT_EQ(e.placement.devices[1].blocks, 26u);
  EXPECT_EQ(e.placement.devices[1].model_bytes, 13106446336u);
  EXPECT_FALSE(e.placement.devices[0].fits);
  EXPECT_FALSE(e.placement.devices[1].fits);
  // GPU 1: 13,106,446,336 + 26 x 33,554,432 + the output phase on a GPU
  // 4 x 512 x (128,256 + 8,192) = 279,445,504 - 11 GiB.
  EXPECT_EQ(e.placement.devices[1].short_bytes,
            13106446336u + 26ull * 33554432 + 279445504 - 11 * kGiB);
  EXPECT_TRUE(e.placement.devices[2].fits);
  EXPECT_EQ(e.placement.devices[2].model_bytes, 591003648u);  // token_embd only
  EXPECT_FALSE(e.fits);
}

// Before #18148 (and in every Ollama release's llama.cpp) -ngl N takes the
// last N blocks, i_gpu_start = n_layer - N, and the output layer only past
// n_layer: the same -ngl 41 as above moves one block onto GPU 1 and the
// output layer onto the host.
TEST(LlamaCppPlacement, OlderBuildsOffloadTheLastBlocksBeforeTheOutputLayer) {
  const Model m = llama_70b();
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.placement.gpus = {gpu(0, 24 * kGiB), gpu(1, 12 * kGiB)};
  s.placement.n_gpu_layers = 41;
  s.build = kLlamaCppOutputFirstBuild - 1;  // b7590
  const LlamaCppEstimate e = run(m, s);
  ASSERT_EQ(e.placement.devices.size(), 3u);
  const LlamaCppDeviceUsage& g0 = e.placement.devices[0];
  const LlamaCppDeviceUsage& g1 = e.placement.devices[1];
  const LlamaCppDeviceUsage& cpu = e.placement.devices[2];
  // i_gpu_start = 80 - 41 = 39: blocks 39..79 are slots 0..40 of 41; slot
  // j on GPU 0 while j / 41 < 2/3, j <= 27: blocks 39..66 (28), GPU 1
  // blocks 67..79 (13); the output layer (index 80, slot 41) on the host.
  EXPECT_EQ(e.placement.n_gpu_layers, 41u);
  EXPECT_EQ(g0.blocks, 28u);
  EXPECT_EQ(g1.blocks, 13u);
  EXPECT_EQ(cpu.blocks, 39u);
  EXPECT_FALSE(g1.output_layer);
  EXPECT_TRUE(cpu.output_layer);
  // Model: 28 x 481,361,920 = 13,478,133,760; 13 x 481,361,920 =
  // 6,257,704,960; the host 39 x 481,361,920 + token_embd 591,003,648 +
  // output 591,003,648 + output_norm 32,768 = 19,955,154,944 (the same
  // 39,690,993,664 in all as the newer rule's).
  EXPECT_EQ(g0.model_bytes, 13478133760u);
  EXPECT_EQ(g1.model_bytes, 6257704960u);
  EXPECT_EQ(cpu.model_bytes, 19955154944u);
  // KV 33,554,432 B a block; the host's output buffer 513,024 B.
  EXPECT_EQ(g1.context_bytes, 13ull * 33554432);
  EXPECT_EQ(cpu.context_bytes, 39ull * 33554432 + 513024);

  // The first build with #18148 prices the newer rule (the test above).
  s.build = kLlamaCppOutputFirstBuild;
  EXPECT_EQ(run(m, s).placement.devices[1].blocks, 12u);
  EXPECT_TRUE(run(m, s).placement.devices[1].output_layer);
  // The setting alone, on the pinned build, selects the older rule too.
  s.build.reset();
  s.placement.output_layer_first = false;
  EXPECT_EQ(run(m, s).placement.devices[1].model_bytes, 6257704960u);
}

// -ngl 80 of 81 slots: every block and not the output layer under the older
// rule (i_gpu_start = 0, slot 80 past the 80 offloaded); the output layer
// and blocks 1..79 under the newer (i_gpu_start = 81 - 80 = 1). One GPU.
TEST(LlamaCppPlacement, NglOfEveryBlockKeepsTheOutputLayerOnTheHostBeforeTheChange) {
  const Model m = llama_70b();
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.placement.gpus = {gpu(0, 80 * kGiB)};
  s.placement.n_gpu_layers = 80;
  LlamaCppEstimate e = run(m, s);
  EXPECT_EQ(e.placement.devices[0].blocks, 79u);
  EXPECT_TRUE(e.placement.devices[0].output_layer);
  // The host: block 0 + token_embd = 481,361,920 + 591,003,648.
  EXPECT_EQ(e.placement.devices[1].model_bytes, 1072365568u);
  s.placement.output_layer_first = false;
  e = run(m, s);
  EXPECT_EQ(e.placement.devices[0].blocks, 80u);
  EXPECT_FALSE(e.placement.devices[0].output_layer);
  // The host: token_embd + output + output_norm = 591,003,648 x 2 + 32,768.
  EXPECT_EQ(e.placement.devices[1].model_bytes, 1182040064u);
  // -ngl 0 offloads nothing under either rule.
  s.placement.n_gpu_layers = 0;
  e = run(m, s);
  EXPECT_EQ(e.placement.devices[0].blocks, 0u);
  EXPECT_FALSE(e.placement.devices[0].output_layer);
}

TEST(LlamaCppPlacement, TensorSplitNoneAndNoKvOffload) {
  const Model m = llama_70b();
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.placement.gpus = {gpu(0, 24 * kGiB), gpu(1, 12 * kGiB)};
  s.placement.n_gpu_layers = 9;  // blocks 72..79 + output
  s.placement.tensor_split = {1, 1};
  // 9 slots at 1:1: j / 9 < 1/2 for j <= 4: blocks 72..76 on GPU 0.
  LlamaCppEstimate e = run(m, s);
  EXPECT_EQ(e.placement.devices[0].blocks, 5u);
  EXPECT_EQ(e.placement.devices[1].blocks, 3u);
  s.placement.split_mode = SplitMode::kNone;
  s.placement.tensor_split.clear();  // none reads no split
  s.placement.main_gpu = 1;
  s.placement.kv_offload = false;
  e = run(m, s);
  EXPECT_EQ(e.placement.devices[0].blocks, 0u);
  EXPECT_EQ(e.placement.devices[0].total_bytes, 0u);
  EXPECT_EQ(e.placement.devices[1].blocks, 8u);
  EXPECT_EQ(e.placement.devices[1].context_bytes, 0u);
  // Every layer's KV on the host: 80 x 33,554,432 + the output buffer.
  EXPECT_EQ(e.placement.devices[2].context_bytes, 80ull * 33554432 + 513024);
  s.placement.main_gpu = 2;
  EXPECT_FALSE(estimate_llamacpp(m, s, kHostPlacement).ok());
}

// Llama 3.1 70B with Gemma 3n's per-layer input tensors added: a
// 10,752 x 128,256 table at Q4_0 (775,692,288 B), a 8,192 x 10,752
// projection (49,545,216 B) and a 256-wide F32 norm (1,024 B).
Model with_per_layer_inputs() {
  Model m = llama_70b();
  add(m, "per_layer_model_proj.weight", {10752, 8192}, q4_0(8192ull * 10752));
  add(m, "per_layer_proj_norm.weight", {256}, 1024);
  add(m, "per_layer_token_embd.weight", {128256, 10752}, q4_0(10752ull * 128256));
  return m;
}

TEST(LlamaCppPlacement, PerLayerEmbeddingsFollowTheOutputLayerBeforeB8720) {
  // Before b8720 the per-layer embedding table, its projection and norm
  // are LLM_TENSOR_LAYER_OUTPUT tensors (llama-arch.cpp): they sit on the
  // output layer's GPU, token_embd alone on the host.
  const Model m = with_per_layer_inputs();
  LlamaCppSettings s;
  s.build = 8702;
  s.ctx_size = 4096;
  s.placement.gpus = {gpu(0, 80 * kGiB)};
  s.placement.n_gpu_layers = 81;  // every block and the output layer
  LlamaCppEstimate e = run(m, s);
  // The host: token_embd, 591,003,648 B.
  EXPECT_EQ(e.placement.devices[1].model_bytes, 591003648u);
  // The GPU: 80 blocks of 481,361,920 B, output 591,003,648 B and its
  // norm 32,768 B, and the three: 775,692,288 + 49,545,216 + 1,024.
  EXPECT_EQ(e.placement.devices[0].model_bytes,
            80ull * 481361920 + 591003648 + 32768 + 775692288 + 49545216 + 1024);
  // -ngl 41: the output layer and blocks 40 to 79 (output first, b7591
  // on); the three still follow the output layer.
  s.placement.n_gpu_layers = 41;
  e = run(m, s);
  EXPECT_EQ(e.placement.devices[0].model_bytes,
            40ull * 481361920 + 591003648 + 32768 + 775692288 + 49545216 + 1024);
}

TEST(LlamaCppPlacement, PerLayerEmbeddingTableOnTheHostProjectionWithBlockZero) {
  // From b8720 (the default) the table is an LLM_TENSOR_LAYER_INPUT
  // tensor, on the host beside token_embd, and the projection and its norm
  // LLM_TENSOR_LAYER_REPEATING ones of bid 0, on block 0's device.
  const Model m = with_per_layer_inputs();
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.placement.gpus = {gpu(0, 80 * kGiB)};
  s.placement.n_gpu_layers = 81;  // every block and the output layer
  LlamaCppEstimate e = run(m, s);
  // The host: token_embd 591,003,648 B and the table 775,692,288 B.
  EXPECT_EQ(e.placement.devices[1].model_bytes, 591003648ull + 775692288);
  // The GPU: 80 blocks of 481,361,920 B, output 591,003,648 B and its
  // norm 32,768 B, and block 0's projection and norm: 49,545,216 + 1,024.
  EXPECT_EQ(e.placement.devices[0].model_bytes, 80ull * 481361920 + 591003648 + 32768 + 49545216 + 1024);
  // -ngl 41: the output layer and blocks 40 to 79 on the GPU; block 0,
  // and so the projection and norm, on the host.
  s.placement.n_gpu_layers = 41;
  e = run(m, s);
  EXPECT_EQ(e.placement.devices[0].model_bytes, 40ull * 481361920 + 591003648 + 32768);
}

TEST(LlamaCppPlacement, Gemma3nAltUpProjectionsFollowTheOutputLayer) {
  // Gemma 3n's altup_proj and altup_unembd_proj are LLM_TENSOR_LAYER_OUTPUT
  // too: with the output layer offloaded they sit on its GPU. Llama 3.1
  // 70B with two 8,192 x 8,192 x 3 F16 stacks (402,653,184 B each) added.
  Model m = llama_70b();
  add(m, "altup_proj.weight", {3, 8192, 8192}, 402653184);
  add(m, "altup_unembd_proj.weight", {3, 8192, 8192}, 402653184);
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.placement.gpus = {gpu(0, 80 * kGiB)};
  s.placement.n_gpu_layers = 81;  // every block and the output layer
  const LlamaCppEstimate e = run(m, s);
  // The host: token_embd alone, 591,003,648 B.
  EXPECT_EQ(e.placement.devices[1].model_bytes, 591003648u);
  // The GPU: 80 blocks of 481,361,920 B, output 591,003,648 B and its
  // norm 32,768 B, and the two stacks.
  EXPECT_EQ(e.placement.devices[0].model_bytes, 80ull * 481361920 + 591003648 + 32768 + 2ull * 402653184);
}

TEST(LlamaCppPlacement, Qwen3MoeKeepsTheFirstBlocksExpertsOnTheHost) {
  const Model m = qwen3_30b_a3b();
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.placement.gpus = {gpu(0, 24 * kGiB)};
  s.placement.n_cpu_moe = 20;
  const LlamaCppEstimate e = run(m, s);
  const LlamaCppDeviceUsage& g = e.placement.devices[0];
  const LlamaCppDeviceUsage& cpu = e.placement.devices[1];
  // GPU: 28 whole blocks x 351,421,440 + 20 x 11,682,816 without experts
  // + output 175,030,272 + 8,192.
  EXPECT_EQ(g.model_bytes, 28ull * 351421440 + 20ull * 11682816 + 175038464);
  // Host: 20 x 3 x 113,246,208 of experts + token_embd.
  EXPECT_EQ(cpu.model_bytes, 20ull * 339738624 + 175030272);
  EXPECT_EQ(cpu.page_cache_bytes, cpu.model_bytes);
  // KV stays with the layers: 48 x 4,096 cells x (512 + 512) x 2 B.
  EXPECT_EQ(g.context_bytes, 48ull * 8388608);
  EXPECT_EQ(cpu.context_bytes, 4ull * 151936);
  // Compute: the output phase on the GPU, 4 x 512 x (151,936 + 2,048)
  // (the logits and result_norm);
  // the host runs the experts: FFN 4 x 512 x (3 x (8 x 768 + 128) + 4 x
  // 2,048) + mask 2 x 4,096 x 512.
  EXPECT_EQ(g.compute_bytes, 315359232u);
  EXPECT_EQ(cpu.compute_bytes, 59506688u);

  // -ot exps=CPU is --n-cpu-moe 48 (every block's experts on the host).
  LlamaCppSettings ot = s;
  ot.placement.n_cpu_moe = 0;
  Result<LlamaCppTensorOverride> rule = parse_tensor_override("exps=CPU");
  ASSERT_TRUE(rule.ok());
  ot.placement.overrides = {*rule};
  LlamaCppSettings all = s;
  all.placement.n_cpu_moe = 48;
  EXPECT_EQ(run(m, ot).placement.devices[1].model_bytes, 48ull * 339738624 + 175030272);
  EXPECT_EQ(run(m, all).placement.devices[1].model_bytes, 48ull * 339738624 + 175030272);

  // --no-mmap: the same weights, resident.
  s.placement.mmap = false;
  EXPECT_EQ(run(m, s).placement.devices[1].page_cache_bytes, 0u);
}

// ggml-cann multiplies f32, f16, q8_0 and q4_0 weights only and has no
// ADD_ID (ggml_backend_cann_supports_op), so llama.cpp's select_weight_buft
// leaves any other weight, and a routed expert's bias, in the host buffer:
// ggml-org gpt-oss-20b's MXFP4 experts on eight Ascend 910B (b6115) put
// only the attention (81.90 MiB for three blocks) on each NPU.
TEST(LlamaCppPlacement, CannKeepsWeightsOfTypesItCannotMultiplyOnTheHost) {
  Model m = qwen3_30b_a3b();
  for (SafetensorsTensor& t : m.tensors) {
    if (t.name.find("_exps.") != std::string::npos) t.dtype = "mxfp4";
  }
  // One expert bias, 128 x 768 f32 = 393,216 B (gpt-oss's ffn_up_exps.bias).
  m.tensors.push_back(SafetensorsTensor{"blk.47.ffn_up_exps.bias", "f32", {128, 768}, 393216});
  m.weights.bytes += 393216;
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.placement.gpus = {LlamaCppGpu{"cann:0", "", 24 * kGiB}};
  const LlamaCppEstimate e = run(m, s);
  // NPU: 48 blocks' 11,682,816 B without experts + output 175,030,272 +
  // output_norm 8,192 (q4_0 and f32: CANN runs them).
  EXPECT_EQ(e.placement.devices[0].model_bytes, 48ull * 11682816 + 175038464);
  // Host: 48 x 3 x 113,246,208 B of experts + the bias 393,216 + token_embd
  // 175,030,272.
  EXPECT_EQ(e.placement.devices[1].model_bytes, 48ull * 339738624 + 393216 + 175030272);
  // Any other backend runs MXFP4 and ADD_ID: the experts stay with their
  // blocks, the host keeps token_embd alone.
  s.placement.gpus = {gpu(0, 48 * kGiB)};
  EXPECT_EQ(run(m, s).placement.devices[1].model_bytes, 175030272u);
}

// A GPU none of whose blocks' FFN weights stayed with it runs only their
// attention: the scheduler runs a product on its weight's backend
// (ggml_backend_sched_backend_id_from_cur), and a backend without op
// offload (any "gpu:" here) takes none of the host's. Qwen3-30B-A3B, its
// 48 blocks on the GPU and the output layer on the host (-ngl 48 with the
// last blocks offloaded first, as before #18148), 4,096 cells, U 512,
// flash attention on.
TEST(LlamaCppPlacement, AGpuWhoseBlocksFfnIsOnTheHostRunsTheirAttentionOnly) {
  const Model m = qwen3_30b_a3b();
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.flash_attn = FlashAttn::kOn;
  s.placement.gpus = {gpu(0, 24 * kGiB)};
  s.placement.n_gpu_layers = 48;
  s.placement.output_layer_first = false;
  Result<LlamaCppTensorOverride> experts = parse_tensor_override("exps=CPU");
  ASSERT_TRUE(experts.ok());
  // Experts here: the FFN phase, 4 x 512 x (3 x (8 x 768 + 128) + 4 x 2,048)
  // = 2,048 x 27,008 = 55,312,384 B and the mask of the layers to come,
  // 2 x 4,096 x 512 = 4,194,304: 59,506,688 B, above the attention's.
  EXPECT_EQ(run(m, s).placement.devices[0].compute_bytes, 59506688u);
  // -ot exps=CPU: the attention, 4 x 512 x (2 x 2,048 + 4,096 + 512 +
  // 512 + 2 x 4,096) = 35,651,584 and the F16 mask 2 x 4,096 x 512 =
  // 4,194,304: 39,845,888 B.
  s.placement.overrides = {*experts};
  EXPECT_EQ(run(m, s).placement.devices[0].compute_bytes, 39845888u);
}

// Before #18898 flash attention's mask is an F32 input cast to F16 in the
// graph; the cast runs on the GPU of the first block, which then holds the
// scheduler's copies of the input rows and of the F32 mask, the first
// block's query and the F16 cast at once (compute.cc, mask_cast_phase).
// Qwen3-30B-A3B over two GPUs, every layer offloaded, 32,768 cells, U 512,
// as llama.cpp b5384 ran it in ggml-org/llama.cpp#13545.
TEST(LlamaCppPlacement, MaskCastOfAnOlderBuildSitsOnTheFirstBlocksGpu) {
  const Model m = qwen3_30b_a3b();
  LlamaCppSettings s;
  s.ctx_size = 32768;
  s.flash_attn = FlashAttn::kOn;
  s.build = 5384;
  s.placement.gpus = {gpu(0, 24 * kGiB), gpu(1, 24 * kGiB)};
  const LlamaCppEstimate e = run(m, s);
  ASSERT_EQ(e.placement.devices.size(), 3u);
  // Every layer on the GPUs: each GPU's split replayed (device_split).
  // GPU 0: its split's copies first, the input rows 4 x 512 x 2,048 =
  // 4,194,304, positions 2,048 and the F32 mask 4 x 32,768 x 512 =
  // 67,108,864 (no KV indices before #14959); block 0's norm 4,194,304, Q's
  // product 8,388,608 and Q's norm (RoPE in place over it) 8,388,608; then
  // the F16 cast 2 x 32,768 x 512 = 33,554,432 on top: 125,831,168 B =
  // 120.00 MiB, what b5384's ROCm0 prints for this run (#13545).
  EXPECT_EQ(e.placement.devices[0].compute_bytes, 125831168u);
  // GPU 1 holds the output layer: 4 x 512 x (151,936 + 2,048); its mask is
  // the F16 copy of GPU 0's cast.
  EXPECT_EQ(e.placement.devices[1].compute_bytes, 315359232u);
  // The pinned build takes an F16 mask input: no cast. The copies, rows
  // 4,194,304, positions 2,048, k_idxs and v_idxs 4,096 each, the F16 mask
  // 33,554,432, are 37,758,976 B; block 0's norm and Q product leave their
  // 12,582,912 B to the attention output and ffn_inp; the experts' gate, up
  // and SwiGLU, 3 x 4 x 768 x 8 x 512 = 37,748,736, and the down product
  // 4 x 2,048 x 8 x 512 = 33,554,432 stack above: 121,645,056.
  s.build.reset();
  EXPECT_EQ(run(m, s).placement.devices[0].compute_bytes, 37758976u + 12582912u + 37748736u + 33554432u);
  // Without flash attention nothing is cast: the copies (71,305,216 B at
  // b5384), block 0's norm, Q product and Q norm (20,971,520) and the
  // scores 4 x 32,768 x 512 x 32 = 2,147,483,648 (the softmax in place):
  // 2,239,760,384.
  s.build = 5384;
  s.flash_attn = FlashAttn::kOff;
  EXPECT_EQ(run(m, s).placement.devices[0].compute_bytes, 71305216u + 20971520u + 2147483648u);
}

TEST(LlamaCppPlacement, OverridesMatchInOrderAndNameTheirGpu) {
  const Model m = qwen3_30b_a3b();
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.placement.gpus = {gpu(0, 24 * kGiB), gpu(1, 24 * kGiB)};
  s.placement.n_gpu_layers = 0;  // nothing offloaded ...
  // ... but blocks 0..9's FFN tensors go to GPU 1 (the first rule wins
  // over the second's CPU).
  for (std::string_view text : {R"(blk\.(\d)\.ffn_.*=CUDA1)", R"(\.ffn_.*_exps\.=CPU)"}) {
    Result<LlamaCppTensorOverride> rule = parse_tensor_override(text);
    ASSERT_TRUE(rule.ok()) << text;
    s.placement.overrides.push_back(*rule);
  }
  const LlamaCppEstimate e = run(m, s);
  // 10 x (3 x 113,246,208 + 1,048,576 + 8,192 (ffn_norm)).
  EXPECT_EQ(e.placement.devices[1].model_bytes, 10ull * (339738624 + 1048576 + 8192));
  EXPECT_EQ(e.placement.devices[0].model_bytes, 0u);
  EXPECT_EQ(e.placement.devices[1].context_bytes, 0u);  // weights only: KV stays
  EXPECT_EQ(e.placement.n_gpu_layers, 0u);
}

TEST(LlamaCppPlacement, SlidingWindowGemmaKeepsEachLayersCacheWithItsLayer) {
  Model m = gguf_of(testing::corpus_spec("gemma3/gemma-3-1b-it"));
  m.weights.bytes = 1ull << 30;
  // Gemma 3 1B: 26 layers, every sixth (5, 11, 17, 23) global, the others
  // a window of 512; one KV head of 256.
  ASSERT_EQ(m.spec.layers.size(), 26u);
  ASSERT_EQ(m.spec.layers[5].kind, LayerKind::kFullAttention);
  ASSERT_EQ(m.spec.layers[0].kind, LayerKind::kSlidingWindow);
  ASSERT_EQ(m.spec.layers[0].window_tokens, 512u);
  LlamaCppSettings s;
  s.ctx_size = 32768;
  s.placement.gpus = {gpu(0, 8 * kGiB)};
  s.placement.n_gpu_layers = 14;  // blocks 13..25 and the output
  const LlamaCppEstimate e = run(m, s);
  // A global layer 32,768 x (256 + 256) x 2 B = 33,554,432; a windowed one
  // pad256(512 + 512) = 1,024 cells: 1,048,576 B. Blocks 13..25 hold 2
  // global (17, 23) and 11 windowed, blocks 0..12 as many (5, 11).
  EXPECT_EQ(e.placement.devices[0].context_bytes, 2ull * 33554432 + 11ull * 1048576);
  EXPECT_EQ(e.placement.devices[1].context_bytes, 2ull * 33554432 + 11ull * 1048576 + 4ull * 262144);
  EXPECT_EQ(e.context_bytes, e.kv_bytes + e.output_bytes);
  // No tensor list: the weights split evenly, 1 GiB / 28 = 38,347,922 B a
  // share, padded to 128 on the GPU (38,348,032): 13 blocks + the output.
  EXPECT_EQ(e.placement.devices[0].model_bytes, 14ull * 38348032);
}

// Qwen3.5-27B (the corpus config; llamacpp-neverllama4-qwen35-27b-q4ks-4070-ngl26
// prints these buffers): 64 layers, every fourth (3, 7, ..., 63) full
// attention with 4 KV heads of 256, the others a gated delta net whose
// state is r 3 x (6144 + 2 x 16 x 128) x 4 B = 122,880 B and s
// 48 x 128 x 128 x 4 B = 3,145,728 B: 3,268,608 B a layer and sequence.
TEST(LlamaCppPlacement, HybridDeviceKeepsItsRecurrentLayersStateApartFromItsKv) {
  Model m = gguf_of(testing::corpus_spec("qwen3_5/Qwen3.5-27B"));
  m.weights.bytes = 14ull * kGiB;
  ASSERT_EQ(m.spec.layers.size(), 64u);
  ASSERT_EQ(m.spec.layers[63].kind, LayerKind::kFullAttention);
  ASSERT_EQ(m.spec.layers[62].kind, LayerKind::kLinearAttention);
  ASSERT_EQ(m.spec.layers[62].state_bytes, 3268608u);
  LlamaCppSettings s;
  s.ctx_size = 131072;
  s.parallel = 1;
  s.placement.gpus = {gpu(0, 12 * kGiB)};
  s.placement.n_gpu_layers = 26;  // the output layer and blocks 39..63
  const LlamaCppEstimate e = run(m, s);
  // An attention layer: 131,072 cells x 4 x 256 x 2 B x (K, V) = 536,870,912 B.
  // Blocks 39..63 hold 7 of them (39, 43, ..., 63) and 18 recurrent layers;
  // blocks 0..38 hold 9 and 30 (the log: CUDA0 KV 3584 MiB, RS 56.11 MiB;
  // CPU KV 4608 MiB, RS 93.52 MiB).
  EXPECT_EQ(e.placement.devices[0].recurrent_bytes, 18ull * 3268608);
  EXPECT_EQ(e.placement.devices[0].context_bytes, 7ull * 536870912 + 18ull * 3268608);
  EXPECT_EQ(e.placement.devices[1].recurrent_bytes, 30ull * 3268608);
  EXPECT_EQ(e.placement.devices[1].context_bytes, 9ull * 536870912 + 30ull * 3268608 + e.output_bytes);
  EXPECT_EQ(e.recurrent_bytes, 48ull * 3268608);
}

TEST(LlamaCppPlacement, WithoutGpusOneHostDeviceHoldsTheEstimate) {
  const Model m = qwen3_30b_a3b();
  LlamaCppSettings s;
  s.ctx_size = 4096;
  const LlamaCppEstimate e = run(m, s);
  ASSERT_EQ(e.placement.devices.size(), 1u);
  EXPECT_EQ(e.placement.devices[0].device, "cpu");
  EXPECT_EQ(e.placement.devices[0].total_bytes, e.total_bytes);
  EXPECT_EQ(e.placement.devices[0].page_cache_bytes, e.mapped_bytes);
}

TEST(LlamaCppPlacement, UnifiedMemoryCountsEveryDeviceOnceInOnePool) {
  const Model m = qwen3_30b_a3b();
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.placement.gpus = {LlamaCppGpu{"metal:0", "Apple GPU", 20 * kGiB}};
  s.placement.unified = true;
  const MemoryBudget pool{20 * kGiB, 20 * kGiB, BudgetSource::kUnifiedMemory};
  const LlamaCppEstimate e = run(m, s, pool);
  EXPECT_EQ(e.placement.devices[0].usable_bytes, 20 * kGiB);
  EXPECT_EQ(e.placement.devices[0].fits, e.total_bytes <= 20 * kGiB);
  EXPECT_EQ(e.placement.devices[1].fits, e.placement.devices[0].fits);
}

TEST(LlamaCppPlacementSolver, MostGpuLayersOf70BOn24And12GiB) {
  // A block with its KV is 481,361,920 + 33,554,432 = 514,916,352 B.
  // GPU 0 (23 GiB usable) holds b0 blocks + 251,658,240 of compute:
  // b0 <= 47. GPU 1 (11 GiB) holds b1 blocks + the output layer
  // (591,036,416) + 312,999,936 of compute: b1 <= 21. -ngl n gives GPU 0
  // ceil(2n/3) slots and GPU 1 the rest: n = 68 is 46 + 21 + the output;
  // n = 69 is 46 + 22, GPU 1 short, and every n above leaves one short.
  const Model m = llama_70b();
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.placement.gpus = {gpu(0, 24 * kGiB), gpu(1, 12 * kGiB)};
  Result<LlamaCppSolution> answer = solve_llamacpp(LlamaCppSolveFor::kGpuLayers, m, s, kHostPlacement);
  ASSERT_TRUE(answer.ok()) << answer.error().message();
  ASSERT_TRUE(answer->value.has_value());
  EXPECT_EQ(*answer->value, 68u);
  EXPECT_FALSE(answer->capped);
  EXPECT_TRUE(answer->estimate->fits);
  EXPECT_EQ(answer->estimate->placement.devices[0].blocks, 46u);
  EXPECT_EQ(answer->estimate->placement.devices[1].blocks, 21u);
  s.placement.n_gpu_layers = 69;
  const LlamaCppEstimate more = run(m, s);
  EXPECT_FALSE(more.fits);
  EXPECT_FALSE(more.placement.devices[1].fits);
  // Without GPUs there is nothing to solve.
  s.placement.gpus.clear();
  EXPECT_FALSE(solve_llamacpp(LlamaCppSolveFor::kGpuLayers, m, s, kHostPlacement).ok());
}

TEST(LlamaCppPlacementSolver, FewestCpuMoeBlocksOfQwen3On8GiB) {
  // Every layer on the GPU (7 GiB usable = 7,516,192,768 B): the
  // non-expert weights 48 x 11,682,816 + the output 175,038,464, KV
  // 402,653,184 and compute 315,359,232 (the output phase on a GPU, 4 x
  // 512 x (151,936 + 2,048)) are 1,453,826,048 B; each block's experts
  // 339,738,624 B more: at most 17 blocks' experts, so --n-cpu-moe 31
  // (7,229,382,656 B) and not 30 (7,569,121,280 B).
  const Model m = qwen3_30b_a3b();
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.placement.gpus = {gpu(0, 8 * kGiB)};
  Result<LlamaCppSolution> answer = solve_llamacpp(LlamaCppSolveFor::kNCpuMoe, m, s, kHostPlacement);
  ASSERT_TRUE(answer.ok()) << answer.error().message();
  ASSERT_TRUE(answer->value.has_value());
  EXPECT_EQ(*answer->value, 31u);
  EXPECT_EQ(answer->estimate->placement.devices[0].total_bytes, 7229382656u);
  s.placement.n_cpu_moe = 30;
  EXPECT_EQ(run(m, s).placement.devices[0].total_bytes, 7569121280u);
  EXPECT_FALSE(run(m, s).fits);
  // A dense model has no experts to keep on the host.
  EXPECT_FALSE(solve_llamacpp(LlamaCppSolveFor::kNCpuMoe, llama_70b(), s, kHostPlacement).ok());
}

// The fuzzer's find: a back-reference whose number overflows libstdc++'s int
// parse (\5555...5, undefined behaviour inside std::regex), and repeat counts
// that copy the automaton a billion times. Both are refused before std::regex
// sees them; counts up to 1000 and escaped non-digits still pass.
TEST(LlamaCppPlacementFlags, RefusesPatternsStdRegexCannotTakeSafely) {
  EXPECT_FALSE(parse_tensor_override(R"(\1=CPU)").ok());
  EXPECT_FALSE(parse_tensor_override(std::string("\\") + std::string(38, '5') + ".=CPU").ok());
  EXPECT_FALSE(parse_tensor_override("a{1001}=CPU").ok());
  EXPECT_FALSE(parse_tensor_override("a{2,99999999999999999999}=CPU").ok());
  EXPECT_TRUE(parse_tensor_override("a{2,1000}=CPU").ok());
  EXPECT_TRUE(parse_tensor_override(R"(blk\.\d+\.ffn_.*_exps=CPU)").ok());
  // A library caller who skips the parser meets the same check.
  const Model m = qwen3_30b_a3b();
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.placement.gpus = {gpu(0, 24 * kGiB)};
  s.placement.overrides.push_back(LlamaCppTensorOverride{.pattern = R"(\9)", .gpu = std::nullopt});
  EXPECT_FALSE(estimate_llamacpp(m, s, kHostPlacement).ok());
}

TEST(LlamaCppPlacementFlags, ParseWhatUsersPass) {
  EXPECT_FALSE(parse_n_gpu_layers("auto")->has_value());
  EXPECT_FALSE(parse_n_gpu_layers("all")->has_value());
  EXPECT_EQ(**parse_n_gpu_layers("41"), 41u);
  EXPECT_FALSE(parse_n_gpu_layers("x").ok());
  EXPECT_FALSE(parse_tensor_override("exps=CPU")->gpu.has_value());
  EXPECT_EQ(*parse_tensor_override(R"(blk\.(\d+)\.ffn_.*=CUDA0)")->gpu, 0u);
  EXPECT_EQ(*parse_tensor_override("attn=ROCm1")->gpu, 1u);
  EXPECT_FALSE(parse_tensor_override("exps").ok());
  EXPECT_FALSE(parse_tensor_override("(=CPU").ok());
  EXPECT_FALSE(parse_tensor_override("exps=TPU0").ok());
  EXPECT_EQ(*parse_tensor_split("24,12"), (std::vector<double>{24, 12}));
  EXPECT_EQ(*parse_tensor_split("3/1"), (std::vector<double>{3, 1}));
  EXPECT_FALSE(parse_tensor_split("0,0").ok());
  EXPECT_FALSE(parse_tensor_split("a").ok());
  Result<std::vector<LlamaCppGpu>> gpus = parse_gpu_memory("1=12GiB,0=24GiB");
  ASSERT_TRUE(gpus.ok());
  ASSERT_EQ(gpus->size(), 2u);
  EXPECT_EQ((*gpus)[0].free_bytes, 24 * kGiB);
  EXPECT_EQ((*gpus)[1].device, "gpu:1");
  EXPECT_FALSE(parse_gpu_memory("0=24GiB,0=12GiB").ok());
  EXPECT_FALSE(parse_gpu_memory("1=24GiB").ok());
  // A key named as llama.cpp names the device gives its backend (CUDA's
  // and ROCm's buffers pad quantized rows); a bare index none.
  Result<std::vector<LlamaCppGpu>> named = parse_gpu_memory("CUDA0=24GiB,ROCm1=12GiB,2=8GiB");
  ASSERT_TRUE(named.ok()) << named.error().message();
  ASSERT_EQ(named->size(), 3u);
  EXPECT_EQ((*named)[0].device, "cuda:0");
  EXPECT_EQ((*named)[1].device, "rocm:1");
  EXPECT_EQ((*named)[2].device, "gpu:2");
  EXPECT_EQ((*named)[1].free_bytes, 12 * kGiB);
  EXPECT_FALSE(parse_gpu_memory("Vulkan0=8GiB").ok());
  LlamaCppPlacementRequest r;
  ASSERT_TRUE(set_placement_field(r, "override_tensor", "exps=CPU,attn=CUDA0").ok());
  EXPECT_EQ(r.override_tensor.size(), 2u);
  ASSERT_TRUE(set_placement_field(r, "gpu_margin", "0").ok());
  EXPECT_EQ(*r.gpu_margin, 0u);
  EXPECT_EQ(r.applied({}).gpu_margin_bytes, 0u);
  EXPECT_FALSE(set_placement_field(r, "split_mode", "tensor").ok());
}


// A Metal GPU's attention phase holds ggml-metal's flash attention scratch
// (ComputePhases::metal_flash_attn; gpt-oss has no graph replayed on the
// GPU, so the phases price it). gpt-oss 20b at 131,072 cells, U 512, flash
// attention: the attention phase is 4 x 512 x (2 x 2,880 + 4,096 + 512 +
// 512 + 2 x 4,096) = 39,059,456 of activations + the F16 mask 2 x 131,072 x
// 512 = 134,217,728: 173,277,184; the output phase on a GPU, the logits and
// result_norm, 4 x 512 x (201,088 + 2,880) = 417,726,464. The scratch at
// 512 queries (8 KV heads of 64, F16 cache: a cell's K row 1,024 B): pad 64
// x (1,024 x 8 x 2 + 2 x 512) = 1,114,112, the block map (512 / 8) x
// (131,072 / 64) = 131,072, the partials 4 x 32 x 64 x 32 x 66 =
// 17,301,504: 18,546,688, under the output phase at b9500. The pinned
// v0.4.0 adds F16 copies of K and V, 2 x (2 x 64 x 131,072 x 8) =
// 268,435,456, so its attention phase, 173,277,184 + 286,982,144 =
// 460,259,328, is the Metal GPU's buffer; a CUDA GPU's stays the output.
TEST(LlamaCppPlacement, AMetalGpusAttentionPhaseHoldsFlashAttentionsScratch) {
  const Model m = gguf_of(testing::corpus_spec("gpt_oss/gpt-oss-20b"));
  const auto gpu_compute = [&](const char* device, std::optional<uint64_t> build) {
    LlamaCppSettings s;
    s.ctx_size = 131072;
    s.build = build;
    s.flash_attn = FlashAttn::kOn;
    s.placement.gpus = {LlamaCppGpu{device, "", 200 * kGiB}};
    return run(m, s).placement.devices[0].compute_bytes;
  };
  EXPECT_EQ(gpu_compute("metal:0", std::nullopt), 460'259'328u);
  EXPECT_EQ(gpu_compute("gpu:0", std::nullopt), 417'726'464u);
  EXPECT_EQ(gpu_compute("metal:0", 9500), 417'726'464u);
}

}  // namespace
}  // namespace memfit
