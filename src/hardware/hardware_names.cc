// Finding a table row by the name a user writes (memfit/hardware.h): ids,
// aliases and printed names, compared as hardware_key()s, so "RTX 4090",
// "rtx-4090" and "NVIDIA GeForce RTX 4090" all find rtx4090. A name that
// finds nothing is answered with the rows whose keys are nearest by edit
// distance (Levenshtein over the keys' bytes).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <span>
#include <vector>

#include "memfit/edit_distance.h"
#include "memfit/hardware.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

constexpr size_t kNearest = 3;
constexpr std::array<std::string_view, 3> kVendorPrefixes = {"nvidia", "amd", "intel"};

std::string_view without_prefix(std::string_view key, std::span<const std::string_view> prefixes) {
  for (std::string_view p : prefixes) {
    if (key.size() > p.size() && key.starts_with(p)) return key.substr(p.size());
  }
  return key;
}

// One row's keys: what it answers to.
std::vector<std::string> gpu_keys(const GpuSpec& g) {
  std::vector<std::string> keys = {hardware_key(g.id), hardware_key(g.name)};
  keys.emplace_back(without_prefix(keys[1], kVendorPrefixes));
  for (const std::string& alias : g.aliases) keys.push_back(hardware_key(alias));
  return keys;
}

std::vector<std::string> mac_keys(const MacSpec& m) {
  return {hardware_key(m.id), hardware_key(m.title())};
}

// How far a key is from the name, in half edits: twice the edit distance,
// but 1 when one begins with the other ("rtx4090ti" and rtx4090).
size_t remoteness(std::string_view name, std::string_view key) {
  const size_t shorter = std::min(name.size(), key.size());
  if (shorter >= 3 && (name.starts_with(key) || key.starts_with(name))) return 1;
  return 2 * edit_distance(name, key);
}

// Up to kNearest rows' ids, nearest first (then in table order), within
// what still reads as a typo: a third of the key's edits, at least 3.
template <typename Row, typename KeysOf>
std::string nearest_ids(const std::vector<Row>& rows, std::string_view key, KeysOf keys_of) {
  std::vector<std::pair<size_t, size_t>> ranked;  // (remoteness, row)
  for (size_t i = 0; i < rows.size(); ++i) {
    size_t best = SIZE_MAX;
    for (const std::string& k : keys_of(rows[i])) best = std::min(best, remoteness(key, k));
    if (best <= 2 * std::max<size_t>(3, key.size() / 3)) ranked.emplace_back(best, i);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string ids;
  for (size_t i = 0; i < ranked.size() && i < kNearest; ++i) {
    ids += (i == 0 ? "" : ", ") + rows[ranked[i].second].id;
  }
  return ids;
}

// "a, b and c".
std::string listed(const std::vector<std::string>& ids, std::string_view last = " and ") {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) text += i + 1 == ids.size() ? std::string(last) : std::string(", ");
    text += ids[i];
  }
  return text;
}

Error no_such(std::string_view what, std::string_view name, const std::string& nearest) {
  return Error::usage(fmt::format("{}: no such {}{} (memfit hardware lists them)",
                                  quote_untrusted(name), what,
                                  nearest.empty() ? "" : "; nearest: " + nearest));
}

}  // namespace

std::string hardware_key(std::string_view name) {
  std::string key;
  for (char c : name) {
    if (c == ' ' || c == '-' || c == '_') continue;
    key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  for (std::string_view mark : {"(tm)", "(r)"}) {
    for (size_t at = key.find(mark); at != std::string::npos; at = key.find(mark))
      key.erase(at, mark.size());
  }
  return key;
}

Result<const GpuSpec*> find_gpu(const HardwareTable& table, std::string_view name) {
  const std::string key = hardware_key(name);
  const std::string_view bare = without_prefix(key, kVendorPrefixes);
  std::vector<const GpuSpec*> found;
  for (const GpuSpec& g : table.gpus) {
    const std::vector<std::string> keys = gpu_keys(g);
    if (std::find(keys.begin(), keys.end(), key) != keys.end() ||
        std::find(keys.begin(), keys.end(), bare) != keys.end()) {
      found.push_back(&g);
    }
  }
  if (found.empty()) return no_such("GPU", name, nearest_ids(table.gpus, key, gpu_keys));
  if (found.size() > 1) {
    // Cards sold with two memory sizes print one name (an RTX 3080 of 10
    // or 12 GB): the id says which.
    std::vector<std::string> ids;
    for (const GpuSpec* g : found) ids.push_back(g->id);
    return Error::usage(fmt::format("{} is the printed name of {}: give one of them",
                                    quote_untrusted(name), listed(ids)));
  }
  const GpuSpec* gpu = found.front();
  if (gpu->memory_mib == 0) {
    return Error::usage(fmt::format("{} ({}) has no memory of its own: {}", quote_untrusted(name),
                                    gpu->id, std::string_view(gpu->memory_basis).substr(6)));
  }
  return gpu;
}

Result<const MacSpec*> find_mac(const HardwareTable& table, std::string_view name) {
  const std::string key = hardware_key(name);
  const std::string_view bare = without_prefix(key, std::array<std::string_view, 1>{"apple"});
  std::vector<std::string> sizes;  // the chip's rows when the name is a chip alone
  for (const MacSpec& m : table.macs) {
    const std::vector<std::string> keys = mac_keys(m);
    if (std::find(keys.begin(), keys.end(), bare) != keys.end()) return &m;
    if (hardware_key(m.chip) == bare) sizes.push_back(m.id);
  }
  if (!sizes.empty()) {
    return Error::usage(fmt::format("{} is a chip: give its memory too: {}", quote_untrusted(name),
                                    listed(sizes, " or ")));
  }
  return no_such("Mac", name, nearest_ids(table.macs, std::string(bare), mac_keys));
}

}  // namespace memfit
