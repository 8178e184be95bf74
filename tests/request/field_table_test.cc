// The request field table (request_field.h) against everything made from
// it: every row the same in `memfit inspect --help`, the JSON request
// parser, the engine checks, the schema, the docs tables, the Python
// module's docstring and GET /v1/engines. MEMFIT_UPDATE_FIELD_DOCS=1
// rewrites the docs, the schema and the docstring.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "memfit/engine.h"
#include "memfit/request.h"
#include "memfit/request_field.h"
#include "memfit/request_json.h"
#include "memfit/service.h"
#include "request/field_table.h"
#include "service/service_fixture.h"
#include "support/field_docs.h"
#include "support/paths.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using nlohmann::json;

const std::string kSource = MEMFIT_SOURCE_DIR;

bool updating() {
  const char* update = std::getenv("MEMFIT_UPDATE_FIELD_DOCS");
  return update != nullptr && std::string_view(update) == "1";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// A context whose model opens (a Qwen3-8B shape, safetensors) and whose
// host has 48 GiB; it reads no other file.
class OneModelContext : public RequestContext {
 public:
  OneModelContext() {
    Result<ModelSpec> spec = parse_model_config(R"({
      "model_type": "qwen3", "num_hidden_layers": 36, "hidden_size": 4096,
      "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
      "intermediate_size": 12288, "vocab_size": 151936})");
    EXPECT_TRUE(spec.ok());
    model_.path = "/models/qwen3-8b";
    model_.has_config = true;
    if (spec.ok()) model_.spec = *spec;
    model_.weights.bytes = 16ull << 30;
    model_.weights.source = WeightsSource::kSafetensorsHeader;
    host_.os = "linux";
    host_.ram_total_bytes = 64ull << 30;
    host_.budget_bytes = 48ull << 30;
    host_.budget_source = BudgetSource::kMeminfoAvailable;
  }
  Result<std::shared_ptr<const Model>> open_model(const std::string&, const OpenModelOptions&) override {
    return std::shared_ptr<const Model>(std::make_shared<Model>(model_));
  }
  const MlxcelSettings& settings() const override { return settings_; }
  const std::vector<std::string>& settings_warnings() const override { return warnings_; }
  Platform platform() const override { return Platform{}; }
  HostMemoryStatus host_memory(const DeviceSelector&, std::optional<uint64_t>) override { return host_; }

 private:
  Model model_;
  HostMemoryStatus host_;
  MlxcelSettings settings_;
  std::vector<std::string> warnings_;
};

// {"model": "m", <field>: <its sample>}, and the engine when given.
std::string request_with(const RequestField& f, std::string_view engine = "") {
  json body = {{"model", "m"}};
  if (!engine.empty()) body["engine"] = engine;
  body[std::string(f.name)] = testing::sample_value(f);
  return body.dump();
}

TEST(FieldTable, NamesAndSpellingsAreOnceEach) {
  std::set<std::string_view> names;
  std::set<std::string_view> spellings;
  for (const RequestField* f : request_fields()) {
    EXPECT_TRUE(names.insert(f->name).second) << f->name;
    for (std::string_view s : field_spellings(*f)) EXPECT_TRUE(spellings.insert(s).second) << s;
    EXPECT_NE(f->apply, nullptr) << f->name;
    EXPECT_NE(f->given, nullptr) << f->name;
    EXPECT_FALSE(f->help.empty()) << f->name;
    EXPECT_EQ(f->type == FieldType::kChoice, !f->choices.empty()) << f->name;
    EXPECT_TRUE(f->engine.empty() || EngineRegistry::instance().find(f->engine) != nullptr) << f->name;
    EXPECT_EQ(find_request_field(f->name), f);
  }
  // 18 common fields (the machine's gpu, mac and host_bandwidth_gb_s among
  // them), 32 llama.cpp's (embedding, pooling and reranking among them), 10
  // mlx-lm's, 20 vLLM's (runner, the five LoRA ones and the two Mamba state
  // dtypes among them), 23 SGLang's
  // (the Mamba state pool's four, attention_backend, enable_dp_lm_head,
  // max_total_tokens, disable_piecewise_cuda_graph, ep_size,
  // moe_a2a_backend, disaggregation_mode and enable_hierarchical_cache
  // among them), 13 Ollama's (use_mmap and ollama_gpu_arch among them):
  // 18 + 32 + 10 + 20 + 23 + 13 = 116.
  EXPECT_EQ(engine_request_fields("").size(), 18u);
  EXPECT_EQ(engine_request_fields("llamacpp").size(), 32u);
  EXPECT_EQ(engine_request_fields("mlx-lm").size(), 10u);
  EXPECT_EQ(engine_request_fields("vllm").size(), 20u);
  EXPECT_EQ(engine_request_fields("sglang").size(), 23u);
  EXPECT_EQ(engine_request_fields("ollama").size(), 13u);
  EXPECT_EQ(request_fields().size(), 116u);
  EXPECT_EQ(find_request_field("max_token"), nullptr);
}

TEST(FieldTable, DerivedTexts) {
  EXPECT_EQ(field_names_text("mlx-lm"),
            "prompt_tokens, prefill_step_size, kv_bits, kv_group_size, max_kv_size, "
            "mlx_lm_version, mlx_version, mlx_chip, mlx_max_ops_per_buffer and "
            "mlx_max_mb_per_buffer");
  EXPECT_EQ(field_of_other_engine(*find_request_field("ctx_size")).message(),
            "ctx_size: is a llama.cpp setting: give engine llamacpp");
  EXPECT_EQ(field_of_other_engine(*find_request_field("kv_bits")).message(),
            "kv_bits: is an mlx-lm setting: give engine mlx-lm");
  EXPECT_EQ(field_of_other_engine(*find_request_field("block_size")).field(), "block_size");
  EXPECT_EQ(field_flag(*find_request_field("n_gpu_layers_draft")), "--n-gpu-layers-draft");
  EXPECT_EQ(field_flag(*find_request_field("parallel")), "--parallel");
  EXPECT_EQ(field_flag(*find_request_field("model")), "--model");
  EXPECT_TRUE(is_runtime_short_flag("-ngld"));
  EXPECT_FALSE(is_runtime_short_flag("-c"));
  EXPECT_FALSE(is_runtime_short_flag("--ctx-size"));
}

TEST(FieldTable, CountsTakeTheirRangeAndTokenSuffixes) {
  EstimateRequest r;
  ASSERT_TRUE(apply_request_field(*find_request_field("max_tokens"), r, "32k"));
  EXPECT_EQ(r.max_tokens, 32768u);
  ASSERT_TRUE(apply_request_field(*find_request_field("max_tokens"), r, "2M"));
  EXPECT_EQ(r.max_tokens, 2097152u);
  // batch is not in tokens: no suffix.
  Status batch = apply_request_field(*find_request_field("batch"), r, "2k");
  ASSERT_FALSE(batch);
  EXPECT_EQ(batch.error().message(), "batch: '2k': expected a positive integer");
  Status zero = apply_request_field(*find_request_field("batch"), r, "0");
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().message(), "batch: expected a positive integer, got 0");
  Status ratio = apply_request_field(*find_request_field("gpu_memory_utilization"), r, "1.5");
  ASSERT_FALSE(ratio);
  EXPECT_EQ(ratio.error().message(), "gpu_memory_utilization: expected a number in (0, 1], got 1.5");
}

// Each row's sample is read by the JSON parser into what its row says it
// gives; each engine's own row is refused under every other engine with
// the one refusal, and not so under its own.
TEST(FieldTable, EveryFieldInTheJsonParserAndTheEngineChecks) {
  for (const RequestField* f : request_fields()) {
    SCOPED_TRACE(std::string(f->name));
    Result<EstimateRequest> r = parse_estimate_request_json(request_with(*f));
    ASSERT_TRUE(r.ok()) << request_with(*f) << ": " << r.error().message();
    EXPECT_TRUE(f->given(*r));
    if (f->engine.empty()) continue;
    EXPECT_EQ(first_field_given(*r, f->engine), f->name);
    const std::string refusal = field_of_other_engine(*f).message();
    for (const EngineProfile* e : EngineRegistry::instance().all()) {
      const std::string_view engine_name = e->name();
      Result<EstimateRequest> q = parse_estimate_request_json(request_with(*f, engine_name));
      ASSERT_TRUE(q.ok()) << q.error().message();
      OneModelContext context;
      Result<PreparedRequest> p = prepare(*q, context);
      if (engine_name == f->engine) {
        EXPECT_TRUE(p.ok() || p.error().message() != refusal) << refusal;
      } else {
        ASSERT_FALSE(p.ok()) << engine_name;
        EXPECT_EQ(p.error().message(), refusal) << engine_name;
      }
    }
  }
}

// Every flag in `memfit inspect --help`, with the row's help after its
// engine's name; the runtime's short flags named in the help and taken on
// the command line.
TEST(FieldTable, EveryFieldInTheCliHelp) {
  testing::CommandResult help = testing::run_memfit({"inspect", "--help"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  for (const RequestField* f : request_fields()) {
    SCOPED_TRACE(std::string(f->name));
    const std::string text = f->engine.empty() ? std::string(f->help)
                                               : std::string(f->engine) + ": " + std::string(f->help);
    EXPECT_NE(help.out.find(text), std::string::npos);
    // CLI11 lists the spellings it takes as "-c,--ctx-size"; the
    // runtime's short ones are named in the help.
    std::string names;
    for (std::string_view s : field_spellings(*f)) {
      if (is_runtime_short_flag(s)) {
        EXPECT_NE(help.out.find(std::string(s)), std::string::npos) << s;
        continue;
      }
      names += (names.empty() ? "" : ",") + std::string(s);
    }
    // A name past CLI11's column (--disable-piecewise-cuda-graph) has its
    // help on the next line.
    const bool listed = help.out.find("  " + names + " ") != std::string::npos ||
                        help.out.find("  " + names + "\n") != std::string::npos;
    EXPECT_TRUE(listed) << names;
  }
  // -np is --parallel, read by its row: the JSON request's message, the
  // field's flag.
  testing::CommandResult np = testing::run_memfit({"inspect", "-m", "m", "-np", "0"});
  EXPECT_EQ(np.exit_code, 2);
  EXPECT_EQ(np.err, "memfit: --parallel: expected a positive integer, got 0\n");
  testing::CommandResult ctk = testing::run_memfit({"inspect", "-m", "m", "-ctk", "q4_K"});
  EXPECT_EQ(ctk.err,
            "memfit: --cache-type-k: 'q4_K': expected fp16 or int8 (mlxcel), or f32, f16, bf16, "
            "q8_0, q4_0, q4_1, q5_0, q5_1 or iq4_nl (llamacpp)\n");
}

TEST(FieldTable, GetEnginesListsEveryField) {
  std::unique_ptr<Service> service = testing::make_service(std::vector<std::string>{});
  ASSERT_NE(service, nullptr);
  HttpResponse response = service->handle("GET", "/v1/engines", "");
  ASSERT_EQ(response.status, 200);
  const json answer = testing::body_json(response);
  EXPECT_EQ(answer, json::parse(request::engines_to_json().dump()));
  std::set<std::string> listed;
  auto check = [&listed](const json& field, std::string_view engine) {
    const RequestField* f = find_request_field(field["name"].get<std::string>());
    ASSERT_NE(f, nullptr) << field.dump();
    EXPECT_EQ(f->engine, engine);
    EXPECT_EQ(field["help"], f->help);
    json flags = json::array();
    for (std::string_view s : field_spellings(*f)) flags.push_back(s);
    EXPECT_EQ(field["flags"], flags);
    EXPECT_TRUE(listed.insert(std::string(f->name)).second);
  };
  for (const json& field : answer["common_fields"]) check(field, "");
  for (const json& engine : answer["engines"]) {
    for (const json& field : engine["fields"]) check(field, engine["name"].get<std::string>());
  }
  EXPECT_EQ(listed.size(), request_fields().size());
  // ctx_size as the calculator reads it.
  const json& llamacpp = answer["engines"][1];
  EXPECT_EQ(llamacpp["name"], "llamacpp");
  EXPECT_EQ(llamacpp["default_for"], "GGUF models");
  EXPECT_EQ(llamacpp["fields"][0],
            json::parse(R"j({"name": "ctx_size", "flags": ["-c", "--ctx-size"],
              "help": "context in tokens, 0 = the model's training context (default 0)",
              "unit": "tokens", "type": "count", "choices": [], "default": "0", "min": 0,
              "max": null, "example": null, "required": false, "gpu_setting": false})j"));
  // The GPU settings the page shows beside the budget: llama.cpp's offload
  // and split, vLLM's and SGLang's GPU memory, Ollama's offload and what its
  // scheduler is told of the GPUs; nothing of mlxcel's or mlx-lm's.
  std::map<std::string, std::vector<std::string>> gpu;
  for (const json& engine : answer["engines"]) {
    std::vector<std::string>& names = gpu[engine["name"].get<std::string>()];
    for (const json& field : engine["fields"]) {
      if (field["gpu_setting"] == true) names.push_back(field["name"].get<std::string>());
    }
  }
  EXPECT_EQ(gpu["llamacpp"],
            (std::vector<std::string>{"n_gpu_layers", "n_cpu_moe", "override_tensor", "split_mode",
                                      "tensor_split", "main_gpu", "no_kv_offload", "gpu_memory"}));
  EXPECT_EQ(gpu["vllm"], (std::vector<std::string>{"gpu_memory_utilization", "gpu_memory_total",
                                                   "gpu_name", "kv_cache_memory"}));
  EXPECT_EQ(gpu["sglang"], (std::vector<std::string>{"mem_fraction_static"}));
  EXPECT_EQ(gpu["ollama"], (std::vector<std::string>{"num_gpu", "ollama_gpu_overhead",
                                                     "ollama_sched_spread", "ollama_gpus_free",
                                                     "ollama_gpu_arch"}));
  EXPECT_TRUE(gpu["mlxcel"].empty());
  EXPECT_TRUE(gpu["mlx-lm"].empty());
  for (const json& field : answer["common_fields"]) EXPECT_EQ(field["gpu_setting"], false);
}

TEST(FieldTable, DocsTablesAgree) {
  for (const testing::FieldDocsBlock& block : testing::field_docs_blocks()) {
    SCOPED_TRACE(block.file);
    const std::string path = kSource + "/" + block.file;
    const std::string document = slurp(path);
    const std::string table =
        testing::render_field_table(engine_request_fields(block.engine == "common" ? "" : block.engine));
    std::optional<std::string> updated = testing::with_docs_block(document, block.engine, table);
    ASSERT_TRUE(updated.has_value()) << "no fields:" << block.engine << " markers";
    if (updating()) write(path, *updated);
    EXPECT_EQ(testing::docs_block_text(updating() ? *updated : document, block.engine), table)
        << "run scripts/gen-field-docs.py";
  }
}

// The Python module's docstring lists every field, with its Python value
// and flags (python/memfit/__init__.py; tests/python checks that help()
// shows it).
TEST(FieldTable, PythonDocstringAgrees) {
  const std::string path = kSource + "/" + std::string(testing::kPythonModule);
  const std::string module = slurp(path);
  const std::string list = testing::render_python_field_list(request_fields());
  for (const RequestField* f : request_fields()) {
    EXPECT_NE(list.find("\n  " + std::string(f->name) + " ("), std::string::npos) << f->name;
  }
  // The docstring is r"""...""": only a triple quote would end it.
  EXPECT_EQ(list.find("\"\"\""), std::string::npos);
  std::optional<std::string> updated = testing::with_python_list(module, list);
  ASSERT_TRUE(updated.has_value()) << path << " has no generated field list";
  if (updating()) write(path, *updated);
  EXPECT_EQ(testing::python_list_text(updating() ? *updated : module), list)
      << "run scripts/gen-field-docs.py";
}

TEST(FieldTable, RequestSchemaAgrees) {
  const std::string path = kSource + "/schema/estimate-request.schema.json";
  const nlohmann::ordered_json schema = testing::render_request_schema();
  if (updating()) write(path, schema.dump(2) + "\n");
  EXPECT_EQ(json::parse(slurp(path), nullptr, false), json::parse(schema.dump()))
      << "run scripts/gen-field-docs.py";
  // Every sample is a request the schema takes.
  json all = json::object();
  for (const RequestField* f : request_fields()) all[std::string(f->name)] = testing::sample_value(*f);
  TempDir dir;
  testing::CommandResult check = testing::run_command(
      {"/usr/bin/env", "python3", "-c",
       "import json, sys, jsonschema\n"
       "schema = json.load(open(sys.argv[1]))\n"
       "jsonschema.Draft202012Validator.check_schema(schema)\n"
       "jsonschema.validate(json.load(open(sys.argv[2])), schema,"
       " cls=jsonschema.Draft202012Validator)\n",
       path, dir.write_file("all.json", all.dump())});
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

}  // namespace
}  // namespace memfit
