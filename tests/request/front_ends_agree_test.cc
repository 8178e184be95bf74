// One table of requests through the front ends of the request layer (the
// memfit command, the C API's JSON call, the same with the CLI's flag texts
// as python3 -m memfit sends them, and the service's POST /v1/estimate): the
// same figures, the same warnings and the same kind of error for each. All three run on this machine, with this process's
// environment, against the same three models.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "flag_text.h"
#include "memfit/environment.h"
#include "memfit/memfit.h"
#include "memfit/request_field.h"
#include "memfit/service.h"
#include "memfit/mlxcel_settings.h"
#include "support/paths.h"
#include "support/run_command.h"
#include "support/small_checkpoints.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using json = nlohmann::json;

// What one front end answered: the report, or the error's kind and text.
struct Answer {
  bool ok = false;
  json report;
  std::string kind;     // "usage", "input", ... ("usage" or "other" from the CLI)
  std::string message;  // as the library words it
  std::string field;    // the field of a usage error about one
};

// The answer of a JSON front end: the report, or its error object's fields.
Answer json_answer(bool ok, const json& body) {
  Answer a;
  a.ok = ok;
  if (ok) {
    a.report = body;
    return a;
  }
  a.kind = body["error"]["kind"];
  a.message = body["error"]["message"];
  a.field = body["error"].value("field", "");
  return a;
}

struct Row {
  const char* name;
  json request;
  const char* kind;  // "" when the request succeeds
};

// A root with three models: the bundled example's config and index (no
// weights: an unverified index total), a BF16 llama with real headers (so
// per-rank plans split tensor by tensor) and a folder whose config is not
// JSON.
class FrontEnds : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string example = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";
    root_.make_dir("qwen3-14b");
    for (const char* file : {"config.json", "model.safetensors.index.json"}) {
      std::filesystem::copy_file(example + "/" + file, root_.file_path(std::string("qwen3-14b/") + file));
    }
    TempDir llama;
    write_bf16_llama_checkpoint(llama);
    std::filesystem::copy(llama.path(), root_.make_dir("llama-bf16"));
    root_.write_file("broken/config.json", "{\"num_hidden_layers\": ");
    qwen3_8b_gguf().write(root_.file_path("qwen3-8b.gguf"));
    root_.make_dir("gguf-folder");
    qwen3_8b_gguf().write(root_.file_path("gguf-folder/qwen3-8b-Q4_K.gguf"));
    root_.make_dir("two-ggufs");
    qwen3_8b_gguf().write(root_.file_path("two-ggufs/a.gguf"));
    qwen3_8b_gguf().write(root_.file_path("two-ggufs/b.gguf"));

    std::unique_ptr<Environment> env = make_process_environment();
    ServiceOptions options;
    options.model_roots = {root_.path()};
    options.settings = mlxcel_settings_from_environment(*env, options.settings_warnings);
    options.host = host_query_options_from_environment(*env);
    Result<std::unique_ptr<Service>> service = Service::create(std::move(options));
    ASSERT_TRUE(service.ok()) << service.error().message();
    service_ = std::move(*service);
  }

  std::string path_of(const std::string& name) const { return root_.file_path(name); }

  std::string without_root(std::string text) const {
    for (size_t at; (at = text.find(root_.path() + "/")) != std::string::npos;) {
      text.erase(at, root_.path().size() + 1);
    }
    return text;
  }

  // An answer of the CLI or the C API as the service words it: the service
  // names no folder of its own, so a path under its root is relative to it
  // (docs/service.md, "No server paths in answers"): "vllm serve qwen3-14b".
  json as_the_service_words_it(const json& answer) const {
    return json::parse(without_root(answer.dump()));
  }

  // `memfit fit --json` and POST /v1/fit answer each row alike: the same
  // object (the service's with "model" in front), or the same error words.
  void expect_fit_agrees(const std::vector<Row>& table, const std::string& engine,
                         const std::string& default_solve) const {
  for (const Row& row : table) {
      SCOPED_TRACE(row.name);
      HttpResponse response = service_->handle("POST", "/v1/fit", row.request.dump());
      const json body = json::parse(response.body);
      std::vector<std::string> args = {"fit", "--json", "-m", path_of(row.request["model"]), "--solve",
                                       row.request.value("solve", default_solve)};
      for (const auto& [key, value] : row.request.items()) {
        if (key == "model" || key == "solve") continue;
        std::string flag = "--" + key;
        for (char& c : flag) c = c == '_' ? '-' : c;
        args.push_back(flag);
        args.push_back(value.is_string() ? value.get<std::string>() : value.dump());
      }
      testing::CommandResult cli = testing::run_memfit(args);
      const bool ok = std::string(row.kind).empty();
      ASSERT_EQ(response.status == 200, ok) << response.body;
      ASSERT_EQ(cli.exit_code == 0, ok) << cli.err;
      if (!ok) {
        EXPECT_EQ(response.status, 400);
        EXPECT_EQ(cli.exit_code, 2);
        const std::string field = body["error"]["field"];
        std::string flag = "--" + field;
        for (char& c : flag) c = c == '_' ? '-' : c;
        const std::string message = body["error"]["message"];
        EXPECT_EQ(cli.err, "memfit: " + flag + message.substr(field.size()) + "\n");
        continue;
      }
      json service_answer = body;
      EXPECT_EQ(service_answer["model"], row.request["model"]);
      service_answer.erase("model");
      json cli_answer = json::parse(cli.out);
      for (json* answer : {&service_answer, &cli_answer}) {
        if ((*answer)["report"].is_object()) (*answer)["report"].erase("model");
      }
      EXPECT_EQ(as_the_service_words_it(cli_answer), service_answer);
      EXPECT_EQ(cli_answer["engine"], engine);
    }
  }

  Answer via_c_api(json request) const {
    request["model"] = path_of(request["model"]);
    char* response = nullptr;
    const memfit_status status = memfit_estimate_request_json(request.dump().c_str(), &response);
    EXPECT_NE(response, nullptr);
    const Answer a = json_answer(status == MEMFIT_OK, json::parse(response));
    memfit_string_free(response);
    // The C status comes from the kind: usage errors are the caller's.
    if (!a.ok) {
      EXPECT_EQ(status, a.kind == "usage" ? MEMFIT_INVALID_ARGUMENT : MEMFIT_ERROR) << a.message;
    }
    return a;
  }

  // memfit_run_request_json with MEMFIT_REQUEST_FLAG_TEXTS (python3 -m
  // memfit): each value as the text its flag takes (a switch "true").
  Answer via_c_api_flag_texts(json request) const {
    request["model"] = path_of(request["model"]);
    json texts = json::object();
    for (const auto& [key, value] : request.items()) {
      // A size's JSON integer is bytes; its flag's text says so ("17179869184B").
      const RequestField* field = find_request_field(key);
      const bool size = field != nullptr && field->type == FieldType::kSize;
      texts[key] = value.is_string() ? value.get<std::string>()
                                     : value.dump() + (size && value.is_number() ? "B" : "");
    }
    char* response = nullptr;
    const memfit_status status =
        memfit_run_request_json(texts.dump().c_str(), MEMFIT_REQUEST_FLAG_TEXTS, &response);
    EXPECT_NE(response, nullptr);
    const Answer a = json_answer(status == MEMFIT_OK, json::parse(response));
    memfit_string_free(response);
    return a;
  }

  Answer via_service(const json& request) const {
    HttpResponse r = service_->handle("POST", "/v1/estimate", request.dump());
    const Answer a = json_answer(r.status == 200, json::parse(r.body));
    // The HTTP status comes from the kind.
    if (!a.ok) {
      EXPECT_EQ(r.status, a.kind == "usage" ? 400 : a.kind == "internal" ? 500 : 422) << r.body;
    }
    return a;
  }

  // `memfit inspect --json` with each field as its flag. Every warning the
  // command prints on stderr must be in its JSON "warnings".
  Answer via_cli(const json& request) const {
    std::vector<std::string> args = {"inspect", "--json", "-m", path_of(request["model"])};
    for (const auto& [key, value] : request.items()) {
      if (key == "model") continue;
      std::string flag = "--" + key;
      for (char& c : flag) c = c == '_' ? '-' : c;
      args.push_back(flag);
      if (value.is_boolean()) continue;  // a flag (--swa-full); the table only sets true
      // A size's JSON integer is bytes; its flag says so ("17179869184B").
      const RequestField* field = find_request_field(key);
      const bool size = field != nullptr && field->type == FieldType::kSize;
      args.push_back(value.is_string() ? value.get<std::string>()
                                       : value.dump() + (size && value.is_number() ? "B" : ""));
    }
    testing::CommandResult r = testing::run_memfit(args);
    Answer a;
    a.ok = r.exit_code == 0;
    if (a.ok) {
      a.report = json::parse(r.out);
      size_t begin = 0;
      while (begin < r.err.size()) {
        size_t end = r.err.find('\n', begin);
        std::string line = r.err.substr(begin, end - begin);
        begin = end == std::string::npos ? r.err.size() : end + 1;
        const std::string prefix = "memfit: warning: ";
        if (line.rfind(prefix, 0) == 0) line = line.substr(prefix.size());
        EXPECT_NE(std::find(a.report["warnings"].begin(), a.report["warnings"].end(), line),
                  a.report["warnings"].end())
            << "printed on stderr, missing from the JSON: " << line;
      }
      return a;
    }
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(r.exit_code == 1 || r.exit_code == 2) << r.exit_code;
    a.kind = r.exit_code == 2 ? "usage" : "other";
    a.message = r.err;
    return a;
  }

  TempDir root_;
  std::unique_ptr<Service> service_;
};

// The fields a report may differ in between two runs: the model as named
// (a path or a name under the root) and what the host has free right now.
json comparable(json report) {
  report.erase("model");
  report.erase("ram_available_bytes");
  return report;
}

TEST_F(FrontEnds, SameFiguresWarningsAndErrorKinds) {
  const std::vector<Row> table = {
      {"plain", {{"model", "qwen3-14b"}, {"memory_limit", "16GiB"}}, ""},
      {"long int8 batch",
       {{"model", "qwen3-14b"}, {"max_tokens", 32768}, {"batch", 2}, {"kv_cache_mode", "int8"},
        {"memory_limit", "24GiB"}},
       ""},
      {"K and V differ",
       {{"model", "qwen3-14b"}, {"cache_type_k", "q8_0"}, {"cache_type_v", "f16"},
        {"memory_limit", 17179869184u}},
       ""},
      {"rocm in-flight", {{"model", "qwen3-14b"}, {"backend", "rocm"}, {"memory_limit", "16GiB"}}, ""},
      {"headers and a tensor-parallel plan",
       {{"model", "llama-bf16"}, {"tensor_parallel", 2}, {"memory_limit", "1GiB"}}, ""},
      {"pipeline plan, mlx rules",
       {{"model", "llama-bf16"}, {"pipeline_parallel", 2}, {"parallel_engine", "mlx"},
        {"memory_limit", "1GiB"}},
       ""},
      {"unknown KV type", {{"model", "qwen3-14b"}, {"kv_cache_mode", "fp8"}}, "usage"},
      {"K without V", {{"model", "qwen3-14b"}, {"cache_type_k", "q8_0"}}, "usage"},
      {"bad size", {{"model", "qwen3-14b"}, {"memory_limit", "lots"}}, "usage"},
      {"vllm without a GPU total or a budget", {{"model", "qwen3-14b"}, {"engine", "vllm"}}, "usage"},
      {"vllm sized from the utilization",
       {{"model", "qwen3-14b"}, {"engine", "vllm"}, {"gpu_memory_total", "24GiB"},
        {"gpu_memory_utilization", 0.85}, {"max_model_len", 8192}, {"max_num_seqs", 4},
        {"memory_limit", "24GiB"}},
       ""},
      {"vllm with its KV memory given",
       {{"model", "qwen3-14b"}, {"engine", "vllm"}, {"gpu_memory_total", "24GiB"},
        {"kv_cache_memory", "4GiB"}, {"kv_cache_dtype", "fp8"}, {"block_size", 32},
        {"memory_limit", "24GiB"}},
       ""},
      {"vllm field with mlxcel", {{"model", "qwen3-14b"}, {"max_model_len", 4096}}, "usage"},
      {"vllm priced by v0.7's accounting",
       {{"model", "qwen3-14b"}, {"engine", "vllm"}, {"gpu_memory_total", "16GiB"},
        {"vllm_version", "0.7.3"}, {"max_model_len", 8192}, {"memory_limit", "16GiB"}},
       ""},
      {"vllm release not modelled",
       {{"model", "qwen3-14b"}, {"engine", "vllm"}, {"gpu_memory_total", "24GiB"}, {"vllm_version", "0.9"}},
       "usage"},
      {"vllm release not a release",
       {{"model", "qwen3-14b"}, {"engine", "vllm"}, {"gpu_memory_total", "24GiB"}, {"vllm_version", "0.7-rc1"}},
       "usage"},
      {"vllm with a GPU name given",
       {{"model", "qwen3-14b"}, {"engine", "vllm"}, {"gpu_memory_total", "80GiB"},
        {"gpu_name", "NVIDIA A100-SXM4-80GB"}, {"max_model_len", 8192}, {"memory_limit", "80GiB"}},
       ""},
      {"vllm GPU name not printable",
       {{"model", "qwen3-14b"}, {"engine", "vllm"}, {"gpu_memory_total", "80GiB"}, {"gpu_name", "H100\t"}},
       "usage"},
      {"sglang on a GPU of the hardware table",
       {{"model", "qwen3-14b"}, {"engine", "sglang"}, {"gpu", "h100"}, {"context_length", 32768}}, ""},
      {"sglang with its fraction, page and fp8 KV",
       {{"model", "qwen3-14b"}, {"engine", "sglang"}, {"memory_limit", "24GiB"},
        {"mem_fraction_static", 0.85}, {"page_size", 16}, {"sglang_kv_cache_dtype", "fp8_e4m3"}},
       ""},
      {"sglang release not priced",
       {{"model", "qwen3-14b"}, {"engine", "sglang"}, {"memory_limit", "24GiB"}, {"sglang_version", "0.4.6"}},
       "usage"},
      {"sglang DP attention without DP",
       {{"model", "qwen3-14b"}, {"engine", "sglang"}, {"memory_limit", "24GiB"}, {"enable_dp_attention", true}},
       "usage"},
      {"sglang DP LM head without DP attention",
       {{"model", "qwen3-14b"}, {"engine", "sglang"}, {"memory_limit", "24GiB"}, {"enable_dp_lm_head", true}},
       "usage"},
      {"sglang field with mlxcel", {{"model", "qwen3-14b"}, {"mem_fraction_static", 0.8}}, "usage"},
      {"heads not divisible", {{"model", "qwen3-14b"}, {"tensor_parallel", 3}}, "usage"},
      {"overflow",
       {{"model", "qwen3-14b"}, {"max_tokens", 1ull << 62}, {"batch", 1ull << 20},
        {"memory_limit", "16GiB"}},
       "overflow"},
      {"config not JSON", {{"model", "broken"}}, "input"},
      {"a GGUF file", {{"model", "qwen3-8b.gguf"}, {"memory_limit", "16GiB"}}, ""},
      {"a folder with one GGUF model", {{"model", "gguf-folder"}, {"memory_limit", "16GiB"}}, ""},
      {"a folder with two GGUF models", {{"model", "two-ggufs"}}, "usage"},
      {"llamacpp", {{"model", "qwen3-14b"}, {"engine", "llamacpp"}, {"ctx_size", 4096}, {"memory_limit", "16GiB"}},
       ""},
      {"llamacpp with every field",
       {{"model", "qwen3-14b"}, {"engine", "llamacpp"}, {"ctx_size", 8192}, {"parallel", 3},
        {"batch_size", 1024}, {"ubatch_size", 256}, {"cache_type_k", "q4_0"},
        {"cache_type_v", "q8_0"}, {"flash_attn", "on"}, {"swa_full", true},
        {"kv_unified", true}, {"repack", "x86-avx512"}, {"memory_limit", "16GiB"}},
       ""},
      {"llamacpp field with mlxcel", {{"model", "qwen3-14b"}, {"ctx_size", 4096}}, "usage"},
      {"llamacpp cache type on a safetensors model",
       {{"model", "qwen3-14b"}, {"cache_type_k", "q4_0"}, {"cache_type_v", "q4_0"}}, "usage"},
      {"mlxcel cache type names on a GGUF model",
       {{"model", "qwen3-8b.gguf"}, {"cache_type_k", "int8"}, {"cache_type_v", "int8"},
        {"memory_limit", "16GiB"}},
       ""},
      {"llamacpp cache type on a GGUF model",
       {{"model", "qwen3-8b.gguf"}, {"cache_type_k", "q8_0"}, {"cache_type_v", "q4_0"},
        {"flash_attn", "on"}, {"memory_limit", "16GiB"}},
       ""},
      {"ollama", {{"model", "qwen3-8b.gguf"}, {"engine", "ollama"}, {"num_ctx", 8192},
                  {"ollama_num_parallel", 2}, {"memory_limit", "16GiB"}}, ""},
      {"ollama field with llamacpp", {{"model", "qwen3-8b.gguf"}, {"engine", "llamacpp"}, {"num_ctx", 4096}},
       "usage"},
      {"ollama takes its own cache type",
       {{"model", "qwen3-8b.gguf"}, {"engine", "ollama"}, {"cache_type_k", "q8_0"},
        {"cache_type_v", "q8_0"}, {"memory_limit", "16GiB"}},
       "usage"},
      {"max_tokens as llama.cpp's context", {{"model", "qwen3-8b.gguf"}, {"max_tokens", 4096}, {"memory_limit", "16GiB"}},
       ""},
      {"llama-server extras: no prompt cache limit, 4 checkpoints",
       {{"model", "qwen3-8b.gguf"}, {"cache_ram", -1}, {"ctx_checkpoints", 4}, {"memory_limit", "16GiB"}},
       ""},
      {"llama-server prompt cache below -1", {{"model", "qwen3-8b.gguf"}, {"cache_ram", -2}}, "usage"},
      {"max_tokens and ctx_size", {{"model", "qwen3-8b.gguf"}, {"max_tokens", 4096}, {"ctx_size", 4096}},
       "usage"},
      {"mlxcel field with llamacpp",
       {{"model", "qwen3-14b"}, {"engine", "llamacpp"}, {"kv_cache_mode", "int8"}}, "usage"},
      {"llamacpp quantized V without flash attention",
       {{"model", "qwen3-14b"}, {"engine", "llamacpp"}, {"cache_type_k", "f16"},
        {"cache_type_v", "q4_0"}, {"flash_attn", "off"}},
       "usage"},
      {"llamacpp cache type", {{"model", "qwen3-14b"}, {"engine", "llamacpp"}, {"cache_type_k", "q4_K"}},
       "usage"},
      {"no such GPU", {{"model", "qwen3-14b"}, {"device", "cuda:7"}}, "host"},
      {"mlx-lm with every field",
       {{"model", "qwen3-14b"}, {"engine", "mlx-lm"}, {"prompt_tokens", 4096}, {"max_tokens", 256},
        {"batch", 2}, {"prefill_step_size", 512}, {"kv_bits", 8}, {"kv_group_size", 32},
        {"memory_limit", "16GiB"}},
       ""},
      {"mlx-lm rotating cache",
       {{"model", "qwen3-14b"}, {"engine", "mlx-lm"}, {"max_kv_size", 1024}, {"memory_limit", "8GiB"}},
       ""},
      {"mlx-lm kv_bits on a rotating cache",
       {{"model", "qwen3-14b"}, {"engine", "mlx-lm"}, {"max_kv_size", 1024}, {"kv_bits", 4}},
       "usage"},
      {"mlx-lm field with mlxcel", {{"model", "qwen3-14b"}, {"prompt_tokens", 2048}}, "usage"},
      {"mlxcel field with mlx-lm",
       {{"model", "qwen3-14b"}, {"engine", "mlx-lm"}, {"kv_cache_mode", "int8"}}, "usage"},
  };
  for (const Row& row : table) {
    SCOPED_TRACE(row.name);
    const Answer c = via_c_api(row.request);
    const Answer s = via_service(row.request);
    const Answer cli = via_cli(row.request);
    const Answer texts = via_c_api_flag_texts(row.request);
    const bool ok = std::string(row.kind).empty();
    ASSERT_EQ(c.ok, ok) << c.message;
    ASSERT_EQ(s.ok, ok) << s.message;
    ASSERT_EQ(cli.ok, ok) << cli.message;
    ASSERT_EQ(texts.ok, ok) << texts.message;
    if (ok) {
      EXPECT_EQ(as_the_service_words_it(comparable(c.report)), comparable(s.report));
      EXPECT_EQ(comparable(c.report), comparable(cli.report));
      EXPECT_EQ(comparable(c.report), comparable(texts.report));
      continue;
    }
    // The flag texts are read by the CLI's parsers: the C API's words.
    EXPECT_EQ(texts.kind, c.kind);
    EXPECT_EQ(texts.message, c.message);
    EXPECT_EQ(texts.field, c.field);
    EXPECT_EQ(c.kind, row.kind) << c.message;
    EXPECT_EQ(s.kind, row.kind) << s.message;
    EXPECT_EQ(cli.kind, c.kind == "usage" ? "usage" : "other");
    // The same words: the service names the model as the request does (the
    // loader's own messages name its real path), the others by its path;
    // the CLI spells a field as its flag, the one in front and those in the
    // words (cli/flag_text.h).
    EXPECT_EQ(without_root(s.message), without_root(c.message));
    EXPECT_EQ(s.field, c.field);
    std::string cli_text = c.message;
    if (!c.field.empty()) {
      std::string flag = "--" + c.field;
      for (char& ch : flag) ch = ch == '_' ? '-' : ch;
      cli_text = flag + c.message.substr(c.field.size());
    }
    EXPECT_EQ(cli.message, "memfit: " + cli::with_flag_names(cli_text) + "\n");
  }
}

// Several models together (docs/multi-model.md): {"models": [...]} with
// the shared fields beside it, through the C API (typed and as flag
// texts), the service and `memfit inspect` with the shared flags before
// the first -m and each model's after its own: the same answer, or the
// same kind of error.
TEST_F(FrontEnds, SeveralModelsAgree) {
  const json vllm_half = {{"model", "qwen3-14b"}, {"engine", "vllm"}, {"gpu_memory_total", "24GiB"},
                          {"gpu_memory_utilization", 0.5}, {"max_model_len", 4096}};
  json vllm_more = vllm_half;
  vllm_more["model"] = "llama-bf16";
  vllm_more["gpu_memory_utilization"] = 0.6;
  const std::vector<Row> table = {
      {"a GGUF model beside an MLX one",
       {{"memory_limit", "16GiB"},
        {"models", json::array({{{"model", "qwen3-8b.gguf"}, {"ctx_size", 4096}},
                                {{"model", "qwen3-14b"}, {"max_tokens", 2048}}})}},
       ""},
      {"two vLLM servers reserving 1.1 of the GPU",
       {{"memory_limit", "24GiB"}, {"models", json::array({vllm_half, vllm_more})}}, ""},
      {"a field of another engine in one model",
       {{"memory_limit", "16GiB"},
        {"models", json::array({{{"model", "qwen3-14b"}, {"ctx_size", 4096}}, {{"model", "qwen3-8b.gguf"}}})}},
       "usage"},
      {"a model that does not open",
       {{"models", json::array({{{"model", "qwen3-8b.gguf"}}, {{"model", "broken"}}})}}, "input"},
  };
  // The request with each model's name a path, for the C API and the CLI.
  auto by_path = [this](json request) {
    for (json& m : request["models"]) m["model"] = path_of(m["model"]);
    return request;
  };
  auto flag_texts = [](json request) {
    auto texts_of = [](json& object) {
      for (auto& [key, value] : object.items()) {
        if (key == "models") continue;
        const RequestField* field = find_request_field(key);
        const bool size = field != nullptr && field->type == FieldType::kSize;
        if (!value.is_string()) value = value.dump() + (size && value.is_number() ? "B" : "");
      }
    };
    texts_of(request);
    for (json& m : request["models"]) texts_of(m);
    return request;
  };
  auto flags_of = [](const json& object, std::vector<std::string>& args) {
    for (const auto& [key, value] : object.items()) {
      if (key == "models" || key == "model") continue;
      std::string flag = "--" + key;
      for (char& c : flag) c = c == '_' ? '-' : c;
      args.push_back(flag);
      const RequestField* field = find_request_field(key);
      const bool size = field != nullptr && field->type == FieldType::kSize;
      args.push_back(value.is_string() ? value.get<std::string>()
                                       : value.dump() + (size && value.is_number() ? "B" : ""));
    }
  };
  // What two answers may differ in: the models' names (paths or names
  // under the root) and what the host has free right now.
  auto comparable_together = [](json answer) {
    for (json& m : answer["models"]) m = comparable(m);
    for (json& d : answer["devices"]) {
      for (json& m : d["models"]) m.erase("model");
    }
    return answer;
  };
  auto run_c = [](const json& request, unsigned int options) {
    char* response = nullptr;
    const memfit_status status = memfit_run_request_json(request.dump().c_str(), options, &response);
    EXPECT_NE(response, nullptr);
    const Answer a = json_answer(status == MEMFIT_OK, json::parse(response));
    memfit_string_free(response);
    return a;
  };
  for (const Row& row : table) {
    SCOPED_TRACE(row.name);
    const Answer c = run_c(by_path(row.request), 0);
    const Answer texts = run_c(flag_texts(by_path(row.request)), MEMFIT_REQUEST_FLAG_TEXTS);
    const Answer s = via_service(row.request);
    std::vector<std::string> args = {"inspect", "--json"};
    flags_of(row.request, args);
    for (const json& m : row.request["models"]) {
      args.push_back("-m");
      args.push_back(path_of(m["model"]));
      flags_of(m, args);
    }
    testing::CommandResult cli = testing::run_memfit(args);
    const bool ok = std::string(row.kind).empty();
    ASSERT_EQ(c.ok, ok) << c.message;
    ASSERT_EQ(texts.ok, ok) << texts.message;
    ASSERT_EQ(s.ok, ok) << s.message;
    ASSERT_EQ(cli.exit_code == 0, ok) << cli.err;
    if (!ok) {
      EXPECT_EQ(c.kind, row.kind) << c.message;
      EXPECT_EQ(s.kind, row.kind) << s.message;
      EXPECT_EQ(texts.message, c.message);
      EXPECT_EQ(without_root(s.message), without_root(c.message));
      EXPECT_EQ(cli.exit_code, c.kind == "usage" ? 2 : 1);
      continue;
    }
    const json cli_report = json::parse(cli.out);
    EXPECT_EQ(as_the_service_words_it(comparable_together(c.report)), comparable_together(s.report));
    EXPECT_EQ(comparable_together(c.report), comparable_together(cli_report));
    EXPECT_EQ(comparable_together(c.report), comparable_together(texts.report));
    EXPECT_EQ(s.report["models"][0]["model"], row.request["models"][0]["model"]);
  }
}

// A LoRA adapter (the "lora" field, --lora): the C API and the CLI read
// it by its path, the service by its name under the root; the same lines,
// and the same error for one that does not fit the model. Rank 8 in f16
// over blk.0.attn_q (4,096 x 4,096): 2 x 4,096 x 8 x 2 B = 131,072 B.
TEST_F(FrontEnds, LoraAdaptersAgree) {
  auto adapter = [](std::string_view base) {
    GgufWriter w;
    w.add_string("general.architecture", "qwen3")
        .add_string("general.type", "adapter")
        .add_string("adapter.type", "lora")
        .add_tensor(std::string(base) + ".lora_a", GgmlType::kF16, {4096, 8})
        .add_tensor(std::string(base) + ".lora_b", GgmlType::kF16, {8, 4096});
    return w;
  };
  adapter("blk.0.attn_q.weight").write(path_of("good-lora.gguf"));
  adapter("blk.0.attn_k.weight").write(path_of("bad-lora.gguf"));
  for (const char* name : {"good-lora.gguf", "bad-lora.gguf"}) {
    SCOPED_TRACE(name);
    json request = {{"model", "qwen3-8b.gguf"}, {"memory_limit", "16GiB"}, {"gpu_memory", "0=8GiB"}};
    json by_path = request;
    by_path["lora"] = path_of(name);
    request["lora"] = json::array({name});  // a path, or an array of them
    Answer c = via_c_api(by_path);
    Answer s = via_service(request);
    Answer cli = via_cli(by_path);
    const bool ok = std::string(name) == "good-lora.gguf";
    ASSERT_EQ(c.ok, ok) << c.message;
    ASSERT_EQ(s.ok, ok) << s.message;
    ASSERT_EQ(cli.ok, ok) << cli.message;
    if (ok) {
      json lines = c.report["llamacpp"]["extras"];
      ASSERT_EQ(lines.size(), 1u) << lines.dump();
      EXPECT_EQ(lines[0]["name"], "LoRA adapter");
      EXPECT_EQ(lines[0]["device"], "gpu:0");
      EXPECT_EQ(lines[0]["bytes"], 131072u);
      EXPECT_EQ(s.report["llamacpp"]["extras"][0]["file"], name);
      for (json* r : {&c.report, &s.report, &cli.report}) {
        (*r)["llamacpp"]["extras"][0].erase("file");
      }
      EXPECT_EQ(as_the_service_words_it(comparable(c.report)), comparable(s.report));
      EXPECT_EQ(comparable(c.report), comparable(cli.report));
      continue;
    }
    EXPECT_EQ(c.kind, "input");
    EXPECT_EQ(s.kind, "input");
    EXPECT_EQ(without_root(c.message),
              "'qwen3-8b.gguf': lora 'bad-lora.gguf': LoRA tensor 'blk.0.attn_k.weight' does not exist in base model "
              "(hint: maybe wrong base model?)");
    EXPECT_EQ(s.message, without_root(c.message));
    EXPECT_EQ(cli.message, "memfit: " + c.message + "\n");
  }
  // At most 64 adapters a request: each is a file to read.
  json many = {{"model", "qwen3-8b.gguf"}, {"lora", json::array()}};
  for (int i = 0; i < 65; ++i) many["lora"].push_back("good-lora.gguf");
  const Answer c = via_c_api(many);
  const Answer s = via_service(many);
  EXPECT_EQ(c.kind, "usage");
  EXPECT_EQ(c.field, "lora");
  EXPECT_EQ(c.message, "lora: names 65 adapters; memfit reads at most 64");
  EXPECT_EQ(s.message, c.message);
}

// `memfit fit --json` and POST /v1/fit answer a llamacpp request with the
// same object (llamacpp_fit.h), the service with "model" in front; their
// errors are the same words. (mlxcel's /v1/fit has its own shape, for the
// calculator page.)
TEST_F(FrontEnds, FitAgreesForLlamaCppRequests) {
  const std::vector<Row> table = {
      {"a GGUF model's context", {{"model", "qwen3-8b.gguf"}, {"memory_limit", "4GiB"}}, ""},
      {"slots at a context",
       {{"model", "qwen3-8b.gguf"}, {"solve", "slots"}, {"ctx_size", 16384}, {"memory_limit", "4GiB"}},
       ""},
      {"llamacpp on a safetensors model, q8_0",
       {{"model", "qwen3-14b"}, {"engine", "llamacpp"}, {"solve", "max-tokens"},
        {"cache_type_k", "q8_0"}, {"cache_type_v", "q8_0"}, {"flash_attn", "on"},
        {"memory_limit", "12GiB"}},
       ""},
      {"nothing fits", {{"model", "qwen3-8b.gguf"}, {"memory_limit", "100MiB"}}, ""},
      {"batch is mlxcel's", {{"model", "qwen3-8b.gguf"}, {"solve", "batch"}}, "usage"},
      {"max-model-len is vllm's", {{"model", "qwen3-8b.gguf"}, {"solve", "max-model-len"}}, "usage"},
      {"the solved value given", {{"model", "qwen3-8b.gguf"}, {"ctx_size", 4096}}, "usage"},
      {"quantized V without flash attention",
       {{"model", "qwen3-8b.gguf"}, {"cache_type_k", "f16"}, {"cache_type_v", "q8_0"},
        {"flash_attn", "off"}},
       "usage"},
  };
  expect_fit_agrees(table, "llamacpp", "ctx-size");
}

// The same for a vllm request (vllm_fit.h): the largest --max-model-len or
// --max-num-seqs, per rank under tensor parallelism.
TEST_F(FrontEnds, FitAgreesForVllmRequests) {
  const json gpu = {{"model", "qwen3-14b"}, {"engine", "vllm"}, {"gpu_memory_total", "24GiB"},
                    {"memory_limit", "24GiB"}};
  auto with = [&gpu](json more) {
    json r = gpu;
    for (auto& [key, value] : more.items()) r[key] = value;
    return r;
  };
  const std::vector<Row> table = {
      {"max-model-len from the utilization", gpu, ""},
      {"max-model-len under TP 2, fp8", with({{"tensor_parallel", 2}, {"kv_cache_dtype", "fp8"}}), ""},
      {"max-num-seqs with the KV memory given",
       with({{"solve", "max-num-seqs"}, {"max_model_len", 8192}, {"kv_cache_memory", "4GiB"}}), ""},
      {"max-num-seqs from the utilization", with({{"solve", "max-num-seqs"}, {"max_model_len", 32768}}),
       ""},
      {"nothing fits", with({{"gpu_memory_total", "8GiB"}, {"memory_limit", "8GiB"}}), ""},
      {"the solved value given", with({{"max_model_len", 4096}}), "usage"},
      {"the solved count given", with({{"solve", "max-num-seqs"}, {"max_num_seqs", 8}}), "usage"},
      {"a llamacpp solve", with({{"solve", "ctx-size"}}), "usage"},
  };
  expect_fit_agrees(table, "vllm", "max-model-len");
}

// The same for an sglang request: the largest --context-length,
// --max-running-requests or --mem-fraction-static that starts.
TEST_F(FrontEnds, FitAgreesForSglangRequests) {
  const json gpu = {{"model", "qwen3-14b"}, {"engine", "sglang"}, {"memory_limit", "48GiB"}};
  auto with = [&gpu](json more) {
    json r = gpu;
    for (auto& [key, value] : more.items()) r[key] = value;
    return r;
  };
  const std::vector<Row> table = {
      {"context-length", gpu, ""},
      {"max-running-requests at a context",
       with({{"solve", "max-running-requests"}, {"context_length", 32768}}), ""},
      {"mem-fraction-static", with({{"solve", "mem-fraction-static"}}), ""},
      {"nothing fits", with({{"memory_limit", "8GiB"}}), ""},
      {"the solved value given", with({{"context_length", 4096}}), "usage"},
      {"a vllm solve", with({{"solve", "max-model-len"}}), "usage"},
  };
  expect_fit_agrees(table, "sglang", "context-length");
}

TEST_F(FrontEnds, AGgufModelDefaultsToTheLlamaCppProfile) {
  // The repacked copies pinned to one CPU (auto reads the host's).
  const json request = {{"model", "qwen3-8b.gguf"}, {"memory_limit", "16GiB"}, {"repack", "x86-avx2"}};
  for (const Answer& a : {via_cli(request), via_service(request), via_c_api(request)}) {
    ASSERT_TRUE(a.ok) << a.message;
    EXPECT_EQ(a.report["engine"], "llamacpp");
    EXPECT_EQ(a.report["model_type"], "qwen3");
    EXPECT_EQ(a.report["weights_source"], "gguf_header");
    EXPECT_EQ(a.report["warnings"], json::array());
    const json& l = a.report["llamacpp"];
    // Mapped: the Q4_K embedding, 350,060,544 B, and 36 Q4_K attn_q of
    // 4,096 x 4,096 (16 blocks x 144 B x 4,096 rows = 9,437,184 B each):
    // 689,799,168 B. Repacked on x86 AVX2: every attn_q (339,738,624 B) and,
    // with no output.weight, the tied output's Q4_K copy of the embedding
    // (350,060,544 B): 689,799,168 B more.
    EXPECT_EQ(l["mapped_bytes"], 689799168u);
    EXPECT_EQ(l["repack_bytes"], 689799168u);
    EXPECT_EQ(l["model_bytes"], 1379598336u);
    // --ctx-size 0: the training context, 40,960 cells (a multiple of 256).
    // K = V = 36 layers x 40,960 x 8 KV heads x 128 x 2 B = 3,019,898,880 B.
    EXPECT_EQ(l["context"]["k_bytes"], 3019898880u);
    EXPECT_EQ(l["context"]["v_bytes"], 3019898880u);
    // Logits for one sequence: 4 B x 151,936 = 607,744 B.
    EXPECT_EQ(l["context"]["output_bytes"], 607744u);
    EXPECT_EQ(l["context_bytes"], 6040405504u);  // 2 x 3,019,898,880 + 607,744
  }
  // max_tokens is read as --ctx-size: 4,096 cells, a tenth of the training
  // context's K: 36 x 4,096 x 8 x 128 x 2 B = 301,989,888 B.
  json context = request;
  context["max_tokens"] = 4096;
  for (const Answer& a : {via_cli(context), via_service(context), via_c_api(context)}) {
    ASSERT_TRUE(a.ok) << a.message;
    EXPECT_EQ(a.report["inputs"]["n_ctx"], 4096u);
    EXPECT_EQ(a.report["llamacpp"]["context"]["k_bytes"], 301989888u);
  }
  // Asked for by name, the mlxcel profile prices the same geometry:
  // 36 layers x 2 x 8 KV heads x 128 x 2 B = 147,456 B per token; x 8,192.
  json named = request;
  named["engine"] = "mlxcel";
  named.erase("repack");
  const Answer a = via_service(named);
  ASSERT_TRUE(a.ok) << a.message;
  EXPECT_EQ(a.report["engine"], "mlxcel");
  EXPECT_EQ(a.report["kv_bytes_per_token"]["fp16"], 147456u);
  EXPECT_EQ(a.report["kv_bytes_total"], 1207959552u);
  EXPECT_EQ(a.report["warnings"], json::array());
}

// `memfit ls --json --model-root ROOT` and GET /v1/local-models list the
// root's models alike (local_models.h): the same rows in the same order,
// the same figures and the same error words, the CLI's names under the
// root as the service words them. The CLI's own stores are empty here.
TEST_F(FrontEnds, LsAgreesWithLocalModels) {
  TempDir empty;
  const std::map<std::string, std::string> env = {{"HOME", empty.path()},
                                                  {"OLLAMA_MODELS", empty.path()},
                                                  {"HF_HUB_CACHE", empty.path()}};
  testing::CommandResult cli =
      testing::run_memfit({"ls", "--json", "--memory-limit", "16GiB", "--model-root", root_.path()}, env);
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  HttpResponse response = service_->handle("GET", "/v1/local-models?memory_limit=16GiB", "");
  ASSERT_EQ(response.status, 200) << response.body;
  const json service = json::parse(response.body);
  const json listed = as_the_service_words_it(json::parse(cli.out));
  EXPECT_EQ(listed, service);
  // What the rows say: the root's six models, the folder of two GGUF
  // models and the broken config refused as a request for them is.
  ASSERT_EQ(service["models"].size(), 6u) << service.dump(1);
  // qwen3_8b_gguf (small_ggufs.h): 689,799,168 B of weights; llama.cpp's
  // default context is its training context, 40,960, which fits 16 GiB
  // and is the ceiling of the largest.
  bool found = false;
  for (const json& row : service["models"]) {
    if (row["name"] != "qwen3-8b.gguf") continue;
    found = true;
    EXPECT_EQ(row["weights_bytes"], 689799168u);
    EXPECT_EQ(row["engine"], "llamacpp");
    EXPECT_EQ(row["default_context"], 40960u);
    EXPECT_EQ(row["largest_context"], 40960u);
    EXPECT_EQ(row["largest_capped"], true);
  }
  EXPECT_TRUE(found);
  for (const json& row : service["models"]) {
    if (row["name"] == "two-ggufs" || row["name"] == "broken") {
      EXPECT_EQ(row["fit"], "error") << row.dump();
    } else {
      EXPECT_NE(row["fit"], "error") << row.dump();
    }
  }
  // A query field that is no machine field is the request's error.
  EXPECT_EQ(service_->handle("GET", "/v1/local-models?model=x", "").status, 400);
}

}  // namespace
}  // namespace memfit
