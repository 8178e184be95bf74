// The log corpus replayed (tests/data/logs/, docs/validation-logs.md):
// every log is read and checked; every priced figure has its row in
// tests/data/logs/expected.tsv and its error |ratio - 1| stays within the
// row's plus the row's tolerance, so a rule that makes a figure worse
// fails here. scripts/gen-validation-logs.py --update-expected rewrites
// the rows (a rule that makes them better is committed with them).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <tuple>

#include <nlohmann/json.hpp>

#include "logs/log_test_data.h"
#include "memfit/log_check.h"
#include "support/tsv.h"

namespace memfit {
namespace {

namespace fs = std::filesystem;
using Key = std::tuple<std::string, std::string, std::string>;  // slug, device, figure

struct Expected {
  double ratio = 0;
  double tolerance = 0;
  bool seen = false;
};

std::map<Key, Expected> expectations() {
  std::map<Key, Expected> rows;
  for (const auto& row : testing::read_tsv("logs/expected.tsv", 7)) {
    rows[{row[0], row[1], row[2]}] = Expected{std::stod(row[5]), std::stod(row[6])};
  }
  return rows;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// What the sidecar gives that a log may not print; the same as
// scripts/gen-validation-logs.py's replay_options.
LogCheckOptions replay_options(const std::string& engine, const fs::path& log) {
  LogCheckOptions options;
  fs::path config = log;
  config.replace_extension(".config.json");
  if (fs::exists(config)) options.config_json = read_file(config);
  fs::path sidecar_path = log;
  sidecar_path.replace_extension(".json");
  const nlohmann::json sidecar = nlohmann::json::parse(read_file(sidecar_path), nullptr, false);
  if (!sidecar.is_object()) return options;
  static const std::regex kVersion(R"(^v?\d+\.\d+(\.\d+)*$|^b\d+$)");
  if (sidecar.contains("version") && sidecar["version"].is_string() &&
      std::regex_match(sidecar["version"].get<std::string>(), kVersion)) {
    options.version = sidecar["version"];
  }
  if (sidecar.contains("command") && sidecar["command"].is_string()) {
    options.command = sidecar["command"];
  }
  if (sidecar.contains("gguf_file_type") && sidecar["gguf_file_type"].is_string()) {
    options.file_type = sidecar["gguf_file_type"];
  }
  // An MLX checkpoint rebuilt from its base config: mlx_lm.convert's bits
  // and group size, as the MLX weight mode "<bits>bit-g<group>".
  if (sidecar.contains("mlx_convert") && sidecar["mlx_convert"].is_object()) {
    const nlohmann::json& c = sidecar["mlx_convert"];
    if (c.contains("bits") && c["bits"].is_number_unsigned() && c.contains("group_size") &&
        c["group_size"].is_number_unsigned()) {
      options.file_type = std::to_string(c["bits"].get<uint64_t>()) + "bit-g" +
                          std::to_string(c["group_size"].get<uint64_t>());
      // A conversion under an MLX before v0.11.0: Linear layers only.
      if (c.contains("quantize_embeddings") && c["quantize_embeddings"].is_boolean() &&
          !c["quantize_embeddings"].get<bool>()) {
        options.file_type += "-linear-only";
      }
    }
  }
  if ((engine == "vllm" || engine == "sglang" || engine == "mlx-lm") && sidecar.contains("devices") && sidecar["devices"].is_array() &&
      !sidecar["devices"].empty() && sidecar["devices"][0].is_string()) {
    options.gpu_name = sidecar["devices"][0];
  }
  return options;
}

TEST(LogReplay, EveryLogIsReadAndNoPricedFigureGetsWorse) {
  std::map<Key, Expected> expected = expectations();
  size_t logs = 0, priced = 0;
  for (const std::string engine : {"llamacpp", "ollama", "vllm", "sglang", "mlx-lm"}) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(testing::logs_dir() + "/" + engine)) {
      if (entry.path().extension() == ".log") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      ++logs;
      const std::string slug = file.stem().string();
      Result<LogCheck> c = check_log(read_file(file), replay_options(engine, file), nullptr);
      ASSERT_TRUE(c.ok()) << slug << ": " << c.error().message();
      for (const FigureCheck& f : c->figures) {
        if (!f.ratio) continue;
        ++priced;
        const Key key{slug, f.printed.device, std::string(to_string(f.printed.figure))};
        auto row = expected.find(key);
        if (row == expected.end()) {
          ADD_FAILURE() << slug << " " << f.printed.device << " " << to_string(f.printed.figure)
                        << ": priced (ratio " << *f.ratio << ") but not in expected.tsv";
          continue;
        }
        row->second.seen = true;
        const double allowed = std::fabs(row->second.ratio - 1) + row->second.tolerance;
        EXPECT_LE(std::fabs(*f.ratio - 1), allowed)
            << slug << " " << f.printed.device << " " << to_string(f.printed.figure) << ": ratio "
            << *f.ratio << ", expected.tsv has " << row->second.ratio;
      }
    }
  }
  for (const auto& [key, row] : expected) {
    EXPECT_TRUE(row.seen) << std::get<0>(key) << " " << std::get<1>(key) << " " << std::get<2>(key)
                          << ": in expected.tsv but no longer priced";
  }
  EXPECT_GE(logs, 100u);
  EXPECT_GT(priced, 0u);
}

}  // namespace
}  // namespace memfit
