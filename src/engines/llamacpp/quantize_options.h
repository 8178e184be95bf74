// The per-tensor types llama-quantize's command-line options give beyond
// a file type's own rules, searched for the assignments that hold a
// file's tensor counts by type and its bytes (a llama.cpp dump prints
// both, never the per-tensor types: logs/log_model_tensors.cc).
//
// The options (llama-quantize's flags; what they do is
// src/llama-quant.cpp's llama_model_quantize_impl, read in the stored
// copies of 2025 master, e.g. the fork GeoffApples/llama.cpp at 0a6b9719):
//   --token-embedding-type T   token_embd.weight at T, always;
//   --output-tensor-type T     output.weight at T, always;
//   --leave-output-tensor      output.weight as the input file holds it
//                              (F16, BF16 or F32: the same as the above
//                              with that type);
//   --pure                     every quantizable tensor at the file
//                              type's default type, no per-tensor rule;
//   --tensor-type PATTERN=T    a tensor whose name the pattern matches at
//                              T, applied after the rules and only when
//                              the file type's default is quantized, not
//                              --pure, and the rules did not fall back
//                              for that tensor's row.
// The search takes one type per role: a tensor outside the blocks, or one
// name within every block ("attn_q.weight" of blk.0 to blk.N-1), either
// as the rules give it (layer by layer) or overridden to one of the types
// the file holds. Docs: docs/llamacpp-rules.md, "Files quantized with
// llama-quantize's options". Private to the library.
#ifndef MEMFIT_ENGINES_LLAMACPP_QUANTIZE_OPTIONS_H_
#define MEMFIT_ENGINES_LLAMACPP_QUANTIZE_OPTIONS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engines/llamacpp/quantize_plan.h"
#include "memfit/ggml_types.h"
#include "memfit/result.h"

namespace memfit::llamacpp {

// What the file holds: tensors per type (every tensor, the unquantizable
// ones included) and its tensors' bytes within +- band_bytes.
struct QuantizedFileTotals {
  std::vector<std::pair<GgmlType, uint64_t>> counts;
  uint64_t bytes = 0;
  uint64_t band_bytes = 0;
};

// One rebuild of the converter's tensors for the search: the tensors, the
// types the file type's rules give them (quantized_types) and how
// (TypeChoice), the file type's default type and the rules' build (for
// the bytes of a QK_K = 64 build).
struct RulesRebuild {
  std::span<const ConvertedTensor> tensors;
  std::span<const GgmlType> rule_types;
  std::span<const TypeChoice> choices;
  GgmlType default_type = GgmlType::kF16;
  QuantizeRules rules;
};

// One assignment the search found: a type per tensor, the options that
// give it ("--token-embedding-type q8_0", "--tensor-type attn_q=q5_K",
// "--pure"; empty: the rules alone) and its bytes.
struct OptionsAssignment {
  std::vector<GgmlType> types;
  std::vector<std::string> options;
  uint64_t bytes = 0;
};

// The search's own option for a role the converter wrote quantized
// (gpt-oss's MXFP4 experts) kept in that type, no flag of llama-quantize's:
// "ffn_up_exps kept mxfp4 as converted". Whether `option` is one.
bool is_kept_as_converted(std::string_view option);

// Whether `t` is a float type (F32, F16, BF16): a file type of one takes
// no --tensor-type and no --pure.
bool is_float_type(GgmlType t);

// Every assignment of llama-quantize's options (above) over `rebuild`
// that holds `totals`' counts exactly and its bytes within the band; at
// most kMaxOptionsAssignments. An error when the search would walk more
// than its budget of partial assignments (the counts leave too many
// open), or finds more assignments than that cap: the caller cannot tell
// them apart.
inline constexpr size_t kMaxOptionsAssignments = 64;
Result<std::vector<OptionsAssignment>> search_quantize_options(const RulesRebuild& rebuild,
                                                               const QuantizedFileTotals& totals);

}  // namespace memfit::llamacpp

#endif  // MEMFIT_ENGINES_LLAMACPP_QUANTIZE_OPTIONS_H_
