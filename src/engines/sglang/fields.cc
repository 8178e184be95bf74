// SGLang's request fields, declared once, with launch_server's flags and
// defaults (docs/engine-sglang.md, "Fields"). Each row keeps the text its
// parser accepted in EstimateRequest::engine_fields under the row's name;
// read_settings() parses it again into Settings.
#include "engines/sglang/fields.h"

#include <algorithm>
#include <cstddef>
#include <string>

#include <fmt/format.h>

#include "engines/shared/release_number.h"
#include "request/field_text.h"

namespace memfit::sglang {
namespace {

using R = EstimateRequest;

// A field's JSON name as a template argument ("page_size").
template <size_t N>
struct FieldName {
  constexpr FieldName(const char (&name)[N]) { std::copy_n(name, N, text); }
  constexpr std::string_view view() const { return {text, N - 1}; }
  char text[N] = {};
};

// A row named `Name` whose text `Parse` (Result<T>(std::string_view))
// accepts is kept as given; given when engine_fields holds it.
template <FieldName Name, auto Parse>
constexpr RequestField text_field(RequestField row) {
  row.name = Name.view();
  row.engine = "sglang";
  row.apply = [](R& r, std::string_view text) -> Status {
    auto value = Parse(text);
    if (!value) return value.error();
    r.engine_fields.insert_or_assign(std::string(Name.view()), std::string(text));
    return Status::Ok();
  };
  row.given = [](const R& r) { return r.engine_fields.contains(Name.view()); };
  return row;
}

// --mem-fraction-static: a fraction in (0, 1].
Result<double> parse_fraction(std::string_view text) { return request::parse_ratio(text, 0.0, 1.0); }

// A count within [1, kMaxCount]; the table's rows check their own range
// first, this catches a C++ caller's text.
Result<uint64_t> parse_count(std::string_view text) {
  Result<uint64_t> n = request::parse_decimal(text);
  if (!n) return n.error();
  if (*n == 0 || *n > kMaxCount) {
    return Error::usage(fmt::format("expected an integer from 1 to {}, got {}", kMaxCount, *n));
  }
  return n;
}

// --kv-cache-dtype: bytes per element, 0 for auto (the model's 16-bit).
Result<uint64_t> parse_kv_dtype(std::string_view text) {
  if (text == "auto") return uint64_t{0};
  if (text == "bf16" || text == "bfloat16") return uint64_t{2};
  if (text == "fp8_e4m3" || text == "fp8_e5m2") return uint64_t{1};
  return Error::usage(fmt::format("'{}': expected auto, fp8_e4m3, fp8_e5m2 or bf16", text));
}

// --attention-backend: a backend's name, lower-case letters, digits and
// underscores ("aiter", "triton", "fa3"); only "aiter" changes the memory.
Result<std::string> parse_attention_backend(std::string_view text) {
  const bool named = !text.empty() && text.size() <= 32 && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!named) return Error::usage("expected a backend's name, such as aiter, triton or fa3");
  return std::string(text);
}

// --sglang-version: X.Y.Z of the 0.5 line from 0.5.3 on (the computed
// --mem-fraction-static of sgl-project/sglang PR #10975); older or
// newer lines are refused with the range.
Result<std::string> parse_release(std::string_view text) {
  const std::optional<ReleaseNumber> release = parse_release_number(text);
  const bool in_line = release && release->has_patch && release->major == 0 && release->minor == 5 &&
                       release->patch >= 3;
  if (!in_line) {
    return Error::usage(fmt::format("'{}': expected X.Y.Z, SGLang 0.5.3 or a later 0.5 release "
                                    "(rules read at {})",
                                    text, kPinnedRelease));
  }
  return std::string(text.starts_with('v') ? text.substr(1) : text);
}

Result<bool> parse_flag(std::string_view text) { return request::parse_switch(text); }

// --moe-a2a-backend: a backend's name, as SGLang's choices spell them
// (none, deepep, mooncake, ...).
Result<std::string> parse_a2a_backend(std::string_view text) {
  const bool named = !text.empty() && text.size() <= 32 && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!named) return Error::usage("expected a backend's name, such as none or deepep");
  return std::string(text);
}

// --disaggregation-mode: SGLang's choices, null (one server does both),
// prefill or decode.
Result<std::string> parse_disaggregation_mode(std::string_view text) {
  if (text == "null" || text == "prefill" || text == "decode") return std::string(text);
  return Error::usage(fmt::format("'{}': expected null, prefill or decode", text));
}

// --mamba-full-memory-ratio: the state pool's memory over the KV pool's,
// a positive number (SGLang takes any float; past 1000 is a typo).
Result<double> parse_state_ratio(std::string_view text) { return request::parse_ratio(text, 0.0, 1000.0); }

// --mamba-ssm-dtype: the temporal state's bytes per element.
Result<uint64_t> parse_ssm_dtype(std::string_view text) {
  if (text == "float32") return uint64_t{4};
  if (text == "bfloat16") return uint64_t{2};
  return Error::usage(fmt::format("'{}': expected float32 or bfloat16", text));
}

constexpr RequestField kFields[] = {
    text_field<"mem_fraction_static", parse_fraction>(
        {.flags = "--mem-fraction-static",
         .help = "fraction of the GPU's memory for weights and the KV pool (default: computed from "
                 "the GPU's memory, chunked prefill, CUDA graphs and TP)",
         .type = FieldType::kRatio,
         .json_expects = "a number in (0, 1]",
         .example = "0.8",
         .doc = "SGLang's `--mem-fraction-static`; default computed as (GPU MiB - reserved) / GPU "
                "MiB, not the 0.9 SGLang's docs once said (\"The computed --mem-fraction-static\")",
         .gpu_setting = true}),
    text_field<"context_length", parse_count>(
        {.flags = "--context-length",
         .help = "context per request (default: the config's)",
         .unit = "tokens",
         .type = FieldType::kCount,
         .min = 1,
         .max = kMaxCount,
         .example = "32768",
         .doc = "context per request (or `--max-tokens`); default: the config's "
                "`max_position_embeddings`; it sizes the request-to-token table"}),
    text_field<"max_running_requests", parse_count>(
        {.flags = "--max-running-requests",
         .help = "requests run at once (default: the pool's tokens / context x 512, within 2048 "
                 "and 4096)",
         .type = FieldType::kCount,
         .min = 1,
         .max = kMaxCount,
         .example = "64",
         .doc = "requests run at once (or `--batch` other than 1); the request-to-token table's "
                "rows; default min(max(tokens / context x 512, 2048), 4096)"}),
    text_field<"max_total_tokens", parse_count>(
        {.flags = "--max-total-tokens",
         .help = "SGLang's --max-total-tokens: caps the KV pool's tokens (default: what memory allows)",
         .unit = "tokens",
         .type = FieldType::kCount,
         .min = 1,
         .max = kMaxCount,
         .example = "20480",
         .doc = "SGLang's `--max-total-tokens`: the pool holds min(what the fraction leaves, this) "
                "tokens, to whole pages; the default request count is still taken from what memory "
                "allows (model_runner.py, init_memory_pool)"}),
    text_field<"page_size", parse_count>(
        {.flags = "--page-size",
         .help = "tokens per KV page (default 1)",
         .unit = "tokens",
         .type = FieldType::kCount,
         .default_text = "1",
         .min = 1,
         .max = kMaxCount,
         .example = "64",
         .doc = "tokens per KV page; the pool's tokens are rounded down to whole pages"}),
    text_field<"sglang_kv_cache_dtype", parse_kv_dtype>(
        {.flags = "--sglang-kv-cache-dtype",
         .help = "SGLang's --kv-cache-dtype: auto (default), fp8_e4m3, fp8_e5m2 or bf16",
         .type = FieldType::kChoice,
         .choices = "auto|fp8_e4m3|fp8_e5m2|bf16",
         .default_text = "auto",
         .doc = "SGLang's `--kv-cache-dtype` (memfit's `--kv-cache-dtype` is vLLM's): `auto` (the "
                "model's 16-bit dtype), `fp8_e4m3` or `fp8_e5m2` (one byte), `bf16`"}),
    text_field<"chunked_prefill_size", parse_count>(
        {.flags = "--chunked-prefill-size",
         .help = "tokens per prefill chunk (default by the GPU's memory: 2048, 4096, 8192 or 16384)",
         .unit = "tokens",
         .type = FieldType::kCount,
         .min = 1,
         .max = kMaxCount,
         .example = "4096",
         .doc = "tokens per prefill chunk; default by the GPU's memory (under 20 GiB 2048, under 35 "
                "GiB 4096 (2048 before 0.5.20), under 60 GiB 4096, under 160 GiB 8192, else 16384); "
                "it enters the computed fraction"}),
    text_field<"cuda_graph_max_bs", parse_count>(
        {.flags = "--cuda-graph-max-bs",
         .help = "largest batch captured in a CUDA graph (default by the GPU's memory and TP)",
         .type = FieldType::kCount,
         .min = 1,
         .max = kMaxCount,
         .example = "128",
         .doc = "largest batch captured in a CUDA graph; default by the GPU's memory and TP (8; 48 "
                "or 160 (24 or 80 before 0.5.20); 32 or 160; 256 or 512; 512); it enters the "
                "computed fraction"}),
    text_field<"disable_cuda_graph", parse_flag>(
        {.flags = "--disable-cuda-graph",
         .help = "no CUDA graphs",
         .type = FieldType::kFlag,
         .default_text = "false",
         .doc = "SGLang's `--disable-cuda-graph`: no graphs captured; before 0.5.16 the computed "
                "fraction still reserves 2 MiB a graph batch for them, as SGLang's did, from 0.5.16 "
                "not (sgl-project/sglang#29615)"}),
    text_field<"disable_piecewise_cuda_graph", parse_flag>(
        {.flags = "--disable-piecewise-cuda-graph",
         .help = "no piecewise (prefill) CUDA graphs: no reserve for them (0.5.10 and later)",
         .type = FieldType::kFlag,
         .default_text = "false",
         .doc = "SGLang's `--disable-piecewise-cuda-graph`: from 0.5.10 the piecewise (prefill) CUDA "
                "graphs are on by default and the computed fraction reserves for them "
                "(\"Releases\"); this turns them and their reserve off"}),
    text_field<"dp_size", parse_count>(
        {.flags = "--dp-size,--dp",
         .help = "data-parallel replicas (default 1); GPUs = TP x DP",
         .type = FieldType::kCount,
         .default_text = "1",
         .min = 1,
         .max = kMaxCount,
         .example = "2",
         .doc = "data-parallel replicas, each of `--tp` GPUs; with `--enable-dp-attention` the "
                "attention's KV heads split by TP / DP"}),
    text_field<"enable_dp_attention", parse_flag>(
        {.flags = "--enable-dp-attention",
         .help = "data-parallel attention inside the TP group (needs --dp > 1)",
         .type = FieldType::kFlag,
         .default_text = "false",
         .doc = "SGLang's `--enable-dp-attention`: attention split by TP / DP, more CUDA-graph "
                "reserve in the computed fraction; needs `--dp` > 1 dividing `--tp`"}),
    text_field<"enable_dp_lm_head", parse_flag>(
        {.flags = "--enable-dp-lm-head",
         .help = "with --enable-dp-attention: the LM head split by the attention TP group, not TP",
         .type = FieldType::kFlag,
         .default_text = "false",
         .doc = "SGLang's `--enable-dp-lm-head`: under `--enable-dp-attention` the LM head is split "
                "by the attention TP group (TP / DP) instead of TP, more of it a rank (an untied "
                "head only); refused without `--enable-dp-attention`, as SGLang asserts"}),
    text_field<"ep_size", parse_count>(
        {.flags = "--ep-size,--ep",
         .help = "expert-parallel ranks inside the TP group (default 1): each holds num_experts / "
                 "EP experts, TP / EP of each one's width",
         .type = FieldType::kCount,
         .default_text = "1",
         .min = 1,
         .max = kMaxCount,
         .example = "8",
         .doc = "SGLang's `--ep-size`: a MoE layer's experts split over EP ranks of the TP group "
                "(num_experts / EP a rank, each TP / EP of its width), which shapes the allocator's "
                "rounding of the experts (\"Rules\", allocator rounding); must divide `--tp`; "
                "`--moe-a2a-backend deepep` or `mooncake` sets it to `--tp`"}),
    text_field<"moe_a2a_backend", parse_a2a_backend>(
        {.flags = "--moe-a2a-backend",
         .help = "the MoE all-to-all backend (default none); deepep and mooncake set --ep-size to --tp",
         .type = FieldType::kText,
         .default_text = "none",
         .example = "deepep",
         .doc = "SGLang's `--moe-a2a-backend`: `deepep` and `mooncake` set `--ep-size` to `--tp` "
                "(server_args.py, _handle_a2a_moe); under `deepep` an MLA model's shared experts are "
                "whole on every rank and not fused into the routed ones (\"Rules\", allocator "
                "rounding)"}),
    text_field<"disaggregation_mode", parse_disaggregation_mode>(
        {.flags = "--disaggregation-mode",
         .help = "PD disaggregation: null (default), prefill or decode; no piecewise CUDA graphs, "
                 "and from 0.5.16 the computed fraction follows the role",
         .type = FieldType::kChoice,
         .choices = "null|prefill|decode",
         .default_text = "null",
         .doc = "SGLang's `--disaggregation-mode`: the piecewise CUDA graphs off (from 0.5.10); a "
                "prefill server captures no decode CUDA graphs, a decode server runs without the "
                "radix cache; from 0.5.16 (#29615) the computed fraction drops a prefill server's "
                "decode-graph and DP-attention terms and sizes a decode server's activations by "
                "its running requests (\"PD disaggregation\")"}),
    text_field<"enable_hierarchical_cache", parse_flag>(
        {.flags = "--enable-hierarchical-cache",
         .help = "the hierarchical (host) KV cache: no piecewise CUDA graphs (0.5.10 and later)",
         .type = FieldType::kFlag,
         .default_text = "false",
         .doc = "SGLang's `--enable-hierarchical-cache`: its host pool is not GPU memory; from "
                "0.5.10 it turns the piecewise CUDA graphs and their reserve off "
                "(`_handle_piecewise_cuda_graph`, \"PD disaggregation\")"}),
    text_field<"max_mamba_cache_size", parse_count>(
        {.flags = "--max-mamba-cache-size",
         .help = "hybrid models: state slots of the Mamba / linear-attention pool (default: "
                 "--mamba-full-memory-ratio's share)",
         .type = FieldType::kCount,
         .min = 1,
         .max = kMaxCount,
         .example = "64",
         .doc = "hybrid models: the Mamba / linear-attention state pool's slots; default the share "
                "`--mamba-full-memory-ratio` gives it (radix cache off: `--max-running-requests`, "
                "else 512); requests are capped at slots / 3 (radix cache off: / 1)"}),
    text_field<"mamba_full_memory_ratio", parse_state_ratio>(
        {.flags = "--mamba-full-memory-ratio",
         .help = "hybrid models: the state pool's memory over the KV pool's (default 0.9)",
         .type = FieldType::kRatio,
         .default_text = "0.9",
         .json_expects = "a number in (0, 1000]",
         .example = "0.5",
         .doc = "hybrid models: the state pool's memory over the full-attention KV pool's; the rest "
                "the fraction leaves splits r / (1 + r) to the states"}),
    text_field<"mamba_ssm_dtype", parse_ssm_dtype>(
        {.flags = "--mamba-ssm-dtype",
         .help = "hybrid models: the temporal (SSM) state's dtype, float32 (default) or bfloat16",
         .type = FieldType::kChoice,
         .choices = "float32|bfloat16",
         .default_text = "float32",
         .doc = "hybrid models: the temporal (SSM) state's dtype, 4 or 2 bytes an element; the conv "
                "state is always 16-bit"}),
    text_field<"disable_radix_cache", parse_flag>(
        {.flags = "--disable-radix-cache",
         .help = "hybrid models: no prefix cache, one state slot per request",
         .type = FieldType::kFlag,
         .default_text = "false",
         .doc = "SGLang's `--disable-radix-cache`; it changes the memory of hybrid models only: "
                "their state slots are `--max-running-requests` (else 512) and each request takes one"}),
    text_field<"attention_backend", parse_attention_backend>(
        {.flags = "--attention-backend",
         .help = "SGLang's attention backend (default: aiter on an AMD GPU, else the GPU's own); "
                 "aiter keeps 0.85 of --mem-fraction-static past an 8,192-token context",
         .type = FieldType::kText,
         .example = "triton",
         .doc = "SGLang's `--attention-backend`; on an AMD GPU the default is `aiter` (its ROCm "
                "images set SGLANG_USE_AITER=1; every HIP device since sgl-project/sglang#20392), "
                "under which SGLang multiplies `--mem-fraction-static` by 0.85 when the context "
                "exceeds 8,192 tokens (\"ROCm\")"}),
    text_field<"sglang_version", parse_release>(
        {.flags = "--sglang-version",
         .help = "the SGLang release that runs, 0.5.3 or later 0.5 (default: the pinned 0.5.20; "
                 "0.5.21 on priced by its rules, not read)",
         .type = FieldType::kText,
         .default_text = kPinnedRelease,
         .example = "0.5.4",
         .doc = "the release that runs, `X.Y.Z`; default the pinned 0.5.20; the rules were read "
                "from 0.5.3 to 0.5.20 (from 0.5.10 the piecewise CUDA graphs are on by default and "
                "the computed fraction reserves for them; from 0.5.16 `--disable-cuda-graph` drops "
                "the graphs' reserve; from 0.5.20 a 20 to 35 GiB GPU takes larger defaults: "
                "\"Releases\"), and a later 0.5 release is priced by 0.5.20's though not read; any "
                "other is refused"}),
};

template <typename T, typename Parse>
Status read_field(const R& r, std::string_view name, Parse parse, T& out) {
  const auto it = r.engine_fields.find(name);
  if (it == r.engine_fields.end()) return Status::Ok();
  auto value = parse(it->second);
  if (!value) return Error::usage(name, value.error().message());
  out = std::move(*value);
  return Status::Ok();
}

}  // namespace

std::span<const RequestField> fields() { return kFields; }

Result<Settings> read_settings(const EstimateRequest& r) {
  Settings s;
  s.tensor_parallel = r.parallel.tensor_parallel;
  std::optional<uint64_t> context, requests, total_tokens, kv, page, dp, chunked, graphs;
  std::optional<double> fraction;
  std::optional<uint64_t> mamba_slots, ssm_bytes;
  std::optional<double> mamba_ratio;
  std::optional<bool> no_graphs, no_piecewise, dp_attention, dp_lm_head, no_radix, hicache;
  std::optional<std::string> release, attention, a2a, disaggregation;
  std::optional<uint64_t> ep;
  Status read[] = {
      read_field(r, "attention_backend", parse_attention_backend, attention),
      read_field(r, "mem_fraction_static", parse_fraction, fraction),
      read_field(r, "context_length", parse_count, context),
      read_field(r, "max_running_requests", parse_count, requests),
      read_field(r, "max_total_tokens", parse_count, total_tokens),
      read_field(r, "page_size", parse_count, page),
      read_field(r, "sglang_kv_cache_dtype", parse_kv_dtype, kv),
      read_field(r, "chunked_prefill_size", parse_count, chunked),
      read_field(r, "cuda_graph_max_bs", parse_count, graphs),
      read_field(r, "disable_cuda_graph", parse_flag, no_graphs),
      read_field(r, "disable_piecewise_cuda_graph", parse_flag, no_piecewise),
      read_field(r, "dp_size", parse_count, dp),
      read_field(r, "enable_dp_attention", parse_flag, dp_attention),
      read_field(r, "enable_dp_lm_head", parse_flag, dp_lm_head),
      read_field(r, "ep_size", parse_count, ep),
      read_field(r, "moe_a2a_backend", parse_a2a_backend, a2a),
      read_field(r, "sglang_version", parse_release, release),
      read_field(r, "max_mamba_cache_size", parse_count, mamba_slots),
      read_field(r, "mamba_full_memory_ratio", parse_state_ratio, mamba_ratio),
      read_field(r, "mamba_ssm_dtype", parse_ssm_dtype, ssm_bytes),
      read_field(r, "disable_radix_cache", parse_flag, no_radix),
      read_field(r, "disaggregation_mode", parse_disaggregation_mode, disaggregation),
      read_field(r, "enable_hierarchical_cache", parse_flag, hicache),
  };
  for (Status& status : read) {
    if (!status) return status.error();
  }
  s.mem_fraction_static = fraction;
  s.context_length = context.value_or(r.max_tokens.value_or(0));
  s.max_running_requests = requests ? requests : (r.batch != 1 ? std::optional<uint64_t>(r.batch) : std::nullopt);
  s.max_total_tokens = total_tokens;
  s.page_size = page.value_or(1);
  s.kv_bytes_per_element = kv.value_or(0);
  if (kv) s.kv_cache_dtype = r.engine_fields.find("sglang_kv_cache_dtype")->second;
  s.chunked_prefill_size = chunked;
  s.cuda_graph_max_bs = graphs;
  s.disable_cuda_graph = no_graphs.value_or(false);
  s.disable_piecewise_cuda_graph = no_piecewise.value_or(false);
  s.dp_size = dp.value_or(1);
  s.dp_attention = dp_attention.value_or(false);
  s.dp_lm_head = dp_lm_head.value_or(false);
  s.ep_size = ep.value_or(1);
  if (a2a) s.moe_a2a_backend = *a2a;
  // server_args.py, _handle_a2a_moe: these backends take EP = TP.
  if (s.moe_a2a_backend == "deepep" || s.moe_a2a_backend == "mooncake") s.ep_size = s.tensor_parallel;
  if (release) s.release = *release;
  if (attention) s.attention_backend = *attention;
  s.state.max_mamba_cache_size = mamba_slots;
  s.state.mamba_full_memory_ratio = mamba_ratio.value_or(kMambaFullMemoryRatio);
  s.state.ssm_bytes = ssm_bytes.value_or(4);
  if (ssm_bytes) s.state.mamba_ssm_dtype = r.engine_fields.find("mamba_ssm_dtype")->second;
  s.state.disable_radix_cache = no_radix.value_or(false);
  if (disaggregation) s.disaggregation_mode = *disaggregation;
  s.hierarchical_cache = hicache.value_or(false);
  return s;
}

}  // namespace memfit::sglang
