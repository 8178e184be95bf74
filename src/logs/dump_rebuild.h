// What rebuilding a model's tensor list from a llama.cpp dump shares
// between its two steps (logs/log_model_tensors.cc: a release's rules;
// logs/dump_rebuild_options.cc: llama-quantize's options): the dump's
// word on how the file was converted, the variants it does not announce,
// and how a rebuilt list becomes the model the check prices. Private to
// the log reader; docs/check-log.md, "Rebuilt from llama.cpp's dump".
#ifndef MEMFIT_LOGS_DUMP_REBUILD_H_
#define MEMFIT_LOGS_DUMP_REBUILD_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engines/llamacpp/converted_deci.h"
#include "engines/llamacpp/converted_gemma4.h"
#include "engines/llamacpp/converted_mamba1.h"
#include "engines/llamacpp/releases.h"
#include "engines/llamacpp/quantize_plan.h"
#include "logs/log_model.h"
#include "memfit/llamacpp.h"
#include "memfit/model.h"
#include "memfit/result.h"

namespace memfit::logs {

// Tensors per type, by the type's name as the log prints it.
using TypeCounts = std::map<std::string, uint64_t>;

// "q4_K 193, q6_K 1": a count per type, by name; a name the log printed
// is untrusted text, escaped.
std::string describe(const TypeCounts& counts);

// Tensors per type of a rebuilt list.
TypeCounts counts_of(const Model& model);

// What a rebuild took beyond memfit's own rules: "" for those.
std::string rules_note(const llamacpp::QuantizeRules& r);

// What the converter's tensors are built from beyond the spec: the
// Hugging Face model_type the dump's architecture converts from
// ("qwen3moe" -> "qwen3_moe") and, for a gated delta net model, its
// widths (the config fields model/gguf/arch_rules.cc writes from the
// ssm.* keys).
struct ConvertedFrom {
  std::string model_type;
  std::optional<llamacpp::GatedDeltaWidths> gated_delta;
  // llama-quantize had an importance matrix: it writes the
  // quantize.imatrix.* keys (file, dataset, entries and chunks count) then
  // (tools/quantize/quantize.cpp, LLM_KV_QUANTIZE_IMATRIX_*).
  bool imatrix = false;
  // general.quantized_by, the quantizer a file names (convert_hf_to_gguf's
  // metadata; "Unsloth", "Mungert", ...): "" when absent.
  std::string quantized_by;
  const llamacpp::GatedDeltaWidths* widths() const {
    return gated_delta ? &*gated_delta : nullptr;
  }
  // For deepseek2, its MLA widths (the fields arch_rules.cc writes from
  // the attention.* keys) and the two things the keys alone say: whether
  // the file was converted since #12801 (attention.key_length_mla) and
  // whether its router is sigmoid-gated (expert_gating_func 2, V3: an
  // exp_probs_b tensor).
  std::optional<llamacpp::MlaWidths> mla;
  // BERT's token_types rows: the file's tokenizer.ggml.token_type_count
  // (0 when absent).
  uint64_t token_types = 0;
  // T5's relative attention buckets: attention.relative_buckets_count.
  uint64_t relative_buckets = 0;
  // Gemma 4's per-layer widths: the dump's gemma4.* keys.
  std::optional<llamacpp::Gemma4Widths> gemma4;
  // Gemma 3n's kept matrices' type: BF16 where the dump counts BF16
  // tensors and no F16 ones, else F16.
  GgmlType gemma3n_kept_type = GgmlType::kF16;
  // Mamba's and Jamba's Mamba-1 widths: the dump's mamba.ssm.* or
  // jamba.ssm.* keys.
  std::optional<llamacpp::Mamba1Widths> mamba1;
  // Nemotron-NAS's per-layer widths: the dump's deci.* arrays.
  std::optional<llamacpp::DeciWidths> deci;
  llamacpp::ConverterHints hints() const {
    llamacpp::ConverterHints h;
    h.mla = mla ? &*mla : nullptr;
    h.gemma4 = gemma4 ? &*gemma4 : nullptr;
    h.gemma3n = model_type == "gemma3n_text";
    h.gemma3n_kept_type = gemma3n_kept_type;
    h.mamba1 = mamba1 ? &*mamba1 : nullptr;
    h.deci = deci ? &*deci : nullptr;
    h.token_types = token_types;
    h.t5_relative_buckets = relative_buckets;
    return h;
  }
};

// What the dump says the file was converted from (its architecture's
// model_type, widths, importance matrix and quantizer); an error for an
// architecture memfit does not rebuild.
Result<ConvertedFrom> converted_from(const LogModel& dump);

// Three things the dump does not announce: the output layer's own
// matrix (absent when tied to token_embd), the converter's rope_freqs (a
// llama3-scaled rope bakes its factors into that F32 tensor, and the
// GGUF keeps no key of the scaling; Phi-3's longrope, two) and an
// encoder's classification head (a reranker converted from
// *ForSequenceClassification; its GGUF need not say rank pooling): the
// counts decide.
// A fourth (bias_variant) for glm4: whether the checkpoint's Q/K/V lack
// biases (Glm4Config's attention_bias, True by default, False in
// GLM-4-32B-0414 and GLM-Z1-32B; the GGUF keeps no key of it, and
// llama.cpp's loader takes either: bq/bk/bv are TENSOR_NOT_REQUIRED); for
// phi, whether Q/K/V are one fused attn_qkv; for llama, whether the
// checkpoint has LlamaConfig's attention and MLP biases (Granite Code).
struct Variant {
  bool tied = false;
  bool llama3_rope = false;
  bool head = false;
  bool bias_variant = false;  // glm4: no Q/K/V biases; glm4_moe: per-head Q/K norms; phi: one fused attn_qkv; stablelm: Q/K/V biases; falcon_h1: no Mamba-2 gated norm; ernie4_5_moe, bailing_moe_v2: no exp_probs_b; llama: the seven biases; t5encoder: a relative bias in every block; gemma4_text: no attn_v on the global layers
  bool split_experts = false;  // routed experts as 2-D tensors of their own (before #6387)
  // mamba: ssm_x and ssm_dt F32 and left so by llama-quantize, as the first
  // Mamba support wrote them (QuantizeRules::mamba1_small_f32; the
  // attempt's rules carry it too).
  bool mamba1_small_f32 = false;
};

// One rebuild to try: the release's rules and the dump's unannounced
// variant.
struct Attempt {
  llamacpp::QuantizeRules rules;
  Variant variant;
};

// The rule sets that changed between llama-quantize releases (the file's
// quantizing build is not in the log): the pinned release's first, then
// the older; each with every variant the architecture has.
std::vector<Attempt> attempts_for(const Model& rebuilt, const ConvertedFrom& from);

// The model and converter hints of one attempt's variant.
struct Candidate {
  Model model;
  llamacpp::ConverterHints hints;
};

// The model and hints of `rebuilt` under variant `v`.
Candidate candidate_of(const Model& rebuilt, const ConvertedFrom& from, const Variant& v);

// `quantized` as the model the check prices: the rebuilt spec and path,
// the weights verified against the log, the spread warning replaced by
// `note`.
Model accepted(Model quantized, const Model& rebuilt, const Variant& v, std::string note);

// When no release's rules alone give the log's counts (`printed`): the
// assignments of llama-quantize's options (--token-embedding-type,
// --output-tensor-type, --pure, --tensor-type by role; engines/llamacpp/
// quantize_options.h) over every attempt that hold the counts and the
// printed size. Kept when they all give every device the same bytes; an
// error saying why otherwise ("" when none holds them).
Result<Model> rebuilt_with_options(const Model& rebuilt, const LogModel& dump, const ConvertedFrom& from,
                                   const llamacpp::GgufFileType& type, const TypeCounts& printed);

// Where no rebuilt list holds the dump's counts (a file typed tensor by
// tensor, as the pinned synthetic models are): the bytes llama.cpp's
// CPU_REPACK buffer copies on `cpu`, when every assignment of the printed
// types to the converter's tensors that holds each type's count and the
// printed file size gives the same bytes (logs/dump_repack.cc). A role,
// a tensor name less its block index with one shape, takes one type, as a
// writer types a role; the converter's 1-D tensors stay F32. nullopt when
// no assignment holds, two give different bytes, or the search passes its
// budget.
// `fallback`, when the log prints llama.cpp's line on the tensors kept
// off CPU_REPACK (llamacpp_reader.cc, read_repack_fallback): an
// assignment holds it too when that many loaded tensors stay off the
// buffer (llamacpp_repack_counts) and the tensor it names has its type.
struct RepackFallback {
  uint64_t count = 0;
  std::string tensor;
  std::string type;
};
// `candidates`, when given, receives every repacked size the assignments
// that hold give (more than one: the log does not say which).
std::optional<uint64_t> repack_of_every_assignment(const Model& rebuilt, const LogModel& dump, RepackKernels cpu,
                                                   const RepackFallback* fallback = nullptr,
                                                   std::set<uint64_t>* candidates = nullptr);

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_DUMP_REBUILD_H_
