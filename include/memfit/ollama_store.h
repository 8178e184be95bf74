// Ollama's model store, as the pinned Ollama lays it out (docs/stores.md,
// with the source of each rule):
//
//   <models>/manifests/<host>/<namespace>/<model>/<tag>   one JSON manifest
//   <models>/blobs/sha256-<64 hex>                         each layer's bytes
//
// A manifest (Docker's image manifest v2, untrusted JSON):
//
//   {"schemaVersion": 2, "mediaType": "...",
//    "config": {"mediaType": "...", "digest": "sha256:<hex>", "size": 485},
//    "layers": [{"mediaType": "application/vnd.ollama.image.model",
//                "digest": "sha256:<hex>", "size": 4661211424}, ...]}
//
// The layers memfit reads, by mediaType (application/vnd.ollama.image.*):
// model (the GGUF), projector (llama.cpp's --mmproj GGUF), adapter (a LoRA
// GGUF) and params (the Modelfile's PARAMETER lines as one JSON object:
// {"num_ctx": 8192, "stop": ["<|im_end|>"]}). template, system, license and
// messages are text no memory figure depends on.
//
// Everything here parses bytes: nothing reads the disk (model_stores.h
// does). Every length is bounded before anything is allocated from it.
#ifndef MEMFIT_OLLAMA_STORE_H_
#define MEMFIT_OLLAMA_STORE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Bounds: a manifest's bytes (real ones are under 1 KiB), its layers, the
// params blob's bytes and its parameters. Past them is kInput corruption.
inline constexpr uint64_t kMaxOllamaManifestBytes = 1ull << 20;
inline constexpr size_t kMaxOllamaLayers = 256;
inline constexpr uint64_t kMaxOllamaParamsBytes = 64ull << 10;
inline constexpr size_t kMaxOllamaParameters = 64;
// Ollama's MaxNamePartLen, which bounds the whole name (types/model/name.go).
inline constexpr size_t kMaxOllamaNameBytes = 128;

inline constexpr std::string_view kOllamaDefaultHost = "registry.ollama.ai";
inline constexpr std::string_view kOllamaDefaultNamespace = "library";
inline constexpr std::string_view kOllamaDefaultTag = "latest";

// "[host/][namespace/]model[:tag]" with Ollama's defaults filled in.
struct OllamaName {
  std::string host{kOllamaDefaultHost};
  std::string name_space{kOllamaDefaultNamespace};
  std::string model;
  std::string tag{kOllamaDefaultTag};

  // "manifests/" + this: host/namespace/model/tag.
  std::string manifest_path() const;
  // The shortest name that means this one ("qwen3:8b", "ns/m:latest",
  // "host/ns/m:tag"): what `-m ollama:` takes and `memfit ls` prints.
  std::string display() const;
};

// Parses an Ollama name as Ollama does (types/model/name.go): at most
// three '/'-separated parts before an optional ":tag"; each part 1 or more
// of [A-Za-z0-9._-], the namespace without '.', no ".." anywhere; the
// whole at most 128 bytes. "+build" and "@digest" are refused. A parsed
// name is safe to join onto a folder. kUsage errors about the field
// "model", the text quoted.
Result<OllamaName> parse_ollama_name(std::string_view text);

struct OllamaLayer {
  std::string media_type;  // "application/vnd.ollama.image.model"
  std::string digest_hex;  // the sha256, 64 lower-case hex digits
  uint64_t size_bytes = 0;
  // "blobs/sha256-<hex>": the blob's path under the models folder.
  std::string blob_path() const;
};

struct OllamaManifest {
  std::vector<OllamaLayer> layers;  // in the manifest's order
};

inline constexpr std::string_view kOllamaModelMediaType = "application/vnd.ollama.image.model";
inline constexpr std::string_view kOllamaProjectorMediaType =
    "application/vnd.ollama.image.projector";
inline constexpr std::string_view kOllamaAdapterMediaType = "application/vnd.ollama.image.adapter";
inline constexpr std::string_view kOllamaParamsMediaType = "application/vnd.ollama.image.params";

// Parses a manifest's bytes. kInput errors, one line: more than
// kMaxOllamaManifestBytes, not JSON, nesting past 16 levels, no "layers"
// array, more than kMaxOllamaLayers, a layer without a string mediaType, a
// digest that is not "sha256:" and 64 lower-case hex digits, a size that
// is not a non-negative integer. Unknown keys are ignored.
Result<OllamaManifest> parse_ollama_manifest(std::string_view bytes);

// The Modelfile's parameters (the params layer), each value as compact JSON
// text ("8192", "[\"<|im_end|>\"]"), sorted by name; num_ctx also as a
// number when it is a positive integer.
struct OllamaParameters {
  std::optional<uint64_t> num_ctx;
  std::vector<std::pair<std::string, std::string>> values;
};

// Parses a params blob. kInput errors: past kMaxOllamaParamsBytes, not a
// JSON object, nesting past 16 levels, more than kMaxOllamaParameters keys,
// a num_ctx that is not a positive integer.
Result<OllamaParameters> parse_ollama_params(std::string_view bytes);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_OLLAMA_STORE_H_
