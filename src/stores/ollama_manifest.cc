// parse_ollama_manifest and parse_ollama_params (memfit/ollama_store.h):
// untrusted JSON, bounded in bytes and depth before nlohmann builds a value
// of it, and in layers and keys before any vector grows from it.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/json_nesting.h"
#include "base/json_parse_error.h"
#include "memfit/ollama_store.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

using Json = nlohmann::json;

// Manifests and params nest two levels; a stop list three.
constexpr int kMaxDepth = 16;
constexpr std::string_view kDigestPrefix = "sha256:";
constexpr size_t kDigestHexDigits = 64;

// The JSON value of `bytes`, bounded in size and depth; `what` names the
// document in messages ("manifest", "params").
Result<Json> parse_bounded(std::string_view bytes, uint64_t max_bytes, std::string_view what) {
  if (bytes.size() > max_bytes) {
    return Error(fmt::format("{}: {} bytes, more than the {} an Ollama {} may hold", what,
                             bytes.size(), max_bytes, what));
  }
  if (json_nesting_depth(bytes, kMaxDepth) > kMaxDepth) {
    return Error(fmt::format("{}: nested deeper than {} levels", what, kMaxDepth));
  }
  try {
    return Json::parse(bytes);
  } catch (const Json::exception& e) {
    return Error(fmt::format("{}: not JSON: {}", what, json_parse_error_text(e)));
  }
}

bool is_lower_hex(std::string_view text) {
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Result<OllamaLayer> read_layer(const Json& j, size_t index) {
  const std::string where = fmt::format("manifest: layer {}", index);
  if (!j.is_object()) return Error(where + ": not an object");
  OllamaLayer layer;
  auto media_type = j.find("mediaType");
  if (media_type == j.end() || !media_type->is_string()) return Error(where + ": no mediaType string");
  layer.media_type = media_type->get<std::string>();
  auto digest = j.find("digest");
  if (digest == j.end() || !digest->is_string()) return Error(where + ": no digest string");
  const std::string& text = digest->get_ref<const std::string&>();
  if (!text.starts_with(kDigestPrefix) || text.size() != kDigestPrefix.size() + kDigestHexDigits ||
      !is_lower_hex(std::string_view(text).substr(kDigestPrefix.size()))) {
    return Error(fmt::format("{}: digest {} is not sha256: and 64 lower-case hex digits", where,
                             quote_untrusted(text)));
  }
  layer.digest_hex = text.substr(kDigestPrefix.size());
  auto size = j.find("size");
  if (size != j.end()) {
    if (!size->is_number_unsigned()) return Error(where + ": size is not a non-negative integer");
    layer.size_bytes = size->get<uint64_t>();
  }
  return layer;
}

}  // namespace

std::string OllamaLayer::blob_path() const { return "blobs/sha256-" + digest_hex; }

Result<OllamaManifest> parse_ollama_manifest(std::string_view bytes) {
  Result<Json> j = parse_bounded(bytes, kMaxOllamaManifestBytes, "manifest");
  if (!j) return j.error();
  if (!j->is_object()) return Error("manifest: not a JSON object");
  auto layers = j->find("layers");
  if (layers == j->end() || !layers->is_array()) return Error("manifest: no \"layers\" array");
  if (layers->size() > kMaxOllamaLayers) {
    return Error(fmt::format("manifest: {} layers, more than {}", layers->size(), kMaxOllamaLayers));
  }
  OllamaManifest manifest;
  manifest.layers.reserve(layers->size());
  for (size_t i = 0; i < layers->size(); ++i) {
    Result<OllamaLayer> layer = read_layer((*layers)[i], i);
    if (!layer) return layer.error();
    manifest.layers.push_back(std::move(*layer));
  }
  return manifest;
}

Result<OllamaParameters> parse_ollama_params(std::string_view bytes) {
  Result<Json> j = parse_bounded(bytes, kMaxOllamaParamsBytes, "params");
  if (!j) return j.error();
  if (!j->is_object()) return Error("params: not a JSON object");
  if (j->size() > kMaxOllamaParameters) {
    return Error(fmt::format("params: {} parameters, more than {}", j->size(), kMaxOllamaParameters));
  }
  OllamaParameters params;
  for (const auto& [key, value] : j->items()) {  // nlohmann's objects iterate sorted
    params.values.emplace_back(key, value.dump(-1, ' ', false, Json::error_handler_t::replace));
    if (key != "num_ctx") continue;
    if (!value.is_number_unsigned() || value.get<uint64_t>() == 0) {
      return Error(fmt::format("params: num_ctx {} is not a positive integer",
                               show_untrusted_json(value)));
    }
    params.num_ctx = value.get<uint64_t>();
  }
  return params;
}

}  // namespace memfit
