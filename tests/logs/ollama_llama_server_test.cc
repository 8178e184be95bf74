// Ollama from v0.30.0 starts llama.cpp's llama-server on a model
// (ollama/ollama llm/llama_server.go, #16031): check-log reads its command
// from the server's slog record and prices the run by the llamacpp profile
// at the release's llama.cpp build (engines/ollama/releases.h,
// llama_server_build). Logs of the neverollama3 batch (2026-12-07).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "engines/ollama/releases.h"
#include "logs/log_test_data.h"
#include "memfit/log_check.h"
#include "memfit/runtime_log.h"

namespace memfit {
namespace {

constexpr auto figure_ollama_llama_server = &testing::find_check_figure;

LogCheck check_ollama_llama_server(const std::string& file) { return testing::check_test_log("ollama", file, {}); }

TEST(OllamaLlamaServer, EachReleaseHasItsLlamaCppVersionsBuild) {
  // LLAMA_CPP_VERSION at the tags: v0.30.0 b9452, v0.30.5 to v0.30.8
  // b9509, v0.30.10 b9672, v0.32.3 to v0.32.5 b10091, v0.32.15 b10488.
  EXPECT_EQ(ollama::llama_server_build("0.30.0"), std::optional<uint64_t>(9452));
  EXPECT_EQ(ollama::llama_server_build("v0.30.7"), std::optional<uint64_t>(9509));
  EXPECT_EQ(ollama::llama_server_build("0.30.8"), std::optional<uint64_t>(9509));
  EXPECT_EQ(ollama::llama_server_build("0.30.10"), std::optional<uint64_t>(9672));
  EXPECT_EQ(ollama::llama_server_build("0.32.5"), std::optional<uint64_t>(10091));
  EXPECT_EQ(ollama::llama_server_build("0.32.15-rc2"), std::optional<uint64_t>(10488));
  // Before v0.30.0 Ollama runs its own runners; after v0.32.15 not read.
  EXPECT_EQ(ollama::llama_server_build("0.24.0"), std::nullopt);
  EXPECT_EQ(ollama::llama_server_build("0.33.0"), std::nullopt);
  EXPECT_EQ(ollama::llama_server_build("latest"), std::nullopt);
  EXPECT_EQ(ollama::llama_server_build(""), std::nullopt);
}

TEST(OllamaLlamaServer, TheCommandIsReadInsideTheRecordsQuotes) {
  // The record's cmd ends '-ub 1024"': the quote closes the field and is
  // no part of the ubatch (read as '1024"' before, which no count parses).
  const std::string text =
      "time=2026-06-09T11:03:39.528Z level=INFO source=llama_server.go:403 msg=\"starting llama-server\" "
      "cmd=\"/home/u/.local/lib/ollama/llama-server --model /m/blobs/sha256-6be6 --port 41765 --host "
      "127.0.0.1 --no-webui -c 16384 -np 1 --flash-attn auto -b 1024 -ub 1024\"\n";
  Result<RuntimeLog> log = read_runtime_log(text);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->runtime, "ollama");
  ASSERT_NE(log->setting("ollama_runner"), nullptr);
  EXPECT_EQ(log->setting("ollama_runner")->value, "llama-server");
  ASSERT_NE(log->setting("n_ubatch"), nullptr);
  EXPECT_EQ(log->setting("n_ubatch")->value, "1024");
  ASSERT_NE(log->setting("n_ctx"), nullptr);
  EXPECT_EQ(log->setting("n_ctx")->value, "16384");
}

TEST(OllamaLlamaServer, GptOssKeepsLlamaServersWindowedCache) {
  // Ollama 0.30.7 (llama.cpp b9509), gpt-oss-120b on an H100, -c 16384
  // -np 1 -ub 1024: llama-server's cache is llama.cpp's, swa_full off. 18
  // full layers x 16,384 cells x 2,048 B (K and V: 8 heads x 64 x 2 B
  // each) = 603,979,776 B (576.00 MiB), and 18 windowed layers of
  // 128 + 1,024 cells padded to 256, 1,280 x 2,048 B x 18 = 47,185,920 B
  // (45.00 MiB): 651,165,696 B, the log's 576 + 45 MiB. Priced before as
  // v0.24.0's own engine (a 4,096-cell window memory): 738.00 MiB, 1.19.
  const LogCheck c = check_ollama_llama_server("ollama-neverollama3-gptoss120b-h100-llamaserver-v0307.log");
  const FigureCheck* kv = figure_ollama_llama_server(c, "CUDA0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, std::optional<uint64_t>(651'165'696u));
  EXPECT_EQ(kv->basis, FigureBasis::kExact);
}

TEST(OllamaLlamaServer, TheOutputBufferIsLlamaServersLogitsAlone) {
  // Ollama 0.30.10, Codestral 22B on an A40: llama-server asks no
  // embeddings, so the output buffer is one row of 32,768 logits, 4 B
  // each: 131,072 B ("0.12 MiB"). v0.24.0's runner (embeddings = true)
  // added 6,144 floats: 155,648 B, 1.24 of the print.
  const LogCheck c = check_ollama_llama_server("ollama-neverollama3-codestral-22b-llamaserver-v03010.log");
  const FigureCheck* out = figure_ollama_llama_server(c, "CPU", LogFigure::kOutput);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->memfit, std::optional<uint64_t>(131'072u));
  // 56 layers x 4,096 cells x 4,096 B (8 KV heads x 128 x 2 B, K and V) =
  // 939,524,096 B, "896.00 MiB".
  const FigureCheck* kv = figure_ollama_llama_server(c, "CUDA0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, std::optional<uint64_t>(939'524'096u));
}

TEST(OllamaLlamaServer, TheHostsMaskIsF16UnderFlashAttentionFromB9444) {
  // The same log, build b9672, every layer on CUDA0, flash attention: the
  // host holds the graph inputs. The token rows it gathers and the
  // vector-input leaf, 6,144 x 512 x 4 B each (25,165,824 B), the F16 mask
  // 4,096 x 512 x 2 B (4,194,304 B, #23764), token ids and positions 512
  // x 4 B each (4,096 B), the one output id of "n_outputs_max = 1" (#23861:
  // 4 B, 32 at the host's alignment), k_idxs and v_idxs 512 x 8 B each
  // (8,192 B): 29,372,448 B, the print's "28.01 MiB" (every token's output
  // id, 2,048 B, made it 29,374,464). An F32 mask adds 4,194,304 B (32.01
  // MiB, 1.14).
  const LogCheck c = check_ollama_llama_server("ollama-neverollama3-codestral-22b-llamaserver-v03010.log");
  const FigureCheck* host = figure_ollama_llama_server(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, std::optional<uint64_t>(29'372'448u));
  EXPECT_TRUE(host->within_print);
}

TEST(OllamaLlamaServer, TheGraphIsReservedForThePrintedOutputRows) {
  // gpt-oss-120b, -ub 1024, llama-server b9509: the log prints
  // "n_outputs_max = 1" (#23861: llama-server reserves one output row a
  // slot). Every token's row, as before b9460, made the GPU's output phase
  // the logits and result_norm 4 x 1,024 x (201,088 + 2,880) = 835,452,928
  // B (796.75 MiB, 3.83 of the print's 208.04 MiB); one row makes it 4 x 1
  // x 203,968 = 815,872 B, and the figure is the next phase's, 223,870,976
  // B (213.50 MiB, 1.026).
  const LogCheck c = check_ollama_llama_server("ollama-neverollama3-gptoss120b-h100-llamaserver-v0307.log");
  const FigureCheck* gpu = figure_ollama_llama_server(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, std::optional<uint64_t>(223'870'976u));
  EXPECT_LT(*gpu->memfit, 835'452'928u);
  EXPECT_EQ(gpu->note.find("n_outputs_max"), std::string::npos) << gpu->note;
}

TEST(OllamaLlamaServer, APartialOffloadsGpuKeepsItsFfnNotTheLogits) {
  // Qwen2.5-Coder 32B, 48 of 65 layers on the GPU, -ub 512, "n_outputs_max
  // = 1": the logits of 512 rows, 4 x 512 x (152,064 + 5,120) = 321,912,832
  // B (1.36 of the print), fall to one row's 628,736 B, and the GPU's
  // figure is its blocks' largest phase, the print's 225.96 MiB.
  const LogCheck c = check_ollama_llama_server("ollama-neverollama3-qwen25-coder-32b-q4km-partial-llamaserver-v03010.log");
  const FigureCheck* gpu = figure_ollama_llama_server(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  ASSERT_TRUE(gpu->memfit.has_value());
  EXPECT_LT(*gpu->memfit, 321'912'832u);
  EXPECT_TRUE(gpu->within_print);
}

}  // namespace
}  // namespace memfit
