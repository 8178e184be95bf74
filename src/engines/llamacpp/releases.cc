// --llamacpp-version: which llama.cpp build's cache rules price the
// estimate, and those rules where builds differ (docs/engine-llamacpp.md,
// "Releases"). A build is llama.cpp's release tag bNNNN: the count of
// commits on master (LLAMA_BUILD_NUMBER), printed as "build: 5361 (...)".
// Since August 2026 stable releases are also tagged vX.Y.Z (the first,
// 0.1.0, at build 10335: llama.cpp PR #26839); a tag up to the pinned
// v0.4.0 reads as that first build, after every rule below dated before
// it, and v0.5.0 as kTag050Build, the first build of its rules.
#include <fmt/format.h>

#include <charconv>
#include <compare>
#include <optional>

#include "engines/llamacpp/parts.h"
#include "engines/llamacpp/releases.h"
#include "memfit/engine.h"
#include "memfit/llamacpp.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

constexpr size_t kMaxBuildDigits = 7;  // b12059 has 5; nothing near 10^7 is a build
constexpr uint64_t kFirstSemverBuild = 10335;  // 0.1.0-dev-b10335 (llama.cpp PR #26839)

struct Semver {
  uint64_t major = 0, minor = 0, patch = 0;
  auto operator<=>(const Semver&) const = default;
};
constexpr Semver kPinnedTag{0, 4, 0};  // the release node-llama-cpp 3.21.1 ships
constexpr Semver kNewestReadTag{0, 5, 0};  // the release node-llama-cpp 3.22.1 ships

// "v0.4.0" or "0.4.0": three numbers and two dots, nothing else.
std::optional<Semver> parse_semver(std::string_view text) {
  if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) text.remove_prefix(1);
  Semver v;
  uint64_t* parts[] = {&v.major, &v.minor, &v.patch};
  const char* at = text.data();
  const char* end = text.data() + text.size();
  for (size_t i = 0; i < 3; ++i) {
    if (i > 0) {
      if (at == end || *at != '.') return std::nullopt;
      ++at;
    }
    const auto [next, ec] = std::from_chars(at, end, *parts[i]);
    if (ec != std::errc() || next == at || next - at > 4) return std::nullopt;
    at = next;
  }
  if (at != end) return std::nullopt;
  return v;
}

// #6122: the output buffer holds n_seq_max rows of logits, not n_batch.
// Its thread dates it: "it works until build b2536" (2024-03-28, posted
// on b2554), and b2459's logs print n_batch rows (62.50 MiB for 32,000
// tokens x 512 x 4 B).
constexpr uint64_t kOutputPerSeqBuild = 2537;

// #18898 (committed 2026-01-23): build_inp_embd makes the vector-input
// path's `inp_embd` (f32 n_embd x n_tok) beside the token path and selects
// one with ggml_build_forward_select, so the reserved graph holds it, never
// read and so never freed; before it the vector input was made only for a
// batch of embeddings, which the reserved ubatch is not. The PR targets
// #18550 (b7774); its own tag was not read. b7780 has not got it: the
// host's compute buffer of a full offload (Qwen2.5-Coder 7B on an RTX 5080,
// corpus log llamacpp-rusteze) is 71.01 MiB, the inputs without the leaf,
// where b7896 (llamacpp-fsd, Qwen2.5 14B) prints the leaf's 10 MiB more.
// The first build after b7780 stands for it (a build from there to the
// PR's tag is priced with the input: the larger).
constexpr uint64_t kVectorInputLeafBuild = 7781;

// #23764 ("llama: use f16 mask for FA to save VRAM", merged 2026-05-27):
// under flash attention build_attn_inp_kq_mask makes the KQ mask input F16
// ("flash attention requires an f16 mask"); before it the input was F32
// and the graph cast it to F16 (`self_kq_mask_cnv = ggml_cast(...)`), the
// PR's "we reserve the KQ mask in f32 even if FA is used": its author's
// compute buffer went from 824 to 444 MiB at -ub 512. Builds before it
// print the F32 mask on the host: b8836 (ghghang2, Qwen3.6 27B, 262,144
// cells) CUDA_Host 532.02 MiB = 512 MiB of mask + the rows and the leaf,
// b9090 (llamacpp-urika) 144.29 MiB = 128 + 16. First build unconfirmed:
// b9174 was out on 2026-05-16 and b9444 on 2026-06-01 (winget's bot), about
// 17 builds a day, so the merge is about b9360; memfit takes b9444, so a
// build from the merge to b9443 is priced with the F32 mask and its cast
// (the larger).
constexpr uint64_t kF16MaskInputBuild = 9444;

// #23861 ("llama: limit max outputs of `llama_context`", commit de6f727aa,
// merged 2026-06-01): llama_context_params.n_outputs_max (0 = n_batch)
// caps the reserved prompt graph's output rows, min(n_tokens,
// cparams.n_outputs_max), where every build before it reserved one row a
// token of the ubatch (graph_reserve(n_tokens, n_seqs, n_tokens)); the
// field is new in llama.h. b9460 is its first build: hybridgroup/yzma, which
// binds llama_context_params by layout, lists b9180 - b9459 for its v1.14.1
// and b9460+ for v1.15.0 (2026-06-02), whose one change is that field
// ("addition: limit max outputs of llama_context", fa5ad68, citing
// #23861); Ollama v0.30.0's llama-server (b9452) prints no n_outputs_max,
// v0.30.7's (b9509) "n_outputs_max = 1".
constexpr uint64_t kOutputsMaxBuild = 9460;

// #26296 ("llama : load MTP tensors only if they are really used", commit
// 82dbc4f0, merged 2026-07-31): llama_model_params.load_mtp (common sets it
// for --spec-type draft-mtp) and every MTP model's loader creating its
// NextN/MTP tensors TENSOR_SKIP unless it is set. Before it Qwen3.5's
// loader (qwen35 / qwen35moe, #22673's load_block_mtp) created the MTP
// block without the flag: loaded into the block's device buffer whether or
// not MTP drafting ran. b10212 is its first build: hybridgroup/yzma#281
// (2026-08-01, "add LoadMTP to ModelParams for llama.cpp b10212+") calls
// 82dbc4f "first in build b10212"; the pinned v0.4.0 has it
// (src/models/qwen35.cpp, mtp_flags). The logs agree: b11151 on a Radeon
// 8060S (llamacpp-neverlogs13-halo-b11151-rocm-..., Qwen3.8-27B
// UD-Q4_K_XL, ROCm and Vulkan) prints "model has unused tensor blk.64.*"
// for the block's 15 tensors, 351,008,768 B, and its GPU's model buffer
// leaves them out. memfit has no setting for --spec-type draft-mtp: a run
// is priced without MTP drafting.
constexpr uint64_t kMtpOnRequestBuild = 10212;

// #21038 ("llama : rotate activations for better quantization", merged
// 2026-04-01, commit 744c0c731): a quantized K (V) cache rotates Q and K
// (V and the attention's output) by a Hadamard matrix input before the
// store (attn_rot_k, attn_rot_v); before it a quantized cache's graph is
// the unquantized one's. First build unconfirmed: b8579 is dated
// 2026-03-29 and b8651 2026-04-03 (packagers' bumps, about 14 builds a
// day); memfit takes b8621 for 2026-04-01.
constexpr uint64_t kAttnRotationBuild = 8621;

// #14959 ("llama : enable LLAMA_SET_ROWS=1 by default", opened 2025-07-30,
// merged after 2025-08-01): the KV cache is written by ggml_set_rows
// through two graph inputs, k_idxs and v_idxs (I64; v_idxs one index per
// element of the batch's V, n_tok x n_embd_v_gqa, where the cache stores V
// transposed, without flash attention: llama-kv-cache's
// build_input_v_idxs); before it by a view and a copy, no index input.
// b6050 has not got it: Mistral Nemo on Metal without flash attention
// (llamacpp-yeti) prints a host compute buffer of the other inputs alone
// (18.01 MiB); Ollama v0.11.5's vendored e54d41b (synced 2025-08-14) has
// supports_set_rows = true. The first build after b6050 stands for it.
constexpr uint64_t kSetRowsBuild = 6051;

// #14568 ("llama : remove ggml_cont where possible", opened and reviewed
// 2025-07-07): llm_build_phi3 with a fused QKV weight takes Q and K as 3-D
// views of the QKV product; before it Q, K and V were each a ggml_cont of
// a 2-D view (Ollama v0.9.0's vendored de4c07f has the three conts,
// v0.11.5's e54d41b the V one alone). First build unconfirmed: b5835 was
// out on 2025-07-07, b5857 by 2025-07-10; memfit takes b5836.
constexpr uint64_t kFusedQkvQkViewBuild = 5836;

// #15662 ("model : avoid ggml_cont_3d for fused QKV weights", opened
// 2025-08-29, reviewed 2025-09-08): V too is a view, copied contiguous by
// the KV cache's cpy_v where it is stored transposed (Ollama v0.12.6's
// vendored 7049736 has it). First build unconfirmed: b6402 was out on
// 2025-09-07, b6451 on 2025-09-12; memfit takes b6403.
constexpr uint64_t kFusedQkvVViewBuild = 6403;

// #20190 ("[SYCL] supprt Flash Attention for fp32/fp16/Q4/Q5/Q8", merged
// 2026-03-08, release b8234): ggml-sycl's first GGML_OP_FLASH_ATTN_EXT.
// Before it the op was not in its supports_op (ggml-org/llama.cpp#11084:
// "op not supported ... (FLASH_ATTN_EXT)" under RPC, 2025-01), so with
// flash attention on the scheduler ran it on the CPU.
constexpr uint64_t kSyclFlashAttnBuild = 8234;

// #10133 ("Optimize RWKV6 Operator Naming and Implement Multi-core CPU/
// SYCL Acceleration", commit 3bcd40b3, b4040) gave ggml-sycl's offload_op
// a get_op_batch_size that counts a GET_ROWS's rows ("this will increse
// the speed of prefill in test"), so the scheduler ran the token table's
// get_rows on the SYCL GPU from 32 tokens up, a copy of the host's table
// in its compute buffer; #10432 ("sycl : offload of get_rows set to 0",
// commit 0f77aae5, b4220) set that batch back to 0. Both builds confirmed
// by NeoZhangJianyu/ci_log's runs of the two commits (llama-2-7b Q4_0 on
// an A770, -ngl 33): b4040 prints SYCL0 342.32 MiB, SYCL_Host 8.01 MiB and
// one graph split at 512 tokens; b4220 296.00, 16.01 and two.
constexpr uint64_t kSyclGetRowsOffloadBuild = 4040;
constexpr uint64_t kSyclGetRowsOffloadEndBuild = 4220;

// #13627 ("[CANN]: add the basic supports of Flash Attention kernel",
// opened 2025-05-19): ggml-cann's first GGML_OP_FLASH_ATTN_EXT (F16 K and
// V, no logit softcap). Before it the op was not in ggml-cann's
// supports_op (the source at ggml-org/llama.cpp 00ca09cf, after #12841 of
// 2025-04, has no case for it: the default, false), so with flash attention
// on the scheduler ran it on the CPU, as for SYCL before b8234: #10252
// (b4036, Qwen2.5 7B F16 over seven Ascend 310P3, -fa) splits its graph 64
// times, 1 + 7 + 2 x 28 (the host's token rows, each NPU's first split, and
// each layer's attention a split of the host's and back), and prints
// CANN_Host 27.01 MiB against 15.01 MiB of inputs. First build unconfirmed:
// b5423 shipped on the PR's opening day and #13833's b5554 came about
// 2025-05-30; memfit takes b5489 (about 2025-05-26), so a build from the
// merge to b5488 is priced with the attention on the host (the larger).
constexpr uint64_t kCannFlashAttnBuild = 5489;

// #6083 ("backend : offload large batches to GPU", reviewed 2024-03-16):
// the scheduler runs an op on host weights on a GPU backend that wants it.
// b2459 is the first build seen with it: ggml-org/ci's b2459 bge-small run
// with no layer offloaded splits its graph 196 times (CUDA0 compute 16.28
// MiB). First build unconfirmed: a build between the merge and b2458 is
// priced without it (its host's compute buffer high).
constexpr uint64_t kOpOffloadBuild = 2459;

// #11120 / #11124 ("ggml-backend : only offload from host buffers", both
// merged 2025-01-07, fixing #11115): ggml_backend_sched_backend_id_from_cur
// offloads an op on a weight only where the weight's buffer is a host
// buffer (ggml_backend_buffer_is_host). Before them any weight the CPU
// backend held qualified, a CPU extra buffer's (CPU_AARCH64, AMX) too:
// Ollama's vendored 081b29bd (2024-12-17) and 46e3556 (synced 2025-01-08)
// check only that the weight's backend is the last one, the CPU.
// ggml-org/llama.cpp#10850 (b4334, SYCL, no layer offloaded, a
// CPU_AARCH64 model buffer) prints SYCL_Host 24.01 MiB, the inputs alone:
// the products on the repacked weights ran on the GPU. First build
// unconfirmed: #11141 (opened after #11124) ran b4436; memfit takes b4436,
// so a build from the merge to b4435 is priced as offloading them.
constexpr uint64_t kHostBufferOffloadBuild = 4436;

// #14208 ("llama : rework embeddings logic", merged 2025-06-16):
// output_reserve's `has_logits = !cparams.embeddings` and `has_embd =
// cparams.embeddings && pooling_type == NONE` became `has_logits = true`
// and `has_embd = cparams.embeddings`. b5618 (2025-06-09, ROCm/ROCm#4903:
// `--embeddings --pooling mean`, output buffer 0.00 MiB) precedes it.
// First build unconfirmed: the merge date's build, about b5670 (xllamacpp
// moved to b5671 on that day and to b5704, "fix embedding", on 06-19); a
// build from the merge to b5669 is priced with the old rule.
constexpr uint64_t kEmbeddingsReworkBuild = 5670;

// #13108 ("context : allow cache-less context for embeddings"): an
// encoder-only model (llama_model::create_memory's list: BERT, Jina BERT
// v2, nomic-bert, ...) gets no memory; before it llama_context made the
// usual KV cache for it, never read by the encoder's graph, which attends
// over the batch itself. ggml-org/ci's b4343 and b4730 bge-small runs
// print "KV self size = 9.00 MiB" (512 cells x 12 layers x 384 x 2 x 2 B)
// and b4438 and b4897 jina-reranker-v1-tiny 48.00 MiB (8192 x 4 x 384 x 2
// x 2 B). First build unconfirmed: the PR was rebased for merging after
// its 2025-05-02 note and #13797 (2025-05-26) continues it; memfit takes
// the build of 2025-05-02, about b5340 (b5618 is 2025-06-09, about seven
// builds a day): a build from there to the merge is priced without the
// cache (low).
constexpr uint64_t kCachelessEncoderBuild = 5340;

// #6017 ("llama : add pipeline parallelism support", tag b2413: issue
// #6091's git bisect names f30ea47a, "(tag: b2413) llama : add pipeline
// parallelism support (#6017)", with b2412 the last build without it):
// "Graph inputs are allocated in the graph" and n_ubatch splits a batch.
// Before it the graph ran n_batch tokens (no n_ubatch) and its inputs had
// a host buffer of their own (#5100, "pre-allocate input tensors in a
// separate buffer"), printed "input buffer size".
constexpr uint64_t kGraphInputsBuild = 2413;

// #20943 ("models : move the token embedding norms to the first layer",
// reviewed 2026-03-24): an encoder's token_embd_norm is created with bid 0
// and LLM_TENSOR_TOKEN_EMBD_NORM is a repeating-layer tensor ("do the
// norms on the first layer (not the input layer)", src/llama-arch.cpp):
// block 0's device. Before it an input-layer tensor, on the host:
// ggml-org/ci's b4438 and b4507 jina-reranker-v1-tiny runs print Vulkan0
// 18.05 MiB, their 4 blocks and cls head (18,930,560 B, the bias's 4 B
// at the GPU's 128 B alignment) without the norm's 3,072 B (18,933,632 B
// would print 18.06). First build
// unconfirmed: b8579 is dated 2026-03-29 (bernardladenthin/java-llama.cpp
// #28) and b8651 2026-04-03 (gominimal/pkgs#40), about 14 builds a day;
// memfit takes b8510 for 2026-03-24 (3 KB either way).
constexpr uint64_t kEmbeddingNormFirstBlockBuild = 8510;

// Gemma 3n's and Gemma 4's per-layer input tensors by their layer in
// llama-arch.cpp's LLM_TENSOR_INFOS: from #14400 (Gemma 3n) to
// b8702 per_layer_token_embd, per_layer_model_proj and per_layer_proj_norm
// are LLM_TENSOR_LAYER_OUTPUT tensors, on the output layer's device (the
// b5775 ROCm Gemma 3n E4B log, b8680's Metal Gemma 4 E4B one: the host's
// model buffer holds token_embd alone). From b8720 per_layer_token_embd is
// an LLM_TENSOR_LAYER_INPUT tensor, on the host with token_embd, and the
// projection and its norm LLM_TENSOR_LAYER_REPEATING ones created with bid
// 0 (tn(..., "weight", 0) in the loader), on block 0's device; the AltUp
// projections stay output-layer tensors. The graph reads the table into a
// graph input of its own (build_inp_per_layer). Dated by the trees read:
// mybigday/llama.rn's sync to b8702 (06f7e869) has the output-layer rule,
// its sync to b8720 (e5bcd34b, 2026-04-10) the new one; Ollama's vendored
// copies (to ec98e2002, 2026-02) keep the old one. The PR was not found;
// memfit takes b8720, the first build read with the rule.
constexpr uint64_t kPerLayerInputsByRoleBuild = 8720;

// #6017 ("llama : add pipeline parallelism support", merged 2024-03-13):
// llama_context asks ggml_backend_sched for GGML_SCHED_MAX_COPIES (4)
// copies of every graph input and split input when the model's devices
// are several, every layer is offloaded with the layer split and KQV
// offloaded. Its commit f30ea47 is tagged b2413 (the git bisect in
// llama.cpp issue #6091; b2412 is the commit before it).
constexpr uint64_t kPipelineParallelBuild = kGraphInputsBuild;  // the same PR

// ggml-vulkan's device reports events (props.caps.events), which
// pipeline parallelism needs on every GPU, by #18302 (2025-12-22, "fix
// command buffer corruption in ggml_backend_vk_event_wait"); #17158
// (2025-11-10) had made its graph_compute async. The build that added
// them was not read: memfit takes b7591, the first build known after
// #18148 (2025-12-18); a Vulkan build before it is priced with one copy.
constexpr uint64_t kVulkanEventsBuild = 7591;

// #19067 ("kv-cache : support V-less cache", merged 2026-01-24): an MLA
// layer (llama_hparams::is_mla()) caches its latent as K alone and reads
// V as a view of K's first kv_lora_rank elements (llama_kv_cache's
// `has_v = !is_mla`; llm_graph_input_attn_k), so deepseek2's graph
// concatenates the latent first (Qcur = concat(q_nope_absorbed, q_pe),
// Kcur = concat(kv_cmpr, k_pe)): the graph graph/mla.cc builds.
// From #12801 (kMlaGraphBuild) to it an MLA GGUF ran the same absorbed
// graph over two tensors a layer: K of kv_lora_rank + rope with the rope
// part first (concat(k_pe, kv_cmpr), and Q likewise, "rope must go first
// for in-place context shifting in build_rope_shift()"), and V, the
// normed latent (Vcur = kv_cmpr), n_embd_v_gqa = kv_lora_rank wide (the MLA
// GGUF's value_length), stored transposed without flash attention (read
// as it is, no copy) and untransposed with it (#12953, 2025-04-15, "graph :
// make FA compatible with MLA": flash_attn_ext over K and V, then wv_b;
// wv_b's product over a reshape of the output until a sync between b5233
// and 2025-05-24, then over its permutation, made contiguous). Read in
// mybigday/llama.rn's syncs of llama.cpp: b5233 (#138, 2025-05-01), the
// 2025-05-24 and 2025-06-21 syncs (#146, #156), b7729 (#277) and b7798
// (#284, c301172: cache_v_l%d made for every layer, concat(k_pe,
// kv_cmpr)); b7836 (#285, 0c21677) has `has_v`, build_attn_inp_k and the
// latent first. The logs agree: b5331 (ik_llama.cpp#394, DeepSeek-V3,
// 16,384 cells x 61 layers) prints K (f16) 1098.00 MiB = 576 x 2 B a row
// beside V (f16) 976.00 MiB = 512 x 2 B, and b5614 (#14201, DeepSeek-R1,
// 32,768 cells) K 2196.00 MiB beside V 1952.00 MiB; Ollama's vendored
// llama.cpp at b7735 makes K and V for every layer, at b7847 has `has_v`.
// The phase model prices these builds' compute (graph/mla.cc mirrors the
// V-less graph only). First build unconfirmed: memfit takes b7836, the
// first build seen with it, so a build from the merge's tag (after b7798)
// to b7835 is priced with the V tensor (the larger).
constexpr uint64_t kVlessMlaBuild = 7836;

// GLM-4.5's support (#14939, "model : support GLM 4.5 family of models")
// gave glm4moe a KV cache of n_layer - nextn_predict_layers layers: the
// NextN block's tensors are created TENSOR_SKIP and it keeps no cache
// (llama_kv_cache_unified's constructor: n_layer_cache for
// LLM_ARCH_GLM4_MOE, "skip final NextN layer"; later load_hparams sets
// hparams.n_layer_kv_from_start to the same). Read in Ollama's vendored
// llama.cpp: e54d41be (Ollama v0.11.10, August 2025), 7049736b (v0.12.6),
// ec98e2002 (2025-12-16) and a5bb8ba4 (2026-02-02, the sync Ollama's
// revert #14061 calls "Update vendored llama.cpp to b7847"); v0.4.0, the
// pinned (node-llama-cpp 3.21.1's bundle), caches the block (kTag050Build
// below). The log agrees: b6168 (a GLM-4.5-Air
// GGUF, 47 blocks, nextn_predict_layers 1, 131,072 cells) prints
// "46 layers", K (f16) 11776.00 MiB = 46 x 1024 x 2 B x 131,072. A build
// before #14939 cannot load a glm4moe GGUF. Last build unconfirmed: memfit
// takes b7848, the build after the last one seen with the filter, as the
// first that caches the block; a build from there to the change is priced
// with it (the larger).
constexpr uint64_t kGlm4MoeNextnCachedBuild = 7848;

// #14158 ("ggml : implement REGLU/GEGLU/SWIGLU ops", in review on
// 2025-06-13 and -14) gave build_ffn the fused ggml_swiglu_split, which
// ggml-alloc does not run in place; before it SiLU over the gate and the
// product with the up projection were ggml_silu and ggml_mul, both in
// ggml_op_can_inplace's list. Every build up to b5618 (2025-06-09, ROCm/
// ROCm#4903) predates the review; the first build with the fused op was
// not read, so memfit takes b5619 and prices a build from it to the merge
// as fused (high by one FFN-wide product where the FFN phase is the peak).
constexpr uint64_t kFusedGluBuild = 5619;

// #15476 ("readme : model : mtdm : lfm2 improvements", opened 2025-08-21:
// "Support untied embeddings for LFM2 dense") gave LFM2's loader an
// output.weight (TENSOR_NOT_REQUIRED) and, where the file has none, the
// tied copy of token_embd (TENSOR_DUPLICATED) on the output layer's
// device. Before it llm_build_lfm2 multiplied by model.tok_embd itself
// ("lm_head is tied with embeddings"), the input layer's, on the host: no
// second table. Read in mybigday/llama.rn's syncs of src/llama-model.cpp:
// b6209 (2025-08-20, #183) has no output tensor for LLM_ARCH_LFM2, b6250
// (2025-08-23, #192) has it; so do Ollama's vendored e54d41be (none) and
// 364a7a6d (b6646, has it). First build unconfirmed: memfit takes b6250,
// so a build from the merge to b6249 is priced without the copy.
constexpr uint64_t kLfm2TiedOutputBuild = 6250;
// llama.cpp #10026 (b3990, 2024-10-31, "llama : refactor model loader with
// backend registry") made load_tensors' create_tensor look a duplicated
// tensor up in its buffer type's context first and reuse it. Before it
// every block past block 0 made its own copy of a TENSOR_DUPLICATED
// tensor (the RoPE factors: rope_freqs, rope_factors_long/_short) in its
// device's context (llama_model_loader::create_tensor_for, ggml_dup_tensor),
// each allocated in that device's model buffer: read in Ollama's vendored
// llama.cpp, v0.5.1 (3f1ae2e3, before) and v0.5.2 (40c6d79f, after).
constexpr uint64_t kSharedDuplicatesBuild = 3990;

// #12801 ("llama : DeepSeek V2/V3 MLA implementation", merged 2025-04-15)
// moved deepseek2's graph to the absorbed MLA one for GGUFs with the MLA
// keys and kept a "legacy non-MLA" path for older files, rebuilt on
// build_attn (the query and key concatenated rope first, no copies of the
// roped parts). Before it every deepseek2 GGUF ran llm_build_deepseek2's
// own graph: Q, the decompressed K and V of every head, the key's rope part
// repeated over the heads, llm_build_kv's stores and product
// (graph/deepseek2_legacy.cc). The corpus brackets it by the KV line
// (#12801 "adds context shifting ability (for both legacy non-MLA GGUF
// files and new MLA GGUF files)"): b4887 (neverllama6's DeepSeek-V2-Lite)
// prints "can_shift = 0", b5276 (#13305, a file without the MLA keys)
// "can_shift = 1". First build unconfirmed: about 9.6 builds a day from
// b5331 (2025-05-10) to b5618 (2025-06-09) put the merge near b5091;
// memfit takes b5091, so a build from the merge to b5090 is priced with
// the old graph.
constexpr uint64_t kMlaGraphBuild = 5091;

// v0.5.0, the release node-llama-cpp 3.22.1 ships (its
// llama/binariesGithubRelease.json; llama/gitRelease.bundle is one squashed
// commit dated 2026-09-28), read beside 3.21.1's v0.4.0 bundle. Two rules
// that move memory changed between them (the PRs are not named in a
// squash):
// - llama_model::create_memory: the main context's KV cache leaves the
//   NextN/MTP blocks out for every model with n_layer_nextn > 0, a trunk
//   (n_layer() > 0) and no router layer (router_layer < 0, granite-switch's
//   alone); v0.4.0 filtered them for step35, hy_v3, glm-dsa, mimo2 and
//   deepseek32 only, so a deepseek2 or glm4moe GGUF cached its NextN block.
// - common/fit.cpp, llama_params_fit: an unset context (n_ctx 0) is sized
//   n_ctx_train x n_seq_max, the unified cache too; v0.4.0 took
//   n_ctx_train x n_streams, one stream when unified (llama-server's auto
//   slots share one cache: n_ctx_train there, x4 from v0.5.0).
// First build unconfirmed: the bundle is a squash (build number 1) and no
// tag's build was read; b11424 was out by 2026-10-05 (nyo16/llama_cpp_ex
// v0.8.55) at about 18 builds a day from b10335 (v0.1.0, August 2026), so
// 2026-09-28 is about b11300: memfit takes b11300 for v0.5.0, and a build
// from the changes' merge to b11299 is priced by v0.4.0's rules. Unlike
// the rules above these come after the pinned release: they apply only to
// a build or tag given (the default prices v0.4.0).
constexpr uint64_t kTag050Build = kLlamaCppTag050Build;
constexpr uint64_t kNextnFilteredBuild = kTag050Build;
constexpr uint64_t kAutoContextPerSequenceBuild = kTag050Build;
// Read in v0.5.0's ggml/src/ggml-cpu/repack.cpp beside v0.4.0's (the
// backends' diff): ggml_repack_get_optimal_repack_type gained Q1_0 (block
// q1_0x4: 4x8 with NEON and i8mm, 4x4 with NEON and dotprod, ne[1] a
// multiple of 4), and VXE's Q4_0 4x4 on s390x (no CPU class of memfit's);
// nothing else of the CPU_REPACK types changed. The buffer's allocation is
// still the tensor's bytes (get_alloc_size: ggml_nbytes).
constexpr uint64_t kQ1RepackBuild = kTag050Build;

// ggml-metal's buffer type allocates a FLASH_ATTN_EXT node past its output
// (ggml-metal.cpp, ggml_backend_metal_buffer_type_get_alloc_size;
// ggml-metal-ops.cpp, ggml_metal_op_flash_attn_ext_extra_pad, _blk, _tmp,
// _kv_f16), so ggml-alloc's compute buffer holds its scratch
// (llamacpp::MetalFaScratch, graph::metal_flash_attn_scratch):
// - #15966 ("metal : remove memory pools"; #16646 names b6473 its first
//   bad commit) moved the vector kernel's partial results from a memory
//   pool into the allocation, under the vector kernel alone (fewer than 20
//   queries, a head size a multiple of 32): 4 x queries x heads x 32
//   workgroups x (V's head size + 2). Before it get_alloc_size was unset
//   ("defaults to ggml_nbytes").
constexpr uint64_t kMetalAllocSizeBuild = 6473;
// - #17143 ("metal : make the FA extra sizes consistent", opened
//   2025-11-10, on master by 2025-11-15, when its author reverted it to test
//   #17276) reserves every part whatever the kernel ("always reserve ... to
//   avoid graph reallocations"): K, V and mask padding for the kernel's
//   cells (32 under the vector kernel, else 64), the mask's block map, and
//   the partials of at most 32 queries (whisper.rn's sync of that source).
//   #16148 (2025-09-21) had added the padding and block map only where the
//   kernel needs them (K and V not whole blocks of cells; the 8-query
//   kernel): not priced, as a cache's cells are whole blocks there. First
//   build unconfirmed: b7045 was out by 2025-11-13, maybe before the merge;
//   memfit takes b7591, the first build known after 2025-11-15 (#18148's
//   row above), so b7045 to b7590 are priced with the partials alone.
constexpr uint64_t kMetalFaReservedScratchBuild = 7591;
// - #18545 ("metal : adjust extra size for FA buffer to avoid
//   reallocations", opened 2026-01-02): the padding for 64 cells under
//   either kernel ("pad using the worst case size between the vec and
//   non-vec buffers"), as v0.4.0 has it. First build unconfirmed: memfit
//   takes b8510 (2026-03-24, #20943's row), the first build it has a date
//   for after the PR; before it the vector kernel's graph (one query a
//   sequence) pads 32 cells.
constexpr uint64_t kMetalFaPad64Build = 8510;
// - #27390 ("metal : dequantize quantized KV to F16 before flash
//   attention", opened 2026-08-19), in the pinned v0.4.0: F16 copies of the
//   node's whole K and V views, each padded to 16 B, reserved whatever the
//   cache's type ("always reserve the temp buffer"), and, where the copy is
//   used (K Q4_0, Q4_1, Q5_0, Q5_1 or Q8_0, 32 queries or more), the
//   padding of the copy's head rows. First build unconfirmed: merged after
//   b10335 (v0.1.0); memfit takes b11300 (v0.5.0, which has it), so a build
//   given below it, or a tag v0.1.0 to v0.4.0 read as b10335, is priced
//   without it while the pinned default has it.
constexpr uint64_t kMetalFaKvF16Build = kTag050Build;

// Where builds differ, oldest first: one line a build constant above (the
// test LlamaCppReleases.EveryRuleBuildIsListed checks each is named),
// what `memfit engines` and GET /v1/engines print (docs/engine-llamacpp.md,
// "Releases", gives each one's source).
constexpr ReleaseDifference kDifferences[] = {
    {"before b2413", "the graph's inputs in a host buffer of their own, beside the compute "
                     "buffers, a graph of n_batch tokens, and no pipeline parallelism (one copy "
                     "of every input, whatever the GPUs): #6017 put the inputs in the graph, "
                     "added n_ubatch and the scheduler's four copies"},
    {"before b2459", "a host that holds layers runs their ops itself: no GPU backend takes the "
                     "large-batch ops on host weights (#6083 added op offload)"},
    {"before b2537", "the output buffer holds n_batch rows of logits, not one a sequence (#6122); "
                     "the early graph's compute phases (SiLU and the gate's product in place, K "
                     "and V freed before the scores)"},
    {"before b3990", "every block past the first makes its own copy of a duplicated tensor (the "
                     "RoPE factors) in its device's model buffer, and a host without mmap a tied "
                     "output's own token_embd (#10026 reuses one a device)"},
    {"b4040 to b4219, SYCL", "a SYCL GPU that runs every layer runs the token table's get_rows "
                             "too (an f16, f32, q4_0, q4_1, q5_0, q5_1 or q8_0 table), from 32 "
                             "tokens: a copy of the table in its compute buffer, the host the "
                             "graph inputs alone (#10133; #10432 took it back)"},
    {"before b4436", "an op on a weight in a CPU extra buffer (CPU_AARCH64, AMX) is offloaded to "
                     "the GPU too (#11120 / #11124 offload from host buffers only)"},
    {"before b5091", "a deepseek2 file without the MLA keys runs llama.cpp's old DeepSeek graph, "
                     "every head's K and V decompressed and cached (#12801 moved it to MLA)"},
    {"before b5340", "an encoder (BERT) keeps a decoder's KV cache of n_ctx cells, never read "
                     "(#13108 made its context cache-less)"},
    {"before b5424", "a sliding-window layer caches the full context, as --swa-full does (#13194 "
                     "gave it a cache of its window)"},
    {"b5424 to b5553", "an SWA cache of the window and a logical batch: pad(min(n_ctx, n_swa x "
                       "n_seq + n_batch)) (#13194)"},
    {"before b5489, CANN", "with flash attention on, the host runs each Ascend NPU layer's "
                           "attention over copies of its K and V (#13627 gave ggml-cann flash "
                           "attention)"},
    {"before b5619", "SiLU over the gate and its product with the up projection run in place "
                     "(#14158's fused SWIGLU does not)"},
    {"before b5670", "--embedding keeps no logits, and the embeddings only without pooling; mean "
                     "pooling's matrix n_tok x n_tok (#14208 reworked the embeddings)"},
    {"before b5836", "phi3's fused QKV: Q, K and V each copied contiguous (#14568 views Q and K)"},
    {"before b5913", "one KV stream for every sequence, as --kv-unified (#14363 gave each "
                     "sequence its own)"},
    {"before b6051", "the KV cache written by a view and a copy, no k_idxs / v_idxs inputs "
                     "(#14959 enabled set_rows)"},
    {"before b6250", "LFM2 multiplies by the token table on the host: no tied output copy "
                     "(#15476)"},
    {"before b6403", "phi3's fused QKV: V copied contiguous (#15662 views it)"},
    {"before b6473, Metal", "flash attention's output is allocated alone: ggml-metal sizes no "
                            "tensor past its bytes, the vector kernel's partial results in a "
                            "memory pool (#15966 removed the pools)"},
    {"b6845 and before", "with flash attention off, cells padded to 32 rather than 256 (#16812 "
                         "removed the padding, #17046 made it 256)"},
    {"before b7591", "-ngl N offloads the last N blocks, the output layer only past n_layer "
                     "(#18148 offloads the output layer first); Vulkan GPUs without pipeline "
                     "parallelism (no events yet)"},
    {"before b7591, Metal", "flash attention's output is allocated with the vector kernel's "
                            "partial results alone, where it runs (#15966): #17143 reserves the "
                            "K, V and mask padding, the mask's block map and the partials of at "
                            "most 32 queries whatever the kernel"},
    {"before b7781", "the reserved graph holds no vector-input rows (inp_embd): #18898 builds "
                     "both input paths in every graph"},
    {"before b7836", "an MLA layer caches a V tensor of kv_lora_rank elements beside its latent K "
                     "(#19067 made the cache V-less)"},
    {"before b7848, glm4moe", "a GLM-4.5 / 4.6 GGUF's KV cache leaves its NextN block out: "
                              "n_layer - nextn_predict_layers layers (#14939's GLM-4.5 support; "
                              "the pinned v0.4.0 caches it)"},
    {"before b8234, SYCL", "with flash attention on, the host runs each SYCL layer's attention "
                           "over copies of its K and V (#20190 gave ggml-sycl flash attention)"},
    {"before b8510", "an encoder's token_embd_norm on the host, not block 0's device (#20943)"},
    {"before b8510, Metal", "flash attention's vector kernel graph (under 20 queries) pads 32 "
                            "cells of K, V and mask, not 64 (#18545)"},
    {"before b8621", "a quantized K or V cache's graph is the unquantized one's: no Hadamard "
                     "rotation inputs (#21038)"},
    {"before b8720", "Gemma 3n's and Gemma 4's per-layer embedding table, its projection and "
                     "norm on the output layer's device, not the table on the host and the "
                     "projection with block 0 (llama-arch.cpp's tensor layers)"},
    {"before b9444", "with flash attention, the KQ mask an F32 input cast to F16 in the graph "
                     "(#23764 makes the input F16)"},
    {"before b9460, llama-server", "the prompt graph keeps an output (logits) row for every token "
                                   "of the ubatch (#23861 lets llama-server and llama-cli reserve "
                                   "one a slot)"},
    {"before b10212, qwen35", "a Qwen3.5 / 3.6 GGUF's MTP (NextN) block is loaded into its "
                              "device's model buffer like any block, MTP drafting or not "
                              "(#26296 loads it only for --spec-type draft-mtp)"},
    {"before b11300, Metal, given", "flash attention's output is allocated without the F16 copies "
                                    "of its K and V that the pinned v0.4.0 reserves (#27390; its "
                                    "first build unconfirmed)"},
    {"b11300 (v0.5.0) and later, given", "the NextN/MTP blocks keep no KV cache whatever the "
                                         "architecture, llama-server's unset context is the "
                                         "training context x the slots, a unified cache too, "
                                         "and an ARM CPU repacks Q1_0 weights (node-llama-cpp "
                                         "3.22.1's v0.5.0; its models' graphs are priced as "
                                         "v0.4.0's, not compared)"},
    // Checked 2026-12-07: the newest tag seen is v0.8.0 (out by 2026-11-02;
    // v0.6.0 by 2026-10-10, v0.7.0 by 2026-10-17, from a tracker of
    // ggml-org/llama.cpp's releases); npm's newest node-llama-cpp, 3.22.1,
    // ships v0.5.0. The llama.cpp repository is larger than the research
    // copy memfit's tools take, no package of the registries reached ships
    // a newer tree (@wllama/wllama 3.13.0 ships b12211 built to WebAssembly,
    // its format strings alone), and the search index's llama.cpp files mix
    // forks' trees: nothing after v0.5.0 was read (docs/engine-llamacpp.md,
    // "Newer releases", lists what b12211's strings show is left).
    {"v0.5.1 and later", "refused: not read yet (the newest tag seen is v0.8.0, out by "
                         "2026-11-02; b12211's log lines show new buffers, a rotation buffer, a "
                         "layer input buffer and a MoE cache, whose rules are not read)"},
};

bool before(const LlamaCppSettings& s, uint64_t first_build) {
  return s.build && *s.build < first_build;
}

// A rule newer than the pinned release: only a build given from it on.
bool given_from(const LlamaCppSettings& s, uint64_t first_build) {
  return s.build && *s.build >= first_build;
}

}  // namespace

Result<uint64_t> parse_llamacpp_build(std::string_view text) {
  if (const std::optional<Semver> tag = parse_semver(text)) {
    if (*tag > kNewestReadTag || (tag->major == 0 && tag->minor == 0)) {
      return Error::usage("llamacpp_version",
                          fmt::format("{}: tagged releases v0.1.0 to v0.5.0 are read; not "
                                      "given, the pinned v0.4.0",
                                      quote_untrusted(text)));
    }
    return *tag > kPinnedTag ? kTag050Build : kFirstSemverBuild;
  }
  std::string_view digits = text;
  if (!digits.empty() && (digits.front() == 'b' || digits.front() == 'B')) digits.remove_prefix(1);
  uint64_t build = 0;
  const char* end = digits.data() + digits.size();
  const auto [at, ec] = std::from_chars(digits.data(), end, build);
  if (digits.empty() || digits.size() > kMaxBuildDigits || ec != std::errc() || at != end ||
      build == 0) {
    return Error::usage("llamacpp_version",
                        fmt::format("{}: expected a build number, e.g. b6500, or a tag, v0.4.0",
                                    quote_untrusted(text)));
  }
  return build;
}

namespace llamacpp {

std::span<const ReleaseDifference> release_differences() { return kDifferences; }

bool full_swa_cache(const LlamaCppSettings& s) {
  return s.swa_full || before(s, kLlamaCppSwaWindowBuild);
}

bool one_stream(const LlamaCppSettings& s) {
  return s.kv_unified || before(s, kLlamaCppStreamsBuild);
}

uint64_t swa_batch_tokens(const LlamaCppContext& c, const LlamaCppSettings& s) {
  return before(s, kLlamaCppSwaUbatchBuild) ? c.n_batch : c.n_ubatch;
}

uint64_t cell_pad(const LlamaCppSettings& s) {
  if (s.cell_pad && *s.cell_pad > 0) return *s.cell_pad;
  const bool pad32 = s.build && *s.build <= kLlamaCppLastPad32Build;
  return pad32 && s.flash_attn == FlashAttn::kOff ? 32 : kLlamaCppCellPad;
}

uint64_t output_rows(const LlamaCppContext& c, const LlamaCppSettings& s) {
  return before(s, kOutputPerSeqBuild) ? c.n_batch : c.n_seq;
}

bool logits_beside_embeddings(const LlamaCppSettings& s) { return !before(s, kEmbeddingsReworkBuild); }
bool square_mean_matrix(const LlamaCppSettings& s) { return before(s, kEmbeddingsReworkBuild); }

bool keeps_output_embeddings(const ModelSpec& spec, const LlamaCppSettings& s) {
  const std::string& pooling = spec.embedding.pooling;
  return !s.embedding && s.output_embeddings &&
         (logits_beside_embeddings(s) || pooling.empty() || pooling == "none");
}
bool vector_input_leaf(const LlamaCppSettings& s) { return !before(s, kVectorInputLeafBuild); }
bool f32_mask_cast(const LlamaCppSettings& s) { return before(s, kF16MaskInputBuild); }
bool limits_outputs(const LlamaCppSettings& s) { return !before(s, kOutputsMaxBuild); }
bool attn_rotation(const LlamaCppSettings& s) { return !before(s, kAttnRotationBuild); }
MetalFaScratch metal_flash_attn_scratch_rule(const LlamaCppSettings& s) {
  if (before(s, kMetalAllocSizeBuild)) return MetalFaScratch::kNone;
  if (before(s, kMetalFaReservedScratchBuild)) return MetalFaScratch::kVecPartials;
  if (before(s, kMetalFaPad64Build)) return MetalFaScratch::kKernelPad;
  if (before(s, kMetalFaKvF16Build)) return MetalFaScratch::kPad64;
  return MetalFaScratch::kKvF16;
}
bool set_rows_kv_store(const LlamaCppSettings& s) { return !before(s, kSetRowsBuild); }
bool fused_qkv_qk_cont(const LlamaCppSettings& s) { return before(s, kFusedQkvQkViewBuild); }
bool fused_qkv_v_cont(const LlamaCppSettings& s) { return before(s, kFusedQkvVViewBuild); }
bool mla_caches_v(const LlamaCppSettings& s) { return before(s, kVlessMlaBuild); }
bool glm4moe_filters_nextn(const LlamaCppSettings& s) { return before(s, kGlm4MoeNextnCachedBuild); }
bool loads_qwen35_mtp_block(const LlamaCppSettings& s) { return before(s, kMtpOnRequestBuild); }
bool legacy_deepseek2_graph(const LlamaCppSettings& s) { return before(s, kMlaGraphBuild); }
bool op_offload(const LlamaCppSettings& s) { return !before(s, kOpOffloadBuild); }
bool offloads_host_buffers_only(const LlamaCppSettings& s) { return !before(s, kHostBufferOffloadBuild); }
bool duplicates_tied_output(const ModelSpec& spec, const LlamaCppSettings& s) {
  return spec.model_type != "lfm2" || !before(s, kLfm2TiedOutputBuild);
}
bool rope_factors_per_block(const LlamaCppSettings& s) { return before(s, kSharedDuplicatesBuild); }
bool filters_every_nextn(const LlamaCppSettings& s) { return given_from(s, kNextnFilteredBuild); }
bool auto_context_per_sequence(const LlamaCppSettings& s) {
  return given_from(s, kAutoContextPerSequenceBuild);
}
bool repacks_q1_0(const LlamaCppSettings& s) { return given_from(s, kQ1RepackBuild); }
RepackKernels repack_kernels(RepackCpu cpu, const LlamaCppSettings& s) {
  return RepackKernels{.cpu = cpu, .q1_0 = repacks_q1_0(s)};
}
bool embedding_norm_on_first_block(const LlamaCppSettings& s) {
  return !before(s, kEmbeddingNormFirstBlockBuild);
}
bool per_layer_inputs_by_role(const LlamaCppSettings& s) { return !before(s, kPerLayerInputsByRoleBuild); }
bool encoder_kv_cache(const LlamaCppSettings& s) { return before(s, kCachelessEncoderBuild); }
bool separate_input_buffer(const LlamaCppSettings& s) { return before(s, kGraphInputsBuild); }
bool early_graph_phases(const LlamaCppSettings& s) { return before(s, kOutputPerSeqBuild); }
bool split_glu_in_place(const LlamaCppSettings& s) { return before(s, kFusedGluBuild); }
bool splits_batch(const LlamaCppSettings& s) { return !before(s, kGraphInputsBuild); }
uint64_t default_batch_size(const LlamaCppSettings& s) {
  // Before #6017 llama_context_default_params' (and gpt_params') n_batch
  // was 512, the graph's batch itself; #6017 made it 2048 beside n_ubatch.
  return splits_batch(s) ? LlamaCppSettings{}.batch_size : 512;
}

bool takes_op_offload(const LlamaCppGpu& g) {
  // ggml-cann's offload_op (ne[1] of 32 or more, get_rows excepted) is in
  // the backend from its first source (#6035, "[CANN] Add Ascend NPU
  // backend", merged 2024-07): every build with a CANN device has it.
  // #10777 (b4302, QwQ 32B Q4_0, 33 of 65 layers on four Ascend 910B2)
  // splits its graph 441 times at 512 tokens and 6 at one: the host
  // blocks' products run on CANN0.
  return g.device.starts_with("cuda") || g.device.starts_with("rocm") || g.device.starts_with("vulkan") ||
         g.device.starts_with("sycl") || g.device.starts_with("cann");
}

bool cast_leaves_holes(const LlamaCppGpu& g) {
  // ggml-cann copies its inputs too, but its one log whose first NPU casts
  // the mask (gpt-oss-20b, b6115, #15091's sinks: the attention on the
  // host) prints CANN0 396.27 MiB, under the cast phase without holes
  // (398.38): its layout there is not traced, and no hole is priced.
  return g.device.starts_with("cuda") || g.device.starts_with("rocm") || g.device.starts_with("vulkan") ||
         g.device.starts_with("sycl");
}

bool runs_weight_op(const LlamaCppGpu& g, std::string_view dtype, bool expert_bias) {
  if (!g.device.starts_with("cann")) return true;
  // ggml/src/ggml-cann/ggml-cann.cpp, ggml_backend_cann_supports_op: the
  // matrix products' src[0] types; any op it does not list (ADD_ID) is
  // refused.
  if (expert_bias) return false;
  return dtype == "f32" || dtype == "f16" || dtype == "q8_0" || dtype == "q4_0";
}

bool runs_flash_attn(const LlamaCppGpu& g, const LlamaCppSettings& s, bool sinks) {
  // ggml-cann's supports_op refuses FLASH_ATTN_EXT with a sinks source
  // ("TODO: support attention sinks [TAG_ATTN_SINKS]", added with the sinks
  // themselves by #15091, b6096, and still there in the late-2025 source):
  // every build that can load gpt-oss runs its attention on the CPU; and
  // before #13627 it had no flash attention at all.
  if (g.device.starts_with("cann")) return !sinks && !before(s, kCannFlashAttnBuild);
  return !g.device.starts_with("sycl") || !before(s, kSyclFlashAttnBuild);
}

bool pipeline_parallel_build(const LlamaCppSettings& s) { return !before(s, kPipelineParallelBuild); }

bool offloads_get_rows(const LlamaCppGpu& g, const LlamaCppSettings& s, std::string_view dtype) {
  if (!g.device.starts_with("sycl") || before(s, kSyclGetRowsOffloadBuild) || !before(s, kSyclGetRowsOffloadEndBuild)) {
    return false;
  }
  // ggml_backend_sycl_device_supports_op's GET_ROWS at those builds: the
  // table's types f16, f32, q4_0, q4_1, q5_0, q5_1 and q8_0 (a q6_K table
  // stays on the host: Granite 3.0 8B Q4_K_M at b4066 splits its graph twice).
  return dtype == "f16" || dtype == "f32" || dtype == "q4_0" || dtype == "q4_1" || dtype == "q5_0" ||
         dtype == "q5_1" || dtype == "q8_0";
}

bool has_async_events(const LlamaCppGpu& g, const LlamaCppSettings& s) {
  if (g.device.starts_with("cuda") || g.device.starts_with("rocm")) return true;
  return g.device.starts_with("vulkan") && !before(s, kVulkanEventsBuild);
}

bool output_layer_first(const LlamaCppSettings& s) {
  return s.placement.output_layer_first && !before(s, kLlamaCppOutputFirstBuild);
}

}  // namespace llamacpp
}  // namespace memfit
