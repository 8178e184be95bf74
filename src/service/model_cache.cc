#include "service/model_cache.h"

#include <utility>

#include "service/service_context.h"

namespace memfit::service {

ApiResult<std::shared_ptr<const CachedModel>> ModelCache::get(const ResolvedModel& resolved,
                                                              const OpenModelOptions& options) {
  const std::pair<std::string, bool> key{resolved.real_path, options.keep_tensors};
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = models_.find(key);
    if (it != models_.end()) return it->second;
  }
  // Opened without the lock: a slow disk must not stall requests for
  // models already cached.
  opens_.fetch_add(1);
  Result<Model> model = Error("unopened");
  if (resolved.hub) {
    std::unique_ptr<FileSystem> fs = make_real_file_system();
    model = open_model_by_name(*fs, resolved.real_path, hub_names_, options);
  } else {
    std::unique_ptr<FileSystem> fs = make_confined_file_system(roots_, make_real_file_system());
    model = open_model(*fs, resolved.open_path, options);
  }
  if (!model.ok()) {
    // A name the caller must make precise (a folder of several GGUF
    // models) is the request's fault, as every front end says.
    if (model.error().kind() == ErrorKind::kUsage) return api_error_of(model.error());
    return ApiError{422, "model_unreadable", model.error().message(), Json::object()};
  }
  auto entry = std::make_shared<CachedModel>();
  entry->model = std::move(*model);
  entry->label = resolved.label;
  entry->geometry_fp16 = attention_geometry(entry->model.spec, KvElement::kFp16);
  entry->geometry_int8 = attention_geometry(entry->model.spec, KvElement::kInt8);

  std::lock_guard<std::mutex> lock(mu_);
  // emplace keeps the entry another thread may have inserted meanwhile.
  return models_.emplace(key, std::move(entry)).first->second;
}

size_t ModelCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return models_.size();
}

}  // namespace memfit::service
