#include "support/small_checkpoints.h"

#include <optional>
#include <string>
#include <vector>

#include "support/safetensors_writer.h"

namespace memfit {

void write_bf16_llama_checkpoint(const TempDir& dir) {
  dir.write_file("config.json", R"({"model_type":"llama","num_hidden_layers":8,"hidden_size":4096,
      "num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":4096,"vocab_size":32000})");
  std::vector<TensorSpec> tensors = {
      {"model.embed_tokens.weight", "BF16", {32000, 4096}, std::nullopt}};
  for (int i = 0; i < 8; ++i) {
    tensors.push_back({"model.layers." + std::to_string(i) + ".mlp.up_proj.weight", "BF16",
                       {4096, 4096}, std::nullopt});
  }
  write_safetensors_file(dir.file_path("model.safetensors"), tensors);
}

}  // namespace memfit
