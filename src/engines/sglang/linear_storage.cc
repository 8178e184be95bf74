// linear_storage() and the expert widths (linear_storage.h).
#include "engines/sglang/linear_storage.h"

#include <string>

namespace memfit::sglang {
namespace {

constexpr uint64_t kFp8Bytes = 1;    // float8_e4m3 parameters
constexpr uint64_t kScaleBytes = 4;  // an FP8 block's fp32 weight_scale_inv

}  // namespace

std::optional<LinearStorage> linear_storage(const QuantizationInfo& q, bool (*mixed)(std::string_view module)) {
  if (q.method.empty()) return LinearStorage{};
  if (q.method != "fp8") return std::nullopt;
  for (const std::string& module : q.unquantized_modules) {
    if (mixed(module)) return std::nullopt;
  }
  LinearStorage s{.element_bytes = kFp8Bytes};
  if (q.block_size.size() == 2 && q.block_size[0] != 0 && q.block_size[1] != 0) {
    s.block_rows = q.block_size[0], s.block_cols = q.block_size[1];
  }
  return s;
}

CheckedBytes weight_bytes(const LinearStorage& s, CheckedBytes rows, uint64_t cols) {
  return rows * cols * s.element_bytes;
}

CheckedBytes scale_grid_bytes(const LinearStorage& s, CheckedBytes rows, uint64_t cols) {
  if (s.block_rows == 0 || s.block_cols == 0) return CheckedBytes(0);
  return CheckedBytes::ceil_div(rows, s.block_rows) *
         CheckedBytes::ceil_div(CheckedBytes(cols), s.block_cols).saturated() * kScaleBytes;
}

CheckedBytes linear_bytes(const LinearStorage& s, CheckedBytes rows, uint64_t cols) {
  return weight_bytes(s, rows, cols) + scale_grid_bytes(s, rows, cols);
}

uint64_t routed_expert_width(const ModelSpec& spec) {
  return spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : spec.geometry.intermediate;
}

CheckedBytes shared_expert_width(const ModelSpec& spec) {
  if (spec.moe.shared_expert_intermediate != 0) return CheckedBytes(spec.moe.shared_expert_intermediate);
  return CheckedBytes(routed_expert_width(spec)) * spec.moe.shared_experts;
}

}  // namespace memfit::sglang
