// place() (llamacpp/parts.h): the estimate split over the devices. Each
// block's weights, KV and recurrent state go to its device by -ngl,
// --tensor-split, --split-mode, -ot and --n-cpu-moe; the output buffer to
// the host; each device's compute buffer is the largest phase it runs. The
// rules, each with its place in llama.cpp v0.4.0: docs/llamacpp-rules.md,
// "Memory per device".
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <regex>
#include <string_view>

#include "engines/llamacpp/parts.h"
#include "memfit/checked_math.h"

namespace memfit::llamacpp {
namespace {

constexpr uint64_t kMaxBlocks = 1u << 20;

// The block index of a tensor named "blk.N." (GGUF; T5's encoder's
// "enc.blk.N.", LLM_TENSOR_ENC_* in llama-arch.cpp) or "...layers.N."
// (safetensors checkpoints); nullopt for any other name.
std::optional<uint64_t> block_of(std::string_view name) {
  size_t at = std::string_view::npos;
  size_t skip = 0;
  if (name.starts_with("blk.")) {
    at = 0;
    skip = 4;
  } else if (name.starts_with("enc.blk.")) {
    at = 0;
    skip = 8;
  } else if (size_t p = name.find("layers."); p != std::string_view::npos) {
    at = p;
    skip = 7;
  }
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = name.substr(at + skip);
  uint64_t index = 0;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), index);
  if (ec != std::errc() || end == rest.data() || end == rest.data() + rest.size() || *end != '.') {
    return std::nullopt;
  }
  return index;
}

// The output layer's tensors; an encoder's classification head (cls,
// cls.output: LLM_TENSOR_LAYER_OUTPUT in llama-arch.cpp's tensor infos)
// among them, and so Gemma 3n's AltUp projections (LLM_TENSOR_ALTUP_PROJ,
// _UNEMBD_PROJ: LLM_TENSOR_LAYER_OUTPUT since the architecture came in,
// #14400). Gemma 3n's and Gemma 4's per-layer input tensors are placed by
// build: per_layer_input.
bool is_output_layer(std::string_view name) {
  return name.starts_with("output.") || name.starts_with("output_norm.") ||
         name == "altup_proj.weight" || name == "altup_unembd_proj.weight" ||
         name.starts_with("enc.output_norm.") ||
         name.starts_with("lm_head.") || name == "model.norm.weight" || name.starts_with("cls.");
}

// Gemma 3n's and Gemma 4's per-layer input tensors: the embedding table
// (LLM_TENSOR_PER_LAYER_TOKEN_EMBD) and its projection and norm
// (_MODEL_PROJ, _PROJ_NORM). Before b8720 all three are output-layer
// tensors, on the output layer's device; from it the table is an
// input-layer tensor, on the host with token_embd, and the projection
// and norm repeating-layer ones of bid 0, on block 0's device
// (llamacpp::per_layer_inputs_by_role).
enum class PerLayerInput { kNone, kTable, kProjection };

PerLayerInput per_layer_input(std::string_view name) {
  if (name.starts_with("per_layer_token_embd.")) return PerLayerInput::kTable;
  if (name.starts_with("per_layer_model_proj.") || name.starts_with("per_layer_proj_norm.")) {
    return PerLayerInput::kProjection;
  }
  return PerLayerInput::kNone;
}

// An encoder's embedding LayerNorm (weight and bias).
bool is_embedding_norm(std::string_view name) { return name.starts_with("token_embd_norm."); }

// The RoPE factor tensors (llama3's rope_freqs, longrope's
// rope_factors_long/_short): llama.cpp creates them with block 0's
// tensors (its layer i = 0; the other blocks use them as duplicates), so
// they live on block 0's device (src/llama-model.cpp, load_tensors).
bool is_rope_factors(std::string_view name) {
  return name == "rope_freqs.weight" || name == "rope_factors_long.weight" ||
         name == "rope_factors_short.weight";
}

// --n-cpu-moe N's rule for block b < N: the routed experts'
// up/down/gate/gate_up tensors, "_exps" or "_chexps" (common/arg.cpp).
bool is_routed_expert(std::string_view name) {
  static const std::regex kExperts(R"(\.ffn_(up|down|gate|gate_up)_(ch|)exps)");
  return std::regex_search(name.begin(), name.end(), kExperts);
}

// A GPU index in 0..G-1, or G for the host.
using Where = uint64_t;

struct Layout {
  uint64_t gpus = 0;
  uint64_t blocks = 0;  // L
  uint64_t start = 0;   // the first offloaded block
  uint64_t n_gpu = 0;   // slots offloaded (blocks and the output)
  std::vector<double> cumulative;  // inclusive prefix sums of the split, ending at 1
  SplitMode mode = SplitMode::kLayer;
  uint64_t main_gpu = 0;
  std::vector<bool> pads_rows;  // per GPU: a CUDA, ROCm or SYCL device (cuda_row_padding_bytes)
  // The first GPU whose backend offloads ops on host weights (CUDA, ROCm,
  // Vulkan, SYCL: see place_compute); gpus when none does.
  Where op_offload_gpu = 0;
  // Per GPU: flash attention is on and this GPU's backend does not run it
  // (runs_flash_attn), so the scheduler runs its layers' attention on the
  // host (place_context, place_compute).
  std::vector<bool> attention_on_host;
  // Per GPU: its backend reads host inputs as the scheduler's copies in its
  // compute buffer, allocated at the split's start, below the holes the
  // mask's cast does not fit (cast_leaves_holes: CUDA, ROCm, Vulkan, SYCL;
  // not Metal, not CANN): see place_compute's cast.
  std::vector<bool> copies_inputs;

  // The op offload GPU takes the token table's get_rows on the host's
  // table (llamacpp::offloads_get_rows: ggml-sycl from #10133 to #10432).
  bool offloads_get_rows = false;
  // token_embd_norm on block 0's device (llamacpp::embedding_norm_on_first_block).
  bool embedding_norm_on_first_block = true;
  // Gemma 3n's and Gemma 4's per-layer embedding table on the host, its
  // projection and norm on block 0's device (llamacpp::per_layer_inputs_by_role);
  // false: all three on the output layer's.
  bool per_layer_inputs_by_role = true;
  // A tied output gets its own token_embd on the output layer's device
  // (llamacpp::duplicates_tied_output); false: the logits read the host's.
  bool duplicates_tied_output = true;
  // Each block past block 0 allocates its own RoPE factors
  // (llamacpp::rope_factors_per_block); false: one copy per device.
  bool rope_factors_per_block = false;
  // A Qwen3.5 GGUF's MTP block is loaded like any block
  // (llamacpp::loads_qwen35_mtp_block); false: skipped, as every other
  // architecture's.
  bool loads_qwen35_mtp_block = false;
  // The GPUs whose model buffer maps the file (Metal under mmap), then the
  // host (under mmap): a duplicate there points into the file, no bytes of
  // its own. Index host() is the host's.
  std::vector<bool> maps_weights;
  // Per GPU: a Metal device, whose attention phase holds flash attention's
  // scratch (ComputePhases::metal_flash_attn, place_compute).
  std::vector<bool> metal;
  // Per GPU: the placement's GPU (runs_weight_op reads its backend). The
  // settings outlive the layout.
  std::vector<const LlamaCppGpu*> gpu_list;

  Where host() const { return gpus; }
  Where slot_device(uint64_t slot) const {
    if (mode == SplitMode::kNone) return main_gpu;
    const double x = static_cast<double>(slot) / static_cast<double>(n_gpu);
    for (uint64_t g = 0; g < gpus; ++g) {
      if (cumulative[g] > x) return g;
    }
    return gpus - 1;
  }
  // Slot i - start of n_gpu, as get_layer_buft_list: block i and the
  // output layer (index `blocks`) are on a GPU when start <= i < start + n_gpu.
  Where layer(uint64_t i) const {
    return gpus > 0 && i >= start && i - start < n_gpu ? slot_device(i - start) : host();
  }
  Where block(uint64_t i) const { return layer(i); }
  Where output() const { return layer(blocks); }
};

std::vector<double> split_fractions(const LlamaCppPlacementSettings& s) {
  std::vector<double> weights(s.gpus.size(), 0.0);
  double sum = 0;
  for (size_t g = 0; g < weights.size() && g < s.tensor_split.size(); ++g) {
    weights[g] = s.tensor_split[g];
    sum += weights[g];
  }
  if (sum <= 0) {  // the default: each GPU's free memory
    for (size_t g = 0; g < weights.size(); ++g) {
      weights[g] = static_cast<double>(s.gpus[g].free_bytes);
      sum += weights[g];
    }
  }
  if (sum <= 0) {  // nothing free anywhere: even
    std::fill(weights.begin(), weights.end(), 1.0);
    sum = static_cast<double>(weights.size());
  }
  double running = 0;
  for (double& w : weights) {
    running += w;
    w = running / sum;
  }
  return weights;
}

struct DeviceSums {
  CheckedBytes model = 0;
  // --split-mode row (LlamaCppDeviceUsage): the split buffer named after
  // this GPU, and this GPU's rows of every split buffer (in `model`).
  CheckedBytes row_split_buffer = 0;
  CheckedBytes row_split_share = 0;
  CheckedBytes context = 0;
  CheckedBytes recurrent = 0;  // the recurrent layers' state, part of `context`
  uint64_t compute = 0;
  uint64_t blocks = 0;
  uint64_t host_repack = 0;  // the host's CPU_AARCH64 copies, in `model` (host_repack_bytes)
  uint64_t ffn_width = 0;    // the widest FFN of the blocks here (their ffn_up's rows); 0: none read
  bool output = false;
  bool runs_weights = false;  // some weight of a block is here (an override)
  // The matrix the logits product reads when the output layer is here
  // (output.weight, or token_embd tied): its copy under op offload.
  uint64_t output_matrix_bytes = 0;
  // The host's, under op offload: the offload GPU's backend runs a product
  // on a host weight only where its supports_op takes the product
  // (ggml_backend_sched_backend_id_from_cur asks supports_op before
  // offload_op; runs_weight_op): ggml-cann neither a q6_K output matrix nor
  // MXFP4 experts. Whether some block matrix here is offloaded, some is
  // kept, and whether the logits' matrix is kept (place_compute).
  bool offloads_block_weights = false;
  bool keeps_block_weights = false;
  bool keeps_logits = false;
  // The host's, under op offload (place_compute): the largest of what a
  // product over one of its blocks' weights holds on the GPU (the weight's
  // copy, the product's input and output rows, the residual: note_host_product),
  // for the blocks before the last (the mask is still alive then) and for
  // the last block; and the largest K and V of a host block's attention
  // layer, whose views the GPU reads as copies (place_context).
  uint64_t product_before_last = 0;
  uint64_t product_last = 0;
  uint64_t kv_copy_bytes = 0;
  // The host's, where a GPU's backend does not run flash attention: the
  // largest K and V of a layer on such a GPU, whose views the host's
  // attention reads as copies (place_context).
  uint64_t flash_attn_copy_bytes = 0;
  // A GPU's: its blocks' FFN matrices (ffn_*, the router excepted) left
  // here, and those the placement sent to the host (-ot, --n-cpu-moe, a
  // type its backend does not run). With none left its blocks' FFN runs
  // elsewhere (place_compute).
  uint64_t ffn_matrices_here = 0;
  uint64_t ffn_matrices_away = 0;
};

// A block's FFN matrix: a dense or expert projection (ffn_up, ffn_gate,
// ffn_down, their _exps and _shexp forms), not the router (ffn_gate_inp)
// nor a norm.
bool is_ffn_matrix(std::string_view name, size_t dims) {
  return dims >= 2 && name.find(".ffn_") != std::string_view::npos &&
         name.find("ffn_gate_inp") == std::string_view::npos && name.find("_norm") == std::string_view::npos;
}

// The host's memory: the budget, or the RAM behind a GPU budget.
uint64_t host_free_bytes(const MemoryBudget& budget) {
  return budget.source == BudgetSource::kGpu ? budget.ram_available_bytes : budget.budget_bytes;
}

// A tied output's second token_embd where the engine allocates it on the
// host too (tied_output_copy_everywhere): token_embd's bytes, 0 with an
// output.weight, for an encoder (no vocabulary output) or otherwise.
uint64_t host_tied_output_copy(const Model& model, const LlamaCppPlacementSettings& s) {
  if (!s.tied_output_copy_everywhere || model.spec.embedding.bidirectional) return 0;
  uint64_t token_embd = 0;
  for (const SafetensorsTensor& t : model.tensors) {
    if (t.name == "output.weight" || t.name == "lm_head.weight") return 0;
    if (t.name == "token_embd.weight") token_embd = t.data_bytes;
  }
  return token_embd;
}

// No GPU: one device, the host, holding the estimate's own totals (and a
// tied output's own-engine copy: host_tied_output_copy).
void place_on_host(const Model& model, uint64_t host_free, LlamaCppEstimate& e) {
  const LlamaCppPlacementSettings& s = e.settings.placement;
  const ModelSpec& spec = model.spec;
  LlamaCppPlacement& out = e.placement;
  if (const uint64_t copy = host_tied_output_copy(model, s); copy != 0) {
    e.model_bytes = (CheckedBytes(e.model_bytes) + copy).saturated();
    e.total_bytes = (CheckedBytes(e.total_bytes) + copy).saturated();
    e.fits = e.total_bytes <= e.budget_bytes;
  }
  LlamaCppDeviceUsage cpu;
  cpu.device = "cpu";
  cpu.name = "host";
  cpu.model_bytes = e.model_bytes;
  cpu.context_bytes = e.context_bytes;
  cpu.recurrent_bytes = e.recurrent_bytes;
  cpu.compute_bytes = e.compute_bytes;
  cpu.total_bytes = e.total_bytes;
  cpu.free_bytes = cpu.usable_bytes = host_free;
  cpu.blocks = spec.layers.size() + spec.nextn_layers;
  cpu.output_layer = true;
  cpu.page_cache_bytes = s.mmap && !s.mlock ? e.mapped_bytes : 0;
  cpu.fits = e.total_bytes <= e.budget_bytes;
  out.tensors.reserve(model.tensors.size());
  for (const SafetensorsTensor& t : model.tensors) {
    const std::optional<uint64_t> block = block_of(t.name);
    out.tensors.push_back({0, !block || *block < spec.layers.size(), false});
  }
  cpu.short_bytes = cpu.fits ? 0 : e.total_bytes - e.budget_bytes;
  out.devices.push_back(std::move(cpu));
  out.fits = e.fits;
}

// "there is 1 GPU" / "there are 2 GPUs", for the usage errors below.
std::string there_are_gpus(uint64_t gpus) {
  return fmt::format("there {} {} GPU{}", gpus == 1 ? "is" : "are", gpus, gpus == 1 ? "" : "s");
}

// Which device holds each block and the output layer, from -ngl,
// --tensor-split, --split-mode and --main-gpu. kUsage for --main-gpu or an
// override that names a GPU past the GPUs, for more split proportions
// than GPUs, and for a setting the split mode does not read (a split with
// none, a main GPU with layer).
Result<Layout> plan_layout(const ModelSpec& spec, const LlamaCppPlacementSettings& s, bool output_first) {
  Layout lay;
  lay.gpus = s.gpus.size();
  lay.blocks = spec.layers.size() + spec.nextn_layers;
  if (lay.blocks > kMaxBlocks) return Error(fmt::format("{} blocks: too many", lay.blocks));
  lay.n_gpu = std::min(s.n_gpu_layers.value_or(lay.blocks + 1), lay.blocks + 1);
  // The output layer first: i_gpu_start = L + 1 - N; else the last N blocks,
  // i_gpu_start = max(L - N, 0) (llama-model.cpp before #18148).
  lay.start = output_first ? lay.blocks + 1 - lay.n_gpu : lay.blocks - std::min(lay.n_gpu, lay.blocks);
  lay.cumulative = split_fractions(s);
  lay.mode = s.split_mode;
  lay.main_gpu = s.main_gpu;
  lay.op_offload_gpu = lay.gpus;
  for (const LlamaCppGpu& g : s.gpus) {
    lay.pads_rows.push_back(g.device.starts_with("cuda") || g.device.starts_with("rocm") || g.device.starts_with("sycl"));
    if (takes_op_offload(g) && lay.op_offload_gpu == lay.gpus) lay.op_offload_gpu = lay.pads_rows.size() - 1;
    lay.copies_inputs.push_back(cast_leaves_holes(g));
    lay.gpu_list.push_back(&g);
  }
  if (s.main_gpu >= lay.gpus) {
    return Error::usage("main_gpu", fmt::format("is {}, but {}", s.main_gpu, there_are_gpus(lay.gpus)));
  }
  // llama.cpp copies one proportion per device and drops the rest; with
  // --split-mode none the model is on the main GPU and the split unread.
  if (s.tensor_split.size() > lay.gpus) {
    return Error::usage("tensor_split", fmt::format("gives {} proportions, but {}: one per GPU",
                                                    s.tensor_split.size(), there_are_gpus(lay.gpus)));
  }
  if (!s.tensor_split.empty() && s.split_mode == SplitMode::kNone) {
    return Error::usage("tensor_split", "is not read with split_mode none: the model is on "
                                        "main_gpu");
  }
  // -mg is the GPU of --split-mode none (and row's); layer reads none.
  if (s.main_gpu != 0 && s.split_mode == SplitMode::kLayer) {
    return Error::usage("main_gpu", "is not read with split_mode layer (the default): give "
                                    "split_mode none to put the model on that GPU");
  }
  for (const LlamaCppTensorOverride& o : s.overrides) {
    if (o.gpu && *o.gpu >= lay.gpus) {
      return Error::usage("override_tensor", fmt::format("'{}' names GPU {}, but {}", o.pattern,
                                                         *o.gpu, there_are_gpus(lay.gpus)));
    }
  }
  return lay;
}

// The -ot rules as regular expressions, in the order given.
Result<std::vector<std::regex>> override_rules(const LlamaCppPlacementSettings& s) {
  std::vector<std::regex> rules;
  for (const LlamaCppTensorOverride& o : s.overrides) {
    // Checked when parsed; a library caller may have skipped the parser.
    Result<LlamaCppTensorOverride> checked = parse_tensor_override(o.pattern + "=CPU");
    if (!checked) return checked.error();
    try {
      rules.emplace_back(o.pattern, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
      return Error::usage("override_tensor", "not a regular expression");
    }
  }
  return rules;
}

// A weight's bytes on device w: padded to the GPU alignment on a GPU.
void add_weight(std::vector<DeviceSums>& d, const Layout& lay, Where w, uint64_t bytes) {
  d[w].model += w == lay.host() ? CheckedBytes(bytes) : round_up(bytes, kGpuTensorAlignment);
}

// ggml-cuda (CUDA and HIP) allocates a quantized matrix whose rows are no
// multiple of MATRIX_ROW_PADDING (512) elements with room for one row's
// padding to it: ggml_backend_cuda_buffer_type_get_alloc_size adds
// ggml_row_size(type, 512 - ne0 % 512) (ggml/src/ggml-cuda/ggml-cuda.cu).
// ggml-sycl does the same (ggml_backend_sycl_buffer_type_get_alloc_size,
// ggml/src/ggml-sycl/ggml-sycl.cpp, its MATRIX_ROW_PADDING also 512):
// #14689's 288-wide Q4_0 llama on a UHD GPU, SYCL0 19.00 MiB.
// 0 for a float tensor, a whole row, or a type memfit does not name.
uint64_t cuda_row_padding_bytes(const SafetensorsTensor& t) {
  constexpr uint64_t kMatrixRowPadding = 512;
  if (t.shape.empty()) return 0;
  const uint64_t ne0 = t.shape.back();  // shape is outermost first
  for (const GgmlTypeTraits& type : ggml_type_table()) {
    if (type.name != t.dtype) continue;
    const bool quantized = type.block_elements > 1;
    if (!quantized || ne0 % kMatrixRowPadding == 0) return 0;
    const uint64_t pad = kMatrixRowPadding - ne0 % kMatrixRowPadding;
    return pad / type.block_elements * type.block_bytes;
  }
  return 0;
}

// One host block's weight that op offload multiplies on the GPU: the
// scheduler gives the product a copy of the weight in the GPU's compute
// buffer, allocated at the start of the product's split and freed after
// the product (ggml_backend_sched_split_graph starts a split at every host
// weight, "by starting a new split, the memory of the previously offloaded
// weights can be reused"; with one copy (n_copies 1) the copy is a plain
// node of the split graph that ggml-alloc frees after its last use), so the
// copies of different products share memory and the largest sets the need.
// At the product the GPU holds at least the copy (the whole tensor, an
// expert tensor too: only the used experts' bytes are transferred,
// ggml_backend_sched_compute_splits, but the copy is ggml_dup_tensor_layout
// of it), the product's input and output rows (a 3-D expert tensor's
// product, mul_mat_id, has `used` rows a token; its down projection reads
// `used` too) and the layer's residual: 4 x n_tok x (hidden + in + out).
// A lower bound: the allocator's layout can leave holes beside it.
void note_host_product(const SafetensorsTensor& t, uint64_t block, uint64_t decoder_blocks,
                       const ComputePhases& phases, const ModelSpec& spec, bool pads_rows, DeviceSums& host) {
  if (t.shape.size() < 2 || t.shape.size() > 3) return;
  const bool experts = t.shape.size() == 3;
  const uint64_t used = experts ? std::max<uint64_t>(spec.moe.experts_per_token, 1) : 1;
  const std::string_view name = t.name;
  const bool down = name.find("_down") != std::string_view::npos;
  const CheckedBytes out = CheckedBytes(t.shape[t.shape.size() - 2]) * used;
  const CheckedBytes in = CheckedBytes(t.shape.back()) * (experts && down ? used : 1);
  const CheckedBytes copy = round_up(CheckedBytes(t.data_bytes) + (pads_rows ? cuda_row_padding_bytes(t) : 0),
                                     kGpuTensorAlignment);
  const CheckedBytes rows = CheckedBytes(4) * phases.tokens * (CheckedBytes(spec.geometry.hidden) + in + out);
  const uint64_t need = (copy + rows).saturated();
  uint64_t& slot = block + 1 < decoder_blocks ? host.product_before_last : host.product_last;
  slot = std::max(slot, need);
}

// The device of a loaded tensor: its block's (or the output layer's, or
// the host's), unless the first -ot rule that matches its name, or
// --n-cpu-moe for a routed expert, says otherwise.
Where tensor_device(std::string_view name, std::optional<uint64_t> block, const Layout& lay,
                    const std::vector<std::regex>& rules, const LlamaCppPlacementSettings& s) {
  Where w = block ? lay.block(*block) : is_output_layer(name) ? lay.output() : lay.host();
  switch (per_layer_input(name)) {
    case PerLayerInput::kTable:
      w = lay.per_layer_inputs_by_role ? lay.host() : lay.output();
      break;
    case PerLayerInput::kProjection:
      w = lay.per_layer_inputs_by_role ? lay.block(0) : lay.output();
      break;
    case PerLayerInput::kNone:
      break;
  }
  if (is_rope_factors(name) || (lay.embedding_norm_on_first_block && is_embedding_norm(name))) {
    w = lay.block(0);
  }
  for (size_t r = 0; r < rules.size(); ++r) {
    if (std::regex_search(name.begin(), name.end(), rules[r])) {
      return s.overrides[r].gpu ? *s.overrides[r].gpu : lay.host();
    }
  }
  if (block && *block < s.n_cpu_moe && is_routed_expert(name)) w = lay.host();
  return w;
}

// Whether llama.cpp loads the NextN/MTP blocks' tensors (the spec's
// model_type: a GGUF's architecture, or a config's). Qwen3.5's loader
// creates them as a full-attention block with its NextN tensors
// (src/models/qwen35.cpp, load_block_mtp, since #22673's MTP support),
// loaded in a build before #26296 (lay.loads_qwen35_mtp_block); from it,
// and in the pinned v0.4.0, TENSOR_SKIP unless MTP drafting is asked for
// (load_mtp), as deepseek2's and the others' always were: never read into
// a buffer.
bool loads_nextn_blocks(const ModelSpec& spec, const Layout& lay) {
  const std::string_view t = spec.model_type;
  return lay.loads_qwen35_mtp_block &&
         (t == "qwen35" || t == "qwen35moe" || t == "qwen3_5" || t == "qwen3_5_moe" || t == "qwen3_5_text" ||
          t == "qwen3_5_moe_text");
}

// The copies of a RoPE factor tensor of `bytes` (created with block 0's
// tensors, on `first`) that the other blocks make (TENSOR_DUPLICATED):
// one per block past block 0 in a build before #10026, one per other
// device since (releases.cc, kSharedDuplicatesBuild). A copy in a buffer
// that maps the file (the host's or Metal's, under mmap) points into the
// mapping: no bytes (llama.cpp's load_all_data maps every tensor of a
// mapped context, duplicates too); without mmap the host allocates its
// copies as a GPU does.
void place_rope_factor_copies(uint64_t bytes, Where first, uint64_t decoder_blocks, const Layout& lay,
                              std::vector<DeviceSums>& d) {
  std::vector<bool> has_copy(lay.gpus + 1, false);
  has_copy[first] = true;
  for (uint64_t b = 1; b < decoder_blocks && b < lay.blocks; ++b) {
    const Where w = lay.block(b);
    if (lay.maps_weights[w]) continue;
    if (has_copy[w] && !lay.rope_factors_per_block) continue;
    add_weight(d, lay, w, bytes);
    has_copy[w] = true;
  }
}

// The weights, tensor by tensor, each on its device; a GPU block's
// matrices spread over every GPU with row split; the tied output's own
// copy on the output layer's GPU.
void place_listed_weights(const Model& model, const Layout& lay,
                          const std::vector<std::regex>& rules, const LlamaCppPlacementSettings& s,
                          const ComputePhases& phases, std::vector<DeviceSums>& d, LlamaCppPlacement& out) {
  const bool copy_pads = lay.op_offload_gpu < lay.gpus && lay.pads_rows[lay.op_offload_gpu];
  // Whether the op-offload GPU's backend runs the product on a host weight
  // of this type (DeviceSums::keeps_logits); any does without such a GPU.
  const auto offload_runs = [&lay](std::string_view dtype, bool expert_bias) {
    return lay.op_offload_gpu >= lay.gpus || runs_weight_op(*lay.gpu_list[lay.op_offload_gpu], dtype, expert_bias);
  };
  const uint64_t decoder_blocks = model.spec.layers.size();
  const uint64_t loaded_blocks = decoder_blocks + (loads_nextn_blocks(model.spec, lay) ? model.spec.nextn_layers : 0);
  // No output.weight: the output layer reads token_embd, which llama.cpp
  // creates a second time for it (TENSOR_DUPLICATED). An encoder (BERT,
  // Jina's BERT v2) has no vocabulary output at all: its loader makes no
  // such copy.
  bool tied = !model.spec.embedding.bidirectional;
  const bool copies_tied = lay.duplicates_tied_output || s.tied_output_copy_everywhere;
  uint64_t token_embd_bytes = 0;
  std::string_view token_embd_type;
  out.tensors.reserve(model.tensors.size());
  for (const SafetensorsTensor& t : model.tensors) {
    const std::string_view name = t.name;
    if (name == "output.weight" || name == "lm_head.weight") tied = false;
    if (name == "token_embd.weight" || name == "model.embed_tokens.weight") {
      token_embd_bytes = t.data_bytes;
      token_embd_type = t.dtype;
    }
    const std::optional<uint64_t> block = block_of(name);
    if (block && *block >= loaded_blocks) {  // NextN: not loaded
      out.tensors.push_back({static_cast<uint32_t>(lay.host()), false, false});
      continue;
    }
    Where w = tensor_device(name, block, lay, rules, s);
    // A weight whose op this GPU's backend does not run stays on the host
    // (select_weight_buft's fallback: runs_weight_op).
    const bool expert_bias = is_routed_expert(name) && name.ends_with(".bias");
    if (w != lay.host() && t.shape.size() >= 2 && !runs_weight_op(*lay.gpu_list[w], t.dtype, expert_bias)) {
      w = lay.host();
    }
    if (block && lay.block(*block) != lay.host() && is_ffn_matrix(name, t.shape.size())) {
      ++(w == lay.block(*block) ? d[w].ffn_matrices_here : d[lay.block(*block)].ffn_matrices_away);
    }
    if (block && w == lay.host()) {
      d[w].runs_weights = true;
      const bool matrix = t.shape.size() >= 2;
      if (matrix && !offload_runs(t.dtype, expert_bias)) {
        d[w].keeps_block_weights = true;
      } else if (*block < decoder_blocks) {
        // A loaded NextN block runs in no pass the main graph has.
        note_host_product(t, *block, decoder_blocks, phases, model.spec, copy_pads, d[w]);
        d[w].offloads_block_weights = d[w].offloads_block_weights || matrix;
      }
    }
    if ((name == "output.weight" || name == "lm_head.weight") && w == lay.host()) {
      d[w].output_matrix_bytes = t.data_bytes;
      d[w].keeps_logits = !offload_runs(t.dtype, false);
    }
    if (block && t.shape.size() == 2 && name.ends_with(".ffn_up.weight")) {
      d[w].ffn_width = std::max<uint64_t>(d[w].ffn_width, t.shape[0]);
    }
    const bool row_split = block && w != lay.host() && lay.mode == SplitMode::kRow && t.shape.size() == 2;
    out.tensors.push_back({static_cast<uint32_t>(w), true, row_split});
    // Row split: a GPU block's matrices spread over every GPU.
    if (row_split) {
      double before = 0;
      for (uint64_t g = 0; g < lay.gpus; ++g) {
        const double share = lay.cumulative[g] - before;
        before = lay.cumulative[g];
        const uint64_t rows = static_cast<uint64_t>(static_cast<double>(t.data_bytes) * share + 0.5);
        add_weight(d, lay, g, rows);
        d[g].row_split_share += round_up(rows, kGpuTensorAlignment);
      }
      d[w].row_split_buffer += round_up(t.data_bytes, kGpuTensorAlignment);
      continue;
    }
    const bool padded = w != lay.host() && lay.pads_rows[w];
    add_weight(d, lay, w, padded ? t.data_bytes + cuda_row_padding_bytes(t) : t.data_bytes);
    if (is_rope_factors(name)) place_rope_factor_copies(t.data_bytes, w, decoder_blocks, lay, d);
  }
  // The tied output: its own copy on the output layer's GPU; on the host the
  // logits product reads token_embd itself.
  // A GPU that cannot multiply the table's type leaves the logits to the
  // host (runs_weight_op), which reads token_embd itself; so does a build
  // whose loader makes no copy (LFM2 before #15476).
  const bool output_on_gpu = copies_tied && lay.output() != lay.host() &&
                             runs_weight_op(*lay.gpu_list[lay.output()], token_embd_type, false);
  // Ollama's own engine allocates the copy on the output layer's device,
  // the host too (tied_output_copy_everywhere).
  if (tied && (output_on_gpu || s.tied_output_copy_everywhere)) add_weight(d, lay, lay.output(), token_embd_bytes);
  // A build before #10026 (rope_factors_per_block's) made the output
  // layer's copy on the host too, a tensor of its own beside token_embd in
  // the host's context: without mmap it is allocated (an Ollama runner's
  // --no-mmap Granite 8B Code, b3871: the host's buffer holds its q6_K
  // token_embd twice).
  if (tied && copies_tied && !output_on_gpu && !s.tied_output_copy_everywhere && lay.output() == lay.host() &&
      lay.rope_factors_per_block && !lay.maps_weights[lay.host()]) {
    add_weight(d, lay, lay.host(), token_embd_bytes);
  }
  if (tied && !output_on_gpu) {
    d[lay.host()].output_matrix_bytes = token_embd_bytes;
    d[lay.host()].keeps_logits = !offload_runs(token_embd_type, false);
  }
}

// No tensor list (an index or the config only): the weights split evenly
// over the blocks, with one block's share each for the input table and the
// output layer (estimated).
void spread_unlisted_weights(uint64_t mapped_bytes, const Layout& lay, std::vector<DeviceSums>& d) {
  const uint64_t share = mapped_bytes / (lay.blocks + 2);
  add_weight(d, lay, lay.host(), mapped_bytes - share * (lay.blocks + 1));
  add_weight(d, lay, lay.output(), share);
  for (uint64_t i = 0; i < lay.blocks; ++i) add_weight(d, lay, lay.block(i), share);
}

// A layer whose cache the attention reads through K and V views.
bool attends(const LayerCache& layer) {
  return layer.kind == LayerKind::kFullAttention || layer.kind == LayerKind::kSlidingWindow ||
         layer.kind == LayerKind::kChunked || layer.kind == LayerKind::kMlaLatent;
}

// Context: each layer's KV and state on its layer's device (the host with
// --no-kv-offload); the output buffer (and a build before #6017's graph
// input buffer) on the host. A host block's cache is in a host buffer
// (llama-kv-cache.cpp: a layer's cache on its layer's device): its largest
// attention layer's K and V is what op offload copies (kv_copy_bytes). With
// --no-kv-offload llama_context pins the attention to the CPU
// (graph_get_cb, `kqv_merged_cont` on backend_cpu): no copies.
// A GPU whose backend does not run flash attention (attention_on_host)
// has its layers' attention run by the host, which reads copies of the
// layer's K and V views (flash_attn_copy_bytes).
void place_context(const MemoryParts& parts, const Layout& lay, const ModelSpec& spec,
                   bool kv_offload, std::vector<DeviceSums>& d) {
  const uint64_t decoder_blocks = spec.layers.size();
  for (uint64_t i = 0; i < lay.blocks; ++i) {
    const uint64_t bytes = i < decoder_blocks ? parts.layer_bytes[i] : parts.nextn_layer_bytes;
    d[kv_offload ? lay.block(i) : lay.host()].context += bytes;
    if (i < decoder_blocks && is_recurrent(spec.layers[i].kind)) {
      d[kv_offload ? lay.block(i) : lay.host()].recurrent += bytes;
    }
    if (kv_offload && i < decoder_blocks && lay.block(i) == lay.host() && attends(spec.layers[i])) {
      DeviceSums& host = d[lay.host()];
      host.kv_copy_bytes = std::max(host.kv_copy_bytes, bytes);
    }
    const Where w = lay.block(i);
    if (kv_offload && i < decoder_blocks && w != lay.host() && lay.attention_on_host[w] &&
        attends(spec.layers[i])) {
      DeviceSums& host = d[lay.host()];
      host.flash_attn_copy_bytes = std::max(host.flash_attn_copy_bytes, bytes);
    }
  }
  d[lay.host()].context += parts.output_bytes;
  d[lay.host()].context += parts.input_bytes;  // a build before #6017's input buffer
}

// The least batch a GPU backend offloads an op on host weights at
// (min_batch_size, GGML_OP_OFFLOAD_MIN_BATCH's default).
constexpr uint64_t kOpOffloadMinBatch = 32;

// Compute: the largest phase each device runs. Op offload: the scheduler
// runs an op whose weight is in a host buffer on the first GPU whose
// backend wants it (ggml-backend.cpp, ggml_backend_sched_backend_id_from_cur,
// op_offload on by default), and ggml-cuda (CUDA, ROCm), ggml-vulkan and
// ggml-sycl want every op of 32 rows or more but get_rows; the ops between
// them follow to that GPU. The host that holds blocks or the output layer
// then keeps the graph inputs alone, as with every layer offloaded, and
// the phases it would have run are that GPU's. Metal offloads matrix products only:
// its host keeps its phases. Not in a build before #6083 (releases.cc).
// The GPU reads a copy of each host weight such an op multiplies by, in its
// compute buffer while the op runs: the output matrix's beside the logits;
// a host block's largest product with its weight's copy (note_host_product,
// the mask beside it before the last block); and a host block's attention,
// whose ops have no weight and follow the GPU's products around them
// ("expand gpu up" from the output projection to the cache store, which
// runs where the cache is: its view's buffer, cause 1.vsrc), with copies of
// that layer's K and V views (host_attention + kv_copy_bytes). The copies
// are freed after use; where the allocator places the next tensors around
// them (a layout that can leave the logits above a hole) is not priced.
// A build that casts an F32 mask input under flash attention casts it on
// the GPU that runs the first block, which holds the cast with the copies
// it reads (ComputePhases::mask_cast).
// Without KV offload (-nkvo) every layer's attention runs on the host:
// llama.cpp pins the nodes between the KV store and the attention output
// to the CPU backend (llama-graph.cpp, build_attn_mha: "if
// (!cparams.offload_kqv) ... all nodes between the KV store and the
// attention output are run on the CPU"; llama_context's graph callback on
// "kqv_merged_cont" in the builds before the graph rework), so the
// attention phase's scores are the host's, and a GPU's blocks run the FFN
// phase (and its output layer the logits) alone. ggml-org/llama.cpp#12946
// (b5121, GLM-Z1-9B, -nkvo, 32,000 cells): CUDA0 312.00 MiB, the host
// 2071.51 MiB.
// With the host's matrix weights in a CPU extra buffer (host_extra_buffer:
// AMX, CPU_AARCH64) the scheduler offloads no product on them, so a host
// block's attention, from the cache store to the output projection, has no
// GPU product beside it and stays on the host ("expand rest down" from the
// store): the host runs its blocks' attention phase, and the GPU reads no
// K and V copies. The products on the weights outside it (the experts'
// 3-D matrices: AMX takes 2-D ones) are offloaded still.
// ggml-org/llama.cpp#11635 (b4625, DeepSeek-R1 UD-IQ1_S, 16/62 layers on an
// L40S, AMX model buffer 7640.76 MiB): CUDA_Host compute 2193.01 MiB, a
// host block's scores (128 heads x 8192 x 512 x 4 B = 2 GiB) among them.
// docs/llamacpp-rules.md, "Compute buffers on a GPU".
void place_compute(const ComputePhases& phases, const Layout& lay, bool op_offload, bool kv_offload,
                   bool host_extra_buffer, const std::vector<uint64_t>& replayed, std::vector<DeviceSums>& d) {
  const bool host_attends = kv_offload && host_extra_buffer;
  const uint64_t gpu_attention = kv_offload ? phases.attention : 0;
  for (uint64_t w = 0; w <= lay.gpus; ++w) {
    DeviceSums& x = d[w];
    uint64_t c = 0;
    // Each device reserves its own splits' graph: its FFN phase is its
    // blocks' widest FFN, not the model's (a Deci model's widths run from
    // 5,376 to 425,984 in Nemotron Ultra: ik_llama.cpp#377's GPUs print
    // 412, 420, 2,560 and 2,086 MiB by their own blocks).
    uint64_t ffn = phases.ffn;
    if (phases.ffn_per_width > 0 && x.ffn_width > 0 && x.ffn_width < phases.ffn_width) {
      ffn = (CheckedBytes(phases.ffn_fixed) + CheckedBytes(phases.ffn_per_width) * x.ffn_width).saturated();
    }
    // A GPU whose attention op the host runs (attention_on_host) holds no
    // KQ mask: the attention is the mask's one reader (FLASH_ATTN_EXT's
    // src[3]), so the scheduler copies it to the host's split, not to this
    // GPU's; its phases are the activations alone.
    const bool no_mask = w != lay.host() && w < lay.attention_on_host.size() && lay.attention_on_host[w];
    const uint64_t mask = no_mask ? phases.mask : 0;
    uint64_t attention = gpu_attention > mask ? gpu_attention - mask : 0;
    // ggml-metal allocates flash attention's output with its scratch
    // where the attention runs on this GPU.
    if (kv_offload && !no_mask && w < lay.metal.size() && lay.metal[w] && attention > 0) {
      attention = (CheckedBytes(attention) + phases.metal_flash_attn).saturated();
    }
    ffn = ffn > mask ? ffn - mask : 0;
    if (x.blocks > 0) c = std::max(attention, ffn);
    // A GPU none of whose blocks' FFN matrices is here runs their
    // attention only: the scheduler gives each FFN product to the backend
    // of its weight (ggml_backend_sched_backend_id_from_cur, cause
    // "1.wgt"), the host, or under op offload to the first offloading GPU
    // (the host's phases `moved` below).
    if (w != lay.host() && x.blocks > 0 && x.ffn_matrices_here == 0 && x.ffn_matrices_away > 0) {
      c = attention;
    }
    // The GPU that runs the first block casts the host's F32 mask there.
    // Where it reads the mask and the input rows as the scheduler's copies,
    // allocated at the split's start (ggml_backend_sched_split_graph: "add
    // inputs to the graph copy so that they are allocated by ggml-alloc at
    // the start of the split"), the first block's norm, Q, K and V follow
    // them; the norm (freed after V's product) and K (freed after its
    // store, its slot then V's, freed after V's store) leave holes the F16
    // cast does not fit, so it lands above them: ggml-org/llama.cpp#11500
    // (b4524, Granite Code 3B on SYCL, 32,768 cells, U 512) SYCL0 116.00 MiB
    // = 5 (rows) + 64 (F32 mask) + 5 (norm) + 5 (Q) + 5 (K) + 32 (F16).
    // Metal's logs print the phase without them (Ollama's Phi-3 mini 128k:
    // 396.01 MiB), not traced.
    if (w != lay.host() && lay.blocks > 0 && lay.block(0) == w) {
      const uint64_t holes = w < lay.copies_inputs.size() && lay.copies_inputs[w] ? phases.mask_cast_holes : 0;
      c = std::max(c, (CheckedBytes(phases.mask_cast) + holes).saturated());
    }
    if (x.output) c = std::max(c, w == lay.host() ? phases.output : phases.output_offloaded);
    // The GPUs run every layer: the build's graph replayed as this GPU's
    // split stands for its phases (replayed_splits).
    if (w < replayed.size() && replayed[w] > 0) c = replayed[w];
    if (w == lay.host()) {
      if (x.runs_weights) c = std::max(c, phases.ffn);
      // What the offload GPU's backend can take (DeviceSums::keeps_logits):
      // the host's blocks unless every block matrix here is one it does not
      // run, the logits unless their matrix is.
      const bool moves_blocks =
          (x.blocks > 0 || x.runs_weights) && (x.offloads_block_weights || !x.keeps_block_weights);
      const bool moves_logits = x.output && !x.keeps_logits;
      if (c > 0 && op_offload && lay.op_offload_gpu < lay.gpus && phases.tokens >= kOpOffloadMinBatch &&
          (moves_blocks || moves_logits)) {
        // On the GPU the output phase is without the input rows.
        uint64_t moved = moves_blocks ? std::max(host_attends ? 0 : gpu_attention, phases.ffn) : 0;
        if (x.product_before_last > 0) {
          moved = std::max(moved, (CheckedBytes(x.product_before_last) + phases.mask).saturated());
        }
        moved = std::max(moved, x.product_last);
        if (x.kv_copy_bytes > 0 && !host_attends) {
          // The first block's attention split also reads the F32 mask's
          // copy where the build casts it there (mask_cast_input).
          const uint64_t cast_input = lay.blocks > 0 && lay.block(0) == w ? phases.mask_cast_input : 0;
          moved = std::max(moved,
                           (CheckedBytes(phases.host_attention) + x.kv_copy_bytes + cast_input).saturated());
        }
        if (moves_logits) {
          const CheckedBytes logits = CheckedBytes(phases.output_offloaded) + x.output_matrix_bytes;
          moved = std::max(moved, logits.saturated());
        }
        DeviceSums& gpu = d[lay.op_offload_gpu];
        // A replayed offload GPU's split holds the moved products already.
        const bool gpu_replayed = lay.op_offload_gpu < replayed.size() && replayed[lay.op_offload_gpu] > 0;
        if (!gpu_replayed) gpu.compute = std::max(gpu.compute, moved);
        c = 0;
        // The host's blocks store their K and V in its cache: the store
        // reads the GPU's K and V rows as copies beside the graph inputs
        // (the token rows, freed once the GPU has its copy, leave room).
        if (x.kv_copy_bytes > 0 && !host_attends) {
          c = (CheckedBytes(phases.graph_inputs) + phases.kv_store_copies).saturated();
        }
        // What it does not take stays: the products on the kept weights
        // (their FFN phase), and the logits over a kept matrix, read from
        // the copy of the final norm the GPU ran (its weight a host one it
        // takes), the token rows freed once the GPU had theirs: the output
        // phase without the input rows. #10777 (b4302, QwQ 32B Q4_0, its
        // output q6_K, which ggml-cann does not multiply): CANN_Host 307.00
        // MiB = 297 of logits (4 x 512 x 152,064) + 10 of norm.
        if (x.keeps_block_weights) c = std::max(c, phases.ffn);
        if (x.output && x.keeps_logits) c = std::max(c, phases.output_offloaded);
      }
      // The offload GPU takes the token table's get_rows too
      // (offloads_get_rows): a host with no block and no output keeps the
      // graph inputs alone, the input rows made on the GPU. ci_log's b4040
      // and b4129 llama-2-7b Q4_0 runs: SYCL_Host 8.01 MiB = the 4,096 x
      // 512 F32 mask and 512 token ids, positions and output ids.
      const bool rows_moved = lay.offloads_get_rows && op_offload && phases.tokens >= kOpOffloadMinBatch &&
                              x.blocks == 0 && !x.output && !x.runs_weights;
      c = std::max(c, rows_moved ? phases.graph_inputs : phases.input);
      // The host runs every layer's attention when the KV cache is its.
      if (!kv_offload && lay.blocks > 0) c = std::max(c, phases.attention);
      // The host runs its own blocks' attention when no GPU product borders it.
      if (host_attends && x.blocks > 0) c = std::max(c, phases.attention);
      // The host runs a GPU's flash attention that its backend lacks
      // (runs_flash_attn): ggml_backend_sched_split_graph's pass 3 gives an
      // op no GPU supports to the backend that supports it, the CPU, and
      // that split's inputs are the scheduler's copies of the layer's K and
      // V views (the whole cache of the layer: a GPU buffer the CPU cannot
      // read), beside the graph inputs; the query's copy, the F16 mask's and
      // the attention's output are smaller than the F32 mask the first
      // layer's cast has freed, and not counted. A lower bound.
      // ggml-org/llama.cpp#11500 (b4524, SYCL, Granite Code 3B, 32,768
      // cells, flash attention on): SYCL_Host 384.01 MiB = 64 MiB of F32
      // mask + 160 + 160 MiB of one layer's F16 K and V.
      if (kv_offload && x.flash_attn_copy_bytes > 0) {
        const uint64_t split = phases.host_flash_attn > 0
                                   ? phases.host_flash_attn
                                   : (CheckedBytes(phases.graph_inputs) + x.flash_attn_copy_bytes).saturated();
        c = std::max(c, split);
      }
    }
    x.compute = std::max(x.compute, c);
  }
}

// GGML_SCHED_MAX_COPIES (ggml-backend.cpp): the scheduler's copies of
// each input under pipeline parallelism.
constexpr uint64_t kSchedMaxCopies = 4;

// The scheduler's n_copies: kSchedMaxCopies where llama_context enables
// pipeline parallelism (src/llama-context.cpp, `pipeline_parallel`): a
// build from #6017, more than one GPU, every layer offloaded (-ngl past
// n_layer: every block and the output), the layer split, KQV offloaded,
// no tensor override (-ot, --n-cpu-moe: `!model.has_tensor_overrides()`,
// a later condition whose first build was not read: memfit applies it to
// every build), and every GPU's backend with async compute and events
// (has_async_events). Else 1. settings.placement.pipeline_parallel, when
// given, decides instead.
uint64_t pipeline_copies(const LlamaCppSettings& s, const Layout& lay) {
  const LlamaCppPlacementSettings& p = s.placement;
  if (p.pipeline_parallel) return *p.pipeline_parallel ? kSchedMaxCopies : 1;
  const bool every_layer = lay.n_gpu == lay.blocks + 1;
  const bool events = std::all_of(p.gpus.begin(), p.gpus.end(),
                                  [&](const LlamaCppGpu& g) { return has_async_events(g, s); });
  const bool on = pipeline_parallel_build(s) && lay.gpus > 1 && every_layer &&
                  lay.mode == SplitMode::kLayer && p.kv_offload && p.overrides.empty() &&
                  p.n_cpu_moe == 0 && events;
  return on ? kSchedMaxCopies : 1;
}

// Pipeline parallelism's copies (n_copies > 1), over the phases each device
// runs: ggml_backend_sched_split_graph gives every graph input (token ids,
// positions, output ids, the masks: GGML_TENSOR_FLAG_INPUT) n_copies copies
// on its backend, the host, and every input a split reads from another
// backend n_copies copies on the split's backend; it flags each copy an
// input and an output, adds them as leafs, and ggml_gallocr allocates leafs
// first and never frees an output, so all of them sit under every phase of
// the device's compute buffer. A GPU's split reads the hidden rows (the
// host's input rows, or the residual of the GPU before it), the masks, the
// positions and the KV store's indices its layers write (from #14959), and
// on the output layer's GPU the output ids. Measured: Ollama 0.11.10, Llama
// 3.1 70B on two H100 MIG slices (4,096 cells, U 512, flash attention off,
// v_idxs 4 MiB): 604 MiB phase + 3 x (16 + 8 + 4 MiB) = 688 MiB against the
// printed 688.02 and 688.03; the host's 28 + 3 x (8 + 4) MiB = 64 MiB
// against 64.04.
// How many copies are added is what the device's largest phase does not
// hold already (pipeline_copy_counts): the attention and FFN phases hold
// one copy of the rows and of the mask; the mask's cast holds one of the
// rows and of the F32 mask; the output phase (the logits and result_norm)
// holds none. Where the build casts an F32 mask to F16 under flash
// attention (ComputePhases::mask_cast), the first block's GPU copies the
// F32 input and its phases hold the F16 cast, not a copy; every later GPU
// copies the F16 cast from it (an input of its split from the first GPU's
// backend). ggml-org/llama.cpp#11200 (b4462, Qwen2.5 32B over two GPUs,
// 32,768 cells, U 256, flash attention): CUDA0 prints 233.00 MiB against
// the FFN phase of 64 MiB + the F16 cast's 16 + 4 x (5 MiB of rows + 32 of
// F32 mask) = 228 MiB; CUDA1, whose logits (153.5 MiB with result_norm)
// are its peak, 237.51 MiB = 153.5 + 4 x (5 + 16) MiB.
// docs/engine-llamacpp.md, "Pipeline parallelism".
struct PipelineCopyCounts {
  uint64_t rows = 0;   // copies of the hidden rows to add
  uint64_t masks = 0;  // copies of the masks to add
  bool f16_cast = false;  // the masks are copies of the first GPU's F16 cast
};

PipelineCopyCounts pipeline_copy_counts(const ComputePhases& phases, const Layout& lay, Where w,
                                        const DeviceSums& x, uint64_t copies) {
  const uint64_t body = x.blocks > 0 ? std::max(phases.attention, phases.ffn) : 0;
  const bool first = lay.blocks > 0 && lay.block(0) == w;
  const uint64_t cast = first ? phases.mask_cast : 0;
  const uint64_t out = x.output ? phases.output_offloaded : 0;
  PipelineCopyCounts n;
  const bool output_peak = out > std::max(body, cast);
  n.rows = output_peak ? copies : copies - 1;
  if (x.blocks == 0) return n;
  if (phases.mask_cast > 0 && !first) n.f16_cast = true;
  // The F32 input's copies on the first GPU: its body holds the F16 cast.
  const bool mask_held = phases.mask_cast > 0 && first ? cast >= std::max(body, out) : body >= out;
  n.masks = mask_held ? copies - 1 : copies;
  return n;
}

void add_pipeline_copies(const ComputePhases& phases, const Layout& lay, uint64_t copies,
                         std::vector<DeviceSums>& d) {
  if (copies <= 1) return;
  const uint64_t more = copies - 1;
  const uint64_t align = kGpuTensorAlignment;
  for (uint64_t w = 0; w <= lay.gpus; ++w) {
    DeviceSums& x = d[w];
    CheckedBytes added = 0;
    if (w == lay.host()) {
      added = CheckedBytes(more) * phases.graph_inputs;
    } else if (x.blocks > 0 || x.output) {
      const PipelineCopyCounts n = pipeline_copy_counts(phases, lay, w, x, copies);
      const uint64_t mask = n.f16_cast ? phases.mask : phases.split_masks;
      added += CheckedBytes(n.rows) * round_up(CheckedBytes(phases.split_rows), align);
      added += CheckedBytes(n.masks) * round_up(CheckedBytes(mask), align);
      if (x.blocks > 0) {
        added += CheckedBytes(more) * (round_up(CheckedBytes(phases.positions), align) + phases.kv_indices);
      }
      if (x.output) added += CheckedBytes(more) * round_up(CheckedBytes(phases.output_ids), align);
    }
    x.compute = (CheckedBytes(x.compute) + added).saturated();
  }
}

// One device's row of the placement; `total` is its checked sum.
LlamaCppDeviceUsage device_usage(const DeviceSums& x, uint64_t total, Where w, const Layout& lay,
                                 const LlamaCppPlacementSettings& s, uint64_t host_free) {
  LlamaCppDeviceUsage u;
  if (w == lay.host()) {
    u.device = "cpu";
    u.name = "host";
    u.free_bytes = u.usable_bytes = host_free;
    // The repacked copies (host_repack) are anonymous memory, not the file's.
  u.page_cache_bytes = s.mmap && !s.mlock ? (x.model - x.host_repack).saturated() : 0;
  } else {
    u.device = s.gpus[w].device;
    u.name = s.gpus[w].name;
    u.free_bytes = s.gpus[w].free_bytes;
    u.usable_bytes = s.unified ? host_free
                               : (s.gpus[w].free_bytes > s.gpu_margin_bytes
                                      ? s.gpus[w].free_bytes - s.gpu_margin_bytes
                                      : 0);
  }
  u.model_bytes = *x.model.value();
  u.row_split_buffer_bytes = x.row_split_buffer.saturated();
  u.row_split_share_bytes = x.row_split_share.saturated();
  u.context_bytes = *x.context.value();
  u.recurrent_bytes = *x.recurrent.value();
  u.compute_bytes = x.compute;
  u.total_bytes = total;
  u.blocks = x.blocks;
  u.output_layer = x.output;
  return u;
}

// A GPU build before #12498 repacked the host's weights beside a GPU
// (llamacpp_host_extra_buffer_bytes; docs/llamacpp-rules.md, "Compute
// buffers on a GPU" and "Model weights"): priced where the request says
// the host holds such a buffer (host_extra_buffer, which check-log sets
// from a CPU_AARCH64 or CPU_REPACK model buffer beside a GPU's) with the
// CPU's kernels (repack not kNone) and the model's tensor list is known.
// 0 otherwise (AMX's packer sizes are not priced: its repack is kNone).
Result<uint64_t> host_repack_bytes(const Model& model, const LlamaCppPlacement& placement, const Layout& lay,
                                   const LlamaCppSettings& s) {
  const std::vector<LlamaCppTensorPlace>& places = placement.tensors;
  if (!s.placement.host_extra_buffer || s.repack == RepackCpu::kNone || lay.gpus == 0 ||
      places.size() != model.tensors.size()) {
    return uint64_t{0};
  }
  std::vector<SafetensorsTensor> host;
  for (size_t i = 0; i < places.size(); ++i) {
    if (places[i].loaded && places[i].device == lay.host()) host.push_back(model.tensors[i]);
  }
  return llamacpp_host_extra_buffer_bytes(host, s.repack);
}

// The devices, each one's fit, and the estimate's totals as their sums.
// `host_repack_bytes`: the host's CPU_AARCH64 copies beside a GPU (a build
// before #12498: host_repack_bytes()), in d's host model bytes already.
Status settle_devices(const std::vector<DeviceSums>& d, const Layout& lay, uint64_t host_free,
                      uint64_t host_repack_bytes, LlamaCppEstimate& e) {
  const LlamaCppPlacementSettings& s = e.settings.placement;
  LlamaCppPlacement& out = e.placement;
  CheckedBytes model_sum = 0, context_sum = 0, compute_sum = 0;
  uint64_t pooled = 0;
  for (uint64_t w = 0; w <= lay.gpus; ++w) {
    const DeviceSums& x = d[w];
    const CheckedBytes total = x.model + x.context + x.compute;
    if (!total.value()) return Error::overflow("llama.cpp device total overflows 64 bits");
    LlamaCppDeviceUsage u = device_usage(x, *total.value(), w, lay, s, host_free);
    model_sum += u.model_bytes;
    context_sum += u.context_bytes;
    compute_sum += u.compute_bytes;
    pooled = (CheckedBytes(pooled) + u.total_bytes).saturated();
    out.devices.push_back(std::move(u));
  }
  out.fits = true;
  for (LlamaCppDeviceUsage& u : out.devices) {
    // Unified memory: one pool, every device's total counted once in it.
    const uint64_t need = s.unified ? pooled : u.total_bytes;
    u.fits = need <= u.usable_bytes;
    u.short_bytes = u.fits ? 0 : need - u.usable_bytes;
    out.fits = out.fits && u.fits;
  }
  const CheckedBytes total = model_sum + context_sum + compute_sum;
  if (!total.value()) return Error::overflow("llama.cpp total overflows 64 bits");
  // A GPU build leaves host weights mapped (or in pinned host memory):
  // no CPU_REPACK copies, but a build before #12498's CPU_AARCH64 ones.
  if (host_repack_bytes == 0) e.repack = RepackCpu::kNone;
  e.repack_bytes = host_repack_bytes;
  e.repack_modelled = true;
  e.model_bytes = *model_sum.value();
  e.context_bytes = *context_sum.value();
  e.compute_bytes = *compute_sum.value();
  e.total_bytes = *total.value();
  e.fits = out.fits;
  return Status::Ok();
}

// Whether the attention reads per-head sinks (gpt-oss: llm_build_openai_moe_iswa
// passes attn_sinks to build_attn, the flash attention op's src[4]).
bool has_attention_sinks(const Model& model) {
  if (model.spec.model_type == "gpt_oss") return true;
  return std::any_of(model.tensors.begin(), model.tensors.end(),
                     [](const SafetensorsTensor& t) { return t.name.ends_with(".attn_sinks.weight"); });
}

}  // namespace

// Each GPU's compute buffer replayed (replayed_device_compute_bytes) where
// the GPUs run every layer: every block and the output on a GPU under the
// layer split (or one GPU), the host no weight of a block, the KV cache
// offloaded, one copy of each input (no pipeline parallelism: its
// n_copies are inputs and outputs both, never freed, not that graph). 0
// for a GPU no builder covers, and an empty list where the conditions fail:
// the phases price those (place_compute).
Result<std::vector<uint64_t>> replayed_offload(const Model& model, const LlamaCppEstimate& e, const Layout& lay,
                                               const std::vector<DeviceSums>& d, bool get_rows);

Result<std::vector<uint64_t>> replayed_splits(const Model& model, const LlamaCppEstimate& e, const Layout& lay,
                                              const std::vector<DeviceSums>& d, bool host_extra_buffer) {
  const DeviceSums& host = d[lay.host()];
  const bool every_layer = lay.gpus > 0 && host.blocks == 0 && !host.output && !host.runs_weights;
  const bool layer_split = lay.gpus == 1 || lay.mode == SplitMode::kLayer;
  if (!layer_split || !e.settings.placement.kv_offload || e.placement.n_copies > 1) return std::vector<uint64_t>();
  if (!every_layer) {
    // Op offload: the host's products run on the offload GPU (a CPU extra
    // buffer's weights stay the host's from #11120: not replayed).
    if (host_extra_buffer || !llamacpp::op_offload(e.settings) || lay.op_offload_gpu >= lay.gpus) {
      return std::vector<uint64_t>();
    }
    // (A get_rows the GPU takes from a host holding blocks is not priced.)
    return replayed_offload(model, e, lay, d, false);
  }
  // Every layer offloaded, and the offload GPU takes the token table's
  // get_rows (offloads_get_rows, from 32 tokens): the whole prompt graph is
  // its one split, reading the host's table as the scheduler's copy.
  if (lay.offloads_get_rows && llamacpp::op_offload(e.settings) && !host_extra_buffer && lay.gpus == 1) {
    return replayed_offload(model, e, lay, d, true);
  }
  std::vector<int> device_of_layer;
  for (uint64_t i = 0; i <= lay.blocks; ++i) device_of_layer.push_back(static_cast<int>(lay.layer(i)));
  std::vector<uint64_t> out(lay.gpus, 0);
  for (Where w = 0; w < lay.gpus; ++w) {
    if (d[w].blocks == 0 && !d[w].output) continue;
    Result<std::optional<uint64_t>> bytes =
        replayed_device_compute_bytes(model, e.context, e.settings, device_of_layer, static_cast<int>(w),
                                      e.settings.placement.gpus[w].device.starts_with("metal"));
    if (!bytes) return bytes.error();
    if (!*bytes) return std::vector<uint64_t>();
    out[w] = **bytes;
  }
  return out;
}

// Each GPU's compute buffer replayed under op offload (replayed_offload_
// compute_bytes): the decoder's graph with each weight where the placement
// put it (e.placement.tensors), the host's blocks' KV cache on the host.
// An empty list where a GPU is Metal (its buffers the host's), the model
// has no tensor list or a matrix is row-split; 0 for a GPU that runs
// nothing.
Result<std::vector<uint64_t>> replayed_offload(const Model& model, const LlamaCppEstimate& e, const Layout& lay,
                                               const std::vector<DeviceSums>& d, bool get_rows) {
  const std::vector<LlamaCppTensorPlace>& places = e.placement.tensors;
  if (model.tensors.empty() || places.size() != model.tensors.size()) return std::vector<uint64_t>();
  // A host weight's copy on a CUDA, ROCm or SYCL GPU is padded as that
  // buffer type pads a quantized row (cuda_row_padding_bytes).
  const bool copy_pads = lay.pads_rows[lay.op_offload_gpu];
  WeightHomes homes;
  for (size_t i = 0; i < places.size(); ++i) {
    if (places[i].row_split) return std::vector<uint64_t>();
    const SafetensorsTensor& t = model.tensors[i];
    const bool host = places[i].device == lay.host();
    const uint64_t pad = host && copy_pads ? cuda_row_padding_bytes(t) : 0;
    const bool expert_bias = is_routed_expert(t.name) && t.name.ends_with(".bias");
    const bool offloadable =
        !host || t.shape.size() < 2 || runs_weight_op(*lay.gpu_list[lay.op_offload_gpu], t.dtype, expert_bias);
    homes[t.name] = {host ? kWeightOnHost : static_cast<int>(places[i].device), t.data_bytes + pad, offloadable};
  }
  std::vector<int> device_of_layer;
  for (uint64_t i = 0; i <= lay.blocks; ++i) {
    const Where w = lay.layer(i);
    device_of_layer.push_back(w == lay.host() ? kWeightOnHost : static_cast<int>(w));
  }
  std::vector<uint64_t> out(lay.gpus, 0);
  for (Where w = 0; w < lay.gpus; ++w) {
    if (e.settings.placement.gpus[w].device.starts_with("metal")) return std::vector<uint64_t>();
    if (d[w].blocks == 0 && !d[w].output && w != lay.op_offload_gpu) continue;
    Result<std::optional<uint64_t>> bytes =
        replayed_offload_compute_bytes(model, e.context, e.settings, device_of_layer, homes,
                                       static_cast<int>(lay.op_offload_gpu), static_cast<int>(w), get_rows);
    if (!bytes) return bytes.error();
    if (!*bytes) return std::vector<uint64_t>();
    out[w] = **bytes;
  }
  return out;
}

Status place(const Model& model, const MemoryParts& parts, const ComputePhases& phases,
             const MemoryBudget& budget, LlamaCppEstimate& e) {
  const LlamaCppPlacementSettings& s = e.settings.placement;
  e.placement = {};
  const uint64_t host_free = host_free_bytes(budget);
  if (s.gpus.empty()) {
    place_on_host(model, host_free, e);
    return Status::Ok();
  }

  Result<Layout> lay = plan_layout(model.spec, s, llamacpp::output_layer_first(e.settings));
  if (!lay) return lay.error();
  lay->embedding_norm_on_first_block = llamacpp::embedding_norm_on_first_block(e.settings);
  lay->per_layer_inputs_by_role = llamacpp::per_layer_inputs_by_role(e.settings);
  lay->duplicates_tied_output = llamacpp::duplicates_tied_output(model.spec, e.settings);
  lay->rope_factors_per_block = llamacpp::rope_factors_per_block(e.settings);
  lay->loads_qwen35_mtp_block = llamacpp::loads_qwen35_mtp_block(e.settings);
  for (const LlamaCppGpu& g : s.gpus) lay->maps_weights.push_back(s.mmap && g.device.starts_with("metal"));
  lay->maps_weights.push_back(s.mmap);  // the host's
  for (const LlamaCppGpu& g : s.gpus) lay->metal.push_back(g.device.starts_with("metal"));
  const bool sinks = has_attention_sinks(model);
  for (const LlamaCppGpu& g : s.gpus) {
    lay->attention_on_host.push_back(e.settings.flash_attn == FlashAttn::kOn &&
                                     !llamacpp::runs_flash_attn(g, e.settings, sinks));
  }
  if (lay->op_offload_gpu < lay->gpus && llamacpp::op_offload(e.settings)) {
    for (const SafetensorsTensor& t : model.tensors) {
      if (t.name != "token_embd.weight") continue;
      lay->offloads_get_rows = llamacpp::offloads_get_rows(*lay->gpu_list[lay->op_offload_gpu], e.settings, t.dtype);
    }
  }
  e.placement.n_gpu_layers = lay->n_gpu;
  std::vector<DeviceSums> d(lay->gpus + 1);
  for (uint64_t i = 0; i < lay->blocks; ++i) ++d[lay->block(i)].blocks;
  d[lay->output()].output = true;

  if (model.tensors.empty() && (s.n_cpu_moe > 0 || !s.overrides.empty())) {
    // Both move tensors by the names a GGUF gives them; a config or
    // safetensors folder has no such list, and spreading its bytes by
    // layer would leave the experts on the GPU without a word.
    return Error::usage(s.n_cpu_moe > 0 ? "n_cpu_moe" : "override_tensor",
                        "moves tensors by their GGUF names, and this model has no GGUF tensor "
                        "list (a config or safetensors folder): price the GGUF file to place "
                        "its experts, or give --quant a GGUF file type (Q4_K_M, ...)");
  }
  Result<std::vector<std::regex>> rules = override_rules(s);
  if (!rules) return rules.error();
  if (!model.tensors.empty()) {
    place_listed_weights(model, *lay, *rules, s, phases, d, e.placement);
  } else {
    spread_unlisted_weights(e.mapped_bytes, *lay, d);
  }
  place_context(parts, *lay, model.spec, s.kv_offload, d);
  Result<uint64_t> repack = host_repack_bytes(model, e.placement, *lay, e.settings);
  if (!repack) return repack.error();
  d[lay->host()].host_repack = *repack;
  d[lay->host()].model += *repack;
  // A CPU extra buffer keeps its weights' products on the host only from
  // #11120 (offloads_host_buffers_only); before it they were offloaded.
  const bool host_extra_buffer = s.host_extra_buffer && offloads_host_buffers_only(e.settings);
  e.placement.n_copies = pipeline_copies(e.settings, *lay);
  Result<std::vector<uint64_t>> replayed = replayed_splits(model, e, *lay, d, host_extra_buffer);
  if (!replayed) return replayed.error();
  place_compute(phases, *lay, llamacpp::op_offload(e.settings), s.kv_offload, host_extra_buffer, *replayed, d);
  add_pipeline_copies(phases, *lay, e.placement.n_copies, d);
  return settle_devices(d, *lay, host_free, *repack, e);
}

}  // namespace memfit::llamacpp
