// vllm_report.h's flags, serve command, text and JSON on a hand-filled VllmEstimate,
// one input changed per variant, and on estimate_vllm()'s Llama-3.1-70B.
//
// The hand-built estimate, a Llama-3.1-8B-like model on an 80 GiB H100:
//   requested  0.9 x 80 GiB = 72 GiB (77,309,411,328)
//   weights 15 GiB (rope cache 32 MiB in it), activation 1936 MiB,
//   non-torch 144 MiB: 17 GiB
//   KV cache   72 - 17 = 55 GiB (59,055,800,320)
//   page       2 x 16 x 8 x 128 x 2 B = 65,536 B per layer; x 32 layers = 2 MiB a block
//   blocks     55 GiB / 2 MiB = 28,160; x 16 = 450,560 tokens
//   a request of 8192 tokens: 512 blocks; 28,160 / 512 = 55.00x
//   256 such requests: 256 x 512 x 2 MiB = 256 GiB (274,877,906,944)
//   peak       72 GiB + 1 GiB of CUDA graphs = 73 GiB of an 80 GiB budget: 7 GiB to spare
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "memfit/mlxcel_report.h"
#include "memfit/vllm_report.h"
#include "support/corpus.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::ordered_json;

using ::memfit::testing::kMiB;
using ::memfit::testing::kGiB;

const MemoryBudget kBudget{80 * kGiB, 80 * kGiB, BudgetSource::kGpu};

Model llama_8b() {
  Model m;
  m.path = "models/llama-8b";
  m.has_config = true;
  m.spec.model_type = "llama";
  m.spec.family = "llama";
  m.spec.layout = "standard";
  m.weights.bytes = 15 * kGiB - 32 * kMiB;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  return m;
}

VllmEstimate h100() {
  VllmEstimate e;
  VllmSettings& s = e.settings;
  s.gpu_memory_utilization = 0.9;
  s.gpu_memory_total = 80 * kGiB;
  s.gpu_name = "NVIDIA H100 80GB HBM3";
  s.max_model_len = 8192;
  s.max_num_seqs = 256;
  s.max_num_batched_tokens = 8192;
  e.weights.bytes = 15 * kGiB;
  e.weights.rope_cache_bytes = 32 * kMiB;
  e.weights.from_tensor_list = true;
  e.weights.exact = true;
  e.activation_bytes = 1936 * kMiB;
  e.non_torch_bytes = 144 * kMiB;
  e.cuda_graph_bytes = kGiB;
  // As the estimate counts them (cuda_graphs.h): 256 sequences and 8,192
  // batched tokens capture sizes up to min(2 x 256, 512, 8,192) = 512, 51
  // PIECEWISE graphs and 35 FULL ones (the sizes up to 256).
  e.cuda_graphs = {51, 35, 512};
  e.requested_bytes = 72 * kGiB;
  e.kv_cache_bytes = 55 * kGiB;
  e.layout.page_size_bytes = 65536;
  e.layout.attention_block_size = 16;
  e.layout.group_size = 32;
  e.layout.bytes_per_block = 2 * kMiB;
  e.layout.groups = {VllmGroup{VllmSpecKind::kFullAttention, 32, 0, 16, 512}};
  e.layout.blocks_per_request = 512;
  e.num_blocks = 28160;
  e.kv_tokens = 450560;
  e.max_concurrency = 55.0;
  e.kv_cache_memory_for_seqs = 256 * kGiB;
  e.max_model_len_fit = 450560;
  e.max_num_seqs_fit = 55;
  e.total_bytes = 73 * kGiB;
  e.budget_bytes = 80 * kGiB;
  e.starts = true;
  e.fits = true;
  return e;
}

std::vector<std::string> keys_of(const Json& j) {
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  return keys;
}

TEST(VllmServeFlags, DefaultsLeaveOutWhatVllmAssumes) {
  EXPECT_THAT(vllm_serve_flags(h100()),
              ElementsAre("--max-model-len", "8192", "--max-num-seqs", "256", "--max-num-batched-tokens",
                          "8192", "--gpu-memory-utilization", "0.9"));
  // Pinned KV memory replaces the utilization.
  EXPECT_THAT(vllm_serve_flags(h100(), 274877906944ull),
              ElementsAre("--max-model-len", "8192", "--max-num-seqs", "256", "--max-num-batched-tokens",
                          "8192", "--kv-cache-memory-bytes", "274877906944"));
}

TEST(VllmServeFlags, EverySettingThatIsNotTheDefault) {
  VllmEstimate e = h100();
  e.settings.tensor_parallel = 2;
  e.settings.block_size = 32;
  e.settings.kv_cache_fp8 = true;
  e.settings.enforce_eager = true;
  e.settings.gpu_memory_utilization = 0.85;
  EXPECT_THAT(vllm_serve_flags(e),
              ElementsAre("--tensor-parallel-size", "2", "--max-model-len", "8192", "--max-num-seqs",
                          "256", "--max-num-batched-tokens", "8192", "--block-size", "32",
                          "--kv-cache-dtype", "fp8", "--enforce-eager", "--gpu-memory-utilization",
                          "0.85"));
  // KV memory given: it stays pinned, unless another is asked.
  e.settings.kv_cache_memory = 40 * kGiB;
  EXPECT_EQ(vllm_serve_flags(e).back(), "42949672960");  // 40 x 2^30
  EXPECT_EQ(vllm_serve_flags(e, 1000).back(), "1000");
}

TEST(VllmServeFlags, CommandIsTheModelThenTheFlags) {
  EXPECT_EQ(vllm_serve_command("models/llama-8b", h100()),
            "vllm serve models/llama-8b --max-model-len 8192 --max-num-seqs 256 "
            "--max-num-batched-tokens 8192 --gpu-memory-utilization 0.9");
  // A control character in the name is escaped, never printed (and the
  // escape's backslash quoted for the shell).
  EXPECT_EQ(vllm_serve_command("a\nb", h100(), 2 * kMiB),
            "vllm serve 'a\\nb' --max-model-len 8192 --max-num-seqs 256 "
            "--max-num-batched-tokens 8192 --kv-cache-memory-bytes 2097152");
}

// The start line is printed for a user to paste into a shell: a folder
// with a space ("models/my llama") is one argument, single-quoted.
TEST(VllmServeFlags, APathWithASpaceIsQuotedForTheShell) {
  EXPECT_THAT(vllm_serve_command("models/my llama", h100()),
              ::testing::StartsWith("vllm serve 'models/my llama' --max-model-len"));
}

TEST(VllmTextReport, TheWholeReportOfAnEstimateThatFits) {
  EXPECT_EQ(
      render_vllm_text(llama_8b(), h100(), kBudget),
      fmt::format(
          "memfit {} — models/llama-8b (engine vllm)\n"
          "model_type llama, family llama, layout standard\n"
          "inputs: --tensor-parallel-size 1 --max-model-len 8192 --max-num-seqs 256\n"
          "        --max-num-batched-tokens 8192 --block-size 16 --kv-cache-dtype auto\n"
          "gpu: NVIDIA H100 80GB HBM3 (probed)\n"
          "\n"
          "  Weights per rank         15.00 GiB   exact (safetensors_header), rope cache 32.0 MiB\n"
          "  Activation peak           1.89 GiB   modelled, 8192 batched tokens, 256 sampled rows\n"
          "  Non-torch                144.0 MiB   modelled\n"
          "  KV cache                 55.00 GiB   0.9 x 80.00 GiB GPU total, less the above (modelled)\n"
          "  CUDA graphs               1.00 GiB   modelled, 51 + 35 graphs up to 512 tokens, captured "
          "past the utilization\n"
          "  Peak per rank            73.00 GiB   vLLM's own\n"
          "  Budget                   80.00 GiB   gpu\n"
          "KV: 28160 GPU blocks, page 64.0 KiB x 32 layers per block (1 group); 450560 tokens\n"
          "    maximum concurrency for 8192 tokens per request: 55.00x; longest request that fits: "
          "450560 tokens\n"
          "KV per token: 131072 B per rank (a 16-token block is 2.0 MiB across all layers)\n"
          "start: vllm serve models/llama-8b --max-model-len 8192 --max-num-seqs 256 "
          "--max-num-batched-tokens 8192 --gpu-memory-utilization 0.9\n"
          "(256 requests of 8192 tokens need 256.00 GiB of KV cache, more than the 55.00 GiB left "
          "on this GPU: at most 55 such requests fit)\n"
          "or, for 55 requests of 8192 tokens: vllm serve models/llama-8b --max-model-len 8192 "
          "--max-num-seqs 55 --max-num-batched-tokens 8192 --kv-cache-memory-bytes 59057897472\n"
          "\n"
          "FITS: 73.00 GiB of 80.00 GiB (7.00 GiB to spare)\n",
          memfit_version()));
}

// One KV cache group is "(1 group)", two or more "(N groups)".
TEST(VllmTextReport, OneGroupIsSingular) {
  EXPECT_THAT(render_vllm_text(llama_8b(), h100(), kBudget), HasSubstr(" per block (1 group); "));
}

TEST(VllmTextReport, OverTheBudgetAndZeroBudget) {
  // 64 GiB: 73 - 64 = 9 GiB short.
  VllmEstimate e = h100();
  e.budget_bytes = 64 * kGiB;
  e.fits = false;
  EXPECT_THAT(render_vllm_text(llama_8b(), e, kBudget),
              HasSubstr("\nDOES NOT FIT: 73.00 GiB needed, 64.00 GiB available (9.00 GiB short)\n"));
  e.budget_bytes = 0;
  const std::string zero = render_vllm_text(llama_8b(), e, MemoryBudget{0, 0, BudgetSource::kDeviceMissing});
  EXPECT_THAT(zero, HasSubstr("\n  Budget                         0 B   device_missing\n"));
  EXPECT_THAT(zero, HasSubstr("\nDOES NOT FIT: 73.00 GiB needed, 0 B available (73.00 GiB short)\n"));
}

TEST(VllmTextReport, WouldNotStartReplacesTheVerdict) {
  VllmEstimate e = h100();
  e.starts = false;
  e.fits = false;
  const std::string text = render_vllm_text(llama_8b(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\n\nvLLM WOULD NOT START: no request of 8192 tokens fits its KV cache\n"));
  EXPECT_THAT(text, Not(HasSubstr("FIT")));
}

TEST(VllmTextReport, GivenKvMemoryIsExactAndPinned) {
  // 40 GiB given: 20,480 blocks of 2 MiB; the second command pins 256 GiB.
  VllmEstimate e = h100();
  e.settings.kv_cache_memory = 40 * kGiB;
  e.kv_given = true;
  e.kv_cache_bytes = 40 * kGiB;
  const std::string text = render_vllm_text(llama_8b(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\n  KV cache                 40.00 GiB   given (--kv-cache-memory-bytes): blocks exact\n"));
  EXPECT_THAT(text, HasSubstr("\nstart: vllm serve models/llama-8b --max-model-len 8192 --max-num-seqs 256 "
                              "--max-num-batched-tokens 8192 --kv-cache-memory-bytes 42949672960\n"));
  // KV given: no note that the pinned cache is more than is left.
  EXPECT_THAT(text, Not(HasSubstr("left on this GPU")));
  // Nor when the pinned cache fits what is left.
  VllmEstimate small = h100();
  small.kv_cache_memory_for_seqs = 50 * kGiB;
  EXPECT_THAT(render_vllm_text(llama_8b(), small, kBudget), Not(HasSubstr("left on this GPU")));
}

TEST(VllmTextReport, GpuNameSourceAndEagerMode) {
  VllmEstimate e = h100();
  e.settings.gpu_name_given = true;
  e.settings.enforce_eager = true;
  e.cuda_graph_bytes = 0;
  std::string text = render_vllm_text(llama_8b(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\ngpu: NVIDIA H100 80GB HBM3 (given)\n"));
  EXPECT_THAT(text, HasSubstr("\n  CUDA graphs                    0 B   none (--enforce-eager)\n"));
  EXPECT_THAT(text, HasSubstr(" --enforce-eager --gpu-memory-utilization 0.9\n"));
  // No name (a total given alone): no gpu line.
  e.settings.gpu_name.clear();
  EXPECT_THAT(render_vllm_text(llama_8b(), e, kBudget), Not(HasSubstr("\ngpu: ")));
}

TEST(VllmTextReport, ReleaseAccountingLines) {
  VllmEstimate e = h100();
  e.settings.release = VllmRelease{0, 7, 3, true};
  e.accounting = VllmAccounting::kV07;
  e.cuda_context_bytes = 400 * kMiB;
  std::string text = render_vllm_text(llama_8b(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\naccounting: vLLM 0.7.3: the V1 engine's own of v0.7\n\n"));
  EXPECT_THAT(text, HasSubstr("\n  Activation peak           1.89 GiB   modelled, v0.7: logits of all 8192 "
                              "batched tokens, input buffers\n"
                              "  Non-torch                144.0 MiB   modelled\n"
                              "  CUDA context             400.0 MiB   modelled, v0.7 counts it as non-torch\n"));
  e.settings.release = VllmRelease{0, 11, 0, false};
  e.accounting = VllmAccounting::kV011;
  text = render_vllm_text(llama_8b(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\naccounting: vLLM 0.11: 0.11 to 0.20's (read at v0.11)\n"));
  e.settings.release = VllmRelease{0, 24, 0, false};
  e.accounting = VllmAccounting::kCurrent;
  text = render_vllm_text(llama_8b(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\naccounting: vLLM 0.24: the current line's (0.21 to 0.32)\n"));
  EXPECT_THAT(text, Not(HasSubstr("CUDA context")));
  EXPECT_THAT(render_vllm_text(llama_8b(), h100(), kBudget), Not(HasSubstr("accounting:")));
}

TEST(VllmTextReport, RocmLoadFigureTerms) {
  // allocator 20 MiB, runtime 64 MiB; then expert padding 48 MiB.
  VllmEstimate e = h100();
  e.settings.rocm = true;
  e.settings.gpu_name = "AMD Instinct MI300X";
  e.weights.rocm_allocator_bytes = 20 * kMiB;
  e.weights.rocm_runtime_bytes = 64 * kMiB;
  std::string text = render_vllm_text(llama_8b(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\nplatform: ROCm (the load figure is the device's used memory, not "
                              "PyTorch's allocated)\n"));
  EXPECT_THAT(text, HasSubstr("   exact (safetensors_header), rope cache 32.0 MiB; ROCm's load figure: "
                              "+ allocator 20.0 MiB, runtime 64.0 MiB (modelled)\n"));
  e.weights.rocm_padding_bytes = 48 * kMiB;
  EXPECT_THAT(render_vllm_text(llama_8b(), e, kBudget),
              HasSubstr("+ allocator 20.0 MiB, expert padding 48.0 MiB, runtime 64.0 MiB (modelled)\n"));
}

TEST(VllmTextReport, WeightsNoteSaysHowTheSplitWasMade) {
  VllmEstimate e = h100();
  e.weights.exact = false;
  EXPECT_THAT(render_vllm_text(llama_8b(), e, kBudget), HasSubstr("   split from the tensor list (safetensors_header)"));
  e.weights.from_tensor_list = false;
  EXPECT_THAT(render_vllm_text(llama_8b(), e, kBudget), HasSubstr("   modelled split (safetensors_header)"));
}

TEST(VllmTextReport, MlaBlocksForcedByTheBackend) {
  VllmEstimate e = h100();
  e.layout.attention_block_size = 64;
  e.layout.groups = {VllmGroup{VllmSpecKind::kMla, 61, 0, 64, 128}};
  EXPECT_THAT(render_vllm_text(llama_8b(), e, kBudget),
              HasSubstr("\n    MLA: 64-token blocks, as vLLM's MLA backend on the NVIDIA H100 80GB HBM3 forces them\n"));
  // A hybrid Mamba model's aligned blocks are not the MLA backend's.
  e.layout.hybrid_mamba = true;
  EXPECT_THAT(render_vllm_text(llama_8b(), e, kBudget), Not(HasSubstr("MLA:")));
  // No groups (no KV layout): no KV lines at all.
  e.layout.groups.clear();
  EXPECT_THAT(render_vllm_text(llama_8b(), e, kBudget), Not(HasSubstr("\nKV: ")));
}

Model deepseek_v32() {
  // MLA layers of 512 + 64 latent elements and a 128-element indexer key.
  Model m = llama_8b();
  m.path = "models/DeepSeek-V3.2";
  m.spec.model_type = "deepseek_v32";
  m.spec.family = "deepseek_v3";
  m.spec.layout = "mla";
  // As the config's layer plan writes them: the latent's 512 and the
  // indexer key's 128 named (vllm_sparse_mla keys on the latter).
  LayerCache layer{LayerKind::kMlaLatent, 512 + 64 + 128, 0, 0, 0};
  layer.latent_elems = 512;
  layer.index_elems = 128;
  m.spec.layers.assign(61, layer);
  return m;
}

TEST(VllmTextReport, SparseMlaRates) {
  // 16-bit: (512 + 64) x 2 = 1152 B of latent; indexer 128 + 128 / 128 x 4 = 132 B.
  VllmEstimate e = h100();
  e.layout.attention_block_size = 64;
  std::string text = render_vllm_text(deepseek_v32(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\n    sparse MLA: 64-token blocks; a token costs 1152 B of MLA cache and 132 B "
                              "of indexer keys on each layer\n"));
  EXPECT_THAT(text, Not(HasSubstr("MLA backend")));
  // fp8: vLLM's fp8_ds_mla, 656 B a token.
  e.settings.kv_cache_fp8 = true;
  EXPECT_THAT(render_vllm_text(deepseek_v32(), e, kBudget),
              HasSubstr("a token costs 656 B of MLA cache (fp8_ds_mla) and 132 B of indexer keys"));
  Json j = vllm_estimate_to_json(deepseek_v32(), e, kBudget, {});
  EXPECT_EQ(j["vllm"]["sparse_mla"].dump(),
            R"({"block_size":64,"mla_token_bytes":656,"indexer_token_bytes":132,"bytes_per_block":2097152})");
  EXPECT_FALSE(vllm_estimate_to_json(llama_8b(), h100(), kBudget, {})["vllm"].contains("sparse_mla"));
}

TEST(VllmJsonReport, KeysInputsAndExactFigures) {
  std::vector<Warning> warnings = {{WarningKind::kRequest, "max_num_seqs 256 is vLLM's default"}};
  Json j = vllm_estimate_to_json(llama_8b(), h100(), kBudget, warnings);
  EXPECT_THAT(keys_of(j), ElementsAre("memfit_version", "model", "model_type", "family", "layout",
                                      "engine", "inputs", "weights_bytes", "weights_source",
                                      "weights_verified", "kv_bytes_per_token", "vllm", "bands", "confidence", "budget_bytes",
                                      "budget_source",
                                      "total_bytes", "fits", "assumptions", "warnings"));
  EXPECT_EQ(j["engine"], "vllm");
  EXPECT_EQ(j["inputs"].dump(),
            R"({"tensor_parallel":1,"gpu_memory_utilization":0.9,"gpu_memory_total":85899345920,)"
            R"("gpu_name":"NVIDIA H100 80GB HBM3","gpu_name_source":"probed","kv_cache_memory":null,)"
            R"("block_size":16,"kv_cache_dtype":"auto","max_model_len":8192,"max_num_seqs":256,)"
            R"("max_num_batched_tokens":8192,"num_speculative_tokens":0,"enforce_eager":false,)"
            R"("vllm_version":null})");
  EXPECT_EQ(j["weights_bytes"], 16106127360u);  // 15 x 2^30, per rank
  const Json& v = j["vllm"];
  EXPECT_THAT(keys_of(v),
              ElementsAre("weights_bytes", "rope_cache_bytes", "platform", "rocm_allocator_bytes",
                          "rocm_padding_bytes", "rocm_runtime_bytes", "activation_bytes",
                          "non_torch_bytes", "cuda_context_bytes", "cuda_graph_bytes", "cuda_graphs_subtracted",
                          "cuda_graphs", "accounting",
                          "gpu_memory_total", "requested_bytes", "kv_cache_bytes", "page_size_bytes",
                          "attention_block_size", "group_size", "groups", "num_gpu_blocks", "kv_tokens",
                          "max_concurrency", "blocks_per_request", "max_model_len_fit",
                          "max_num_seqs_fit", "kv_cache_memory_for_max_num_seqs", "starts", "figures",
                          "command", "command_kv_cache_memory"));
  EXPECT_EQ(v["rope_cache_bytes"], 33554432u);   // 32 MiB
  EXPECT_EQ(v["platform"], "cuda");
  EXPECT_EQ(v["activation_bytes"], 2030043136u);  // 1936 MiB
  EXPECT_EQ(v["non_torch_bytes"], 150994944u);    // 144 MiB
  EXPECT_EQ(v["cuda_graph_bytes"], 1073741824u);
  EXPECT_EQ(v["cuda_graphs_subtracted"], false);
  EXPECT_EQ(v["cuda_graphs"].dump(), R"({"piecewise":51,"full":35,"largest_tokens":512})");
  EXPECT_EQ(v["accounting"], "current");
  EXPECT_EQ(v["requested_bytes"], 77309411328u);   // 72 x 2^30
  EXPECT_EQ(v["kv_cache_bytes"], 59055800320u);    // 55 x 2^30
  EXPECT_EQ(v["page_size_bytes"], 65536u);
  EXPECT_EQ(v["groups"].dump(),
            R"([{"kind":"full_attention","layers":32,"window":null,"block_size":16,"blocks_per_request":512}])");
  EXPECT_EQ(v["num_gpu_blocks"], 28160u);
  EXPECT_EQ(v["kv_tokens"], 450560u);
  EXPECT_EQ(v["max_concurrency"].dump(), "55.0");
  EXPECT_EQ(v["kv_cache_memory_for_max_num_seqs"], 274877906944u);  // 256 x 2^30
  EXPECT_EQ(v["starts"], true);
  EXPECT_EQ(v["figures"].dump(),
            R"({"weights_bytes":"exact","activation_bytes":"modelled","non_torch_bytes":"modelled",)"
            R"("cuda_context_bytes":"modelled","cuda_graph_bytes":"modelled","kv_cache_bytes":"modelled",)"
            R"("num_gpu_blocks":"modelled"})");
  EXPECT_EQ(v["command"], vllm_serve_command("models/llama-8b", h100()));
  // 256 requests need 256 GiB, past the 55 GiB left: the command pins the
  // 55 that fit, (512 blocks x 55 + the null block) x 2 MiB = 28,161 x
  // 2,097,152 = 59,057,897,472 B.
  EXPECT_EQ(v["command_kv_cache_memory"],
            "vllm serve models/llama-8b --max-model-len 8192 --max-num-seqs 55 "
            "--max-num-batched-tokens 8192 --kv-cache-memory-bytes 59057897472");
  EXPECT_EQ(j["budget_bytes"], 85899345920u);
  EXPECT_EQ(j["budget_source"], "gpu");
  EXPECT_EQ(j["total_bytes"], 78383153152u);  // 73 x 2^30
  EXPECT_EQ(j["fits"], true);
  EXPECT_EQ(j["warnings"].dump(), R"(["max_num_seqs 256 is vLLM's default"])");
}

TEST(VllmReport, TheGraphsCountedAndSubtractedShowInBothForms) {
  // The 0.21-on worker's estimate taken from the KV memory; 256 sequences
  // and 8,192 batched tokens capture 51 PIECEWISE and 35 FULL graphs up to
  // 512 tokens. --enforce-eager captures none.
  VllmEstimate e = h100();
  e.cuda_graphs_subtracted = true;
  const Json v = vllm_estimate_to_json(llama_8b(), e, kBudget, {})["vllm"];
  EXPECT_EQ(v["cuda_graphs_subtracted"], true);
  EXPECT_EQ(v["cuda_graphs"].dump(), R"({"piecewise":51,"full":35,"largest_tokens":512})");
  EXPECT_THAT(render_vllm_text(llama_8b(), e, kBudget),
              HasSubstr("  CUDA graphs               1.00 GiB   modelled, 51 + 35 graphs up to 512 "
                        "tokens, its estimate subtracted from the KV cache\n"));
  e.settings.enforce_eager = true;
  e.cuda_graphs = {};  // what the estimate counts under it (VllmEstimate.From021...)
  EXPECT_EQ(vllm_estimate_to_json(llama_8b(), e, kBudget, {})["vllm"]["cuda_graphs"].dump(),
            R"({"piecewise":0,"full":0,"largest_tokens":0})");
}

TEST(VllmJsonReport, MutationsShowInTheirFields) {
  VllmEstimate e = h100();
  e.settings.kv_cache_memory = 40 * kGiB;
  e.kv_given = true;
  e.settings.gpu_name.clear();
  e.settings.gpu_memory_total = 0;
  e.settings.kv_cache_fp8 = true;
  e.settings.release = VllmRelease{0, 7, 0, false};
  e.accounting = VllmAccounting::kV07;
  e.settings.rocm = true;
  e.weights.rocm_runtime_bytes = 64 * kMiB;
  e.layout.groups = {VllmGroup{VllmSpecKind::kSlidingWindow, 16, 4096, 16, 257}};
  e.starts = false;
  e.fits = false;
  Json j = vllm_estimate_to_json(llama_8b(), e, kBudget, {});
  EXPECT_EQ(j["inputs"]["kv_cache_memory"], 42949672960u);  // 40 x 2^30
  EXPECT_TRUE(j["inputs"]["gpu_name"].is_null());
  EXPECT_TRUE(j["inputs"]["gpu_name_source"].is_null());
  EXPECT_TRUE(j["inputs"]["gpu_memory_total"].is_null());
  EXPECT_EQ(j["inputs"]["kv_cache_dtype"], "fp8");
  EXPECT_EQ(j["inputs"]["vllm_version"], "0.7");
  EXPECT_EQ(j["vllm"]["gpu_memory_total"], 0u);  // the vllm object keeps the number
  EXPECT_EQ(j["vllm"]["accounting"], "v0.7");
  EXPECT_EQ(j["vllm"]["platform"], "rocm");
  EXPECT_EQ(j["vllm"]["rocm_runtime_bytes"], 67108864u);
  // ROCm's terms are modelled, so the weights are too; the KV is given: exact.
  EXPECT_EQ(j["vllm"]["figures"]["weights_bytes"], "modelled");
  EXPECT_EQ(j["vllm"]["figures"]["kv_cache_bytes"], "exact");
  EXPECT_EQ(j["vllm"]["figures"]["num_gpu_blocks"], "exact");
  EXPECT_EQ(j["vllm"]["groups"][0]["window"], 4096u);
  EXPECT_EQ(j["vllm"]["groups"][0]["kind"], "sliding_window");
  EXPECT_EQ(j["vllm"]["starts"], false);
  EXPECT_EQ(j["fits"], false);
}

TEST(VllmTextReport, EstimatorsOwnAnswerForLlama70BWithItsKvGiven) {
  // estimate_test.cc: Llama-3.1-70B, 80 layers, page 65,536 B, a block
  // 5,242,880 B across the layers; 1381 blocks' worth given
  // (7,240,417,280 B = 6.74 GiB): 1381 blocks, 22,096 tokens,
  // 1381 / (2048 / 16) = 10.79x for 2048-token requests.
  Model m = testing::corpus_model("llama3/Meta-Llama-3.1-70B", 1000);
  VllmSettings s;
  s.max_model_len = 2048;
  s.kv_cache_memory = 1381ull * 5242880;
  const MemoryBudget budget{1ull << 40, 1ull << 40, BudgetSource::kExplicit};
  Result<VllmEstimate> e = estimate_vllm(m, {}, s, budget);
  ASSERT_TRUE(e.ok()) << e.error().message();
  const std::string text = render_vllm_text(m, *e, budget);
  EXPECT_THAT(text, HasSubstr("\n  KV cache                  6.74 GiB   given (--kv-cache-memory-bytes): blocks exact\n"));
  EXPECT_THAT(text, HasSubstr("\nKV: 1381 GPU blocks, page 64.0 KiB x 80 layers per block ("));
  EXPECT_THAT(text, HasSubstr("); 22096 tokens\n"
                              "    maximum concurrency for 2048 tokens per request: 10.79x; "));
  // 5,242,880 B a 16-token block: 327,680 B a token (80 layers x 4,096 B).
  EXPECT_THAT(text, HasSubstr("\nKV per token: 327680 B per rank (a 16-token block is 5.0 MiB across "
                              "all layers)\n"));
  EXPECT_THAT(text, HasSubstr(" --kv-cache-memory-bytes 7240417280\n"));
  Json j = vllm_estimate_to_json(m, *e, budget, {});
  EXPECT_EQ(j["vllm"]["num_gpu_blocks"], 1381u);
  EXPECT_EQ(j["vllm"]["kv_tokens"], 22096u);
  EXPECT_EQ(j["vllm"]["kv_cache_bytes"], 7240417280u);
  EXPECT_EQ(j["vllm"]["figures"]["kv_cache_bytes"], "exact");
}

}  // namespace
}  // namespace memfit
