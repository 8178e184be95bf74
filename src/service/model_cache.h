// ModelCache: each model the service is asked about is opened once (its
// config and weight headers parsed) and kept for the life of the service,
// keyed by its real path (a Hub name: the name as given, never absolute),
// so a repeated request costs the estimate only. A Hub name's revision is
// resolved once too: a branch that moves is seen after a restart.
//
// Entries are never evicted or refreshed: the roots hold a finite set of
// models, and a model changed on disk is seen after a restart. A model that
// fails to open is not cached: the next request tries again.
#ifndef MEMFIT_SERVICE_MODEL_CACHE_H_
#define MEMFIT_SERVICE_MODEL_CACHE_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "memfit/model.h"
#include "memfit/model_by_name.h"
#include "memfit/prefill_guard.h"
#include "service/api_error.h"
#include "service/model_roots.h"

namespace memfit::service {

struct CachedModel {
  Model model;
  std::string label;  // ResolvedModel::label
  AttentionGeometry geometry_fp16;
  AttentionGeometry geometry_int8;

  const AttentionGeometry& geometry(KvElement element) const {
    return element == KvElement::kInt8 ? geometry_int8 : geometry_fp16;
  }
};

class ModelCache {
 public:
  // Models are read through a file system confined to `roots`, which must
  // outlive the cache.
  // Hub names (ResolvedModel::hub) are opened with `hub_names`.
  ModelCache(const ModelRoots& roots, ModelNameOptions hub_names)
      : roots_(roots), hub_names_(std::move(hub_names)) {}

  // The cached model, opening it on first use; 422 model_unreadable with
  // the loader's message when it cannot be opened (400 bad_request, kind
  // usage, when the loader says the name is ambiguous). A model opened with its
  // tensor list (options.keep_tensors) is a second entry. Thread-safe: two
  // threads asking for the same new model may both open it; one entry is
  // kept.
  ApiResult<std::shared_ptr<const CachedModel>> get(const ResolvedModel& resolved,
                                                    const OpenModelOptions& options = {});

  size_t size() const;
  uint64_t opens() const { return opens_.load(); }  // open_model() calls so far

 private:
  const ModelRoots& roots_;
  const ModelNameOptions hub_names_;
  mutable std::mutex mu_;
  // Keyed by real path, and whether the entry keeps its tensor list.
  std::map<std::pair<std::string, bool>, std::shared_ptr<const CachedModel>>
      models_;  // guarded by mu_
  std::atomic<uint64_t> opens_{0};
};

}  // namespace memfit::service

#endif  // MEMFIT_SERVICE_MODEL_CACHE_H_
