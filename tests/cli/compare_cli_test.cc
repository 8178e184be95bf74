// `inspect --compare` on a model one engine cannot price: that engine's row
// says why, and the others are still priced.
#include <gtest/gtest.h>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

TEST(CompareCli, AnEncoderIsRefusedOnSglangsRowAlone) {
  // all-MiniLM-L6-v2's geometry: a BERT encoder keeps no KV cache, so
  // SGLang's pool has no cell to size; before, its error failed the whole
  // comparison.
  TempDir dir;
  dir.write_file("config.json", R"({"architectures": ["BertModel"], "model_type": "bert",
      "hidden_size": 384, "num_hidden_layers": 6, "num_attention_heads": 12,
      "intermediate_size": 1536, "vocab_size": 30522, "max_position_embeddings": 512})");
  auto r = run_memfit({"inspect", "-m", dir.path(), "--compare", "--gpu", "h100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  sglang    refused: engine: sglang: the model has no attention layer whose "
                       "KV pool SGLang sizes (an encoder, or state layers only): price it with "
                       "another engine (vllm, llamacpp)\n"),
            std::string::npos)
      << r.out;
  // vLLM: the weights, activation, non-torch and the CUDA graphs (an H100's
  // 1,024 sequences: 51 + 51 graphs x 6 layers x 256 KiB = 153 MiB).
  EXPECT_NE(r.out.find("  vllm        436.4 MiB of   79.65 GiB  FITS"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace memfit
