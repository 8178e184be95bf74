// Ollama's store as Ollama writes it (docs/stores.md), in a test's folder:
// blobs named by the sha256 of their bytes, manifests that list them.
#ifndef MEMFIT_TESTS_SUPPORT_OLLAMA_STORE_WRITER_H_
#define MEMFIT_TESTS_SUPPORT_OLLAMA_STORE_WRITER_H_

#include <string>
#include <string_view>
#include <vector>

#include "support/gguf_writer.h"

namespace memfit {

struct OllamaTestLayer {
  std::string media_type;  // "application/vnd.ollama.image.model", ...
  std::string bytes;       // the blob's bytes
};

class OllamaStoreWriter {
 public:
  // `models_dir` is the store's folder ($OLLAMA_MODELS); created as needed.
  explicit OllamaStoreWriter(std::string models_dir) : dir_(std::move(models_dir)) {}

  // Writes blobs/sha256-<hex> and returns the hex.
  std::string add_blob(std::string_view bytes) const;

  // Writes each layer's blob and manifests/<manifest_path> listing them
  // (with a config layer, as Ollama writes one); returns the manifest's text.
  std::string add_model(std::string_view manifest_path, const std::vector<OllamaTestLayer>& layers) const;

  // Writes `text` as manifests/<manifest_path>, for broken manifests.
  void add_manifest_text(std::string_view manifest_path, std::string_view text) const;

  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

// The model layer of a GGUF: its bytes in memory (the data zero).
OllamaTestLayer ollama_model_layer(const GgufWriter& gguf);
// The params layer: `json` as Ollama writes the Modelfile's PARAMETERs.
OllamaTestLayer ollama_params_layer(std::string json);

// A two-layer Qwen3 GGUF (tiny_qwen3_gguf's keys, training context 4,096)
// with f16 tensors: token_embd [64, 100] = 6,400 x 2 = 12,800 B and two
// attn_q [64, 64] = 4,096 x 2 = 8,192 B each: 29,184 B of weights.
GgufWriter tiny_store_gguf();

}  // namespace memfit

#endif  // MEMFIT_TESTS_SUPPORT_OLLAMA_STORE_WRITER_H_
