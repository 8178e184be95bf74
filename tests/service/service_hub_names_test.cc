// Hugging Face names in requests: refused with 403 hub_not_allowed unless
// the service was started with --allow-hub (ServiceOptions::allow_hub);
// then read from the Hugging Face cache, never as a local path. A name the
// roots hold is the roots' model either way.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "service/service_fixture.h"
#include "memfit/header_cache.h"
#include "support/fake_hub.h"
#include "support/gguf_writer.h"
#include "support/hf_cache_writer.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using nlohmann::json;
using testing::body_json;
using testing::error_code;
using testing::error_message;
using testing::fake_options;
using testing::make_service;

// A two-layer Qwen3-shaped GGUF with one Q4_K [256, 64] tensor: 9,216 B.
GgufWriter small_qwen3_q4() {
  GgufWriter w = tiny_qwen3_gguf();
  w.add_tensor("blk.0.ffn_up.weight", GgmlType::kQ4_K, {256, 64});
  return w;
}

class ServiceHubNames : public ::testing::Test {
 protected:
  void SetUp() override {
    HfCacheWriter cache(hub_);
    const std::string c = fake_commit('c');
    cache.add_gguf("org/tiny-GGUF", c, "tiny-Q4_K_M.gguf", small_qwen3_q4());
    cache.set_ref("org/tiny-GGUF", "main", c);
    // A root that holds a folder named like a Hub repo.
    small_qwen3_q4().write(root_.make_dir("acme/local") + "/local-Q4_K_M.gguf");
  }

  std::unique_ptr<Service> service(bool allow_hub) {
    ServiceOptions options = fake_options({root_.path()}, uint64_t{16} << 30);
    options.allow_hub = allow_hub;
    options.hf_cache.hub_cache_dir = hub_;
    options.hub.endpoint = "http://127.0.0.1:9";  // nothing listens on discard: never the real Hub
    return make_service(std::move(options));
  }

  TempDir dir_;
  std::string hub_ = dir_.make_dir("hub");
  TempDir root_;
};

HttpResponse estimate_service_hub_names(Service& service, const std::string& model) {
  return service.handle("POST", "/v1/estimate", json{{"model", model}}.dump());
}

TEST_F(ServiceHubNames, RefusedUnlessAllowed) {
  auto s = service(false);
  for (const std::string name : {"org/tiny-GGUF", "org/tiny-GGUF:Q4_K_M", "org/absent@v1"}) {
    HttpResponse r = estimate_service_hub_names(*s, name);
    EXPECT_EQ(r.status, 403) << name;
    EXPECT_EQ(error_code(r), "hub_not_allowed") << name;
    EXPECT_EQ(error_message(r),
              "model '" + name + "': not under the model roots, and this service does not read "
              "Hugging Face names: start it with --allow-hub to allow them");
  }
  HttpResponse fit = s->handle("POST", "/v1/fit", json{{"model", "org/tiny-GGUF"}}.dump());
  EXPECT_EQ(error_code(fit), "hub_not_allowed");
  // Not a Hub name, or a path under a folder a root holds: the roots' own
  // answer.
  EXPECT_EQ(error_code(estimate_service_hub_names(*s, "absent")), "model_not_found");
  EXPECT_EQ(error_code(estimate_service_hub_names(*s, "acme/absent")), "model_not_found");
}

// GET /v1/models says whether Hub names may be given: the calculator page
// shows its name field only then.
TEST_F(ServiceHubNames, TheModelListSaysWhetherHubNamesAreAllowed) {
  EXPECT_EQ(body_json(service(false)->handle("GET", "/v1/models", ""))["allow_hub"], false);
  EXPECT_EQ(body_json(service(true)->handle("GET", "/v1/models", ""))["allow_hub"], true);
}

TEST_F(ServiceHubNames, AllowedNamesAreReadFromTheCache) {
  auto s = service(true);
  HttpResponse r = estimate_service_hub_names(*s, "org/tiny-GGUF:Q4_K_M");
  ASSERT_EQ(r.status, 200) << r.body;
  json j = body_json(r);
  EXPECT_EQ(j["model"], "org/tiny-GGUF:Q4_K_M");
  EXPECT_EQ(j["weights_bytes"], 9216);  // Q4_K [256, 64]: 144 B x 64 rows
  // A repo of one GGUF model needs no tag.
  EXPECT_EQ(estimate_service_hub_names(*s, "org/tiny-GGUF").status, 200);
  HttpResponse fit = s->handle("POST", "/v1/fit", json{{"model", "org/tiny-GGUF"}}.dump());
  EXPECT_EQ(fit.status, 200) << fit.body;
  // A name the cache lacks is asked of the Hub: here one that cannot be
  // reached, with the reader's message.
  HttpResponse absent = estimate_service_hub_names(*s, "org/absent");
  EXPECT_EQ(absent.status, 422);
  EXPECT_EQ(error_code(absent), "model_unreadable");
  EXPECT_NE(error_message(absent).find("'org/absent': cannot reach http://127.0.0.1:9"),
            std::string::npos)
      << error_message(absent);
}

TEST_F(ServiceHubNames, ARootsModelWinsOverTheHub) {
  for (bool allow : {false, true}) {
    auto s = service(allow);
    HttpResponse r = estimate_service_hub_names(*s, "acme/local");
    EXPECT_EQ(r.status, 200) << r.body;
  }
}

// A name neither the roots nor the HF cache hold is read from the Hub (the
// loopback fake) with the operator's endpoint, and the opened model is kept:
// a second request asks the Hub nothing.
TEST_F(ServiceHubNames, AllowedNamesTheCacheLacksAreReadFromTheHub) {
  FakeHub hub;
  FakeHubRepo repo;
  repo.commit = fake_commit('d');
  const std::string gguf = small_qwen3_q4().bytes();
  repo.files["remote-Q4_K_M.gguf"] = FakeHubFile{gguf, gguf.size()};
  hub.add_repo("org/remote-GGUF", repo);
  TempDir cache;
  ServiceOptions options = fake_options({root_.path()}, uint64_t{16} << 30);
  options.allow_hub = true;
  options.hf_cache.hub_cache_dir = hub_;
  options.hub.endpoint = hub.endpoint();
  options.header_store = make_header_cache(cache.path());
  std::unique_ptr<Service> s = make_service(std::move(options));

  HttpResponse r = estimate_service_hub_names(*s, "org/remote-GGUF");
  ASSERT_EQ(r.status, 200) << r.body;
  // One Q4_K [256, 64] tensor: 256 x 64 / 256 blocks x 144 B = 9,216 B.
  EXPECT_EQ(json::parse(r.body)["weights_bytes"], 9216u);
  const size_t first = hub.requests().size();
  // The listing, the file's first 9,632 bytes (its size: under the first
  // MiB) through the storage host; then the llama.cpp profile reopens the
  // model with its tensor list (CPU repacking reads tensor names), the
  // header from the header cache: only the revision is asked again.
  EXPECT_EQ(first, 4u);
  for (const FakeHubRequest& request : hub.requests()) {
    EXPECT_NE(request.path.find("org/remote-GGUF"), std::string::npos) << request.path;
  }
  // The service keeps the opened model: the same name asks nothing more.
  ASSERT_EQ(estimate_service_hub_names(*s, "org/remote-GGUF").status, 200);
  EXPECT_EQ(hub.requests().size(), first);
}

}  // namespace
}  // namespace memfit
