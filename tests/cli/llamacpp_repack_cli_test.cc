// `memfit inspect --engine llamacpp --repack ...` on a GGUF file: the
// repacked copies come from the file's tensor list (the model is reopened
// with it), in the JSON's llamacpp object and as a text row.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/gguf_writer.h"
#include "support/run_command.h"

namespace memfit {
namespace {

namespace fs = std::filesystem;
using testing::run_memfit;

const std::map<std::string, std::string> k64GiBLlamacppRepackCli = {{"MEMFIT_MEMORY_LIMIT", "64GiB"}};

// One qwen3 block of hidden 256 and a tied q4_0 embedding of 1000 rows:
//   token_embd   q4_0 [256, 1000]: 8 blocks x 18 B = 144 B a row, 144,000 B
//   attn_q       q4_K [256, 256]:  1 block x 144 B = 144 B a row, 36,864 B
//   ffn_up       q8_0 [256, 768]:  8 blocks x 34 B = 272 B a row, 208,896 B
// mapped: 144,000 + 36,864 + 208,896 = 389,760 B.
class RepackCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "memfit-repack-XXXXXX").string();
    dir_ = mkdtemp(templ.data());
    path_ = dir_ + "/tiny-qwen3.gguf";
    GgufWriter w;
    w.add_string("general.architecture", "qwen3")
        .add_u32("qwen3.block_count", 1)
        .add_u32("qwen3.context_length", 4096)
        .add_u32("qwen3.embedding_length", 256)
        .add_u32("qwen3.feed_forward_length", 768)
        .add_u32("qwen3.attention.head_count", 4)
        .add_u32("qwen3.attention.head_count_kv", 2)
        .add_u32("qwen3.attention.key_length", 64)
        .add_u32("qwen3.attention.value_length", 64)
        .add_u32("qwen3.vocab_size", 1000)
        .add_tensor("token_embd.weight", GgmlType::kQ4_0, {256, 1000})
        .add_tensor("blk.0.attn_q.weight", GgmlType::kQ4_K, {256, 256})
        .add_tensor("blk.0.ffn_up.weight", GgmlType::kQ8_0, {256, 768});
    w.write(path_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  nlohmann::json inspect(const std::string& repack) {
    auto r = run_memfit({"inspect", "-m", path_, "--engine", "llamacpp", "--ctx-size", "4096",
                         "--repack", repack, "--json"},
                        k64GiBLlamacppRepackCli);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

  std::string dir_;
  std::string path_;
};

TEST_F(RepackCli, X86Avx2RepacksTheQ4WeightsAndTheTiedOutput) {
  nlohmann::json j = inspect("x86-avx2");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["inputs"]["repack"], "x86-avx2");
  EXPECT_EQ(j["weights_bytes"], 389760u);
  EXPECT_EQ(j["llamacpp"]["mapped_bytes"], 389760u);
  // q4_K attn_q 36,864 + the tied output (token_embd's q4_0) 144,000 = 180,864.
  EXPECT_EQ(j["llamacpp"]["repack_bytes"], 180864u);
  EXPECT_EQ(j["llamacpp"]["model_bytes"], 570624u);  // 389,760 + 180,864
  EXPECT_EQ(j["total_bytes"].get<uint64_t>(),
            j["llamacpp"]["model_bytes"].get<uint64_t>() + j["llamacpp"]["context_bytes"].get<uint64_t>() +
                j["llamacpp"]["compute_bytes"].get<uint64_t>());
}

TEST_F(RepackCli, ArmAddsQ8_0AndNoneRepacksNothing) {
  // 180,864 + q8_0 ffn_up 208,896 = 389,760.
  EXPECT_EQ(inspect("arm")["llamacpp"]["repack_bytes"], 389760u);
  nlohmann::json none = inspect("none");
  EXPECT_EQ(none["llamacpp"]["repack_bytes"], 0u);
  EXPECT_EQ(none["llamacpp"]["model_bytes"], 389760u);
}

TEST_F(RepackCli, TextReportShowsBothFigures) {
  auto r = run_memfit({"inspect", "-m", path_, "--engine", "llamacpp", "--repack", "x86-avx2"}, k64GiBLlamacppRepackCli);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 389,760 B = 380.6 KiB; 180,864 B = 176.6 KiB; 570,624 B = 557.2 KiB.
  EXPECT_NE(r.out.find("    Mapped weights         380.6 KiB   CPU_Mapped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    Repacked copies        176.6 KiB   CPU_REPACK (x86-avx2)\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("        repack x86-avx2\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace memfit
