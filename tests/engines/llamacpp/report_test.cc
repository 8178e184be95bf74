// render_llamacpp_text() and llamacpp_estimate_to_json() on hand-filled estimates (a CPU
// run; two GPUs and the host) and on estimate_llamacpp()'s synthetic llama.
//
// The CPU run, Qwen3-8B-like, 4096 cells, f16 K and V:
//   mapped 4.5 GiB + repacked 512 MiB = model 5 GiB (5,368,709,120)
//   KV 36 layers x 4096 cells x (1024 + 1024) x 2 B = 603,979,776 (576 MiB),
//      K and V 301,989,888 each
//   output 4 x 1 x 151,936 = 607,744 (593.5 KiB)
//   context 603,979,776 + 607,744 = 604,587,520 (576.58 MiB -> 576.6 MiB)
//   compute 300 MiB = 314,572,800
//   total 5,368,709,120 + 604,587,520 + 314,572,800 = 6,287,869,440 (5.856 GiB -> 5.86)
//   budget 8 GiB: 2,302,065,152 to spare (2.144 GiB -> 2.14)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "memfit/llamacpp_report.h"
#include "memfit/mlxcel_report.h"

namespace memfit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::ordered_json;

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

const MemoryBudget kBudget{8 * kGiB, 8 * kGiB, BudgetSource::kExplicit};

Model qwen3_gguf() {
  Model m;
  m.path = "models/qwen3-8b.gguf";
  m.has_config = true;
  m.spec.model_type = "qwen3";
  m.spec.family = "qwen3";
  m.spec.layout = "standard";
  m.weights.bytes = 4 * kGiB + 512 * kMiB;
  m.weights.source = WeightsSource::kGgufHeader;
  m.weights.verified = true;
  return m;
}

LlamaCppEstimate cpu_run() {
  LlamaCppEstimate e;
  e.settings.ctx_size = 4096;
  e.settings.repack = RepackCpu::kX86Avx2;
  e.context.n_seq = 1;
  e.context.n_ctx = 4096;
  e.context.n_ctx_seq = 4096;
  e.context.streams = 1;
  e.context.n_batch = 2048;
  e.context.n_ubatch = 512;
  e.context.flash_attn = true;
  e.mapped_bytes = 4 * kGiB + 512 * kMiB;  // 4,831,838,208
  e.repack_bytes = 512 * kMiB;
  e.repack = RepackCpu::kX86Avx2;
  e.repack_modelled = true;
  e.model_bytes = 5 * kGiB;
  e.model_bytes_exact = true;
  e.k_bytes = 288 * kMiB;
  e.v_bytes = 288 * kMiB;
  e.kv_bytes = 576 * kMiB;
  e.kv_layers = 36;
  e.kv_bytes_per_token = 147456;  // 36 x (1024 + 1024) x 2 B
  e.output_bytes = 607744;
  e.context_bytes = 604587520;
  e.compute_bytes = 300 * kMiB;
  e.total_bytes = 6287869440;
  e.budget_bytes = 8 * kGiB;
  e.fits = true;
  LlamaCppDeviceUsage cpu;
  cpu.device = "cpu";
  cpu.model_bytes = e.model_bytes;
  cpu.context_bytes = e.context_bytes;
  cpu.compute_bytes = e.compute_bytes;
  cpu.total_bytes = e.total_bytes;
  cpu.free_bytes = cpu.usable_bytes = 8 * kGiB;
  cpu.fits = true;
  cpu.blocks = 36;
  cpu.output_layer = true;
  cpu.page_cache_bytes = e.mapped_bytes;
  e.placement.devices = {cpu};
  e.placement.fits = true;
  return e;
}

std::vector<std::string> keys_of(const Json& j) {
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  return keys;
}

TEST(LlamaCppTextReport, TheWholeReportOfACpuRunThatFits) {
  EXPECT_EQ(render_llamacpp_text(qwen3_gguf(), cpu_run(), kBudget),
            fmt::format("memfit {} — models/qwen3-8b.gguf (engine llamacpp)\n"
                        "model_type qwen3, family qwen3, layout standard\n"
                        "inputs: n_ctx 4096 (1 x 4096 cells), n_seq 1, n_batch 2048, n_ubatch 512,\n"
                        "        K f16, V f16, flash_attn auto (on), swa_full off, kv_unified off,\n"
                        "        repack x86-avx2\n"
                        "\n"
                        "  Model                     5.00 GiB   exact (gguf_header)\n"
                        "    Mapped weights          4.50 GiB   CPU_Mapped, the file's tensor range\n"
                        "    Repacked copies        512.0 MiB   CPU_REPACK (x86-avx2)\n"
                        "  Context                  576.6 MiB   exact\n"
                        "    KV cache               576.0 MiB   36 layers\n"
                        "    Recurrent state              0 B\n"
                        "    Output buffer          593.5 KiB   logits for 1 sequence\n"
                        "  Compute                  300.0 MiB   modelled\n"
                        "  Total                     5.86 GiB\n"
                        "  Budget                    8.00 GiB   explicit\n"
                        "KV per token: 147456 B (K f16 + V f16, the layers that grow with the context)\n"
                        "\n"
                        "FITS: 5.86 GiB of 8.00 GiB (2.14 GiB to spare)\n",
                        memfit_version()));
}

TEST(LlamaCppTextReport, CpuRunOverTheBudget) {
  // 6,287,869,440 - 4 GiB = 1,992,902,144 = 1.856 GiB -> 1.86 short.
  LlamaCppEstimate e = cpu_run();
  e.budget_bytes = 4 * kGiB;
  e.fits = false;
  const std::string text = render_llamacpp_text(qwen3_gguf(), e, MemoryBudget{4 * kGiB, 4 * kGiB, BudgetSource::kGpu});
  EXPECT_THAT(text, HasSubstr("\n  Budget                    4.00 GiB   gpu\n"));
  EXPECT_THAT(text, HasSubstr("\nDOES NOT FIT: 5.86 GiB needed, 4.00 GiB available (1.86 GiB short)\n"));
  // A zero budget.
  e.budget_bytes = 0;
  EXPECT_THAT(render_llamacpp_text(qwen3_gguf(), e, MemoryBudget{}),
              HasSubstr("\nDOES NOT FIT: 5.86 GiB needed, 0 B available (5.86 GiB short)\n"));
}

TEST(LlamaCppTextReport, InputsFollowTheContextAndSettings) {
  LlamaCppEstimate e = cpu_run();
  e.settings.cache_type_k = GgmlType::kQ8_0;
  e.settings.cache_type_v = GgmlType::kQ4_0;
  e.settings.flash_attn = FlashAttn::kOn;
  e.settings.swa_full = true;
  e.settings.kv_unified = true;
  e.context.n_seq = 4;
  e.context.n_ctx = 16384;
  e.context.n_ctx_seq = 16384;
  e.context.streams = 1;
  e.context.swa_cells = 1280;
  const std::string text = render_llamacpp_text(qwen3_gguf(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\ninputs: n_ctx 16384 (1 x 16384 cells), n_seq 4, n_batch 2048, n_ubatch 512,\n"
                              "        K q8_0, V q4_0, flash_attn on (on), swa_full on, kv_unified on,\n"));
  EXPECT_THAT(text, HasSubstr("\n    KV cache               576.0 MiB   36 layers, SWA 1280 cells per stream\n"));
  EXPECT_THAT(text, HasSubstr("\n    Output buffer          593.5 KiB   logits for 4 sequences\n"));
  // Flash attention asked auto and resolved off.
  e.settings.flash_attn = FlashAttn::kAuto;
  e.context.flash_attn = false;
  EXPECT_THAT(render_llamacpp_text(qwen3_gguf(), e, kBudget), HasSubstr(", flash_attn auto (off), "));
}

TEST(LlamaCppTextReport, RepackRows) {
  // --no-repack: no row at all.
  LlamaCppEstimate e = cpu_run();
  e.repack = RepackCpu::kNone;
  e.repack_bytes = 0;
  std::string text = render_llamacpp_text(qwen3_gguf(), e, kBudget);
  EXPECT_THAT(text, Not(HasSubstr("Repacked copies")));
  EXPECT_THAT(text, HasSubstr("\n        repack none\n"));
  // No tensor list (a safetensors model): not modelled, shown as "?".
  e.repack = RepackCpu::kArm;
  e.repack_modelled = false;
  text = render_llamacpp_text(qwen3_gguf(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\n    Repacked copies                ?   not modelled: no GGUF tensor list\n"));
}

TEST(LlamaCppTextReport, RecurrentEstimatedAndReplayedNotes) {
  Model m = qwen3_gguf();
  m.weights.source = WeightsSource::kAnalyticalConfig;
  LlamaCppEstimate e = cpu_run();
  e.model_bytes_exact = false;
  e.recurrent_bytes = 3 * kMiB;
  e.recurrent_layers = 24;
  e.compute_replayed = true;
  const std::string text = render_llamacpp_text(m, e, kBudget);
  EXPECT_THAT(text, HasSubstr("\n  Model                     5.00 GiB   estimated (analytical_config)\n"));
  EXPECT_THAT(text, HasSubstr("\n    Recurrent state          3.0 MiB   24 layers\n"));
  EXPECT_THAT(text, HasSubstr("\n  Compute                  300.0 MiB   replayed: llama.cpp's allocator over its graph\n"));
}

TEST(LlamaCppTextReport, ServerExtrasAreRowsUnderTheirSum) {
  // mmproj weights 105.5 KiB (108,032 B) exact, its compute 2 MiB modelled,
  // a prompt cache of 256 MiB with no file: 108,032 + 2,097,152 + 268,435,456
  // = 270,640,640 (258.1 MiB).
  LlamaCppEstimate e = cpu_run();
  e.extras = {{"mmproj weights", "mm\nproj.gguf", "cpu", 108032, true},
              {"mmproj compute", "mm\nproj.gguf", "cpu", 2 * kMiB, false},
              {"prompt cache", "", "cpu", 256 * kMiB, false}};
  e.extras_bytes = 270640640;
  const std::string text = render_llamacpp_text(qwen3_gguf(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\n  Compute                  300.0 MiB   modelled\n"
                              "  Server extras            258.1 MiB\n"
                              "    mmproj weights         105.5 KiB   exact, on cpu, mm\\nproj.gguf\n"
                              "    mmproj compute           2.0 MiB   modelled, on cpu, mm\\nproj.gguf\n"
                              "    prompt cache           256.0 MiB   modelled, on cpu\n"
                              "  Total "));
  EXPECT_THAT(render_llamacpp_text(qwen3_gguf(), cpu_run(), kBudget), Not(HasSubstr("Server extras")));
}

TEST(LlamaCppTextReport, AssumptionsComeBeforeTheVerdict) {
  Model m = qwen3_gguf();
  m.spec.assumptions = {"rope.freq_base 1000000 (default)"};
  EXPECT_THAT(render_llamacpp_text(m, cpu_run(), kBudget),
              HasSubstr("\n  Budget                    8.00 GiB   explicit\n"
                        "KV per token: 147456 B (K f16 + V f16, the layers that grow with the context)\n"
                        "assumed: rope.freq_base 1000000 (default)\n"
                        "\nFITS: "));
}

// Two 24 GiB GPUs (1 GiB margin: 23 GiB usable each) and the host:
//   cuda:0  18 blocks       model 2 GiB,   context 288 MiB, compute 300 MiB
//           total 2,147,483,648 + 301,989,888 + 314,572,800 = 2,764,046,336 (2.57 GiB)
//   cuda:1  18 blocks + o   model 2.5 GiB, context 288 MiB, compute 300 MiB
//           total 2,684,354,560 + 301,989,888 + 314,572,800 = 3,300,917,248 (3.07 GiB)
//   cpu     0 blocks        model 512 MiB, context 607,744 (the output buffer), compute 64 MiB
//           total 536,870,912 + 607,744 + 67,108,864 = 604,587,520 (576.6 MiB)
//   sum     6,669,551,104 (6.21 GiB); the host's 512 MiB is mapped page cache
LlamaCppEstimate two_gpus() {
  LlamaCppEstimate e = cpu_run();
  e.repack = RepackCpu::kNone;
  e.repack_bytes = 0;
  e.mapped_bytes = 5 * kGiB;
  e.settings.placement.gpus = {{"cuda:0", "NVIDIA RTX A5000", 24 * kGiB},
                               {"cuda:1", "NVIDIA RTX A5000", 24 * kGiB}};
  e.compute_bytes = 664 * kMiB;
  e.total_bytes = 6669551104;
  e.placement.n_gpu_layers = 37;
  auto gpu = [](std::string device, uint64_t blocks, bool output, uint64_t model, uint64_t total) {
    LlamaCppDeviceUsage d;
    d.device = std::move(device);
    d.name = "NVIDIA RTX A5000";
    d.model_bytes = model;
    d.context_bytes = 288 * kMiB;
    d.compute_bytes = 300 * kMiB;
    d.total_bytes = total;
    d.free_bytes = 24 * kGiB;
    d.usable_bytes = 23 * kGiB;
    d.fits = true;
    d.blocks = blocks;
    d.output_layer = output;
    return d;
  };
  LlamaCppDeviceUsage cpu;
  cpu.device = "cpu";
  cpu.model_bytes = 512 * kMiB;
  cpu.context_bytes = 607744;
  cpu.compute_bytes = 64 * kMiB;
  cpu.total_bytes = 604587520;
  cpu.free_bytes = cpu.usable_bytes = 8 * kGiB;
  cpu.fits = true;
  cpu.page_cache_bytes = 512 * kMiB;
  e.placement.devices = {gpu("cuda:0", 18, false, 2 * kGiB, 2764046336),
                         gpu("cuda:1", 18, true, 2 * kGiB + 512 * kMiB, 3300917248), cpu};
  e.placement.fits = true;
  e.fits = true;
  return e;
}

TEST(LlamaCppTextReport, DeviceTableOfTwoGpusAndTheHost) {
  const std::string text = render_llamacpp_text(qwen3_gguf(), two_gpus(), kBudget);
  EXPECT_THAT(text, HasSubstr("\n    Mapped weights          5.00 GiB   the file's tensors, over the devices below\n"));
  EXPECT_THAT(text, HasSubstr("\n  Total                     6.21 GiB\n"));
  EXPECT_THAT(
      text,
      HasSubstr("\nDevices: -ngl 37 of 37 (blocks + the output layer), split layer, GPU margin 1.00 GiB\n"
                "  device   name                 blocks       model     context     compute       total      usable\n"
                "  cuda:0   NVIDIA RTX A5000         18    2.00 GiB   288.0 MiB   300.0 MiB    2.57 GiB   23.00 GiB  fits\n"
                "  cuda:1   NVIDIA RTX A5000       18+o    2.50 GiB   288.0 MiB   300.0 MiB    3.07 GiB   23.00 GiB  fits\n"
                "  cpu                                0   512.0 MiB   593.5 KiB    64.0 MiB   576.6 MiB    8.00 GiB  fits\n"
                "  512.0 MiB of the host's model is mapped page cache the OS may drop (--no-mmap or --mlock: resident)\n"));
  // With GPUs the verdict is every device's, not total against budget.
  EXPECT_THAT(text, HasSubstr("\nFITS: every device, 6.21 GiB in all\n"));
  EXPECT_THAT(text, Not(HasSubstr("to spare")));
}

TEST(LlamaCppTextReport, ShortDevicesAreNamedWorstFirst) {
  // cuda:0 usable 2.5 GiB: 2,764,046,336 - 2,684,354,560 = 79,691,776 (76.0 MiB) short;
  // cuda:1 usable 2 GiB: 3,300,917,248 - 2,147,483,648 = 1,153,433,600 (1.07 GiB) short.
  LlamaCppEstimate e = two_gpus();
  e.placement.devices[0].usable_bytes = 2 * kGiB + 512 * kMiB;
  e.placement.devices[0].fits = false;
  e.placement.devices[0].short_bytes = 79691776;
  e.placement.devices[1].usable_bytes = 2 * kGiB;
  e.placement.devices[1].fits = false;
  e.placement.devices[1].short_bytes = 1153433600;
  e.placement.fits = false;
  e.fits = false;
  const std::string text = render_llamacpp_text(qwen3_gguf(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("    2.57 GiB    2.50 GiB  SHORT by 76.0 MiB\n"));
  EXPECT_THAT(text, HasSubstr("    3.07 GiB    2.00 GiB  SHORT by 1.07 GiB\n"));
  EXPECT_THAT(text, HasSubstr("\nDOES NOT FIT: cuda:1 is 1.07 GiB short, cuda:0 76.0 MiB short\n"));
  // Only one short: no list after it.
  e.placement.devices[0] = two_gpus().placement.devices[0];
  EXPECT_THAT(render_llamacpp_text(qwen3_gguf(), e, kBudget),
              HasSubstr("\nDOES NOT FIT: cuda:1 is 1.07 GiB short\n"));
}

TEST(LlamaCppTextReport, DeviceTableNotesUnifiedMemoryAndExtras) {
  LlamaCppEstimate e = two_gpus();
  e.settings.placement.unified = true;
  e.settings.placement.split_mode = SplitMode::kRow;
  e.settings.placement.gpu_margin_bytes = 512 * kMiB;
  e.placement.n_gpu_layers = 20;
  e.placement.devices[0].extras_bytes = 600 * kMiB;
  e.placement.devices[2].page_cache_bytes = 0;  // --no-mmap
  const std::string text = render_llamacpp_text(qwen3_gguf(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\nDevices: -ngl 20 of 37 (blocks + the output layer), split row, GPU margin "
                              "512.0 MiB, unified memory: one pool\n"));
  EXPECT_THAT(text, HasSubstr("  fits\n  cuda:0's total includes 600.0 MiB of server extras\n"));
  EXPECT_THAT(text, Not(HasSubstr("page cache")));
}

// The line of `text` that starts with `prefix`; "" when none.
std::string line_starting(const std::string& text, std::string_view prefix) {
  size_t at = text.rfind(std::string("\n") + std::string(prefix));
  if (at == std::string::npos) return "";
  size_t end = text.find('\n', at + 1);
  return text.substr(at + 1, end - at - 1);
}

// Whether `device`'s row ends its last figure (the usable bytes) in the
// column where the header's "usable" ends: the table is aligned.
bool usable_column_aligned(const std::string& text, std::string_view device) {
  const std::string header = line_starting(text, "  device   name");
  const std::string row = line_starting(text, fmt::format("  {:<8} ", device));
  return !header.empty() && !row.empty() && row.find("  fits") == header.size();
}

TEST(LlamaCppTextReport, DeviceRowsAlignWithTheHeader) {
  const std::string text = render_llamacpp_text(qwen3_gguf(), two_gpus(), kBudget);
  EXPECT_TRUE(usable_column_aligned(text, "cuda:0"));
  EXPECT_TRUE(usable_column_aligned(text, "cpu"));
  // A 20-byte name fills its cell exactly.
  LlamaCppEstimate e = two_gpus();
  e.placement.devices[0].name = "NVIDIA GeForce RTX 4";
  EXPECT_TRUE(usable_column_aligned(render_llamacpp_text(qwen3_gguf(), e, kBudget), "cuda:0"));
}

// A name longer than 20 bytes widens the column for every row ("NVIDIA
// GeForce RTX 4090" is 23 bytes, as nvidia-smi names the card), so the
// figures stay under their headers and the name is never cut.
TEST(LlamaCppTextReport, LongDeviceNameKeepsTheTableAligned) {
  LlamaCppEstimate e = two_gpus();
  e.placement.devices[0].name = "NVIDIA GeForce RTX 4090";
  const std::string text = render_llamacpp_text(qwen3_gguf(), e, kBudget);
  EXPECT_TRUE(usable_column_aligned(text, "cuda:0"));
  EXPECT_TRUE(usable_column_aligned(text, "cuda:1"));
  EXPECT_NE(text.find("NVIDIA GeForce RTX 4090 "), std::string::npos);
}

TEST(LlamaCppJsonReport, KeysAndInputsInOrder) {
  Json j = llamacpp_estimate_to_json(qwen3_gguf(), cpu_run(), kBudget, {});
  EXPECT_THAT(keys_of(j), ElementsAre("memfit_version", "model", "model_type", "family", "layout",
                                      "engine", "inputs", "weights_bytes", "weights_source",
                                      "weights_verified", "kv_bytes_per_token", "llamacpp", "bands", "confidence", "budget_bytes", "budget_source",
                                      "total_bytes", "fits", "assumptions", "warnings"));
  EXPECT_EQ(j["engine"], "llamacpp");
  EXPECT_EQ(j["inputs"].dump(),
            R"({"ctx_size":4096,"n_ctx":4096,"n_ctx_seq":4096,"n_seq":1,"streams":1,"n_batch":2048,)"
            R"("n_ubatch":512,"swa_cells":null,"cache_type_k":"f16","cache_type_v":"f16",)"
            R"("flash_attn":"auto","flash_attn_resolved":true,"swa_full":false,"kv_unified":false,)"
            R"("repack":"x86-avx2"})");
}

TEST(LlamaCppJsonReport, ExactFiguresOfTheCpuRun) {
  std::vector<Warning> warnings = {{WarningKind::kRequest, "K and V cache types differ"}};
  Json j = llamacpp_estimate_to_json(qwen3_gguf(), cpu_run(), kBudget, warnings);
  EXPECT_EQ(j["weights_bytes"], 4831838208u);  // the mapped bytes: 4.5 x 2^30
  EXPECT_EQ(j["weights_source"], "gguf_header");
  EXPECT_EQ(j["weights_verified"], true);
  const Json& l = j["llamacpp"];
  EXPECT_THAT(keys_of(l), ElementsAre("model_bytes", "mapped_bytes", "repack_bytes", "context_bytes",
                                      "compute_bytes", "context", "extras_bytes", "extras", "devices",
                                      "figures"));
  EXPECT_EQ(l["model_bytes"], 5368709120u);   // 4.5 GiB + 512 MiB
  EXPECT_EQ(l["mapped_bytes"], 4831838208u);
  EXPECT_EQ(l["repack_bytes"], 536870912u);   // 512 MiB
  EXPECT_EQ(l["context_bytes"], 604587520u);  // 603,979,776 + 607,744
  EXPECT_EQ(l["compute_bytes"], 314572800u);  // 300 MiB
  EXPECT_EQ(l["context"].dump(),
            R"({"kv_bytes":603979776,"k_bytes":301989888,"v_bytes":301989888,"kv_layers":36,)"
            R"("kv_bytes_per_token":147456,"recurrent_bytes":0,"recurrent_layers":0,"output_bytes":607744})");
  EXPECT_EQ(l["extras_bytes"], 0u);
  EXPECT_EQ(l["extras"].dump(), "[]");
  EXPECT_EQ(l["devices"].dump(),
            R"([{"device":"cpu","name":"","model_bytes":5368709120,"context_bytes":604587520,)"
            R"("compute_bytes":314572800,"extras_bytes":0,"confidence_bytes":0,"total_bytes":6287869440,)"
            R"("free_bytes":8589934592,"usable_bytes":8589934592,"fits":true,"short_bytes":0,)"
            R"("blocks":36,"output_layer":true,"page_cache_bytes":4831838208}])");
  EXPECT_EQ(l["figures"].dump(),
            R"({"model_bytes":"exact","context_bytes":"exact","compute_bytes":"modelled"})");
  EXPECT_EQ(j["budget_bytes"], 8589934592u);
  EXPECT_EQ(j["budget_source"], "explicit");
  EXPECT_EQ(j["total_bytes"], 6287869440u);  // 5 GiB + 604,587,520 + 300 MiB
  EXPECT_EQ(j["fits"], true);
  EXPECT_EQ(j["warnings"].dump(), R"(["K and V cache types differ"])");
}

TEST(LlamaCppJsonReport, MutationsShowInTheirFields) {
  LlamaCppEstimate e = cpu_run();
  e.repack_modelled = false;
  e.repack_bytes = 0;
  e.model_bytes_exact = false;
  e.compute_replayed = true;
  e.context.swa_cells = 1280;
  e.budget_bytes = 4 * kGiB;
  e.fits = false;
  e.extras = {{"LoRA adapter", "ad\napter.gguf", "cuda:0", 33554432, true}};  // 32 MiB
  e.extras_bytes = 33554432;
  Json j = llamacpp_estimate_to_json(qwen3_gguf(), e, MemoryBudget{4 * kGiB, 0, BudgetSource::kGpu}, {});
  EXPECT_TRUE(j["llamacpp"]["repack_bytes"].is_null());
  EXPECT_EQ(j["llamacpp"]["figures"]["model_bytes"], "estimated");
  EXPECT_EQ(j["llamacpp"]["figures"]["compute_bytes"], "replayed");
  EXPECT_EQ(j["inputs"]["swa_cells"], 1280u);
  EXPECT_EQ(j["budget_bytes"], 4294967296u);
  EXPECT_EQ(j["budget_source"], "gpu");
  EXPECT_EQ(j["fits"], false);
  // The file is escaped (the newline as the two characters \n) in JSON too.
  EXPECT_EQ(j["llamacpp"]["extras"].dump(),
            R"([{"name":"LoRA adapter","file":"ad\\napter.gguf","device":"cuda:0","bytes":33554432,)"
            R"("figure":"exact"}])");
  EXPECT_EQ(j["llamacpp"]["extras_bytes"], 33554432u);
}

TEST(LlamaCppJsonReport, EveryDeviceOfTheGpuPlan) {
  LlamaCppEstimate e = two_gpus();
  e.placement.devices[1].fits = false;
  e.placement.devices[1].usable_bytes = 2 * kGiB;
  e.placement.devices[1].short_bytes = 1153433600;  // 3,300,917,248 - 2 GiB
  Json j = llamacpp_estimate_to_json(qwen3_gguf(), e, kBudget, {});
  const Json& devices = j["llamacpp"]["devices"];
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(devices[0]["device"], "cuda:0");
  EXPECT_EQ(devices[0]["name"], "NVIDIA RTX A5000");
  EXPECT_EQ(devices[0]["total_bytes"], 2764046336u);
  EXPECT_EQ(devices[0]["usable_bytes"], 24696061952u);  // 23 x 2^30
  EXPECT_EQ(devices[0]["output_layer"], false);
  EXPECT_EQ(devices[1]["blocks"], 18u);
  EXPECT_EQ(devices[1]["output_layer"], true);
  EXPECT_EQ(devices[1]["fits"], false);
  EXPECT_EQ(devices[1]["short_bytes"], 1153433600u);
  EXPECT_EQ(devices[2]["device"], "cpu");
  EXPECT_EQ(devices[2]["page_cache_bytes"], 536870912u);
  EXPECT_EQ(j["total_bytes"], 6669551104u);
}

ModelSpec synthetic_llama_report() {
  // docs/llamacpp-rules.md's synthetic llama (estimate_test.cc): 4 blocks,
  // hidden 256, 8 heads, 2 KV heads of 32, n_ff 512, vocab 32000.
  ModelSpec s;
  s.geometry = {4, 256, 8, 2, 32, 512, 32000};
  s.max_position_tokens = 4096;
  s.layers.assign(4, LayerCache{LayerKind::kFullAttention, 128, 0, 0, 0});
  return s;
}

TEST(LlamaCppTextReport, EstimatorsOwnAnswerForTheSyntheticLlama) {
  // --ctx-size 512: KV 4 layers x 128 elements x 2 B x 512 = 524,288 (512.0 KiB);
  // output 4 x 32000 = 128,000 (125.0 KiB); compute 64 MiB (estimate_test.cc);
  // model 1000 B (not GGUF: the repacked copies are not modelled);
  // context 652,288 (637.0 KiB); total 1000 + 652,288 + 67,108,864 = 67,762,152
  // (64.62 MiB -> 64.6); 64 GiB - total = 68,651,714,584 (63.94 GiB) to spare.
  Model m;
  m.path = "synthetic-llama";
  m.has_config = true;
  m.spec = synthetic_llama_report();
  m.weights.bytes = 1000;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  LlamaCppSettings s;
  s.ctx_size = 512;
  const MemoryBudget budget{64 * kGiB, 64 * kGiB, BudgetSource::kExplicit};
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, budget);
  ASSERT_TRUE(e.ok()) << e.error().message();
  const std::string text = render_llamacpp_text(m, *e, budget);
  EXPECT_THAT(text, HasSubstr("\ninputs: n_ctx 512 (1 x 512 cells), n_seq 1, n_batch 512, n_ubatch 512,\n"));
  EXPECT_THAT(text, HasSubstr("\n  Model                       1000 B   exact (safetensors_header)\n"));
  EXPECT_THAT(text, HasSubstr("\n    Repacked copies                ?   not modelled: no GGUF tensor list\n"));
  EXPECT_THAT(text, HasSubstr("\n  Context                  637.0 KiB   exact\n"
                              "    KV cache               512.0 KiB   4 layers\n"
                              "    Recurrent state              0 B\n"
                              "    Output buffer          125.0 KiB   logits for 1 sequence\n"
                              "  Compute                   64.0 MiB   "));
  EXPECT_THAT(text, HasSubstr("\n  Total                     64.6 MiB\n"));
  EXPECT_THAT(text, HasSubstr("\nFITS: 64.6 MiB of 64.00 GiB (63.94 GiB to spare)\n"));
  Json j = llamacpp_estimate_to_json(m, *e, budget, {});
  EXPECT_EQ(j["total_bytes"], 67762152u);
  EXPECT_EQ(j["llamacpp"]["context"]["kv_bytes"], 524288u);
  EXPECT_EQ(j["llamacpp"]["context"]["output_bytes"], 128000u);
  EXPECT_TRUE(j["llamacpp"]["repack_bytes"].is_null());
}

}  // namespace
}  // namespace memfit
