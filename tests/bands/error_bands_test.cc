// The band table (bands/error_bands.h; docs/validation-logs.md, "Error
// bands"): the embedded copy is the committed file, rows parse or are
// refused by line, and a band's note, JSON and margin are worked by hand
// from a small synthetic table.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "bands/embedded_bands.h"
#include "bands/error_bands.h"
#include "support/paths.h"

namespace memfit {
namespace {

// engine backend figure logs low high margin_90 margin_95 margin_99
const char kTable[] =
    "# a comment\n"
    "llamacpp\tCUDA\tcompute\t37\t0.9600\t1.0200\t0.0300\t0.0417\t0.0500\n"
    "llamacpp\tCUDA\tmodel\t4\t0.9000\t1.0000\t0.1000\t0.1111\t0.1111\n";

ErrorBandTable table() {
  Result<ErrorBandTable> t = parse_error_bands(kTable);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message());
  return t.ok() ? *t : ErrorBandTable{};
}

TEST(ErrorBands, TheEmbeddedTableIsTheCommittedFileAndParses) {
  std::ifstream in(std::string(MEMFIT_SOURCE_DIR) + "/data/bands/bands.tsv", std::ios::binary);
  std::stringstream file;
  file << in.rdbuf();
  EXPECT_EQ(bands::embedded_bands_tsv(), file.str());
  Result<const ErrorBandTable*> corpus = corpus_error_bands();
  ASSERT_TRUE(corpus.ok()) << corpus.error().message();
  for (const ErrorBandRow& row : **corpus) EXPECT_GT(row.logs, 0u) << row.engine << " " << row.figure;
}

TEST(ErrorBands, RowsReadTheirColumnsAndCommentsAreSkipped) {
  ErrorBandTable t = table();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].engine, "llamacpp");
  EXPECT_EQ(t[0].backend, "CUDA");
  EXPECT_EQ(t[0].figure, "compute");
  EXPECT_EQ(t[0].logs, 37u);
  EXPECT_DOUBLE_EQ(t[0].low, 0.96);
  EXPECT_DOUBLE_EQ(t[0].margin_95, 0.0417);
}

TEST(ErrorBands, ABadRowIsRefusedByLine) {
  Result<ErrorBandTable> short_row = parse_error_bands("# c\nllamacpp\tCPU\tmodel\t5\t0.9\t1.0\t0\t0\n");
  ASSERT_FALSE(short_row.ok());
  EXPECT_EQ(short_row.error().message(), "band table: line 2: 8 fields, a row has 9");
  Result<ErrorBandTable> inverted = parse_error_bands("llamacpp\tCPU\tmodel\t5\t1.1\t1.0\t0\t0\t0\n");
  ASSERT_FALSE(inverted.ok());
  EXPECT_EQ(inverted.error().message(), "band table: line 1: low is above high");
  Result<ErrorBandTable> falling = parse_error_bands("llamacpp\tCPU\tmodel\t5\t0.9\t1.0\t0.2\t0.1\t0.3\n");
  ASSERT_FALSE(falling.ok());
  EXPECT_EQ(falling.error().message(),
            "band table: line 1: the margins are negative or fall as the level rises");
}

TEST(ErrorBands, ABandOfFiveLogsOrMoreIsPrintedWithItsMargin) {
  // 37 logs: low 0.96 is -4.0 %, high 1.02 is +2.0 %. At 95 % the margin
  // is 0.0417 of memfit's 2,000,000,000 B: 2e9 x 417 / 10,000 = 83,400,000 B.
  FigureBand b = band_for(table(), "llamacpp", "CUDA", "compute", 2000000000, 95);
  EXPECT_EQ(b.logs, 37u);
  ASSERT_TRUE(b.low && b.high && b.margin);
  EXPECT_DOUBLE_EQ(*b.margin, 0.0417);
  EXPECT_EQ(b.margin_bytes, 83400000u);
  EXPECT_EQ(band_note(b, 95), "-4.0 % to +2.0 % over 37 CUDA logs, +4.17 % at 95 % confidence");
  // 90 %: 0.03 x 1,000,001 B = 30,000.03, rounded up: 30,001 B.
  EXPECT_EQ(band_for(table(), "llamacpp", "CUDA", "compute", 1000001, 90).margin_bytes, 30001u);
  // Without --confidence: the band, no margin.
  FigureBand plain = band_for(table(), "llamacpp", "CUDA", "compute", 2000000000, 0);
  EXPECT_FALSE(plain.margin);
  EXPECT_EQ(plain.margin_bytes, 0u);
  EXPECT_EQ(band_note(plain, 0), "-4.0 % to +2.0 % over 37 CUDA logs");
}

TEST(ErrorBands, FewerThanFiveLogsSaySoAndAddNothing) {
  FigureBand four = band_for(table(), "llamacpp", "CUDA", "model", 1000, 95);
  EXPECT_EQ(four.logs, 4u);
  EXPECT_FALSE(four.low);
  EXPECT_EQ(four.margin_bytes, 0u);
  EXPECT_EQ(band_note(four, 95), "fewer than 5 CUDA logs (4)");
  FigureBand none = band_for(table(), "llamacpp", "ROCm", "compute", 1000, 95);
  EXPECT_EQ(none.logs, 0u);
  EXPECT_EQ(band_note(none, 95), "fewer than 5 ROCm logs (0)");
}

TEST(ErrorBands, TheReportListsEveryModelledFigureAndSumsTheMargins) {
  ScopedErrorBandTable synthetic(table());
  // compute 1,000,000 B x 0.0417 = 41,700 B; model has 4 logs: nothing.
  Result<ReportBands> bands = report_bands("llamacpp", "CUDA", {{"model", 5000}, {"compute", 1000000}}, 95);
  ASSERT_TRUE(bands.ok());
  EXPECT_EQ(bands->margin_bytes, 41700u);
  EXPECT_EQ(confidence_note(*bands), "the corpus's margin on compute; none for model (fewer than 5 logs)");
  EXPECT_EQ(with_band("modelled", *bands, "compute"),
            "modelled, -4.0 % to +2.0 % over 37 CUDA logs, +4.17 % at 95 % confidence");
  EXPECT_EQ(with_band("exact", *bands, "output"), "exact");
  nlohmann::ordered_json j;
  add_report_bands(j, *bands);
  EXPECT_EQ(j["bands"][0]["basis"], "fewer than 5 logs");
  EXPECT_TRUE(j["bands"][0]["low"].is_null());
  EXPECT_EQ(j["bands"][1]["basis"], "min/max over the corpus");
  EXPECT_EQ(j["bands"][1]["low"], 0.96);
  EXPECT_EQ(j["bands"][1]["margin_bytes"], 41700u);
  EXPECT_EQ(j["confidence"]["level"], 95u);
  EXPECT_EQ(j["confidence"]["margin_bytes"], 41700u);
}

TEST(ErrorBands, AResidueShowsItsBandAndTakesNoMargin) {
  ScopedErrorBandTable synthetic(table());
  Result<ReportBands> bands = report_bands("llamacpp", "CUDA", {{"compute", 1000000, false}}, 95);
  ASSERT_TRUE(bands.ok());
  EXPECT_EQ(bands->margin_bytes, 0u);
  EXPECT_EQ(confidence_note(*bands), "nothing added; compute is what is left");
}

}  // namespace
}  // namespace memfit
