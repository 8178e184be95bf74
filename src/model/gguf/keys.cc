// GgufArchKeys (model/gguf/keys.h): a GGUF header's "<arch>.<name>" keys
// read as llama.cpp reads them, with errors that name the key.
#include "model/gguf/keys.h"

#include <fmt/format.h>

#include "memfit/untrusted_text.h"
#include "model/gguf/values.h"

namespace memfit {
namespace {

Status within_count_limit(const GgufArchKeys& keys, std::string_view name, uint64_t value,
                          std::string_view what) {
  if (value <= kMaxGgufCount) return Status::Ok();
  return keys.error(
      name, fmt::format("{} {}, more than the 32 bits llama.cpp reads it into", what, value));
}

}  // namespace

std::string GgufArchKeys::key(std::string_view name) const {
  return fmt::format("{}.{}", arch_, name);
}

Error GgufArchKeys::error(std::string_view name, std::string_view detail) const {
  return Error(fmt::format("gguf metadata: {} {}", quote_untrusted(key(name)), detail));
}

Result<std::optional<uint64_t>> GgufArchKeys::count(std::string_view name) const {
  if (!has(name)) return std::optional<uint64_t>();
  Result<uint64_t> value = header_.get_uint64(key(name));
  if (!value.ok()) return value.error();
  if (Status ok = within_count_limit(*this, name, *value, "is"); !ok.ok()) return ok.error();
  return std::optional<uint64_t>(*value);
}

Result<uint64_t> GgufArchKeys::required_count(std::string_view name, std::string_view why) const {
  if (!has(name)) {
    return error(name,
                 why.empty() ? std::string("is missing") : fmt::format("is missing ({})", why));
  }
  Result<std::optional<uint64_t>> value = count(name);
  if (!value.ok()) return value.error();
  return **value;
}

Result<std::optional<std::vector<uint64_t>>> GgufArchKeys::per_layer(std::string_view name,
                                                                     uint64_t layers) const {
  const GgufValue* value = header_.find(key(name));
  if (value == nullptr) return std::optional<std::vector<uint64_t>>();
  if (value->type != GgufValueType::kArray) {
    Result<std::optional<uint64_t>> scalar = count(name);
    if (!scalar.ok()) return scalar.error();
    return std::optional<std::vector<uint64_t>>(std::vector<uint64_t>(layers, **scalar));
  }
  const auto& array = std::get<GgufArray>(value->data);
  if (array.count != layers) {
    return error(name, fmt::format("has {} entries, but {} is {}", array.count,
                                   quote_untrusted(key("block_count")), layers));
  }
  Result<std::vector<uint64_t>> values = header_.get_uint64_array(key(name));
  if (!values.ok()) return values.error();
  for (size_t i = 0; i < values->size(); ++i) {
    Status ok = within_count_limit(*this, name, (*values)[i], fmt::format("element {} is", i));
    if (!ok.ok()) return ok.error();
  }
  return std::optional<std::vector<uint64_t>>(std::move(*values));
}

Result<std::optional<std::vector<bool>>> GgufArchKeys::per_layer_flags(std::string_view name,
                                                                       uint64_t layers) const {
  const GgufValue* value = header_.find(key(name));
  if (value == nullptr || value->type != GgufValueType::kArray) {
    return std::optional<std::vector<bool>>();
  }
  const auto& array = std::get<GgufArray>(value->data);
  if (array.element_type != GgufValueType::kBool) {
    Result<std::optional<std::vector<uint64_t>>> numbers = per_layer(name, layers);
    if (!numbers.ok()) return numbers.error();
    std::vector<bool> flags;
    for (uint64_t n : **numbers) flags.push_back(n != 0);
    return std::optional<std::vector<bool>>(std::move(flags));
  }
  if (array.count != layers) {
    return error(name, fmt::format("has {} entries, but {} is {}", array.count,
                                   quote_untrusted(key("block_count")), layers));
  }
  // A bool array of block_count (<= kMaxLayers) entries is always kept:
  // one byte each.
  if (!array.kept || array.number_bytes.size() != layers) {
    return error(name, "is an array memfit did not keep");
  }
  std::vector<bool> flags;
  for (char byte : array.number_bytes) flags.push_back(byte != 0);
  return std::optional<std::vector<bool>>(std::move(flags));
}

}  // namespace memfit
