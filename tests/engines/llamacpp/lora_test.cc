// LoRA adapters (--lora; llamacpp_extras.h, docs/llamacpp-rules.md "Server
// extras") worked by hand: adapters written with the GGUF writer, each
// pair on the device of the base tensor it adapts, padded to that
// buffer's alignment (128 B on a GPU, 32 B on the host).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memfit/gguf.h"
#include "memfit/llama_server.h"
#include "memfit/llamacpp.h"
#include "support/corpus.h"
#include "support/gguf_writer.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::memfit::testing::kGiB;
const MemoryBudget kHost{64 * kGiB, 64 * kGiB, BudgetSource::kExplicit};

// Llama 3.1 8B's geometry (32 blocks) with a few of its Q4_0 tensors (18 B
// per 32 elements); the placement sizes only the tensors listed.
Model llama_8b() {
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec("llama3/Meta-Llama-3.1-8B");
  m.weights.source = WeightsSource::kGgufHeader;
  m.weights.verified = true;
  auto add = [&m](std::string name, std::string dtype, std::vector<uint64_t> shape, uint64_t bytes) {
    m.tensors.push_back(SafetensorsTensor{std::move(name), std::move(dtype), std::move(shape), bytes});
    m.weights.bytes += bytes;
  };
  auto q4 = [](uint64_t elements) { return elements / 32 * 18; };
  add("token_embd.weight", "q4_0", {128256, 4096}, q4(4096ull * 128256));
  add("blk.0.attn_norm.weight", "f32", {4096}, 16384);
  add("blk.0.attn_q.weight", "q4_0", {4096, 4096}, q4(4096ull * 4096));
  add("blk.31.attn_k.weight", "q4_0", {1024, 4096}, q4(4096ull * 1024));
  add("output_norm.weight", "f32", {4096}, 16384);
  add("output.weight", "q4_0", {128256, 4096}, q4(4096ull * 128256));
  return m;
}

// An adapter's header: general.type "adapter", adapter.type "lora".
GgufWriter adapter_keys(std::string_view arch = "llama") {
  GgufWriter w;
  w.add_string("general.architecture", arch)
      .add_string("general.type", "adapter")
      .add_string("adapter.type", "lora")
      .add_f32("adapter.lora.alpha", 16.0f);
  return w;
}

// Rank 5 in f16 (dims are ne[0], ne[1]):
//   blk.0.attn_q     a 4096 x 5 = 40,960 B, b 5 x 4096 = 40,960 B
//   blk.0.attn_norm  a 4096 x 5 = 40,960 B, b 5 x 1 = 10 B
//   blk.31.attn_k    a 4096 x 5 = 40,960 B, b 5 x 1024 = 10,240 B
// and an f32 norm of its own (skipped, as llama.cpp skips "*_norm.weight").
// Padded to 128 B: 81,920 + 41,088 + 51,200; to 32 B: 81,920 + 40,992 + 51,200.
GgufWriter adapter_gguf() {
  GgufWriter w = adapter_keys();
  w.add_tensor("blk.0.attn_q.weight.lora_a", GgmlType::kF16, {4096, 5})
      .add_tensor("blk.0.attn_q.weight.lora_b", GgmlType::kF16, {5, 4096})
      .add_tensor("blk.0.attn_norm.weight.lora_a", GgmlType::kF16, {4096, 5})
      .add_tensor("blk.0.attn_norm.weight.lora_b", GgmlType::kF16, {5, 1})
      .add_tensor("blk.31.attn_k.weight.lora_a", GgmlType::kF16, {4096, 5})
      .add_tensor("blk.31.attn_k.weight.lora_b", GgmlType::kF16, {5, 1024})
      .add_tensor("blk.0.ffn_norm.weight", GgmlType::kF32, {4096});
  return w;
}

Result<LlamaCppLora> read(const GgufWriter& w, const std::string& path = "adapter.gguf") {
  Result<GgufHeader> h = parse_gguf_header(w.bytes(), w.file_bytes());
  if (!h) return h.error();
  return llamacpp_lora(*h, path);
}

LlamaCppLora adapter(const std::string& path = "adapter.gguf") {
  Result<LlamaCppLora> lora = read(adapter_gguf(), path);
  EXPECT_TRUE(lora.ok()) << lora.error().message();
  return *lora;
}

LlamaCppSettings one_gpu() {
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.repack = RepackCpu::kNone;
  s.placement.gpus = {{"cuda:0", "A", 24 * kGiB}};
  return s;
}

std::vector<const LlamaCppExtraLine*> lora_lines(const LlamaCppEstimate& e) {
  std::vector<const LlamaCppExtraLine*> out;
  for (const LlamaCppExtraLine& x : e.extras) {
    if (x.name == "LoRA adapter") out.push_back(&x);
  }
  return out;
}

TEST(LlamaCppLora, TheHeaderGivesThePairsByBaseNameAndSkipsNorms) {
  const LlamaCppLora lora = adapter();
  EXPECT_EQ(lora.architecture, "llama");
  ASSERT_EQ(lora.pairs.size(), 3u);  // sorted by base name
  EXPECT_EQ(lora.pairs[0].base, "blk.0.attn_norm.weight");
  EXPECT_EQ(lora.pairs[0].b_bytes, 10u);  // 5 x 1 x 2 B
  EXPECT_EQ(lora.pairs[1].base, "blk.0.attn_q.weight");
  EXPECT_EQ(lora.pairs[1].a_bytes, 40960u);  // 4,096 x 5 x 2 B
  EXPECT_EQ(lora.pairs[1].a_ne[0], 4096u);
  EXPECT_EQ(lora.pairs[1].a_ne[1], 5u);
  EXPECT_EQ(lora.pairs[2].base, "blk.31.attn_k.weight");
  EXPECT_EQ(lora.pairs[2].b_bytes, 10240u);  // 5 x 1,024 x 2 B
}

// Every block on the one GPU: every pair there, padded to 128 B:
// 81,920 + 41,088 + 51,200 = 174,208 B, exact; the model's own
// categories do not change.
TEST(LlamaCppLora, AModelOnOneGpuHasItsAdapterThere) {
  const Model m = llama_8b();
  LlamaCppSettings s = one_gpu();
  Result<LlamaCppEstimate> base = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(base.ok()) << base.error().message();
  s.extras.loras = {adapter()};
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok()) << e.error().message();

  const auto lines = lora_lines(*e);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]->device, "cuda:0");
  EXPECT_EQ(lines[0]->file, "adapter.gguf");
  EXPECT_EQ(lines[0]->bytes, 174208u);
  EXPECT_TRUE(lines[0]->exact);
  EXPECT_EQ(e->extras_bytes, 174208u);
  EXPECT_EQ(e->total_bytes, base->total_bytes + 174208u);
  EXPECT_EQ(e->model_bytes, base->model_bytes);
  EXPECT_EQ(e->placement.devices[0].extras_bytes, 174208u);
  EXPECT_EQ(e->placement.devices[0].total_bytes, base->placement.devices[0].total_bytes + 174208u);
  EXPECT_EQ(e->placement.devices[1].extras_bytes, 0u);

  // Two adapters (--lora a --lora b): a line each, each its own buffer.
  s.extras.loras = {adapter("a.gguf"), adapter("b.gguf")};
  e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok()) << e.error().message();
  ASSERT_EQ(lora_lines(*e).size(), 2u);
  EXPECT_EQ(lora_lines(*e)[1]->file, "b.gguf");
  EXPECT_EQ(e->placement.devices[0].extras_bytes, 348416u);  // 2 x 174,208
}

// -ngl 10 of 33 slots: blocks 23..31 and the output on the GPU, blocks
// 0..22 on the host. blk.0's pairs go to the host, padded to 32 B:
// 81,920 + 40,992 = 122,912 B; blk.31's to the GPU: 51,200 B.
TEST(LlamaCppLora, PartialOffloadSplitsTheAdapterWithItsBaseTensors) {
  const Model m = llama_8b();
  LlamaCppSettings s = one_gpu();
  s.placement.n_gpu_layers = 10;
  s.extras.loras = {adapter()};
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok()) << e.error().message();
  const auto lines = lora_lines(*e);
  ASSERT_EQ(lines.size(), 2u);  // in device order: the GPUs, then the host
  EXPECT_EQ(lines[0]->device, "cuda:0");
  EXPECT_EQ(lines[0]->bytes, 51200u);
  EXPECT_EQ(lines[1]->device, "cpu");
  EXPECT_EQ(lines[1]->bytes, 122912u);
  EXPECT_EQ(e->placement.devices[0].extras_bytes, 51200u);
  EXPECT_EQ(e->placement.devices[1].extras_bytes, 122912u);
  EXPECT_EQ(e->extras_bytes, 174112u);

  // -ot blk\.31\.=CPU with every layer offloaded: blk.31's base tensor,
  // and so its pair, on the host (51,200 B, aligned either way); blk.0's
  // on the GPU (123,008 B).
  s.placement.n_gpu_layers.reset();
  s.placement.overrides = {{R"(blk\.31\.)", std::nullopt}};
  e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->placement.devices[0].extras_bytes, 123008u);
  EXPECT_EQ(e->placement.devices[1].extras_bytes, 51200u);
}

// A CPU run: blk.0.attn_q and blk.31.attn_k (Q4_0, rows a multiple of 8)
// are in CPU_REPACK for x86-avx2; an adapter cannot go to a repack
// buffer, so their pairs go to the plain host buffer, 32-B aligned, as
// the norm's: 122,912 + 51,200 = 174,112 B on "cpu", the same as with
// --repack none.
TEST(LlamaCppLora, ARepackedBaseTensorsPairGoesToThePlainHostBuffer) {
  const Model m = llama_8b();
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.repack = RepackCpu::kX86Avx2;
  s.extras.loras = {adapter()};
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_GT(e->repack_bytes, 0u);
  const auto lines = lora_lines(*e);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]->device, "cpu");
  EXPECT_EQ(lines[0]->bytes, 174112u);
  EXPECT_EQ(e->placement.devices[0].extras_bytes, 174112u);

  s.repack = RepackCpu::kNone;
  Result<LlamaCppEstimate> plain = estimate_llamacpp(m, s, kHost);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(lora_lines(*plain)[0]->bytes, 174112u);
}

// token_embd's pair is flipped (llm_build_inp_embd): lora_b's ne[1] is
// the base's ne[0] (4,096) and lora_a's ne[1] its ne[1] (128,256). The
// table stays on the host: a 5 x 128,256 x 2 B = 1,282,560 B, b 5 x
// 4,096 x 2 B = 40,960 B: 1,323,520 B on "cpu".
TEST(LlamaCppLora, TheTokenEmbeddingsPairIsFlippedAndStaysOnTheHost) {
  GgufWriter w = adapter_keys();
  w.add_tensor("token_embd.weight.lora_a", GgmlType::kF16, {5, 128256})
      .add_tensor("token_embd.weight.lora_b", GgmlType::kF16, {5, 4096});
  Result<LlamaCppLora> lora = read(w);
  ASSERT_TRUE(lora.ok()) << lora.error().message();
  LlamaCppSettings s = one_gpu();
  s.extras.loras = {*lora};
  Result<LlamaCppEstimate> e = estimate_llamacpp(llama_8b(), s, kHost);
  ASSERT_TRUE(e.ok()) << e.error().message();
  const auto lines = lora_lines(*e);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]->device, "cpu");
  EXPECT_EQ(lines[0]->bytes, 1323520u);
}

// What the header alone refuses, one line each in llama.cpp's words.
TEST(LlamaCppLora, TheHeaderErrorsAreOneLineEach) {
  auto error_of = [](const GgufWriter& w) {
    Result<LlamaCppLora> lora = read(w, "x.gguf");
    EXPECT_FALSE(lora.ok());
    if (lora.ok()) return std::string();
    EXPECT_EQ(lora.error().kind(), ErrorKind::kInput);
    EXPECT_EQ(lora.error().message().find('\n'), std::string::npos);
    return lora.error().message();
  };
  GgufWriter model;
  model.add_string("general.architecture", "llama").add_string("general.type", "model");
  EXPECT_EQ(error_of(model), "lora 'x.gguf': expect general.type to be 'adapter', but got 'model'");
  GgufWriter untyped;
  untyped.add_string("general.architecture", "llama");
  EXPECT_NE(error_of(untyped).find("expect general.type to be 'adapter', but got none"), std::string::npos);
  GgufWriter cvec;
  cvec.add_string("general.type", "adapter").add_string("adapter.type", "control_vector");
  EXPECT_EQ(error_of(cvec), "lora 'x.gguf': expect adapter.type to be 'lora', but got 'control_vector'");

  GgufWriter half = adapter_keys();
  half.add_tensor("blk.0.attn_q.weight.lora_a", GgmlType::kF16, {4096, 5});
  EXPECT_EQ(error_of(half), "lora 'x.gguf': LoRA tensor pair for 'blk.0.attn_q.weight' is missing one component");
  GgufWriter odd = adapter_keys();
  odd.add_tensor("blk.0.attn_q.weight", GgmlType::kF16, {4096, 4096});
  EXPECT_EQ(error_of(odd), "lora 'x.gguf': LoRA tensor 'blk.0.attn_q.weight' has unexpected suffix");
}

// What the base model refuses: a pair with no base tensor, a shape that is
// not the base's, a rank that differs between the two halves, another
// architecture.
TEST(LlamaCppLora, TheBaseModelErrorsAreOneLineEach) {
  const Model m = llama_8b();
  ASSERT_EQ(m.spec.model_type, "llama");
  auto error_of = [&m](const GgufWriter& w) {
    Result<LlamaCppLora> lora = read(w, "x.gguf");
    EXPECT_TRUE(lora.ok()) << lora.error().message();
    if (!lora.ok()) return std::string();
    LlamaCppSettings s = one_gpu();
    s.extras.loras = {*lora};
    Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kHost);
    EXPECT_FALSE(e.ok());
    if (e.ok()) return std::string();
    EXPECT_EQ(e.error().kind(), ErrorKind::kInput);
    EXPECT_EQ(e.error().message().find('\n'), std::string::npos);
    return e.error().message();
  };
  GgufWriter missing = adapter_keys();
  missing.add_tensor("blk.40.attn_q.weight.lora_a", GgmlType::kF16, {4096, 5})
      .add_tensor("blk.40.attn_q.weight.lora_b", GgmlType::kF16, {5, 4096});
  EXPECT_EQ(error_of(missing),
            "lora 'x.gguf': LoRA tensor 'blk.40.attn_q.weight' does not exist in base model "
            "(hint: maybe wrong base model?)");
  GgufWriter shape = adapter_keys();
  shape.add_tensor("blk.31.attn_k.weight.lora_a", GgmlType::kF16, {4096, 5})
      .add_tensor("blk.31.attn_k.weight.lora_b", GgmlType::kF16, {5, 4096});  // base ne[1] is 1,024
  EXPECT_EQ(error_of(shape),
            "lora 'x.gguf': tensor 'blk.31.attn_k.weight' has incorrect shape (hint: maybe wrong base model?)");
  GgufWriter rank = adapter_keys();
  rank.add_tensor("blk.31.attn_k.weight.lora_a", GgmlType::kF16, {4096, 5})
      .add_tensor("blk.31.attn_k.weight.lora_b", GgmlType::kF16, {8, 1024});
  EXPECT_EQ(error_of(rank),
            "lora 'x.gguf': tensor 'blk.31.attn_k.weight': lora_a is not transposed (its ne[1] 5 is not "
            "lora_b's ne[0] 8)");
  GgufWriter arch = adapter_keys("qwen3");
  EXPECT_EQ(error_of(arch), "lora 'x.gguf': model arch and LoRA arch mismatch ('llama' and 'qwen3')");
}

TEST(LlamaCppLora, TheServerFlagsNameEachAdapter) {
  const Model m = llama_8b();
  LlamaCppSettings s = one_gpu();
  s.extras.loras = {adapter("a.gguf"), adapter("b.gguf")};
  const std::vector<std::string> flags = llama_server_flags(m.spec, s);
  std::string joined;
  for (const std::string& f : flags) joined += f + " ";
  EXPECT_NE(joined.find("--lora a.gguf --lora b.gguf "), std::string::npos) << joined;
}

}  // namespace
}  // namespace memfit
