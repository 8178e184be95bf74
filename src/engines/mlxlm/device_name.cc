// Device names as MLX's backend and chip class (device_name.h).
#include "engines/mlxlm/device_name.h"

#include <cctype>
#include <string>

#include "base/ascii_lower.h"

namespace memfit {
namespace {

// True when `word` stands alone in `text` (lower case): not inside a
// longer word ("pro" is not "processor").
bool has_word(std::string_view text, std::string_view word) {
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
    const size_t end = at + word.size();
    const bool ends = end == text.size() || !std::isalnum(static_cast<unsigned char>(text[end]));
    if (starts && ends) return true;
  }
  return false;
}

// The class an architecture name's last letter gives ("applegpu_g17s":
// 's'), as mlx/backend/metal/device.cpp switches on arch_.back().
std::optional<MlxChip> chip_of_architecture(std::string_view text) {
  const size_t at = text.find("applegpu_");
  if (at == std::string_view::npos) return std::nullopt;
  size_t end = at + 9;
  while (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end]))) ++end;
  const std::string_view arch = text.substr(at + 9, end - at - 9);
  if (arch.size() < 2) return std::nullopt;
  switch (arch.back()) {
    case 'g': return MlxChip::kBase;  // base and Pro share 40 ops / 40 x 2^20
    case 's': return MlxChip::kMax;
    case 'd': return MlxChip::kUltra;
    default: return std::nullopt;
  }
}

// Where an M-series number ("m1" to "m9") stands alone in `text`: the
// offset just past it; npos when none does.
size_t after_m_series(std::string_view text) {
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (size_t at = text.find('m'); at != std::string_view::npos; at = text.find('m', at + 1)) {
    if (at + 1 >= text.size() || text[at + 1] < '1' || text[at + 1] > '9') continue;
    const bool starts = at == 0 || !alnum(text[at - 1]);
    const bool ends = at + 2 == text.size() || !alnum(text[at + 2]);
    if (starts && ends) return at + 2;
  }
  return std::string_view::npos;
}

// The class word of a chip's name: the words after its M-series number up
// to a parenthesis or comma ("m3 pro (macbook pro 14\", ..." reads "pro";
// "m4 (macbook pro)" none: the base chip; "m4 studio ultra 64gb" "ultra").
std::optional<MlxChip> class_word(std::string_view words) {
  words = words.substr(0, words.find_first_of("(,"));
  if (has_word(words, "ultra")) return MlxChip::kUltra;
  if (has_word(words, "max")) return MlxChip::kMax;
  if (has_word(words, "pro")) return MlxChip::kPro;
  return std::nullopt;
}

}  // namespace

MlxDevice mlx_device_of(std::string_view name) {
  const std::string text = ascii_lower(name);
  if (text.find("nvidia") != std::string::npos) return {MlxDevice::Kind::kCuda, std::nullopt};
  if (std::optional<MlxChip> chip = chip_of_architecture(text)) {
    return {MlxDevice::Kind::kApple, chip};
  }
  const size_t number_end = after_m_series(text);
  if (number_end != std::string::npos) {
    return {MlxDevice::Kind::kApple,
            class_word(std::string_view(text).substr(number_end)).value_or(MlxChip::kBase)};
  }
  if (text.find("apple") == std::string::npos) return {};
  return {MlxDevice::Kind::kApple, std::nullopt};
}

}  // namespace memfit
