// Pricing a folder of GGUF models (memfit/gguf_repo.h). Each model runs
// through the request layer, prepare() then run_prepared(), exactly as
// `memfit inspect -m <file> --engine llamacpp` would, with a context that
// opens models from the folder's FileSystem and asks the real context for
// everything else (the host is asked once).
#include "memfit/gguf_repo.h"

#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "engines/llamacpp/speed_plan.h"
#include "engines/shared/speed_rank.h"
#include "hub/confined_file_system.h"
#include "hub/gguf_quant.h"
#include "hub/hub_model.h"
#include "memfit/checked_math.h"
#include "memfit/ggml_types.h"
#include "memfit/gguf_split.h"
#include "memfit/hf_cache.h"
#include "memfit/hub_name.h"
#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"
#include "memfit/weights.h"

namespace memfit {
namespace {

// Models by their path under the root; the rest from `base`.
class GgufRepoContext final : public RequestContext {
 public:
  GgufRepoContext(FileSystem& fs, std::string root, RequestContext& base)
      : fs_(fs), root_(std::move(root)), base_(base) {}

  Result<std::shared_ptr<const Model>> open_model(const std::string& name,
                                                  const OpenModelOptions& options) override {
    Result<Model> model = memfit::open_model(fs_, join_path(root_, name), options);
    if (!model) return model.error();
    return std::shared_ptr<const Model>(std::make_shared<Model>(std::move(*model)));
  }
  const MlxcelSettings& settings() const override { return base_.settings(); }
  const std::vector<std::string>& settings_warnings() const override {
    return base_.settings_warnings();
  }
  Platform platform() const override { return base_.platform(); }
  // Every model of one request asks for the same device and limit: the
  // host is read once, so every model is judged against one budget.
  HostMemoryStatus host_memory(const DeviceSelector& device,
                               std::optional<uint64_t> explicit_limit_bytes) override {
    if (!host_) host_ = base_.host_memory(device, explicit_limit_bytes);
    return *host_;
  }
  HostMemoryStatus host_ram(std::optional<uint64_t> explicit_limit_bytes) override {
    if (!ram_) ram_ = base_.host_ram(explicit_limit_bytes);
    return *ram_;
  }

 private:
  FileSystem& fs_;
  const std::string root_;
  RequestContext& base_;
  std::optional<HostMemoryStatus> host_;
  std::optional<HostMemoryStatus> ram_;  // --gpu's host side
};

// The ggml type holding most of the tensors' bytes ("" with no tensors),
// and its bits per weight (0 when unknown).
struct MainType {
  std::string name;
  double bits_per_weight = 0;
};

MainType main_type(const Model& model) {
  std::map<std::string, uint64_t> bytes_by_type;
  for (const SafetensorsTensor& tensor : model.tensors) {
    bytes_by_type[tensor.dtype] = (CheckedBytes(bytes_by_type[tensor.dtype]) + tensor.data_bytes).saturated();
  }
  MainType main;
  uint64_t most = 0;
  for (const auto& [name, bytes] : bytes_by_type) {
    if (bytes > most) {
      most = bytes;
      main.name = name;
    }
  }
  for (const GgmlTypeTraits& traits : ggml_type_table()) {
    if (traits.name == main.name && traits.block_elements > 0) {
      main.bits_per_weight = 8.0 * static_cast<double>(traits.block_bytes) /
                             static_cast<double>(traits.block_elements);
    }
  }
  return main;
}

// The bytes of the files of the model at `entry`: the file, or every split
// of its set (each named as read_gguf_model_files found them).
Result<uint64_t> model_size_bytes(FileSystem& fs, const std::string& root, const std::string& entry) {
  const size_t slash = entry.rfind('/');
  const std::string dir = slash == std::string::npos ? root : join_path(root, entry.substr(0, slash));
  const std::string name = slash == std::string::npos ? entry : entry.substr(slash + 1);
  std::vector<std::string> names{name};
  if (std::optional<GgufSplitName> split = parse_gguf_split_name(name)) {
    names.clear();
    for (uint64_t i = 1; i <= split->count; ++i) names.push_back(gguf_split_file_name(*split, i));
  }
  CheckedBytes total(uint64_t{0});
  for (const std::string& file : names) {
    Result<FileStat> st = fs.stat(join_path(dir, file));
    if (!st) return st.error();
    total = total + st->size_bytes;
  }
  if (total.overflowed()) return Error::overflow(fmt::format("{}: its size overflows", quote_untrusted(entry)));
  return *total.value();
}

void add_once(std::vector<Warning>& into, const std::vector<Warning>& from) {
  for (const Warning& warning : from) {
    if (warning.kind == WarningKind::kAvailableNow) continue;  // the recommended model's alone
    if (std::find(into.begin(), into.end(), warning) == into.end()) into.push_back(warning);
  }
}

// True when `a` is a better recommendation than `b`, both fitting.
bool more_precise(const GgufRepoModel& a, double a_bits, const GgufRepoModel& b, double b_bits) {
  if (a.size_bytes != b.size_bytes) return a.size_bytes > b.size_bytes;
  return a_bits > b_bits;  // on a tie the earlier path stays
}

// "Q4_K_M": the quant tag, else the path (escaped: a file name is
// untrusted).
std::string plan_name(const GgufRepoModel& m) { return escape_untrusted(m.quant.empty() ? m.path : m.quant); }

// The models that fit, fastest first, each with the step from the one
// before: "Q4_K_M -> Q8_0 (4.68 -> 8.11 GiB): decode 60 -> 38 tok/s".
void rank_by_speed(const std::vector<DecodeRank>& ranks, GgufRepoPricing& pricing) {
  std::vector<size_t> fitting;
  for (size_t i = 0; i < pricing.models.size(); ++i) {
    if (pricing.models[i].estimate.fits) fitting.push_back(i);
  }
  std::stable_sort(fitting.begin(), fitting.end(),
                   [&](size_t a, size_t b) { return decodes_faster(ranks[a], ranks[b]); });
  for (size_t k = 0; k < fitting.size(); ++k) {
    const GgufRepoModel& to = pricing.models[fitting[k]];
    std::string step;
    if (k == 0) {
      step = fmt::format("{} ({}): decode {}", plan_name(to), format_bytes(to.size_bytes),
                         decode_rank_text(ranks[fitting[k]]));
    } else {
      const GgufRepoModel& from = pricing.models[fitting[k - 1]];
      step = fmt::format("{} -> {} ({} -> {}): {}", plan_name(from), plan_name(to), format_bytes(from.size_bytes),
                         format_bytes(to.size_bytes), decode_step_text(ranks[fitting[k - 1]], ranks[fitting[k]]));
    }
    pricing.plans_by_speed.push_back({fitting[k], std::move(step)});
  }
  if (!fitting.empty() && ranks[fitting.front()].decode_tokens_per_second()) pricing.fastest = fitting.front();
}

}  // namespace

Result<GgufRepoPricing> price_gguf_repo(FileSystem& fs, const std::string& root,
                                        const EstimateRequest& request, RequestContext& context) {
  if (!request.engine.empty() && request.engine != "llamacpp") {
    return Error::usage("engine", "a folder of GGUF models is priced for llama.cpp: give "
                                  "llamacpp or leave the engine to the models");
  }
  Result<std::vector<std::string>> entries = list_repo_gguf_models(fs, root);
  if (!entries) return entries.error();
  if (entries->empty()) return Error(fmt::format("{}: no GGUF model in it", quote_untrusted(root)));

  GgufRepoContext repo_context(fs, root, context);
  GgufRepoPricing pricing;
  std::vector<double> bits;
  std::vector<DecodeRank> ranks;
  std::vector<std::vector<Warning>> available_now;
  for (const std::string& entry : *entries) {
    EstimateRequest r = request;
    r.model = entry;
    r.engine = "llamacpp";
    Result<PreparedRequest> prepared = prepare(r, repo_context, PrepareOptions{.keep_tensors = true});
    if (!prepared) return prepared.error();  // the loader's names the file
    if (pricing.models.empty()) pricing.prepared = *prepared;
    add_once(pricing.prepared.warnings, prepared->warnings);
    const MainType type = main_type(*prepared->model);
    Result<EstimateRun> run = run_prepared(r, std::move(*prepared));
    if (!run) return run.error().within(quote_untrusted(entry));

    GgufRepoModel model;
    model.path = entry;
    model.quant = gguf_model_quant_tag(entry);
    model.main_type = type.name;
    model.file_count = run->model->weights.file_count;
    Result<uint64_t> size = model_size_bytes(fs, root, entry);
    if (!size) return size.error();
    model.size_bytes = *size;
    model.estimate = std::move(*run->llamacpp);
    DecodeRank rank = rank_decode(llamacpp_speed_plan(*run, model.estimate));
    model.decode_tokens_per_second = rank.decode_tokens_per_second();
    model.decode_text = decode_rank_text(rank);
    model.decode_json = decode_rank_json(rank);
    model.speed = speed_json(rank.speed);
    ranks.push_back(std::move(rank));
    add_once(pricing.prepared.warnings, run->warnings);
    std::vector<Warning> now;
    for (const Warning& w : run->warnings) {
      if (w.kind == WarningKind::kAvailableNow) now.push_back(w);
    }
    available_now.push_back(std::move(now));
    bits.push_back(type.bits_per_weight);
    pricing.models.push_back(std::move(model));
  }

  for (size_t i = 0; i < pricing.models.size(); ++i) {
    if (!pricing.models[i].estimate.fits) continue;
    if (!pricing.recommended ||
        more_precise(pricing.models[i], bits[i], pricing.models[*pricing.recommended],
                     bits[*pricing.recommended])) {
      pricing.recommended = i;
    }
  }
  rank_by_speed(ranks, pricing);
  if (pricing.recommended) {
    const std::vector<Warning>& now = available_now[*pricing.recommended];
    pricing.prepared.warnings.insert(pricing.prepared.warnings.end(), now.begin(), now.end());
  }
  return pricing;
}

namespace {

// A folder holding GGUF models and no safetensors: `folder` itself, else nullopt.
Result<std::optional<GgufRepoFolder>> if_gguf_models(GgufRepoFolder folder,
                                                     std::vector<std::string>* models) {
  using Found = std::optional<GgufRepoFolder>;
  Result<std::vector<std::string>> names = folder.fs->list_dir(folder.root);
  if (!names) return names.error();
  for (const std::string& file : *names) {
    if (file == kSafetensorsIndexName || file.ends_with(".safetensors")) return Found();
  }
  Result<std::vector<std::string>> found = list_repo_gguf_models(*folder.fs, folder.root);
  if (!found) return found.error();
  if (found->empty()) return Found();
  if (models) *models = std::move(*found);
  return Found(std::move(folder));
}

// Step 3: the repo listed from the Hub (or, offline, from the header
// store), each GGUF model's header files prefetched, 8 at a time.
Result<std::optional<GgufRepoFolder>> hub_gguf_repo_folder(std::shared_ptr<FileSystem> base,
                                                           const std::string& name,
                                                           const HubModelRef& ref,
                                                           const ModelNameOptions& options) {
  Result<HubRepo> opened = open_hub_repo(*base, name, ref, options);
  if (!opened) return opened.error();
  auto repo = std::make_shared<HubRepo>(std::move(*opened));
  GgufRepoFolder folder;
  folder.base = base;
  folder.fs = std::shared_ptr<FileSystem>(repo, repo->fs.get());  // keeps the reader alive
  folder.root = ref.repo_id;
  std::vector<std::string> models;
  Result<std::optional<GgufRepoFolder>> found = if_gguf_models(std::move(folder), &models);
  if (!found || !*found) return found;

  std::vector<std::string> prefetch;
  for (const std::string& model : models) {
    for (std::string& path : hub_files_to_prefetch(*repo, model)) {
      if (std::find(prefetch.begin(), prefetch.end(), path) == prefetch.end()) {
        prefetch.push_back(std::move(path));
      }
    }
  }
  std::function<void(size_t, size_t)> progress;
  if (options.progress && prefetch.size() >= kHubProgressMinFiles) progress = options.progress;
  if (Status read = repo->fs->prefetch(prefetch, kMaxConcurrentHeaderReads, progress); !read) {
    return read.error();
  }
  return found;
}

}  // namespace

Result<std::optional<GgufRepoFolder>> find_gguf_repo_folder(std::shared_ptr<FileSystem> base,
                                                            const std::string& name,
                                                            const ModelNameOptions& options) {
  using Found = std::optional<GgufRepoFolder>;
  GgufRepoFolder folder;
  folder.base = base;
  folder.fs = base;
  folder.root = name;

  Result<FileStat> local = base->stat(name);
  if (!local) return local.error();
  if (local->kind == FileKind::kMissing) {
    if (!looks_like_hub_name(name) || !options.file.empty()) return Found();
    // A name open_model_by_name refuses, or one of a single file: it says what.
    Result<HubModelRef> ref = hub_ref_with_options(name, options);
    if (!ref || !ref->quant.empty()) return Found();
    // As open_model_by_name reads a cached repo: confined to its folder.
    const std::string repo_folder = hf_cache_repo_folder(ref->repo_id);
    Result<std::optional<std::string>> real =
        base->real_path(join_path(options.hf_cache.hub_cache_dir, repo_folder));
    if (!real) return real.error();
    std::optional<HfCacheLookup> lookup;
    if (*real) {
      folder.fs = std::make_shared<ConfinedFileSystem>(*base, **real, repo_folder);
      Result<HfCacheLookup> found = find_in_hf_cache(*folder.fs, options.hf_cache.hub_cache_dir, *ref);
      if (!found) return found.error();
      lookup = std::move(*found);
    }
    if (!lookup || !lookup->snapshot) {
      // Offline with no header store, open_model_by_name says what is missing.
      if (options.hf_cache.offline && !options.header_store) return Found();
      return hub_gguf_repo_folder(base, name, *ref, options);
    }
    folder.root = lookup->snapshot->snapshot_dir;
    Result<FileStat> st = folder.fs->stat(folder.root);
    if (!st) return st.error();
    local = *st;
  }
  if (local->kind != FileKind::kDirectory) return Found();
  return if_gguf_models(std::move(folder), nullptr);
}

}  // namespace memfit
