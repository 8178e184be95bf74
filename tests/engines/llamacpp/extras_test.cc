// The llama-server extras (llamacpp_extras.h, docs/llamacpp-rules.md
// "Server extras") worked by hand: a projector written with the GGUF
// writer, and the lines it adds to a llama.cpp estimate's devices.
#include <gtest/gtest.h>

#include <memory>

#include "memfit/gguf.h"
#include "memfit/llama_server.h"
#include "memfit/llamacpp.h"
#include "support/corpus.h"
#include "support/gguf_writer.h"
#include "support/small_ggufs.h"

namespace memfit {
namespace {

constexpr uint64_t kGiB = 1ull << 30;
const MemoryBudget kHost{64 * kGiB, 64 * kGiB, BudgetSource::kExplicit};

// The projector: support/small_ggufs.h's tiny_projector_gguf(), 108,032 B
// of weights.
GgufWriter projector_gguf(std::string_view arch = "clip") { return tiny_projector_gguf(arch); }

LlamaCppProjector projector() {
  const GgufWriter w = projector_gguf();
  Result<GgufHeader> h = parse_gguf_header(w.bytes(), w.file_bytes());
  EXPECT_TRUE(h.ok()) << h.error().message();
  Result<LlamaCppProjector> p = llamacpp_projector(*h, "mmproj.gguf");
  EXPECT_TRUE(p.ok()) << p.error().message();
  return *p;
}

TEST(LlamaCppExtras, ProjectorWeightsAreTheHeadersTensorBytesAndItsComputeIsModelled) {
  const LlamaCppProjector p = projector();
  EXPECT_EQ(p.weights_bytes, 108032u);  // 75,264 + 32,768
  // N = (224 / 14)^2 = 256 patches; per patch 2 x 64 + 128 = 256 floats:
  // 4 B x 256 x 256 = 262,144 B of activations. Scores: 4 heads x 256 x
  // 256 floats x 4 B = 1,048,576 B.
  EXPECT_TRUE(p.compute_modelled);
  EXPECT_EQ(p.compute_bytes, 262144u);
  EXPECT_EQ(p.scores_bytes, 1048576u);
}

TEST(LlamaCppExtras, AFileThatIsNotAProjectorIsAnInputError) {
  const GgufWriter w = projector_gguf("llama");
  Result<GgufHeader> h = parse_gguf_header(w.bytes(), w.file_bytes());
  ASSERT_TRUE(h.ok());
  Result<LlamaCppProjector> p = llamacpp_projector(*h, "model.gguf");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().kind(), ErrorKind::kInput);
  EXPECT_NE(p.error().message().find("not a projector"), std::string::npos);
}

TEST(LlamaCppExtras, AProjectorWithoutVisionGeometryHasOnlyItsWeights) {
  GgufWriter w;
  w.add_string("general.architecture", "clip").add_tensor("a.conv1d.weight", GgmlType::kF32, {8, 16});
  Result<GgufHeader> h = parse_gguf_header(w.bytes(), w.file_bytes());
  ASSERT_TRUE(h.ok());
  Result<LlamaCppProjector> p = llamacpp_projector(*h, "audio.gguf");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->weights_bytes, 512u);  // 8 x 16 x 4 B
  EXPECT_FALSE(p->compute_modelled);
  EXPECT_EQ(p->compute_bytes, 0u);
}

// Llama 3.1 8B at Q4_0 (18 B per 32 elements), norms f32.
Model llama_8b() {
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec("llama3/Meta-Llama-3.1-8B");
  m.weights.source = WeightsSource::kGgufHeader;
  m.weights.verified = true;
  auto add = [&m](std::string name, std::vector<uint64_t> shape, uint64_t bytes) {
    m.tensors.push_back(SafetensorsTensor{std::move(name), "q4_0", std::move(shape), bytes});
    m.weights.bytes += bytes;
  };
  auto q4 = [](uint64_t elements) { return elements / 32 * 18; };
  add("token_embd.weight", {128256, 4096}, q4(4096ull * 128256));
  for (size_t b = 0; b < m.spec.layers.size(); ++b) {
    const std::string p = "blk." + std::to_string(b) + ".";
    add(p + "attn_norm.weight", {4096}, 16384);
    add(p + "attn_q.weight", {4096, 4096}, q4(4096ull * 4096));
    add(p + "attn_k.weight", {1024, 4096}, q4(4096ull * 1024));
    add(p + "attn_v.weight", {1024, 4096}, q4(4096ull * 1024));
    add(p + "attn_output.weight", {4096, 4096}, q4(4096ull * 4096));
    add(p + "ffn_norm.weight", {4096}, 16384);
    add(p + "ffn_gate.weight", {14336, 4096}, q4(4096ull * 14336));
    add(p + "ffn_up.weight", {14336, 4096}, q4(4096ull * 14336));
    add(p + "ffn_down.weight", {4096, 14336}, q4(4096ull * 14336));
  }
  add("output_norm.weight", {4096}, 16384);
  add("output.weight", {128256, 4096}, q4(4096ull * 128256));
  return m;
}

LlamaCppSettings two_gpus() {
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.repack = RepackCpu::kNone;
  s.placement.gpus = {{"cuda:0", "A", 24 * kGiB}, {"cuda:1", "B", 12 * kGiB}};
  return s;
}

// The projector adds 108,032 + 262,144 = 370,176 B to the first GPU (clip
// takes the first GPU, whatever -mg says) and to the total; flash
// attention is auto (on), so no scores; the model's own three categories
// do not change.
TEST(LlamaCppExtras, TheProjectorGoesOnTheFirstGpu) {
  const Model m = llama_8b();
  LlamaCppSettings s = two_gpus();
  s.placement.split_mode = SplitMode::kNone;  // the model on -mg's GPU
  s.placement.main_gpu = 1;
  Result<LlamaCppEstimate> base = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(base.ok()) << base.error().message();
  s.extras.mmproj = projector();
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok()) << e.error().message();

  ASSERT_EQ(e->extras.size(), 2u);
  EXPECT_EQ(e->extras[0].name, "mmproj weights");
  EXPECT_EQ(e->extras[0].device, "cuda:0");
  EXPECT_TRUE(e->extras[0].exact);
  EXPECT_EQ(e->extras[1].name, "mmproj compute");
  EXPECT_FALSE(e->extras[1].exact);
  EXPECT_EQ(e->extras_bytes, 370176u);
  EXPECT_EQ(e->total_bytes, base->total_bytes + 370176u);
  EXPECT_EQ(e->model_bytes, base->model_bytes);
  EXPECT_EQ(e->context_bytes, base->context_bytes);
  EXPECT_EQ(e->compute_bytes, base->compute_bytes);
  ASSERT_EQ(e->placement.devices.size(), 3u);
  EXPECT_EQ(e->placement.devices[0].extras_bytes, 370176u);
  EXPECT_EQ(e->placement.devices[0].total_bytes, base->placement.devices[0].total_bytes + 370176u);
  EXPECT_EQ(e->placement.devices[1].total_bytes, base->placement.devices[1].total_bytes);
  EXPECT_EQ(e->placement.devices[2].total_bytes, base->placement.devices[2].total_bytes);
}

TEST(LlamaCppExtras, NoMmprojOffloadAndACpuRunKeepTheProjectorOnTheHost) {
  const Model m = llama_8b();
  LlamaCppSettings s = two_gpus();
  s.extras.mmproj = projector();
  s.extras.mmproj_offload = false;
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->extras[0].device, "cpu");
  EXPECT_EQ(e->placement.devices[2].extras_bytes, 370176u);
  EXPECT_EQ(e->placement.devices[0].extras_bytes, 0u);

  LlamaCppSettings cpu;
  cpu.ctx_size = 8192;
  cpu.repack = RepackCpu::kNone;
  Result<LlamaCppEstimate> base = estimate_llamacpp(m, cpu, kHost);
  cpu.extras.mmproj = projector();
  Result<LlamaCppEstimate> c = estimate_llamacpp(m, cpu, kHost);
  ASSERT_TRUE(base.ok() && c.ok());
  EXPECT_EQ(c->extras[0].device, "cpu");
  EXPECT_EQ(c->total_bytes, base->total_bytes + 370176u);
  ASSERT_EQ(c->placement.devices.size(), 1u);
  EXPECT_EQ(c->placement.devices[0].total_bytes, c->total_bytes);
}

// A budget the model fits with 256 KiB to spare does not hold the
// projector too (370,176 B): the fit is decided with the extras.
TEST(LlamaCppExtras, TheFitCountsTheExtras) {
  const Model m = llama_8b();
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.repack = RepackCpu::kNone;
  Result<LlamaCppEstimate> base = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(base.ok());
  const uint64_t budget = base->total_bytes + (1u << 18);
  s.extras.mmproj = projector();
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, MemoryBudget{budget, budget, BudgetSource::kExplicit});
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->fits);
  EXPECT_EQ(e->placement.devices[0].short_bytes, 370176u - (1u << 18));  // 108,032
}

// With -fa off clip materialises the scores: 108,032 + 262,144 +
// 1,048,576 = 1,418,752 B.
TEST(LlamaCppExtras, FlashAttentionOffAddsTheProjectorsScores) {
  const Model m = llama_8b();
  LlamaCppSettings s = two_gpus();
  s.flash_attn = FlashAttn::kOff;
  s.extras.mmproj = projector();
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok()) << e.error().message();
  ASSERT_EQ(e->extras.size(), 2u);
  EXPECT_EQ(e->extras[1].bytes, 1310720u);  // 262,144 + 1,048,576
  EXPECT_EQ(e->extras_bytes, 1418752u);
}

TEST(LlamaCppExtras, TheServerFlagsNameTheProjector) {
  const Model m = llama_8b();
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.extras.mmproj = projector();
  s.extras.mmproj_offload = false;
  const std::vector<std::string> flags = llama_server_flags(m.spec, s);
  const std::vector<std::string> want = {"-c", "8192", "-np", "1", "--mmproj", "mmproj.gguf",
                                         "--no-mmproj-offload"};
  EXPECT_EQ(flags, want);
}

// A corpus geometry with 1 GiB of weights, on the host alone.
Model corpus_model(const std::string& relative) {
  return testing::corpus_model(relative, kGiB, WeightsSource::kFallback);
}

LlamaCppSettings host_run(uint64_t ctx_size, uint64_t parallel = 1) {
  LlamaCppSettings s;
  s.ctx_size = ctx_size;
  s.parallel = parallel;
  s.repack = RepackCpu::kNone;
  return s;
}

const LlamaCppExtraLine* line(const LlamaCppEstimate& e, std::string_view name) {
  for (const LlamaCppExtraLine& x : e.extras) {
    if (x.name == name) return &x;
  }
  return nullptr;
}

// --cache-ram 8192 is its limit, 8,192 x 2^20 = 8,589,934,592 B on the
// host; -1 (no limit) is the context's KV and recurrent state; 0 is none.
TEST(LlamaCppExtras, ThePromptCacheIsItsLimitOnTheHost) {
  const Model m = llama_8b();
  LlamaCppSettings s = two_gpus();
  s.extras.cache_ram_mib = 8192;
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok()) << e.error().message();
  const LlamaCppExtraLine* cache = line(*e, "prompt cache");
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(cache->device, "cpu");
  EXPECT_EQ(cache->bytes, 8589934592u);
  EXPECT_TRUE(cache->exact);
  EXPECT_EQ(e->placement.devices[2].extras_bytes, 8589934592u);
  EXPECT_EQ(e->placement.devices[0].extras_bytes, 0u);

  // -1: Llama 3.1 8B at 8,192 cells, 32 layers x 8 KV heads x 128 x 2
  // (K, V) x 2 B = 131,072 B a cell: 1,073,741,824 B, no recurrent state.
  s.extras.cache_ram_mib = -1;
  e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok());
  cache = line(*e, "prompt cache");
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(cache->bytes, 1073741824u);
  EXPECT_FALSE(cache->exact);

  s.extras.cache_ram_mib = 0;
  e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(line(*e, "prompt cache"), nullptr);
  EXPECT_EQ(e->extras_bytes, 0u);
}

// Gemma 3 1B: 22 of 26 layers a window of 512, one KV head of 256: a
// windowed layer's K + V row is (256 + 256) x 2 B = 1,024 B a cell, and
// one sequence keeps at most min(32,768, 512 + 512 (ubatch)) = 1,024
// cells: 22 x 1,024 x 1,024 = 23,068,672 B a checkpoint. 32 per slot:
// 738,197,504 B on the host.
TEST(LlamaCppExtras, SlidingWindowCheckpointsAreOneSequencesWindowPerCheckpoint) {
  const Model m = corpus_model("gemma3/gemma-3-1b-it");
  LlamaCppSettings s = host_run(32768);
  s.extras.ctx_checkpoints = 32;
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->checkpoint_bytes, 23068672u);
  const LlamaCppExtraLine* ckpt = line(*e, "context checkpoints");
  ASSERT_NE(ckpt, nullptr);
  EXPECT_EQ(ckpt->device, "cpu");
  EXPECT_FALSE(ckpt->exact);
  EXPECT_EQ(ckpt->bytes, 738197504u);

  // --swa-full: the server makes no checkpoints of a model it can roll
  // back (n_swa taken as 0), so no line.
  s.swa_full = true;
  e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->checkpoint_bytes, 0u);
  EXPECT_EQ(line(*e, "context checkpoints"), nullptr);
}

// LFM2-700M: 10 of 16 layers short convolutions of L_cache 3 at width
// 1,536: (3 - 1) x 1,536 x 4 B = 12,288 B of state each, 122,880 B a
// checkpoint (the 6 attention layers roll back). 4 slots x 32 = 128
// checkpoints: 15,728,640 B.
TEST(LlamaCppExtras, HybridCheckpointsAreOneSequencesRecurrentState) {
  const Model m = corpus_model("lfm2/LFM2-700M");
  LlamaCppSettings s = host_run(16384, 4);
  s.extras.ctx_checkpoints = 32;
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->checkpoint_bytes, 122880u);
  const LlamaCppExtraLine* ckpt = line(*e, "context checkpoints");
  ASSERT_NE(ckpt, nullptr);
  EXPECT_EQ(ckpt->bytes, 15728640u);

  s.extras.ctx_checkpoints = 0;
  e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(line(*e, "context checkpoints"), nullptr);
}

// Full attention only (Llama 3.1 8B) rolls back: no checkpoints.
TEST(LlamaCppExtras, FullAttentionKeepsNoCheckpoints) {
  const Model m = llama_8b();
  LlamaCppSettings s = two_gpus();
  s.extras.ctx_checkpoints = 32;
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->checkpoint_bytes, 0u);
  EXPECT_TRUE(e->extras.empty());
}

// llama-server's rules bring its defaults, 8,192 MiB and 32 checkpoints;
// what was given stays, and the flags name only what differs.
TEST(LlamaCppExtras, TheServerRulesBringTheServersDefaults) {
  const Model m = llama_8b();
  LlamaCppSettings s = host_run(8192);
  ASSERT_TRUE(apply_llama_server_rules(m.spec, true, s).ok());
  EXPECT_EQ(s.extras.cache_ram_mib, std::optional<int64_t>(8192));
  EXPECT_EQ(s.extras.ctx_checkpoints, std::optional<uint64_t>(32));
  EXPECT_EQ(llama_server_flags(m.spec, s), (std::vector<std::string>{"-c", "8192", "-np", "1"}));

  LlamaCppSettings given = host_run(8192);
  given.extras.cache_ram_mib = -1;
  given.extras.ctx_checkpoints = 4;
  ASSERT_TRUE(apply_llama_server_rules(m.spec, true, given).ok());
  EXPECT_EQ(given.extras.cache_ram_mib, std::optional<int64_t>(-1));
  EXPECT_EQ(llama_server_flags(m.spec, given),
            (std::vector<std::string>{"-c", "8192", "-np", "1", "--cache-ram", "-1", "--ctx-checkpoints", "4"}));
}

TEST(LlamaCppExtras, CacheRamTextIsMibFromMinusOne) {
  EXPECT_EQ(*parse_cache_ram("cache_ram", "-1"), -1);
  EXPECT_EQ(*parse_cache_ram("cache_ram", "0"), 0);
  EXPECT_EQ(*parse_cache_ram("cache_ram", "2147483647"), 2147483647);
  for (std::string_view bad : {"", "-2", "2147483648", "8GiB", "1.5", " 1"}) {
    Result<int64_t> r = parse_cache_ram("cache_ram", bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind(), ErrorKind::kUsage);
  }
}

// The speculative-decoding draft (--model-draft): Llama 3.2 1B's geometry
// with 1,207,959,552 B (18 x 2^26) of weights and no tensor list, so the
// placement splits them evenly, 2^26 = 67,108,864 B a share over 16 blocks
// + the input table + the output layer.
Model llama_1b_draft() {
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec("llama3/Llama-3.2-1B-Instruct");
  m.weights.bytes = 18ull << 26;
  return m;
}

// On one 24 GiB GPU with every layer offloaded: the 16 blocks and the
// output layer, 17 x 67,108,864 = 1,140,850,688 B, go to the GPU, the
// input table (67,108,864 B) stays on the host. The draft's KV at the
// main -c 8192: 16 layers x 8 KV heads x 64 x 2 (K, V) x 2 B = 32,768 B a
// cell, x 8,192 = 268,435,456 B on the GPU; its output buffer 4 x 128,256
// = 513,024 B on the host. Its compute is the draft's own estimate's.
TEST(LlamaCppExtras, TheDraftIsASecondContextOnItsOwnPlacement) {
  const Model m = llama_8b();
  LlamaCppSettings s = two_gpus();
  s.placement.gpus.resize(1);
  s.extras.draft = std::make_shared<const Model>(llama_1b_draft());
  s.extras.draft_path = "draft.gguf";
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok()) << e.error().message();

  LlamaCppSettings alone = s;
  alone.extras = {};
  Result<LlamaCppEstimate> d = estimate_llamacpp(*s.extras.draft, alone, kHost);
  ASSERT_TRUE(d.ok());
  auto find = [&](std::string_view name, std::string_view device) -> uint64_t {
    for (const LlamaCppExtraLine& x : e->extras) {
      if (x.name == name && x.device == device) return x.bytes;
    }
    return 0;
  };
  EXPECT_EQ(find("draft model", "cuda:0"), 1140850688u);
  EXPECT_EQ(find("draft model", "cpu"), 67108864u);
  EXPECT_EQ(find("draft context", "cuda:0"), 268435456u);
  EXPECT_EQ(find("draft context", "cpu"), 513024u);
  EXPECT_EQ(find("draft compute", "cuda:0"), d->placement.devices[0].compute_bytes);
  EXPECT_EQ(find("draft compute", "cpu"), d->placement.devices[1].compute_bytes);
  EXPECT_EQ(e->extras_bytes, d->total_bytes);
  EXPECT_EQ(e->placement.devices[0].extras_bytes, d->placement.devices[0].total_bytes);

  // -ctkd/-ctvd q8_0: 34 B per 32 elements, a 512-element row 544 B:
  // 16 x 2 x 544 x 8,192 = 142,606,336 B. -ngld 0: everything on the host.
  s.extras.draft_cache_type_k = s.extras.draft_cache_type_v = GgmlType::kQ8_0;
  s.extras.draft_n_gpu_layers = 0;
  e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(find("draft context", "cpu"), 142606336u + 513024u);
  EXPECT_EQ(find("draft model", "cuda:0"), 0u);
  EXPECT_EQ(find("draft model", "cpu"), 1207959552u);
}

TEST(LlamaCppExtras, TheServerFlagsNameTheDraft) {
  const Model m = llama_8b();
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.extras.draft = std::make_shared<const Model>(llama_1b_draft());
  s.extras.draft_path = "draft.gguf";
  s.extras.draft_n_gpu_layers = 10;
  s.extras.draft_cache_type_k = GgmlType::kQ8_0;
  EXPECT_EQ(llama_server_flags(m.spec, s),
            (std::vector<std::string>{"-c", "8192", "-np", "1", "-md", "draft.gguf", "-ngld", "10", "-ctkd", "q8_0"}));
}

}  // namespace
}  // namespace memfit
