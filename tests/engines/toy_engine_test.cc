// An engine added by this test alone (docs/engines.md, "How to add an
// engine"): the registry, the request path, the JSON request, the reports
// and the commands' hooks (memfit fit, POST /v1/fit) reach it with no
// other file knowing it.
#include <gtest/gtest.h>

#include <any>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "memfit/engine.h"
#include "memfit/model_spec.h"
#include "memfit/request.h"
#include "memfit/request_json.h"
#include "memfit/run_report.h"
#include "request/field_table.h"
#include "run_app.h"
#include "service/service_fixture.h"
#include "support/paths.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

// The toy prices weights twice over: its estimate is 2 x the weight bytes.
struct ToyEstimate {
  uint64_t total_bytes = 0;
  bool fits = false;
};

// It overrides no command hook: it answers no command but inspect and
// preflight generate.
class ToyProfile : public EngineProfile {
 public:
  std::string_view name() const override { return "toy"; }
  std::vector<std::string_view> aliases() const override { return {"toy-engine"}; }
  std::string_view summary() const override { return "twice the weights"; }
  std::string_view release() const override { return "toy 1.0"; }

  Status resolve(const EstimateRequest& r, PreparedRequest& p) const override {
    if (r.batch != 1) return Error::usage("batch", "the toy decodes one sequence");
    p.engine_settings = uint64_t{2};  // the multiplier
    return Status::Ok();
  }
  Status estimate(const EstimateRequest&, EstimateRun& run) const override {
    const uint64_t times = std::any_cast<uint64_t>(run.engine_settings);
    ToyEstimate e{times * run.model->weights.bytes, false};
    e.fits = e.total_bytes <= run.budget.budget_bytes;
    run.engine_estimate = e;
    return Status::Ok();
  }
  bool fits(const EstimateRun& run) const override {
    return std::any_cast<const ToyEstimate&>(run.engine_estimate).fits;
  }
  nlohmann::ordered_json report_json(const EstimateRun& run) const override {
    const auto& e = std::any_cast<const ToyEstimate&>(run.engine_estimate);
    return {{"engine", "toy"}, {"total_bytes", e.total_bytes}, {"fits", e.fits}};
  }
  std::string report_text(const EstimateRun& run) const override {
    return "toy: " + std::to_string(std::any_cast<const ToyEstimate&>(run.engine_estimate).total_bytes) +
           " B\n";
  }
};

// The toy with a fit hook: the most copies of the weights that fit the
// budget, floor(budget / weights); the solve option echoed ("copies" when
// not given).
class FitToyProfile final : public ToyProfile {
 public:
  std::string_view name() const override { return "fit-toy"; }
  std::vector<std::string_view> aliases() const override { return {}; }
  bool supports(EngineCommand command) const override { return command == EngineCommand::kFit; }
  Result<CommandAnswer> fit(const CommandQuery& query, PreparedRequest p) const override {
    const uint64_t copies = p.budget.budget_bytes / p.model->weights.bytes;
    CommandAnswer answer;
    answer.json = {{"engine", "fit-toy"},
                   {"solve", query.options.value("solve", "copies")},
                   {"copies", copies}};
    answer.text = "fit-toy: " + std::to_string(copies) + " copies of the weights fit\n";
    return answer;
  }
};

// Registers the toy for one test and removes it after.
class ToyEngineTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(EngineRegistry::instance().add(std::make_unique<ToyProfile>()).ok()); }
  void TearDown() override { EngineRegistry::instance().remove("toy"); }
};

// The same with the toy that has a fit hook beside it.
class FitToyTest : public ToyEngineTest {
 protected:
  void SetUp() override {
    ToyEngineTest::SetUp();
    ASSERT_TRUE(EngineRegistry::instance().add(std::make_unique<FitToyProfile>()).ok());
  }
  void TearDown() override {
    EngineRegistry::instance().remove("fit-toy");
    ToyEngineTest::TearDown();
  }
};

const std::string kExample = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";

struct CliRun {
  int exit_code = 0;
  std::string out;
  std::string err;
};

// The memfit command built and run in-process, as main() runs it.
CliRun run_memfit_in_process(std::vector<std::string> args) {
  CLI::App app;
  int exit_code = 0;
  cli::add_memfit_commands(app, exit_code);
  args.insert(args.begin(), "memfit");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  CliRun run;
  run.exit_code = cli::run_app(app, static_cast<int>(argv.size()), argv.data(), exit_code);
  run.out = ::testing::internal::GetCapturedStdout();
  run.err = ::testing::internal::GetCapturedStderr();
  return run;
}

HttpResponse post_fit(const nlohmann::json& body) {
  auto service = testing::make_service({testing::kExamplesRoot}, 16ull << 30);
  return service->handle("POST", "/v1/fit", body.dump());
}

// A model of 1 GiB of weights, opened by name whatever the name.
class OneModelContext : public RequestContext {
 public:
  OneModelContext() {
    model_.path = "m";
    model_.has_config = true;
    Result<ModelSpec> spec = parse_model_config(R"({
      "model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
      "num_attention_heads": 4, "num_key_value_heads": 4, "intermediate_size": 128,
      "vocab_size": 256})");
    EXPECT_TRUE(spec.ok());
    if (spec.ok()) model_.spec = *spec;
    model_.weights.bytes = 1ull << 30;
    model_.weights.source = WeightsSource::kSafetensorsHeader;
  }
  Result<std::shared_ptr<const Model>> open_model(const std::string&, const OpenModelOptions&) override {
    return std::shared_ptr<const Model>(std::make_shared<Model>(model_));
  }
  const MlxcelSettings& settings() const override { return settings_; }
  const std::vector<std::string>& settings_warnings() const override { return warnings_; }
  Platform platform() const override { return Platform{}; }
  HostMemoryStatus host_memory(const DeviceSelector&, std::optional<uint64_t> limit) override {
    HostMemoryStatus status;
    status.ram_total_bytes = status.budget_bytes = 64ull << 30;
    status.budget_source = BudgetSource::kMeminfoAvailable;
    if (limit) apply_explicit_limit(status, *limit);
    return status;
  }

 private:
  Model model_;
  MlxcelSettings settings_;
  std::vector<std::string> warnings_;
};

TEST_F(ToyEngineTest, TheRegistryFindsItByNameAndAliasIgnoringCase) {
  const EngineRegistry& registry = EngineRegistry::instance();
  ASSERT_NE(registry.find("TOY"), nullptr);
  EXPECT_EQ(registry.find("Toy-Engine")->name(), "toy");
  EXPECT_EQ(*parse_engine("toy"), "toy");
  // The built-in five come first, in their order, then the toy.
  std::vector<std::string_view> names;
  for (const EngineProfile* e : registry.all()) names.push_back(e->name());
  EXPECT_EQ(names, (std::vector<std::string_view>{"mlxcel", "llamacpp", "mlx-lm", "vllm", "sglang", "ollama", "toy"}));
  EXPECT_EQ(parse_engine("trtllm").error().message(),
            "'trtllm': expected auto, mlxcel, llamacpp, mlx-lm, vllm, sglang, ollama or toy");
  // A second engine of the same name (or alias) is refused.
  Status again = EngineRegistry::instance().add(std::make_unique<ToyProfile>());
  EXPECT_EQ(again.error().message(), "engine: 'toy-engine' is already an engine's name");
}

TEST_F(ToyEngineTest, RunPricesWithItAndTheReportsAreItsOwn) {
  OneModelContext context;
  EstimateRequest r;
  r.model = "m";
  r.engine = "toy";
  r.memory_limit_bytes = 3ull << 30;
  Result<EstimateRun> run = memfit::run(r, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  EXPECT_EQ(run->engine->name(), "toy");
  // 2 x 1 GiB = 2 GiB = 2,147,483,648 B within a 3 GiB limit.
  EXPECT_TRUE(run->fits());
  EXPECT_EQ(run_to_json(*run)["total_bytes"], 2147483648u);
  // The engine's text, with the line saying which engine priced it second.
  EXPECT_EQ(render_run_text(*run), "toy: 2147483648 B\npriced by toy: named by --engine\n");
  // 2 GiB past a 1.5 GiB limit.
  r.memory_limit_bytes = 3ull << 29;
  EXPECT_FALSE(memfit::run(r, context)->fits());
  // Its own checks are its own.
  r.batch = 2;
  EXPECT_EQ(memfit::run(r, context).error().message(), "batch: the toy decodes one sequence");
}

TEST_F(ToyEngineTest, TheJsonRequestTakesItsName) {
  Result<EstimateRequest> r = parse_estimate_request_json(R"({"model": "m", "engine": "Toy"})");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->engine, "toy");
}

TEST_F(ToyEngineTest, OtherEnginesFieldsAreRefusedNamingTheirEngine) {
  OneModelContext context;
  EstimateRequest r;
  r.model = "m";
  r.engine = "toy";
  r.vllm.block_size = 32;
  EXPECT_EQ(memfit::run(r, context).error().message(),
            "block_size: is a vLLM setting: give engine vllm");
}

TEST_F(FitToyTest, CommandsItDoesNotAnswerAreRefusedWithTheRegistrysLine) {
  const EngineRegistry& registry = EngineRegistry::instance();
  const EngineProfile& toy = *registry.find("toy");
  // fit is answered by mlxcel, llamacpp, vllm, ollama and the toy with the hook.
  EXPECT_EQ(registry.unsupported(toy, EngineCommand::kFit).message(),
            "engine: toy is not priced by fit; fit takes mlxcel, llamacpp, mlx-lm, vllm, sglang, ollama or fit-toy");
  EXPECT_EQ(registry.unsupported(*registry.find("vllm"), EngineCommand::kPlot).message(),
            "engine: vllm is not priced by plot; plot takes mlxcel, llamacpp or mlx-lm");
  // A hook not overridden answers with the same line.
  EstimateRequest r;
  const CommandQuery query{.front = CommandFront::kCli, .request = r, .options = {}};
  EXPECT_EQ(toy.plot(query, PreparedRequest{}).error().message(),
            "engine: toy is not priced by plot; plot takes mlxcel, llamacpp or mlx-lm");
}

TEST_F(ToyEngineTest, TheCliRefusesItsFitAndPlotWithTheRegistrysLine) {
  CliRun fit = run_memfit_in_process(
      {"fit", "-m", kExample, "--engine", "toy", "--solve", "max-tokens", "--memory-limit", "16GiB"});
  EXPECT_EQ(fit.exit_code, 2);
  EXPECT_EQ(fit.out, "");
  EXPECT_EQ(fit.err,
            "memfit: --engine: toy is not priced by fit; fit takes mlxcel, llamacpp, mlx-lm, vllm, sglang or ollama\n");
  TempDir dir;
  const std::string svg = dir.file_path("toy.svg");
  CliRun plot = run_memfit_in_process(
      {"plot", "-m", kExample, "--engine", "toy", "--memory-limit", "16GiB", "--out", svg});
  EXPECT_EQ(plot.exit_code, 2);
  EXPECT_EQ(plot.out, "");
  EXPECT_EQ(plot.err, "memfit: --engine: toy is not priced by plot; plot takes mlxcel, llamacpp or mlx-lm\n");
  EXPECT_FALSE(std::filesystem::exists(svg));
}

TEST_F(ToyEngineTest, TheServiceRefusesItsFitWithTheRegistrysLine) {
  HttpResponse r = post_fit({{"model", testing::kExampleModel}, {"engine", "toy"}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(testing::error_message(r),
            "engine: toy is not priced by fit; fit takes mlxcel, llamacpp, mlx-lm, vllm, sglang or ollama");
}

// The example's weights are 8,307,783,680 B (its index's total_size);
// a 16 GiB budget, 17,179,869,184 B, holds floor(17,179,869,184 /
// 8,307,783,680) = 2 copies (3 would take 24,923,351,040 B).
TEST_F(FitToyTest, ItsFitHookAnswersMemfitFit) {
  CliRun text = run_memfit_in_process({"fit", "-m", kExample, "--engine", "fit-toy", "--solve",
                                       "max-tokens", "--memory-limit", "16GiB"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out, "fit-toy: 2 copies of the weights fit\n");
  CliRun json = run_memfit_in_process({"fit", "-m", kExample, "--engine", "fit-toy", "--solve",
                                       "batch", "--memory-limit", "16GiB", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out, "{\n  \"engine\": \"fit-toy\",\n  \"solve\": \"batch\",\n  \"copies\": 2\n}\n");
}

TEST_F(FitToyTest, ItsFitHookAnswersPostV1Fit) {
  HttpResponse r = post_fit({{"model", testing::kExampleModel}, {"engine", "fit-toy"}});
  ASSERT_EQ(r.status, 200) << r.body;
  // "model" in front of the hook's object; no solve given.
  EXPECT_EQ(r.body, nlohmann::ordered_json({{"model", testing::kExampleModel},
                                            {"engine", "fit-toy"},
                                            {"solve", "copies"},
                                            {"copies", 2}})
                        .dump() +
                    "\n");
}

TEST_F(ToyEngineTest, GetV1EnginesListsIt) {
  // GET /v1/engines' body: the built-in six, then the toy with its facts.
  const nlohmann::ordered_json engines = request::engines_to_json()["engines"];
  ASSERT_EQ(engines.size(), 7u);
  EXPECT_EQ(engines[6]["name"], "toy");
  EXPECT_EQ(engines[6]["summary"], "twice the weights");
  EXPECT_EQ(engines[6]["release"], "toy 1.0");
  EXPECT_EQ(engines[6]["fields"], nlohmann::ordered_json::array());
}

TEST_F(ToyEngineTest, TheClisHelpNamesIt) {
  // The memfit command built in-process, as main() builds it.
  CLI::App app;
  int exit_code = 0;
  cli::add_memfit_commands(app, exit_code);
  const std::string help = app.get_subcommand("inspect")->help();
  EXPECT_NE(help.find("(docs/engines.md): mlxcel, llamacpp, mlx-lm, vllm, sglang, ollama or toy"),
            std::string::npos)
      << help;
}

TEST(EngineRegistry, DefaultsFollowTheModelsFormat) {
  Model gguf;
  gguf.weights.source = WeightsSource::kGgufHeader;
  Model safetensors;
  safetensors.weights.source = WeightsSource::kSafetensorsHeader;
  EXPECT_EQ(EngineRegistry::instance().default_for(gguf).name(), "llamacpp");
  EXPECT_EQ(EngineRegistry::instance().default_for(safetensors).name(), "mlxcel");
}

}  // namespace
}  // namespace memfit
