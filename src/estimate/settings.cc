#include <charconv>

#include <fmt/format.h>

#include "base/untrusted_text.h"
#include "memfit/settings.h"

namespace memfit {
namespace {

// The value of MEMFIT_<name>, else MLXCEL_<name>, with the name it came from.
std::optional<std::pair<std::string, std::string>> lookup(const Environment& env,
                                                          const std::string& name) {
  for (const char* prefix : {"MEMFIT_", "MLXCEL_"}) {
    std::string full = prefix + name;
    if (auto value = env.get(full)) return std::pair{full, *value};
  }
  return std::nullopt;
}

std::optional<uint64_t> parse_count(std::string_view text) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

EstimateSettings settings_from_environment(const Environment& env,
                                           std::vector<std::string>& warnings) {
  EstimateSettings s;
  if (auto v = lookup(env, "MEMORY_LIMIT")) {
    Result<std::optional<uint64_t>> limit = parse_memory_size(v->second);
    if (limit) {
      s.memory_limit_bytes = *limit;
    } else {
      warnings.push_back(fmt::format("{}: {}; ignored", v->first, limit.error().message()));
    }
  }
  if (auto v = lookup(env, "HEADROOM_FACTOR")) {
    Result<uint64_t> factor = parse_multiplier_micros(v->second);
    if (factor) {
      s.headroom_factor_micros = *factor;
    } else {
      warnings.push_back(fmt::format("{}: {}; using the default 1.20", v->first,
                                     factor.error().message()));
    }
  }
  if (auto v = lookup(env, "ACTIVATION_MULT")) {
    Result<uint64_t> mult = parse_multiplier_micros(v->second);
    if (mult) {
      s.activation_mult_micros = *mult;
    } else {
      warnings.push_back(fmt::format("{}: {}; using the default 2.0", v->first,
                                     mult.error().message()));
    }
  }
  if (auto v = lookup(env, "PREFILL_CHUNK")) {
    if (auto chunk = parse_count(v->second)) {
      s.prefill_chunk_tokens = *chunk;
    } else {
      warnings.push_back(fmt::format("{}: {} is not a token count; using the default 2048",
                                     v->first, quote_untrusted(v->second)));
    }
  }
  for (const char* name : {"MEMFIT_ROCM_MAX_INFLIGHT_MB", "MLX_ROCM_MAX_INFLIGHT_MB"}) {
    auto v = env.get(name);
    if (!v) continue;
    if (auto mib = parse_count(*v); mib && *mib <= (1ull << 40)) {
      s.rocm_inflight_mib = *mib;
    } else {
      warnings.push_back(fmt::format("{}: {} is not a MiB count; using the default 1024", name,
                                     quote_untrusted(*v)));
    }
    break;
  }
  return s;
}

}  // namespace memfit
