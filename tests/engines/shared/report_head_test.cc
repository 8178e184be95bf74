// What every engine's report shares (engines/shared/report_head.h): JSON head and
// tail, the text heading, a figure's row (format_bytes' rounding) and the verdict.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "engines/shared/report_head.h"
#include "memfit/mlxcel_report.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::testing::ElementsAre;
using Json = nlohmann::ordered_json;

constexpr uint64_t kMiB = 1ull << 20;
using ::memfit::testing::kGiB;

Model tiny_model() {
  Model m;
  m.path = "models/tiny";
  m.spec.model_type = "llama";
  m.spec.family = "llama";
  m.spec.layout = "standard";
  m.spec.assumptions = {"rope_theta 10000 (default)"};
  return m;
}

std::vector<std::string> keys_of(const Json& j) {
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  return keys;
}

std::string row(std::string_view label, uint64_t bytes, std::string_view note = "") {
  std::string out;
  report_row(out, label, bytes, note);
  return out;
}

TEST(ReportHead, JsonHeadHasTheSixFieldsInOrder) {
  Json j = report_head(tiny_model(), "llamacpp");
  EXPECT_THAT(keys_of(j),
              ElementsAre("memfit_version", "model", "model_type", "family", "layout", "engine"));
  EXPECT_EQ(j["memfit_version"], std::string(memfit_version()));
  EXPECT_EQ(j["model"], "models/tiny");
  EXPECT_EQ(j["model_type"], "llama");
  EXPECT_EQ(j["family"], "llama");
  EXPECT_EQ(j["layout"], "standard");
  EXPECT_EQ(j["engine"], "llamacpp");
  // Another engine, another model: the fields follow.
  Model other = tiny_model();
  other.path = "x/gemma";
  other.spec.layout = "sliding_window";
  Json k = report_head(other, "vllm");
  EXPECT_EQ(k["model"], "x/gemma");
  EXPECT_EQ(k["layout"], "sliding_window");
  EXPECT_EQ(k["engine"], "vllm");
}

TEST(ReportHead, JsonKeepsUntrustedNamesVerbatim) {
  // JSON escapes for itself: the path's newline is one character of the
  // string, not the two-character "\n" the text report writes.
  Model m = tiny_model();
  m.path = "a\nb";
  Json j = report_head(m, "mlxcel");
  EXPECT_EQ(j["model"].get<std::string>(), std::string("a\nb"));
  EXPECT_EQ(j.dump().find("\"model\":\"a\\nb\"") != std::string::npos, true);
}

TEST(ReportHead, WarningTextsAreTheTextsInOrder) {
  std::vector<Warning> warnings = {{WarningKind::kModel, "first"},
                                   {WarningKind::kAvailableNow, "WARNING: memory available now"}};
  EXPECT_EQ(warning_texts(warnings).dump(), R"(["first","WARNING: memory available now"])");
  EXPECT_EQ(warning_texts({}).dump(), "[]");  // an array, never null
}

TEST(ReportHead, TailAndBudgetFieldsInOrder) {
  const MemoryBudget budget{8 * kGiB, 16 * kGiB, BudgetSource::kCgroup};
  std::vector<Warning> warnings = {{WarningKind::kHost, "no GPU library"}};
  Json j;
  add_report_tail(j, tiny_model(), budget, 8 * kGiB, 5 * kGiB, true, warnings);
  EXPECT_THAT(keys_of(j), ElementsAre("budget_bytes", "budget_source", "total_bytes", "fits",
                                      "assumptions", "warnings"));
  EXPECT_EQ(j["budget_bytes"], 8589934592u);  // 8 x 2^30
  EXPECT_EQ(j["budget_source"], "cgroup");
  EXPECT_EQ(j["total_bytes"], 5368709120u);  // 5 x 2^30
  EXPECT_EQ(j["fits"], true);
  EXPECT_EQ(j["assumptions"].dump(), R"j(["rope_theta 10000 (default)"])j");
  EXPECT_EQ(j["warnings"].dump(), R"(["no GPU library"])");

  // The budget figure is the engine's argument, not budget.budget_bytes.
  Json k;
  add_report_budget(k, budget, 3 * kGiB, 4 * kGiB, false);
  EXPECT_THAT(keys_of(k), ElementsAre("budget_bytes", "budget_source", "total_bytes", "fits"));
  EXPECT_EQ(k["budget_bytes"], 3221225472u);  // 3 x 2^30
  EXPECT_EQ(k["total_bytes"], 4294967296u);   // 4 x 2^30
  EXPECT_EQ(k["fits"], false);

  Json t;
  add_report_tail(t, tiny_model(), {});
  EXPECT_THAT(keys_of(t), ElementsAre("assumptions", "warnings"));
  EXPECT_EQ(t["warnings"].dump(), "[]");
}

TEST(ReportHead, TextHeadNamesTheEngineOnlyWhenGiven) {
  const std::string v(memfit_version());
  EXPECT_EQ(report_text_head(tiny_model(), "vllm"),
            fmt::format("memfit {} — models/tiny (engine vllm)\n"
                        "model_type llama, family llama, layout standard\n",
                        v));
  EXPECT_EQ(report_text_head(tiny_model(), ""),
            fmt::format("memfit {} — models/tiny\n"
                        "model_type llama, family llama, layout standard\n",
                        v));
}

TEST(ReportHead, TextHeadSaysWhatIsMissingAndEscapesNames) {
  Model m = tiny_model();
  m.spec.model_type = "";
  m.spec.layout = "";
  m.spec.family = "fam\x1b[31m";
  m.path = "dir\nFITS";  // a forged verdict line stays on the heading line
  EXPECT_EQ(report_text_head(m, "mlx-lm"),
            fmt::format("memfit {} — dir\\nFITS (engine mlx-lm)\n"
                        "model_type (none), family fam\\x1b[31m, layout (unknown)\n",
                        memfit_version()));
  // A long path is escaped whole, never cut (300 bytes in, 300 out).
  m.path = std::string(300, 'p');
  EXPECT_NE(report_text_head(m, "").find(std::string(300, 'p') + "\n"), std::string::npos);
}

// The config's names are escaped, never cut (the header's contract).
TEST(ReportHead, TextHeadDoesNotCutALongModelType) {
  Model m = tiny_model();
  m.spec.model_type = std::string(250, 't');
  EXPECT_NE(report_text_head(m, "").find("model_type " + std::string(250, 't') + ","),
            std::string::npos);
}

TEST(ReportHead, RowIsLabelPaddedTo22ThenBytesRightAlignedIn12) {
  // "  " + label to 22 columns + the figure right-aligned in 12.
  EXPECT_EQ(row("Weights", 3 * kGiB + 512 * kMiB, "exact"),
            "  Weights                   3.50 GiB   exact\n");  // 3.5 x 2^30
  EXPECT_EQ(row("Total", 0), "  Total                          0 B\n");  // no note: no spaces after
  EXPECT_EQ(row("Budget", 24 * kGiB, "explicit"),
            "  Budget                   24.00 GiB   explicit\n");
  // Changing the bytes changes the figure, and only it.
  EXPECT_EQ(row("Budget", 25 * kGiB, "explicit"),
            "  Budget                   25.00 GiB   explicit\n");
}

TEST(ReportHead, RowFiguresRoundAtTheUnitBoundaries) {
  // Below 1 KiB whole bytes; KiB and MiB one decimal; GiB and up two.
  EXPECT_EQ(row("x", 1023), "  x                           1023 B\n");
  EXPECT_EQ(row("x", 1024), "  x                          1.0 KiB\n");
  EXPECT_EQ(row("x", kMiB), "  x                          1.0 MiB\n");
  EXPECT_EQ(row("x", 1536 * 1024), "  x                          1.5 MiB\n");  // 1.5 x 2^20
  EXPECT_EQ(row("x", kGiB), "  x                         1.00 GiB\n");
  // 1 GiB + 5 MiB = 1.0048828125 GiB rounds down, + 6 MiB = 1.005859375 up.
  EXPECT_EQ(row("x", kGiB + 5 * kMiB), "  x                         1.00 GiB\n");
  EXPECT_EQ(row("x", kGiB + 6 * kMiB), "  x                         1.01 GiB\n");
  // 2 GiB - 1 MiB = 1.9990234375 GiB shows as 2.00 GiB.
  EXPECT_EQ(row("x", 2 * kGiB - kMiB), "  x                         2.00 GiB\n");
  EXPECT_EQ(row("x", 1ull << 40), "  x                         1.00 TiB\n");
  // One byte short of a unit stays in the smaller one, rounded up to 1024:
  // 2^30 - 1 = 1023.999999 MiB.
  EXPECT_EQ(row("x", kGiB - 1), "  x                       1024.0 MiB\n");
}

TEST(ReportHead, VerdictFitsWithWhatIsLeft) {
  // 5.25 GiB of 8 GiB: 2.75 GiB to spare.
  EXPECT_EQ(report_verdict(true, 5 * kGiB + 256 * kMiB, 8 * kGiB),
            "\nFITS: 5.25 GiB of 8.00 GiB (2.75 GiB to spare)\n");
  // Exactly the budget fits, with nothing to spare.
  EXPECT_EQ(report_verdict(true, 8 * kGiB, 8 * kGiB), "\nFITS: 8.00 GiB of 8.00 GiB (0 B to spare)\n");
  EXPECT_EQ(report_verdict(true, 0, 0), "\nFITS: 0 B of 0 B (0 B to spare)\n");
}

TEST(ReportHead, VerdictDoesNotFitWithTheShortfall) {
  // 9 GiB + 512 MiB against 8 GiB: 1.50 GiB short.
  EXPECT_EQ(report_verdict(false, 9 * kGiB + 512 * kMiB, 8 * kGiB),
            "\nDOES NOT FIT: 9.50 GiB needed, 8.00 GiB available (1.50 GiB short)\n");
  // A zero budget (nothing readable): the whole total is short.
  EXPECT_EQ(report_verdict(false, 3 * kGiB, 0),
            "\nDOES NOT FIT: 3.00 GiB needed, 0 B available (3.00 GiB short)\n");
  // One byte over.
  EXPECT_EQ(report_verdict(false, 8 * kGiB + 1, 8 * kGiB),
            "\nDOES NOT FIT: 8.00 GiB needed, 8.00 GiB available (1 B short)\n");
}

}  // namespace
}  // namespace memfit
