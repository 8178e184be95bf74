// DeepSeek V4's KV cache under vLLM (vllm/compressed_kv.h).
//
// Read at vLLM of June 2026, the v0.23 line (after #44454, which moved the
// DeepSeek V4 allocator into v1/core/kv_cache_utils.py; its rule is the
// one #40860 brought in April). Each decoder layer registers:
//   - its window, DeepseekV4SWACache (v1/attention/backends/mla/
//     sparse_swa.py): a SlidingWindowMLASpec of 64-token blocks and the
//     config's sliding_window;
//   - a layer of compress ratio r in {4, 128}: its compressed rows, an
//     MLAAttentionSpec of the 256-token block holding 256 / r rows
//     (models/deepseek_v4/attention.py), and its compressor's state,
//     CompressorStateCache (models/deepseek_v4/compressor.py): 2 x coff x
//     head_dim float32 a token (running KV and score; coff 2 at r = 4,
//     whose windows overlap, else 1), a SlidingWindowMLASpec of 4-token
//     (r = 4) or 8-token (r = 128) blocks and a window of coff x r;
//   - a layer of ratio 4 also the indexer's keys, DeepseekV4IndexerCache:
//     an MLAAttentionSpec of index_head_dim fp8 bytes and a float32 scale
//     per 128 a compressed row, and the indexer's own compressor state
//     (index_head_dim wide).
// With --kv-cache-dtype fp8 a row is fp8_ds_mla's 584 bytes (448 fp8 NoPE,
// 64 bf16 RoPE, 8 scale bytes) and every page is padded to a multiple of
// 576 B (kv_cache_interface.py, _apply_alignment_padding); the indexer's
// pages always are. Otherwise a row is head_dim 16-bit values, unpadded.
//
// Grouping (get_kv_cache_groups -> group_and_unify_kv_cache_specs,
// _get_kv_cache_groups_uniform_groups): every full spec in one group; the
// sliding ones by (block size, window), each padded to the nearest full
// page at least its size and split into groups of at most T layer tuples,
// T the count _approximate_gcd picks. The pool (_bucket_layers_by_page_size,
// _get_kv_cache_config_deepseek_v4) holds, per page size, as many tensors
// as the most layers of that size in one group; a block costs their sum.
#include "engines/vllm/compressed_kv.h"

#include <algorithm>
#include <map>
#include <vector>

#include "memfit/checked_math.h"

namespace memfit {
namespace {

constexpr uint64_t kRowBytes = 584;         // fp8_ds_mla: 448 + 64 x 2 + 8
constexpr uint64_t kAlignment = 576;        // FlashMLA's paged layout
constexpr uint64_t kWindowBlock = 64;       // DeepseekV4SWACache.block_size
constexpr uint64_t kIndexerQuantBlock = 128;  // one float32 scale per 128 key values
constexpr uint64_t kStateBytes = 4;         // the compressor state is float32
// Widths past these are no DeepSeek V4 config's (512 and 128 wide).
constexpr uint64_t kMaxWidth = 1ull << 20;
constexpr uint64_t kMaxWindow = 1ull << 32;

uint64_t round_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

// The sliding specs of one (block size, window), one page per layer, in
// the order the layers register them.
struct WindowSpecs {
  uint64_t block = 0;
  uint64_t window = 0;
  std::vector<uint64_t> pages;
};

struct Specs {
  std::vector<uint64_t> full_pages;  // compressed rows and indexer keys, one per layer
  std::vector<WindowSpecs> windows;
};

void add_window(Specs& specs, uint64_t block, uint64_t window, uint64_t page) {
  auto it = std::find_if(specs.windows.begin(), specs.windows.end(), [&](const WindowSpecs& w) {
    return w.block == block && w.window == window;
  });
  if (it == specs.windows.end()) {
    specs.windows.push_back(WindowSpecs{block, window, {}});
    it = specs.windows.end() - 1;
  }
  it->pages.push_back(page);
}

// The most layers of one page size (UniformTypeKVCacheSpecs.get_num_layer_tuples).
uint64_t tuples_of(const std::vector<uint64_t>& pages) {
  std::map<uint64_t, uint64_t> count;
  uint64_t most = 0;
  for (uint64_t p : pages) most = std::max(most, ++count[p]);
  return most;
}

std::optional<Specs> layer_specs(const CompressedAttentionGeometry& g, bool fp8) {
  if (g.head_dim == 0 || g.head_dim > kMaxWidth || g.index_head_dim > kMaxWidth ||
      g.window_tokens == 0 || g.window_tokens > kMaxWindow) {
    return std::nullopt;
  }
  const auto padded = [&](uint64_t bytes) { return fp8 ? round_up(bytes, kAlignment) : bytes; };
  const auto rows = [&](uint64_t tokens) { return tokens * (fp8 ? kRowBytes : g.head_dim * 2); };
  const uint64_t indexer_row = g.index_head_dim + g.index_head_dim / kIndexerQuantBlock * 4;
  Specs out;
  for (uint64_t r : g.compress_ratios) {
    add_window(out, kWindowBlock, g.window_tokens, padded(rows(kWindowBlock)));
    if (r <= 1) continue;
    // CompressorStateCache raises on any other ratio.
    if (r != 4 && r != 128) return std::nullopt;
    const uint64_t stored = kVllmCompressedBlockSize / r;
    const uint64_t coff = r == 4 ? 2 : 1;
    const uint64_t state_block = r == 4 ? 4 : 8;
    out.full_pages.push_back(padded(rows(stored)));
    if (r == 4) {
      if (g.index_head_dim == 0) return std::nullopt;
      out.full_pages.push_back(round_up(stored * indexer_row, kAlignment));
      add_window(out, state_block, coff * r,
                 padded(state_block * 2 * coff * g.index_head_dim * kStateBytes));
    }
    add_window(out, state_block, coff * r, padded(state_block * 2 * coff * g.head_dim * kStateBytes));
  }
  if (out.full_pages.empty()) return std::nullopt;  // vLLM asserts a full spec
  return out;
}

VllmGroup make_group(VllmSpecKind kind, uint64_t window, uint64_t block, uint64_t layers,
                     uint64_t page_bytes) {
  VllmGroup g;
  g.kind = kind;
  g.window = window;
  g.block_size = block;
  g.layers = layers;
  g.page_bytes = page_bytes;
  return g;
}

std::optional<VllmKvLayout> group_specs(const Specs& specs) {
  std::map<uint64_t, uint64_t> full_count;  // page -> layers
  for (uint64_t p : specs.full_pages) ++full_count[p];
  std::vector<uint64_t> counts{tuples_of(specs.full_pages)};
  for (const WindowSpecs& w : specs.windows) counts.push_back(tuples_of(w.pages));
  const uint64_t tuples = vllm_layer_tuples(counts, counts[0]);

  VllmKvLayout out;
  std::map<uint64_t, uint64_t> slots = full_count;  // page -> tensors of the pool
  CheckedBytes full_bytes = 0, tuple_bytes = 0;
  for (const auto& [page, n] : full_count) {
    full_bytes += CheckedBytes(page) * n;
    tuple_bytes += CheckedBytes(page);
  }
  out.groups.push_back(make_group(VllmSpecKind::kMla, 0, kVllmCompressedBlockSize,
                                  specs.full_pages.size(), full_bytes.saturated()));
  uint64_t needed_tuples = counts[0];
  for (const WindowSpecs& w : specs.windows) {
    std::map<uint64_t, uint64_t> per_page;  // the full page it is padded to -> layers
    for (uint64_t p : w.pages) {
      auto up = full_count.lower_bound(p);
      if (up == full_count.end()) return std::nullopt;  // vLLM asserts it cannot happen
      ++per_page[up->first];
    }
    const uint64_t n = per_page.begin()->second;
    CheckedBytes tuple = 0;
    for (const auto& [page, m] : per_page) {
      if (m != n) return std::nullopt;  // vLLM asserts each page size has as many layers
      tuple += CheckedBytes(page);
    }
    const uint64_t parts = (n + tuples - 1) / tuples;
    for (uint64_t i = 0; i < parts; ++i) {
      const uint64_t size = n / parts + (i < n % parts ? 1 : 0);  // layers[i::parts]
      out.groups.push_back(make_group(VllmSpecKind::kSlidingWindow, w.window, w.block,
                                      size * per_page.size(), (tuple * size).saturated()));
      for (const auto& [page, m] : per_page) slots[page] = std::max(slots[page], size);
      needed_tuples = std::max(needed_tuples, size);
    }
  }
  CheckedBytes per_block = 0;
  for (const auto& [page, n] : slots) per_block += CheckedBytes(page) * n;
  out.bytes_per_block = per_block.saturated();
  out.page_size_bytes = full_count.rbegin()->first;
  out.group_size = tuples;
  out.attention_block_size = kVllmCompressedBlockSize;
  out.request_unit_bytes = out.groups[0].page_bytes;
  out.request_tuple_bytes = (tuple_bytes * needed_tuples).saturated();
  return out;
}

}  // namespace

uint64_t vllm_layer_tuples(std::span<const uint64_t> counts, uint64_t lower_bound) {
  if (counts.empty()) return 0;
  const uint64_t low = std::max<uint64_t>(1, lower_bound);
  const uint64_t high = *std::max_element(counts.begin(), counts.end());
  uint64_t best = low;
  uint64_t best_pad = UINT64_MAX;
  for (uint64_t d = low; d <= high; ++d) {
    uint64_t pad = 0;
    for (uint64_t x : counts) pad += (d - x % d) % d;
    if (pad <= best_pad) {  // ties: the larger d
      best_pad = pad;
      best = d;
    }
  }
  return best;
}

std::optional<VllmKvLayout> vllm_compressed_layout(const ModelSpec& spec, const VllmSettings& s) {
  if (spec.compressed_attention.compress_ratios.empty()) return std::nullopt;
  const std::optional<Specs> specs = layer_specs(spec.compressed_attention, s.kv_cache_fp8);
  if (!specs) return std::nullopt;
  return group_specs(*specs);
}

}  // namespace memfit
