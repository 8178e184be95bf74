#include "support/ollama_store_writer.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/sha256.h"
#include "support/small_ggufs.h"

namespace memfit {
namespace {

void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

std::string OllamaStoreWriter::add_blob(std::string_view bytes) const {
  const std::string hex = sha256_hex(bytes);
  write_file(std::filesystem::path(dir_) / "blobs" / ("sha256-" + hex), bytes);
  return hex;
}

std::string OllamaStoreWriter::add_model(std::string_view manifest_path,
                                         const std::vector<OllamaTestLayer>& layers) const {
  const std::string config = R"({"model_format":"gguf","model_family":"qwen3"})";
  nlohmann::ordered_json manifest = {
      {"schemaVersion", 2},
      {"mediaType", "application/vnd.docker.distribution.manifest.v2+json"},
      {"config",
       {{"mediaType", "application/vnd.docker.container.image.v1+json"},
        {"digest", "sha256:" + add_blob(config)},
        {"size", config.size()}}},
      {"layers", nlohmann::ordered_json::array()}};
  for (const OllamaTestLayer& layer : layers) {
    manifest["layers"].push_back({{"mediaType", layer.media_type},
                                  {"digest", "sha256:" + add_blob(layer.bytes)},
                                  {"size", layer.bytes.size()}});
  }
  const std::string text = manifest.dump();
  add_manifest_text(manifest_path, text);
  return text;
}

void OllamaStoreWriter::add_manifest_text(std::string_view manifest_path, std::string_view text) const {
  write_file(std::filesystem::path(dir_) / "manifests" / std::string(manifest_path), text);
}

OllamaTestLayer ollama_model_layer(const GgufWriter& gguf) {
  return {"application/vnd.ollama.image.model", gguf.bytes()};
}

OllamaTestLayer ollama_params_layer(std::string json) {
  return {"application/vnd.ollama.image.params", std::move(json)};
}

GgufWriter tiny_store_gguf() {
  GgufWriter w = tiny_qwen3_gguf();
  w.add_tensor("token_embd.weight", GgmlType::kF16, {64, 100});
  w.add_tensor("blk.0.attn_q.weight", GgmlType::kF16, {64, 64});
  w.add_tensor("blk.1.attn_q.weight", GgmlType::kF16, {64, 64});
  return w;
}

}  // namespace memfit
