// The host CPU's bandwidth (request field host_bandwidth_gb_s,
// --host-bandwidth; docs/speed.md, "The host CPU") through the library's
// JSON entry point: the layers llama.cpp and Ollama leave on the CPU are
// read at it, and the engines and machines with no such part refuse it by
// name. The golden llama GGUF (tests/golden/models/make_models.py) on an
// RTX 4090 (1008 GB/s) or an RTX 4060 (272 GB/s).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "memfit/memfit.h"
#include "support/json_request.h"
#include "support/paths.h"

namespace memfit {
namespace {

using json = nlohmann::json;

const std::string kSourceHostBandwidth = MEMFIT_SOURCE_DIR;
const std::string kLlama = kSourceHostBandwidth + "/tests/golden/models/llama-dense.gguf";
const std::string kLlama8b = kSourceHostBandwidth + "/tests/data/corpus/llama3/Meta-Llama-3.1-8B";

struct AnswerHostBandwidth {
  bool ok = false;
  json body;
};

AnswerHostBandwidth run_json(const json& request) {
  testing::JsonAnswer answer = testing::run_request_texts(request);
  return {answer.ok(), std::move(answer.body)};
}

// The GGUF's 4 blocks and its output layer with 2 blocks on the RTX 4090
// (-ngl 2): the other 2 blocks and the output layer on the host.
json offloaded(json fields) {
  json r = {{"model", kLlama}, {"engine", "llamacpp"}, {"gpu", "rtx4090"},
            {"ctx_size", "4096"}, {"n_gpu_layers", "2"}};
  r.update(fields);
  return r;
}

// Each device's time a token at the bound is its active bytes over its
// bandwidth, and the plan's the sum of theirs (docs/speed.md).
void expect_parts_in_sequence(const json& speed) {
  double start_s = 0;
  double end_s = 0;
  for (const json& d : speed["devices"]) {
    const double bytes_per_s = d["bandwidth_gb_s"].get<double>() * 1e9;
    const double active = d["active_weight_bytes"].get<double>();
    EXPECT_DOUBLE_EQ(d["bound_seconds_per_token_start"].get<double>(), active / bytes_per_s);
    EXPECT_DOUBLE_EQ(d["bound_seconds_per_token_end"].get<double>(),
                     (active + d["kv_bytes"].get<double>()) / bytes_per_s);
    start_s += d["bound_seconds_per_token_start"].get<double>();
    end_s += d["bound_seconds_per_token_end"].get<double>();
  }
  EXPECT_NEAR(speed["decode_tokens_per_second"]["start"]["bound"].get<double>(), 1 / start_s,
              1e-9 / start_s);
  EXPECT_NEAR(speed["decode_tokens_per_second"]["end"]["bound"].get<double>(), 1 / end_s, 1e-9 / end_s);
}

TEST(HostBandwidth, OffloadedLayersWithoutItHaveNoDecodeFigure) {
  const AnswerHostBandwidth a = run_json(offloaded(json::object()));
  ASSERT_TRUE(a.ok) << a.body.dump();
  const json& speed = a.body["speed"];
  EXPECT_TRUE(speed["decode_tokens_per_second"].is_null());
  const std::string why = speed["unknown"].get<std::string>();
  EXPECT_TRUE(why.starts_with("the memory bandwidth of cpu (cpu) is not known")) << why;
  EXPECT_TRUE(why.ends_with(": give --host-bandwidth (memfit hardware --measure prints this host's)")) << why;
}

TEST(HostBandwidth, OffloadedLayersAreReadAtItAfterTheGpus) {
  const AnswerHostBandwidth a = run_json(offloaded({{"host_bandwidth_gb_s", "60"}}));
  ASSERT_TRUE(a.ok) << a.body.dump();
  const json& speed = a.body["speed"];
  ASSERT_FALSE(speed["decode_tokens_per_second"].is_null()) << speed.dump();
  ASSERT_EQ(speed["devices"].size(), 2u) << speed.dump();
  EXPECT_EQ(speed["devices"][0]["device"], "cuda:0");
  EXPECT_EQ(speed["devices"][0]["bandwidth_gb_s"], 1008.0);
  EXPECT_EQ(speed["devices"][1]["device"], "cpu");
  EXPECT_EQ(speed["devices"][1]["bandwidth_gb_s"], 60.0);
  EXPECT_GT(speed["devices"][1]["active_weight_bytes"].get<uint64_t>(), 0u);
  expect_parts_in_sequence(speed);
  // The prompt runs on the GPU (op offload): prefill has its figure.
  EXPECT_FALSE(speed["prefill_tokens_per_second"].is_null());
  // llama.cpp has published runs: no engine note.
  EXPECT_FALSE(speed.contains("engine_basis"));
}

TEST(HostBandwidth, AFasterHostDecodesFaster) {
  const AnswerHostBandwidth slow = run_json(offloaded({{"host_bandwidth_gb_s", "30"}}));
  const AnswerHostBandwidth fast = run_json(offloaded({{"host_bandwidth_gb_s", "120"}}));
  ASSERT_TRUE(slow.ok && fast.ok);
  // The host's seconds a token are its bytes over 30e9 and over 120e9: a
  // quarter of them at 120.
  const json& s = slow.body["speed"]["devices"][1];
  const json& f = fast.body["speed"]["devices"][1];
  EXPECT_DOUBLE_EQ(f["bound_seconds_per_token_start"].get<double>() * 4,
                   s["bound_seconds_per_token_start"].get<double>());
  EXPECT_GT(fast.body["speed"]["decode_tokens_per_second"]["start"]["bound"].get<double>(),
            slow.body["speed"]["decode_tokens_per_second"]["start"]["bound"].get<double>());
}

TEST(HostBandwidth, OllamaLayersLeftOnTheCpuAreReadAtIt) {
  // num_gpu 2 of the 5 layers (4 blocks and the output): the rest on the host.
  const json r = {{"model", kLlama},        {"engine", "ollama"},         {"gpu", "rtx4060"},
                  {"num_gpu", "2"},         {"host_bandwidth_gb_s", "60"}};
  const AnswerHostBandwidth a = run_json(r);
  ASSERT_TRUE(a.ok) << a.body.dump();
  const json& speed = a.body["speed"];
  ASSERT_FALSE(speed["decode_tokens_per_second"].is_null()) << speed.dump();
  EXPECT_EQ(speed["devices"].back()["device"], "cpu");
  EXPECT_EQ(speed["devices"].back()["bandwidth_gb_s"], 60.0);
  EXPECT_EQ(speed["devices"][0]["bandwidth_gb_s"], 272.0);
  expect_parts_in_sequence(speed);
  // Ollama's runner is llama.cpp's: its runs are published, no note.
  EXPECT_FALSE(speed.contains("engine_basis"));
}

void expect_refused(const json& request, std::string_view message) {
  const AnswerHostBandwidth a = run_json(request);
  ASSERT_FALSE(a.ok) << a.body.dump();
  const json& error = a.body.contains("error") ? a.body["error"] : a.body;
  EXPECT_EQ(error["field"], "host_bandwidth_gb_s") << a.body.dump();
  EXPECT_NE(error["message"].get<std::string>().find(message), std::string::npos) << a.body.dump();
}

TEST(HostBandwidth, EnginesHoldingNothingOnTheCpuRefuseIt) {
  expect_refused({{"model", kLlama8b}, {"engine", "vllm"}, {"gpu", "a100-80gb"}, {"host_bandwidth_gb_s", "60"}},
                 "vLLM holds its weights and KV cache on its GPUs: no part of its plan is read from "
                 "host memory");
  expect_refused({{"model", kLlama8b}, {"engine", "sglang"}, {"gpu", "h100"}, {"host_bandwidth_gb_s", "60"}},
                 "SGLang holds its weights and KV cache on its GPUs: no part of its plan is read from "
                 "host memory");
}

TEST(HostBandwidth, AMacsCpuReadsTheTablesBandwidth) {
  expect_refused({{"model", kLlama}, {"engine", "llamacpp"}, {"mac", "m3-max-64gb"}, {"host_bandwidth_gb_s", "60"}},
                 "a Mac's CPU reads its unified memory, whose bandwidth is the hardware table's");
}

TEST(HostBandwidth, ValuesOutsideItsRangeAreRefused) {
  expect_refused(offloaded({{"host_bandwidth_gb_s", "0"}}), "expected a number in (0, 10000], got 0");
  expect_refused(offloaded({{"host_bandwidth_gb_s", "fast"}}), "expected a number in (0, 10000]");
}

}  // namespace
}  // namespace memfit
