// EngineRegistry (engine.h): the built-in engines (builtin_engines.inc,
// one line each) and the ones embedders and tests add.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "engines/builtin.h"
#include "engines/shared/trained_context.h"
#include "memfit/engine.h"
#include "memfit/model.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

bool same_name(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

bool answers_to(const EngineProfile& engine, std::string_view text) {
  if (same_name(engine.name(), text)) return true;
  for (std::string_view alias : engine.aliases()) {
    if (same_name(alias, text)) return true;
  }
  return false;
}

// "a, b or c"
std::string names_in_words(const std::vector<std::string_view>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace

uint64_t EngineProfile::context_limit_tokens(const Model& model) const {
  return rope_scaled_context(model.spec).tokens;
}

std::string_view EngineProfile::first_field_given(const EstimateRequest& request) const {
  for (const RequestField& field : fields()) {
    if (field.given != nullptr && field.given(request)) return field.name;
  }
  return "";
}

std::string_view to_string(EngineCommand command) {
  switch (command) {
    case EngineCommand::kFit:
      return "fit";
    case EngineCommand::kPlot:
      return "plot";
    case EngineCommand::kRecommendQuant:
      return "recommend-quant";
    case EngineCommand::kPreflightServe:
      return "preflight serve";
  }
  return "fit";
}

EngineRegistry::EngineRegistry() {
#define MEMFIT_ENGINE(name) engines_.push_back(engines::make_##name##_profile());
#include "engines/builtin_engines.inc"
#undef MEMFIT_ENGINE
  built_in_ = engines_.size();
}

EngineRegistry& EngineRegistry::instance() {
  static EngineRegistry registry;
  return registry;
}

Status EngineRegistry::add(std::unique_ptr<EngineProfile> profile) {
  if (profile == nullptr) return Error::usage("engine", "no profile given");
  std::vector<std::string_view> names = profile->aliases();
  names.push_back(profile->name());
  for (std::string_view name : names) {
    if (name.empty()) return Error::usage("engine", "an engine's name or alias is empty");
    if (find(name) != nullptr) {
      return Error::usage("engine", fmt::format("{} is already an engine's name", quote_untrusted(name)));
    }
  }
  engines_.push_back(std::move(profile));
  return Status::Ok();
}

void EngineRegistry::remove(std::string_view name) {
  auto first_added = engines_.begin() + static_cast<std::ptrdiff_t>(built_in_);
  engines_.erase(std::remove_if(first_added, engines_.end(),
                                [&](const auto& e) { return same_name(e->name(), name); }),
                 engines_.end());
}

std::vector<const EngineProfile*> EngineRegistry::all() const {
  std::vector<const EngineProfile*> out;
  for (const auto& engine : engines_) out.push_back(engine.get());
  return out;
}

const EngineProfile* EngineRegistry::find(std::string_view name) const {
  for (const auto& engine : engines_) {
    if (answers_to(*engine, name)) return engine.get();
  }
  return nullptr;
}

const EngineProfile& EngineRegistry::default_for(const Model& model) const {
  for (const auto& engine : engines_) {
    if (engine->is_default_for(model)) return *engine;
  }
  return *engines_.front();
}

Result<const EngineProfile*> EngineRegistry::parse(std::string_view text) const {
  if (const EngineProfile* engine = find(text)) return engine;
  std::vector<std::string_view> names{"auto"};
  for (const auto& engine : engines_) names.push_back(engine->name());
  return Error::usage(fmt::format("{}: expected {}", quote_untrusted(text), names_in_words(names)));
}

Error EngineRegistry::field_of_other_engine(std::string_view field, const EngineProfile& owner) {
  // "an" before a vowel and before the MLX names, read letter by letter.
  const std::string_view title = owner.title();
  const bool an = title.starts_with("mlx") ||
                  (!title.empty() && std::string_view("aeiouAEIOU").find(title[0]) != std::string_view::npos);
  return Error::usage(field, fmt::format("is {} {} setting: give engine {}", an ? "an" : "a", title,
                                         owner.name()));
}

Error EngineRegistry::unsupported(const EngineProfile& engine, EngineCommand command) const {
  std::vector<std::string_view> answering;
  for (const auto& e : engines_) {
    if (e->supports(command)) answering.push_back(e->name());
  }
  return Error::usage("engine", fmt::format("{} is not priced by {}; {} takes {}", engine.name(),
                                            to_string(command), to_string(command),
                                            names_in_words(answering)));
}

}  // namespace memfit
