// check_log (log_check.h): logged runs priced through run(), the model
// rebuilt from llama.cpp's metadata dump or read from a config; every
// exact figure worked by hand. The pinned logs are the real llama.cpp's
// (tests/data/logs/llamacpp/llamacpp-pinned-*.json say how they were made).
#include <gtest/gtest.h>

#include "logs/log_test_data.h"
#include "memfit/log_check.h"

namespace memfit {
namespace {

using testing::read_test_log;

LogCheck check(const std::string& engine, const std::string& file, LogCheckOptions options = {}) {
  Result<LogCheck> c = check_log(read_test_log(engine, file), options, nullptr);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message());
  return c.ok() ? std::move(*c) : LogCheck{};
}

const FigureCheck* figure(const LogCheck& c, std::string_view device, LogFigure f) {
  for (const FigureCheck& x : c.figures) {
    if (x.printed.device == device && x.printed.figure == f) return &x;
  }
  ADD_FAILURE() << "no " << to_string(f) << " on " << device;
  return nullptr;
}

TEST(CheckLog, PinnedLlamaRunRebuiltFromItsDumpIsExact) {
  const LogCheck c = check("llamacpp", "llamacpp-pinned-llama-dense-ctx4096.log");
  EXPECT_EQ(c.profile, "llamacpp");
  EXPECT_EQ(c.model_source, ModelSource::kLog);
  EXPECT_EQ(c.not_priced, "");
  // KV: 4 layers x 4096 cells x (2 x 64 K + 2 x 64 V) x 2 B = 8,388,608.
  const FigureCheck* kv = figure(c, "CPU", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 8'388'608u);
  EXPECT_EQ(kv->basis, FigureBasis::kExact);
  EXPECT_EQ(kv->ratio, 1.0);
  EXPECT_TRUE(kv->within_print);
  // Output: 4 B x 32,000 vocab x 1 sequence = 128,000 B against the
  // printed 0.12 MiB = 125,829 +- 5,243: inside the rounding.
  const FigureCheck* output = figure(c, "CPU", LogFigure::kOutput);
  EXPECT_EQ(output->memfit, 128'000u);
  EXPECT_TRUE(output->within_print);
  // Compute: the pinned graph replayed, 67,635,200 B = 64.502 MiB, which
  // llama.cpp prints as 64.50 (67,633,152 +- 5,243).
  const FigureCheck* compute = figure(c, "CPU", LogFigure::kCompute);
  EXPECT_EQ(compute->memfit, 67'635'200u);
  EXPECT_EQ(compute->basis, FigureBasis::kExact);
  EXPECT_TRUE(compute->within_print);
  // Model: the printed file size (53,005,517 B) without the repacked
  // copies, which need the tensor list.
  const FigureCheck* model = figure(c, "CPU", LogFigure::kModel);
  EXPECT_EQ(model->memfit, 53'005'517u);
  EXPECT_EQ(model->basis, FigureBasis::kModelled);
  EXPECT_EQ(model->note, "CPU_REPACK's copies need the tensor list (give -m): memfit's is the mapped weights");
}

TEST(CheckLog, ThreeSequencesKeepTheirStreams) {
  // n_ctx 3000 over 3 sequences: 1,000 a stream, padded to 1,024 cells (256),
  // 3 streams: 4 x 3,072 x 256 x 2 B = 6,291,456 = "6.00 MiB"; output 3 x
  // 128,000 = 384,000 against 0.37 MiB = 387,973 +- 5,243.
  const LogCheck c = check("llamacpp", "llamacpp-pinned-llama-dense-ctx3000-seq3-fa.log");
  EXPECT_EQ(figure(c, "CPU", LogFigure::kKvCache)->memfit, 6'291'456u);
  EXPECT_EQ(figure(c, "CPU", LogFigure::kOutput)->memfit, 384'000u);
  EXPECT_TRUE(figure(c, "CPU", LogFigure::kOutput)->within_print);
}

TEST(CheckLog, HybridModelComparesKvAndStateAsTotals) {
  const LogCheck c = check("llamacpp", "llamacpp-pinned-granite-hybrid-ctx4096.log");
  EXPECT_FALSE(figure(c, "CPU", LogFigure::kKvCache)->memfit.has_value());
  const FigureCheck* kv = figure(c, "total", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->note, "the sum of the devices' buffers");
  EXPECT_EQ(kv->memfit, kv->printed.value);  // 4.00 MiB, exactly
  EXPECT_TRUE(figure(c, "total", LogFigure::kRecurrent)->within_print);
}

TEST(CheckLog, VllmWeightsFromTheConfigBesideTheLog) {
  // vllm-project/vllm#10517: Llama 3.1 8B, bf16: 8,030,261,248 parameters x
  // 2 B + the rope cache 131,072 positions x 128 x 2 B (33,554,432) =
  // 16,094,076,928 B, against "14.9888 GB" = 16,094,101,452 +- 53,688.
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-10517-llama31-8b-rtx3090-20k.config.json");
  const LogCheck c = check("vllm", "vllm-10517-llama31-8b-rtx3090-20k.log", options);
  EXPECT_EQ(c.model_source, ModelSource::kConfig);
  const FigureCheck* weights = figure(c, "rank0", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->memfit, 16'094'076'928u);
  EXPECT_TRUE(weights->within_print);
  EXPECT_EQ(weights->basis, FigureBasis::kModelled);
  // "GPU blocks: 1952" (its "# " cut in the post) is read.
  EXPECT_EQ(figure(c, "total", LogFigure::kKvBlocks)->printed.value, 1952u);
}

TEST(CheckLog, LogsThatCannotBePricedSayWhyInOneLine) {
  const LogCheck sglang = check("sglang", "sglang-4826-gemma3-h200.log");
  // SGLang's logs print no geometry: without -m or --config, no model.
  EXPECT_EQ(sglang.not_priced,
            "no model: a SGLang log does not describe the model's geometry; give -m MODEL or --config "
            "config.json");
  EXPECT_EQ(sglang.figures.size(), 3u);
  for (const FigureCheck& f : sglang.figures) EXPECT_EQ(f.note, "not priced");

  const LogCheck cut = check("llamacpp", "llamacpp-6122-40layer-4070ti-3090ti.log");
  EXPECT_EQ(cut.not_priced, "no model: the log holds no metadata dump (llama_model_loader: - kv "
                            "lines); give -m MODEL (the GGUF file)");

  const LogCheck mlx = check("mlx-lm", "mlxlm-examples1122-llama31-8b-4bit-2k.log");
  EXPECT_EQ(mlx.not_priced, "no model: a mlx-lm log does not describe the model's geometry; give "
                            "-m MODEL or --config config.json");
}

TEST(CheckLog, AModelByNameNeedsAContextToOpenIt) {
  LogCheckOptions options;
  options.model = "some/model";
  Result<LogCheck> c = check_log(read_test_log("llamacpp", "llamacpp-pinned-llama-dense-ctx4096.log"),
                                 options, nullptr);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->not_priced, "the llamacpp profile refused the run: model: this front end opens no "
                           "model by name");
}

TEST(ModelFromLog, ACutDumpSaysWhatIsMissing) {
  // The pinned log's first 15 lines: the loader announces 20 entries and
  // the excerpt holds 9 of them.
  const std::string whole = read_test_log("llamacpp", "llamacpp-pinned-llama-dense-ctx4096.log");
  size_t end = 0;
  for (int line = 0; line < 15; ++line) end = whole.find('\n', end) + 1;
  Result<RuntimeLog> log = read_runtime_log(whole.substr(0, end));
  ASSERT_TRUE(log.ok());
  Result<Model> model = model_from_log(log->model);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.error().message(), "the metadata dump is cut: 9 of the 20 entries the loader announced");
}

TEST(ModelFromLog, WholeDumpGivesTheGgufSpecAndThePrintedWeights) {
  Result<RuntimeLog> log = read_runtime_log(read_test_log("llamacpp", "llamacpp-pinned-llama-dense-ctx4096.log"));
  ASSERT_TRUE(log.ok());
  Result<Model> model = model_from_log(log->model);
  ASSERT_TRUE(model.ok()) << model.error().message();
  // llama: 4 layers of 2 KV heads x 64: 2 x 2 x 64 = 256 elements a token.
  EXPECT_EQ(model->spec.model_type, "llama");
  ASSERT_EQ(model->spec.layers.size(), 4u);
  EXPECT_EQ(model->spec.layers[0].elems_per_token, 256u);
  EXPECT_EQ(model->spec.geometry.vocab, 32000u);  // llama.vocab_size
  EXPECT_EQ(model->weights.bytes, 53'005'517u);   // "50.55 MiB"
  EXPECT_EQ(model->weights.source, WeightsSource::kGgufHeader);
  EXPECT_FALSE(model->weights.verified);
}

TEST(CheckLogRequest, ReadsTheBodyAndRefusesStrangers) {
  Result<LogCheckRequest> r = parse_log_check_request_json(
      R"({"log": "x", "model": "m", "config": {"model_type": "llama"}, "gpu_memory_total": "80GiB",
          "gpu_name": "NVIDIA H100 80GB HBM3", "version": "0.7.3"})");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->log, "x");
  EXPECT_EQ(r->options.model, "m");
  EXPECT_EQ(r->options.config_json, R"({"model_type":"llama"})");
  EXPECT_EQ(r->options.gpu_memory_total, 80ull << 30);
  EXPECT_EQ(r->options.version, "0.7.3");
  Result<LogCheckRequest> missing = parse_log_check_request_json(R"({"model": "m"})");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), "log: required");
  EXPECT_EQ(missing.error().field(), "log");
  Result<LogCheckRequest> stranger = parse_log_check_request_json(R"({"log": "x", "lgo": 1})");
  ASSERT_FALSE(stranger.ok());
  EXPECT_EQ(stranger.error().kind(), ErrorKind::kUsage);
}

TEST(CheckLogJson, HoldsTheKeysOfItsSchema) {
  const LogCheck c = check("llamacpp", "llamacpp-pinned-llama-dense-ctx4096.log");
  const nlohmann::ordered_json j = log_check_to_json(c);
  for (const char* key : {"engine", "version", "backend", "devices", "settings", "model",
                          "model_source", "model_detail", "profile", "not_priced", "figures",
                          "notes", "warnings"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["engine"], "llamacpp");
  EXPECT_EQ(j["model_source"], "log");
  EXPECT_EQ(j["settings"]["n_ctx"], "4096");
  const auto& kv = j["figures"][2];
  EXPECT_EQ(kv["figure"], "kv_cache");
  EXPECT_EQ(kv["device"], "CPU");
  EXPECT_EQ(kv["unit"], "bytes");
  EXPECT_EQ(kv["printed"], 8'388'608u);
  EXPECT_EQ(kv["memfit"], 8'388'608u);
  EXPECT_EQ(kv["ratio"], 1.0);
  EXPECT_EQ(kv["basis"], "exact");
}

}  // namespace
}  // namespace memfit
