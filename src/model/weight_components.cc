// classify_tensor (model/weight_components.h): a tensor's part of a
// multimodal checkpoint, from its name.
#include "model/weight_components.h"

#include <array>

namespace memfit {
namespace {

constexpr std::array<std::string_view, 12> kProjectorSegments = {
    "multi_modal_projector", "mm_projector", "merger", "vision_projection", "embed_vision",
    "embed_audio", "audio_projector", "connector", "aligner", "vision_proj", "mm_proj",
    "visual_projection"};
constexpr std::array<std::string_view, 10> kVisionSegments = {
    "vision_tower", "vision_model", "visual", "vision_encoder", "image_encoder", "vit",
    "vision", "siglip", "vision_embed", "vpm"};
constexpr std::array<std::string_view, 7> kAudioSegments = {
    "audio_tower", "audio_model", "audio_encoder", "audio", "speech_encoder", "whisper_encoder",
    "apm"};

template <size_t N>
bool contains(const std::array<std::string_view, N>& set, std::string_view segment) {
  for (std::string_view s : set) {
    if (s == segment) return true;
  }
  return false;
}

}  // namespace

WeightComponent classify_tensor(std::string_view name) {
  bool vision = false, audio = false;
  size_t start = 0;
  for (size_t index = 0; start <= name.size(); ++index) {
    size_t dot = name.find('.', start);
    std::string_view segment =
        name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (contains(kProjectorSegments, segment)) return WeightComponent::kProjector;
    // InternVL names its projector "mlp1" at the top level.
    if (index == 0 && segment == "mlp1") return WeightComponent::kProjector;
    vision |= contains(kVisionSegments, segment);
    audio |= contains(kAudioSegments, segment);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (vision) return WeightComponent::kVisionTower;
  if (audio) return WeightComponent::kAudioTower;
  return WeightComponent::kLanguageModel;
}

}  // namespace memfit

namespace memfit {

std::string_view to_string(WeightComponent component) {
  switch (component) {
    case WeightComponent::kLanguageModel: return "language_model";
    case WeightComponent::kVisionTower: return "vision_tower";
    case WeightComponent::kAudioTower: return "audio_tower";
    case WeightComponent::kProjector: return "projector";
  }
  return "language_model";
}

}  // namespace memfit
