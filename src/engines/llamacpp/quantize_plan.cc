// A model priced as the GGUF llama-quantize would write for a file type
// (engines/llamacpp/quantize_plan.h).
#include "engines/llamacpp/quantize_plan.h"

#include <filesystem>

#include <fmt/format.h>

#include <memory>

#include "memfit/checked_math.h"
#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"

namespace memfit::llamacpp {

Result<Model> quantized_gguf_model(const Model& model, const GgufFileType& file_type,
                                   const GatedDeltaWidths* gated_delta, const QuantizeRules& rules,
                                   const ConverterHints* hints) {
  Result<std::vector<ConvertedTensor>> tensors = converted_tensors(model.spec, gated_delta, hints);
  if (!tensors) return tensors.error();
  Result<std::vector<GgmlType>> types = quantized_types(model.spec, *tensors, file_type, rules);
  if (!types) return types.error();
  return gguf_model_of_types(model, *tensors, *types, rules);
}

Result<Model> gguf_model_of_types(const Model& model, std::span<const ConvertedTensor> tensors,
                                  std::span<const GgmlType> types, const QuantizeRules& rules) {
  if (types.size() != tensors.size()) {
    return Error(fmt::format("{} types for {} tensors", types.size(), tensors.size()));
  }
  Model out = model;
  out.tensors.clear();
  out.tensors.reserve(tensors.size());
  CheckedBytes total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const ConvertedTensor& t = tensors[i];
    Result<uint64_t> bytes = quantized_tensor_bytes(types[i], t.ne, rules);
    if (!bytes) return Error::usage("quant", fmt::format("{}: {}", t.name, bytes.error().message()));
    total = total + *bytes;
    // As a GGUF model carries it: shape outermost first.
    out.tensors.push_back(SafetensorsTensor{t.name, std::string(ggml_type_traits(types[i]).name),
                                            std::vector<uint64_t>(t.ne.rbegin(), t.ne.rend()), *bytes});
  }
  if (!total.value()) return Error::overflow("the quantized GGUF's bytes overflow 64 bits");
  out.weights = WeightsInfo{};
  out.weights.bytes = *total.value();
  out.weights.source = WeightsSource::kGgufHeader;
  out.weights.file_count = 1;
  out.weights.tensor_count = out.tensors.size();
  out.weights.verified = false;  // computed, not read: the file would be written
  out.weights.component_bytes[static_cast<int>(WeightComponent::kLanguageModel)] = out.weights.bytes;
  out.gguf = nullptr;
  return out;
}

std::string quantized_gguf_file_name(const std::string& model_path, std::string_view file_type) {
  std::string base = std::filesystem::path(model_path).filename().string();
  if (base.empty()) base = std::filesystem::path(model_path).parent_path().filename().string();
  return fmt::format("{}-{}.gguf", base.empty() ? "model" : base, file_type);
}

std::string launch_model_file(const EstimateRequest& r, const std::string& model_path) {
  const GgufFileType* type = r.quant.empty() ? nullptr : find_gguf_file_type(r.quant);
  return type == nullptr ? model_path : quantized_gguf_file_name(model_path, type->name);
}

Status apply_gguf_file_type(const EstimateRequest& r, PreparedRequest& p) {
  if (r.quant.empty()) return Status::Ok();
  if (p.model->weights.source == WeightsSource::kGgufHeader) {
    // llama.cpp loads a GGUF's own tensor types.
    return Error::usage("quant", "is this GGUF's own file type: llama.cpp loads its tensors as "
                                 "they are; price a GGUF of the type you want, or the "
                                 "safetensors or config-only model with --quant");
  }
  const GgufFileType* type = find_gguf_file_type(r.quant);
  if (type == nullptr) {
    return Error::usage("quant", fmt::format("{} is not a GGUF file type memfit prices under "
                                             "llamacpp; one of: {}",
                                             quote_untrusted(r.quant), gguf_file_type_names()));
  }
  Result<Model> model = quantized_gguf_model(*p.model, *type);
  if (!model) return model.error();
  if (p.model->weights.source == WeightsSource::kAnalyticalConfig) {
    // The loader's "weights estimated from config.json as N parameters x
    // 2 bytes" prices weights this request does not: the GGUF replaces
    // them, and the warning below says so.
    const std::string& detail = p.model->spec.analytical_weights.detail;
    std::erase_if(p.warnings, [&](const Warning& w) {
      return w.kind == WarningKind::kModel &&
             w.text.find("weights estimated from config.json") != std::string::npos &&
             w.text.ends_with(detail);
    });
  }
  p.warnings.push_back(Warning{
      WarningKind::kModel,
      fmt::format("weights priced as the {} GGUF llama-quantize would write from this model "
                  "(llama.cpp's tensor types for that file type, over the tensors its converter "
                  "writes; no importance matrix): {} tensors, {}",
                  type->name, model->tensors.size(), format_bytes(model->weights.bytes))});
  if (p.model->spec.multimodal) {
    // convert_hf_to_gguf.py writes a multimodal checkpoint's language
    // model as the model GGUF and its towers to a file of their own
    // (--mmproj), which llama-quantize does not touch.
    p.warnings.push_back(Warning{
        WarningKind::kModel,
        "the vision tower is not in that GGUF: llama.cpp's converter writes it to an mmproj file "
        "of its own (llama-server --mmproj), not priced here"});
  }
  p.model = std::make_shared<const Model>(std::move(*model));
  return Status::Ok();
}

void add_converted(std::vector<ConvertedTensor>& out, std::string name, std::vector<uint64_t> ne) {
  const GgmlType type = ne.size() < 2 ? GgmlType::kF32 : GgmlType::kF16;
  out.push_back(ConvertedTensor{std::move(name), std::move(ne), type});
}

void add_converted_f32(std::vector<ConvertedTensor>& out, std::string name, std::vector<uint64_t> ne) {
  out.push_back(ConvertedTensor{std::move(name), std::move(ne), GgmlType::kF32});
}

}  // namespace memfit::llamacpp
