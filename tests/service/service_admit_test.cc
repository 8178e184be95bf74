// POST /v1/admit through Service::handle. Geometry: Qwen3-8B (config only
// under tests/data/corpus/qwen3): 32 q heads, 8 kv heads, head_dim 128,
// 147,456 B of fp16 KV per token. Prompt 10,000, nothing cached, chunk
// 2,048: fused SDPA output 32 x 2048 x 128 x 4 = 33,554,432 + KV 10,000 x
// 147,456 = 1,474,560,000; peak 1,508,114,432 (tests/guard/prefill_guard_test.cc).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "memfit/prefill_guard.h"
#include "service/service_fixture.h"
#include "support/fake_sysroot.h"

namespace memfit {
namespace {

using nlohmann::json;
using testing::body_json;
using testing::error_code;
using testing::error_message;
using testing::kQwen3Root;
using testing::make_service;

constexpr uint64_t kPeak = 1508114432;
constexpr uint64_t kUsage = 10ull << 30;  // 10,737,418,240

HttpResponse admit(Service& service, json body) {
  return service.handle("POST", "/v1/admit", body.dump());
}

json request(std::optional<uint64_t> limit) {
  json r = {{"model", "Qwen3-8B"},           {"prompt_tokens", 10000}, {"cached_tokens", 0},
            {"current_usage_bytes", kUsage}, {"prefill_chunk", 2048},  {"request_id", "req-1"}};
  if (limit) r["hard_limit_bytes"] = *limit;
  return r;
}

TEST(ServiceAdmit, AdmitsUnderTheLimit) {
  auto service = make_service({kQwen3Root});
  HttpResponse r = admit(*service, request(12ull << 30));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body_json(r), (json{{"admitted", true},
                                {"peak_bytes", kPeak},
                                {"request_id", "req-1"},
                                {"limit_bytes", 12ull << 30}}));
}

TEST(ServiceAdmit, AdmitsExactlyAtTheLimit) {
  auto service = make_service({kQwen3Root});
  EXPECT_EQ(admit(*service, request(kUsage + kPeak)).status, 200);
}

TEST(ServiceAdmit, RefusalIsA400WithBothFigures) {
  auto service = make_service({kQwen3Root});
  // 10,737,418,240 + 1,508,114,432 = 12,245,532,672 > 11 GiB = 11,811,160,064.
  HttpResponse r = admit(*service, request(11ull << 30));
  ASSERT_EQ(r.status, 400) << r.body;
  json e = body_json(r)["error"];
  EXPECT_EQ(e["code"], kPrefillMemoryExceeded);
  EXPECT_EQ(e["code"], "prefill_memory_exceeded");
  EXPECT_EQ(e["estimated_bytes"], 12245532672u);
  EXPECT_EQ(e["limit_bytes"], 11811160064u);
  EXPECT_EQ(e["peak_bytes"], kPeak);
  EXPECT_EQ(e["request_id"], "req-1");
  EXPECT_EQ(e["message"],
            "request req-1: prefill of 10000 new tokens (0 cached) needs an estimated 1508114432 "
            "bytes on top of 10737418240 bytes in use, 12245532672 in all, over the hard limit of "
            "11811160064 bytes by 434372608 bytes; shorten the prompt, lower the prefill chunk "
            "(2048 tokens now), or wait for memory to free");
}

TEST(ServiceAdmit, ServiceMemoryLimitIsTheDefaultHardLimit) {
  auto service = make_service({kQwen3Root}, 11ull << 30);
  HttpResponse r = admit(*service, request(std::nullopt));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(body_json(r)["error"]["limit_bytes"], 11811160064u);
}

TEST(ServiceAdmit, NoLimitAnywhereAdmitsAndGeneratesAnId) {
  auto service = make_service({kQwen3Root});
  json body = request(std::nullopt);
  body.erase("request_id");
  HttpResponse r = admit(*service, body);
  ASSERT_EQ(r.status, 200) << r.body;
  json j = body_json(r);
  EXPECT_EQ(j["peak_bytes"], kPeak);
  EXPECT_TRUE(j["limit_bytes"].is_null());
  const std::string id = j["request_id"];
  EXPECT_EQ(id.rfind("req-", 0), 0u);
  EXPECT_EQ(id.size(), 20u);
}

TEST(ServiceAdmit, AnInjectedIdGeneratorNamesRequestsWithoutAnId) {
  ServiceOptions options = testing::fake_options({kQwen3Root});
  options.make_request_id = [] { return std::string("req-fixed"); };
  auto service = make_service(std::move(options));
  json body = request(std::nullopt);
  body.erase("request_id");
  EXPECT_EQ(body_json(admit(*service, body))["request_id"], "req-fixed");
  // A request's own id still wins.
  EXPECT_EQ(body_json(admit(*service, request(std::nullopt)))["request_id"], "req-1");
}

TEST(ServiceAdmit, CachedTokensAndInt8ChangeThePeak) {
  auto service = make_service({kQwen3Root});
  json body = request(std::nullopt);
  body["cached_tokens"] = 6000;
  // Guard test: 4,000 new tokens over a 10,000 span: 623,378,432.
  EXPECT_EQ(body_json(admit(*service, body))["peak_bytes"], 623378432u);
  body = request(std::nullopt);
  body["kv_cache_mode"] = "int8";
  // 33,554,432 + 10,000 x 73,728 = 770,834,432.
  EXPECT_EQ(body_json(admit(*service, body))["peak_bytes"], 770834432u);
}

TEST(ServiceAdmit, DefaultChunkIsTheSettingsPrefillChunk) {
  auto service = make_service({kQwen3Root});
  json body = request(std::nullopt);
  body.erase("prefill_chunk");
  EXPECT_EQ(body_json(admit(*service, body))["peak_bytes"], kPeak);  // 2048 by default
}

TEST(ServiceAdmit, BadFieldsAreBadRequests) {
  auto service = make_service({kQwen3Root});
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"model", "Qwen3-8B"}}, "prompt_tokens: required"},
      {{{"model", "Qwen3-8B"}, {"prompt_tokens", -5}},
       "prompt_tokens: expected a non-negative integer, got -5"},
      {{{"model", "Qwen3-8B"}, {"prompt_tokens", 10}, {"cached_tokens", 11}},
       "cached_tokens: 11 is more than prompt_tokens 10"},
      {{{"model", "Qwen3-8B"}, {"prompt_tokens", 10}, {"hard_limit_bytes", 0}},
       "hard_limit_bytes: expected a positive integer, got 0"},
      {{{"model", "Qwen3-8B"}, {"prompt_tokens", 10}, {"current_usage_bytes", "1GB"}},
       "current_usage_bytes: expected a non-negative integer, got \"1GB\""},
      {{{"model", "Qwen3-8B"}, {"prompt_tokens", 10}, {"prefill_chunk", -1}},
       "prefill_chunk: expected a non-negative integer, got -1"},
      {{{"model", "Qwen3-8B"}, {"prompt_tokens", 10}, {"request_id", "a b"}},
       "request_id: expected 1-128 characters of [A-Za-z0-9._:/+=-], got \"a b\""},
      {{{"model", "Qwen3-8B"}, {"prompt_tokens", 10}, {"request_id", ""}},
       "request_id: expected 1-128 characters of [A-Za-z0-9._:/+=-], got \"\""},
      {{{"model", "Qwen3-8B"}, {"prompt_tokens", 10}, {"max_tokens", 10}},
       "unknown field 'max_tokens'"},
  };
  for (const auto& [body, message] : cases) {
    HttpResponse r = admit(*service, body);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_EQ(error_code(r), "bad_request") << body;
    EXPECT_EQ(error_message(r), message) << body;
  }
}

// The budget fields of /v1/estimate, read by the same rows of the request
// field table: memory_limit, a size or bytes, is the hard limit.
TEST(ServiceAdmit, MemoryLimitIsTheHardLimitReadAsAnEstimateReadsIt) {
  auto service = make_service({kQwen3Root});
  // A JSON integer is bytes; a text needs its unit ("11811160064" alone is
  // refused, as the estimate refuses it).
  for (const json& limit : {json("11GiB"), json(11811160064u), json("11811160064B")}) {
    json body = request(std::nullopt);
    body["memory_limit"] = limit;
    HttpResponse r = admit(*service, body);
    ASSERT_EQ(r.status, 400) << limit << r.body;
    EXPECT_EQ(body_json(r)["error"]["code"], "prefill_memory_exceeded");
    EXPECT_EQ(body_json(r)["error"]["limit_bytes"], 11811160064u);  // 11 GiB
  }
  json body = request(std::nullopt);
  body["memory_limit"] = "12GiB";
  HttpResponse r = admit(*service, body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body_json(r)["limit_bytes"], 12884901888u);
  // A value the estimate refuses is refused in the same words.
  body["memory_limit"] = "12 parsecs";
  r = admit(*service, body);
  HttpResponse estimate = service->handle(
      "POST", "/v1/estimate", json{{"model", "Qwen3-8B"}, {"memory_limit", "12 parsecs"}}.dump());
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_code(r), "bad_request");
  EXPECT_EQ(body_json(r)["error"]["field"], "memory_limit");
  EXPECT_EQ(error_message(r), error_message(estimate));
}

TEST(ServiceAdmit, MemoryLimitAndHardLimitTogetherAreRefused) {
  auto service = make_service({kQwen3Root});
  json body = request(12ull << 30);
  body["memory_limit"] = "12GiB";
  HttpResponse r = admit(*service, body);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_message(r), "memory_limit: and hard_limit_bytes both set the limit: give one of them");
}

// device: the budget an estimate with the same device is compared with;
// one this machine lacks is the estimate's host error.
TEST(ServiceAdmit, DeviceBudgetIsTheEstimatesBudget) {
  testing::FakeSysroot sysroot;
  sysroot.meminfo(64ull << 20, 12ull << 20);  // KiB: 64 GiB, 12 GiB available
  ServiceOptions options = testing::fake_options({kQwen3Root});
  options.host.sysroot = sysroot.path();
  options.host.probe_gpus = false;
  auto service = make_service(std::move(options));
  json body = request(std::nullopt);
  body["device"] = "cpu";
  HttpResponse r = admit(*service, body);
  ASSERT_EQ(r.status, 200) << r.body;
  json estimate = body_json(service->handle(
      "POST", "/v1/estimate", json{{"model", "Qwen3-8B"}, {"device", "cpu"}}.dump()));
  EXPECT_EQ(estimate["budget_bytes"], 12884901888u) << estimate;
  EXPECT_EQ(body_json(r)["limit_bytes"], estimate["budget_bytes"]);

  body["device"] = "cuda:3";
  r = admit(*service, body);
  HttpResponse refused = service->handle(
      "POST", "/v1/estimate", json{{"model", "Qwen3-8B"}, {"device", "cuda:3"}}.dump());
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(error_code(r), "host_error");
  EXPECT_EQ(error_code(refused), "host_error");
  EXPECT_EQ(error_message(r), error_message(refused));
}

TEST(ServiceAdmit, UnknownModelIsNotFound) {
  auto service = make_service({kQwen3Root});
  json body = request(1);
  body["model"] = "Qwen3-9000B";
  HttpResponse r = admit(*service, body);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(error_code(r), "model_not_found");
}

TEST(ServiceAdmit, AdmissionsAreCounted) {
  auto service = make_service({kQwen3Root});
  ASSERT_EQ(admit(*service, request(12ull << 30)).status, 200);
  ASSERT_EQ(admit(*service, request(11ull << 30)).status, 400);
  ASSERT_EQ(admit(*service, request(11ull << 30)).status, 400);
  const std::string metrics = service->handle("GET", "/metrics", "").body;
  EXPECT_NE(metrics.find("memfit_admissions_total{result=\"admitted\"} 1\n"), std::string::npos);
  EXPECT_NE(metrics.find("memfit_admissions_total{result=\"refused\"} 2\n"), std::string::npos);
  EXPECT_NE(metrics.find("memfit_requests_total{endpoint=\"/v1/admit\",code=\"400\"} 2\n"),
            std::string::npos)
      << metrics;
}

}  // namespace
}  // namespace memfit
