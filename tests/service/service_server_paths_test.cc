// No answer names a folder of the server: every endpoint, every error path
// and every warning is asked for over a root (and a folder outside it, a
// system root and a Hugging Face cache) in temporary folders, and no
// answer may hold any of their paths. Models are named relative to their
// root instead, as requests name them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/service_fixture.h"
#include "support/corpus.h"
#include "support/hf_cache_writer.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::body_json;
using testing::error_message;
using testing::fake_options;
using testing::make_service;

std::string qwen3_8b_config_service_server_paths() {
  return testing::read_test_data("corpus/qwen3/Qwen3-8B/config.json");
}

class ServiceServerPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    root_.write_file("good/config.json", qwen3_8b_config_service_server_paths());
    root_.make_dir("bare");  // no config, no weights: the fallback, with warnings
    root_.write_file("bare/README", "");
    root_.write_file("notjson/config.json", "{not json");
    root_.write_file("hostile/config.json", qwen3_8b_config_service_server_paths());
    root_.write_file("hostile/model.safetensors",
                     std::string("\x00\x00\x00\x00\x00\x01\x00\x00{}", 10));
    tiny_qwen3_gguf().write(root_.make_dir("two") + "/a-Q4_0.gguf");
    tiny_qwen3_gguf().write(root_.file_path("two/b-Q8_0.gguf"));
    tiny_qwen3_gguf().write(root_.file_path("tiny.gguf"));
    outside_.write_file("secret/config.json", qwen3_8b_config_service_server_paths());
    tiny_qwen3_gguf().write(outside_.file_path("outside.gguf"));
    root_.make_dir("sneaky");
    fs::create_symlink(outside_.file_path("secret/config.json"), root_.file_path("sneaky/config.json"));
    fs::create_directory_symlink(outside_.file_path("secret"), root_.file_path("escape"));
    fs::create_symlink(root_.file_path("nowhere"), root_.file_path("dangling"));

    HfCacheWriter cache(hub_);
    const std::string commit = fake_commit('e');
    cache.add_file("org/broken", commit, "config.json", "{not json");
    cache.set_ref("org/broken", "main", commit);
  }

  std::unique_ptr<Service> service() {
    ServiceOptions options = fake_options({root_.path()});
    options.allow_hub = true;
    options.hf_cache.hub_cache_dir = hub_;
    options.hub.endpoint = "http://127.0.0.1:9";  // never the real Hub
    options.hf_cache.offline = true;
    options.host.sysroot = sysroot_.path();  // empty: every host file is missing
    options.host.probe_gpus = false;
    return make_service(std::move(options));
  }

  // The server's folders, as given and as their real paths.
  std::vector<std::string> server_folders() const {
    std::vector<std::string> out;
    for (const TempDir* dir : {&root_, &hub_dir_, &sysroot_}) {
      out.push_back(dir->path());
      out.push_back(fs::canonical(dir->path()).string());
    }
    return out;
  }

  TempDir root_;
  TempDir outside_;
  TempDir hub_dir_;
  std::string hub_ = hub_dir_.make_dir("hub");
  TempDir sysroot_;
};

TEST_F(ServiceServerPaths, NoAnswerNamesAFolderOfTheServer) {
  auto s = service();
  struct Asked {
    std::string method, path;
    json body;
  };
  std::vector<Asked> asked = {{"GET", "/v1/models", nullptr},
                              {"GET", "/v1/local-models", nullptr},
                              {"GET", "/v1/engines", nullptr},
                              {"GET", "/healthz", nullptr},
                              {"GET", "/metrics", nullptr},
                              {"GET", root_.path() + "/good", nullptr},  // no such endpoint
                              {"PUT", "/v1/estimate", nullptr}};
  const std::vector<std::string> names = {
      "good", "bare", "notjson", "hostile", "two", "two/a-Q4_0.gguf", "tiny.gguf", "sneaky",
      "escape", "dangling", "absent", "org/broken", root_.path() + "/good",
      fs::canonical(root_.path()).string() + "/notjson", root_.path() + "/escape",
      outside_.path() + "/secret", root_.path(), "/etc"};
  for (const std::string& name : names) {
    asked.push_back({"POST", "/v1/estimate", {{"model", name}}});
    asked.push_back({"POST", "/v1/estimate", {{"model", name}, {"device", "cpu"}}});
    asked.push_back({"POST", "/v1/fit", {{"model", name}}});
    asked.push_back({"POST", "/v1/admit", {{"model", name}, {"prompt_tokens", 1000}}});
  }
  // The llama.cpp and vLLM profiles, and the files a llama.cpp request
  // names besides its model.
  for (const std::string name : {"tiny.gguf", "good", "notjson"}) {
    asked.push_back({"POST", "/v1/estimate", {{"model", name}, {"engine", "llamacpp"}}});
    asked.push_back({"POST", "/v1/fit", {{"model", name}, {"engine", "llamacpp"}}});
    asked.push_back({"POST", "/v1/estimate", {{"model", name}, {"engine", "vllm"}}});
    asked.push_back({"POST", "/v1/fit", {{"model", name}, {"engine", "vllm"}}});
  }
  for (const std::string& file : {std::string("absent-mmproj.gguf"), std::string("tiny.gguf"),
                                  outside_.file_path("outside.gguf"), std::string("escape")}) {
    asked.push_back({"POST", "/v1/estimate", {{"model", "tiny.gguf"}, {"mmproj", file}}});
    asked.push_back({"POST", "/v1/estimate", {{"model", "tiny.gguf"}, {"lora", file}}});
    asked.push_back({"POST", "/v1/estimate", {{"model", "tiny.gguf"}, {"model_draft", file}}});
  }

  size_t errors = 0;
  for (const Asked& a : asked) {
    HttpResponse r = s->handle(a.method, a.path, a.body.is_null() ? "" : a.body.dump());
    if (r.status >= 400) ++errors;
    std::vector<std::string> folders = server_folders();
    // A folder outside the roots only when the request did not name it
    // itself (a refusal quotes the name as given).
    const std::string request = a.path + " " + a.body.dump();
    for (const std::string& outside : {outside_.path(), fs::canonical(outside_.path()).string()}) {
      if (request.find(outside) == std::string::npos) folders.push_back(outside);
    }
    for (const std::string& folder : folders) {
      EXPECT_EQ(r.body.find(folder), std::string::npos)
          << request << " names " << folder << ":\n" << r.body;
    }
  }
  EXPECT_GT(errors, 40u);  // the error paths were taken
}

// What the answers say instead: the path relative to the root, as a
// request names the model; the Hugging Face cache by its variable.
TEST_F(ServiceServerPaths, ModelsAreNamedRelativeToTheirRoot) {
  auto s = service();
  HttpResponse r = s->handle("POST", "/v1/estimate", json{{"model", "notjson"}}.dump());
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(error_message(r).rfind("'notjson/config.json': ", 0), 0u) << error_message(r);

  r = s->handle("POST", "/v1/estimate", json{{"model", "bare"}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body_json(r)["warnings"][0].get<std::string>().rfind("'bare': no config.json", 0), 0u)
      << r.body;

  r = s->handle("POST", "/v1/estimate", json{{"model", "sneaky"}}.dump());
  EXPECT_NE(error_message(r).find("'sneaky/config.json': resolves outside the model roots"),
            std::string::npos)
      << error_message(r);

  r = s->handle("POST", "/v1/estimate", json{{"model", "org/broken"}}.dump());
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_NE(error_message(r).find("$HF_HUB_CACHE/models--org--broken/"), std::string::npos)
      << error_message(r);

  json models = body_json(s->handle("GET", "/v1/models", ""));
  for (const json& m : models["models"]) EXPECT_EQ(m["root"], 0) << m;
}

// The replacement takes a root only where a path component ends: a
// sibling folder whose name starts alike is left alone.
TEST_F(ServiceServerPaths, ASiblingFolderThatStartsAlikeIsNotTheRoot) {
  auto s = service();
  const std::string sibling = root_.path() + "-old/x";
  HttpResponse r = s->handle("POST", "/v1/estimate", json{{"model", sibling}}.dump());
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(error_message(r), "model '" + sibling + "': not inside a model root");
}

}  // namespace
}  // namespace memfit
