// The GGUF file types memfit prices (engines/llamacpp/quantize_plan.h),
// from llama.cpp's llama_ftype_get_default_type() (src/llama-quant.cpp)
// and the names tools/quantize/quantize.cpp takes.
#include <algorithm>
#include <array>
#include <cctype>

#include "engines/llamacpp/quantize_plan.h"

namespace memfit::llamacpp {
namespace {

using enum GgmlType;

// Most precise first: by the bits per weight of the default type, the
// _L/_M/_S mixes of one type in that order.
constexpr std::array<GgufFileType, 22> kFileTypes = {{
    {"F32", kF32},       {"F16", kF16},       {"BF16", kBF16},     {"Q8_0", kQ8_0},
    {"Q6_K", kQ6_K},     {"Q5_1", kQ5_1},     {"Q5_K_M", kQ5_K},   {"Q5_0", kQ5_0},
    {"Q5_K_S", kQ5_K},   {"Q4_1", kQ4_1},     {"Q4_K_M", kQ4_K},   {"Q4_0", kQ4_0},
    {"Q4_K_S", kQ4_K},   {"IQ4_NL", kIQ4_NL}, {"IQ4_XS", kIQ4_XS}, {"MXFP4_MOE", kMXFP4},
    {"Q3_K_L", kQ3_K},   {"Q3_K_M", kQ3_K},   {"IQ3_M", kIQ3_S},   {"IQ3_S", kIQ3_S},
    {"Q3_K_S", kQ3_K},   {"Q2_K", kQ2_K},
}};

// Written by llama-quantize only with an importance matrix
// (find_rebuilt_file_type; tensor_requires_imatrix), with their default
// types (llama_ftype_get_default_type: IQ2_S's is IQ2_XS, IQ2_M's IQ2_S,
// IQ3_XS's IQ3_S).
constexpr std::array<GgufFileType, 9> kImatrixFileTypes = {{
    {"IQ3_XS", kIQ3_S},   {"IQ3_XXS", kIQ3_XXS}, {"Q2_K_S", kQ2_K},   {"IQ2_M", kIQ2_S},
    {"IQ2_S", kIQ2_XS},   {"IQ2_XS", kIQ2_XS},   {"IQ2_XXS", kIQ2_XXS}, {"IQ1_M", kIQ1_M},
    {"IQ1_S", kIQ1_S},
}};

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

}  // namespace

std::span<const GgufFileType> gguf_file_types() { return kFileTypes; }

const GgufFileType* find_gguf_file_type(std::string_view name) {
  std::string wanted = upper(name);
  // llama-quantize's aliases: the K types alone are their _M mixes.
  if (wanted == "Q3_K" || wanted == "Q4_K" || wanted == "Q5_K") wanted += "_M";
  for (const GgufFileType& t : kFileTypes) {
    if (t.name == wanted) return &t;
  }
  return nullptr;
}

const GgufFileType* find_rebuilt_file_type(std::string_view name) {
  if (const GgufFileType* type = find_gguf_file_type(name)) return type;
  const std::string wanted = upper(name);
  for (const GgufFileType& t : kImatrixFileTypes) {
    if (t.name == wanted) return &t;
  }
  return nullptr;
}

bool needs_importance_matrix(const GgufFileType& type) {
  return std::any_of(kImatrixFileTypes.begin(), kImatrixFileTypes.end(),
                     [&](const GgufFileType& t) { return t.name == type.name; });
}

std::string gguf_file_type_names() {
  std::string out;
  for (const GgufFileType& t : kFileTypes) {
    if (!out.empty()) out += ", ";
    out += t.name;
  }
  return out;
}

}  // namespace memfit::llamacpp
