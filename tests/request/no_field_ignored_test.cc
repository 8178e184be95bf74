// No request field is accepted and ignored (issue 29): for every field of
// the table (request_fields(): the common ones, the machine's and each
// engine's) and every engine, a request that gives the field a value
// other than its default either prices something else (the JSON report,
// its echo of the inputs aside, changes) or is refused naming the field.
// A field an engine reads only on some models (a sliding window, a
// second GPU, CPU-held weights) shows it on the engine's fixture that has
// one; there is no list of exceptions: a field no fixture of an engine
// reads fails here.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/engine.h"
#include "memfit/memfit.h"
#include "memfit/request_field.h"
#include "support/json_request.h"
#include "support/paths.h"

namespace memfit {
namespace {

using json = nlohmann::json;

const std::string kSource = MEMFIT_SOURCE_DIR;

// Fields whose value does not change an inspect report, and why.
const std::map<std::string_view, std::string_view> kNotPricedByInspect = {
    {"model", "the model itself: every fixture is one"},
    {"engine", "each engine is walked in turn"},
};

// Release fields whose every release memfit prices has the same rules (the
// engine's doc says so): no value it takes can change a figure yet, so the
// walk asks instead that a release before the range be refused by name.
// A rule that starts to differ between releases belongs in the walk.
struct SameRulesField {
  std::string_view engine;
  std::string_view field;
  std::string_view refused_value;  // before the oldest release priced
};
const SameRulesField kSameRulesForEveryRelease[] = {
    // MLX from 0.24.0 on: one set of rules on Metal (docs/engine-mlxlm.md).
    {"mlx-lm", "mlx_version", "0.23.0"},
    // SGLang's releases differ from 0.5.10 (the piecewise CUDA graphs'
    // reserve, docs/engine-sglang.md, "Releases"): its field is walked.
};

const SameRulesField* same_rules(std::string_view engine, std::string_view field) {
  for (const SameRulesField& row : kSameRulesForEveryRelease) {
    if (row.engine == engine && row.field == field) return &row;
  }
  return nullptr;
}

// Each engine's fixtures, with a 64 GiB budget so that no figure depends
// on this host. llama.cpp: a MoE GGUF on one GPU (its tensor names let
// the offload fields act); a sliding-window GGUF, three of its layers
// split over two GPUs, with two sequences and its own choices away from
// the defaults (flash attention off, a 512 MiB margin), so that the
// defaults are read too; a dense GGUF on the CPU alone (a limit and no
// GPU given: nothing is probed), whose weights the CPU repacks. vLLM: a
// config-only 8B on an A100 (whose batch defaults are the small pair), on
// a machine of an H100 and an A100 (the large pair), and on an A100 under
// v0.7's accounting. Ollama: below. The others: the config-only 8B.
std::vector<json> fixtures(std::string_view engine) {
  const std::string llama8b = kSource + "/tests/data/corpus/llama3/Meta-Llama-3.1-8B";
  const std::string models = kSource + "/tests/golden/models/";
  const json limit = {{"engine", engine}, {"memory_limit", "64GiB"}};
  if (engine == "llamacpp") {
    json moe = limit, swa = limit, dense = limit;
    moe.update({{"model", models + "qwen3moe.gguf"}, {"ctx_size", "4096"}, {"gpu_memory", "0=64MiB"}});
    swa.update({{"model", models + "gemma3-swa.gguf"}, {"ctx_size", "4096"},
                {"gpu_memory", "0=2GiB,1=2GiB"}, {"n_gpu_layers", "3"}, {"parallel", "2"},
                {"flash_attn", "off"}, {"gpu_margin", "512MiB"}});
    dense.update({{"model", models + "llama-dense.gguf"}, {"ctx_size", "4096"}});
    return {moe, swa, dense};
  }
  if (engine == "ollama") {
    // Ollama on an 8 GB GPU (the 4096-token tier): a llama GGUF (llama.cpp's
    // runner, flash attention auto) alone and on two such GPUs (which
    // OLLAMA_SCHED_SPREAD spreads it over); a qwen3moe GGUF (Ollama's own
    // engine, flash attention on, trained for 8192 tokens).
    json one = limit, two = limit, moe = limit;
    one.update({{"model", models + "llama-dense.gguf"}, {"gpu", "rtx4060"}});
    two.update({{"model", models + "llama-dense.gguf"}, {"gpu", {"rtx4060", "rtx4060"}}});
    moe.update({{"model", models + "qwen3moe.gguf"}, {"gpu", "rtx4060"}});
    return {one, two, moe};
  }
  json base = limit;
  base["model"] = llama8b;
  if (engine != "vllm") return {base};
  base["gpu"] = "a100-80gb";
  json two = base, v07 = base;
  two["gpu"] = {"h100-80gb", "a100-80gb"};
  v07["vllm_version"] = "0.7";
  return {base, two, v07};
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

// What a request answers: the report without its echo of the inputs, or
// the refusal ({"error": ...} as the library writes it).
struct Answer {
  bool refused = false;
  json body;
};

Answer answer(const json& request) {
  // Every value a text, or a list of texts (gpu).
  testing::JsonAnswer answer = testing::run_request_texts(request);
  if (!answer.ok()) return {true, std::move(answer.body)};
  drop_inputs(answer.body);
  return {false, std::move(answer.body)};
}

// The "field" a refusal names; "" when none.
std::string refused_field(const json& j) {
  if (!j.is_object()) return "";
  if (j.contains("field") && j["field"].is_string()) return j["field"].get<std::string>();
  for (const auto& [key, value] : j.items()) {
    if (std::string field = refused_field(value); !field.empty()) return field;
  }
  return "";
}

// Whether a refusal is the field's own: it names the field, or, naming
// none, says its name or (a file that cannot be read) the path given.
bool names_field(const json& refusal, std::string_view field, std::string_view value) {
  const std::string named = refused_field(refusal);
  if (!named.empty()) return named == field;
  const std::string text = refusal.dump();
  return text.find(field) != std::string::npos ||
         (value.ends_with(".gguf") && text.find(value) != std::string::npos);
}

// A machine field describes the machine whose memory is the budget; a
// limit is the budget on any machine and llama.cpp's GPU memory describes
// the GPUs, so it is walked without them.
json with_field(json request, const RequestField& field, const std::string& value) {
  if (field.name == "gpu" || field.name == "mac") {
    request.erase("memory_limit");
    request.erase("gpu_memory");
  }
  request[std::string(field.name)] = value;
  return request;
}

// How `field` = `value` fared on `engine`'s fixtures: "" when one of them
// prices something else or refuses it by name, else why not.
std::string ignored_by(const EngineProfile& engine, const std::vector<json>& bases,
                       const std::vector<json>& befores, const RequestField& field,
                       const std::string& value) {
  std::string why;
  for (size_t i = 0; i < bases.size(); ++i) {
    const Answer after = answer(with_field(bases[i], field, value));
    if (after.refused) {
      if (names_field(after.body, field.name, value)) return "";
      why += " fixture " + std::to_string(i) + " refuses it for another reason: " + after.body.dump();
      continue;
    }
    if (after.body != befores[i]) return "";
    why += " fixture " + std::to_string(i) + " prices the same;";
  }
  return std::string(engine.name()) + ": " + std::string(field.name) + "=" + value +
         " accepted and ignored:" + why;
}

TEST(NoFieldIgnored, EveryFieldChangesTheReportOrIsRefusedUnderEveryEngine) {
  for (const EngineProfile* engine : EngineRegistry::instance().all()) {
    const std::vector<json> bases = fixtures(engine->name());
    std::vector<json> befores;
    for (const json& base : bases) {
      const Answer before = answer(base);
      ASSERT_FALSE(before.refused) << engine->name() << ": a fixture is refused: " << before.body.dump();
      befores.push_back(before.body);
    }
    for (const RequestField* field : request_fields()) {
      if (kNotPricedByInspect.count(field->name)) continue;
      SCOPED_TRACE(std::string(engine->name()) + " " + std::string(field->name));
      const SameRulesField* same = same_rules(engine->name(), field->name);
      const std::string value = same ? std::string(same->refused_value) : other_value(*field);
      ASSERT_FALSE(value.empty()) << "no example to give it";
      const std::string ignored = ignored_by(*engine, bases, befores, *field, value);
      EXPECT_TRUE(ignored.empty()) << ignored;
    }
  }
}

}  // namespace
}  // namespace memfit
