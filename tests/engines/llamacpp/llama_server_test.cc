// llama-server's own rules (llama_server.h): the defaults it applies where
// the other tools' differ, and its command line for a setting.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memfit/llama_server.h"

namespace memfit {
namespace {

using Flags = std::vector<std::string>;

ModelSpec trained_for(uint64_t tokens) {
  ModelSpec spec;
  spec.max_position_tokens = tokens;
  return spec;
}

TEST(LlamaServerRules, ParallelAutoIsFourSlotsSharingOneCache) {
  LlamaCppSettings s;
  s.ctx_size = 16384;
  ASSERT_TRUE(apply_llama_server_rules(trained_for(40960), false, s).ok());
  EXPECT_EQ(s.parallel, 4u);
  EXPECT_TRUE(s.kv_unified);
  EXPECT_EQ(s.ctx_size, 16384u);  // a context given is kept
}

TEST(LlamaServerRules, AGivenParallelKeepsACacheEach) {
  LlamaCppSettings s;
  s.ctx_size = 16384;
  s.parallel = 2;
  ASSERT_TRUE(apply_llama_server_rules(trained_for(40960), true, s).ok());
  EXPECT_EQ(s.parallel, 2u);
  EXPECT_FALSE(s.kv_unified);
}

TEST(LlamaServerRules, ContextZeroIsTheTrainingContextForEachStream) {
  // A cache each: 3 streams x 40,960.
  LlamaCppSettings s;
  s.parallel = 3;
  ASSERT_TRUE(apply_llama_server_rules(trained_for(40960), true, s).ok());
  EXPECT_EQ(s.ctx_size, 122880u);
  // One unified cache (auto, or --kv-unified): one stream.
  LlamaCppSettings unified;
  ASSERT_TRUE(apply_llama_server_rules(trained_for(40960), false, unified).ok());
  EXPECT_EQ(unified.ctx_size, 40960u);
  // From v0.5.0 (b11300 taken; common/fit.cpp's n_ctx_max = n_ctx_train x
  // n_seq_max) the unified cache of the 4 auto slots holds 4 x 40,960 =
  // 163,840; b11299 keeps one stream's 40,960.
  LlamaCppSettings v050;
  v050.build = 11300;
  ASSERT_TRUE(apply_llama_server_rules(trained_for(40960), false, v050).ok());
  EXPECT_EQ(v050.ctx_size, 163840u);
  LlamaCppSettings v040;
  v040.build = 11299;
  ASSERT_TRUE(apply_llama_server_rules(trained_for(40960), false, v040).ok());
  EXPECT_EQ(v040.ctx_size, 40960u);
  // No training context: 0 stays (the estimate names ctx_size).
  LlamaCppSettings none;
  ASSERT_TRUE(apply_llama_server_rules(trained_for(0), false, none).ok());
  EXPECT_EQ(none.ctx_size, 0u);
  // 2^62 x 4 streams passes 64 bits.
  LlamaCppSettings huge;
  huge.parallel = 4;
  Status overflow = apply_llama_server_rules(trained_for(1ull << 62), true, huge);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.error().kind(), ErrorKind::kOverflow);
}

TEST(LlamaServerRules, TheContextReservesOneOutputRowASlot) {
  // llama.cpp #23861 (server_n_outputs_max): the slots times one row, the
  // auto four or the -np given.
  LlamaCppSettings automatic;
  automatic.ctx_size = 16384;
  ASSERT_TRUE(apply_llama_server_rules(trained_for(40960), false, automatic).ok());
  EXPECT_EQ(automatic.outputs_max, 4u);
  LlamaCppSettings one;
  one.ctx_size = 16384;
  ASSERT_TRUE(apply_llama_server_rules(trained_for(40960), true, one).ok());
  EXPECT_EQ(one.outputs_max, 1u);
  // --embedding: every token is an output, n_batch (0 here).
  LlamaCppSettings embedding;
  embedding.ctx_size = 16384;
  embedding.embedding = true;
  ASSERT_TRUE(apply_llama_server_rules(trained_for(40960), true, embedding).ok());
  EXPECT_EQ(embedding.outputs_max, 0u);
  // A draft model: its --draft-max is not an input, so every row.
  LlamaCppSettings draft;
  draft.ctx_size = 16384;
  draft.extras.draft_path = "draft.gguf";
  ASSERT_TRUE(apply_llama_server_rules(trained_for(40960), true, draft).ok());
  EXPECT_EQ(draft.outputs_max, 0u);
}

TEST(LlamaServerFlags, ContextAndSequencesAlwaysThenWhatDiffers) {
  LlamaCppSettings s;
  s.ctx_size = 8192;
  EXPECT_EQ(llama_server_flags(trained_for(40960), s), (Flags{"-c", "8192", "-np", "1"}));
  // -c 0 is written as the training context.
  s.ctx_size = 0;
  EXPECT_EQ(llama_server_flags(trained_for(40960), s), (Flags{"-c", "40960", "-np", "1"}));
  s.ctx_size = 8192;
  s.parallel = 4;
  s.batch_size = 1024;
  s.ubatch_size = 256;
  s.cache_type_k = GgmlType::kQ8_0;
  s.cache_type_v = GgmlType::kQ4_0;
  s.flash_attn = FlashAttn::kOn;
  s.swa_full = true;
  s.kv_unified = true;
  EXPECT_EQ(llama_server_flags(trained_for(40960), s),
            (Flags{"-c", "8192", "-np", "4", "-b", "1024", "-ub", "256", "-ctk", "q8_0", "-ctv",
                   "q4_0", "-fa", "on", "--swa-full", "--kv-unified"}));
}

}  // namespace
}  // namespace memfit
