// A safetensors or config-only model priced as the GGUF that llama.cpp's
// llama-quantize would write for a file type (`--quant Q4_K_M`): the
// tensor list llama.cpp's converter writes for the architecture, built
// from the config, and each tensor's type as llama-quantize chooses it.
// The rules and their sources: docs/engine-llamacpp.md, "GGUF file types
// for a safetensors or config-only model". Private to the library.
#ifndef MEMFIT_ENGINES_LLAMACPP_QUANTIZE_PLAN_H_
#define MEMFIT_ENGINES_LLAMACPP_QUANTIZE_PLAN_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/ggml_types.h"
#include "memfit/model.h"
#include "memfit/request.h"
#include "memfit/result.h"

namespace memfit::llamacpp {

// A file type llama-quantize writes (its LLAMA_FTYPE_*), by the name its
// command line takes.
struct GgufFileType {
  std::string_view name;   // "Q4_K_M"
  GgmlType default_type;   // llama_ftype_get_default_type()
};

// The file types memfit prices, most precise first (the order
// recommend-quant ranks them in). Those that need an importance matrix
// (IQ1_*, IQ2_*, IQ3_XXS, IQ3_XS, Q2_K_S) are not among them.
std::span<const GgufFileType> gguf_file_types();

// The file type `name` names, case-insensitively; Q3_K, Q4_K and Q5_K are
// llama-quantize's aliases of the _M types. nullptr for any other name.
const GgufFileType* find_gguf_file_type(std::string_view name);

// The file llama-quantize would write for `file_type` from the model at
// `model_path`: its folder's name, "-", the type's name, ".gguf"
// ("Qwen3-8B-Q4_K_M.gguf"; "model-..." when the path names no folder).
std::string quantized_gguf_file_name(const std::string& model_path, std::string_view file_type);

// The GGUF a launch command for `r` loads: `model_path` itself, or under a
// --quant GGUF file type the file llama-quantize would write.
std::string launch_model_file(const EstimateRequest& r, const std::string& model_path);

// The file type `name` names among gguf_file_types() and the types
// llama-quantize writes only with an importance matrix whose per-tensor
// choice memfit rebuilds (IQ2_M: the matrix changes the values, never a
// tensor's type): a llama.cpp dump of such a file is rebuilt tensor by
// tensor (logs/log_model_tensors.cc), though `--quant` does not offer
// them (memfit cannot make the matrix). nullptr for any other name.
const GgufFileType* find_rebuilt_file_type(std::string_view name);

// "F32, F16, BF16, Q8_0, ...": every name gguf_file_types() holds.
std::string gguf_file_type_names();

// One tensor of the converted model: its GGUF name, dims (ne[0] first,
// the row length) and the type the converter writes it in (F32 for 1-D
// tensors, norms and routers; F16 for the matrices).
struct ConvertedTensor {
  std::string name;
  std::vector<uint64_t> ne;
  GgmlType type = GgmlType::kF16;
};

// A gated delta net's widths (Qwen3-Next's and Qwen3.5's linear-attention
// layers): ModelSpec::gated_delta, which a config or a GGUF fills; a
// llama.cpp dump's reader passes its own (the dump's ssm.* keys).
using GatedDeltaWidths = GatedDeltaGeometry;

// The tensors llama.cpp's converter writes for `spec`, in the order
// llama.cpp's loader walks them (tensors outside the blocks first, then
// block by block; by name within each). A usage error on `quant` for an
// architecture whose tensor list memfit does not build (the message names
// those it does).
// `gated_delta`, when given, are the widths of a Qwen3-Next or Qwen3.5
// model's gated delta nets; nullptr takes spec.gated_delta. Such a model's
// tensors are built only with nonzero key and value heads.
Result<std::vector<ConvertedTensor>> converted_tensors(const ModelSpec& spec,
                                                       const GatedDeltaWidths* gated_delta = nullptr);

// The type llama-quantize gives each of `tensors` (converted_tensors'
// order) for `file_type`. A usage error on `quant` when a tensor's row
// fits no type llama-quantize falls back to.
Result<std::vector<GgmlType>> quantized_types(const ModelSpec& spec,
                                              std::span<const ConvertedTensor> tensors,
                                              const GgufFileType& file_type);

// The model as that GGUF: `model` with its tensors replaced by the
// quantized list (SafetensorsTensor rows as a GGUF model carries them:
// dtype the ggml type name, shape outermost first), weights.bytes their
// exact sum, source kGgufHeader, verified false (the file is not read:
// it would be written), gguf null. Errors as above.
Result<Model> quantized_gguf_model(const Model& model, const GgufFileType& file_type,
                                   const GatedDeltaWidths* gated_delta = nullptr);

// The request's `quant` applied under llamacpp: none leaves `p` as it is;
// a GGUF file type on a safetensors or config-only model replaces
// p.model with quantized_gguf_model() and says so in a warning. A usage
// error on `quant` for a GGUF model (its own file type is its weights),
// for a name that is not one of gguf_file_types() (the message lists
// them), and for an architecture memfit does not convert.
Status apply_gguf_file_type(const EstimateRequest& r, PreparedRequest& p);

}  // namespace memfit::llamacpp

#endif  // MEMFIT_ENGINES_LLAMACPP_QUANTIZE_PLAN_H_
