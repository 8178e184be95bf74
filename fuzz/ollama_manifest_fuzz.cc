// libFuzzer target for Ollama's store files (memfit/ollama_store.h): the
// input is a manifest (parse_ollama_manifest), a params blob
// (parse_ollama_params) and a name (parse_ollama_name), all untrusted.
// Errors must be clean (fuzz_checks.h). A manifest that parsed names only
// blobs inside blobs/ (64 hex digits each) and no more layers than the
// bound; a name that parsed joins onto the manifests folder without
// climbing out of it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_checks.h"
#include "memfit/ollama_store.h"

namespace {

bool is_blob_path(std::string_view path) {
  constexpr std::string_view kPrefix = "blobs/sha256-";
  if (!path.starts_with(kPrefix) || path.size() != kPrefix.size() + 64) return false;
  for (char c : path.substr(kPrefix.size())) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);

  memfit::Result<memfit::OllamaManifest> manifest = memfit::parse_ollama_manifest(bytes);
  if (!manifest.ok()) {
    memfit_fuzz::check_message(manifest.error().message());
  } else {
    if (manifest->layers.size() > memfit::kMaxOllamaLayers) __builtin_trap();
    for (const memfit::OllamaLayer& layer : manifest->layers) {
      if (!is_blob_path(layer.blob_path())) __builtin_trap();
    }
  }

  memfit::Result<memfit::OllamaParameters> params = memfit::parse_ollama_params(bytes);
  if (!params.ok()) {
    memfit_fuzz::check_message(params.error().message());
  } else if (params->values.size() > memfit::kMaxOllamaParameters ||
             (params->num_ctx && *params->num_ctx == 0)) {
    __builtin_trap();
  }

  memfit::Result<memfit::OllamaName> name = memfit::parse_ollama_name(bytes);
  if (!name.ok()) {
    memfit_fuzz::check_message(name.error().message());
  } else {
    const std::string path = name->manifest_path();
    if (path.find("..") != std::string::npos || path.starts_with('/') ||
        path.find('\\') != std::string::npos) {
      __builtin_trap();
    }
  }
  return 0;
}
