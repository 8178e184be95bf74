// The placement flags' texts (llamacpp_placement.h), spelled as llama.cpp's
// common/arg.cpp takes them. Inputs are untrusted: nothing is sized from
// them beyond their own length.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>
#include <string>

#include "memfit/llamacpp_placement.h"
#include "memfit/number_text.h"
#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

constexpr size_t kMaxGpus = 64;              // more than any machine has
constexpr size_t kMaxPatternBytes = 512;     // std::regex recursion grows with the pattern
constexpr size_t kMaxOverrides = 64;
constexpr uint64_t kMaxRepeatCount = 1000;   // libstdc++ copies the repeated atom this often

// What std::regex must not be given, found before it is: a back-reference
// (\N; libstdc++ parses its number into an int that overflows on long digit
// runs, and no tensor name needs one) and a repeat count over kMaxRepeatCount
// (the same int parse, and each repeat is a copy of the automaton). Returns
// the reason, or an empty string.
std::string regex_hazard(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      if (i + 1 < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[i + 1]))) {
        return "back-references (\\N) are not supported";
      }
      ++i;  // the escaped character is literal
      continue;
    }
    if (c != '{') continue;
    uint64_t value = 0;
    for (size_t j = i + 1; j < pattern.size() && pattern[j] != '}'; ++j) {
      const char d = pattern[j];
      if (d == ',') {
        value = 0;
      } else if (std::isdigit(static_cast<unsigned char>(d))) {
        value = value * 10 + static_cast<uint64_t>(d - '0');
        if (value > kMaxRepeatCount) {
          return fmt::format("a repeat count is at most {}", kMaxRepeatCount);
        }
      } else {
        break;  // not a repeat count: std::regex judges the rest
      }
    }
  }
  return {};
}

std::string_view trim(std::string_view t) {
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  return t;
}

std::optional<uint64_t> count_of(std::string_view t) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
  return n;
}

std::vector<std::string_view> split_list(std::string_view t, std::string_view separators) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t at = t.find_first_of(separators);
    out.push_back(trim(t.substr(0, at)));
    if (at == std::string_view::npos || out.size() > kMaxGpus) break;
    t.remove_prefix(at + 1);
  }
  return out;
}

}  // namespace

std::string_view to_string(SplitMode mode) {
  switch (mode) {
    case SplitMode::kNone:
      return "none";
    case SplitMode::kLayer:
      return "layer";
    case SplitMode::kRow:
      return "row";
  }
  return "layer";
}

Result<SplitMode> parse_split_mode(std::string_view text) {
  if (text == "none") return SplitMode::kNone;
  if (text == "layer") return SplitMode::kLayer;
  if (text == "row") return SplitMode::kRow;
  return Error::usage(fmt::format("{}: expected none, layer or row", quote_untrusted(text)));
}

Result<std::optional<uint64_t>> parse_n_gpu_layers(std::string_view text) {
  if (text == "auto" || text == "all" || text == "-1") return std::optional<uint64_t>{};
  std::optional<uint64_t> n = count_of(text);
  if (!n) {
    return Error::usage("n_gpu_layers",
                        fmt::format("{}: expected auto, all or a count", quote_untrusted(text)));
  }
  return std::optional<uint64_t>(*n);
}

Result<LlamaCppTensorOverride> parse_tensor_override(std::string_view text) {
  const size_t eq = text.rfind('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
    return Error::usage("override_tensor",
                        fmt::format("{}: expected PATTERN=DEVICE, e.g. exps=CPU", quote_untrusted(text)));
  }
  LlamaCppTensorOverride o;
  o.pattern = std::string(text.substr(0, eq));
  if (o.pattern.size() > kMaxPatternBytes) {
    return Error::usage("override_tensor", fmt::format("a pattern of at most {} bytes", kMaxPatternBytes));
  }
  std::string device(text.substr(eq + 1));
  std::string lower = device;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower != "cpu") {
    // A backend name and its index: CUDA0, ROCm1, Vulkan0; Metal is 0.
    size_t digits = lower.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(lower[digits - 1]))) --digits;
    const std::string_view backend = std::string_view(lower).substr(0, digits);
    const bool known = backend == "cuda" || backend == "rocm" || backend == "vulkan" ||
                       backend == "metal" || backend == "sycl" || backend == "gpu";
    std::optional<uint64_t> index =
        digits == lower.size() ? (backend == "metal" ? std::optional<uint64_t>(0) : std::nullopt)
                               : count_of(std::string_view(lower).substr(digits));
    if (!known || !index || *index >= kMaxGpus) {
      return Error::usage("override_tensor",
                          fmt::format("{}: expected CPU or a GPU such as CUDA0", quote_untrusted(device)));
    }
    o.gpu = *index;
  }
  if (std::string hazard = regex_hazard(o.pattern); !hazard.empty()) {
    return Error::usage("override_tensor", fmt::format("{}: {}", quote_untrusted(o.pattern), hazard));
  }
  try {
    std::regex compiled(o.pattern, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    return Error::usage("override_tensor",
                        fmt::format("{}: not a regular expression", quote_untrusted(o.pattern)));
  }
  return o;
}

Result<std::vector<double>> parse_tensor_split(std::string_view text) {
  std::vector<double> out;
  double sum = 0;
  for (std::string_view part : split_list(text, ",/")) {
    const std::optional<double> v = parse_double(part);
    if (!v || *v < 0 || *v > 1e12) {
      return Error::usage("tensor_split",
                          fmt::format("{}: expected proportions such as 24,12", quote_untrusted(text)));
    }
    out.push_back(*v);
    sum += *v;
  }
  if (out.size() > kMaxGpus) return Error::usage("tensor_split", fmt::format("at most {} GPUs", kMaxGpus));
  if (sum <= 0) return Error::usage("tensor_split", "the proportions are all 0");
  return out;
}

namespace {

// The backend a GPU key names, as llama.cpp prints its devices: "CUDA0"
// is cuda (ggml-cuda's buffers, which pad quantized rows), "ROCm1" rocm;
// a bare index names none ("gpu"). `key` keeps the index.
std::string_view gpu_backend(std::string_view& key) {
  for (auto [prefix, backend] : {std::pair<std::string_view, std::string_view>{"CUDA", "cuda"},
                                 {"ROCm", "rocm"}}) {
    if (key.starts_with(prefix)) {
      key.remove_prefix(prefix.size());
      return backend;
    }
  }
  return "gpu";
}

}  // namespace

Result<std::vector<LlamaCppGpu>> parse_gpu_memory(std::string_view text) {
  std::vector<std::optional<uint64_t>> sizes;
  std::vector<std::string_view> backends;
  const std::vector<std::string_view> parts = split_list(text, ",");
  if (parts.size() > kMaxGpus) return Error::usage("gpu_memory", fmt::format("at most {} GPUs", kMaxGpus));
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string_view part = parts[i];
    uint64_t index = i;
    std::string_view backend = "gpu";
    if (const size_t eq = part.find('='); eq != std::string_view::npos) {
      std::string_view key = trim(part.substr(0, eq));
      backend = gpu_backend(key);
      std::optional<uint64_t> n = count_of(key);
      if (!n || *n >= kMaxGpus) {
        return Error::usage("gpu_memory", fmt::format("{}: expected INDEX=SIZE, e.g. 0=24GiB",
                                                      quote_untrusted(part)));
      }
      index = *n;
      part = trim(part.substr(eq + 1));
    }
    Result<std::optional<uint64_t>> bytes = parse_memory_size(part);
    if (!bytes || !*bytes) {
      return Error::usage("gpu_memory",
                          fmt::format("{}: expected a size such as 24GiB", quote_untrusted(part)));
    }
    if (sizes.size() <= index) {
      sizes.resize(index + 1);
      backends.resize(index + 1, "gpu");
    }
    if (sizes[index]) return Error::usage("gpu_memory", fmt::format("GPU {} is given twice", index));
    sizes[index] = **bytes;
    backends[index] = backend;
  }
  std::vector<LlamaCppGpu> out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!sizes[i]) return Error::usage("gpu_memory", fmt::format("GPU {} is missing", i));
    out.push_back(LlamaCppGpu{fmt::format("{}:{}", backends[i], i), "", *sizes[i]});
  }
  return out;
}

std::string_view LlamaCppPlacementRequest::first_given() const {
  if (n_gpu_layers) return "n_gpu_layers";
  if (n_cpu_moe) return "n_cpu_moe";
  if (!override_tensor.empty()) return "override_tensor";
  if (split_mode) return "split_mode";
  if (!tensor_split.empty()) return "tensor_split";
  if (main_gpu) return "main_gpu";
  if (no_mmap) return "no_mmap";
  if (mlock) return "mlock";
  if (no_kv_offload) return "no_kv_offload";
  if (gpu_memory) return "gpu_memory";
  if (gpu_margin) return "gpu_margin";
  return "";
}

LlamaCppPlacementSettings LlamaCppPlacementRequest::applied(LlamaCppPlacementSettings s) const {
  if (n_gpu_layers) s.n_gpu_layers = *n_gpu_layers;
  s.n_cpu_moe = n_cpu_moe.value_or(s.n_cpu_moe);
  if (!override_tensor.empty()) s.overrides = override_tensor;
  s.split_mode = split_mode.value_or(s.split_mode);
  if (!tensor_split.empty()) s.tensor_split = tensor_split;
  s.main_gpu = main_gpu.value_or(s.main_gpu);
  if (no_mmap) s.mmap = !*no_mmap;
  s.mlock = mlock.value_or(s.mlock);
  if (no_kv_offload) s.kv_offload = !*no_kv_offload;
  if (gpu_memory) {
    s.gpus = *gpu_memory;
    s.unified = false;
  }
  s.gpu_margin_bytes = gpu_margin.value_or(s.gpu_margin_bytes);
  if (pipeline_parallel) s.pipeline_parallel = pipeline_parallel;
  s.host_extra_buffer = host_extra_buffer.value_or(s.host_extra_buffer);
  return s;
}

Status set_placement_field(LlamaCppPlacementRequest& r, std::string_view field, std::string_view text) {
  auto count = [&](std::optional<uint64_t>& slot) -> Status {
    std::optional<uint64_t> n = count_of(trim(text));
    if (!n) return Error::usage(field, fmt::format("{}: expected a count", quote_untrusted(text)));
    slot = *n;
    return Status::Ok();
  };
  auto flag = [&](std::optional<bool>& slot) -> Status {
    if (text != "true" && text != "false") {
      return Error::usage(field, fmt::format("{}: expected true or false", quote_untrusted(text)));
    }
    slot = text == "true";
    return Status::Ok();
  };
  if (field == "n_gpu_layers") {
    Result<std::optional<uint64_t>> n = parse_n_gpu_layers(trim(text));
    if (!n) return n.error();
    r.n_gpu_layers = *n;
    return Status::Ok();
  }
  if (field == "n_cpu_moe") return count(r.n_cpu_moe);
  if (field == "main_gpu") return count(r.main_gpu);
  if (field == "no_mmap") return flag(r.no_mmap);
  if (field == "mlock") return flag(r.mlock);
  if (field == "no_kv_offload") return flag(r.no_kv_offload);
  if (field == "override_tensor") {
    for (std::string_view rule : split_list(text, ",")) {
      if (r.override_tensor.size() >= kMaxOverrides) {
        return Error::usage(field, fmt::format("at most {} rules", kMaxOverrides));
      }
      Result<LlamaCppTensorOverride> o = parse_tensor_override(rule);
      if (!o) return o.error();
      r.override_tensor.push_back(std::move(*o));
    }
    return Status::Ok();
  }
  if (field == "split_mode") {
    Result<SplitMode> mode = parse_split_mode(trim(text));
    if (!mode) return Error::usage(field, mode.error().message());
    r.split_mode = *mode;
    return Status::Ok();
  }
  if (field == "tensor_split") {
    Result<std::vector<double>> ts = parse_tensor_split(text);
    if (!ts) return ts.error();
    r.tensor_split = std::move(*ts);
    return Status::Ok();
  }
  if (field == "gpu_memory") {
    Result<std::vector<LlamaCppGpu>> gpus = parse_gpu_memory(text);
    if (!gpus) return gpus.error();
    r.gpu_memory = std::move(*gpus);
    return Status::Ok();
  }
  if (field == "gpu_margin") {
    Result<std::optional<uint64_t>> bytes = parse_memory_size(trim(text));
    if (!bytes) return Error::usage(field, bytes.error().message());
    r.gpu_margin = bytes->value_or(0);
    return Status::Ok();
  }
  return Error::usage(field, "an unknown placement field");
}

}  // namespace memfit
