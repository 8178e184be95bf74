#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "memfit/memory_size.h"
#include "memfit/number_text.h"
#include "memfit/mlxcel_settings.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

std::string_view trimmed(std::string_view text) {
  constexpr std::string_view kSpace = " \t\n\r\f\v";
  const size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(kSpace) - begin + 1);
}

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

MlxcelSettings mlxcel_settings_from_environment(const Environment& env,
                                                std::vector<std::string>& warnings) {
  MlxcelSettings s;
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

Result<uint64_t> parse_multiplier_micros(std::string_view text) {
  const std::string_view s = trimmed(text);
  const std::optional<double> number = parse_double(s);
  if (!number) return Error(fmt::format("{} is not a number", quote_untrusted(text)));
  const double value = *number;
  if (value <= 0) return Error(fmt::format("{} is not positive", quote_untrusted(text)));
  if (value > 1e6) return Error(fmt::format("{} is implausibly large", quote_untrusted(text)));
  // Round to the nearest millionth first so 1.2 (binary 1.19999...) is
  // exactly 1'200'000, then never below the value given.
  return static_cast<uint64_t>(std::llround(value * 1e6));
}

}  // namespace memfit
