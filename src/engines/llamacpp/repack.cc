// The CPU_REPACK buffer (docs/llamacpp-rules.md, "Model weights", has the
// rule and llama.cpp's sources): on a CPU run, every matrix-multiplication
// weight whose type and row count have a kernel on the running CPU, padded
// to 32, on top of the mapped file range that still spans the originals.
// Which tensors are matmul weights is read from names and shapes only:
// every 2-D tensor except the row-lookup tables, and 3-D tensors named
// "*_exps*".
#include <charconv>
#include <optional>
#include <string_view>

#include "engines/llamacpp/parts.h"
#include "engines/llamacpp/releases.h"
#include "memfit/checked_math.h"
#include "memfit/llamacpp.h"

namespace memfit {
namespace {

constexpr uint64_t kCpuAlignment = 32;

// The row multiple the CPU's kernel for `dtype` needs; 0: no kernel.
uint64_t row_multiple(std::string_view dtype, RepackKernels kernels) {
  auto is = [dtype](GgmlType type) { return dtype == ggml_type_traits(type).name; };
  switch (kernels.cpu) {
    case RepackCpu::kAuto:  // taken as x86-avx2 (resolve_repack_cpu says so)
    case RepackCpu::kX86Avx2:
      return is(GgmlType::kQ4_0) || is(GgmlType::kQ4_K) || is(GgmlType::kIQ4_NL) ||
                     is(GgmlType::kMXFP4)
                 ? 8
                 : 0;
    case RepackCpu::kX86Avx512:
      return is(GgmlType::kQ4_0) || is(GgmlType::kQ4_K) || is(GgmlType::kIQ4_NL) ||
                     is(GgmlType::kMXFP4) || is(GgmlType::kQ2_K)
                 ? 8
                 : 0;
    case RepackCpu::kArm:
      if (is(GgmlType::kQ4_0) || is(GgmlType::kIQ4_NL) || is(GgmlType::kMXFP4) ||
          is(GgmlType::kQ8_0)) {
        return 4;
      }
      // v0.5.0's ggml_repack_get_optimal_repack_type: Q1_0 4x8 with NEON and
      // i8mm, 4x4 with NEON and dotprod, rows a multiple of 4 either way.
      if (kernels.q1_0 && is(GgmlType::kQ1_0)) return 4;
      return is(GgmlType::kQ4_K) || is(GgmlType::kQ5_K) || is(GgmlType::kQ6_K) ? 8 : 0;
    case RepackCpu::kNone:
      return 0;
  }
  return 0;
}

// ne[1] (shapes are outermost first), the tensor's row count.
uint64_t rows(const SafetensorsTensor& t) { return t.shape[t.shape.size() - 2]; }

bool qualifies(const SafetensorsTensor& t, RepackKernels kernels) {
  if (t.shape.size() < 2) return false;
  const uint64_t multiple = row_multiple(t.dtype, kernels);
  return multiple != 0 && rows(t) > 1 && rows(t) % multiple == 0;
}

bool is_lookup_table(std::string_view name) {
  return name == "token_embd.weight" || name == "per_layer_token_embd.weight" ||
         name == "pos_embd.weight" || name == "token_types.weight";
}

// The block index of "blk.N.*"; nullopt for other names.
std::optional<uint64_t> block_index(std::string_view name) {
  constexpr std::string_view kPrefix = "blk.";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  uint64_t index = 0;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), index);
  if (ec != std::errc() || end == name.data() || end == name.data() + name.size() || *end != '.') {
    return std::nullopt;
  }
  return index;
}

bool is_matmul_weight(const SafetensorsTensor& t) {
  if (is_lookup_table(t.name)) return false;
  if (t.shape.size() == 2) return true;
  return t.shape.size() == 3 && t.name.find("_exps") != std::string::npos;
}

CheckedBytes pad(uint64_t bytes) {
  const uint64_t rest = bytes % kCpuAlignment;
  return CheckedBytes(bytes) + (rest == 0 ? 0 : kCpuAlignment - rest);
}

}  // namespace

Result<uint64_t> llamacpp_repack_bytes(const std::vector<SafetensorsTensor>& tensors,
                                       uint64_t decoder_blocks, RepackKernels cpu) {
  if (cpu.cpu == RepackCpu::kNone) return uint64_t{0};
  CheckedBytes total = 0;
  const SafetensorsTensor* token_embd = nullptr;
  bool has_output = false;
  for (const SafetensorsTensor& t : tensors) {
    if (t.name == "token_embd.weight") token_embd = &t;
    if (t.name == "output.weight") has_output = true;
    if (!is_matmul_weight(t) || !qualifies(t, cpu)) continue;
    if (std::optional<uint64_t> block = block_index(t.name); block && *block >= decoder_blocks) {
      continue;  // a NextN/MTP block: not loaded
    }
    total += pad(t.data_bytes);
  }
  // A tied output is token_embd's matrix created a second time for the
  // output matmul; on the CPU it lands in CPU_REPACK when it qualifies.
  if (!has_output && token_embd != nullptr && qualifies(*token_embd, cpu)) {
    total += pad(token_embd->data_bytes);
  }
  if (!total.value()) return Error::overflow("llama.cpp repack buffer overflows 64 bits");
  return *total.value();
}

RepackCounts llamacpp_repack_counts(const std::vector<SafetensorsTensor>& tensors, uint64_t decoder_blocks,
                                    RepackKernels cpu) {
  RepackCounts out;
  const SafetensorsTensor* token_embd = nullptr;
  bool has_output = false;
  for (const SafetensorsTensor& t : tensors) {
    if (t.name == "token_embd.weight") token_embd = &t;
    if (t.name == "output.weight") has_output = true;
    if (std::optional<uint64_t> block = block_index(t.name); block && *block >= decoder_blocks) continue;
    ++out.loaded;
    if (cpu.cpu != RepackCpu::kNone && is_matmul_weight(t) && qualifies(t, cpu)) ++out.repacked;
  }
  if (!has_output && token_embd != nullptr) {
    ++out.loaded;
    if (cpu.cpu != RepackCpu::kNone && qualifies(*token_embd, cpu)) ++out.repacked;
  }
  return out;
}

Result<uint64_t> llamacpp_repack_bytes(const std::vector<SafetensorsTensor>& tensors,
                                       uint64_t decoder_blocks, RepackCpu cpu) {
  return llamacpp_repack_bytes(tensors, decoder_blocks, RepackKernels{.cpu = cpu});
}

RepackCounts llamacpp_repack_counts(const std::vector<SafetensorsTensor>& tensors, uint64_t decoder_blocks,
                                    RepackCpu cpu) {
  return llamacpp_repack_counts(tensors, decoder_blocks, RepackKernels{.cpu = cpu});
}

Result<uint64_t> llamacpp_host_extra_buffer_bytes(const std::vector<SafetensorsTensor>& host_tensors,
                                                  RepackCpu cpu) {
  CheckedBytes total = 0;
  for (const SafetensorsTensor& t : host_tensors) {
    if (!is_matmul_weight(t) || t.shape.size() < 2 || rows(t) <= 1) continue;
    // ggml-cpu-aarch64.cpp's kernels then: Q4_0 8x8 with AVX2 (AVX-512
    // CPUs run AVX2's), Q4_0 4x4 and IQ4_NL 4x4 on ARM; none for the
    // K-quants on x86 (#12213, b4783 with AVX2: "tensor 'token_embd.weight'
    // (q4_K) (and 222 others) cannot be used with preferred buffer type
    // CPU_AARCH64").
    const bool x86 = cpu == RepackCpu::kAuto || cpu == RepackCpu::kX86Avx2 || cpu == RepackCpu::kX86Avx512;
    const bool q4_0 = t.dtype == ggml_type_traits(GgmlType::kQ4_0).name;
    const bool iq4_nl = t.dtype == ggml_type_traits(GgmlType::kIQ4_NL).name;
    const uint64_t multiple = x86 && q4_0 ? 8 : cpu == RepackCpu::kArm && (q4_0 || iq4_nl) ? 4 : 0;
    if (multiple == 0 || rows(t) % multiple != 0) continue;
    total += pad(t.data_bytes);
  }
  if (!total.value()) return Error::overflow("llama.cpp CPU_AARCH64 buffer overflows 64 bits");
  return *total.value();
}

RepackCpu resolve_repack_cpu(RepackCpu requested, const CpuFeatures& host, std::string* assumption) {
  if (requested != RepackCpu::kAuto) return requested;
  switch (host.arch) {
    case CpuFeatures::Arch::kX86:
      if (host.avx512f || host.amx_int8) return RepackCpu::kX86Avx512;
      return host.avx2 ? RepackCpu::kX86Avx2 : RepackCpu::kNone;
    case CpuFeatures::Arch::kArm:
      return host.asimddp ? RepackCpu::kArm : RepackCpu::kNone;
    case CpuFeatures::Arch::kUnknown:
      break;
  }
  if (assumption != nullptr) {
    *assumption =
        "this host's CPU features are unknown: llama.cpp's weight repacking is sized for an x86 "
        "CPU with AVX2 (give --repack to choose)";
  }
  return RepackCpu::kX86Avx2;
}

}  // namespace memfit
