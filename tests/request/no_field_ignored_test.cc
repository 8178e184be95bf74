// No request field is accepted and ignored (issue 29): for every field of
// the table (request_fields(): the common ones and each engine's) and
// every engine, a request that gives the field a value other than its
// default either prices something else (the JSON report, its echo of the
// inputs aside, changes) or is refused. The exceptions are listed below,
// each with its reason.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "memfit/engine.h"
#include "memfit/memfit.h"
#include "memfit/request_field.h"

namespace memfit {
namespace {

using json = nlohmann::json;

const std::string kSource = MEMFIT_SOURCE_DIR;

// Fields whose value does not change an inspect report, and why.
const std::map<std::string_view, std::string_view> kNotPricedByInspect = {
    {"model", "the model itself: every fixture is one"},
    {"engine", "each engine is walked in turn"},
};

// "engine field" pairs this walk lets pass, each with its reason. Two
// kinds: the fixture already has that value (the example is the default,
// or what the fixture resolves to), and "GAP": the field is accepted and
// ignored today, which issue 29 asks to end; each such line is a refusal
// still to write (delete the line with it, and this test holds it).
const std::map<std::string_view, std::string_view> kExceptions = {
    {"mlxcel gpu", "the fixture's memory_limit is the budget; the GPU's class changes no figure"},
    {"mlx-lm gpu", "the fixture's memory_limit is the budget; mlx-lm reads no GPU class"},
    {"vllm gpu", "the fixture already names h100-80gb"},
    {"mlxcel parallel_engine", "GAP: read only with tensor_parallel or pipeline_parallel > 1"},
    {"llamacpp parallel_engine", "GAP: read only with tensor_parallel or pipeline_parallel > 1"},
    {"mlx-lm parallel_engine", "GAP: read only with tensor_parallel or pipeline_parallel > 1"},
    {"vllm parallel_engine", "GAP: read only with tensor_parallel or pipeline_parallel > 1"},
    {"llamacpp backend", "GAP: llama.cpp's buffers are priced by its own rules, per device"},
    {"mlx-lm backend", "GAP: mlx-lm runs on Metal only"},
    {"vllm backend", "GAP: vLLM's ROCm rules follow the GPU's name"},
    {"vllm device", "GAP: the GPU named (gpu) is the budget"},
    {"llamacpp flash_attn", "the fixture's auto already resolves to on"},
    {"llamacpp swa_full", "the fixture has no sliding-window layer"},
    {"llamacpp kv_unified", "the fixture runs one sequence: one stream either way"},
    {"llamacpp repack", "the fixture has no tensor type llama.cpp repacks"},
    {"llamacpp n_gpu_layers", "41 is past the fixture's layers: every layer, as the default"},
    {"llamacpp split_mode", "the fixture has one GPU: nothing to split"},
    {"llamacpp tensor_split", "GAP: a split for more GPUs than given is not refused"},
    {"llamacpp gpu_margin", "the example, 1GiB, is the default"},
    {"llamacpp no_mmproj_offload", "GAP: accepted without an mmproj"},
    {"llamacpp ctx_checkpoints", "the fixture has no SWA or recurrent layer to checkpoint"},
    {"llamacpp n_gpu_layers_draft", "GAP: accepted without a draft model"},
    {"llamacpp cache_type_k_draft", "GAP: accepted without a draft model"},
    {"llamacpp cache_type_v_draft", "GAP: accepted without a draft model"},
    {"vllm max_num_batched_tokens", "the example is the default the fixture resolves to"},
    {"vllm num_speculative_tokens", "GAP: accepted without a speculative method"},
    {"vllm vllm_version", "the example's release prices as the fixture's default"},
    {"mlx-lm mlx_version", "every MLX release from 0.24.0 prices alike on Metal"},
};

// Each engine's fixture: a MoE GGUF for llama.cpp (its tensor names let
// the offload fields act), a config-only 8B for the others; a GPU for the
// engines that place on one.
json base_request(std::string_view engine) {
  json r = {{"engine", engine}, {"memory_limit", "64GiB"}};
  if (engine == "llamacpp") {
    r["model"] = kSource + "/tests/golden/models/qwen3moe.gguf";
    r["ctx_size"] = "4096";
    r["gpu_memory"] = "0=64MiB";
  } else {
    r["model"] = kSource + "/tests/data/corpus/llama3/Meta-Llama-3.1-8B";
  }
  if (engine == "vllm") r["gpu"] = "h100-80gb";
  return r;
}

// A value other than the default, as the flag's text: the row's example,
// else one its type allows.
std::string other_value(const RequestField& f) {
  if (!f.example.empty()) return std::string(f.example);
  switch (f.type) {
    case FieldType::kFlag:
      return "true";
    case FieldType::kChoice: {
      std::string_view choices = f.choices;
      while (!choices.empty()) {
        const size_t bar = choices.find('|');
        const std::string_view c = choices.substr(0, bar);
        if (c != f.default_text) return std::string(c);
        if (bar == std::string_view::npos) break;
        choices.remove_prefix(bar + 1);
      }
      return "";
    }
    case FieldType::kCount:
      return "3";
    case FieldType::kSize:
      return "1GiB";
    case FieldType::kRatio:
      return "0.5";
    default:
      return "";
  }
}

// Drops the echo of the inputs and what this host has free now (it moves
// between two runs: not an answer to the field).
void drop_inputs(json& j) {
  if (!j.is_object()) return;
  j.erase("inputs");
  j.erase("ram_available_bytes");
  for (auto& [key, value] : j.items()) drop_inputs(value);
}

// The report without its echo of the inputs, or nullopt when refused.
std::optional<json> answer(const json& request) {
  json texts = json::object();
  for (const auto& [key, value] : request.items()) texts[key] = value.get<std::string>();
  char* response = nullptr;
  const memfit_status status =
      memfit_run_request_json(texts.dump().c_str(), MEMFIT_REQUEST_FLAG_TEXTS, &response);
  json body = json::parse(response);
  memfit_string_free(response);
  if (status != MEMFIT_OK) return std::nullopt;
  drop_inputs(body);
  return body;
}

TEST(NoFieldIgnored, EveryFieldChangesTheReportOrIsRefusedUnderEveryEngine) {
  for (const EngineProfile* engine : EngineRegistry::instance().all()) {
    const json base = base_request(engine->name());
    const std::optional<json> before = answer(base);
    ASSERT_TRUE(before) << engine->name() << ": the fixture itself is refused";
    for (const RequestField* field : request_fields()) {
      if (kNotPricedByInspect.count(field->name)) continue;
      SCOPED_TRACE(std::string(engine->name()) + " " + std::string(field->name));
      const std::string value = other_value(*field);
      ASSERT_FALSE(value.empty()) << "no example to give it";
      json request = base;
      request[std::string(field->name)] = value;
      const std::optional<json> after = answer(request);
      if (!after) continue;  // refused
      const std::string pair = std::string(engine->name()) + " " + std::string(field->name);
      if (kExceptions.count(pair)) {
        // An exception that no longer holds is one to delete.
        EXPECT_TRUE(*after == *before) << pair << " now changes the report: drop its exception";
        continue;
      }
      EXPECT_TRUE(*after != *before) << field->name << "=" << value << " accepted and ignored";
    }
  }
}

}  // namespace
}  // namespace memfit
