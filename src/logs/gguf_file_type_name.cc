// The GGUF file type a llama.cpp log printed, by the name llama-quantize
// takes (gguf_file_type_of_printed, log_pricer.h). llama.cpp prints
// llama_model_ftype_name()'s text (src/llama-model-loader.cpp, ggml-org/
// llama.cpp): "Q4_K - Medium" for LLAMA_FTYPE_MOSTLY_Q4_K_M, "Q2_K - Medium"
// for Q2_K, "Q2_K - Small" for Q2_K_S, "IQ4_XS - 4.25 bpw", "all F32",
// "MXFP4 MoE", each with " (guessed)" when the file does not say.
#include <array>
#include <cctype>
#include <utility>

#include "logs/log_pricer.h"
#include "logs/log_text.h"

namespace memfit::logs {

std::string gguf_file_type_of_printed(std::string_view printed) {
  std::string_view text = trim(printed);
  if (const size_t guessed = text.find(" (guessed)"); guessed != std::string_view::npos) {
    text = trim(text.substr(0, guessed));
  }
  if (text == "all F32") return "F32";
  if (text == "MXFP4 MoE") return "MXFP4_MOE";
  // LLAMA_FTYPE_MOSTLY_IQ3_M prints as "IQ3_S mix - 3.66 bpw".
  if (text.starts_with("IQ3_S mix")) return "IQ3_M";
  const size_t dash = text.find(" - ");
  std::string name(trim(text.substr(0, dash)));
  if (dash == std::string_view::npos) return name;
  const std::string_view size = trim(text.substr(dash + 3));
  // "Q2_K - Medium" is llama-quantize's Q2_K itself.
  if (name == "Q2_K" && size == "Medium") return name;
  constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kSizes{
      {{"Small", "_S"}, {"Medium", "_M"}, {"Large", "_L"}}};
  for (auto [word, suffix] : kSizes) {
    if (size == word) return name + std::string(suffix);
  }
  return name;  // "IQ4_XS - 4.25 bpw": the bits per weight follow the name
}

}  // namespace memfit::logs
