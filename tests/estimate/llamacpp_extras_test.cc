// The llama-server extras (llamacpp_extras.h, docs/llamacpp-rules.md
// "Server extras") worked by hand: a projector written with the GGUF
// writer, and the lines it adds to a llama.cpp estimate's devices.
#include <gtest/gtest.h>

#include "memfit/gguf.h"
#include "memfit/llama_server.h"
#include "memfit/llamacpp.h"
#include "support/corpus.h"
#include "support/gguf_writer.h"

namespace memfit {
namespace {

constexpr uint64_t kGiB = 1ull << 30;
const MemoryBudget kHost{64 * kGiB, 64 * kGiB, BudgetSource::kExplicit};

// A small SigLIP-like projector: 224 px images in 14 px patches, width 64,
// FFN 128, 4 heads. Tensors: the patch embedding f16 14 x 14 x 3 x 64
// (37,632 elements x 2 B = 75,264 B) and a projection f32 64 x 128
// (8,192 x 4 B = 32,768 B): 108,032 B of weights.
GgufWriter projector_gguf(std::string_view arch = "clip") {
  GgufWriter w;
  w.add_string("general.architecture", arch)
      .add_u32("clip.vision.image_size", 224)
      .add_u32("clip.vision.patch_size", 14)
      .add_u32("clip.vision.embedding_length", 64)
      .add_u32("clip.vision.feed_forward_length", 128)
      .add_u32("clip.vision.attention.head_count", 4)
      .add_tensor("v.patch_embd.weight", GgmlType::kF16, {14, 14, 3, 64})
      .add_tensor("mm.0.weight", GgmlType::kF32, {64, 128});
  return w;
}

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
  // N = (224 / 14)^2 = 256 patches; per patch 4 x 256 + 2 x 64 + 128 =
  // 1,280 floats; 4 B x 256 x 1,280 = 1,310,720 B.
  EXPECT_TRUE(p.compute_modelled);
  EXPECT_EQ(p.compute_bytes, 1310720u);
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

// The projector adds 108,032 + 1,310,720 = 1,418,752 B to the first GPU
// (clip takes the first GPU, whatever -mg says) and to the total; the
// model's own three categories do not change.
TEST(LlamaCppExtras, TheProjectorGoesOnTheFirstGpu) {
  const Model m = llama_8b();
  LlamaCppSettings s = two_gpus();
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
  EXPECT_EQ(e->extras_bytes, 1418752u);
  EXPECT_EQ(e->total_bytes, base->total_bytes + 1418752u);
  EXPECT_EQ(e->model_bytes, base->model_bytes);
  EXPECT_EQ(e->context_bytes, base->context_bytes);
  EXPECT_EQ(e->compute_bytes, base->compute_bytes);
  ASSERT_EQ(e->placement.devices.size(), 3u);
  EXPECT_EQ(e->placement.devices[0].extras_bytes, 1418752u);
  EXPECT_EQ(e->placement.devices[0].total_bytes, base->placement.devices[0].total_bytes + 1418752u);
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
  EXPECT_EQ(e->placement.devices[2].extras_bytes, 1418752u);
  EXPECT_EQ(e->placement.devices[0].extras_bytes, 0u);

  LlamaCppSettings cpu;
  cpu.ctx_size = 8192;
  cpu.repack = RepackCpu::kNone;
  Result<LlamaCppEstimate> base = estimate_llamacpp(m, cpu, kHost);
  cpu.extras.mmproj = projector();
  Result<LlamaCppEstimate> c = estimate_llamacpp(m, cpu, kHost);
  ASSERT_TRUE(base.ok() && c.ok());
  EXPECT_EQ(c->extras[0].device, "cpu");
  EXPECT_EQ(c->total_bytes, base->total_bytes + 1418752u);
  ASSERT_EQ(c->placement.devices.size(), 1u);
  EXPECT_EQ(c->placement.devices[0].total_bytes, c->total_bytes);
}

// A budget the model fits with 1 MiB to spare does not hold the projector
// too: the fit is decided with the extras.
TEST(LlamaCppExtras, TheFitCountsTheExtras) {
  const Model m = llama_8b();
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.repack = RepackCpu::kNone;
  Result<LlamaCppEstimate> base = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(base.ok());
  const uint64_t budget = base->total_bytes + (1u << 20);
  s.extras.mmproj = projector();
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, MemoryBudget{budget, budget, BudgetSource::kExplicit});
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->fits);
  EXPECT_EQ(e->placement.devices[0].short_bytes, 1418752u - (1u << 20));
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

}  // namespace
}  // namespace memfit
