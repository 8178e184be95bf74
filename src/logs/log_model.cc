// The model of a logged run, when no model is named: rebuilt from a
// llama.cpp log's metadata dump (model_from_log, log_check.h), or read
// from a config.json given beside the log, through open_model on a file
// system that holds that one file, so a config-only model is priced by the
// loader's own rules (docs/weights.md: weights from the config).
#include "logs/log_model.h"

#include <fmt/format.h>

#include <algorithm>

#include "memfit/checked_math.h"
#include "memfit/memory_size.h"
#include "memfit/model_spec.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

constexpr std::string_view kConfigDir = "/log-config";

// A folder holding one config.json: the text given beside the log.
class ConfigOnlyFileSystem final : public FileSystem {
 public:
  explicit ConfigOnlyFileSystem(std::string_view config) : config_(config) {}

  Result<FileStat> stat(const std::string& path) override {
    if (path == kConfigDir) return FileStat{FileKind::kDirectory, 0};
    if (path == config_path()) return FileStat{FileKind::kRegular, config_.size()};
    return FileStat{};
  }
  Result<std::string> read_range(const std::string& path, uint64_t offset_bytes,
                                 uint64_t length_bytes) override {
    if (path != config_path() || offset_bytes > config_.size() ||
        length_bytes > config_.size() - offset_bytes) {
      return Error(quote_untrusted(path) + ": no such file");
    }
    return config_.substr(offset_bytes, length_bytes);
  }
  Result<std::vector<std::string>> list_dir(const std::string& path) override {
    if (path != kConfigDir) return Error(quote_untrusted(path) + ": no such folder");
    return std::vector<std::string>{"config.json"};
  }

 private:
  static std::string config_path() { return std::string(kConfigDir) + "/config.json"; }
  std::string config_;
};

// Why the dump cannot rebuild the model; "" when it can.
std::string incomplete_dump(const LogModel& m) {
  if (!m.metadata_count || m.metadata.empty()) {
    return "the log holds no metadata dump (llama_model_loader: - kv lines)";
  }
  if (*m.metadata_count != m.metadata.size()) {
    return fmt::format("the metadata dump is cut: {} of the {} entries the loader announced",
                       m.metadata.size(), *m.metadata_count);
  }
  if (!m.file_bytes) return "the log prints no file size (print_info: file size)";
  if (!m.metadata_complete()) {
    return "the tensor counts by type do not add up to the tensors the loader announced";
  }
  return "";
}

}  // namespace

Result<Model> model_from_log(const LogModel& m) {
  if (std::string why = incomplete_dump(m); !why.empty()) return Error(why);
  GgufHeader header;
  header.metadata = m.metadata;
  Result<ModelSpec> spec = model_spec_from_gguf(header);
  if (!spec) {
    std::string cut;
    for (const std::string& key : m.cut_keys) {
      if (spec.error().message().find(key) != std::string::npos) cut = key;
    }
    if (!cut.empty()) {
      return Error(fmt::format("the metadata dump cut {} short: {}", quote_untrusted(cut),
                               spec.error().message()));
    }
    return spec.error().within("the log's metadata");
  }
  Model model;
  model.path = m.name;
  model.has_config = true;
  model.spec = std::move(*spec);
  model.weights.bytes = m.file_bytes->value;
  model.weights.source = WeightsSource::kGgufHeader;
  model.weights.verified = false;  // rounded as printed
  model.weights.file_count = 1;
  model.weights.tensor_count = m.tensor_count.value_or(0);
  model.warnings.push_back(fmt::format(
      "{} {} (+- {} bytes as printed), with no tensor list: "
      "the weights per device are spread by blocks (modelled)",
      logs::kSpreadWarning, escape_untrusted(m.file_size_text), m.file_bytes->band));
  return model;
}

namespace logs {

Result<Model> model_from_config(std::string_view config_json) {
  if (config_json.size() > kMaxConfigBytes) {
    return Error(fmt::format("config: {} bytes is larger than the {} bytes a config may have",
                             config_json.size(), kMaxConfigBytes));
  }
  ConfigOnlyFileSystem fs(config_json);
  Result<Model> model = open_model(fs, std::string(kConfigDir));
  if (!model) return model.error().within("the config given beside the log");
  model->path = "config.json";
  return model;
}

}  // namespace logs
}  // namespace memfit
